// Parser of the scenario language (docs/scenario-language.md): text -> Scenario.
//
//   # title (the first comment line, before any directive or operation)
//   profile mainline bug=B01
//   features NO_NEXT_BUDDY,PARANOID_AVG
//   cpus 8
//   skip I-AUG          (run settings: skip, tolerate none, keep_going, backend)
//   task A nice=0
//   wake A
//   run 3ms
//   expect curr A
//   expect violation I-DL
//
// One item a line, '#' starts a comment, tokens are separated by spaces and
// tabs. Every error names the file, the line and the 1-based byte column of the
// offending token, and says what was expected and what was found. The parser
// never throws (except std::bad_alloc) and never crashes, whatever the input.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <variant>

#include "scenario/scenario.hpp"

namespace eevdf::scn {

struct ParseError {
  std::string file;
  int line = 0;    // 1-based
  int column = 0;  // 1-based byte column of the offending token (just past the
                   // last token when something is missing at the end of a line)
  std::string message;  // "expected ..., found ..."
  bool operator==(const ParseError&) const = default;
};

using ParseResult = std::variant<Scenario, ParseError>;

ParseResult parse_scenario(std::string_view text, std::string_view file_name = "<scenario>");

// "file:line:column: error: message"
std::string format_parse_error(const ParseError& e);

// Limits and vocabulary of the language, shared with the printer, the byte
// decoder and the tests.
inline constexpr std::size_t kMaxTaskNameLen = 32;
inline constexpr std::size_t kMaxScenarioTasks = 512;  // = eevdf::kMaxTasks (model/rq.hpp)
inline constexpr std::size_t kMaxScenarioGroups = 32;  // = eevdf::kMaxGroups (model/rq.hpp)
inline constexpr s64 kMinGroupShares = 2;              // cpu.shares: MIN_SHARES
inline constexpr s64 kMaxGroupShares = s64{1} << 18;   // MAX_SHARES
inline constexpr std::size_t kMaxScenarioBytes = std::size_t{64} << 20;
inline constexpr unsigned kMaxCpus = 4096;
inline constexpr s64 kMinSliceNs = 100'000;      // 0.1ms (slice=, slice, base_slice)
inline constexpr s64 kMaxSliceNs = 100'000'000;  // 100ms
inline constexpr int kMinNice = -20;
inline constexpr int kMaxNice = 19;
inline constexpr std::array<unsigned, 4> kAllowedHz = {100, 250, 300, 1000};
// The fields of `expect field` and `expect queue`: scenario/expect_fields.hpp.

// [A-Za-z_][A-Za-z0-9_]*, at most 32 characters, not "idle".
bool valid_task_name(std::string_view name);
// "I-" followed by one or more uppercase letters or digits, at most 32 characters.
bool valid_invariant_id(std::string_view id);
// Letters, digits, '_', '-', '.', 1 to 64 characters.
bool valid_bug_id(std::string_view id);

}  // namespace eevdf::scn
