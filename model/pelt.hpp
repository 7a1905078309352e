// PELT, per-entity load tracking (kernel/sched/pelt.c, pelt.h, sched-pelt.h):
// the geometric sums and averages of load, runnable and running time, in
// periods of 1024 units of 1024 ns, decayed by y with y^32 = 1/2.
//
// The arithmetic below follows v6.12 to v7.0: its text is the same in those
// trees, except that __update_load_avg_cfs_rq() reads the runnable count as
// h_nr_running in v6.12.0, h_nr_queued - h_nr_delayed in 6.12.y and
// h_nr_runnable from v6.13 (the caller passes it: Behaviour::delayed_count). tests/kernel_pelt_test.cpp runs it
// against the tree's own pelt.c, bit for bit.
//
// Also the PELT clock of pelt.h (rq->clock_pelt, scaled by the CPU's capacity
// and frequency while busy, synced to clock_task when idle, less the idle time
// lost while fully busy), the same from 6.12 to 7.0.
//
// Where fair.c calls these: model/fair_pelt.cpp. util_est is not modelled
// beyond the UTIL_AVG_UNCHANGED flag.
#pragma once

#include "model/kernel_types.hpp"

namespace eevdf {

inline constexpr u32 kLoadAvgPeriod = 32;     // LOAD_AVG_PERIOD: y^32 = 1/2
inline constexpr u32 kLoadAvgMax = 47742;     // LOAD_AVG_MAX: the largest sum, 1024 * Σ y^n
inline constexpr u32 kPeltMinDivider = kLoadAvgMax - 1024;  // PELT_MIN_DIVIDER
inline constexpr unsigned kSchedCapacityShift = 10;          // SCHED_CAPACITY_SHIFT
inline constexpr u32 kUtilAvgUnchanged = 0x80000000u;        // UTIL_AVG_UNCHANGED

// struct sched_avg, with the kernel's widths (64-bit: unsigned long = u64).
struct SchedAvg {
  u64 last_update_time = 0;
  u64 load_sum = 0;
  u64 runnable_sum = 0;
  u32 util_sum = 0;
  u32 period_contrib = 0;
  u64 load_avg = 0;
  u64 runnable_avg = 0;
  u64 util_avg = 0;
  u32 util_est = 0;
  bool operator==(const SchedAvg&) const = default;
};

// decay_load(): val * y^n, by halving per 32 periods and the table of y^k,
// 0 beyond 63 half-lives.
u64 decay_load(u64 val, u64 n);

// __accumulate_pelt_segments(): the contribution of a span of PERIODS
// boundaries, D1 before the first and D3 after the last.
u32 accumulate_pelt_segments(u64 periods, u32 d1, u32 d3);

// accumulate_sum(): decays the sums over the periods crossed and adds this
// span's contribution; returns the number of periods crossed.
u64 accumulate_sum(u64 delta, SchedAvg& sa, u64 load, u64 runnable, bool running);

// ___update_load_sum(): advances SA to NOW (ns); true when a period boundary
// was crossed (the averages are then due).
bool update_load_sum(u64 now, SchedAvg& sa, u64 load, u64 runnable, bool running);

// get_pelt_divider(): the largest sum at the current position in the period.
constexpr u32 get_pelt_divider(const SchedAvg& sa) { return kPeltMinDivider + sa.period_contrib; }

// ___update_load_avg(): the averages from the sums.
void update_load_avg_from_sums(SchedAvg& sa, u64 load);

// cfs_se_util_change(): clears UTIL_AVG_UNCHANGED in util_est (feature UTIL_EST).
void cfs_se_util_change(SchedAvg& sa, bool util_est_feature);

// __update_load_avg_blocked_se(): an entity off the queue, decayed only.
// WEIGHT is se_weight(), scale_load_down(se->load.weight).
bool update_load_avg_blocked_se(u64 now, SchedAvg& sa, u64 weight);

// __update_load_avg_se(): load while on_rq, runnable se_runnable() (0 for a
// delayed entity, 1 for a queued task, the group's runnable count for a group
// entity), running while it is its queue's curr.
bool update_load_avg_se(u64 now, SchedAvg& sa, u64 weight, bool on_rq, u64 runnable, bool running,
                        bool util_est_feature);

// __update_load_avg_cfs_rq(): load scale_load_down(cfs_rq->load.weight),
// runnable its runnable (not delayed) tasks, running while it has a curr.
bool update_load_avg_cfs_rq(u64 now, SchedAvg& sa, u64 load_down, u64 nr_runnable, bool has_curr);

// update_rt_rq_load_avg(): the RT class's utilization on a runqueue.
bool update_rt_rq_load_avg(u64 now, SchedAvg& sa, bool running);

// The PELT clock of the model's runqueues is clock_task (every CPU at
// capacity 1024, no IRQ or steal time: the two never part) plus this base:
// the kernel's clock is already well into its boot when a scenario's clock
// starts at 0, and PELT reads a last_update_time of 0 as "not attached" (a
// task woken at time 0 would be attached again at every enqueue). 2^30 ns, a
// whole number of 1024 us periods, so units and periods fall where they did.
inline constexpr u64 kPeltClockBase = u64{1} << 30;

// The PELT clock of a runqueue (struct rq's clock_pelt, lost_idle_time,
// clock_idle, clock_pelt_idle).
struct PeltClock {
  u64 clock_pelt = 0;
  u64 lost_idle_time = 0;
  u64 clock_idle = 0;       // rq_clock() when the runqueue last went idle
  u64 clock_pelt_idle = 0;  // rq_clock_pelt() then
  bool operator==(const PeltClock&) const = default;
};

// rq_clock_pelt(): the runqueue's PELT time (cfs_rq_clock_pelt() without bandwidth).
constexpr u64 rq_clock_pelt(const PeltClock& c) { return c.clock_pelt - c.lost_idle_time; }

// _update_idle_rq_clock_pelt(): an idle runqueue syncs its PELT clock to
// clock_task and records when (CLOCK is rq_clock()).
void sync_idle_rq_clock_pelt(PeltClock& c, u64 clock_task, u64 clock);

// update_rq_clock_pelt(): DELTA ns of clock_task, scaled by the CPU's
// capacity and frequency capacity (of 1024) while a task runs; an idle
// runqueue syncs instead.
void update_rq_clock_pelt(PeltClock& c, s64 delta, bool curr_is_idle, u64 clock_task, u64 clock, u64 cpu_capacity,
                          u64 freq_capacity);

// update_idle_rq_clock_pelt(): on going idle, a runqueue whose utilization
// sums (CFS, RT, deadline) reached the maximum had no idle time to lose
// compared with full capacity: the difference to clock_task is counted as
// lost; then it syncs.
void update_idle_rq_clock_pelt(PeltClock& c, u32 cfs_util_sum, u32 rt_util_sum, u32 dl_util_sum, u64 clock_task,
                               u64 clock);

}  // namespace eevdf
