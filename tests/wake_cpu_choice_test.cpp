// The wake-up CPU choice (model/wake_cpu.hpp): a `wake` without
// cpu= on several runqueues lands where select_task_rq_fair() puts it, each
// case worked out by hand from 6.12.118's fair.c (the same functions through
// 7.0.0).
//
// The common start: B runs on CPU 0 and sleeps there (prev_cpu 0, and its
// recent_used_cpu 0 from wake_up_new_task()), then A runs on CPU 0.
#include <gtest/gtest.h>

#include <string>

#include "model/profile.hpp"
#include "model/system.hpp"
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
TEST(WakeCpuChoice, SisUtilBudgetDecisionIsRefused) {
  const scn::ExecResult r = run("", "wake B\n");
  EXPECT_NE(r.error.find("cannot wake B: the wake-up CPU choice depends on select_idle_cpu()'s SIS_UTIL budget"),
            std::string::npos)
      << r.error;
}

// Without SIS_UTIL the scan is unlimited and starts at target + 1: CPU 1.
TEST(WakeCpuChoice, BusyPrevWithoutSisUtilScansToTheIdleCpu) {
  expect_ok(run("features NO_SIS_UTIL\n", "wake B\nexpect field B.cpu == 1\nrun 1ms\nexpect curr B cpu=1\n"));
}

// From idle CPU 1 (an interrupt there): wake_affine_idle() takes the waking
// CPU (idle, prev is not), and select_idle_sibling() keeps the idle target.
TEST(WakeCpuChoice, FromAnIdleCpuPullsTheWakee) {
  expect_ok(run("", "wake B from=1\nexpect field B.cpu == 1\n"));
}

// From busy CPU 1 (C runs there), neither CPU idle and no WF_SYNC:
// wake_affine_idle() has no answer and WA_WEIGHT compares the PELT loads of
// the two root queues (model/fair_pelt.cpp). Every new task starts with its
// full weight as load (1024), so CPU 0 has A's and the sleeping B's (about
// 2000) and CPU 1 C's (1024): the waking CPU with B (about 2000) times 100 is
// not below CPU 0 without B (about 1000) times 108, and B stays on CPU 0.
const std::string kBothBusy = "task C\nwake C cpu=1\nrun 1ms\nexpect curr C cpu=1\n";

TEST(WakeCpuChoice, WaWeightKeepsPrevWhenTheWakingCpuIsNotLighter) {
  expect_ok(run("", kBothBusy + "wake B from=1\nexpect field B.cpu == 0\n"));
}

// Two more tasks on CPU 0 (about 4000 with B): CPU 1 with B (about 2000) x 100
// is below CPU 0 without B (about 3000) x 108: B is pulled to the waking CPU,
// and select_idle_sibling() keeps that target (no CPU is idle).
TEST(WakeCpuChoice, WaWeightPullsToTheLighterWakingCpu) {
  expect_ok(run("", "task D\ntask E\nwake D cpu=0\nwake E cpu=0\n" + kBothBusy +
                        "wake B from=1\nexpect field B.cpu == 1\n"));
}

// A group changes what WA_WEIGHT weighs: CPU 0 runs A and holds D, E and the
// sleeping B; CPU 1 runs C, then F joins it. Without a group, CPU 1 with B,
// (2048 + 1024) x 100, is below CPU 0 without B, (4096 - 1024) x 108: B is
// pulled. With D, E and B in a group G (cpu.shares 1024), CPU 0's load is A
// and G's entity, about 2048, and task_h_load(B) is B's third of G's,
// about 1024 · 1023 / 3073 = 341 (update_cfs_rq_h_load(): root h_load 2048,
// G's 2048 · 1024 / 2049): (2048 + 341) x 100 is above (2048 - 341) x 108,
// and B stays on CPU 0.
const std::string kCpu1Pair = "task F\nwake F cpu=1\n";
TEST(WakeCpuChoice, WaWeightPullsFromTheUngroupedHeavierCpu) {
  expect_ok(run("", "task D\ntask E\nwake D cpu=0\nwake E cpu=0\n" + kBothBusy + kCpu1Pair +
                        "wake B from=1\nexpect field B.cpu == 1\n"));
}
TEST(WakeCpuChoice, WaWeightReadsTheWakeesShareOfItsGroup) {
  expect_ok(run("", "group G\ntask D group=G\ntask E group=G\nmove B G\nwake D cpu=0\nwake E cpu=0\n" + kBothBusy +
                        kCpu1Pair + "wake B from=1\nexpect field B.cpu == 0\n"));
}

// With SIS_UTIL and no idle CPU to find, every budget gives the same answer:
// select_idle_sibling() keeps the target, B's own CPU 0.
TEST(WakeCpuChoice, SisUtilWithNothingIdleKeepsTheTarget) {
  expect_ok(run("", kBothBusy + "wake B\nexpect field B.cpu == 0\n"));
}

// NO_WA_WEIGHT: wake_affine() answers prev_cpu; CPU 0 is busy, recent_used_cpu
// is prev, the scan has no budget: CPU 0.
TEST(WakeCpuChoice, WithoutWaWeightAffineKeepsPrev) {
  expect_ok(run("features NO_WA_WEIGHT\n", kBothBusy + "wake B from=1\nexpect field B.cpu == 0\n"));
}

// WF_SYNC from CPU 1, where the waker C runs alone: wake_affine_idle()'s sync
// clause takes CPU 1 before WA_WEIGHT is asked, and select_idle_sibling() finds
// no idle CPU: B joins C on CPU 1.
TEST(WakeCpuChoice, SyncWakerAloneTakesTheWakee) {
  expect_ok(run("", kBothBusy + "wake B sync from=1\nexpect field B.cpu == 1\n"));
}

// recent_used_cpu: B sleeps on CPU 0, the balancer moves it to CPU 1 (prev 1),
// C runs on CPU 1 and CPU 0 idles: target and prev are busy, the recently used
// CPU 0 is idle and is taken (and recent_used_cpu becomes 1).
TEST(WakeCpuChoice, RecentlyUsedIdleCpuIsTaken) {
  expect_ok(test::run_scenario_text(
      "runqueues 2\n"
      "task B\ntask C\n"
      "wake B\nrun 1ms\nexpect curr B cpu=0\nsleep B\n"
      "migrate B 1\nexpect field B.cpu == 1\n"
      "wake C cpu=1\nrun 1ms\nexpect curr C cpu=1\nexpect curr idle cpu=0\n"
      "wake B\nexpect field B.cpu == 0\n"));
}

// wake_wide(): with sd_llc_size = 8 (online CPUs), a waker whose flips reach 8
// times the wakee's (at least 8) spreads: no wake_affine(), so WA_WEIGHT is
// never asked and the fast path keeps prev. record_wakee() counts this wake-up
// first (a new wakee: +1; its halving once a second is kept out by the decay
// time set to now). Both CPUs busy, so without the wide rule the choice
// goes to WA_WEIGHT. The counts are set by hand (white box).
// The waker C (CPU 1) wakes B (slept on CPU 0, CPU 0 busy with A) with the
// counts given; the refusal (or none) and C's memory afterwards.
struct WideCase {
  Refusal refusal;
  WakeeState waker;
  int b_cpu;
  bool weighed;  // wake_affine_weight() ran: task_h_load(B) refreshed CPU 0's h_load cache
};
WideCase wake_with_flips(std::uint32_t waker_flips, std::uint32_t wakee_flips, bool decayed_now) {
  System sys(*profile_by_name("mainline"), 2);
  Rq& rq0 = sys.rq(0);
  const int a = rq0.create_task("A", 0, Policy::normal, 0);
  const int b = rq0.create_task("B", 0, Policy::normal, 0);
  const int c = rq0.create_task("C", 0, Policy::normal, 0);
  EXPECT_EQ(sys.wake(b, false, -1), Refusal::none);
  sys.run(1'000'000);
  EXPECT_EQ(rq0.sleep(b), Refusal::none);
  EXPECT_EQ(sys.wake(a, false, -1), Refusal::none);
  EXPECT_EQ(sys.wake(c, false, 1), Refusal::none);
  sys.run(1'000'000);
  EXPECT_EQ(sys.rq(0).curr, a);
  EXPECT_EQ(sys.rq(1).curr, c);
  Task& tc = rq0.tasks[static_cast<std::size_t>(c)];
  tc.wakee.flips = waker_flips;
  // INITIAL_JIFFIES at HZ 1000 (2^32 - 300000) + 2 ms: the last decay now, or
  // (0, as init_task's) more than a second ago
  if (decayed_now) tc.wakee.decay_ts = 4294667296u + 2u;
  rq0.tasks[static_cast<std::size_t>(b)].wakee.flips = wakee_flips;
  const Refusal r = sys.wake(b, false, -1, 1);
  return {r, tc.wakee, rq0.tasks[static_cast<std::size_t>(b)].cpu, sys.rq(0).cfs.last_h_load_update != 0};
}

// wake_wide(): with sd_llc_size = 8 (online CPUs), a waker whose flips reach 8
// times the wakee's (at least 8) spreads: no wake_affine(), so WA_WEIGHT is
// never asked and the fast path keeps prev (both CPUs are busy: without the
// wide rule the choice goes to WA_WEIGHT). record_wakee() counts this
// wake-up first (a new wakee: +1). The counts are set by hand (white box).
TEST(WakeCpuChoice, WakeWideSkipsWakeAffine) {
  const WideCase wide = wake_with_flips(63, 8, true);  // 63 + 1 = 64 = 8 x 8
  EXPECT_EQ(wide.refusal, Refusal::none);
  EXPECT_EQ(wide.b_cpu, 0);
  EXPECT_EQ(wide.waker.flips, 64u);
  EXPECT_EQ(wide.waker.last, 1);  // B
  EXPECT_FALSE(wide.weighed);
  const WideCase narrow = wake_with_flips(62, 8, true);  // 63 < 64
  EXPECT_EQ(narrow.refusal, Refusal::none);
  EXPECT_TRUE(narrow.weighed);
  EXPECT_EQ(narrow.waker.flips, 63u);
}

// record_wakee() halves the waker's count once more than a second (HZ jiffies)
// has passed since its last decay: 127 becomes 63, + 1 = 64 < 16 x 8.
TEST(WakeCpuChoice, RecordWakeeDecaysOnceASecond) {
  EXPECT_FALSE(wake_with_flips(127, 16, true).weighed);  // 128 = 16 x 8: wide
  EXPECT_TRUE(wake_with_flips(127, 16, false).weighed);
}

// A SCHED_FIFO task's choice is select_task_rq_rt()'s, not modelled: refused
// without cpu=, forced with it.
TEST(WakeCpuChoice, RtTaskNeedsItsCpuNamed) {
  const std::string start =
      "runqueues 2\ntask R policy=fifo\nwake R\nrun 1ms\nexpect curr R cpu=0\nsleep R\n";
  const scn::ExecResult r = test::run_scenario_text(start + "wake R\n");
  EXPECT_NE(r.error.find("select_task_rq_rt()) is not modelled"), std::string::npos) << r.error;
  expect_ok(test::run_scenario_text(start + "wake R cpu=1\nexpect field R.cpu == 1\n"));
}

// One runqueue: nothing to choose, from= changes nothing.
TEST(WakeCpuChoice, OneRunqueueDoesNotChoose) {
  expect_ok(test::run_scenario_text(
      "task B\nwake B\nrun 1ms\nsleep B\nwake B from=0\nexpect field B.cpu == 0\nrun 1ms\nexpect curr B\n"));
}

}  // namespace
}  // namespace eevdf
