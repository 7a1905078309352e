// I-LAG: saved lags within the clamp; queued lags sum to zero up to the floor of V.
#include <algorithm>

#include <fmt/format.h>

#include "invariants/checker.hpp"
#include "model/fair.hpp"

namespace eevdf::inv {

void check_lag(const CheckScope& s) {
  if (!s.on(Id::LAG)) return;
  const Rq& rq = s.rq;
  bool reported = false;
  for_each_member(s.checker.queues().eevdf_entities(s.cfs), [&](const SchedEntity& se, const Task* t) {
    if (reported) return;
    // a delayed entity's lag is saved when it is delayed only since 059258b0d424;
    // a group entity's when it is dequeued
    const bool off_queue = t ? t->state == TaskState::sleeping && !se.on_rq : !se.on_rq;
    const bool saved = off_queue || (se.sched_delayed && rq.profile().behaviour.lag_delayed_clamps);
    if (!saved) return;
    // an off-queue reweight carries the old weight's bound, rescaled (on_reweight_end())
    const i128 limit = std::max<i128>(s.checker.bounds(se).lag_bound, s.checker.rescaled_lag_limit(se));
    if (se.vlag > limit || se.vlag < -limit) {
      s.report(Id::LAG, "update_entity_lag / entity_lag",
               fmt::format("saved vlag of {} is {}, beyond the clamp ±{} (calc_delta_fair(max_slice {} + TICK_NSEC))",
                           entity_name(rq, &se), se.vlag, format_i128(limit), s.max_slice_seen),
               {&se});
      reported = true;
    }
  });
  if (reported) return;
  if (s.avg.weight == 0) return;
  const s64 offset = s.avg.kernel_offset;
  const i128 total = static_cast<i128>(offset) * s.avg.weight - s.avg.sum;  // Σ w'_i (V - v_i)
  if (total > 0 || total <= -s.avg.weight)
    s.report(Id::LAG, "avg_vruntime",
             fmt::format("the queued lags Σ w·(V - v) = {} are not within (-{}, 0] (the floor of V)",
                         format_i128(total), format_i128(s.avg.weight)),
             {});
}

}  // namespace eevdf::inv
