// Test helper: which kernel tree this build's backend was made from, for the
// tests written for one tree's code (docs/kernel-backend.md, "Versions").
#pragma once

#include <string>

#include "kernelsrc/kernel_backend.hpp"

namespace eevdf::test {

// The build has the kernel backend and its tree's version starts with
// `version` ("6.12." for any 6.12.y, "6.18.0").
inline bool kernel_tree_is(const std::string& version) {
  return kernelsrc::available() && kernelsrc::kernel_version().rfind(version, 0) == 0;
}

}  // namespace eevdf::test
