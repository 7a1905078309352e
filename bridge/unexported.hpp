// What no bridge to a real kernel (the kSTEP and rt-app exports, the VM runner)
// replays yet: an RT task and a tick without a preemption point, which only the
// model and the kernel backend run.
#pragma once

#include <string>
#include <string_view>

#include "scenario/scenario.hpp"

namespace eevdf::bridge {

// Empty when the bridge `bridge` ("the kSTEP export") can replay every operation
// of s; else its refusal, naming the first operation it cannot.
std::string unexported_op(const scn::Scenario& s, std::string_view bridge);

}  // namespace eevdf::bridge
