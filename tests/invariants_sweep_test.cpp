// Several runqueues: after an operation only the CPUs it acts on are checked
// from scratch, every CPU in a full sweep (inv::end_ops_touched()).
// A corruption planted on a runqueue the operation did not touch is not seen
// by the touched-only check, and is caught by the next sweep; the executor's
// answers are the same as with every CPU checked after every operation.
#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <vector>

#include "scenario/bytes.hpp"
#include "scenario/executor.hpp"
#include "invariants/checker.hpp"
#include "model/system.hpp"

namespace eevdf {
namespace {

struct TwoCpus {
  System sys{*profile_by_name("mainline"), 2};
  std::vector<std::unique_ptr<inv::Checker>> checkers;
  int op = 0;
  int a = -1, b = -1;

  TwoCpus() {
    for (unsigned c = 0; c < sys.size(); ++c) {
      checkers.push_back(std::make_unique<inv::Checker>());
      checkers.back()->attach(sys.rq(c));
    }
    // A and C on CPU 0, B on CPU 1 (queued, running after the schedule)
    step(inv::OpClass::placement, [&] { a = sys.rq(0).create_task("A", 0, Policy::normal, 0, -1); }, 1u, true);
    step(inv::OpClass::placement, [&] { sys.rq(0).create_task("C", 0, Policy::normal, 0, -1); }, 1u, true);
    step(inv::OpClass::placement, [&] { b = sys.rq(0).create_task("B", 0, Policy::normal, 0, -1); }, 1u, true);
    step(inv::OpClass::placement, [&] { EXPECT_EQ(sys.wake(a, false, -1), Refusal::none); }, 1u, true);
    step(inv::OpClass::placement, [&] { EXPECT_EQ(sys.wake(b, false, 1), Refusal::none); }, 3u, true);
    step(inv::OpClass::running, [&] { sys.schedule(); }, 3u, true);
    EXPECT_EQ(sys.rq(1).curr, b);
  }

  // One operation acting on the CPUs in `touched`, then the checkers as the executor drives them.
  template <class F>
  void step(inv::OpClass cls, F apply, std::uint32_t touched, bool sweep) {
    for (auto& c : checkers) c->begin_op(op, cls);
    apply();
    inv::end_ops_touched(sys, checkers, touched, sweep);
    ++op;
  }
  bool violated() const {
    for (const auto& c : checkers)
      if (c->violated()) return true;
    return false;
  }
};

// A wake-up on CPU 0 that also corrupts CPU 1's sum_weight (CPU 1 is not
// touched): the touched-only check does not look at CPU 1; the sweep two
// operations later reports I-SUM on CPU 1, at the sweep's operation.
TEST(Sweep, CorruptionOnAnUntouchedRunqueueIsCaughtByTheSweep) {
  TwoCpus t;
  ASSERT_FALSE(t.violated());
  const int c = 1;  // task C
  t.step(inv::OpClass::placement, [&] {
    EXPECT_EQ(t.sys.wake(c, false, -1), Refusal::none);
    t.sys.rq(1).cfs.sum_weight += 1;  // planted on the CPU the operation does not act on
  }, 1u, false);
  EXPECT_FALSE(t.violated()) << "CPU 1 was checked although the operation did not act on it";
  t.step(inv::OpClass::running, [&] { EXPECT_EQ(t.sys.rq(0).yield(t.sys.rq(0).curr), Refusal::none); }, 1u, false);
  EXPECT_FALSE(t.violated());
  t.step(inv::OpClass::running, [] {}, 1u, true);  // the sweep
  ASSERT_TRUE(t.checkers[1]->violated());
  EXPECT_FALSE(t.checkers[0]->violated());
  const inv::Violation& v = t.checkers[1]->violations().front();
  EXPECT_EQ(v.id, inv::Id::SUM);
  EXPECT_EQ(v.op_index, t.op - 1);
}

// The clean twin: the same operations without the corruption, sweep included, report nothing.
TEST(Sweep, CleanTwinReportsNothing) {
  TwoCpus t;
  t.step(inv::OpClass::placement, [&] { EXPECT_EQ(t.sys.wake(1, false, -1), Refusal::none); }, 1u, false);
  t.step(inv::OpClass::running, [&] { EXPECT_EQ(t.sys.rq(0).yield(t.sys.rq(0).curr), Refusal::none); }, 1u, false);
  t.step(inv::OpClass::running, [] {}, 1u, true);
  EXPECT_FALSE(t.violated());
}

// A violation found on a touched CPU is reported only after every CPU was
// checked at that operation: the untouched CPU's corruption is reported at the
// same operation, without waiting for the sweep.
TEST(Sweep, AFindingOnATouchedCpuChecksEveryCpuFirst) {
  TwoCpus t;
  t.step(inv::OpClass::placement, [&] {
    EXPECT_EQ(t.sys.wake(1, false, -1), Refusal::none);
    t.sys.rq(0).cfs.sum_weight += 1;  // on the touched CPU
    t.sys.rq(1).cfs.sum_weight += 1;  // and on the other one
  }, 1u, false);
  ASSERT_TRUE(t.checkers[0]->violated());
  ASSERT_TRUE(t.checkers[1]->violated());
  EXPECT_EQ(t.checkers[1]->violations().front().op_index, t.op - 1);
}

// The executor, on random inputs on 2 and 4 CPUs with task groups: checking the
// touched CPUs with a sweep every 16 operations answers exactly what checking
// every CPU after every operation answers (violations, their operations and texts).
TEST(Sweep, ExecutorAnswersAsIfEveryCpuWereCheckedAfterEveryOperation) {
  std::mt19937_64 rng(22);
  std::vector<std::uint8_t> bytes;
  scn::Scenario s;
  std::size_t violations = 0;
  for (const char* profile : {"mainline", "v7.1", "v6.12.118"}) {
    scn::ExecOptions touched;
    touched.strict = false;
    scn::ExecOptions every = touched;
    every.sweep_period = 1;
    scn::Executor fast(*profile_by_name(profile), touched), full(*profile_by_name(profile), every);
    for (int run = 0; run < 400; ++run) {
      bytes.resize(8 + rng() % 400);
      for (auto& x : bytes) x = static_cast<std::uint8_t>(rng());
      bytes[0] = run % 2 ? 4 : 3;  // format 4: groups on several CPUs; 3: tasks only
      bytes[1] = scn::bytes_runqueue_byte(run % 3 ? 4 : 2);
      scn::decode_bytes_into(bytes.data(), bytes.size(), s);
      const scn::ExecResult x = fast.run(s), y = full.run(s);
      ASSERT_EQ(x.executed, y.executed);
      ASSERT_EQ(x.violations.size(), y.violations.size()) << profile << " run " << run;
      for (std::size_t i = 0; i < x.violations.size(); ++i) {
        EXPECT_EQ(x.violations[i].id, y.violations[i].id);
        EXPECT_EQ(x.violations[i].op_index, y.violations[i].op_index);
        EXPECT_EQ(x.violations[i].what, y.violations[i].what);
      }
      violations += y.violations.size();
    }
  }
  EXPECT_GT(violations, 0u) << "the comparison saw no violation at all";
}

}  // namespace
}  // namespace eevdf
