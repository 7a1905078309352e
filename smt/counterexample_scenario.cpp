#include "smt/counterexample_scenario.hpp"

#include <cmath>

#include "model/weights.hpp"

namespace eevdf::smt {

namespace {

// A nice 19 task L with a 100 ms custom slice runs alone, then `heavy` nice -20
// tasks with the same slice wake (same slice: no PREEMPT_SHORT; L keeps its
// protection) and L runs until its first deadline (half a virtual slice,
// PLACE_DEADLINE_INITIAL, checked at 10 ms ticks): about 60 ms, i.e.
// v - V ≈ 60e6 · 2^20 / 15360 ≈ 4.1e9. Then the key·load and lag·load
// products reach 4.1e9 · heavy · 90891264.
std::string light_task_ahead(const Params& p, int heavy, const std::string& title, const std::string& last_op) {
  std::string s = "# " + title + "\n";
  if (!p.variant.empty())
    s += "# needs the test-only variant " + p.variant + ": eevdf-check prove --variant " + p.variant + " --replay\n";
  s += "profile " + p.profile + "\n";
  s += "hz 100\n";
  s += "task L nice=19 slice=100ms\n";
  for (int i = 0; i < heavy; ++i) s += "task H" + std::to_string(i) + " nice=-20 slice=100ms\n";
  s += "wake L\nschedule\n";
  for (int i = 0; i < heavy; ++i) s += "wake H" + std::to_string(i) + "\n";
  s += "run 100ms\n";
  s += last_op;
  s += "expect violation I-OVF\n";
  return s;
}

int heavy_tasks_needed() {
  const double lead = 4.0e9;  // v - V of L when its first deadline expires (measured: 4.096e9)
  const double heavy = static_cast<double>(scale_load(sched_prio_to_weight.front()));
  return static_cast<int>(std::ceil(std::ldexp(1.0, 63) / (lead * heavy))) + 6;
}

}  // namespace

void attach_scenario(Outcome& out, const Params& p) {
  if (out.verdict != Verdict::refuted || out.reachable.empty()) return;
  const int heavy = heavy_tasks_needed();
  if (out.name == "place_entity.lag_x_load" && p.variant.empty()) {
    out.scenario = light_task_ahead(
        p, heavy,
        "place_entity.lag_x_load: sched_setattr() re-places a task 4e9 virtual ns ahead next to " +
            std::to_string(heavy) + " nice -20 tasks",
        "slice L 99ms\n");
    out.scenario_site = "place_entity.lag_x_load";
  } else if (out.name == "vruntime_eligible.key_x_load" && !p.eligible_int128) {
    out.scenario = light_task_ahead(
        p, heavy,
        "vruntime_eligible.key_x_load in s64: the pick at L's deadline tests L, 4e9 virtual ns ahead of V, against " +
            std::to_string(heavy) + " nice -20 tasks",
        "");
    out.scenario_site = "vruntime_eligible.key_x_load";
  }
  out.scenario_variant = out.scenario.empty() ? "" : p.variant;
  Profile probe;
  if (!out.scenario.empty() && !apply_variant_to_profile(probe, p.variant)) {
    out.scenario.clear();  // the model has no switch for this variant: nothing to replay
    out.scenario_site.clear();
    out.scenario_variant.clear();
  }
}

}  // namespace eevdf::smt
