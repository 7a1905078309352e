// Printer of the scenario language: Scenario -> canonical text, and the
// semantic equality used for round trips.
//
// Canonical form: the title comment (if any), `profile NAME [bug=ID]` (always),
// then `features`, `cpus`, `hz`, `base_slice`, `runqueues`, `skip`, `tolerate`,
// `keep_going`, `backend` only when they differ from the defaults, then the operations and
// positional expectations in order, then the whole-run expectations. For every
// valid scenario s, same_scenario(parse_scenario(print_scenario(s)), s) holds.
#pragma once

#include <string>
#include <string_view>

#include "scenario/scenario.hpp"

namespace eevdf::scn {

std::string print_scenario(const Scenario& s);

// One operation, without line break: "task A nice=-5 slice=3ms", "fork A -> B",
// "run 700us", "expect curr idle", "expect field A.vlag >= -3ms", ...
std::string print_op(const Op& op);

// One whole-run expectation as written: "expect violation I-DL at 12",
// "expect no-violation". `at_line` is printed as stored; print_scenario
// renumbers it to the printed line of the operation it refers to.
std::string print_expectation(const Expectation& e);

std::string_view policy_keyword(Policy p);  // normal, batch, idle
std::string_view cmp_keyword(CmpOp c);      // ==, !=, <, <=, >, >=

// Equality of meaning: ignores Op::line, Expectation::line and
// Scenario::backend_line (where the text puts things), compares only
// the Op fields the kind uses, and compares `expect violation ... at LINE` by
// the operation the line designates (the first non-expect op whose Op::line is
// LINE) rather than by the number itself.
bool same_scenario(const Scenario& a, const Scenario& b);

// The Op fields that matter for its kind (same rule as same_scenario).
bool same_op(const Op& a, const Op& b);

}  // namespace eevdf::scn
