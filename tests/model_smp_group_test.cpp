// Task groups on several CPUs (model/system.hpp, model/group.cpp): one entity
// and one queue per group per CPU, the shares split by the group's load on
// every CPU (calc_group_shares() with tg->load_avg summed over CPUs), a grouped
// task's migration between two CPUs' hierarchies, cpu.idle on every CPU, the
// checker on every CPU's group queues, v7.3's tg_tasks() summed over CPUs,
// byte format 4, and one busy CPU of two computing what a lone CPU computes.
//
// Hand-computed values: a nice-0 task weighs scale_load(1024) = 1048576 and
// adds scale_load_down() = 1024 to its group queue's load; a group of cpu.shares
// 1024 has tg->shares = 1048576; a group entity's weight is
// tg->shares · load / (the group's load on the other CPUs + load).
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "scenario/bytes.hpp"
#include "scenario/executor.hpp"
#include "support/run_scenario.hpp"
#include "scenario/scenario_parse.hpp"
#include "invariants/checker.hpp"
#include "model/fair.hpp"
#include "model/system.hpp"

namespace eevdf {
namespace {

scn::ExecResult run_text(const std::string& text, bool trace = false) {
  return test::run_scenario_text(text, "t.scn", trace);
}

using test::expect_ok;

// A System with one checker per CPU, as the executor has them.
struct Machine {
  explicit Machine(unsigned cpus, const char* profile = "mainline") : sys(*profile_by_name(profile), cpus) {
    for (unsigned c = 0; c < cpus; ++c) {
      checkers.push_back(std::make_unique<inv::Checker>(inv::Selection{}, inv::Tolerances{}));
      checkers.back()->attach(sys.rq(c));
    }
  }
  template <class F>
  void step(inv::OpClass cls, F f) {
    for (auto& c : checkers) c->begin_op(op++, cls);
    f();
    inv::share_max_slice(sys, checkers);
    for (auto& c : checkers) c->end_op();
    inv::share_end_records(sys, checkers);
  }
  void expect_clean() const {
    for (const auto& c : checkers)
      for (const auto& v : c->violations()) ADD_FAILURE() << inv::id_name(v.id) << " " << v.where << ": " << v.what;
  }
  int task(const char* name, int group) { return sys.rq(0).create_task(name, 0, Policy::normal, 0, group); }
  const TaskGroupCpu& group_on(unsigned cpu, int g) const { return sys.rq(cpu).groups[static_cast<std::size_t>(g)]; }

  System sys;
  std::vector<std::unique_ptr<inv::Checker>> checkers;
  int op = 0;
};

// Every CPU has the group's entity and queue; the configuration is shared.
TEST(SmpGroup, GroupExistsOnEveryCpu) {
  Machine m(3);
  const int parent = m.sys.create_group("p", -1, 2048);
  const int child = m.sys.create_group("c", parent, 512);
  ASSERT_EQ(child, 1);
  ASSERT_EQ(m.sys.task_groups.size(), 2u);
  EXPECT_EQ(m.sys.task_groups[1].shares, scale_load(512));
  ASSERT_EQ(m.sys.task_groups[1].se.size(), 3u);
  for (unsigned c = 0; c < 3; ++c) {
    const TaskGroupCpu& gc = m.group_on(c, child);
    EXPECT_EQ(m.sys.task_groups[1].se[c], &gc.se);
    EXPECT_EQ(m.sys.task_groups[1].cfs_rq[c], &gc.cfs_rq);
    EXPECT_EQ(gc.cfs_rq.rq, &m.sys.rq(c));
    EXPECT_EQ(gc.se.parent, &m.group_on(c, parent).se);  // the parent's entity of the same CPU
    EXPECT_EQ(gc.se.cfs_rq, &m.group_on(c, parent).cfs_rq);
    EXPECT_EQ(gc.se.depth, 1);
  }
  EXPECT_EQ(m.sys.rq(2).find_group("c"), child);
}

// tg->load_avg is the sum over CPUs of each queue's last contribution
// (update_tg_load_avg(): at most once a millisecond): A alone on CPU 0 and B,
// C on CPU 1 split cpu.shares 1024 as 1024 : 2048 once both contributions are
// current. A new task's load average starts at its weight (1024).
//   wake A (CPU 0): tg->load_avg 1024; 1048576 · 1024 / 1024  -> 1048576
//   wake B (CPU 1): tg->load_avg 2048; 1048576 · 1024 / 2048  ->  524288
//   wake C (CPU 1): CPU 1's contribution waits (same millisecond), 1024:
//                   tg_weight 2048 - 1024 + 2048; 1048576 · 2048 / 3072 -> 699050
//   tick (1 ms, CPU 0's entity_tick): CPU 1 still contributes 1024;
//                   1048576 · 1024 / 2048 -> 524288
//   20 ms later CPU 1 contributes 2048: 1048576 · 1024 / 3072  ->  349525
TEST(SmpGroup, SharesSplitByEachCpusLoad) {
  expect_ok(run_text(
      "runqueues 2\n"
      "group g\n"
      "task A group=g\ntask B group=g\ntask C group=g\n"
      "wake A\n"
      "expect field g.weight == 1048576 cpu=0\n"
      "expect field g.weight == 1048576 cpu=1\n"  // empty: keeps NICE_0_LOAD
      "expect field g.on_rq == 0 cpu=1\n"
      "wake B cpu=1\n"
      "expect field g.weight == 524288 cpu=1\n"
      "wake C cpu=1\n"
      "expect field g.weight == 699050 cpu=1\n"
      "expect field g.weight == 1048576 cpu=0\n"  // not updated before its CPU's next update_cfs_group()
      "tick\n"
      "expect field g.weight == 524288 cpu=0\n"
      "expect field g.weight == 699050 cpu=1\n"
      "run 20ms\n"
      "expect field g.weight == 349525 cpu=0\n"
      "expect field g.weight == 699050 cpu=1\n"
      "expect no-violation\n"));
}

// calc_group_shares() by its formula: tg->shares · load / tg_weight, load =
// max(scale_load_down(weight), avg.load_avg), tg_weight = tg->load_avg -
// tg_load_avg_contrib + load, clamped to [MIN_SHARES, tg->shares].
TEST(SmpGroup, CalcGroupSharesFollowsTheLoadAverages) {
  Machine m(2);
  const int g = m.sys.create_group("g", -1, 1024);
  const int a = m.task("A", g);
  const int b = m.task("B", g);
  const int c = m.task("C", g);
  m.step(inv::OpClass::placement, [&] { m.sys.wake(a, false, 0); });
  m.step(inv::OpClass::placement, [&] { m.sys.wake(b, false, 1); });
  m.step(inv::OpClass::placement, [&] { m.sys.wake(c, false, 1); });
  TaskGroup& tg = m.sys.task_groups[0];
  CfsRq& q0 = m.sys.rq(0).groups[static_cast<std::size_t>(g)].cfs_rq;
  CfsRq& q1 = m.sys.rq(1).groups[static_cast<std::size_t>(g)].cfs_rq;
  ASSERT_EQ(scale_load_down(q0.load.weight), 1024u);
  ASSERT_EQ(scale_load_down(q1.load.weight), 2048u);
  tg.load_avg = 3072;
  q0.tg_load_avg_contrib = 1024;
  q0.avg.load_avg = 512;  // below the weight: load 1024
  EXPECT_EQ(calc_group_shares(m.sys.rq(0), q0), 349525u);  // 1048576 · 1024 / 3072
  q1.tg_load_avg_contrib = 2048;
  q1.avg.load_avg = 2100;  // above: load 2100, tg_weight 3072 - 2048 + 2100
  EXPECT_EQ(calc_group_shares(m.sys.rq(1), q1), 704868u);  // 1048576 · 2100 / 3124
  tg.load_avg = 1u << 30;  // a huge group elsewhere: the floor
  EXPECT_EQ(calc_group_shares(m.sys.rq(0), q0), kMinShares);
}

// A grouped task migrated by the load balancer leaves its group's entity on
// the source CPU dequeued (its queue emptied) and enqueues the group's entity
// of the destination CPU, with every hierarchical counter following.
TEST(SmpGroup, MigrationMovesTheTaskBetweenTheGroupsHierarchies) {
  Machine m(2);
  const int g = m.sys.create_group("g", -1, 1024);
  const int x = m.task("X", -1);
  const int a = m.task("A", g);
  const int y = m.task("Y", g);
  m.step(inv::OpClass::placement, [&] { m.sys.wake(x, false, 0); });
  m.step(inv::OpClass::running, [&] { m.sys.run(1'000'000); });  // X runs on CPU 0
  m.step(inv::OpClass::placement, [&] { m.sys.wake(a, false, -1); });
  m.step(inv::OpClass::placement, [&] { m.sys.wake(y, false, 1); });
  ASSERT_EQ(m.sys.rq(0).curr, x);
  const TaskGroupCpu& src = m.group_on(0, g);
  const TaskGroupCpu& dst = m.group_on(1, g);
  ASSERT_TRUE(src.se.on_rq);
  EXPECT_EQ(m.sys.rq(0).cfs.h_nr_queued, 2u);
  EXPECT_EQ(m.sys.rq(1).cfs.h_nr_queued, 1u);
  EXPECT_EQ(dst.cfs_rq.h_nr_queued, 1u);

  m.step(inv::OpClass::placement, [&] { EXPECT_EQ(m.sys.migrate(a, 1), Refusal::none); });
  const Task& ta = m.sys.tasks[static_cast<std::size_t>(a)];
  EXPECT_EQ(ta.cpu, 1);
  EXPECT_EQ(ta.se.cfs_rq, &dst.cfs_rq);
  EXPECT_EQ(ta.se.parent, &dst.se);
  EXPECT_TRUE(ta.se.on_rq);
  // source: the group's queue is empty and its entity dequeued (not delayed)
  EXPECT_FALSE(src.se.on_rq);
  EXPECT_FALSE(src.se.sched_delayed);
  EXPECT_EQ(src.cfs_rq.h_nr_queued, 0u);
  EXPECT_EQ(src.cfs_rq.load.weight, 0u);
  EXPECT_EQ(m.sys.rq(0).cfs.nr_queued, 1u);  // X
  EXPECT_EQ(m.sys.rq(0).cfs.h_nr_queued, 1u);
  EXPECT_EQ(m.sys.rq(0).nr_running, 1u);
  // destination: A and Y below the same entity, counted on both levels
  EXPECT_TRUE(dst.se.on_rq);
  EXPECT_EQ(dst.cfs_rq.nr_queued, 2u);
  EXPECT_EQ(dst.cfs_rq.h_nr_queued, 2u);
  EXPECT_EQ(dst.cfs_rq.h_nr_runnable, 2u);
  EXPECT_EQ(m.sys.rq(1).cfs.nr_queued, 1u);
  EXPECT_EQ(m.sys.rq(1).cfs.h_nr_queued, 2u);
  EXPECT_EQ(m.sys.rq(1).nr_running, 2u);
  // A's load average left CPU 0's group queue (DO_DETACH) and joined CPU 1's
  EXPECT_EQ(ta.se.avg.last_update_time, dst.cfs_rq.avg.last_update_time);
  EXPECT_LT(src.cfs_rq.avg.load_avg, 1024u);
  // but tg->load_avg still holds CPU 0's contribution of A (the
  // millisecond of update_tg_load_avg() has not passed): tg_weight
  // 2048 - 1024 + 2048, 1048576 · 2048 / 3072
  EXPECT_EQ(src.cfs_rq.tg_load_avg_contrib, 1024u);
  EXPECT_EQ(dst.se.load.weight, 699050u);
  m.step(inv::OpClass::running, [&] { m.sys.run(10'000'000); });
  m.expect_clean();
}

// A sleeping grouped task woken on another CPU (select_task_rq()) is enqueued
// below that CPU's group entity.
TEST(SmpGroup, WakeOnAnotherCpuUsesThatCpusGroupEntity) {
  expect_ok(run_text(
      "runqueues 2\n"
      "group g\n"
      "task A group=g\n"
      "wake A\nrun 2ms\nsleep A\n"
      "expect field g.on_rq == 0 cpu=0\n"
      "wake A cpu=1\n"
      "expect field A.cpu == 1\n"
      "expect field g.on_rq == 0 cpu=0\n"
      "expect field g.on_rq == 1 cpu=1\n"
      "run 2ms\n"
      "expect curr A cpu=1\n"
      "expect curr idle cpu=0\n"
      "expect no-violation\n"));
}

// cpu.idle flips the idle flag of the group's queue on every CPU and moves the
// group's tasks into h_nr_idle on each CPU's root queue.
TEST(SmpGroup, IdleAppliesOnEveryCpu) {
  Machine m(2);
  const int g = m.sys.create_group("g", -1, 1024);
  const int a = m.task("A", g);
  const int b = m.task("B", g);
  m.step(inv::OpClass::placement, [&] { m.sys.wake(a, false, 0); });
  m.step(inv::OpClass::placement, [&] { m.sys.wake(b, false, 1); });
  m.step(inv::OpClass::placement, [&] { EXPECT_EQ(m.sys.set_group_idle(g, true), Refusal::none); });
  for (unsigned c = 0; c < 2; ++c) {
    EXPECT_EQ(m.group_on(c, g).cfs_rq.idle, 1) << "CPU " << c;
    EXPECT_EQ(m.sys.rq(c).cfs.h_nr_idle, 1u) << "CPU " << c;
    EXPECT_EQ(m.group_on(c, g).se.load.weight, scale_load(kWeightIdleprio) / 2) << "CPU " << c;
  }
  EXPECT_EQ(m.sys.set_group_shares(g, 2048), Refusal::group_is_idle);
  m.step(inv::OpClass::placement, [&] { EXPECT_EQ(m.sys.set_group_idle(g, false), Refusal::none); });
  for (unsigned c = 0; c < 2; ++c) {
    EXPECT_EQ(m.sys.rq(c).cfs.h_nr_idle, 0u) << "CPU " << c;
    EXPECT_EQ(m.group_on(c, g).se.load.weight, kNice0Load / 2) << "CPU " << c;
  }
  m.expect_clean();
}

// The checker looks at every CPU's group queues: a broken counter on CPU 1's
// queue of group g is reported as I-CNT with the CPU in the message.
TEST(SmpGroup, CheckerSeesEveryCpusGroupQueues) {
  Machine m(2);
  const int g = m.sys.create_group("g", -1, 1024);
  const int a = m.task("A", g);
  m.step(inv::OpClass::placement, [&] { m.sys.wake(a, false, 1); });
  m.expect_clean();
  m.step(inv::OpClass::placement, [&] {
    auto& broken = const_cast<TaskGroupCpu&>(m.group_on(1, g));
    broken.cfs_rq.h_nr_queued += 1;  // what a lost dequeue would leave behind
  });
  ASSERT_TRUE(m.checkers[1]->violated());
  EXPECT_FALSE(m.checkers[0]->violated());
  const auto& v = m.checkers[1]->violations().front();
  EXPECT_EQ(inv::id_name(v.id), "I-CNT");
  EXPECT_NE(v.what.find("group g on CPU 1: h_nr_queued = 2"), std::string::npos) << v.what;
}

// A task of CPU 1 must hang below CPU 1's queues: what a set_task_cpu()
// without set_task_rq() would leave is reported by CPU 1's checker.
TEST(SmpGroup, CheckerSeesATaskOnAnotherCpusQueue) {
  Machine m(2);
  const int g = m.sys.create_group("g", -1, 1024);
  const int a = m.task("A", g);  // created on CPU 0, below CPU 0's queue of g
  m.step(inv::OpClass::placement, [] {});
  m.expect_clean();
  m.step(inv::OpClass::placement, [&] { m.sys.tasks[static_cast<std::size_t>(a)].cpu = 1; });
  ASSERT_TRUE(m.checkers[1]->violated());
  const auto& v = m.checkers[1]->violations().front();
  EXPECT_EQ(inv::id_name(v.id), "I-CNT");
  EXPECT_EQ(v.what, "A belongs to CPU 1 but its queue is CPU 0's");
}

// One busy CPU of two computes exactly what a lone CPU computes: the other
// CPU's group queues are empty, so tg->load_avg is this CPU's load.
TEST(SmpGroup, OneBusyCpuOfTwoMatchesOneCpu) {
  const std::string ops =
      "group g shares=512\n"
      "group h parent=g shares=3000\n"
      "task A group=g\ntask B group=h nice=5\ntask C\ntask D group=h slice=300us\n"
      "wake A\nwake B\nwake C\nwake D\n"
      "run 7ms\n"
      "shares g 100\n"
      "run 3ms\nslice A 1ms\nrun 1ms\n"
      "group_idle h 1\nrun 2ms\n"
      "move C h\nnice B -3\nrun 5ms\nmove A root\nrun 4ms\n";
  const auto one = run_text(ops, true);
  const auto two = run_text("runqueues 2\n" + ops, true);
  expect_ok(one);
  expect_ok(two);
  ASSERT_EQ(one.trace.size(), two.trace.size());
  for (std::size_t i = 0; i < one.trace.size(); ++i) {
    const auto& x = one.trace[i];
    const auto& y = two.trace[i];
    EXPECT_EQ(x.avg_vruntime, y.avg_vruntime) << "step " << i;
    EXPECT_EQ(x.sum_weight, y.sum_weight) << "step " << i;
    EXPECT_EQ(x.curr + "|idle", y.curr) << "step " << i;
    ASSERT_EQ(x.tasks.size(), y.tasks.size());
    for (std::size_t t = 0; t < x.tasks.size(); ++t) {
      EXPECT_EQ(x.tasks[t].vruntime, y.tasks[t].vruntime) << "step " << i << " task " << t;
      EXPECT_EQ(x.tasks[t].deadline, y.tasks[t].deadline) << "step " << i << " task " << t;
      EXPECT_EQ(x.tasks[t].weight, y.tasks[t].weight) << "step " << i << " task " << t;
      EXPECT_EQ(x.tasks[t].vlag, y.tasks[t].vlag) << "step " << i << " task " << t;
    }
  }
}

// v7.3 single runqueue: tg_tasks() reads tg->runnable_avg summed over CPUs.
// concur (default): one runnable task on each of two CPUs gives tg_tasks = 2,
// nr = min(2, 8 CPUs) = 2, and each CPU's entity 2S · 1024 / 2048 = S; the same
// two tasks on one CPU give 2S. smp: S · 1024 / 2048 = S/2 on each CPU.
TEST(SmpGroup, FlatRunqueueCountsTasksOnEveryCpu) {
  // concur: tg->load_avg holds both CPUs' load (2048), tg->runnable_avg the
  // two new tasks' initial 512 each (tg_tasks 1): S * 1 * 1024 / 2048 = S/2 on
  // CPU 1 at its wake-up, on CPU 0 from its next tick (A's wake-up saw CPU 0 alone)
  expect_ok(run_text(
      "profile v7.3\nrunqueues 2\n"
      "group g\ntask A group=g\ntask B group=g\n"
      "wake A\nwake B cpu=1\n"
      "expect field g.weight == 1048576 cpu=0\n"
      "expect field g.weight == 524288 cpu=1\n"
      "tick\n"
      "expect field g.weight == 524288 cpu=0\n"
      "expect no-violation\n"));
  expect_ok(run_text(
      "profile v7.3\n"
      "group g\ntask A group=g\ntask B group=g\n"
      "wake A\nwake B\n"
      // one CPU: tg_tasks reads the runnable average, 512 at A's wake-up (B's is rate-limited)
      "expect field g.weight == 1048576\n"
      // and below 2048 while it approaches it: two busy tasks count as one
      "run 500ms\n"
      "expect field g.weight == 1048576\n"
      "expect no-violation\n"));
  expect_ok(run_text(
      "profile v7.3\nfeatures cgroup_mode=smp\nrunqueues 2\n"
      "group g\ntask A group=g\ntask B group=g\n"
      "wake A\nwake B cpu=1\n"
      "expect field g.weight == 524288 cpu=1\n"
      "tick\n"
      "expect field g.weight == 524288 cpu=0\n"
      "expect no-violation\n"));
}

// Byte format 4 keeps the group operations with several runqueues; version 3
// decodes them as `schedule`, as it always did.
TEST(SmpGroup, ByteFormatFour) {
  const std::vector<std::uint8_t> ops = {12, 0, 0,   // group G0 below root, shares 1024
                                         0,  0, 0, 0,  // task T0
                                         13, 0, 0};    // move T0 G0
  std::vector<std::uint8_t> v4 = {scn::kBytesFormatVersion4, scn::bytes_runqueue_byte(2)};
  v4.insert(v4.end(), ops.begin(), ops.end());
  std::vector<std::uint8_t> v3 = v4;
  v3[0] = scn::kBytesFormatVersion3;
  const scn::Scenario s4 = scn::decode_bytes(v4.data(), v4.size());
  const scn::Scenario s3 = scn::decode_bytes(v3.data(), v3.size());
  ASSERT_EQ(s4.ops.size(), 3u);
  ASSERT_EQ(s3.ops.size(), 3u);
  EXPECT_EQ(s4.runqueues, 2u);
  EXPECT_EQ(s4.ops[0].kind, scn::OpKind::group_create);
  EXPECT_EQ(s4.ops[2].kind, scn::OpKind::move);
  EXPECT_EQ(s4.ops[2].group, "G0");
  EXPECT_EQ(s3.ops[0].kind, scn::OpKind::schedule);
  EXPECT_EQ(s3.ops[2].kind, scn::OpKind::schedule);
  std::string why;
  const auto back = scn::encode_bytes(s4, false, &why);
  ASSERT_TRUE(back) << why;
  EXPECT_EQ((*back)[0], scn::kBytesFormatVersion4);
  EXPECT_EQ(scn::decode_bytes(back->data(), back->size()).ops.size(), 3u);
}

}  // namespace
}  // namespace eevdf
