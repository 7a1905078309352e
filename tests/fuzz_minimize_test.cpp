// The minimizer keeps the finding (same invariant and site) and reaches the
// short forms a reader expects: unrelated operations gone, runs merged.
#include <gtest/gtest.h>

#include <string>
#include <variant>

#include "scenario/executor.hpp"
#include "fuzz/minimize.hpp"
#include "scenario/scenario_parse.hpp"
#include "support/scenario_text.hpp"
#include "model/bugs.hpp"

namespace eevdf::fuzz {

using namespace scn;
namespace {

Scenario parse(const std::string& text) { return test::parse_ok(text, "test.scn"); }

// The first violation s raises on profile; a run without one, or one of
// another invariant than `id`, is a test failure (an empty Violation then).
inv::Violation first_violation(const Scenario& s, const Profile& profile, const std::string& id) {
  const ExecResult r = execute(s, profile, ExecOptions{});
  if (r.violations.empty()) {
    ADD_FAILURE() << "no violation; expected " << id;
    return {};
  }
  EXPECT_EQ(inv::id_name(r.violations.front().id), id);
  return r.violations.front();
}

// B02 (zero_vruntime frozen while one task runs): only time has to pass, so
// the minimum is one task, its wakeup and one run; the four runs that add up
// to the needed time merge into one, and the second task goes.
TEST(Minimize, MergesRunsAndDropsWhatTheFindingDoesNotNeed) {
  Profile profile = *profile_by_name("mainline");
  ASSERT_EQ(apply_bug(profile, "B02"), "");
  const Scenario s = parse(
      "profile mainline\n"
      "task A\n"
      "task B nice=3\n"
      "wake A\n"
      "run 9ms\n"
      "run 9ms\n"
      "run 9ms\n"
      "run 9ms\n");
  const inv::Violation target = first_violation(s, profile, "I-KEY");  // B02 needs about 32 ms of one task running
  ASSERT_FALSE(target.where.empty());

  const MinimizeResult m = minimize(s, profile, target, std::chrono::seconds(10));
  ASSERT_TRUE(m.complete);
  ASSERT_EQ(m.scenario.ops.size(), 3u);
  EXPECT_EQ(m.scenario.ops[0].kind, OpKind::create);
  EXPECT_EQ(m.scenario.ops[1].kind, OpKind::wake);
  EXPECT_EQ(m.scenario.ops[2].kind, OpKind::run);
  EXPECT_EQ(m.violation.id, target.id);
  EXPECT_EQ(m.violation.where, target.where);
  // the merged run is no longer than the four together
  EXPECT_LE(m.scenario.ops[2].value, 36000000);
  const ExecResult again = execute(m.scenario, profile, ExecOptions{});
  ASSERT_FALSE(again.violations.empty());
  EXPECT_EQ(again.violations.front().id, target.id);
}

// v6.6 (d32960528702): the SCHED_IDLE switch loses the lag of T0 as well as
// of T1, so the finding survives moving `policy` to either task. Moving it
// back and forth used to count as progress each time and spun until the
// budget ran out (about 600 000 runs in 5 s); a task is only ever replaced by
// one created before it, so minimizing ends, here on T0.
TEST(Minimize, ReplacingATaskOnlyMovesToEarlierTasks) {
  const Profile profile = *profile_by_name("v6.6");
  const Scenario s = parse(
      "profile v6.6\n"
      "task T0\n"
      "wake T0\n"
      "task T1\n"
      "wake T1\n"
      "run 3ns\n"
      "policy T1 idle\n");
  const inv::Violation target = first_violation(s, profile, "I-RW");
  ASSERT_FALSE(target.where.empty());

  const MinimizeResult m = minimize(s, profile, target, std::chrono::seconds(60));
  EXPECT_TRUE(m.complete);
  EXPECT_LT(m.runs, 1000);
  ASSERT_EQ(m.scenario.ops.size(), 6u);
  EXPECT_EQ(m.scenario.ops[5].task, "T0");
  EXPECT_EQ(m.violation.where, target.where);
}

// B16 (RapidCheck's counterexample of seed 1 in the session-7 rediscovery run):
// `slice T0 3ms` before T0's first wake-up folds into `task T0 slice=3ms`,
// which nothing else could remove (the finding needs T0's custom slice).
TEST(Minimize, FoldsASettingBeforeTheFirstWakeupIntoTheTaskLine) {
  Profile profile = *profile_by_name("mainline");
  ASSERT_EQ(apply_bug(profile, "B16"), "");
  const Scenario s = parse(
      "profile mainline\n"
      "task T0 nice=7\n"
      "slice T0 3ms\n"
      "wake T0\n"
      "task T1\n"
      "task T2\n"
      "wake T2\n"
      "run 1us\n"
      "sleep T2\n"
      "tick\n"
      "wake T1\n");
  const inv::Violation target = first_violation(s, profile, "I-DELAY");
  ASSERT_FALSE(target.where.empty());

  const MinimizeResult m = minimize(s, profile, target, std::chrono::seconds(30));
  EXPECT_TRUE(m.complete);
  ASSERT_EQ(m.scenario.ops.size(), 9u);
  EXPECT_EQ(m.scenario.ops[0].kind, OpKind::create);
  EXPECT_EQ(m.scenario.ops[0].task, "T0");
  EXPECT_EQ(m.scenario.ops[0].slice, 3000000);
  for (const Op& op : m.scenario.ops) EXPECT_NE(op.kind, OpKind::slice);
  EXPECT_EQ(m.violation.where, target.where);
}

}  // namespace
}  // namespace eevdf::fuzz
