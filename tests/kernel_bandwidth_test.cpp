// CPU bandwidth control (cgroup cpu.max) on the kernel's own code: the tree's
// throttle, period timer, distribution and CSD, driven by the glue's
// tg_set_cfs_bandwidth(), hrtimers and CSD (kernelsrc/glue/bandwidth.c), and
// handed back into the model's types. Skipped where the build's tree has no
// bandwidth control (kernelsrc::bandwidth(): Linux 6.6.0, 6.12.0, 6.12.10 and
// 6.12.118 built with CONFIG_SMP).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernelsrc/kernel_backend.hpp"
#include "model/profile.hpp"
#include "model/system.hpp"
#include "scenario/executor.hpp"

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

// A cpu.max write that names no burst passes on the group's, as the tree's
// cpu_max_write() reads it: 6.6.0's with tg_get_cfs_burst(), in microseconds,
// taken as nanoseconds by tg_set_cfs_bandwidth() (49217ea147df fixed it in v6.10)
TEST(KernelBandwidth, CpuMaxWithoutABurstKeepsItAsTheTreeReadsIt) {
  if (!available() || !bandwidth()) GTEST_SKIP() << "no bandwidth control in this build's tree";
  Group s(1);
  ASSERT_EQ(s.kb.set_group_bandwidth(s.group, 10 * kMs, 100 * kMs, 5 * kMs), Refusal::none);
  EXPECT_EQ(s.bw().burst, 5 * kMs);
  const u64 kept = kernel_version() == "6.6.0" ? 5 * kMs / 1000 : 5 * kMs;
  EXPECT_EQ(s.kb.cpu_max_burst(s.group), kept);
  scn::Op op;  // quota g 20ms/100ms
  op.kind = scn::OpKind::quota;
  op.group = "g";
  op.value = static_cast<s64>(20 * kMs);
  op.period = static_cast<s64>(100 * kMs);
  ASSERT_EQ(scn::apply_operation(s.kb, op, -1), Refusal::none);
  EXPECT_EQ(s.bw().quota, 20 * kMs);
  EXPECT_EQ(s.bw().burst, kept);
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

TEST(KernelBandwidth, SlackTimerHandsReturnedRuntimeToAThrottledQueue) {
  if (!available() || !bandwidth()) GTEST_SKIP() << "no bandwidth control in this build's tree";
  if (!refusal(tree_profile(), 3).empty()) GTEST_SKIP() << refusal(tree_profile(), 3);
  const u64 tick = tree_profile().tick_nsec();
  const u64 slice = 5 * kMs;  // sysctl_sched_cfs_bandwidth_slice_us: 5000
  Group s(3);
  // at the first tick CPUs 0 and 1 each draw a slice and the tick they ran;
  // CPU 2 finds half a tick left and throttles
  ASSERT_EQ(s.kb.set_group_bandwidth(s.group, 2 * (slice + tick) + tick / 2, 100 * kMs, 0), Refusal::none);
  s.kb.run(tick);
  ASSERT_FALSE(s.queue(0).throttled);
  ASSERT_FALSE(s.queue(1).throttled);
  ASSERT_TRUE(s.queue(2).throttled);
  EXPECT_EQ(s.queue(0).runtime_remaining, static_cast<s64>(slice));
  EXPECT_EQ(s.bw().runtime, 0u);
  // both sleep: each returns all but min_cfs_rq_runtime (1 ms); the second
  // return leaves more than a slice in the pool with a queue throttled, and
  // starts the slack timer on its CPU
  ASSERT_EQ(s.kb.sleep(0), Refusal::none);
  EXPECT_EQ(s.bw().runtime, slice - kMs);
  EXPECT_FALSE(s.bw().slack_started);
  ASSERT_EQ(s.kb.sleep(1), Refusal::none);
  EXPECT_EQ(s.bw().runtime, 2 * (slice - kMs));
  EXPECT_TRUE(s.bw().slack_started);
  EXPECT_TRUE(s.bw().slack_timer.queued);
  EXPECT_EQ(s.bw().slack_timer.cpu, 1);
  EXPECT_EQ(s.bw().slack_timer.expires, tick + 5 * kMs);  // cfs_bandwidth_slack_period
  s.kb.set_hold_csds(true);
  s.kb.run(5 * kMs);  // the slack timer fires on CPU 1: CPU 2's queue gets runtime through its CSD
  EXPECT_FALSE(s.bw().slack_started);
  EXPECT_FALSE(s.bw().slack_timer.queued);
  EXPECT_TRUE(s.queue(2).throttled);
  EXPECT_TRUE(s.queue(2).csd_queued);
  EXPECT_GT(s.queue(2).runtime_remaining, 0);
  s.kb.run_csd(2);
  EXPECT_FALSE(s.queue(2).throttled);
  EXPECT_TRUE(s.group_se(2).on_rq);
  EXPECT_TRUE(s.bw().throttled_cfs_rq.empty());
  EXPECT_EQ(s.bw().nr_periods, 0) << "the period timer has not fired";
  EXPECT_TRUE(s.kb.take_warnings().empty());
}

// Every bandwidth field of the mirror, with the fields of the entities and
// queues the throttle paths write, as numbers.
std::vector<std::int64_t> mirror_fields(const System& sys) {
  std::vector<std::int64_t> out;
  auto entity = [&](const SchedEntity& se) {
    for (u64 v : {se.load.weight, se.vruntime, se.deadline, se.sum_exec_runtime, se.exec_start, as_u64(se.vlag),
                  se.avg.load_avg, se.avg.runnable_avg, se.avg.util_avg, se.avg.last_update_time, se.runnable_weight})
      out.push_back(static_cast<std::int64_t>(v));
    out.push_back(se.on_rq);
    out.push_back(se.sched_delayed);
  };
  auto queue = [&](const CfsRq& q) {
    for (u64 v : {q.load.weight, u64{q.nr_queued}, u64{q.h_nr_queued}, u64{q.h_nr_runnable}, q.avg.load_avg,
                  q.throttled_clock, q.throttled_clock_pelt, q.throttled_clock_pelt_time, q.throttled_clock_self,
                  q.throttled_clock_self_time, as_u64(q.runtime_remaining)})
      out.push_back(static_cast<std::int64_t>(v));
    for (bool b : {q.runtime_enabled, q.throttled, q.csd_queued}) out.push_back(b);
    out.push_back(q.throttle_count);
  };
  for (const Task& t : sys.rq(0).tasks) {
    out.push_back(t.cpu);
    entity(t.se);
  }
  for (unsigned c = 0; c < sys.size(); ++c) {
    const Rq& rq = sys.rq(c);
    out.push_back(rq.curr);
    out.push_back(rq.need_resched);
    queue(rq.cfs);
    for (const TaskGroupCpu& g : rq.groups) {
      entity(g.se);
      queue(g.cfs_rq);
    }
  }
  for (const TaskGroup& g : sys.rq(0).task_groups) {
    const CfsBandwidth& b = g.cfs_bandwidth;
    for (u64 v : {b.period, b.quota, b.runtime, b.burst, b.runtime_snap, as_u64(b.hierarchical_quota),
                  b.period_timer.expires, b.slack_timer.expires, b.throttled_time, b.burst_time})
      out.push_back(static_cast<std::int64_t>(v));
    for (bool v : {b.idle, b.period_active, b.slack_started, b.period_timer.queued, b.slack_timer.queued})
      out.push_back(v);
    for (int v : {b.period_timer.cpu, b.slack_timer.cpu, b.nr_periods, b.nr_throttled, b.nr_burst}) out.push_back(v);
    out.push_back(-1);
    for (int cpu : b.throttled_cfs_rq) out.push_back(cpu);
  }
  out.push_back(*sys.rq(0).bandwidth_users);
  return out;
}

struct Seen {
  int throttles = 0, period_fires = 0, slack_fires = 0, csds = 0;
};

// A stream of wake-ups, sleeps, time and cpu.max writes on two groups (one
// inside the other) and a task at the root, the mirror's fields after each.
std::vector<std::vector<std::int64_t>> run_stream(bool incremental, unsigned cpus, unsigned seed, Seen& seen) {
  KernelBackend kb(tree_profile(), cpus);
  kb.set_incremental_refresh(incremental);
  kb.set_handback_check_every(1);
  std::mt19937 rng(seed);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  const int a = kb.create_group("a", -1, 1024);
  const int b = kb.create_group("b", a, 512);
  const int groups[] = {a, a, b, b, -1, b};
  constexpr int kTasks = 6;
  for (int i = 0; i < kTasks; ++i) kb.create_task("t" + std::to_string(i), 0, Policy::normal, 0, groups[i]);
  std::vector<std::vector<std::int64_t>> out;
  std::vector<u64> periods_before(2, 0);
  for (int op = 0; op < 400; ++op) {
    const int what = pick(10);
    if (what <= 2) {
      kb.wake(pick(kTasks), false, pick(static_cast<int>(cpus)));
    } else if (what == 3) {
      const int curr = kb.state().rq(static_cast<unsigned>(pick(static_cast<int>(cpus)))).curr;
      if (curr >= 0) kb.sleep(curr);
    } else if (what <= 6) {
      kb.run(static_cast<u64>(500'000 + pick(15'000'000)));
    } else if (what == 7) {
      kb.tick_after(static_cast<u64>(100'000 + pick(3'000'000)));
    } else if (what == 8) {
      const int g = pick(2);
      const u64 period = static_cast<u64>(10 + pick(40)) * kMs;
      const u64 quota = pick(5) == 0 ? kRuntimeInf : static_cast<u64>(2 + pick(20)) * kMs;
      const u64 burst = quota != kRuntimeInf && pick(3) == 0 ? quota / 2 : 0;
      kb.set_group_bandwidth(g, quota, period, burst);
    } else {
      kb.schedule();
    }
    for (unsigned c = 0; c < cpus; ++c)
      for (const TaskGroupCpu& g : kb.state().rq(c).groups) seen.csds += g.cfs_rq.csd_queued;
    for (const TaskGroup& g : kb.state().rq(0).task_groups) {
      seen.throttles += static_cast<int>(g.cfs_bandwidth.throttled_cfs_rq.size());
      seen.slack_fires += g.cfs_bandwidth.slack_started;
    }
    out.push_back(mirror_fields(kb.state()));
    EXPECT_TRUE(kb.take_warnings().empty()) << "operation " << op << " with " << cpus << " CPUs";
  }
  for (const TaskGroup& g : kb.state().rq(0).task_groups) seen.period_fires += g.cfs_bandwidth.nr_periods;
  return out;
}

TEST(KernelBandwidth, IncrementalMirrorIsTheFullOne) {
  if (!available() || !bandwidth()) GTEST_SKIP() << "no bandwidth control in this build's tree";
  for (unsigned cpus : {1u, 2u}) {
    if (!refusal(tree_profile(), cpus).empty()) continue;
    for (unsigned seed : {1u, 2u, 3u}) {
      Seen seen, ignored;
      const auto full = run_stream(false, cpus, seed, seen);
      const auto incremental = run_stream(true, cpus, seed, ignored);
      ASSERT_EQ(full.size(), incremental.size());
      for (std::size_t i = 0; i < full.size(); ++i)
        ASSERT_EQ(full[i], incremental[i]) << "the mirror differs after operation " << i << " with " << cpus
                                           << " CPUs, seed " << seed;
      // the stream reaches the throttle and the period timer
      EXPECT_GT(seen.throttles, 0) << cpus << " CPUs, seed " << seed;
      EXPECT_GT(seen.period_fires, 0) << cpus << " CPUs, seed " << seed;
      std::printf("%u CPUs, seed %u: %d throttled-queue observations, %d periods, %d slack-started observations\n",
                  cpus, seed, seen.throttles, seen.period_fires, seen.slack_fires);
    }
  }
}

// cgroup rmdir of a group with a quota: the tree's destroy_cfs_bandwidth()
// cancels both timers; the group leaves the walk of __cfs_schedulable()
TEST(KernelBandwidth, RemovedGroupStopsItsTimers) {
  if (!available() || !bandwidth()) GTEST_SKIP() << "no bandwidth control in this build's tree";
  Group s(1);
  const int other = s.kb.create_group("other", -1, 1024);
  ASSERT_EQ(s.kb.set_group_bandwidth(s.group, 10 * kMs, 100 * kMs, 0), Refusal::none);
  s.kb.run(5 * kMs);
  ASSERT_TRUE(s.bw().period_timer.queued);
  ASSERT_EQ(s.kb.exit_task(0), Refusal::none);
  ASSERT_EQ(s.kb.destroy_group(s.group), Refusal::none);
  EXPECT_FALSE(s.bw().period_timer.queued);
  EXPECT_FALSE(s.bw().slack_timer.queued);
  EXPECT_EQ(s.kb.set_group_bandwidth(s.group, 10 * kMs, 100 * kMs, 0), Refusal::no_such_group);
  s.kb.run(200 * kMs);
  EXPECT_EQ(s.bw().nr_periods, 0);
  // the key stays raised: the kernel lowers it only when a quota is removed (cpu.max "max")
  EXPECT_EQ(*s.kb.state().rq(0).bandwidth_users, 1);
  EXPECT_EQ(s.kb.set_group_bandwidth(other, 20 * kMs, 100 * kMs, 0), Refusal::none);
  EXPECT_EQ(*s.kb.state().rq(0).bandwidth_users, 2);
  EXPECT_TRUE(s.kb.take_warnings().empty());
}

// Lockstep (scenario/lockstep.cpp) compares the bandwidth state: equal while
// no quota is set, the static key's count first once the kernel has one.
TEST(KernelBandwidth, LockstepComparesTheBandwidthState) {
  if (!available() || !bandwidth()) GTEST_SKIP() << "no bandwidth control in this build's tree";
  System model(tree_profile(), 1);
  KernelBackend kb(tree_profile(), 1);
  const int g = model.create_group("g", -1, 1024);
  ASSERT_EQ(kb.create_group("g", -1, 1024), g);
  EXPECT_FALSE(scn::first_difference(model, kb.state()).has_value());
  ASSERT_EQ(kb.set_group_bandwidth(g, 10 * kMs, 100 * kMs, 0), Refusal::none);
  const auto d = scn::first_difference(model, kb.state());
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->field, "runqueue: cfs_bandwidth_used() count");
  EXPECT_EQ(d->model, "0");
  EXPECT_EQ(d->kernel, "1");
}

TEST(KernelBandwidth, RefusedOnATreeWithout) {
  if (!available()) GTEST_SKIP() << "no kernel backend in this build";
  if (bandwidth()) GTEST_SKIP() << "this build's tree has bandwidth control";
  KernelBackend kb(tree_profile());
  const int g = kb.create_group("g", -1, 1024);
  EXPECT_EQ(kb.set_group_bandwidth(g, 10 * kMs, 100 * kMs, 0), Refusal::no_bandwidth_model);
  EXPECT_FALSE(kb.state().rq(0).task_groups[static_cast<std::size_t>(g)].cfs_bandwidth.period_timer.queued);
  EXPECT_NE(bandwidth_refusal().find("CONFIG_CFS_BANDWIDTH"), std::string::npos);
  EXPECT_NE(bandwidth_refusal().find("Linux " + kernel_version()), std::string::npos) << bandwidth_refusal();
}

}  // namespace
}  // namespace eevdf::kernelsrc
