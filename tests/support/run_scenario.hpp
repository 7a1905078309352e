// Test helper: parse a scenario text and execute it strictly, as
// `eevdf-check run` does (a parse or profile error is a test failure).
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <variant>

#include "fuzz/executor.hpp"
#include "fuzz/scenario_parse.hpp"

namespace eevdf::test {

inline fuzz::ExecResult run_scenario_text(const std::string& text, const std::string& file_name = "t.scn",
                                          bool trace = false) {
  const auto parsed = fuzz::parse_scenario(text, file_name);
  if (const auto* e = std::get_if<fuzz::ParseError>(&parsed)) {
    ADD_FAILURE() << fuzz::format_parse_error(*e) << "\n" << text;
    return {};
  }
  const auto& s = std::get<fuzz::Scenario>(parsed);
  std::string error;
  const auto profile = fuzz::build_profile(s, {}, error);
  if (!profile) {
    ADD_FAILURE() << error;
    return {};
  }
  fuzz::ExecOptions options;  // strict
  options.trace = trace;
  return fuzz::execute(s, *profile, options);
}

}  // namespace eevdf::test
