// The tree's own PELT arithmetic (kernel/sched/pelt.c, compiled apart from
// fair.c: kernelsrc/pelt_glue.c), with the model's types, for
// tests/kernel_pelt_test.cpp. Each function runs the tree's function of the
// same role in model/pelt.hpp on a copy of SA and returns its answer.
#pragma once

#include "model/pelt.hpp"

namespace eevdf::kernelsrc {

// Whether this build has the tree's PELT (a kernel tree at build time).
bool pelt_available();

// __update_load_avg_se() on an entity of load.weight LOAD_WEIGHT (not scaled
// down): a task (GROUP false) or a group entity of runnable_weight
// RUNNABLE_WEIGHT; DELAYED its sched_delayed; RUNNING: its queue's curr.
bool tree_update_load_avg_se(u64 now, SchedAvg& sa, u64 load_weight, bool on_rq, bool delayed, bool group,
                             u64 runnable_weight, bool running, bool util_est_feature);
// __update_load_avg_blocked_se()
bool tree_update_load_avg_blocked_se(u64 now, SchedAvg& sa, u64 load_weight);
// __update_load_avg_cfs_rq() on a queue of load.weight LOAD_WEIGHT, NR_QUEUED
// entities of which NR_DELAYED delayed, with a curr when HAS_CURR
bool tree_update_load_avg_cfs_rq(u64 now, SchedAvg& sa, u64 load_weight, u32 nr_queued, u32 nr_delayed,
                                 bool has_curr);
// update_rt_rq_load_avg()
bool tree_update_rt_rq_load_avg(u64 now, SchedAvg& sa, bool running);

// update_rq_clock_pelt(), update_idle_rq_clock_pelt() and rq_clock_pelt() on
// a runqueue whose clock and clock_task are CLOCK and CLOCK_TASK
void tree_update_rq_clock_pelt(PeltClock& c, s64 delta, bool curr_is_idle, u64 clock_task, u64 clock,
                               u64 cpu_capacity, u64 freq_capacity);
void tree_update_idle_rq_clock_pelt(PeltClock& c, u32 cfs_util_sum, u32 rt_util_sum, u32 dl_util_sum,
                                    u64 clock_task, u64 clock);
u64 tree_rq_clock_pelt(const PeltClock& c);

}  // namespace eevdf::kernelsrc
