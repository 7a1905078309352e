// The invariant catalogue's harness (tests/invariants_catalogue_test.cpp and
// tests/catalogue/*.cpp, one file per family of invariants/): one runqueue with
// a checker attached, driven through the model's entry points, each wrapped in
// begin_op()/end_op() as scenario/executor.cpp does; the standard settings the
// tests start from, and the helpers they read the violations with.
#pragma once

#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <string_view>
#include <utility>

#include "invariants/checker.hpp"
#include "model/fair.hpp"
#include "model/profile.hpp"
#include "model/rq.hpp"
#include "support/run_scenario.hpp"

namespace eevdf::catalogue {

using inv::Id;
using inv::OpClass;

inline constexpr u64 kNice0 = 1048576;  // NICE_0_LOAD

inline Profile mainline() { return *profile_by_name("mainline"); }

inline bool has_violation(const inv::Checker& c, Id id) {
  for (const auto& v : c.violations())
    if (v.id == id) return true;
  return false;
}

inline const inv::Violation* find_violation(const inv::Checker& c, Id id) {
  for (const auto& v : c.violations())
    if (v.id == id) return &v;
  return nullptr;
}

// "I-SUM(op 7: ...), I-LAG(...)": for failure messages.
inline std::string listing(const inv::Checker& c) {
  std::string out;
  for (const auto& v : c.violations())
    out += std::string(inv::id_name(v.id)) + " (op " + std::to_string(v.op_index) + ", " + v.where + ": " + v.what +
           ")\n";
  return out.empty() ? "no violations" : out;
}

// The checker reported id, first at `where`.
inline void expect_reported_at(const inv::Checker& c, Id id, std::string_view where) {
  const inv::Violation* v = find_violation(c, id);
  ASSERT_NE(v, nullptr) << listing(c);
  EXPECT_EQ(v->where, where);
}

// Everything but I-FAIR (not part of this catalogue test, implemented elsewhere).
inline bool clean(const inv::Checker& c) {
  for (const auto& v : c.violations())
    if (v.id != Id::FAIR) return false;
  return true;
}

// One runqueue with a checker attached; every step is an operation.
class Harness {
 public:
  explicit Harness(Profile profile = mainline(), inv::Tolerances tolerances = {}, inv::Selection selection = {})
      : rq(std::move(profile)), checker(selection, tolerances) {
    checker.attach(rq);
  }

  Rq rq;
  inv::Checker checker;
  int a = -1, b = -1, c = -1;  // the tasks of the standard settings below
  int sleeper = -1;            // with_sleeper(): A or B, blocked

  template <class F>
  void op(OpClass cls, F&& f) {
    checker.begin_op(next_op_++, cls);
    f();
    checker.end_op();
  }
  int create(const char* name, int nice) {
    int id = -1;
    op(OpClass::placement, [&] { id = rq.create_task(name, nice, Policy::normal, 0); });
    EXPECT_GE(id, 0);
    return id;
  }
  void wake(int id) {
    op(OpClass::placement, [&] { EXPECT_EQ(rq.wake(id, false), Refusal::none); });
  }
  void run(u64 ns) {
    op(OpClass::running, [&] { rq.run(ns); });
  }
  void schedule() {
    op(OpClass::running, [&] { rq.schedule(); });
  }
  void sleep(int id) {
    op(OpClass::running, [&] { EXPECT_EQ(rq.sleep(id), Refusal::none); });
  }
  SchedEntity& se(int id) { return rq.tasks[static_cast<std::size_t>(id)].se; }
  CfsRq& cfs() { return rq.cfs; }
  bool in_tree(int id) { return se(id).on_rq && cfs().curr != &se(id); }

  // Three new tasks A, B (nice 0) and C (nice 5) woken onto an idle CPU: all
  // three sit at V in the tree, no curr yet.
  void woken() {
    a = create("A", 0);
    b = create("B", 0);
    c = create("C", 5);
    wake(a);
    wake(b);
    wake(c);
    EXPECT_EQ(rq.curr, -1);
    EXPECT_TRUE(clean(checker)) << listing(checker);
  }
  // ... and 5.3 ms of running: C is curr (picked by a real pick), A and B in the tree.
  void busy() {
    woken();
    run(5'300'000);
    EXPECT_EQ(rq.curr, c);
    EXPECT_TRUE(in_tree(a) && in_tree(b));
    EXPECT_TRUE(clean(checker)) << listing(checker);
  }
  // ... C blocks while ineligible: DELAY_DEQUEUE keeps it queued as sched_delayed.
  void with_delayed() {
    busy();
    sleep(c);
    EXPECT_TRUE(se(c).sched_delayed && se(c).on_rq);
    EXPECT_NE(se(c).vlag, 0);
    EXPECT_TRUE(clean(checker)) << listing(checker);
  }
  // ... and the task picked next (eligible, so not delayed) blocks at once:
  // a sleeper, off the queue, with a saved positive lag.
  void with_sleeper() {
    with_delayed();
    sleeper = rq.curr;
    EXPECT_GE(sleeper, 0);
    EXPECT_NE(sleeper, c);
    sleep(sleeper);
    EXPECT_FALSE(se(sleeper).on_rq);
    EXPECT_GT(se(sleeper).vlag, 0);
    EXPECT_TRUE(clean(checker)) << listing(checker);
  }
  // Total weight counted in V (tree + curr).
  u64 total_weight() { return static_cast<u64>(inv::exact_average(cfs()).weight); }

 private:
  int next_op_ = 0;
};

// Moves a tree entity's vruntime and deadline by delta through the kernel's
// own __dequeue_entity/__enqueue_entity, so the sums stay exact (I-SUM holds).
inline void shift_in_tree(CfsRq& cfs, SchedEntity& se, s64 delta) {
  dequeue_entity_rb(cfs, se);
  se.vruntime += as_u64(delta);
  se.deadline += as_u64(delta);
  enqueue_entity_rb(cfs, se);
}

}  // namespace eevdf::catalogue
