// --check incremental (inv::Checker::end_op_incremental(), scn::CheckMode):
// between the full sweeps an operation is judged by what it touched and by V.
// A corruption of an entity the operation did not touch waits for the sweep; one
// of an entity it touched, or of the sums, is seen at once. On random inputs
// every violation the incremental mode reports is one the full mode reports too,
// at the same operation or earlier, and an input clean in full mode is clean.
#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <vector>

#include "invariants/checker.hpp"
#include "model/system.hpp"
#include "scenario/bytes.hpp"
#include "scenario/executor.hpp"

namespace eevdf {
namespace {

struct OneCpu {
  Rq rq{*profile_by_name("mainline")};
  inv::Checker checker;
  int op = 0;
  std::vector<int> tasks;

  OneCpu() {
    checker.attach(rq);
    for (const char* name : {"A", "B", "C"}) {
      step(inv::OpClass::placement, [&] { tasks.push_back(rq.create_task(name, 0, Policy::normal, 0, -1)); }, true);
      step(inv::OpClass::placement, [&] { EXPECT_EQ(rq.wake(tasks.back(), false), Refusal::none); }, true);
    }
    step(inv::OpClass::running, [&] { rq.schedule(); }, true);
  }
  // One operation, then the checker as the executor drives it (sweep: end_op()).
  template <class F>
  void step(inv::OpClass cls, F apply, bool sweep) {
    checker.begin_op(op, cls);
    apply();
    if (sweep) checker.end_op();
    else checker.end_op_incremental();
    ++op;
  }
  // A queued task that is not running.
  Task& waiting() {
    for (int id : tasks)
      if (id != rq.curr && rq.tasks[static_cast<std::size_t>(id)].se.on_rq) return rq.tasks[static_cast<std::size_t>(id)];
    ADD_FAILURE() << "no waiting task";
    return rq.tasks.front();
  }
};

// A wrong augment planted on a tree node that is not the root, during an
// operation that does not touch it (a tick of the running task, which is out
// of the tree): the incremental end judges the root's augments and the paths
// of touched entities only, the sweep reports I-AUG at that node.
TEST(Incremental, AnUntouchedEntityWaitsForTheSweep) {
  OneCpu t;
  ASSERT_FALSE(t.checker.violated());
  const SchedEntity* root = t.rq.cfs.tasks_timeline.root();
  ASSERT_NE(root, nullptr);
  SchedEntity* leaf = const_cast<SchedEntity*>(root->rb_left ? root->rb_left : root->rb_right);
  ASSERT_NE(leaf, nullptr) << "two tasks wait: the tree has a root and a child";
  t.step(inv::OpClass::running, [&] {
    t.rq.tick();
    leaf->min_slice = leaf->slice + 1;  // planted: the child's own augment, which the root's does not show
  }, false);
  EXPECT_FALSE(t.checker.violated()) << "the incremental end judged a node the operation did not touch";
  t.step(inv::OpClass::running, [] {}, true);  // the sweep
  ASSERT_TRUE(t.checker.violated());
  EXPECT_EQ(t.checker.violations().front().id, inv::Id::AUG);
  EXPECT_EQ(t.checker.violations().front().op_index, t.op - 1);
}

// The same wrong augment on the root is seen at once (the root's augments
// against the whole tree's extremes).
TEST(Incremental, TheRootsAugmentsAreJudgedAfterEveryOperation) {
  OneCpu t;
  SchedEntity* root = const_cast<SchedEntity*>(t.rq.cfs.tasks_timeline.root());
  ASSERT_NE(root, nullptr);
  t.step(inv::OpClass::running, [&] {
    t.rq.tick();
    root->min_vruntime -= 1;
  }, false);
  ASSERT_TRUE(t.checker.violated());
  EXPECT_EQ(t.checker.violations().front().id, inv::Id::AUG);
}

// The same deadline on an entity the operation touched (its vruntime moved too)
// is reported by the incremental end of that operation.
TEST(Incremental, ATouchedEntityIsJudgedAtOnce) {
  OneCpu t;
  Task& w = t.waiting();
  t.step(inv::OpClass::running, [&] {
    t.rq.tick();
    w.se.vruntime += 1;
    w.se.deadline += 1000000000;
  }, false);
  ASSERT_TRUE(t.checker.violated());
  bool dl = false;
  for (const inv::Violation& v : t.checker.violations()) dl = dl || (v.id == inv::Id::DL && v.op_index == t.op - 1);
  EXPECT_TRUE(dl) << "I-DL of the touched entity not reported at its operation";
}

// The sums move for everyone: a sum_weight off by one is I-SUM at once.
TEST(Incremental, TheSumsAreJudgedAfterEveryOperation) {
  OneCpu t;
  t.step(inv::OpClass::running, [&] {
    t.rq.tick();
    t.rq.cfs.sum_weight += 1;
  }, false);
  ASSERT_TRUE(t.checker.violated());
  EXPECT_EQ(t.checker.violations().front().id, inv::Id::SUM);
}

// The clean twin of the three: nothing reported, sweep included.
TEST(Incremental, CleanTwinReportsNothing) {
  OneCpu t;
  for (int i = 0; i < 40; ++i) t.step(inv::OpClass::running, [&] { t.rq.tick(); }, i % 16 == 15);
  t.step(inv::OpClass::running, [] {}, true);
  EXPECT_FALSE(t.checker.violated());
}

// The executor on random inputs, one CPU (format 7) and several (format 4 with
// groups): what the incremental mode reports, the full mode reports at the
// same operation or earlier; an input the full mode finds clean is clean.
TEST(Incremental, EveryIncrementalFindingIsAFullFinding) {
  std::mt19937_64 rng(48);
  std::vector<std::uint8_t> bytes;
  scn::Scenario s;
  std::size_t full_found = 0, incremental_found = 0;
  for (const char* profile : {"mainline", "v7.1", "v6.12.118"}) {
    scn::ExecOptions full;
    full.strict = false;
    scn::ExecOptions light = full;
    light.check_mode = scn::CheckMode::incremental;
    scn::Executor a(*profile_by_name(profile), full), b(*profile_by_name(profile), light);
    for (int run = 0; run < 400; ++run) {
      bytes.resize(8 + rng() % 400);
      for (auto& x : bytes) x = static_cast<std::uint8_t>(rng());
      bytes[0] = run % 2 ? scn::kBytesFormatVersion7 : 4;
      if (run % 2 == 0) bytes[1] = scn::bytes_runqueue_byte(run % 4 ? 2 : 4);
      scn::decode_bytes_into(bytes.data(), bytes.size(), s);
      const scn::ExecResult x = a.run(s), y = b.run(s);
      if (!x.violations.empty()) ++full_found;
      if (!x.violations.empty() && y.violations.empty())
        std::cout << "full mode only: " << profile << " run " << run << " " << inv::id_name(x.violations.front().id)
                  << " in " << x.violations.front().where << "\n";
      if (y.violations.empty()) continue;
      ++incremental_found;
      ASSERT_FALSE(x.violations.empty()) << profile << " run " << run << ": only the incremental mode reports "
                                         << inv::id_name(y.violations.front().id);
      EXPECT_LE(x.violations.front().op_index, y.violations.front().op_index) << profile << " run " << run;
    }
  }
  EXPECT_GT(incremental_found, 0u) << "the comparison saw no violation at all";
  // what a run of the full mode found and the incremental one did not (a
  // violation that healed before the next sweep): the measure of what it loses
  std::cout << "inputs with a violation: full " << full_found << ", incremental " << incremental_found << "\n";
}

}  // namespace
}  // namespace eevdf
