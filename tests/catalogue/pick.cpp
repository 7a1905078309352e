// The invariant catalogue (tests/invariants_catalogue_test.cpp): I-PICKOPT
// (invariants/pick.cpp), I-PLACE (invariants/placement.cpp) and I-WAKECOUNT
// (invariants/wake_cpu.cpp).
#include "catalogue/harness.hpp"

namespace eevdf::catalogue {
namespace {

// ===========================================================================
// I-PICKOPT
// ===========================================================================

// Three entities at V: A and B with deadline V + slice/2, C (nice 5) with a
// later one. A pick that returns C — eligible, but not the earliest deadline —
// is what a broken heap search (a wrong min_vruntime descent) would return.
TEST(Catalogue, PickOptFiresOnEligibleButLaterDeadline) {
  Harness h;
  h.woken();
  const SchedEntity& ca = h.se(h.a);
  const SchedEntity& cc = h.se(h.c);
  ASSERT_TRUE(vruntime_eligible(h.cfs(), cc.vruntime, null_observer()));
  ASSERT_TRUE(vruntime_before(ca.deadline, cc.deadline));
  h.op(OpClass::running, [&] { h.checker.on_pick(h.cfs(), &cc, false, PickCaller::wakeup_preempt); });
  EXPECT_TRUE(has_violation(h.checker, Id::PICKOPT)) << listing(h.checker);
}

// With curr protected, protect=true must return curr: returning another entity is wrong too.
TEST(Catalogue, PickOptFiresWhenProtectedCurrIsIgnored) {
  Harness h;
  h.woken();
  h.schedule();
  ASSERT_EQ(h.rq.curr, h.a);
  ASSERT_TRUE(protect_slice(h.se(h.a)));
  ASSERT_TRUE(vruntime_eligible(h.cfs(), h.se(h.a).vruntime, null_observer()));
  h.op(OpClass::running, [&] { h.checker.on_pick(h.cfs(), &h.se(h.b), true, PickCaller::schedule); });
  EXPECT_TRUE(has_violation(h.checker, Id::PICKOPT)) << listing(h.checker);
}

TEST(Catalogue, PickOptCleanTwinModelPicks) {
  Harness h;
  h.woken();
  SchedEntity* picked = nullptr;
  h.op(OpClass::running, [&] { picked = pick_eevdf(h.cfs(), false, PickCaller::wakeup_preempt); });
  EXPECT_EQ(picked, &h.se(h.a));
  h.schedule();
  h.run(7'000'000);  // many real picks
  EXPECT_FALSE(has_violation(h.checker, Id::PICKOPT)) << listing(h.checker);
  EXPECT_TRUE(clean(h.checker)) << listing(h.checker);
}

// ===========================================================================
// I-PLACE
// ===========================================================================

// The sleeper (saved lag > 0) is woken; place_entity() puts it 5000 virtual
// ns later than its saved lag says, as a placement that lost part of the lag
// (a dropped or mis-scaled lag·load term) would.
TEST(Catalogue, PlaceFiresWhenThePlacementLosesLag) {
  Harness h;
  h.with_sleeper();
  const int s = h.sleeper;
  h.wake(s);
  ASSERT_FALSE(has_violation(h.checker, Id::PLACE)) << listing(h.checker);
  h.op(OpClass::placement, [&] {
    shift_in_tree(h.cfs(), h.se(s), 5000);
    h.checker.on_placed(h.cfs(), h.se(s), h.se(s).vlag);
  });
  expect_reported_at(h.checker, Id::PLACE, "place_entity");
}

// Clean twin: the real wake-up; its lag once placed is the saved one (within
// the rounding the invariant allows), so the hook ran on a real placement.
TEST(Catalogue, PlaceCleanTwinRealWakeup) {
  Harness h;
  h.with_sleeper();
  const int s = h.sleeper;
  const s64 saved = h.se(s).vlag;
  ASSERT_GT(saved, 0);
  h.wake(s);
  EXPECT_FALSE(has_violation(h.checker, Id::PLACE)) << listing(h.checker);
  const inv::ExactAverage a = inv::exact_average(h.cfs());
  const i128 lag_times_w = a.sum - a.weight * static_cast<i128>(entity_key(h.cfs(), h.se(s)));
  EXPECT_LT(lag_times_w - a.weight * saved, 2 * a.weight);
  EXPECT_GT(lag_times_w - a.weight * saved, -2 * a.weight);
}

// ===========================================================================
// I-WAKECOUNT
// ===========================================================================

// The CPU goes idle (every task blocked, the delayed one dequeued by the pick)
// while rq->nr_running keeps one task, as a dequeue that forgot
// sub_nr_running() would leave it: idle_cpu() says busy on a settled CPU.
TEST(Catalogue, WakecountFiresOnAnIdleCpuThatCountsATask) {
  Harness h;
  h.with_sleeper();
  const int last = h.rq.curr;
  ASSERT_GE(last, 0);
  h.op(OpClass::running, [&] {
    EXPECT_EQ(h.rq.sleep(last), Refusal::none);
    h.rq.schedule();
    ++h.rq.nr_running;
  });
  ASSERT_LT(h.rq.running(), 0);
  ASSERT_FALSE(h.rq.need_resched);
  expect_reported_at(h.checker, Id::WAKECOUNT, "idle_cpu");
}

// Clean twin: the same CPU going idle with its counter right.
TEST(Catalogue, WakecountCleanTwinIdleCpu) {
  Harness h;
  h.with_sleeper();
  const int last = h.rq.curr;
  h.op(OpClass::running, [&] {
    EXPECT_EQ(h.rq.sleep(last), Refusal::none);
    h.rq.schedule();
  });
  ASSERT_LT(h.rq.running(), 0);
  EXPECT_EQ(h.rq.nr_running, 0u);
  EXPECT_FALSE(has_violation(h.checker, Id::WAKECOUNT)) << listing(h.checker);
}

// h_nr_idle counts a normal task as SCHED_IDLE (as a miscounted idle-group
// switch would): sched_idle_cpu() says SCHED_IDLE-only while a normal task can run.
TEST(Catalogue, WakecountFiresOnAMiscountedIdleTask) {
  Harness h;
  h.busy();
  h.op(OpClass::placement, [&] { h.cfs().h_nr_idle = h.rq.nr_running; });
  expect_reported_at(h.checker, Id::WAKECOUNT, "sched_idle_rq");
}

// Clean twin: the same queue, h_nr_idle as the enqueues left it.
TEST(Catalogue, WakecountCleanTwinIdleCount) {
  Harness h;
  h.busy();
  h.op(OpClass::placement, [&] {});
  EXPECT_EQ(h.cfs().h_nr_idle, 0u);
  EXPECT_FALSE(has_violation(h.checker, Id::WAKECOUNT)) << listing(h.checker);
}

}  // namespace
}  // namespace eevdf::catalogue
