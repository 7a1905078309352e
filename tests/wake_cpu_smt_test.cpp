// SMT siblings in the wake-up CPU choice (model/wake_cpu.hpp):
// `smt N` and select_idle_sibling()'s SMT steps, each case worked out by hand
// from 7.0.0's fair.c (select_idle_smt(), select_idle_core(), the
// has_idle_core branch of select_idle_cpu(), __update_idle_core(); the same
// text in 6.12.118 and 6.18.0).
//
// The common start on four runqueues, CPUs 0-1 and 2-3 a core each: P runs on
// CPU 0 and sleeps there with CPU 1 idle, so CPU 0's switch to its idle task
// sets has_idle_cores; then A runs on CPU 0.
#include <gtest/gtest.h>

#include <string>
#include <variant>

#include "model/profile.hpp"
#include "model/system.hpp"
#include "scenario/scenario_parse.hpp"
#include "support/run_scenario.hpp"

namespace eevdf {
namespace {

using test::expect_ok;

const std::string kIdleCoreSeen =
    "runqueues 4\nsmt 2\n"
    "task P\ntask A\ntask C\ntask Z\n"
    "wake P\nrun 1ms\nexpect curr P\nsleep P\n"
    "wake A\nrun 1ms\nexpect curr A\n";

scn::ExecResult run(const std::string& features, const std::string& body) {
  return test::run_scenario_text((features.empty() ? "" : "features " + features + "\n") + kIdleCoreSeen + body);
}

TEST(WakeCpuSmt, DirectiveNeedsARunqueueCountItDivides) {
  auto bad = scn::parse_scenario("runqueues 3\nsmt 2\ntask A\n", "t.scn");
  ASSERT_TRUE(std::holds_alternative<scn::ParseError>(bad));
  EXPECT_EQ(std::get<scn::ParseError>(bad).line, 2);
  EXPECT_NE(std::get<scn::ParseError>(bad).message.find("must be a multiple of 2 (runqueues 3)"), std::string::npos)
      << std::get<scn::ParseError>(bad).message;
  auto zero = scn::parse_scenario("runqueues 4\nsmt 0\n", "t.scn");
  ASSERT_TRUE(std::holds_alternative<scn::ParseError>(zero));
  EXPECT_EQ(std::get<scn::ParseError>(zero).line, 2);
  auto ok = scn::parse_scenario("smt 2\nrunqueues 4\ntask A\n", "t.scn");
  ASSERT_TRUE(std::holds_alternative<scn::Scenario>(ok));
  EXPECT_EQ(std::get<scn::Scenario>(ok).smt, 2u);
}

// P's wake-up from CPU 0 (target and prev 0, busy; recent_used_cpu is prev):
// has_idle_cores is set, so select_idle_cpu() looks for an idle core from CPU
// 1: core 0-1 has the busy CPU 0 (CPU 1 becomes the fallback), core 2-3 is
// idle: CPU 2, where select_idle_smt() would have given the sibling CPU 1. The
// flag stays set (an idle core was found).
TEST(WakeCpuSmt, IdleCoreIsPreferredToTheIdleSibling) {
  expect_ok(run("NO_SIS_UTIL", "wake P\nexpect field P.cpu == 2\n"));
}

// With SIS_UTIL a budget of 0 skips the idle-core scan altogether: the
// budget decides, so the choice is refused.
TEST(WakeCpuSmt, IdleCoreScanUnderSisUtilIsRefused) {
  const scn::ExecResult r = run("", "wake P\n");
  EXPECT_NE(r.error.find("cannot wake P: the wake-up CPU choice depends on select_idle_cpu()'s SIS_UTIL budget"),
            std::string::npos)
      << r.error;
}

// C and Z fill CPUs 2 and 3: no core is idle, but has_idle_cores still says
// one is. The scan for an idle core rules out core 0-1 (CPU 1, idle, becomes
// the fallback) and core 2-3, finds none, clears the flag and answers the
// fallback, the sibling CPU 1.
TEST(WakeCpuSmt, StaleIdleCoreFlagFallsBackToAnIdleSiblingAndIsCleared) {
  expect_ok(run("NO_SIS_UTIL",
                "wake C cpu=2\nwake Z cpu=3\nrun 1ms\n"
                "wake P\nexpect field P.cpu == 1\n"));
}

// No idle core remembered (no CPU switched to idle beside idle siblings): C
// sleeps on CPU 3 while Y takes it over (ten more milliseconds let the delayed
// C leave the queue), A keeps CPU 0 busy. C's wake-up from CPU 3 (target and
// prev 3, busy; recent_used_cpu 0, busy): select_idle_smt() answers prev's
// idle sibling CPU 2, where the scan from target + 1 would have found CPU 1.
TEST(WakeCpuSmt, IdleSiblingOfPrevComesBeforeTheScan) {
  const std::string body =
      "task A\ntask C\ntask Y\nwake A\nwake C cpu=3\nwake Y cpu=3\nrun 1ms\n"
      "expect curr A\nexpect curr C cpu=3\nsleep C\nrun 10ms\nexpect curr Y cpu=3\nwake C from=3\n";
  expect_ok(test::run_scenario_text("runqueues 4\nsmt 2\nfeatures NO_SIS_UTIL\nskip I-AUG\n" + body +
                                    "expect field C.cpu == 2\n"));
  // without SMT siblings the same wake-up scans from CPU 0: CPU 1
  expect_ok(test::run_scenario_text("runqueues 4\nfeatures NO_SIS_UTIL\nskip I-AUG\n" + body +
                                    "expect field C.cpu == 1\n"));
}

// The SMT_BUDDY_ASSIST RFC as assumed (docs/model.md, "What-if variants"):
// C queues behind A on CPU 0, so the target has work pending
// (h_nr_runnable 2): the wakee goes to the idle sibling CPU 1 before any
// scan, so SIS_UTIL's budget no longer decides (without the RFC the choice is
// refused, above).
TEST(WakeCpuSmt, BuddyAssistRfcHandsPendingWorkToTheIdleSibling) {
  expect_ok(run("RFC_SMT_BUDDY_ASSIST", "wake C\nwake P\nexpect field P.cpu == 1\n"));
  // nothing pending on the target (A alone): the RFC does not act, the budget decides
  const scn::ExecResult r = run("RFC_SMT_BUDDY_ASSIST", "wake P\n");
  EXPECT_NE(r.error.find("SIS_UTIL budget"), std::string::npos) << r.error;
}

// System level: the flag is set by a CPU's switch to idle when its siblings
// idle, and only then.
TEST(WakeCpuSmt, UpdateIdleCoreNeedsEverySiblingIdle) {
  System sys(*profile_by_name("v7.0"), 4);
  ASSERT_TRUE(sys.set_smt(2));
  EXPECT_FALSE(sys.set_smt(3));
  const int a = sys.rq(0).create_task("A", 0, Policy::normal, 0);
  const int b = sys.rq(0).create_task("B", 0, Policy::normal, 0);
  ASSERT_EQ(sys.wake(a, false, -1), Refusal::none);
  ASSERT_EQ(sys.wake(b, false, 1), Refusal::none);
  sys.run(1000000);
  ASSERT_EQ(sys.rq(0).running(), a);
  ASSERT_EQ(sys.rq(1).running(), b);
  EXPECT_FALSE(sys.llc_shared().has_idle_cores);
  ASSERT_EQ(sys.rq(0).sleep(a), Refusal::none);  // CPU 0 idles, its sibling CPU 1 does not
  EXPECT_FALSE(sys.llc_shared().has_idle_cores);
  ASSERT_EQ(sys.rq(1).sleep(b), Refusal::none);  // CPU 1 idles beside the idle CPU 0
  EXPECT_TRUE(sys.llc_shared().has_idle_cores);
}

}  // namespace
}  // namespace eevdf
