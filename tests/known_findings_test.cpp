// The known findings (corpus/known/PROFILE.known, scenario/known.hpp) are
// data checked against the documented findings' scenarios: every entry's
// scenario raises the invariant, site and detail class it says, on the model
// and on the kernel's own code of the tree it names; every regression
// scenario of the profile that expects a violation raises only known ones;
// and a run goes on past a known finding and stops at a new one.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "kernelsrc/kernel_backend.hpp"
#include "scenario/executor.hpp"
#include "scenario/known.hpp"
#include "scenario/run_settings.hpp"
#include "support/scenario_text.hpp"

namespace eevdf {
namespace {

const std::string kRoot = EEVDF_SOURCE_DIR;

std::vector<std::string> known_profiles() {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(kRoot + "/corpus/known"))
    if (e.path().extension() == ".known") out.push_back(e.path().stem().string());
  std::sort(out.begin(), out.end());
  return out;
}

scn::Scenario read_scenario(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return test::parse_ok(text.str(), path.string());
}

TEST(KnownFindings, EveryFileIsBuiltInAndParses) {
  const auto profiles = known_profiles();
  ASSERT_FALSE(profiles.empty());
  for (const std::string& p : profiles) {
    EXPECT_TRUE(scn::has_known_file(p)) << p;
    std::string error;
    const auto set = scn::KnownSet::load(kRoot + "/corpus/known/" + p + ".known", error);
    ASSERT_TRUE(set) << error;
    EXPECT_EQ(set->entries().size(), scn::known_findings(p).entries().size()) << p << ": rebuild (cmake)";
  }
}

TEST(KnownFindings, EveryEntryReplaysOnTheModel) {
  for (const std::string& p : known_profiles()) {
    scn::KnownSet set = scn::known_findings(p);
    for (const std::string& problem : scn::replay_known(set, p, kRoot, scn::Backend::model, false))
      ADD_FAILURE() << "corpus/known/" << p << ".known: " << problem;
  }
}

TEST(KnownFindings, EveryEntryReplaysOnTheTreesOwnCode) {
  if (!kernelsrc::available()) GTEST_SKIP() << "no kernel backend in this build";
  const std::string p = kernelsrc::judge();
  if (!scn::has_known_file(p)) GTEST_SKIP() << "no known findings for " << p;
  // on a tree built with fixes of findings (-DEEVDF_KERNEL_FIXES), those findings' entries are not its
  scn::KnownSet set = scn::judge_known_findings(p, scn::Backend::kernel);
  for (const std::string& problem : scn::replay_known(set, p, kRoot, scn::Backend::kernel, false))
    ADD_FAILURE() << "corpus/known/" << p << ".known on Linux " << kernelsrc::kernel_version() << ": " << problem;
}

// The regression scenarios of a profile with a known-findings file (its
// profile line, no bug switch) that expect a violation: each violation they
// raise is a known finding of the profile. (Scenarios that need `tolerate
// none` report the documented findings the checker tolerates; those are
// reported whatever the known set says. Those that switch on an RFC's feature
// judge a what-if, not the profile's kernel.)
TEST(KnownFindings, EveryRegressionsViolationIsKnown) {
  int checked = 0;
  for (const auto& e : std::filesystem::directory_iterator(kRoot + "/corpus/regressions")) {
    if (e.path().extension() != ".scn") continue;
    const scn::Scenario s = read_scenario(e.path());
    if (!s.bug.empty() || !s.tolerate || s.profile_line == 0 || !scn::has_known_file(s.profile)) continue;
    if (s.features.find("RFC_") != std::string::npos) continue;  // an RFC's what-if, not the profile's kernel
    bool expects = false;
    for (const auto& x : s.expectations) expects = expects || x.kind == scn::Expectation::Kind::violation;
    if (!expects) continue;
    std::string error;
    const auto profile = scn::build_profile(s, {}, error);
    ASSERT_TRUE(profile) << e.path() << ": " << error;
    scn::ExecOptions o;
    ASSERT_EQ(scn::apply_run_settings(s, {}, o), "");
    o.backend = scn::Backend::model;
    o.known = &scn::known_findings(s.profile);
    const scn::ExecResult r = scn::execute(s, *profile, o);
    ++checked;
    for (const auto& v : r.violations)
      if (v.known.empty())
        ADD_FAILURE() << e.path().filename().string() << ": " << inv::id_name(v.id) << " in " << v.where
                      << " at operation " << v.op_index << " is not a known finding of " << s.profile << ": "
                      << v.what;
  }
  EXPECT_GT(checked, 5);
}

TEST(KnownFindings, ARunGoesOnPastAKnownFindingAndStopsAtANewOne) {
  // K1 (a renice of a queued task keeps its deadline distance) at line 5, then more operations
  const std::string text =
      "profile v6.12.118\ntask A\nwake A\nnice A -20\nrun 10ms\ntask B\nwake B\nrun 1ms\n";
  const scn::Scenario s = test::parse_ok(text);
  std::string error;
  const auto profile = scn::build_profile(s, {}, error);
  ASSERT_TRUE(profile) << error;
  scn::ExecOptions o;
  o.known = &scn::known_findings("v6.12.118");
  const scn::ExecResult on = scn::execute(s, *profile, o);
  ASSERT_FALSE(on.violations.empty());
  EXPECT_EQ(on.violations.front().known, "K1");
  EXPECT_EQ(on.executed, static_cast<int>(s.ops.size())) << "the run stopped at a known finding";
  EXPECT_TRUE(on.ok());
  // without the known set the same violation stops the run and fails it
  o.known = nullptr;
  const scn::ExecResult off = scn::execute(s, *profile, o);
  ASSERT_FALSE(off.violations.empty());
  EXPECT_EQ(off.violations.front().known, "");
  EXPECT_LT(off.executed, static_cast<int>(s.ops.size()));
  EXPECT_FALSE(off.ok());
}

TEST(KnownFindings, WithoutDropsTheNamedFindingsOnly) {
  std::string error;
  const auto parsed = scn::KnownSet::parse("K1\tI-DL\t*\tplace_entity\ta.scn\t*\n"
                                           "K2\tI-SUM\t* after debug_read racing\tavg_vruntime\tb.scn\t*\n"
                                           "K2\t*\t* after K2\t*\tc.scn\t*\n"
                                           "F10\tI-PELT\t*\tdequeue_load_avg\td.scn\t*\n",
                                           "t.known", error);
  ASSERT_TRUE(parsed) << error;
  const scn::KnownSet left = parsed->without({"K2", "F9"});
  ASSERT_EQ(left.entries().size(), 2u);
  EXPECT_EQ(left.entries()[0].name, "K1");
  EXPECT_EQ(left.entries()[1].name, "F10");
  EXPECT_EQ(parsed->without({}).entries().size(), 4u);
}

// On the model the profile's known findings judge, whatever fixes this build's tree carries.
TEST(KnownFindings, TheModelIsJudgedByEveryKnownFinding) {
  EXPECT_EQ(&scn::judge_known_findings("v6.12.118", scn::Backend::model), &scn::known_findings("v6.12.118"));
}

TEST(KnownFindings, AKnownFindingsConditionIsChecked) {
  // K2's entries hold only after a racing debugfs read: the same identities without one are new
  scn::KnownSet set;
  std::string error;
  const auto parsed = scn::KnownSet::parse(
      "K2\tI-SUM\t* after debug_read racing\tsite\ts.scn\tdetail\n", "t.known", error);
  ASSERT_TRUE(parsed) << error;
  const scn::KnownFinding& k = parsed->entries().front();
  scn::FindingIdentity f{inv::Id::SUM, "site", "detail", "run"};
  const scn::Scenario with = test::parse_ok("task A\nwake A\ndebug_read racing\nrun 1ms\n");
  const scn::Scenario plain = test::parse_ok("task A\nwake A\ndebug_read\nrun 1ms\n");
  EXPECT_TRUE(k.matches(f, with, 3, {}));
  EXPECT_FALSE(k.matches(f, with, 2, {}));  // the read comes after
  EXPECT_FALSE(k.matches(f, plain, 3, {}));  // not racing
  f.detail = "other";
  EXPECT_FALSE(k.matches(f, with, 3, {}));
  // a bad line names the file and the line
  EXPECT_FALSE(scn::KnownSet::parse("# c\nK\tI-NOPE\t*\ts\tf\td\n", "t.known", error));
  EXPECT_EQ(error.rfind("t.known:2: error:", 0), 0u) << error;
  EXPECT_FALSE(scn::KnownSet::parse("K\tI-SUM\tsomething\ts\tf\td\n", "t.known", error));
  EXPECT_NE(error.find("not an operation"), std::string::npos) << error;
  // "after NAME": only after that known finding in the same run
  const auto after_k1 = scn::KnownSet::parse("K1\tI-FAIR\t* after K1\tsite\ts.scn\tdetail\n", "t.known", error);
  ASSERT_TRUE(after_k1) << error;
  const scn::FindingIdentity fair{inv::Id::FAIR, "site", "detail", "run"};
  EXPECT_TRUE(after_k1->entries().front().matches(fair, with, 3, {"K1"}));
  EXPECT_FALSE(after_k1->entries().front().matches(fair, with, 3, {"K2"}));
  // "after nice|slice": after either operation, not after another
  const auto after_change = scn::KnownSet::parse("P\tI-FAIR\t* after nice|slice\tsite\ts.scn\tdetail\n", "t.known", error);
  ASSERT_TRUE(after_change) << error;
  const scn::KnownFinding& c = after_change->entries().front();
  EXPECT_EQ(c.triggers_text(), "* after nice|slice");
  EXPECT_TRUE(c.matches(fair, test::parse_ok("task A\nwake A\nslice A 1ms\nrun 1ms\n"), 3, {}));
  EXPECT_TRUE(c.matches(fair, test::parse_ok("task A\nwake A\nnice A 3\nrun 1ms\n"), 3, {}));
  EXPECT_FALSE(c.matches(fair, test::parse_ok("task A\nwake A\npolicy A batch\nrun 1ms\n"), 3, {}));
  EXPECT_FALSE(c.matches(fair, test::parse_ok("task A\nwake A\nrun 1ms\nnice A 3\n"), 2, {}));
  // alternatives are operations only
  EXPECT_FALSE(scn::KnownSet::parse("P\tI-FAIR\t* after nice|K1\tsite\ts.scn\tdetail\n", "t.known", error));
  EXPECT_NE(error.find("'K1' is not an operation"), std::string::npos) << error;
}

}  // namespace
}  // namespace eevdf
