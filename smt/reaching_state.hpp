// How the model reaches a refuted obligation with tasks, as a value: the site
// it reports under I-OVF and the numbers of the state that gets there. smt/
// only says what the state is; cli/prove builds the scenario
// (scenario/scenario.hpp) from it and replays it.
#pragma once

#include <optional>
#include <string>

#include "model/kernel_types.hpp"

namespace eevdf::smt {

struct Outcome;
struct Params;

// "A light task ahead": a task L of nice `light_nice` with the custom slice
// `slice_ns` runs alone, then `heavy_tasks` tasks of nice `heavy_nice` with the
// same slice wake (same slice: no PREEMPT_SHORT; L keeps its protection), and
// L runs `run_ns` at HZ `hz`, until its first deadline (half a virtual slice,
// PLACE_DEADLINE_INITIAL, checked at 10 ms ticks): about 60 ms, i.e.
// v - V ≈ 60e6 · 2^20 / 15360 ≈ 4e9. The key·load and lag·load products then
// reach 4e9 · heavy_tasks · 90891264 (the nice -20 load). Then the
// refuted site runs: with `reslice_ns` set, sched_setattr() gives L that slice
// and re-places it (place_entity); without, the pick at L's deadline tests L's
// eligibility (vruntime_eligible).
struct ReachingState {
  std::string site;        // the refuted site: the model Site name a replay reports under I-OVF
  std::string profile;     // the profile it runs on
  std::string variant;     // test-only variant the replay needs ("" for none)
  unsigned hz = 100;
  int light_nice = 19;
  int heavy_nice = -20;
  int heavy_tasks = 0;
  s64 slice_ns = 100000000;  // 100 ms, the sched_setattr() maximum
  s64 run_ns = 100000000;
  std::optional<s64> reslice_ns;  // place_entity: the slice sched_setattr() sets last (99 ms)
};

// The state for a refuted obligation, or nullopt if none is known (the
// obligation is proved, task weights do not reach it, or the model has no
// switch for the variant). Sets out.reaching.
void attach_reaching_state(Outcome& out, const Params& p);

}  // namespace eevdf::smt
