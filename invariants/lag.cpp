// I-LAG: saved lags within the clamp; queued lags sum to zero up to the floor of V,
// after every operation and at every avg_vruntime() return; a lag within the
// EEVDF bound is never clamped. lag_bound() and kernel_lag_limit(): the clamp.
#include <algorithm>

#include <fmt/format.h>

#include "invariants/checker.hpp"
#include "model/fair.hpp"

namespace eevdf::inv {

namespace {
// The real time entity_lag() clamps to: max_slice + TICK_NSEC (6e3c0a4e1ad1),
// before it max(2 * slice, TICK_NSEC).
u64 lag_span(const Rq& rq, u64 max_slice, u64 quantum) {
  const u64 tick = quantum ? quantum : rq.profile().tick_nsec();
  return rq.profile().behaviour.lag_limit_max_slice ? max_slice + tick : std::max(2 * max_slice, tick);
}
}  // namespace

// The profile's lag clamp for the largest slice: calc_delta(max_slice + TICK)
// (6e3c0a4e1ad1), or before it calc_delta(max(2 * slice, TICK)).
u64 lag_bound(const Rq& rq, u64 max_slice, u64 weight, u64 tick) {
  if (weight == 0) return 0;
  const u64 span = lag_span(rq, max_slice, tick);
  const u128 scaled = static_cast<u128>(span) << kNice0LoadShift;
  // a 64-bit division when the dividend fits (it does for any slice up to 2^54 ns): the same quotient
  u128 q = scaled >> 64 ? scaled / weight : static_cast<u64>(scaled) / weight;
  q += inverse_weight_excess(rq, q);
  // The inverse-weight path divides by scale_load_down(w) = floor(w / 1024), not w / 1024:
  // for a group weight that is not a multiple of 1024 the kernel's clamp lies above the
  // exact quotient by up to 1/floor(w / 1024) relative (w = 1024927, 6 ms: 6143999 where the
  // quotient is 6138570), more
  // than the allowance above. The bound is at least the kernel's own clamp.
  if (rq.profile().behaviour.calc_delta == CalcDeltaPath::inverse_weight) {
    LoadWeight lw{weight, 0};
    const u64 kernel = calc_delta_fair(span, lw, CalcDeltaPath::inverse_weight, null_observer());
    if (kernel > q) q = kernel;
  }
  return saturate_u64(q);
}

// div_s64() truncates vlag·w/w' toward zero, so |vlag'| <= ceil(old_limit · w/w').
// That can exceed lag_bound(w'): the kernel's clamp divides by scale_load_down(w) =
// floor(w / 1024), whose truncation differs between w and w' (v6.6: a group entity
// clamped at w = 1024927 and reweighted to MIN_SHARES = 2 when its queue empties
// keeps 1/1000 more than the bound at weight 2).
u64 rescaled_lag_bound(u64 old_limit, u64 w, u64 w2) {
  return saturate_u64((static_cast<u128>(old_limit) * w + w2 - 1) / w2);
}

// The clamp entity_lag() applies, in the kernel's own arithmetic:
// calc_delta_fair(max_slice + TICK_NSEC) (6e3c0a4e1ad1), before it
// calc_delta_fair(max(2 * slice, TICK_NSEC)), on the profile's __calc_delta path.
// lag_bound() is only an upper bound of it (the larger of the exact quotient plus the
// wmult allowance and this value): the inverse-weight path multiplies by floor(0xFFFFFFFF /
// scale_load_down(w)), which for a weight off the nice table lies below 2^32 / w
// (w = 2^28, 6 ms: 23436, where the quotient is 23437.5 and lag_bound() 23438).
// Whether a lag was clamped is decided against this value.
u64 kernel_lag_limit(const Rq& rq, u64 max_slice, LoadWeight lw) {
  return calc_delta_fair(lag_span(rq, max_slice, 0), lw, rq.profile().behaviour.calc_delta, null_observer());
}

// The inverse-weight __calc_delta (up to v7.0) multiplies by sched_prio_to_wmult[],
// whose entries exceed 2^32 / w by up to 9.3e-9 relative (computed over the table):
// a virtual time can exceed the exact quotient by that much, and a reweight's
// rescaling by w_old / w_new keeps the relative excess. Allow 2^-26 (1.5e-8) + 1 ns.
u128 inverse_weight_excess(const Rq& rq, u128 exact) {
  if (rq.profile().behaviour.calc_delta != CalcDeltaPath::inverse_weight) return 0;
  return (exact >> 26) + 1;
}

// The queued lags for V = zero_vruntime + offset: Σ w·(V - v_i) = W·offset -
// Σ w·key_i lies in (-Σ w, 0] when V is the floor of their weighted average.
void check_lags_sum(const CheckScope& s, s64 offset) {
  if (s.avg.weight == 0) return;
  const i128 total = static_cast<i128>(offset) * s.avg.weight - s.avg.sum;  // Σ w'_i (V - v_i)
  if (total > 0 || total <= -s.avg.weight)
    s.report(Id::LAG, "avg_vruntime",
             fmt::format("the queued lags Σ w·(V - v) = {} are not within (-{}, 0] (the floor of V)",
                         format_i128(total), format_i128(s.avg.weight)),
             {});
}

namespace {
// The report of an offending saved vlag, out of the walk (which stays a tight loop).
[[gnu::noinline]] void report_saved_lag(const CheckScope& s, const SchedEntity& se, i128 limit) {
  s.report(Id::LAG, "update_entity_lag / entity_lag",
           fmt::format("saved vlag of {} is {}, beyond the clamp ±{} (calc_delta_fair(max_slice {} + TICK_NSEC))",
                       entity_name(s.rq, &se), se.vlag, format_i128(limit), s.max_slice_seen),
           {&se});
}

// I-LAG on one entity: a saved vlag lies within the clamp. Reports and returns true if not.
// (Inline: asked for every entity of every queue after every operation.)
inline bool saved_lag_offends(const CheckScope& s, const SchedEntity& se, const Task* t) {
  const Rq& rq = s.rq;
  // a delayed entity's lag is saved when it is delayed only since 059258b0d424;
  // a group entity's when it is dequeued
  const bool off_queue = t ? t->state == TaskState::sleeping && !se.on_rq : !se.on_rq;
  const bool saved = off_queue || (se.sched_delayed && rq.profile().behaviour.lag_delayed_clamps);
  if (!saved) return false;
  // an off-queue reweight carries the old weight's bound, rescaled (on_reweight_end())
  const i128 limit = std::max<i128>(s.checker.bounds(se).lag_bound, s.checker.rescaled_lag_limit(se));
  if (se.vlag <= limit && se.vlag >= -limit) return false;
  report_saved_lag(s, se, limit);
  return true;
}
}  // namespace

void check_lag(const CheckScope& s) {
  if (!s.on(Id::LAG)) return;
  bool reported = false;
  for_each_member(s.checker.queues().eevdf_entities(s.cfs), [&](const SchedEntity& se, const Task* t) {
    if (!reported) reported = saved_lag_offends(s, se, t);
  });
  if (reported) return;
  check_lags_sum(s, s.avg.kernel_offset);
}

void check_lag_touched(const CheckScope& s, const std::vector<const SchedEntity*>& touched) {
  if (!s.on(Id::LAG)) return;
  for (const SchedEntity* se : touched)
    if (eevdf_queue_of(s.rq, *se) && saved_lag_offends(s, *se, entity_is_task(*se) ? &s.rq.task_of(*se) : nullptr)) return;
}

// I-LAG: a lag within the EEVDF bound, calc_delta_fair(r_max + TICK_NSEC) with
// r_max the largest slice queued now, survives update_entity_lag() unclamped.
void check_lag_clamp(const CheckScope& s, const SchedEntity& se, s64 raw, s64 clamped) {
  const Rq& rq = s.rq;
  LoadWeight lw = eevdf_load_of(rq, se);
  // r_max: the largest slice queued, from the queue itself (not the kernel's
  // max_slice augment, which profiles before 6e3c0a4e1ad1 do not have)
  const u64 span = s.avg.max_slice + rq.profile().tick_nsec();
  const i128 bound = calc_delta_fair(span, lw, rq.profile().behaviour.calc_delta, null_observer());
  if (raw > bound || raw < -bound) return;
  s.report(Id::LAG, "update_entity_lag / entity_lag",
           fmt::format("the lag V - v = {} of {} lies within the EEVDF bound ±{} (calc_delta_fair(r_max {} + "
                       "TICK_NSEC)) but was clamped to {}",
                       raw, entity_name(rq, &se), format_i128(bound), s.avg.max_slice, clamped),
           {&se});
}

// I-LAG at every avg_vruntime() return: the V it answers is the floor of the queued
// entities' weighted average (curr included, weighted as the profile's sums weigh
// them). The same rule as check_lag()'s after the operation, which recomputes V
// from the queue; this one judges the value the code computed, where the kernel
// backend's tree computed it.
void check_avg_vruntime(const CheckScope& s, u64 v) { check_lags_sum(s, vruntime_diff(v, s.cfs.zero_vruntime)); }

}  // namespace eevdf::inv
