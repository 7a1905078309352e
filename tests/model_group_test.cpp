// Unit tests of the task-group hierarchy (model/fair_group.cpp, model/group.cpp
// and the hierarchical walks of fair_class.cpp) on the mainline profile, and
// of the scenario language's group operations. Expected values are derived by
// hand from the kernel rules (comments), not read back from the model.
#include <gtest/gtest.h>

#include <string>
#include <variant>

#include "scenario/bytes.hpp"
#include "scenario/executor.hpp"
#include "scenario/scenario_parse.hpp"
#include "support/scenario_text.hpp"
#include "scenario/scenario_print.hpp"
#include "invariants/checker.hpp"
#include "model/fair.hpp"
#include "model/profile.hpp"
#include "model/rq.hpp"

namespace eevdf {
namespace {

constexpr u64 kNice0 = 1048576;      // NICE_0_LOAD
constexpr u64 kBaseSlice = 2800000;  // 700 us * (1 + ilog2(8))

struct Fixture {
  Rq rq{*profile_by_name("mainline")};
  inv::Checker checker;
  int op = 0;
  Fixture() { checker.attach(rq); }
  // Runs one entry point between begin_op / end_op, like the executor.
  template <class F>
  void step(inv::OpClass cls, F f) {
    checker.begin_op(op++, cls);
    f();
    checker.end_op();
  }
  void expect_clean() {
    for (const auto& v : checker.violations())
      ADD_FAILURE() << inv::id_name(v.id) << " in " << v.where << ": " << v.what;
  }
};

// A group of cpu.shares 512 gets tg->shares = scale_load(512) = 524288; its
// entity starts at NICE_0_LOAD (init_tg_cfs_entry) and takes
// calc_group_shares() = 524288 · 1024 / 1024 = 524288 when the first task
// is enqueued below it (update_cfs_group() in enqueue_entity()).
TEST(ModelGroup, GroupEntityWeightFromCalcGroupShares) {
  Fixture f;
  const int g = f.rq.create_group("g", -1, 512);
  ASSERT_EQ(g, 0);
  const TaskGroupCpu& tg = f.rq.groups[0];
  EXPECT_EQ(f.rq.task_groups[0].shares, 524288u);
  EXPECT_EQ(tg.se.load.weight, kNice0);  // empty group: update_cfs_group() keeps the weight
  const int a = f.rq.create_task("A", 0, Policy::normal, 0, g);
  const int b = f.rq.create_task("B", 0, Policy::normal, 0);
  f.step(inv::OpClass::placement, [&] { f.rq.wake(a, false); });
  EXPECT_EQ(tg.se.load.weight, 524288u);
  EXPECT_EQ(calc_group_shares(f.rq, tg.cfs_rq), 524288u);
  f.step(inv::OpClass::placement, [&] { f.rq.wake(b, false); });
  // root: B and the group entity; the group's queue: A
  EXPECT_EQ(f.rq.cfs.nr_queued, 2u);
  EXPECT_EQ(f.rq.cfs.h_nr_queued, 2u);
  EXPECT_EQ(f.rq.cfs.load.weight, kNice0 + 524288u);
  EXPECT_EQ(tg.cfs_rq.nr_queued, 1u);
  EXPECT_EQ(tg.cfs_rq.h_nr_queued, 1u);
  EXPECT_EQ(f.rq.nr_running, 2u);
  EXPECT_EQ(f.rq.tasks[static_cast<std::size_t>(a)].se.depth, 1);
  EXPECT_EQ(f.rq.tasks[static_cast<std::size_t>(a)].se.parent, &tg.se);
  f.expect_clean();
}

// MIN_SHARES: cpu.shares 2 is scale_load(2) = 2048; calc_group_shares()
// clamps to [MIN_SHARES (unscaled 2), tg->shares] and returns 2048.
TEST(ModelGroup, MinSharesClamp) {
  Fixture f;
  const int g = f.rq.create_group("g", -1, 2);
  const int a = f.rq.create_task("A", 0, Policy::normal, 0, g);
  f.step(inv::OpClass::placement, [&] { f.rq.wake(a, false); });
  EXPECT_EQ(f.rq.groups[0].se.load.weight, 2048u);
  EXPECT_EQ(f.rq.set_group_shares(g, 1), Refusal::bad_argument);
  EXPECT_EQ(f.rq.set_group_shares(g, 262145), Refusal::bad_argument);
  f.step(inv::OpClass::placement, [&] { EXPECT_EQ(f.rq.set_group_shares(g, 262144), Refusal::none); });
  EXPECT_EQ(f.rq.groups[0].se.load.weight, u64{1} << 28);  // scale_load(MAX_SHARES)
  f.expect_clean();
}

// One task A in a group of weight 524288, alone on the CPU. run(1ms): picked at
// clock 0 on both levels, one tick at 1 ms charges 1 ms to each level:
//   A (NICE_0_LOAD):        Δv = 1 000 000
//   group entity (524288):  Δv = 1 000 000 · 1048576 / 524288 = 2 000 000
TEST(ModelGroup, VruntimeAdvanceOnEachLevel) {
  Fixture f;
  const int g = f.rq.create_group("g", -1, 512);
  const int a = f.rq.create_task("A", 0, Policy::normal, 0, g);
  f.step(inv::OpClass::placement, [&] { f.rq.wake(a, false); });
  const SchedEntity& ase = f.rq.tasks[static_cast<std::size_t>(a)].se;
  const SchedEntity& gse = f.rq.groups[0].se;
  const u64 av = ase.vruntime, gv = gse.vruntime;
  f.step(inv::OpClass::running, [&] { f.rq.run(1000000); });
  EXPECT_EQ(f.rq.curr, a);
  EXPECT_EQ(f.rq.cfs.curr, &gse);
  EXPECT_EQ(f.rq.groups[0].cfs_rq.curr, &ase);
  EXPECT_EQ(ase.vruntime - av, 1000000u);
  EXPECT_EQ(gse.vruntime - gv, 2000000u);
  EXPECT_EQ(ase.sum_exec_runtime, 1000000u);
  EXPECT_EQ(gse.sum_exec_runtime, 1000000u);
  f.expect_clean();
}

// The group entity's slice is cfs_rq_min_slice() of its queue: A with a
// custom 0.5 ms slice and C with the base slice give 500 us; once A is back
// to the base slice (sched_setattr: dequeue + enqueue walk), 2.8 ms.
TEST(ModelGroup, SlicePropagation) {
  Fixture f;
  const int g = f.rq.create_group("g", -1, 1024);
  const int a = f.rq.create_task("A", 0, Policy::normal, 500000, g);
  const int c = f.rq.create_task("C", 0, Policy::normal, 0, g);
  f.step(inv::OpClass::placement, [&] { f.rq.wake(c, false); });
  const SchedEntity& gse = f.rq.groups[0].se;
  EXPECT_EQ(gse.slice, kBaseSlice);
  EXPECT_TRUE(gse.custom_slice);
  f.step(inv::OpClass::placement, [&] { f.rq.wake(a, false); });
  EXPECT_EQ(gse.slice, 500000u);
  EXPECT_EQ(cfs_rq_min_slice(f.rq.cfs), 500000u);  // the root sees the short request through the augment
  f.step(inv::OpClass::placement, [&] { f.rq.set_slice(a, 0); });
  EXPECT_EQ(gse.slice, kBaseSlice);
  EXPECT_EQ(cfs_rq_min_slice(f.rq.cfs), kBaseSlice);
  f.expect_clean();
}

// A and C in one group, both at zero lag; A runs 1 ms (protected: no tick
// preemption), so v_A = v0 + 1ms > V = v0 + 0.5ms. sleep A delays the dequeue
// (DELAY_DEQUEUE): A stays queued, h_nr_runnable drops on both levels,
// h_nr_queued does not. Then C (at v0 <= V) sleeps: fully dequeued; the pick
// finds A delayed in the group's queue and completes its dequeue, which
// empties the queue and dequeues the group entity from the root: all zero.
TEST(ModelGroup, CountersAfterDelayedDequeueInGroup) {
  Fixture f;
  const int g = f.rq.create_group("g", -1, 1024);
  const int a = f.rq.create_task("A", 0, Policy::normal, 0, g);
  const int c = f.rq.create_task("C", 0, Policy::normal, 0, g);
  f.step(inv::OpClass::placement, [&] { f.rq.wake(a, false); });
  f.step(inv::OpClass::placement, [&] { f.rq.wake(c, false); });
  f.step(inv::OpClass::running, [&] { f.rq.run(1000000); });
  ASSERT_EQ(f.rq.curr, a);
  const CfsRq& gq = f.rq.groups[0].cfs_rq;
  f.step(inv::OpClass::running, [&] { f.rq.sleep(a); });
  const Task& ta = f.rq.tasks[static_cast<std::size_t>(a)];
  EXPECT_TRUE(ta.se.sched_delayed);
  EXPECT_TRUE(ta.on_rq);
  EXPECT_EQ(f.rq.curr, c);
  EXPECT_EQ(gq.h_nr_queued, 2u);
  EXPECT_EQ(gq.h_nr_runnable, 1u);
  EXPECT_EQ(f.rq.cfs.h_nr_queued, 2u);
  EXPECT_EQ(f.rq.cfs.h_nr_runnable, 1u);
  EXPECT_EQ(f.rq.cfs.nr_queued, 1u);
  EXPECT_EQ(f.rq.nr_running, 2u);
  f.step(inv::OpClass::running, [&] { f.rq.sleep(c); });
  EXPECT_FALSE(ta.se.sched_delayed);
  EXPECT_FALSE(ta.on_rq);
  EXPECT_FALSE(f.rq.groups[0].se.on_rq);
  EXPECT_EQ(gq.h_nr_queued, 0u);
  EXPECT_EQ(gq.h_nr_runnable, 0u);
  EXPECT_EQ(f.rq.cfs.h_nr_queued, 0u);
  EXPECT_EQ(f.rq.cfs.h_nr_runnable, 0u);
  EXPECT_EQ(f.rq.cfs.nr_queued, 0u);
  EXPECT_EQ(f.rq.nr_running, 0u);
  EXPECT_EQ(f.rq.curr, -1);
  f.expect_clean();
}

// cpu.idle: the group's non-idle queued tasks move into h_nr_idle of the root
// (not of the group's own queue), and the group entity takes
// scale_load(WEIGHT_IDLEPRIO) = 3072. cpu.shares of an idle group is -EINVAL.
TEST(ModelGroup, IdleGroup) {
  Fixture f;
  const int g = f.rq.create_group("g", -1, 1024);
  const int a = f.rq.create_task("A", 0, Policy::normal, 0, g);
  const int b = f.rq.create_task("B", 0, Policy::normal, 0);
  f.step(inv::OpClass::placement, [&] { f.rq.wake(a, false); });
  f.step(inv::OpClass::placement, [&] { f.rq.wake(b, false); });
  f.step(inv::OpClass::placement, [&] { EXPECT_EQ(f.rq.set_group_idle(g, true), Refusal::none); });
  EXPECT_EQ(f.rq.cfs.h_nr_idle, 1u);
  EXPECT_EQ(f.rq.groups[0].cfs_rq.h_nr_idle, 0u);
  EXPECT_EQ(f.rq.groups[0].se.load.weight, 3072u);
  EXPECT_TRUE(se_is_idle(f.rq, f.rq.groups[0].se));
  EXPECT_EQ(f.rq.set_group_shares(g, 100), Refusal::group_is_idle);
  f.step(inv::OpClass::placement, [&] { EXPECT_EQ(f.rq.set_group_idle(g, false), Refusal::none); });
  EXPECT_EQ(f.rq.cfs.h_nr_idle, 0u);
  EXPECT_EQ(f.rq.groups[0].se.load.weight, kNice0);  // back to NICE_0_LOAD, not the old shares
  f.expect_clean();
}

// find_matching_se(): a task two levels down and a root task meet at the root
// (the group entity vs the root task); two tasks in sibling groups meet at
// their group entities.
TEST(ModelGroup, FindMatchingSe) {
  Fixture f;
  const int g = f.rq.create_group("g", -1, 1024);
  const int h = f.rq.create_group("h", g, 1024);
  const int k = f.rq.create_group("k", g, 1024);
  const int a = f.rq.create_task("A", 0, Policy::normal, 0, h);
  const int b = f.rq.create_task("B", 0, Policy::normal, 0);
  const int c = f.rq.create_task("C", 0, Policy::normal, 0, k);
  SchedEntity* se = &f.rq.tasks[static_cast<std::size_t>(a)].se;
  SchedEntity* pse = &f.rq.tasks[static_cast<std::size_t>(b)].se;
  find_matching_se(se, pse);
  EXPECT_EQ(se, &f.rq.groups[static_cast<std::size_t>(g)].se);
  EXPECT_EQ(pse, &f.rq.tasks[static_cast<std::size_t>(b)].se);
  se = &f.rq.tasks[static_cast<std::size_t>(a)].se;
  pse = &f.rq.tasks[static_cast<std::size_t>(c)].se;
  find_matching_se(se, pse);
  EXPECT_EQ(se, &f.rq.groups[static_cast<std::size_t>(h)].se);
  EXPECT_EQ(pse, &f.rq.groups[static_cast<std::size_t>(k)].se);
  EXPECT_EQ(f.rq.groups[static_cast<std::size_t>(h)].se.depth, 1);
}

// sched_move_task() of a queued task: dequeued from the old group (which
// empties and leaves the root), enqueued below the new one.
TEST(ModelGroup, MoveQueuedTask) {
  Fixture f;
  const int g = f.rq.create_group("g", -1, 1024);
  const int h = f.rq.create_group("h", -1, 256);
  const int a = f.rq.create_task("A", 0, Policy::normal, 0, g);
  const int b = f.rq.create_task("B", 0, Policy::normal, 0);
  f.step(inv::OpClass::placement, [&] { f.rq.wake(b, false); });
  f.step(inv::OpClass::placement, [&] { f.rq.wake(a, false); });
  f.step(inv::OpClass::running, [&] { f.rq.run(3000000); });
  f.step(inv::OpClass::placement, [&] { EXPECT_EQ(f.rq.move_task(a, h), Refusal::none); });
  const Task& ta = f.rq.tasks[static_cast<std::size_t>(a)];
  EXPECT_EQ(ta.se.cfs_rq, &f.rq.groups[static_cast<std::size_t>(h)].cfs_rq);
  EXPECT_EQ(f.rq.groups[static_cast<std::size_t>(h)].cfs_rq.h_nr_queued, 1u);
  EXPECT_EQ(f.rq.groups[static_cast<std::size_t>(g)].cfs_rq.h_nr_queued, 0u);
  EXPECT_EQ(f.rq.groups[static_cast<std::size_t>(h)].se.load.weight, 262144u);
  EXPECT_EQ(f.rq.cfs.h_nr_queued, 2u);
  f.step(inv::OpClass::running, [&] { f.rq.run(10000000); });
  f.expect_clean();
}

// ---- the scenario language ----

using test::parse_ok;
std::string parse_error(const std::string& text) { return test::parse_error_text(text); }

constexpr const char* kGroupScenario =
    "profile mainline\n"
    "group web shares=512\n"
    "group batch parent=web\n"
    "task A group=batch\n"
    "task B\n"
    "wake A\n"
    "wake B\n"
    "run 5ms\n"
    "move B web\n"
    "shares web 2048\n"
    "group_idle batch 1\n"
    "run 5ms\n"
    "move A root\n"
    "expect field web.weight == 2097152\n"
    "expect no-violation\n";

TEST(ScenarioGroups, ParsePrintRoundTrip) {
  const scn::Scenario s = parse_ok(kGroupScenario);
  ASSERT_EQ(s.ops.size(), 13u);
  EXPECT_EQ(s.ops[0].kind, scn::OpKind::group_create);
  EXPECT_EQ(s.ops[0].value, 512);
  EXPECT_EQ(s.ops[1].parent, "web");
  EXPECT_EQ(s.ops[1].value, 1024);
  EXPECT_EQ(s.ops[2].group, "batch");
  EXPECT_EQ(s.ops[11].kind, scn::OpKind::move);
  EXPECT_EQ(s.ops[11].group, "");
  const std::string printed = scn::print_scenario(s);
  EXPECT_EQ(printed, kGroupScenario);
  EXPECT_TRUE(scn::same_scenario(parse_ok(printed), s));
}

TEST(ScenarioGroups, RunsClean) {
  const scn::Scenario s = parse_ok(kGroupScenario);
  const auto r = scn::execute(s, *profile_by_name("mainline"), {});
  EXPECT_TRUE(r.ok()) << r.error << (r.expectation_failures.empty() ? "" : r.expectation_failures.front())
                      << (r.violations.empty() ? "" : r.violations.front().what);
}

TEST(ScenarioGroups, ErrorsNameLineAndColumn) {
  EXPECT_EQ(parse_error("group g shares=1\n"), "t.scn:1:16: error: expected cpu.shares between 2 and 262144 after "
                                               "'shares=', found '1'");
  EXPECT_EQ(parse_error("group g\nshares g 262145\n"),
            "t.scn:2:10: error: expected cpu.shares between 2 and 262144 after the group name, found '262145'");
  EXPECT_EQ(parse_error("task A group=nope\n"),
            "t.scn:1:14: error: expected the name of a group created earlier with 'group', found 'nope', which "
            "does not exist");
  EXPECT_EQ(parse_error("group root\n"),
            "t.scn:1:7: error: expected a new group name, found 'root' (reserved for the root group)");
  EXPECT_EQ(parse_error("group g\ngroup_idle g 2\n"),
            "t.scn:2:14: error: expected 0 or 1 (cpu.idle) after the group name, found '2'");
  EXPECT_EQ(parse_error("group g\ngroup g\n"),
            "t.scn:2:7: error: expected a new group name, found 'g', which already exists (created on line 1)");
}

// Version-1 bytes decode as before (no group operation can appear); version 2
// has the group opcodes 12..15, and encode_bytes() round-trips them.
TEST(ScenarioGroups, BytesVersions) {
  const std::vector<std::uint8_t> v1 = {1, 12, 0, 0, 0, 13, 0, 14, 0, 0};  // 12 % 12 = create, 13 = fork, 14 = wake
  const scn::Scenario a = scn::decode_bytes(v1);
  ASSERT_EQ(a.ops.size(), 3u);
  EXPECT_EQ(a.ops[0].kind, scn::OpKind::create);
  EXPECT_EQ(a.ops[1].kind, scn::OpKind::fork);
  EXPECT_EQ(a.ops[2].kind, scn::OpKind::wake);
  const std::vector<std::uint8_t> v2 = {2, 12, 0, 5, 0, 0, 0, 0, 13, 0, 0, 14, 0, 1, 15, 0, 1};
  const scn::Scenario b = scn::decode_bytes(v2);
  ASSERT_EQ(b.ops.size(), 5u);
  EXPECT_EQ(b.ops[0].kind, scn::OpKind::group_create);
  EXPECT_EQ(b.ops[0].group, "G0");
  EXPECT_EQ(b.ops[0].parent, "");  // 0 % (0 + 1) = 0 = root when no group exists
  EXPECT_EQ(b.ops[0].value, 512);  // kBytesShares[5]
  EXPECT_EQ(b.ops[2].kind, scn::OpKind::move);
  EXPECT_EQ(b.ops[2].group, "G0");
  EXPECT_EQ(b.ops[3].kind, scn::OpKind::shares);
  EXPECT_EQ(b.ops[3].value, 2);
  EXPECT_EQ(b.ops[4].kind, scn::OpKind::group_idle);
  EXPECT_EQ(b.ops[4].value, 1);
  const auto enc = scn::encode_bytes(b);
  ASSERT_TRUE(enc);
  EXPECT_EQ((*enc)[0], 2);
  EXPECT_TRUE(scn::same_scenario(scn::decode_bytes(*enc), b));
}

}  // namespace
}  // namespace eevdf

namespace eevdf {
namespace {

// update_cfs_group() before 66951e4860d3 (v6.12.0, v6.6) takes the share of an
// emptied group too: tg_shares * max(0, avg.load_avg), here 0 (T0's renice
// before its first wake-up recomputed its load average from a load sum of 0),
// clamped to MIN_SHARES = 2 (unscaled), while DELAY_DEQUEUE keeps its entity
// queued; reweight_eevdf() then rescales its lag by 2^19 while avg_vruntime()
// counts it at scale_load_down(2) = 2, and V jumps (I-RW). v6.18 keeps the
// empty group's weight.
scn::ExecResult run_emptied_delayed_group(const std::string& profile, u64 expected_weight) {
  const std::string text = "profile " + profile +
                           "\ntask T0\ngroup G0\nnice T0 -20\nmove T0 G0\ntask T1 policy=idle\nwake T0\nwake T1\ntick\nsleep T0\n"
                           "expect field G0.weight == " + std::to_string(expected_weight) + "\n";
  const auto parsed = scn::parse_scenario(text, "t.scn");
  const auto* s = std::get_if<scn::Scenario>(&parsed);
  if (!s) {
    ADD_FAILURE() << "parse error";
    return {};
  }
  std::string error;
  const auto p = scn::build_profile(*s, {}, error);
  if (!p) {
    ADD_FAILURE() << error;
    return {};
  }
  scn::ExecOptions options;
  options.keep_going = true;  // the field expectation follows the violating operation
  return scn::execute(*s, *p, options);
}

bool reports(const scn::ExecResult& r, inv::Id id) {
  for (const auto& v : r.violations)
    if (v.id == id) return true;
  return false;
}

TEST(ModelGroup, V612EmptiedDelayedGroupDropsToMinShares) {
  const auto r = run_emptied_delayed_group("v6.12", kMinShares);
  EXPECT_TRUE(r.error.empty()) << r.error;
  EXPECT_TRUE(r.expectation_failures.empty()) << (r.expectation_failures.empty() ? "" : r.expectation_failures[0]);
  EXPECT_TRUE(reports(r, inv::Id::RW));
}

TEST(ModelGroup, V618EmptiedDelayedGroupKeepsItsWeight) {
  const auto r = run_emptied_delayed_group("v6.18", kNice0);
  EXPECT_TRUE(r.error.empty()) << r.error;
  EXPECT_TRUE(r.expectation_failures.empty()) << (r.expectation_failures.empty() ? "" : r.expectation_failures[0]);
  EXPECT_FALSE(reports(r, inv::Id::RW));
}

}  // namespace
}  // namespace eevdf
