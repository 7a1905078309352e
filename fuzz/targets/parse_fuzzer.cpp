// libFuzzer target for the scenario parser (not a gtest program: the name does
// not match *_test.cpp). Parses the input as text; when it parses, prints it,
// parses the print again and aborts unless both mean the same scenario and the
// print is a fixed point. Parse errors must carry a position and a message.
//
// Built by the EEVDF_FUZZERS option (see docs/fuzzing.md, "The libFuzzer targets").
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <variant>

#include "scenario/scenario_parse.hpp"
#include "scenario/scenario_print.hpp"

namespace {

[[noreturn]] void die(const char* what, const std::string& detail) {
  std::fprintf(stderr, "parse_fuzzer: %s\n%s\n", what, detail.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace eevdf::scn;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const ParseResult first = parse_scenario(text, "fuzz");
  if (const auto* e = std::get_if<ParseError>(&first)) {
    if (e->line < 1 || e->column < 1 || e->message.rfind("expected", 0) != 0 || e->file != "fuzz")
      die("malformed parse error", format_parse_error(*e));
    return 0;
  }
  const Scenario& s = std::get<Scenario>(first);
  const std::string printed = print_scenario(s);
  const ParseResult second = parse_scenario(printed, "printed");
  if (const auto* e = std::get_if<ParseError>(&second)) die("printed scenario does not parse", format_parse_error(*e) + "\n" + printed);
  const Scenario& back = std::get<Scenario>(second);
  if (!same_scenario(back, s)) die("parse(print(s)) differs from s", printed);
  const std::string again = print_scenario(back);
  if (again != printed) die("print is not a fixed point", printed + "\n---\n" + again);
  return 0;
}
