// Test helper: parse a scenario text and execute it strictly, as
// `eevdf-check run` does (a parse or profile error is a test failure).
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <variant>

#include "invariants/ids.hpp"
#include "scenario/executor.hpp"
#include "scenario/scenario_parse.hpp"

namespace eevdf::test {

inline scn::ExecResult run_scenario_text(const std::string& text, const std::string& file_name = "t.scn",
                                          bool trace = false, scn::Backend backend = scn::Backend::model) {
  const auto parsed = scn::parse_scenario(text, file_name);
  if (const auto* e = std::get_if<scn::ParseError>(&parsed)) {
    ADD_FAILURE() << scn::format_parse_error(*e) << "\n" << text;
    return {};
  }
  const auto& s = std::get<scn::Scenario>(parsed);
  std::string error;
  const auto profile = scn::build_profile(s, {}, error);
  if (!profile) {
    ADD_FAILURE() << error;
    return {};
  }
  scn::ExecOptions options;  // strict
  options.trace = trace;
  options.backend = backend;
  return scn::execute(s, *profile, options);
}

// No error, no failed expectation, no violation.
inline void expect_ok(const scn::ExecResult& r) {
  EXPECT_TRUE(r.error.empty()) << r.error;
  for (const auto& f : r.expectation_failures) ADD_FAILURE() << f;
  for (const auto& v : r.violations) ADD_FAILURE() << inv::id_name(v.id) << " " << v.where << ": " << v.what;
}

}  // namespace eevdf::test
