#include "smt/reaching_state.hpp"

#include <cmath>

#include "model/weights.hpp"
#include "smt/obligations.hpp"

namespace eevdf::smt {

namespace {

// Enough nice -20 tasks that lead · heavy · their load passes 2^63.
int heavy_tasks_needed() {
  const double lead = 4.0e9;  // v - V of L when its first deadline expires (measured: 4.096e9)
  const double heavy = static_cast<double>(scale_load(sched_prio_to_weight.front()));
  return static_cast<int>(std::ceil(std::ldexp(1.0, 63) / (lead * heavy))) + 6;
}

}  // namespace

void attach_reaching_state(Outcome& out, const Params& p) {
  if (out.verdict != Verdict::refuted || out.reachable.empty()) return;
  ReachingState r;
  r.profile = p.profile;
  r.variant = p.variant;
  r.heavy_tasks = heavy_tasks_needed();
  if (out.name == "place_entity.lag_x_load" && p.variant.empty()) {
    r.site = "place_entity.lag_x_load";  // sched_setattr() re-places L next to the heavy tasks
    r.reslice_ns = 99000000;
  } else if (out.name == "vruntime_eligible.key_x_load" && !p.eligible_int128) {
    r.site = "vruntime_eligible.key_x_load";  // the pick at L's deadline tests L against them
  } else {
    return;
  }
  Profile probe;
  if (!apply_variant_to_profile(probe, p.variant)) return;  // the model has no switch for this variant
  out.reaching = r;
}

}  // namespace eevdf::smt
