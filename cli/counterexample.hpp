// `eevdf-check check`: the minimizer (ddmin, then argument shrinking) run on
// RapidCheck's shrunk counterexample. RapidCheck shrinks command by command
// and stops at a local minimum; removing several operations at once or
// rounding an argument often goes further.
#pragma once

#include <chrono>
#include <optional>

#include "scenario/scenario.hpp"
#include "model/profile.hpp"

namespace eevdf::cli {

// The counterexample, replayed and minimized within budget: the shorter
// scenario (titled, with its `expect violation` line), or nullopt when it is
// no shorter or does not replay as a violation.
std::optional<scn::Scenario> minimize_counterexample(const scn::Scenario& counterexample, const Profile& profile,
                                                      std::chrono::seconds budget,
                                                      scn::Backend backend = scn::Backend::model);

}  // namespace eevdf::cli
