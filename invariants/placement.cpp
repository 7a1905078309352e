// I-PLACE: placement keeps the saved lag.
//
// EEVDF keeps a task's lag across a sleep, a migration or a change of its
// parameters: place_entity() (PLACE_LAG) puts the entity at V minus its saved
// lag, inflated by (W + w) / W, so that the lag observed once it counts in V
// is the saved one again. Checked at every placement against other queued
// entities, after the entity joined the sums, from the exact average:
// |(V' - v) - vlag| < 2, the rounding of avg_vruntime() and of the division.
#include <fmt/format.h>

#include "invariants/checker.hpp"
#include "model/fair.hpp"

namespace eevdf::inv {

void check_placement(const CheckScope& s, const SchedEntity& se, s64 saved_lag) {
  if (!s.on(Id::PLACE) || s.avg.weight <= 0) return;
  // V' - v = Σ key·w / Σ w - key(se): compared times Σ w, exactly
  const i128 key = entity_key(s.cfs, se);
  const i128 off = s.avg.sum - s.avg.weight * (key + saved_lag);
  if (off < 2 * s.avg.weight && off > -2 * s.avg.weight) return;
  // the lag observed, rounded toward zero, for the message
  const i128 observed = s.avg.sum / s.avg.weight - key;
  s.report(Id::PLACE, "place_entity",
           fmt::format("{} was placed with its saved lag {}, but once it counts in V its lag V - v is {} "
                       "(Σ w = {})",
                       entity_name(s.rq, &se), saved_lag, format_i128(observed), format_i128(s.avg.weight)),
           {&se});
}

}  // namespace eevdf::inv
