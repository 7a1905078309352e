// Scenario text (docs/scenario-language.md) that drives the model into the
// state of a refutation, for the obligations where such a state is reachable
// with tasks. smt emits text only; the CLI and the tests replay it.
#pragma once

#include <string>

#include "smt/obligations.hpp"

namespace eevdf::smt {

// A scenario for a refuted obligation, or "" if none is known. Sets
// out.scenario, out.scenario_site and out.scenario_variant.
void attach_scenario(Outcome& out, const Params& p);

}  // namespace eevdf::smt
