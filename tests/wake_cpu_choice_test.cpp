// The wake-up CPU choice (model/wake_cpu.hpp, issue 26): a `wake` without
// cpu= on several runqueues lands where select_task_rq_fair() puts it, each
// case worked out by hand from 6.12.118's fair.c (the same functions through
// 7.0.0).
//
// The common start: B runs on CPU 0 and sleeps there (prev_cpu 0, and its
// recent_used_cpu 0 from wake_up_new_task()), then A runs on CPU 0.
#include <gtest/gtest.h>

#include <string>

#include "support/run_scenario.hpp"

namespace eevdf {
namespace {

using test::expect_ok;

const std::string kBusyPrev =
    "runqueues 2\n"
    "task A\ntask B\n"
    "wake B\nrun 1ms\nexpect curr B cpu=0\nsleep B\n"
    "wake A\nrun 1ms\nexpect curr A cpu=0\n";

scn::ExecResult run(const std::string& header, const std::string& body) {
  return test::run_scenario_text(header + kBusyPrev + body);
}

// From B's own CPU (the default): wake_affine() is not asked (this_cpu ==
// prev_cpu); select_idle_sibling(): CPU 0 runs A, recent_used_cpu is prev, and
// select_idle_cpu() would find the idle CPU 1 if SIS_UTIL's budget
// (nr_idle_scan, from the load balancer's PELT sums) allows one CPU: the model
// does not know it, and refuses, with the reason.
TEST(WakeCpu, SisUtilBudgetDecisionIsRefused) {
  const scn::ExecResult r = run("", "wake B\n");
  EXPECT_NE(r.error.find("cannot wake B: the wake-up CPU choice depends on select_idle_cpu()'s SIS_UTIL budget"),
            std::string::npos)
      << r.error;
}

// Without SIS_UTIL the scan is unlimited and starts at target + 1: CPU 1.
TEST(WakeCpu, BusyPrevWithoutSisUtilScansToTheIdleCpu) {
  expect_ok(run("features NO_SIS_UTIL\n", "wake B\nexpect field B.cpu == 1\nrun 1ms\nexpect curr B cpu=1\n"));
}

// From idle CPU 1 (an interrupt there): wake_affine_idle() takes the waking
// CPU (idle, prev is not), and select_idle_sibling() keeps the idle target.
TEST(WakeCpu, FromAnIdleCpuPullsTheWakee) {
  expect_ok(run("", "wake B from=1\nexpect field B.cpu == 1\n"));
}

// From busy CPU 1 (C runs there), neither CPU idle and no WF_SYNC:
// wake_affine_idle() has no answer and WA_WEIGHT would compare PELT loads,
// which the model does not keep: the wake-up is refused, with the reason.
const std::string kBothBusy = "task C\nwake C cpu=1\nrun 1ms\nexpect curr C cpu=1\n";

TEST(WakeCpu, WaWeightDecisionIsRefused) {
  const scn::ExecResult r = run("", kBothBusy + "wake B from=1\n");
  EXPECT_NE(r.error.find("cannot wake B: the wake-up CPU choice reaches wake_affine_weight()"), std::string::npos)
      << r.error;
}

// With SIS_UTIL and no idle CPU to find, every budget gives the same answer:
// select_idle_sibling() keeps the target, B's own CPU 0.
TEST(WakeCpu, SisUtilWithNothingIdleKeepsTheTarget) {
  expect_ok(run("", kBothBusy + "wake B\nexpect field B.cpu == 0\n"));
}

// NO_WA_WEIGHT: wake_affine() answers prev_cpu; CPU 0 is busy, recent_used_cpu
// is prev, the scan has no budget: CPU 0.
TEST(WakeCpu, WithoutWaWeightAffineKeepsPrev) {
  expect_ok(run("features NO_WA_WEIGHT\n", kBothBusy + "wake B from=1\nexpect field B.cpu == 0\n"));
}

// WF_SYNC from CPU 1, where the waker C runs alone: wake_affine_idle()'s sync
// clause takes CPU 1 before WA_WEIGHT is asked, and select_idle_sibling() finds
// no idle CPU: B joins C on CPU 1.
TEST(WakeCpu, SyncWakerAloneTakesTheWakee) {
  expect_ok(run("", kBothBusy + "wake B sync from=1\nexpect field B.cpu == 1\n"));
}

// recent_used_cpu: B sleeps on CPU 0, the balancer moves it to CPU 1 (prev 1),
// C runs on CPU 1 and CPU 0 idles: target and prev are busy, the recently used
// CPU 0 is idle and is taken (and recent_used_cpu becomes 1).
TEST(WakeCpu, RecentlyUsedIdleCpuIsTaken) {
  expect_ok(test::run_scenario_text(
      "runqueues 2\n"
      "task B\ntask C\n"
      "wake B\nrun 1ms\nexpect curr B cpu=0\nsleep B\n"
      "migrate B 1\nexpect field B.cpu == 1\n"
      "wake C cpu=1\nrun 1ms\nexpect curr C cpu=1\nexpect curr idle cpu=0\n"
      "wake B\nexpect field B.cpu == 0\n"));
}

// A SCHED_FIFO task's choice is select_task_rq_rt()'s, not modelled: refused
// without cpu=, forced with it.
TEST(WakeCpu, RtTaskNeedsItsCpuNamed) {
  const std::string start =
      "runqueues 2\ntask R policy=fifo\nwake R\nrun 1ms\nexpect curr R cpu=0\nsleep R\n";
  const scn::ExecResult r = test::run_scenario_text(start + "wake R\n");
  EXPECT_NE(r.error.find("select_task_rq_rt()) is not modelled"), std::string::npos) << r.error;
  expect_ok(test::run_scenario_text(start + "wake R cpu=1\nexpect field R.cpu == 1\n"));
}

// One runqueue: nothing to choose, from= changes nothing.
TEST(WakeCpu, OneRunqueueDoesNotChoose) {
  expect_ok(test::run_scenario_text(
      "task B\nwake B\nrun 1ms\nsleep B\nwake B from=0\nexpect field B.cpu == 0\nrun 1ms\nexpect curr B\n"));
}

}  // namespace
}  // namespace eevdf
