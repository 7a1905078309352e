// Run settings (skip, tolerate none, keep_going): how a scenario's directives
// and the command line's flags combine, what the minimizer writes back, and
// that a scenario carrying them replays without flags.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <variant>
#include <vector>

#include "scenario/executor.hpp"
#include "fuzz/minimize.hpp"
#include "scenario/run_settings.hpp"
#include "scenario/scenario_parse.hpp"
#include "support/scenario_text.hpp"
#include "scenario/scenario_print.hpp"
#include "invariants/ids.hpp"
#include "kernelsrc/kernel_backend.hpp"

namespace eevdf::scn {
namespace {

Scenario parse(const std::string& text) { return test::parse_ok(text, "test.scn"); }

std::vector<std::string> off(const inv::Selection& s) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < inv::kIdCount; ++i)
    if (!s.on[i]) out.emplace_back(inv::id_name(static_cast<inv::Id>(i)));
  return out;
}

using Names = std::vector<std::string>;

TEST(RunSettings, DefaultsCheckEverythingWithTheTolerances) {
  ExecOptions o;
  ASSERT_EQ(apply_run_settings(parse("task A\n"), {}, o), "");
  EXPECT_EQ(off(o.selection), Names{});
  EXPECT_TRUE(o.tolerances.f1_unscaled_vprot);
  EXPECT_FALSE(o.keep_going);
}

TEST(RunSettings, SkipFromTheScenarioAndTheFlag) {
  const Scenario s = parse("skip I-KEY,I-AUG\ntask A\n");
  ExecOptions o;
  ASSERT_EQ(apply_run_settings(s, {}, o), "");
  EXPECT_EQ(off(o.selection), (Names{"I-KEY", "I-AUG"}));  // catalogue order
  // --skip adds to the scenario's
  ASSERT_EQ(apply_run_settings(s, {"", "I-DL", false}, o), "");
  EXPECT_EQ(off(o.selection), (Names{"I-KEY", "I-AUG", "I-DL"}));
  // --invariants replaces it: I-AUG is checked again, everything else not
  ASSERT_EQ(apply_run_settings(s, {"I-AUG,I-DL", "I-DL", false}, o), "");
  for (std::size_t i = 0; i < inv::kIdCount; ++i)
    EXPECT_EQ(o.selection.on[i], static_cast<inv::Id>(i) == inv::Id::AUG) << inv::id_name(static_cast<inv::Id>(i));
  // a bad name on the command line, or in a scenario built in code, is an error
  EXPECT_NE(apply_run_settings(s, {"", "I-NOPE", false}, o), "");
  Scenario built = s;
  built.skip.push_back("I-NOPE");
  EXPECT_NE(apply_run_settings(built, {}, o).find("I-NOPE"), std::string::npos);
}

TEST(RunSettings, ToleranceOffFromEitherSide) {
  ExecOptions o;
  ASSERT_EQ(apply_run_settings(parse("tolerate none\n"), {}, o), "");
  EXPECT_FALSE(o.tolerances.f1_unscaled_vprot);
  ASSERT_EQ(apply_run_settings(parse(""), {"", "", true}, o), "");
  EXPECT_FALSE(o.tolerances.f1_unscaled_vprot);
  ASSERT_EQ(apply_run_settings(parse(""), {}, o), "");
  EXPECT_TRUE(o.tolerances.f1_unscaled_vprot);
}

TEST(RunSettings, KeepGoingFromEitherSide) {
  ExecOptions o;
  ASSERT_EQ(apply_run_settings(parse("keep_going\n"), {}, o), "");
  EXPECT_TRUE(o.keep_going);
  ExecOptions flag;
  flag.keep_going = true;  // --keep-going, set by the caller
  ASSERT_EQ(apply_run_settings(parse(""), {}, flag), "");
  EXPECT_TRUE(flag.keep_going);
}

// `backend`: the scenario's unless --backend / --lockstep say otherwise (the
// command line wins); a build without the kernel backend names the directive's
// file and line instead of crashing.
TEST(RunSettings, BackendFromTheScenarioUnlessTheFlagSaysOtherwise) {
  const Scenario plain = parse("task A\n");
  const Scenario lock = parse("# title\nprofile v6.12.118\nbackend lockstep\ntask A\n");
  ExecOptions o;
  o.backend = Backend::kernel;  // replaced, not kept
  ASSERT_EQ(apply_run_settings(plain, {}, o), "");
  EXPECT_EQ(o.backend, Backend::model);
  // --backend model overrides the directive: in every build
  ASSERT_EQ(apply_run_settings(lock, {"", "", false, Backend::model, "lock.scn"}, o), "");
  EXPECT_EQ(o.backend, Backend::model);
  const std::string from_scenario = apply_run_settings(lock, {"", "", false, std::nullopt, "lock.scn"}, o);
  const std::string from_flag = apply_run_settings(plain, {"", "", false, Backend::kernel, "plain.scn"}, o);
  if (kernelsrc::available()) {
    EXPECT_EQ(from_scenario, "");
    ASSERT_EQ(apply_run_settings(lock, {}, o), "");
    EXPECT_EQ(o.backend, Backend::lockstep);
    ASSERT_EQ(apply_run_settings(lock, {"", "", false, Backend::kernel, "lock.scn"}, o), "");
    EXPECT_EQ(o.backend, Backend::kernel);
    EXPECT_EQ(from_flag, "");
  } else {
    EXPECT_EQ(from_scenario.rfind("lock.scn:3: error: 'backend lockstep' needs the kernel backend", 0), 0u)
        << from_scenario;
    EXPECT_EQ(from_flag.rfind("--backend kernel: needs the kernel backend", 0), 0u) << from_flag;
    // a scenario built in code has no line
    Scenario built = plain;
    built.backend = Backend::kernel;
    EXPECT_EQ(apply_run_settings(built, {}, o).rfind("<scenario>: error: 'backend kernel'", 0), 0u);
  }
}

TEST(RunSettings, RecordWritesTheBackendItRanOn) {
  Scenario s = parse("backend lockstep\nskip I-DL\ntask A\n");
  ExecOptions o;
  o.selection.set(inv::Id::DL, false);
  o.backend = Backend::model;  // --backend model
  record_run_settings(o, s);
  EXPECT_EQ(s.backend, Backend::model);
  EXPECT_EQ(s.skip, Names{"I-DL"});
  o.backend = Backend::kernel;
  record_run_settings(o, s);
  EXPECT_EQ(print_scenario(s), "profile mainline\nskip I-DL\nbackend kernel\ntask A\n");
}

TEST(RunSettings, RecordWritesWhatWasChecked) {
  Scenario s = parse("skip I-DL,I-KEY\ntask A\n");
  inv::Selection sel;
  sel.set(inv::Id::DL, false);
  sel.set(inv::Id::AUG, false);
  sel.set(inv::Id::SUM, false);
  record_run_settings(sel, inv::Tolerances{false}, s);
  // the scenario's still skipped first, in its order (I-KEY is checked now), then the others
  EXPECT_EQ(s.skip, (Names{"I-DL", "I-SUM", "I-AUG"}));
  EXPECT_FALSE(s.tolerate);
  record_run_settings(inv::Selection{}, inv::Tolerances{}, s);
  EXPECT_EQ(s.skip, Names{});
  EXPECT_TRUE(s.tolerate);
}

// F6's overflow: I-PROT (F6 itself, tolerated by default) comes first unless
// skipped, and the overflow is tolerated unless 'tolerate none'.
const char* const kF6 =
    "profile mainline\n"
    "skip I-PROT\n"
    "tolerate none\n"
    "task T0 slice=100ms\n"
    "group G0\n"
    "group G1 parent=G0\n"
    "shares G0 2\n"
    "wake T0\n"
    "move T0 G1\n"
    "tick\n"
    "task T5\n"
    "exit T0\n"
    "shares G0 262144\n"
    "wake T5\n"
    "schedule\n"
    "move T5 G1\n"
    "shares G0 1024\n"
    "expect violation I-OVF at 17\n";

TEST(RunSettings, AScenarioWithItsSettingsNeedsNoFlags) {
  const Scenario s = parse(kF6);
  const Profile profile = *profile_by_name("mainline");
  ExecOptions o;
  ASSERT_EQ(apply_run_settings(s, {}, o), "");
  EXPECT_TRUE(execute(s, profile, o).ok());
  EXPECT_FALSE(execute(s, profile, ExecOptions{}).ok());  // execute() itself does not read them
}

TEST(RunSettings, TheMinimizerKeepsThem) {
  Scenario s = parse(kF6);
  s.keep_going = true;
  Op extra = s.ops[0];  // an unneeded task for the minimizer to drop
  extra.task = "X";
  s.ops.insert(s.ops.begin() + 1, extra);
  s.expectations.clear();
  const Profile profile = *profile_by_name("mainline");
  ExecOptions o;
  ASSERT_EQ(apply_run_settings(s, {}, o), "");
  const ExecResult r = execute(s, profile, o);
  ASSERT_FALSE(r.violations.empty());
  ASSERT_EQ(inv::id_name(r.violations.front().id), "I-OVF");
  const fuzz::MinimizeResult m =
      fuzz::minimize(s, profile, r.violations.front(), std::chrono::seconds(10), o.tolerances, o.selection);
  EXPECT_LT(m.scenario.ops.size(), s.ops.size());
  EXPECT_EQ(m.scenario.skip, Names{"I-PROT"});
  EXPECT_FALSE(m.scenario.tolerate);
  EXPECT_TRUE(m.scenario.keep_going);
  // printed and read back, it replays with nothing but its own settings
  const Scenario back = parse(print_scenario(m.scenario));
  ExecOptions again;
  ASSERT_EQ(apply_run_settings(back, {}, again), "");
  const ExecResult rr = execute(back, profile, again);
  EXPECT_TRUE(rr.ok()) << print_scenario(m.scenario);
}

}  // namespace
}  // namespace eevdf::scn
