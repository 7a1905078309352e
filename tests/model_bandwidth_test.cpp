// CPU bandwidth control on the model (model/fair_bandwidth.cpp, the
// hierarchical throttle of v6.6 to 6.12.y and the task-based throttle of
// v6.18 to v7.1): the same stream as
// tests/kernel_bandwidth_test.cpp's first case, the cpu.max checks, the
// profiles that take a quota and those that refuse one, and the operation's
// text and byte forms.
#include <gtest/gtest.h>

#include <string>
#include <variant>
#include <vector>

#include "model/fair.hpp"
#include "model/system.hpp"
#include "scenario/bytes.hpp"
#include "scenario/executor.hpp"
#include "scenario/scenario_parse.hpp"
#include "scenario/scenario_print.hpp"

namespace eevdf {
namespace {

constexpr u64 kMs = 1'000'000;

// one group with one task in it, running
struct Group {
  explicit Group(const char* profile = "v6.12.118") : sys(*profile_by_name(profile), 1) {
    group = sys.create_group("g", -1, 1024);
    task = sys.rq(0).create_task("t", 0, Policy::normal, 0, group);
    EXPECT_EQ(sys.wake(task, false, 0), Refusal::none);
    sys.schedule();
  }
  const CfsRq& queue() const { return sys.rq(0).groups[static_cast<std::size_t>(group)].cfs_rq; }
  const SchedEntity& group_se() const { return sys.rq(0).groups[static_cast<std::size_t>(group)].se; }
  const CfsBandwidth& bw() const { return sys.task_groups[static_cast<std::size_t>(group)].cfs_bandwidth; }
  System sys;
  int group = -1, task = -1;
};

TEST(ModelBandwidth, ThrottledPastTheQuotaUnthrottledByThePeriodTimer) {
  Group s;
  ASSERT_EQ(s.sys.set_group_bandwidth(s.group, 10 * kMs, 100 * kMs, 0), Refusal::none);
  EXPECT_EQ(*s.sys.rq(0).bandwidth_users, 1);
  EXPECT_EQ(s.bw().runtime, 10 * kMs);  // the first refill
  EXPECT_TRUE(s.bw().period_timer.queued);
  EXPECT_EQ(s.bw().period_timer.expires, 100 * kMs);  // the random phase taken as 0
  EXPECT_TRUE(s.queue().runtime_enabled);

  s.sys.run(20 * kMs);
  EXPECT_TRUE(s.queue().throttled);
  EXPECT_EQ(s.queue().throttle_count, 1);
  EXPECT_LE(s.queue().runtime_remaining, 0);
  EXPECT_FALSE(s.group_se().on_rq);
  EXPECT_EQ(s.sys.rq(0).curr, -1);
  EXPECT_EQ(s.bw().throttled_cfs_rq, std::vector<int>{0});
  // the task ran its 10 ms (5 ms slices from the pool), then the tick that found none left
  EXPECT_EQ(s.sys.rq(0).tasks[static_cast<std::size_t>(s.task)].se.sum_exec_runtime, 10 * kMs);
  const u64 throttled_at = s.queue().throttled_clock;
  EXPECT_EQ(throttled_at, 10 * kMs);

  s.sys.run(80 * kMs);  // to 100 ms
  EXPECT_FALSE(s.queue().throttled);
  EXPECT_EQ(s.queue().throttle_count, 0);
  EXPECT_GT(s.queue().runtime_remaining, 0);
  EXPECT_TRUE(s.group_se().on_rq);
  EXPECT_EQ(s.bw().nr_periods, 1);
  EXPECT_EQ(s.bw().nr_throttled, 1);
  EXPECT_EQ(s.bw().throttled_time, 100 * kMs - throttled_at);
  EXPECT_EQ(s.bw().period_timer.expires, 200 * kMs);
  EXPECT_TRUE(s.sys.rq(0).need_resched);
  s.sys.run(5 * kMs);
  EXPECT_EQ(s.sys.rq(0).curr, s.task);
}

TEST(ModelBandwidth, RemovingTheQuotaUnthrottlesAndTheTimerStops) {
  Group s;
  ASSERT_EQ(s.sys.set_group_bandwidth(s.group, 5 * kMs, 100 * kMs, 0), Refusal::none);
  s.sys.run(20 * kMs);
  ASSERT_TRUE(s.queue().throttled);
  ASSERT_EQ(s.sys.set_group_bandwidth(s.group, kRuntimeInf, 100 * kMs, 0), Refusal::none);
  EXPECT_FALSE(s.queue().throttled);
  EXPECT_FALSE(s.queue().runtime_enabled);
  EXPECT_EQ(*s.sys.rq(0).bandwidth_users, 0);
  s.sys.run(100 * kMs);  // the timer fires once more, finds no quota and stops
  EXPECT_FALSE(s.bw().period_active);
  EXPECT_FALSE(s.bw().period_timer.queued);
}

TEST(ModelBandwidth, TheKernelsChecks) {
  Group s;
  struct Case {
    u64 quota, period, burst;
  };
  for (const Case& c : {Case{kMs - 1, 100 * kMs, 0}, Case{10 * kMs, kMs - 1, 0}, Case{10 * kMs, 1001 * kMs, 0},
                        Case{10 * kMs, 100 * kMs, 11 * kMs}})
    EXPECT_EQ(s.sys.set_group_bandwidth(s.group, c.quota, c.period, c.burst), Refusal::bad_argument)
        << c.quota << "/" << c.period << " burst " << c.burst;
  EXPECT_EQ(*s.sys.rq(0).bandwidth_users, 0) << "a refused write changes nothing";
  EXPECT_EQ(s.sys.set_group_bandwidth(7, 10 * kMs, 100 * kMs, 0), Refusal::no_such_group);
  // cgroup v2: a child's hierarchical quota is the smaller of its own and its parent's
  const int child = s.sys.create_group("c", s.group, 1024);
  ASSERT_EQ(s.sys.set_group_bandwidth(s.group, kMs, 1000 * kMs, 0), Refusal::none);
  ASSERT_EQ(s.sys.set_group_bandwidth(child, 500 * kMs, 1000 * kMs, 0), Refusal::none);
  EXPECT_EQ(s.sys.task_groups[static_cast<std::size_t>(child)].cfs_bandwidth.hierarchical_quota,
            s.bw().hierarchical_quota);
}

TEST(ModelBandwidth, OtherProfilesRefuseAQuota) {
  for (const char* p : {"mainline", "v7.3", "v7.2"}) {
    Group s(p);
    EXPECT_EQ(s.sys.set_group_bandwidth(s.group, 10 * kMs, 100 * kMs, 0), Refusal::no_bandwidth_model) << p;
  }
}

// v6.6 to 6.12.y throttle the same way: the queue is throttled once its 10 ms
// are spent and put back by the period timer at 100 ms.
TEST(ModelBandwidth, EveryHierarchicalProfileThrottlesAndUnthrottles) {
  for (const char* p : {"v6.6", "v6.6.9", "v6.12", "v6.12.10", "v6.12.118"}) {
    Group s(p);
    ASSERT_EQ(s.sys.set_group_bandwidth(s.group, 10 * kMs, 100 * kMs, 0), Refusal::none) << p;
    s.sys.run(20 * kMs);
    EXPECT_TRUE(s.queue().throttled) << p;
    EXPECT_FALSE(s.group_se().on_rq) << p;
    EXPECT_EQ(s.sys.rq(0).tasks[static_cast<std::size_t>(s.task)].se.sum_exec_runtime, 10 * kMs) << p;
    s.sys.run(80 * kMs);
    EXPECT_FALSE(s.queue().throttled) << p;
    EXPECT_TRUE(s.group_se().on_rq) << p;
  }
}

// v6.6's pick_next_task_fair() checks a level's runtime only where the level
// has a current entity; v6.12's pick_task_fair() checks every level. A cpu.max
// write leaves the group's queue at 0 ns; the root task sleeps and the pick
// goes down into the group, whose queue has no current entity: v6.12 takes
// 1 ns from the pool there (throttle_cfs_rq() finds runtime and does not
// throttle), v6.6 does not look (Behaviour::pick_next_v6_6).
TEST(ModelBandwidth, V66ChecksTheRuntimeOnlyOnALevelWithACurrentEntity) {
  for (const char* p : {"v6.6", "v6.12"}) {
    Group s(p);  // t runs in g
    const int root_task = s.sys.rq(0).create_task("r", 0, Policy::normal, 0, -1);
    ASSERT_EQ(s.sys.wake(root_task, false, 0), Refusal::none);
    for (int i = 0; i < 100 && s.sys.rq(0).curr != root_task; ++i) s.sys.tick();
    ASSERT_EQ(s.sys.rq(0).curr, root_task) << p;
    ASSERT_EQ(s.queue().curr, nullptr) << p;
    ASSERT_EQ(s.sys.set_group_bandwidth(s.group, 10 * kMs, 100 * kMs, 0), Refusal::none) << p;
    ASSERT_EQ(s.queue().runtime_remaining, 0) << p;
    ASSERT_EQ(s.sys.rq(0).sleep(root_task), Refusal::none) << p;
    EXPECT_EQ(s.sys.rq(0).curr, s.task) << p;
    EXPECT_FALSE(s.queue().throttled) << p;
    EXPECT_EQ(s.queue().runtime_remaining, std::string(p) == "v6.6" ? 0 : 1) << p;
    EXPECT_EQ(s.bw().runtime, std::string(p) == "v6.6" ? 10 * kMs : 10 * kMs - 1) << p;
  }
}

// cpu_max_write(): a cpu.max write without a burst passes the group's on;
// before 49217ea147df (v6.6) it passes tg_get_cfs_burst()'s microseconds as
// nanoseconds, so the 5 ms burst becomes 5 us (found in lockstep with 6.6.0).
TEST(ModelBandwidth, CpuMaxWriteWithoutABurstPassesTheGroupsOn) {
  for (const char* p : {"v6.6", "v6.6.9", "v6.12", "v6.12.118"}) {
    Group s(p);
    ASSERT_EQ(s.sys.set_group_bandwidth(s.group, 5 * kMs, 10 * kMs, 5 * kMs), Refusal::none) << p;
    const bool in_us = std::string(p).rfind("v6.6", 0) == 0;
    EXPECT_EQ(s.sys.rq(0).cpu_max_burst(s.group), in_us ? 5 * kMs / 1000 : 5 * kMs) << p;
  }
}

TEST(ModelBandwidth, TheOperationsTextAndBytes) {
  const auto parsed = scn::parse_scenario(
      "profile v6.12.118\ngroup G\nquota G 20ms/100ms burst=5ms\nquota G max\nquota G 2500us/5ms\n");
  ASSERT_TRUE(std::holds_alternative<scn::Scenario>(parsed)) << scn::format_parse_error(std::get<scn::ParseError>(parsed));
  const scn::Scenario& s = std::get<scn::Scenario>(parsed);
  ASSERT_EQ(s.ops.size(), 4u);
  EXPECT_EQ(s.ops[1].value, 20 * static_cast<s64>(kMs));
  EXPECT_EQ(s.ops[1].period, 100 * static_cast<s64>(kMs));
  EXPECT_EQ(s.ops[1].burst, 5 * static_cast<s64>(kMs));
  EXPECT_TRUE(s.ops[2].quota_max());
  EXPECT_EQ(s.ops[3].burst, -1);
  EXPECT_NE(scn::print_scenario(s).find("quota G 20ms/100ms burst=5ms\nquota G max\nquota G 2500us/5ms\n"),
            std::string::npos);
  for (const char* bad : {"quota G 20ms\n", "quota G 1500ns/5ms\n", "quota G 20ms/100ms burst=1ns\n", "quota H max\n"})
    EXPECT_TRUE(std::holds_alternative<scn::ParseError>(scn::parse_scenario(std::string("group G\n") + bad))) << bad;
  // the byte format: version 9's opcode 22 is quota, and back
  const std::vector<std::uint8_t> bytes = {scn::kBytesFormatVersion9, 0, 12, 0, 0, 22, 0, 6, 4, 2};
  const scn::Scenario d = scn::decode_bytes(bytes);
  ASSERT_EQ(d.ops.size(), 2u);
  EXPECT_EQ(d.ops[1].kind, scn::OpKind::quota);
  EXPECT_EQ(d.ops[1].value, 20 * static_cast<s64>(kMs));
  EXPECT_EQ(d.ops[1].period, 100 * static_cast<s64>(kMs));
  EXPECT_EQ(d.ops[1].burst, 1 * static_cast<s64>(kMs));
  const auto again = scn::encode_bytes(d);
  ASSERT_TRUE(again);
  EXPECT_TRUE(scn::same_scenario(scn::decode_bytes(*again), d));
}

// v6.18 (and 7.0, 7.1) throttle tasks: the queue is throttled once its 10 ms
// (and the 1 ns the cpu.max write gives) are spent, but its group entity stays queued and the task is picked again,
// with the throttle work; the time step returns it to user space, where the
// work moves it to the queue's limbo list. The period timer's unthrottle
// enqueues it again.
TEST(ModelBandwidth, TaskBasedThrottleMovesTheTaskToLimboAndBack) {
  for (const char* p : {"v6.18", "v7.0", "v7.1"}) {
    Group s(p);
    const Task& t = s.sys.rq(0).tasks[static_cast<std::size_t>(s.task)];
    ASSERT_EQ(s.sys.set_group_bandwidth(s.group, 10 * kMs, 100 * kMs, 0), Refusal::none) << p;
    EXPECT_EQ(s.queue().runtime_remaining, 1) << p;  // v6.18's tg_set_cfs_bandwidth()
    s.sys.run(20 * kMs);
    EXPECT_TRUE(s.queue().throttled) << p;
    EXPECT_EQ(s.queue().throttle_count, 1) << p;
    EXPECT_EQ(s.queue().throttled_limbo_list, std::vector<int>{s.task}) << p;
    EXPECT_TRUE(t.throttled) << p;
    EXPECT_FALSE(t.throttle_work) << p;
    EXPECT_FALSE(t.se.on_rq) << p;
    EXPECT_TRUE(t.on_rq) << p;  // still TASK_ON_RQ_QUEUED
    EXPECT_FALSE(s.group_se().on_rq) << p;  // its queue emptied
    EXPECT_EQ(s.sys.rq(0).curr, -1) << p;
    // 11 ms: the queue's free 1 ns outlasts the tick at 10 ms, which finds 1 ns left
    EXPECT_EQ(t.se.sum_exec_runtime, 11 * kMs) << p;
    EXPECT_EQ(s.queue().throttled_clock, 11 * kMs) << p;  // record_throttle_clock() at the dequeue
    EXPECT_TRUE(s.queue().pelt_clock_throttled) << p;

    s.sys.run(80 * kMs);  // to 100 ms: the period timer unthrottles
    EXPECT_FALSE(s.queue().throttled) << p;
    EXPECT_TRUE(s.queue().throttled_limbo_list.empty()) << p;
    EXPECT_FALSE(t.throttled) << p;
    EXPECT_TRUE(t.se.on_rq) << p;
    EXPECT_TRUE(s.group_se().on_rq) << p;
    EXPECT_FALSE(s.queue().pelt_clock_throttled) << p;
    EXPECT_EQ(s.bw().throttled_time, 89 * kMs) << p;
    EXPECT_TRUE(s.sys.rq(0).need_resched) << p;
    s.sys.run(5 * kMs);
    EXPECT_EQ(s.sys.rq(0).curr, s.task) << p;
  }
}

// The throttle work runs where the task returns to user space: with the
// tick's reschedule not honoured (tick nopreempt) and a schedule() at an
// operation boundary, the task is picked below the throttled queue with its
// work pending, runs, and goes to limbo at return_to_user. A renice leaves a
// limbo task in limbo (enqueue_throttled_task()); a move to a group that is
// not throttled enqueues it for real.
TEST(ModelBandwidth, ReturnToUserRunsTheThrottleWork) {
  Group s("v6.18");
  Rq& rq = s.sys.rq(0);
  const Task& t = rq.tasks[static_cast<std::size_t>(s.task)];
  ASSERT_EQ(s.sys.set_group_bandwidth(s.group, 10 * kMs, 100 * kMs, 0), Refusal::none);
  s.sys.run(10 * kMs);
  s.sys.tick_nopreempt();  // 11 ms: the runtime is spent, a reschedule is asked for
  ASSERT_TRUE(rq.need_resched);
  EXPECT_FALSE(s.queue().throttled);
  s.sys.schedule();  // put_prev_entity() throttles, pick_task_fair() picks t all the same
  EXPECT_TRUE(s.queue().throttled);
  EXPECT_EQ(rq.curr, s.task);
  EXPECT_TRUE(t.throttle_work);
  EXPECT_TRUE(t.se.on_rq);
  EXPECT_TRUE(s.group_se().on_rq);
  EXPECT_TRUE(s.queue().throttled_limbo_list.empty());

  const int r = rq.create_task("r", 0, Policy::normal, 0, -1);
  ASSERT_EQ(rq.return_to_user(r), Refusal::task_not_running_on_cpu);  // only the running task returns
  EXPECT_EQ(rq.return_to_user(s.task), Refusal::none);
  EXPECT_FALSE(t.throttle_work);
  EXPECT_TRUE(t.throttled);
  EXPECT_FALSE(t.se.on_rq);
  EXPECT_EQ(s.queue().throttled_limbo_list, std::vector<int>{s.task});
  EXPECT_EQ(rq.curr, -1);
  EXPECT_EQ(rq.return_to_user(s.task), Refusal::task_not_running_on_cpu);

  ASSERT_EQ(rq.set_nice(s.task, 5), Refusal::none);  // dequeue_throttled_task(), enqueue_throttled_task()
  EXPECT_TRUE(t.throttled);
  EXPECT_FALSE(t.se.on_rq);
  EXPECT_EQ(s.queue().throttled_limbo_list, std::vector<int>{s.task});

  ASSERT_EQ(s.sys.move_task(s.task, -1), Refusal::none);  // to the root group: enqueued for real
  EXPECT_FALSE(t.throttled);
  EXPECT_TRUE(t.se.on_rq);
  EXPECT_TRUE(s.queue().throttled_limbo_list.empty());
  EXPECT_TRUE(s.queue().throttled);  // the queue stays throttled, empty
}

TEST(ModelBandwidth, ReturnToUserTextAndBytes) {
  const auto parsed = scn::parse_scenario("profile v6.18\ntask t\nreturn_to_user t\n");
  ASSERT_TRUE(std::holds_alternative<scn::Scenario>(parsed)) << scn::format_parse_error(std::get<scn::ParseError>(parsed));
  const scn::Scenario& s = std::get<scn::Scenario>(parsed);
  ASSERT_EQ(s.ops.size(), 2u);
  EXPECT_EQ(s.ops[1].kind, scn::OpKind::return_to_user);
  EXPECT_NE(scn::print_scenario(s).find("return_to_user t\n"), std::string::npos);
  EXPECT_TRUE(std::holds_alternative<scn::ParseError>(scn::parse_scenario("return_to_user\n")));
  // the byte format: version 11's opcode 23 is return_to_user, and back
  const std::vector<std::uint8_t> bytes = {scn::kBytesFormatVersion11, 0, 0, 0, 0, 0, 23, 0};
  const scn::Scenario d = scn::decode_bytes(bytes);
  ASSERT_EQ(d.ops.size(), 2u);
  EXPECT_EQ(d.ops[1].kind, scn::OpKind::return_to_user);
  EXPECT_EQ(d.ops[1].task, "T0");
  const auto again = scn::encode_bytes(d);
  ASSERT_TRUE(again);
  EXPECT_EQ((*again)[0], scn::kBytesFormatVersion11);
  EXPECT_TRUE(scn::same_scenario(scn::decode_bytes(*again), d));
  // version 9 reads opcode 23 as 23 % 23 = create
  const std::vector<std::uint8_t> v9 = {scn::kBytesFormatVersion9, 0, 0, 0, 0, 0, 23, 0};
  EXPECT_EQ(scn::decode_bytes(v9).ops[1].kind, scn::OpKind::create);
}

}  // namespace
}  // namespace eevdf
