// `eevdf-check sentinel TREE...`: every check on a list of kernel trees, for a
// kernel's CI (docs/sentinel.md). Per tree: a build of this tool on the tree
// (one build directory a tree, reused), lockstep against the profile of the
// tree's release, a `fuzz --backend kernel` campaign, and every documented
// finding's regression scenarios replayed on the tree's own code; then a
// report (Markdown and JSON; TAP and JUnit on request), and with --since only
// what changed since an earlier report.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/ci_output.hpp"

namespace eevdf::cli {

struct SentinelArgs {
  std::vector<std::string> trees;  // directories or linux-source-*.tar.xz
  long time_s = 60;                // fuzzing seconds a tree: half lockstep, half the kernel campaign
  std::uint64_t seed = 1;
  std::string out = "sentinel";           // report.json, report.md, the campaigns' findings
  std::string builds = "sentinel-builds";  // one build directory a tree, reused
  std::string source;                      // this repository (default: the one the tool was built from)
  std::string since;                       // an earlier report.json: print only what changed
  std::string report;                      // re-render a recorded report.json instead of running
  bool tap = false;
  std::string junit;
  bool this_tree = false;  // internal: the stages on this build's own tree, JSON to --out/tree.json
};

// The command; its exit code (0 nothing undocumented / nothing new, 1 something
// undocumented or new, 2 bad input).
int run_sentinel(const SentinelArgs& args);

// The report's parts, on the JSON the command writes (tests/sentinel_report_test.cpp).
namespace sentinel {

// The Markdown report: the tree x finding table, then each tree's divergences
// and (invariant, site) pairs not matched to a documented finding.
std::string markdown(const nlohmann::json& report);
// What changed from `old` to `now`, a line each; `is_new` says which lines are
// something new (a finding now present, a divergence, an undocumented pair, a
// failed stage or build) rather than something gone.
struct Change {
  std::string text;
  bool is_new = false;
  std::string tree;     // the tree's label
  std::string finding;  // the finding whose status changed ("" for another change)
};
std::vector<Change> changes(const nlohmann::json& old, const nlohmann::json& now);
// The test points of a report (TAP, JUnit); the changes' new lines make their points fail.
std::vector<TestPoint> test_points(const nlohmann::json& report, const std::vector<Change>* since);
// Whether a report has something not documented: a divergence, an
// undocumented pair, a stage or build that failed.
bool has_undocumented(const nlohmann::json& report);

}  // namespace sentinel
}  // namespace eevdf::cli
