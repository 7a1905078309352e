// A finding's identity (scenario/finding_identity.hpp) tells apart mechanisms that
// break the same invariant at the same site, and the minimizer keeps it.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "scenario/finding_identity.hpp"
#include "fuzz/minimize.hpp"
#include "scenario/executor.hpp"
#include "scenario/run_settings.hpp"
#include "support/scenario_text.hpp"

namespace eevdf::scn {

void PrintTo(const FindingIdentity& f, std::ostream* os) { *os << describe(f); }

namespace {

using namespace scn;

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in) << "cannot read " << path;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A regression scenario with its own profile and directives, as `run` replays it.
struct Replayed {
  Scenario scenario;
  Profile profile;
  ExecOptions options;
  ExecResult result;
};

Replayed replay(const std::string& text, const std::string& name, bool keep_going = false) {
  Replayed r;
  r.scenario = test::parse_ok(text, name);
  std::string error;
  const auto profile = build_profile(r.scenario, {}, error);
  EXPECT_TRUE(profile) << name << ": " << error;
  if (!profile) return r;
  r.profile = *profile;
  r.options.strict = false;
  r.options.keep_going = keep_going;
  EXPECT_EQ(apply_run_settings(r.scenario, {"", "", false, Backend::model, name}, r.options), "");
  r.result = execute(r.scenario, r.profile, r.options);
  return r;
}

FindingIdentity first_identity(const std::string& file) {
  const Replayed r = replay(slurp(std::string(EEVDF_SOURCE_DIR) + "/corpus/regressions/" + file), file);
  if (r.result.violations.empty()) {
    ADD_FAILURE() << file << " raises no violation";
    return {};
  }
  return finding_identity(r.result.violations.front(), r.scenario);
}

TEST(FindingIdentity, DetailClassDropsNumbersAndNamesButKeepsTheWords) {
  const std::vector<std::string> names = {"T0", "T13", "G1", "A"};
  EXPECT_EQ(detail_class("the deadline of T13 lies -261162667 ns (virtual) after its vruntime; expected at least -2", names),
            "the deadline of @ lies # ns (virtual) after its vruntime; expected at least #");
  EXPECT_EQ(detail_class("the deadline of group G1 lies 3200000 ns (virtual) after its vruntime; expected at least 0", names),
            "the deadline of @ lies # ns (virtual) after its vruntime; expected at least #");
  EXPECT_EQ(detail_class("slice U64_MAX of A, T0, T13 reweighting 1048576 -> 2; 3, 4, 5", names),
            "slice U#_MAX of @ reweighting # -> #; #");
  // a word is a name only as a whole word, and the words of the rule stay
  EXPECT_EQ(detail_class("Alpha beside A: the eligible next buddy (PICK_BUDDY)", names),
            "Alpha beside @: the eligible next buddy (PICK_BUDDY)");
  // an entity named with its CPU (several runqueues) is the same entity
  EXPECT_EQ(detail_class("the lag of T13 on CPU 1 lies within the bound; group G1 on CPU 0: 5", names),
            detail_class("the lag of T13 lies within the bound; group G1: 7", names));
  EXPECT_NE(detail_class("the pick takes A: the eligible next buddy", names),
            detail_class("the pick takes A: the earliest deadline among eligible entities", names));
}

// F4 (a lag × load product of a heavy queue: policy change to SCHED_IDLE) and
// F8 (an idle cgroup's weight: renice) overflow at the same site; F3 and F5
// break I-WAKEPICK at the same site through different rules of the pick.
TEST(FindingIdentity, RegressionScenariosAtTheSameSiteByDifferentMechanismsDiffer) {
  const FindingIdentity f4 = first_identity("F4-idle-after-yield-five-tasks.scn");
  const FindingIdentity f8 = first_identity("F8-idle-cgroup.scn");
  EXPECT_EQ(f4.id, f8.id);
  EXPECT_EQ(f4.where, f8.where);
  EXPECT_EQ(f4.detail, f8.detail);
  EXPECT_EQ(f4.trigger, "policy");
  EXPECT_EQ(f8.trigger, "nice");
  EXPECT_NE(f4, f8) << describe(f4);

  const FindingIdentity f3 = first_identity("F3-short-preemption-runs-the-buddy.scn");
  const FindingIdentity f5 = first_identity("F5-short-buddy-kept-while-ineligible.scn");
  EXPECT_EQ(f3.id, f5.id);
  EXPECT_EQ(f3.where, f5.where);
  EXPECT_EQ(f3.trigger, "wake");
  EXPECT_EQ(f5.trigger, "wake");
  EXPECT_NE(f3.detail, f5.detail);
  EXPECT_NE(f3, f5) << describe(f3);
}

// The same mechanism in two scenarios keeps one identity: F8 in an idle cgroup
// and in a cgroup with cpu.shares 2.
TEST(FindingIdentity, TheSameMechanismKeepsOneIdentity) {
  EXPECT_EQ(first_identity("F8-idle-cgroup.scn"), first_identity("F8-place-entity-lag-times-load-min-shares-task.scn"));
}

// F4's operations, then F8's, on v7.3: both overflow place_entity's lag × load,
// F4 at the policy change, F8 at the renice. Shrinking toward F4 by invariant
// and site alone slides to F8 (removing F4's half keeps "I-OVF at
// place_entity.lag_x_load"); the identity keeps F4.
TEST(FindingIdentity, TheMinimizerKeepsTheMechanismItShrinks) {
  std::string text = "profile v7.3\n";
  for (const char* file : {"F4-idle-after-yield-five-tasks.scn", "F8-idle-cgroup.scn"}) {
    std::istringstream lines(slurp(std::string(EEVDF_SOURCE_DIR) + "/corpus/regressions/" + file));
    for (std::string line; std::getline(lines, line);)
      if (!line.empty() && line[0] != '#' && line.rfind("profile", 0) != 0 && line.rfind("expect", 0) != 0)
        text += line + "\n";
  }
  const Replayed both = replay(text, "f4-then-f8.scn", /*keep_going=*/true);
  // each wrap breaks I-OVF and, through the wrapped lag, I-PLACE
  std::vector<inv::Violation> ovf;
  for (const inv::Violation& v : both.result.violations)
    if (v.id == inv::Id::OVF) ovf.push_back(v);
  ASSERT_EQ(ovf.size(), 2u) << text;
  ASSERT_EQ(both.result.violations.size(), 4u) << text;
  const inv::Violation& f4 = ovf[0];
  const inv::Violation& f8 = ovf[1];
  const FindingIdentity f4_id = finding_identity(f4, both.scenario);
  ASSERT_EQ(f4_id.trigger, "policy");
  ASSERT_EQ(finding_identity(f8, both.scenario).trigger, "nice");
  ASSERT_EQ(f4.where, f8.where);

  const fuzz::MinimizeResult m = fuzz::minimize(both.scenario, both.profile, f4, std::chrono::seconds(60));
  ExecOptions first_only = both.options;
  first_only.keep_going = false;
  const ExecResult again = execute(m.scenario, both.profile, first_only);
  ASSERT_FALSE(again.violations.empty());
  EXPECT_EQ(finding_identity(m.violation, m.scenario), f4_id);
  EXPECT_EQ(finding_identity(again.violations.front(), m.scenario), f4_id);
  // F8's cgroup is gone: F4 needs none
  for (const Op& op : m.scenario.ops) EXPECT_NE(op.kind, OpKind::group_create);
}

}  // namespace
}  // namespace eevdf::scn
