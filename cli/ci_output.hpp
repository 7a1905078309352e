// Results in the formats a kernel CI already parses: kselftest's TAP version 13
// (--tap) and JUnit XML (--junit FILE), for `run`, `fuzz` and `sentinel`.
// Each command turns what it did into test points; these functions only write them.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace eevdf::cli {

struct TestPoint {
  enum class Status { ok, failed, skipped } status = Status::ok;
  std::string suite;   // JUnit: the testsuite it belongs to (a tree, a command); TAP ignores it
  std::string name;    // one line: "6.12.118: lockstep"
  std::string reason;  // a skip's reason, or a failure's one-line message
  std::string detail;  // more lines: TAP comments ("# ..."), JUnit system-out
  double seconds = 0;
};

// TAP version 13, the plan first, one "ok N name" / "not ok N name" a point,
// "# SKIP reason" for a skipped one; `detail` as "# " comment lines after it.
void write_tap(std::ostream& out, const std::vector<TestPoint>& points);
// JUnit XML: one <testsuite> a distinct `suite` (in the order first seen) with
// tests/failures/skipped counts, a <testcase> a point (<failure>, <skipped>).
void write_junit(std::ostream& out, const std::string& name, const std::vector<TestPoint>& points);
// write_junit() into a file; false (and `error` set) when it cannot be written.
bool write_junit_file(const std::string& path, const std::string& name, const std::vector<TestPoint>& points,
                      std::string& error);
// Every line of `text` as a TAP comment line ("# line"; an empty line "#").
std::string as_tap_comments(const std::string& text);

}  // namespace eevdf::cli
