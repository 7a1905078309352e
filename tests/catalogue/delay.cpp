// The invariant catalogue (tests/invariants_catalogue_test.cpp): I-DELAY
// (invariants/delay.cpp) and I-MONO (invariants/monotonic.cpp).
#include "catalogue/harness.hpp"

namespace eevdf::catalogue {
namespace {

// ===========================================================================
// I-DELAY
// ===========================================================================

// set_next_buddy() on a sched_delayed entity (the WARN in pick_eevdf guards this).
TEST(Catalogue, DelayFiresWhenDelayedEntityIsNextBuddy) {
  Harness h;
  h.with_delayed();
  h.op(OpClass::placement, [&] { h.cfs().next = &h.se(h.c); });
  EXPECT_TRUE(has_violation(h.checker, Id::DELAY)) << listing(h.checker);
}

TEST(Catalogue, DelayCleanTwinRunnableEntityIsNextBuddy) {
  Harness h;
  h.with_delayed();
  ASSERT_TRUE(h.in_tree(h.a) || h.in_tree(h.b));
  const int buddy = h.in_tree(h.a) ? h.a : h.b;
  h.op(OpClass::placement, [&] { h.cfs().next = &h.se(buddy); });
  EXPECT_FALSE(has_violation(h.checker, Id::DELAY)) << listing(h.checker);
  EXPECT_TRUE(clean(h.checker)) << listing(h.checker);
}

// curr marked sched_delayed (accounted consistently: h_nr_runnable follows),
// as set_next_task_fair() on a delayed task would leave it.
TEST(Catalogue, DelayFiresWhenCurrIsDelayed) {
  Harness h;
  h.busy();
  h.op(OpClass::placement, [&] {
    h.se(h.c).sched_delayed = true;
    h.cfs().h_nr_runnable--;
  });
  EXPECT_TRUE(has_violation(h.checker, Id::DELAY)) << listing(h.checker);
}

// A delayed entity whose debt grew while delayed, woken: requeue_delayed_entity()
// leaves it queued further right than clamp(V - v) allowed when it was delayed
// (the v6.12-v7.0 kernels, where V sinks meanwhile). The lag is read from the
// state (V - v), not from vlag: v is moved, as a sunken V would leave it.
TEST(Catalogue, DelayFiresWhenLagSinksWhileDelayedAndWoken) {
  Harness h;
  h.with_delayed();
  h.op(OpClass::placement, [&] {
    EXPECT_EQ(h.rq.wake(h.c, false), Refusal::none);  // requeue_delayed_entity()
    EXPECT_FALSE(h.se(h.c).sched_delayed);
    h.se(h.c).vruntime += 10'000'000;
  });
  EXPECT_TRUE(has_violation(h.checker, Id::DELAY)) << listing(h.checker);
}

// ... or dequeued at last, saving a deeper debt: update_entity_lag() without the
// "if (se->vlag > vlag) vlag = se->vlag" guard for delayed entities.
TEST(Catalogue, DelayFiresWhenLagSinksWhileDelayedAndDequeued) {
  Harness h;
  h.with_delayed();
  h.op(OpClass::placement, [&] {
    dequeue_entities(h.rq, h.se(h.c), dequeue_flags::SLEEP | dequeue_flags::DELAYED);  // the pick's final dequeue
    EXPECT_FALSE(h.se(h.c).on_rq);
    h.se(h.c).vlag -= 1'000'000;  // saved 1 ms (virtual) deeper than when it was delayed
  });
  EXPECT_TRUE(has_violation(h.checker, Id::DELAY)) << listing(h.checker);
}

TEST(Catalogue, DelayCleanTwinWakeDelayed) {
  Harness h;
  h.with_delayed();
  h.wake(h.c);
  EXPECT_FALSE(h.se(h.c).sched_delayed);
  h.run(5'000'000);
  EXPECT_FALSE(has_violation(h.checker, Id::DELAY)) << listing(h.checker);
  EXPECT_TRUE(clean(h.checker)) << listing(h.checker);
}

// ===========================================================================
// I-MONO
// ===========================================================================

// In an operation of class cls the CPU runs 100 µs, and the queued (not
// running) A moves by delta (sums kept exact).
void move_waiting_entity(Harness& h, OpClass cls, s64 delta) {
  h.busy();
  h.op(cls, [&] {
    h.rq.run(100'000);
    ASSERT_TRUE(h.in_tree(h.a));
    shift_in_tree(h.cfs(), h.se(h.a), delta);
  });
}

// While the CPU only ran, a queued (not running) entity moved back 1 µs:
// as if a tick re-placed a waiting entity.
TEST(Catalogue, MonoFiresWhenRunningMovesAnotherEntityBack) {
  Harness h;
  move_waiting_entity(h, OpClass::running, -1000);
  EXPECT_TRUE(has_violation(h.checker, Id::MONO)) << listing(h.checker);
}

// The same movement in a placement-class operation (wake, fork, reweight may move vruntime).
TEST(Catalogue, MonoCleanTwinPlacementMayMoveVruntime) {
  Harness h;
  move_waiting_entity(h, OpClass::placement, -1000);
  EXPECT_FALSE(has_violation(h.checker, Id::MONO)) << listing(h.checker);
  EXPECT_TRUE(clean(h.checker)) << listing(h.checker);
}

TEST(Catalogue, MonoCleanTwinRunning) {
  Harness h;
  h.busy();
  h.run(100'000);
  h.run(9'000'000);
  EXPECT_FALSE(has_violation(h.checker, Id::MONO)) << listing(h.checker);
  EXPECT_TRUE(clean(h.checker)) << listing(h.checker);
}

// Was DEFECT 2: I-MONO's documentation says running moves no entity other than
// the running one; the check only catches decreases. A queued, waiting
// entity moved forward during a running operation passes.
TEST(Catalogue, MonoCatchesWaitingEntityMovedForward) {
  Harness h;
  move_waiting_entity(h, OpClass::running, 1000);
  EXPECT_TRUE(has_violation(h.checker, Id::MONO)) << listing(h.checker);
}

}  // namespace
}  // namespace eevdf::catalogue
