// The scenario of a refutation the model reaches: smt/ says which state
// (smt::ReachingState, a value), this builds the scenario that drives the model
// there. `eevdf-check prove` prints it, writes it (--write-scenarios) and
// replays it (--replay) without a detour through text.
#pragma once

#include <string>

#include "scenario/scenario.hpp"
#include "smt/reaching_state.hpp"

namespace eevdf::cli {

// Titled, with its `expect violation I-OVF`.
scn::Scenario reaching_scenario(const smt::ReachingState& r);

// Its text: the title, and for a test-only variant how to replay it, as
// comment lines, then the scenario.
std::string reaching_scenario_text(const smt::ReachingState& r);

}  // namespace eevdf::cli
