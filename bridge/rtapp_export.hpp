// `export --rt-app`: the nearest rt-app workload to a scenario. Each task
// becomes a thread (policy, nice as "priority", custom slice as "dl-runtime"),
// started by "delay" at its first wake-up, with "run" events of the CPU time
// it got in the model between wake-ups and "sleep" events of the time it
// slept; a renice, policy or slice change starts a new phase. The file says
// in "_eevdf_check" what could not be expressed.
#pragma once

#include <optional>
#include <string>

#include "scenario/scenario.hpp"
#include "model/profile.hpp"

namespace eevdf::bridge {

std::optional<std::string> export_rtapp(const scn::Scenario& s, const Profile& profile, const std::string& source_name,
                                        std::string& error);

}  // namespace eevdf::bridge
