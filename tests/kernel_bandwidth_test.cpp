// CPU bandwidth control (cgroup cpu.max) on the kernel's own code: the tree's
// throttle, period timer, distribution and CSD, driven by the glue's
// tg_set_cfs_bandwidth(), hrtimers and CSD (kernelsrc/glue/bandwidth.c), and
// handed back into the model's types. Skipped where the build's tree has no
// bandwidth control (kernelsrc::bandwidth(): Linux 6.12.118 built with CONFIG_SMP).
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "kernelsrc/kernel_backend.hpp"
#include "model/profile.hpp"
#include "model/system.hpp"

namespace eevdf::kernelsrc {
namespace {

constexpr u64 kMs = 1'000'000;

Profile tree_profile() { return *profile_by_name(judge()); }

// one group, a task in it on each of `cpus` CPUs, every task running
struct Group {
  explicit Group(unsigned cpus) : kb(tree_profile(), cpus) {
    kb.set_handback_check_every(1);  // every export checks the marks
    group = kb.create_group("g", -1, 1024);
    for (unsigned c = 0; c < cpus; ++c) {
      const int t = kb.create_task("t" + std::to_string(c), 0, Policy::normal, 0, group);
      EXPECT_EQ(kb.wake(t, false, static_cast<int>(c)), Refusal::none);
    }
    kb.schedule();
  }
  const CfsRq& queue(unsigned cpu) const { return kb.state().rq(cpu).groups[static_cast<std::size_t>(group)].cfs_rq; }
  const SchedEntity& group_se(unsigned cpu) const {
    return kb.state().rq(cpu).groups[static_cast<std::size_t>(group)].se;
  }
  const CfsBandwidth& bw() const { return kb.state().rq(0).task_groups[static_cast<std::size_t>(group)].cfs_bandwidth; }
  KernelBackend kb;
  int group = -1;
};

TEST(KernelBandwidth, ThrottledPastTheQuotaUnthrottledByThePeriodTimer) {
  if (!available() || !bandwidth()) GTEST_SKIP() << "no bandwidth control in this build's tree";
  Group s(1);
  EXPECT_EQ(s.kb.state().rq(0).curr, 0);
  ASSERT_EQ(s.kb.set_group_bandwidth(s.group, 10 * kMs, 100 * kMs, 0), Refusal::none);
  EXPECT_EQ(*s.kb.state().rq(0).bandwidth_users, 1);
  EXPECT_EQ(s.bw().quota, 10 * kMs);
  EXPECT_EQ(s.bw().period, 100 * kMs);
  EXPECT_EQ(s.bw().runtime, 10 * kMs);
  EXPECT_TRUE(s.bw().period_active);
  // start_cfs_bandwidth() at clock 0 with the random phase 0: the first period ends at 100 ms
  EXPECT_TRUE(s.bw().period_timer.queued);
  EXPECT_EQ(s.bw().period_timer.expires, 100 * kMs);
  EXPECT_EQ(s.bw().period_timer.cpu, 0);
  EXPECT_TRUE(s.queue(0).runtime_enabled);
  EXPECT_EQ(s.queue(0).runtime_remaining, 0);

  s.kb.run(20 * kMs);  // past the 10 ms quota
  EXPECT_TRUE(s.queue(0).throttled);
  EXPECT_EQ(s.queue(0).throttle_count, 1);
  EXPECT_LE(s.queue(0).runtime_remaining, 0);
  EXPECT_FALSE(s.group_se(0).on_rq) << "the group entity is dequeued";
  EXPECT_EQ(s.kb.state().rq(0).curr, -1) << "the CPU idles";
  EXPECT_EQ(s.kb.state().rq(0).cfs.h_nr_queued, 0u);
  EXPECT_EQ(s.bw().throttled_cfs_rq, std::vector<int>{0});
  EXPECT_EQ(s.bw().runtime, 0u);
  const u64 throttled_at = s.queue(0).throttled_clock;
  EXPECT_GE(throttled_at, 10 * kMs);
  EXPECT_LT(throttled_at, 20 * kMs);

  s.kb.run(80 * kMs);  // to 100 ms: the period timer fires at its expiry
  EXPECT_FALSE(s.queue(0).throttled);
  EXPECT_EQ(s.queue(0).throttle_count, 0);
  EXPECT_GT(s.queue(0).runtime_remaining, 0);
  EXPECT_TRUE(s.group_se(0).on_rq);
  EXPECT_TRUE(s.bw().throttled_cfs_rq.empty());
  EXPECT_EQ(s.bw().nr_periods, 1);
  EXPECT_EQ(s.bw().nr_throttled, 1);
  EXPECT_EQ(s.bw().throttled_time, 100 * kMs - throttled_at);
  EXPECT_TRUE(s.bw().period_timer.queued);
  EXPECT_EQ(s.bw().period_timer.expires, 200 * kMs);
  EXPECT_TRUE(s.kb.state().rq(0).need_resched) << "unthrottle_cfs_rq() wakes the idle CPU";

  s.kb.run(5 * kMs);  // the task runs again
  EXPECT_EQ(s.kb.state().rq(0).curr, 0);
  EXPECT_TRUE(s.kb.take_warnings().empty());
}

TEST(KernelBandwidth, RemovingTheQuotaUnthrottlesAndClearsTheKey) {
  if (!available() || !bandwidth()) GTEST_SKIP() << "no bandwidth control in this build's tree";
  Group s(1);
  ASSERT_EQ(s.kb.set_group_bandwidth(s.group, 5 * kMs, 100 * kMs, 0), Refusal::none);
  s.kb.run(20 * kMs);
  ASSERT_TRUE(s.queue(0).throttled);
  ASSERT_EQ(s.kb.set_group_bandwidth(s.group, kRuntimeInf, 100 * kMs, 0), Refusal::none);
  EXPECT_FALSE(s.queue(0).throttled);
  EXPECT_FALSE(s.queue(0).runtime_enabled);
  EXPECT_TRUE(s.group_se(0).on_rq);
  EXPECT_EQ(*s.kb.state().rq(0).bandwidth_users, 0);
  EXPECT_EQ(s.bw().quota, kRuntimeInf);
  // the period timer, still armed, finds no quota and stops (do_sched_cfs_period_timer())
  s.kb.run(100 * kMs);
  EXPECT_FALSE(s.bw().period_timer.queued);
  EXPECT_FALSE(s.bw().period_active);
  EXPECT_TRUE(s.kb.take_warnings().empty());
}

TEST(KernelBandwidth, InvalidSettingsAreRefused) {
  if (!available() || !bandwidth()) GTEST_SKIP() << "no bandwidth control in this build's tree";
  Group s(1);
  const int child = s.kb.create_group("c", s.group, 1024);
  struct Case {
    u64 quota, period, burst;
  };
  // tg_set_cfs_bandwidth(): a period or quota under 1 ms, a period over 1 s,
  // a quota over max_cfs_runtime, a burst over the quota or over max_cfs_runtime with it
  const u64 max_runtime = ((u64{1} << 44) - 1) * 1000;
  for (const Case& c : {Case{999'999, 100 * kMs, 0}, Case{10 * kMs, 999'999, 0}, Case{10 * kMs, 1'000'000'001, 0},
                        Case{max_runtime + 1, 100 * kMs, 0}, Case{10 * kMs, 100 * kMs, 10 * kMs + 1},
                        Case{max_runtime, 100 * kMs, 1}})
    EXPECT_EQ(s.kb.set_group_bandwidth(s.group, c.quota, c.period, c.burst), Refusal::bad_argument)
        << "quota " << c.quota << " period " << c.period << " burst " << c.burst;
  EXPECT_EQ(*s.kb.state().rq(0).bandwidth_users, 0) << "a refused write changes nothing";
  EXPECT_EQ(s.bw().quota, kRuntimeInf);
  EXPECT_EQ(s.kb.set_group_bandwidth(-1, 10 * kMs, 100 * kMs, 0), Refusal::no_such_group);
  EXPECT_EQ(s.kb.set_group_bandwidth(7, 10 * kMs, 100 * kMs, 0), Refusal::no_such_group);
  // the limits themselves are taken: 1 ms, 1 s, burst == quota
  EXPECT_EQ(s.kb.set_group_bandwidth(s.group, kMs, 1'000'000'000, kMs), Refusal::none);
  // cgroup v2: a child may ask more than its parent; its hierarchical quota is the smaller
  EXPECT_EQ(s.kb.set_group_bandwidth(child, 500 * kMs, 1'000'000'000, 0), Refusal::none);
  const auto& groups = s.kb.state().rq(0).task_groups;
  EXPECT_EQ(groups[static_cast<std::size_t>(s.group)].cfs_bandwidth.hierarchical_quota, (s64{1} << 20) / 1000);
  EXPECT_EQ(groups[static_cast<std::size_t>(child)].cfs_bandwidth.hierarchical_quota, (s64{1} << 20) / 1000);
  EXPECT_EQ(*s.kb.state().rq(0).bandwidth_users, 2);
}

TEST(KernelBandwidth, DistributionToAnotherCpuGoesThroughItsCsd) {
  if (!available() || !bandwidth()) GTEST_SKIP() << "no bandwidth control in this build's tree";
  if (!refusal(tree_profile(), 2).empty()) GTEST_SKIP() << refusal(tree_profile(), 2);
  Group s(2);
  s.kb.set_hold_csds(true);
  EXPECT_EQ(s.kb.state().rq(0).curr, 0);
  EXPECT_EQ(s.kb.state().rq(1).curr, 1);
  ASSERT_EQ(s.kb.set_group_bandwidth(s.group, 10 * kMs, 100 * kMs, 0), Refusal::none);
  EXPECT_EQ(s.bw().period_timer.cpu, 0) << "armed by the writer, on CPU 0";
  s.kb.run(30 * kMs);
  ASSERT_TRUE(s.queue(0).throttled);
  ASSERT_TRUE(s.queue(1).throttled);
  EXPECT_EQ(s.bw().throttled_cfs_rq.size(), 2u);
  s.kb.run(70 * kMs);  // 100 ms: the period timer on CPU 0 distributes
  EXPECT_FALSE(s.queue(0).throttled) << "CPU 0's queue: unthrottled where the timer runs";
  EXPECT_TRUE(s.queue(1).throttled) << "CPU 1's queue: waits for its CSD";
  EXPECT_TRUE(s.queue(1).csd_queued);
  EXPECT_GT(s.queue(1).runtime_remaining, 0);
  EXPECT_FALSE(s.group_se(1).on_rq);
  s.kb.run_csd(1);
  EXPECT_FALSE(s.queue(1).throttled);
  EXPECT_FALSE(s.queue(1).csd_queued);
  EXPECT_TRUE(s.group_se(1).on_rq);
  EXPECT_EQ(s.queue(1).throttle_count, 0);
  EXPECT_TRUE(s.bw().throttled_cfs_rq.empty());
  EXPECT_EQ(s.bw().nr_throttled, 1);
  EXPECT_TRUE(s.kb.state().rq(1).need_resched) << "unthrottle_cfs_rq() wakes the idle CPU";
  // each queue was given its deficit + 1 ns; what is left of the quota goes to
  // whichever asks first, the other throttles again: both ran, both are throttled
  const u64 ran1 = s.kb.state().rq(0).tasks[1].se.sum_exec_runtime;
  s.kb.set_hold_csds(false);
  s.kb.run(10 * kMs);
  EXPECT_GT(s.kb.state().rq(0).tasks[1].se.sum_exec_runtime, ran1);
  EXPECT_TRUE(s.queue(0).throttled);
  EXPECT_TRUE(s.queue(1).throttled);
  EXPECT_EQ(s.bw().runtime, 0u);
  EXPECT_TRUE(s.kb.take_warnings().empty());
}

TEST(KernelBandwidth, RefusedOnATreeWithout) {
  if (!available()) GTEST_SKIP() << "no kernel backend in this build";
  if (bandwidth()) GTEST_SKIP() << "this build's tree has bandwidth control";
  KernelBackend kb(tree_profile());
  const int g = kb.create_group("g", -1, 1024);
  EXPECT_THROW(kb.set_group_bandwidth(g, 10 * kMs, 100 * kMs, 0), std::runtime_error);
  EXPECT_NE(bandwidth_refusal().find("CONFIG_CFS_BANDWIDTH"), std::string::npos);
}

}  // namespace
}  // namespace eevdf::kernelsrc
