// Kernel integer types and the wrap-around arithmetic of kernel/sched/fair.c.
//
// Every multiplication and addition on the EEVDF path that can overflow goes
// through one of the helpers below. Each returns the value the kernel computes
// (two's-complement wrap, done in unsigned arithmetic so that C++ never sees a
// signed overflow) and, when the exact value differs, tells the observer which
// site wrapped, with both operands and both results.
#pragma once

#include <cstdint>

namespace eevdf {

using u32 = std::uint32_t;
using s32 = std::int32_t;
using u64 = std::uint64_t;
using s64 = std::int64_t;
__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

// Unsigned -> signed conversion is modular since C++20: this is the kernel's
// "(s64)x" cast.
constexpr s64 as_s64(u64 v) { return static_cast<s64>(v); }
constexpr u64 as_u64(s64 v) { return static_cast<u64>(v); }

// vruntime_cmp(A, "<", B) and friends: ordering of wrapping u64 virtual times
// through their signed difference.
constexpr s64 vruntime_diff(u64 a, u64 b) { return as_s64(a - b); }
constexpr bool vruntime_before(u64 a, u64 b) { return vruntime_diff(a, b) < 0; }
constexpr u64 min_vruntime(u64 min, u64 v) { return vruntime_before(v, min) ? v : min; }
constexpr u64 max_vruntime(u64 max, u64 v) { return vruntime_diff(v, max) > 0 ? v : max; }

// The arithmetic sites of the EEVDF path, named after the kernel function and
// the operation (see docs/model.md for the table).
enum class Site : std::uint8_t {
  sum_w_vruntime_add_key_x_weight,
  sum_w_vruntime_add_accumulate,
  sum_w_vruntime_sub_key_x_weight,
  sum_w_vruntime_sub_accumulate,
  update_zero_vruntime_weight_x_delta,
  update_zero_vruntime_accumulate,
  avg_vruntime_curr_key_x_weight,
  avg_vruntime_accumulate,
  avg_vruntime_floor_adjust,
  vruntime_eligible_curr_key_x_weight,
  vruntime_eligible_accumulate,
  vruntime_eligible_key_x_load,
  place_entity_lag_x_load,
  rescale_entity_vlag_x_weight,
  rescale_entity_deadline_x_weight,
  rescale_entity_vprot_x_weight,
  calc_delta_delta_x_weight,
  calc_delta_mul_u64_u32_shr,
  ineligible_vruntime_floor_adjust,  // v7.3-rc1 (0d1e7a2bab35)
  calc_prop_weight_x_weight,         // v7.3-rc1 flat runqueue: x * se->load.weight in __calc_prop_weight
  calc_smp_shares_ts_x_load,         // v7.3-rc1 flat runqueue: ts * load in __calc_smp_shares
  count_
};

const char* site_name(Site s);

// Kernel warnings of the modelled code (WARN_ON_ONCE / BUG_ON).
enum class Warn : std::uint8_t {
  sum_w_vruntime_add_product_over_62_bits,  // (p >> 63) != (p >> 62)
  paranoid_avg_sum_shift_limit,             // BUG_ON(sum_shift >= 10)
  place_entity_zero_load,                   // WARN_ON_ONCE(!load)
  pick_eevdf_next_buddy_delayed,            // WARN_ON_ONCE(next->sched_delayed)
  update_entity_lag_not_on_rq,              // WARN_ON_ONCE(!se->on_rq)
  set_next_buddy_not_on_rq,                 // WARN_ON_ONCE(!se->on_rq)
  dequeue_delayed_not_delayed,              // WARN_ON_ONCE(!se->sched_delayed)
  dequeue_sleep_already_delayed,            // WARN_ON_ONCE(delay && se->sched_delayed)
  set_next_task_delayed,                    // WARN_ON_ONCE(se->sched_delayed) in set_next_task_fair
  requeue_delayed_not_delayed,              // WARN_ON_ONCE(!sched_delayed || !on_rq)
  sched_fork_delayed,                       // WARN_ON_ONCE(p->se.sched_delayed)
  preempt_sync_without_ttwu,                // WARN_ON_ONCE(!(wake_flags & WF_TTWU))
  pick_next_entity_null,                    // pick on a non-empty queue returned NULL
  // v7.3-rc1 flat runqueue (I-HLOAD, not I-WARN): a task's EEVDF weight se->h_load
  // below MIN_SHARES where calc_delta_fair / avg_vruntime_weight / place_entity
  // use it, and a __calc_prop_weight division by a zero cfs_rq load (#DE).
  h_load_below_min_shares,
  calc_prop_weight_zero_divisor,
  // CPU bandwidth control (6.12.118, model/fair_bandwidth.cpp): SCHED_WARN_ON()s
  bandwidth_clock_self_set,            // tg_throttle_down(): throttled_clock_self already set
  bandwidth_clock_self_backwards,      // tg_unthrottle_up(): (s64)delta < 0
  bandwidth_throttled_clock_set,       // throttle_cfs_rq(): throttled_clock already set
  bandwidth_async_unthrottle_not_due,  // unthrottle_cfs_rq_async(): not throttled, or no runtime
  bandwidth_csd_queued_twice,          // __unthrottle_cfs_rq_async(): already on the CSD list
  bandwidth_throttled_with_runtime,    // distribute_cfs_runtime(): a throttled queue with runtime
  bandwidth_two_local_unthrottles,     // distribute_cfs_runtime(): a second local unthrottle
  bandwidth_unthrottle_delayed,        // unthrottle_cfs_rq() before 9b5ce1a37e90: a queued entity is delayed
  // the task-based throttle (v6.18): WARN_ON_ONCE()s
  bandwidth_limbo_not_empty,           // tg_throttle_down(): a limbo list not empty
  bandwidth_throttle_work_on_limbo,    // throttle_cfs_rq_work(): p->throttled or p on a limbo list
  bandwidth_limbo_enqueue_listed,      // enqueue_throttled_task(): p still on a limbo list
  bandwidth_dequeue_throttled_queued,  // dequeue_throttled_task(): p->se.on_rq
  count_
};

const char* warn_name(Warn w);

struct SchedEntity;
struct CfsRq;

// Who asked pick_eevdf() for an entity.
// Who asks pick_eevdf(): a schedule, wakeup preemption through
// pick_next_entity(), or wakeup preemption comparing the raw answer with the
// wakee (v6.12-v7.0, which may answer a delayed entity).
enum class PickCaller : std::uint8_t { schedule, wakeup_preempt, wakeup_preempt_decision };

// Why wakeup_preempt_fair() reschedules the running task for a wakee.
enum class WakeupPreemptReason : std::uint8_t {
  pick,        // EEVDF's pick returned the wakee
  short_pick,  // PREEMPT_SHORT: the unprotected pick returned the wakee
  idle_curr,   // a SCHED_IDLE curr, any non-idle wakee
  sync,        // NEXT_BUDDY sync wakeup (preempt_sync)
  forced,      // e837456fdca8: the waker is no longer eligible
  short_eligible,  // ba0d3bf5f97b (v7.3-rc1): PREEMPT_SHORT, the pick did not return the wakee but it is eligible
};

// A wake-up CPU choice (select_task_rq_fair() for WF_TTWU, several CPUs):
// what the choice was asked and what it answered, told at the moment it
// answered, before the wakee is enqueued anywhere (the state is the one the
// choice read; only its own memory, record_wakee()'s, recent_used_cpu and
// has_idle_cores, has moved).
struct WakeCpuChoice {
  int task = -1;             // the wakee p, asleep on prev_cpu
  int waker_cpu = -1;        // smp_processor_id(): the CPU the wake-up is made on
  int prev_cpu = -1;         // p's CPU (p->wake_cpu)
  int chosen_cpu = -1;       // the answer
  bool sync = false;         // WF_SYNC
  int recent_used_cpu = -1;  // p->recent_used_cpu before the choice (select_idle_sibling() rewrites it)
  bool had_idle_cores = false;  // sd_llc_shared->has_idle_cores before the choice
};

struct OverflowEvent {
  Site site;
  i128 lhs;        // first operand
  i128 rhs;        // second operand
  i128 exact;      // the mathematically exact result
  i128 kernel;     // what the kernel's type holds (as a signed or unsigned value)
};

// Receives what the model reports while it computes. The default does nothing.
class Observer {
 public:
  virtual ~Observer() = default;
  virtual void on_overflow(const OverflowEvent&) {}
  virtual void on_warn(Warn, const SchedEntity*) {}
  // pick_eevdf() returned `result` for the queue as it was at that moment.
  virtual void on_pick(const CfsRq&, const SchedEntity* /*result*/, bool /*protect*/, PickCaller) {}
  // update_entity_lag(): raw = V - v as computed, clamped = after the lag clamp
  // (before the delayed-entity adjustments).
  virtual void on_lag_clamp(const CfsRq&, const SchedEntity&, s64 /*raw*/, s64 /*clamped*/) {}
  // wakeup_preempt_fair() is about to reschedule the running task for the wakee.
  virtual void on_wakeup_preempt(const CfsRq&, const SchedEntity& /*wakee*/, WakeupPreemptReason) {}
  // reweight_entity() is about to change se's weight (after update_curr, before any change).
  virtual void on_reweight_begin(const CfsRq&, const SchedEntity&, u64 /*new_weight*/) {}
  // set_next_entity(): se becomes curr; first = a real pick (arms vprot).
  virtual void on_set_next(const SchedEntity&, bool /*first*/) {}
  // dequeue_entity() keeps se queued as sched_delayed (DELAY_DEQUEUE).
  virtual void on_delayed(const SchedEntity&) {}
  // reweight_entity() finished.
  virtual void on_reweight_end(const CfsRq&, const SchedEntity&) {}
  // rescale_entity() rescaled se's relative deadline (before: `old_relative`) by old/new weight.
  virtual void on_relative_deadline_rescaled(const SchedEntity&, u64 /*old_relative*/, u64 /*old_weight*/,
                                             u64 /*new_weight*/) {}
  // dequeue_entity() of a sched_change (not a sleep) made se's deadline relative,
  // d - v, for the placement that ends the change (PLACE_REL_DEADLINE).
  virtual void on_deadline_made_relative(const SchedEntity&) {}
  // set_load_weight() wrote se->load directly (no reweight_entity()): a new
  // task's first weight, or, before d32960528702, a SCHED_IDLE task's.
  virtual void on_load_set(const SchedEntity&, u64 /*old_weight*/) {}
  // A decision is about to read V: place_entity(), update_entity_lag() or pick_eevdf()
  // (`caller` names it). The kernel charges the running entity with update_curr() first.
  virtual void on_read_avg(const CfsRq&, const char* /*caller*/) {}
  // avg_vruntime() returned v for this queue (after its re-basing, where the profile has one).
  virtual void on_avg_vruntime(const CfsRq&, u64 /*v*/) {}
  // enqueue_entity() placed se with its saved lag `saved_lag` against other
  // queued entities (place_entity() returned true); se now counts in V.
  virtual void on_placed(const CfsRq&, const SchedEntity&, s64 /*saved_lag*/) {}
  // select_task_rq_fair() chose a CPU for a wake-up (told to the waking CPU's
  // observer; the other CPUs through Rq::possible_cpus()).
  virtual void on_wake_choice(const WakeCpuChoice&) {}
};

Observer& null_observer();

// key * weight and friends: an s64 times an unsigned long, computed by the
// kernel in u64 and stored to s64.
inline s64 mul_s64(s64 a, s64 b, Site site, Observer& obs) {
  const s64 r = as_s64(as_u64(a) * as_u64(b));
  const i128 exact = static_cast<i128>(a) * b;
  if (exact != r) [[unlikely]]
    obs.on_overflow({site, a, b, exact, r});
  return r;
}

inline s64 add_s64(s64 a, s64 b, Site site, Observer& obs) {
  const s64 r = as_s64(as_u64(a) + as_u64(b));
  const i128 exact = static_cast<i128>(a) + b;
  if (exact != r) [[unlikely]]
    obs.on_overflow({site, a, b, exact, r});
  return r;
}

inline s64 sub_s64(s64 a, s64 b, Site site, Observer& obs) {
  const s64 r = as_s64(as_u64(a) - as_u64(b));
  const i128 exact = static_cast<i128>(a) - b;
  if (exact != r) [[unlikely]]
    obs.on_overflow({site, a, b, exact, r});
  return r;
}

inline u64 mul_u64(u64 a, u64 b, Site site, Observer& obs) {
  const u64 r = a * b;
  const u128 exact = static_cast<u128>(a) * b;
  if (exact != r) [[unlikely]]
    obs.on_overflow({site, static_cast<i128>(a), static_cast<i128>(b), static_cast<i128>(exact),
                     static_cast<i128>(r)});
  return r;
}

// div_s64(): s64 dividend, s32 divisor (a wider argument is truncated to 32
// bits, as the kernel's prototype does), truncation toward zero.
s64 div_s64(s64 dividend, s64 divisor_as_passed);
// div64_long() on 64-bit: s64 / s64, truncation toward zero.
s64 div64_long(s64 dividend, s64 divisor);

// mul_u64_u32_shr(a, mul, shift) = floor(a * mul / 2^shift) mod 2^64.
inline u64 mul_u64_u32_shr(u64 a, u32 mul, unsigned shift) {
  return static_cast<u64>((static_cast<u128>(a) * mul) >> shift);
}

// fls(): 1-based index of the most significant set bit, 0 for 0.
constexpr int fls64(u64 x) { return x == 0 ? 0 : 64 - __builtin_clzll(x); }
constexpr int ilog2(u64 x) { return fls64(x) - 1; }

}  // namespace eevdf
