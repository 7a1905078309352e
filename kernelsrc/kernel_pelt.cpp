// The tree's PELT arithmetic behind the model's types (kernelsrc/kernel_pelt.hpp).
#include "kernelsrc/kernel_pelt.hpp"

#include "kernelsrc/kb_pelt.h"

namespace eevdf::kernelsrc {

namespace {

kb_pelt_avg to_kb(const SchedAvg& sa) {
  return {sa.last_update_time, sa.load_sum, sa.runnable_sum, sa.util_sum, sa.period_contrib,
          sa.load_avg,         sa.runnable_avg, sa.util_avg, sa.util_est};
}

void from_kb(SchedAvg& sa, const kb_pelt_avg& k) {
  sa = {k.last_update_time, k.load_sum, k.runnable_sum, k.util_sum, k.period_contrib,
        k.load_avg,         k.runnable_avg, k.util_avg, k.util_est};
}

// One of the tree's PELT updates (update(kb_pelt_avg*) -> int) on sa, in the
// tree's types and back; whether it changed the averages.
template <class Update>
bool update_on_kb(SchedAvg& sa, Update update) {
  kb_pelt_avg k = to_kb(sa);
  const int r = update(&k);
  from_kb(sa, k);
  return r != 0;
}

kb_pelt_clock to_kb(const PeltClock& c, u64 clock_task, u64 clock) {
  return {clock, clock_task, c.clock_pelt, c.lost_idle_time, c.clock_idle, c.clock_pelt_idle};
}

void from_kb(PeltClock& c, const kb_pelt_clock& k) {
  c = {k.clock_pelt, k.lost_idle_time, k.clock_idle, k.clock_pelt_idle};
}

}  // namespace

bool pelt_available() { return true; }

bool tree_update_load_avg_se(u64 now, SchedAvg& sa, u64 load_weight, bool on_rq, bool delayed, bool group,
                             u64 runnable_weight, bool running, bool util_est_feature) {
  return update_on_kb(sa, [&](kb_pelt_avg* k) {
    return kb_pelt_update_se(now, k, load_weight, on_rq, delayed, group, runnable_weight, running, util_est_feature);
  });
}

bool tree_update_load_avg_blocked_se(u64 now, SchedAvg& sa, u64 load_weight) {
  return update_on_kb(sa, [&](kb_pelt_avg* k) { return kb_pelt_update_blocked_se(now, k, load_weight); });
}

bool tree_update_load_avg_cfs_rq(u64 now, SchedAvg& sa, u64 load_weight, u32 nr_queued, u32 nr_delayed,
                                 bool has_curr) {
  return update_on_kb(sa, [&](kb_pelt_avg* k) {
    return kb_pelt_update_cfs_rq(now, k, load_weight, nr_queued, nr_delayed, has_curr);
  });
}

bool tree_update_rt_rq_load_avg(u64 now, SchedAvg& sa, bool running) {
  return update_on_kb(sa, [&](kb_pelt_avg* k) { return kb_pelt_update_rt_rq(now, k, running); });
}

void tree_update_rq_clock_pelt(PeltClock& c, s64 delta, bool curr_is_idle, u64 clock_task, u64 clock,
                               u64 cpu_capacity, u64 freq_capacity) {
  kb_pelt_clock k = to_kb(c, clock_task, clock);
  kb_pelt_update_rq_clock_pelt(&k, delta, curr_is_idle, cpu_capacity, freq_capacity);
  from_kb(c, k);
}

void tree_update_idle_rq_clock_pelt(PeltClock& c, u32 cfs_util_sum, u32 rt_util_sum, u32 dl_util_sum,
                                    u64 clock_task, u64 clock) {
  kb_pelt_clock k = to_kb(c, clock_task, clock);
  kb_pelt_update_idle_rq_clock_pelt(&k, cfs_util_sum, rt_util_sum, dl_util_sum);
  from_kb(c, k);
}

u64 tree_rq_clock_pelt(const PeltClock& c) {
  const kb_pelt_clock k = to_kb(c, 0, 0);
  return kb_pelt_rq_clock_pelt(&k);
}

}  // namespace eevdf::kernelsrc
