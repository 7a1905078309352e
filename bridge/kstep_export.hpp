// `export --kstep`: a kSTEP driver (github.com/kstep-dev/kstep, kmod/driver.h)
// that performs a scenario's operations on a real kernel and checks the same
// properties with kSTEP's pass/fail output. One CPU (CPU 1, the first test
// CPU of a kSTEP VM), no task groups.
#pragma once

#include <string>
#include <optional>

#include "scenario/scenario.hpp"
#include "model/profile.hpp"

namespace eevdf::bridge {

// The driver's C source, or nullopt and an error (unknown kernel version for
// the profile, an operation the model refuses).
std::optional<std::string> export_kstep(const scn::Scenario& s, const Profile& profile,
                                        const std::string& source_name, std::string& error);

}  // namespace eevdf::bridge
