// `eevdf-check known`: the known-findings files (corpus/known/PROFILE.known,
// scenario/known.hpp) checked against their scenarios, or brought up to date.
#pragma once

#include <string>
#include <vector>

namespace eevdf::cli {

struct KnownArgs {
  std::vector<std::string> files;
  bool update = false;       // write the sites and detail classes seen
  std::string backend = "model";  // or kernel: the tree's own code (its profile's file only)
  std::string root = ".";    // the scenarios' paths are relative to it
};

// Exit code: 0 every entry replays as written (or was updated), 1 a problem, 2 bad input.
int run_known(const KnownArgs& a);

}  // namespace eevdf::cli
