// Reading a scenario from a file: text (.scn) or a libFuzzer crash file in the
// byte encoding. Errors carry the file, the place and the reason.
#pragma once

#include <optional>
#include <string>

#include "scenario/scenario.hpp"

namespace eevdf::cli {

struct Loaded {
  scn::Scenario scenario;
  bool from_bytes = false;  // decoded from the byte encoding: run non-strict
};

// text_only: refuse byte files (for `run`). On error returns nullopt and sets error.
std::optional<Loaded> load_scenario(const std::string& path, bool text_only, std::string& error);
std::optional<std::string> read_file(const std::string& path, std::string& error);

}  // namespace eevdf::cli
