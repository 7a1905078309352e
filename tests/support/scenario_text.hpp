// Test helpers for scenario texts: parse one that must be valid, or get the
// message of one that must not. A parse error in parse_ok() is a test failure
// (an empty Scenario comes back), never an exception.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <variant>

#include "scenario/scenario_parse.hpp"

namespace eevdf::test {

inline scn::Scenario parse_ok(std::string_view text, std::string_view file_name = "t.scn") {
  scn::ParseResult r = scn::parse_scenario(text, file_name);
  if (const auto* e = std::get_if<scn::ParseError>(&r)) {
    ADD_FAILURE() << "unexpected parse error: " << scn::format_parse_error(*e) << "\n--- input ---\n" << text;
    return {};
  }
  return std::get<scn::Scenario>(std::move(r));
}

// The formatted parse error ("t.scn:3:9: error: ..."), or "no error".
inline std::string parse_error_text(std::string_view text, std::string_view file_name = "t.scn") {
  const scn::ParseResult r = scn::parse_scenario(text, file_name);
  const auto* e = std::get_if<scn::ParseError>(&r);
  return e ? scn::format_parse_error(*e) : std::string("no error");
}

}  // namespace eevdf::test
