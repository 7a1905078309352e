// The invariant catalogue (tests/invariants_catalogue_test.cpp): I-PROT
// (invariants/protection.cpp).
#include "catalogue/harness.hpp"

namespace eevdf::catalogue {
namespace {

// ===========================================================================
// I-PROT
// ===========================================================================

// curr (fresh from a real pick, so not stale for F1) protected past its deadline.
TEST(Catalogue, ProtFiresWhenVprotBeyondDeadline) {
  Harness h;
  h.busy();
  ASSERT_EQ(h.checker.stale_vprot(h.se(h.c)), inv::Finding::none);
  h.op(OpClass::placement, [&] { h.se(h.c).vprot = h.se(h.c).deadline + 1'000'000; });
  ASSERT_TRUE(protect_slice(h.se(h.c)));
  EXPECT_TRUE(has_violation(h.checker, Id::PROT)) << listing(h.checker);
}

TEST(Catalogue, ProtFiresWhenVprotBeyondDeadlineWithoutTolerance) {
  Harness h(mainline(), inv::Tolerances{false});
  h.busy();
  h.op(OpClass::placement, [&] { h.se(h.c).vprot = h.se(h.c).deadline + 1'000'000; });
  EXPECT_TRUE(has_violation(h.checker, Id::PROT)) << listing(h.checker);
}

TEST(Catalogue, ProtCleanTwin) {
  Harness h(mainline(), inv::Tolerances{false});
  h.busy();
  ASSERT_TRUE(protect_slice(h.se(h.c)));
  h.op(OpClass::placement, [&] { h.se(h.c).vprot = h.se(h.c).deadline; });  // the maximum allowed
  EXPECT_FALSE(has_violation(h.checker, Id::PROT)) << listing(h.checker);
  EXPECT_TRUE(clean(h.checker)) << listing(h.checker);
}

// Between picks protection only shrinks: curr's vprot shortened (as a wake-up's
// update_protect_slice() does), then set back to its deadline without a pick
// (as v6.18's set_next_entity(first = false) of a sched_change re-arms it).
// Both values lie within the deadline: only the between-picks rule sees it.
TEST(Catalogue, ProtFiresWhenProtectionGrowsBetweenPicks) {
  Harness h;
  h.busy();
  ASSERT_TRUE(protect_slice(h.se(h.c)));
  h.op(OpClass::placement, [&] { h.se(h.c).vprot = h.se(h.c).deadline - 1'000'000; });
  ASSERT_TRUE(protect_slice(h.se(h.c)));
  EXPECT_TRUE(clean(h.checker)) << listing(h.checker);
  h.op(OpClass::placement, [&] { h.se(h.c).vprot = h.se(h.c).deadline; });
  EXPECT_TRUE(has_violation(h.checker, Id::PROT)) << listing(h.checker);
}

TEST(Catalogue, ProtCleanTwinShrinksThenRealPick) {
  Harness h;
  h.busy();
  h.op(OpClass::placement, [&] { h.se(h.c).vprot = h.se(h.c).deadline - 1'000'000; });
  h.run(100'000);    // runs on within the shortened protection
  h.schedule();      // a real pick may arm a new one
  h.run(3'000'000);
  EXPECT_FALSE(has_violation(h.checker, Id::PROT)) << listing(h.checker);
  EXPECT_TRUE(clean(h.checker)) << listing(h.checker);
}

// Where set_next_entity() arms the protection only at a real pick (bcd74b2ffdd0), a
// sched_change's set_next_entity(first = false) that moves vprot later re-arms it:
// reported at the event, though F1's tolerance excuses the end-of-operation rule
// (the sched_change marks curr's vprot stale). Its revert re-arms at every call.
TEST(Catalogue, ProtFiresWhenSetNextWithoutPickMovesTheEndLater) {
  Harness h;
  h.busy();
  h.op(OpClass::placement, [&] { h.se(h.c).vprot = h.se(h.c).deadline - 1'000'000; });
  EXPECT_TRUE(clean(h.checker)) << listing(h.checker);
  h.op(OpClass::placement, [&] {
    h.se(h.c).vprot = h.se(h.c).deadline;
    h.checker.on_set_next(h.se(h.c), false);
  });
  expect_reported_at(h.checker, Id::PROT, "between picks (sched_change set_next_entity)");
}

// Clean twins: the model's own sched_changes of curr (set_next_entity(first = false)
// leaves vprot), and a real pick, which may arm a later end.
TEST(Catalogue, ProtCleanTwinSchedChangeKeepsTheEnd) {
  Harness h;
  h.busy();
  h.op(OpClass::placement, [&] { h.se(h.c).vprot = h.se(h.c).deadline - 1'000'000; });
  h.op(OpClass::placement, [&] { ASSERT_EQ(h.rq.set_nice(h.c, 3), Refusal::none); });
  h.op(OpClass::placement, [&] { ASSERT_EQ(h.rq.set_slice(h.c, 1'000'000), Refusal::none); });
  h.op(OpClass::placement, [&] {
    h.se(h.c).vprot = h.se(h.c).deadline;
    h.checker.on_set_next(h.se(h.c), true);
  });
  EXPECT_FALSE(has_violation(h.checker, Id::PROT)) << listing(h.checker);
}

// At a real pick the protection is at most the shortest request queued. v6.12's
// RUN_TO_PARITY protects to the deadline (the vlag == deadline stash): a 20 ms
// request picked while a 3 ms one waits keeps the CPU for its whole slice. The
// same tasks on mainline get a protection of calc_delta_fair(3 ms).
void parity_past_shorter(Harness& h) {
  h.a = h.create("A", 0);
  h.b = h.create("B", 0);
  h.op(OpClass::placement, [&] { EXPECT_EQ(h.rq.set_slice(h.a, 20'000'000), Refusal::none); });
  h.wake(h.a);
  h.wake(h.b);
  h.run(3'125'000);  // B first (the earlier deadline), then A while B waits
}

TEST(Catalogue, ProtFiresWhenPickProtectsPastShortestRequest) {
  Harness h(*profile_by_name("v6.12"));
  parity_past_shorter(h);
  EXPECT_TRUE(has_violation(h.checker, Id::PROT)) << listing(h.checker);
}

TEST(Catalogue, ProtCleanTwinPickProtectsShortestRequest) {
  Harness h;
  parity_past_shorter(h);
  EXPECT_FALSE(has_violation(h.checker, Id::PROT)) << listing(h.checker);
}

// Once curr's protection is over, the entity EEVDF would run gets the CPU at the
// next tick. 6.12.118's update_curr() reschedules an unprotected curr only when
// it is ineligible (did_preempt_short()), so T8 (eligible, its parity stash gone
// with its yield) keeps the CPU through the tick while T13 has the earliest
// eligible deadline; 0b9ca2dcabc3 (v6.17) reschedules at the end of every
// protected period, and mainline hands T13 the CPU at that tick.
std::string tick_after_protection(const char* profile) {
  return std::string("profile ") + profile +
         "\n"
         "task T0\nwake T0\nschedule\ntask T8 nice=-14 policy=batch\nwake T8\ntick\nschedule\n"
         "fork T8 -> T13\nyield T8\nwake T13\ntick\n";
}

TEST(Catalogue, ProtFiresWhenTheTickKeepsAnUnprotectedCurr) {
  const scn::ExecResult r = test::run_scenario_text(tick_after_protection("v6.12.118"));
  ASSERT_EQ(r.violations.size(), 1u);
  EXPECT_EQ(r.violations[0].id, Id::PROT);
  EXPECT_EQ(r.violations[0].where, "entity_tick / update_curr (protection over)");
  EXPECT_EQ(r.violations[0].op_index, 10);  // the second tick
}

TEST(Catalogue, ProtCleanTwinTheTickReschedulesAnUnprotectedCurr) {
  test::expect_ok(test::run_scenario_text(tick_after_protection("mainline")));
}

// Rule 5: a lone fair entity is never rescheduled by the fair class's tick.
// The corruption: inside one tick, update_curr() reschedules the lone A at slice
// expiry as v6.12-rc1's `rq->nr_running == 1` test did beside an RT task (85e511df3cec;
// B25 re-creates it through the model): task_tick_fair() calls resched_curr().
void lone_tick(Harness& h, bool corrupt) {
  h.a = h.create("A", 0);
  h.wake(h.a);
  h.run(1'000'000);
  ASSERT_EQ(h.rq.curr, h.a);
  h.op(OpClass::running, [&] {
    h.rq.tick_nopreempt();
    if (corrupt) {  // what a fair tick that rescheduled leaves behind
      h.rq.resched_curr();
      ++h.rq.fair_tick_rescheds;
    }
  });
}

TEST(Catalogue, ProtFiresWhenALoneEntityIsRescheduledByATick) {
  Harness h;
  lone_tick(h, true);
  expect_reported_at(h.checker, Id::PROT, "entity_tick / update_curr (lone entity)");
}

TEST(Catalogue, ProtCleanTwinALoneEntityKeepsTheCpuAtSliceExpiry) {
  Harness h;
  lone_tick(h, false);
  for (int i = 0; i < 6; ++i) h.op(OpClass::running, [&] { h.rq.tick_nopreempt(); });  // past its slice
  EXPECT_EQ(h.rq.fair_tick_rescheds, 0u);
  EXPECT_TRUE(clean(h.checker)) << listing(h.checker);
}

// The same rule from the scenario language: an RT task queued beside a lone
// fair task that reaches no preemption point (`tick nopreempt`). v6.12-rc1's
// update_curr() (B25) reschedules it at slice expiry, 6.12.118's does not.
std::string lone_beside_rt(const char* profile) {
  return std::string("profile ") + profile +
         "\ntask A\ntask R policy=fifo\nwake A\nrun 1ms\nwake R\n"
         "tick nopreempt\ntick nopreempt\ntick nopreempt\ntick nopreempt\ntick nopreempt\n";
}

TEST(Catalogue, ProtFiresOnB25LoneTaskBesideAnRtTask) {
  const scn::ExecResult r = test::run_scenario_text(lone_beside_rt("v6.12.118 bug=B25"));
  ASSERT_EQ(r.violations.size(), 1u);
  EXPECT_EQ(r.violations[0].id, Id::PROT);
  EXPECT_EQ(r.violations[0].where, "entity_tick / update_curr (lone entity)");
}

TEST(Catalogue, ProtCleanTwinLoneTaskBesideAnRtTask) {
  // I-PROT only: v7.0 .. v7.2 report their expected I-AUG (the stale max_slice) here too
  for (const char* p : {"v6.6", "v6.12", "v6.12.118", "v6.18", "v7.0", "v7.1", "v7.2", "v7.3", "mainline"}) {
    const scn::ExecResult r = test::run_scenario_text(lone_beside_rt(p));
    EXPECT_TRUE(r.error.empty()) << p << ": " << r.error;
    for (const auto& v : r.violations) EXPECT_NE(v.id, Id::PROT) << p << ": " << v.where << ": " << v.what;
  }
}

// A tick at the clock of a wake-up charges the running task (its group's queue
// was last updated earlier) but not its group entity: the wake-up of T15 updated
// the root queue at that clock, so the root's update_curr() sees delta 0 and
// decides nothing. Rule 4 waits for a tick that charges the queue's own curr
// (found as a false alarm by `fuzz --profile mainline --late-ticks --nohz-full
// --seed 41`, minimized).
std::string tick_at_wakeup_clock(const char* last_tick) {
  return std::string("profile mainline\ngroup G1\ntask T9\nmove T9 G1\nwake T9\ntask T15\nrun 16275500ns\n"
                     "wake T15\n") +
         last_tick + "\n";
}

TEST(Catalogue, ProtCleanTwinATickThatChargesOnlyTheTaskBelowTheGroup) {
  test::expect_ok(test::run_scenario_text(tick_at_wakeup_clock("tick 0")));
  test::expect_ok(test::run_scenario_text(tick_at_wakeup_clock("tick")));
}

// Finding F1 (docs/findings/F1.md): renicing the running task leaves vprot in the
// old weight's scale. Reported without the tolerance, tolerated with it.
void f1_scenario(Harness& h) {
  h.a = h.create("A", 19);
  h.b = h.create("B", 0);
  h.wake(h.a);
  h.schedule();
  h.wake(h.b);
  ASSERT_EQ(h.rq.curr, h.a);
  h.op(OpClass::placement, [&] { EXPECT_EQ(h.rq.set_nice(h.a, -20), Refusal::none); });
}

TEST(Catalogue, ProtFiresNaturallyOnF1WithoutTolerance) {
  Harness h(mainline(), inv::Tolerances{false});
  f1_scenario(h);
  EXPECT_TRUE(has_violation(h.checker, Id::PROT)) << listing(h.checker);
}

TEST(Catalogue, ProtToleratesF1ByDefault) {
  Harness h;
  f1_scenario(h);
  EXPECT_EQ(h.checker.stale_vprot(h.se(h.a)), inv::Finding::F1);
  EXPECT_TRUE(h.checker.known(inv::Finding::F1));
  EXPECT_FALSE(has_violation(h.checker, Id::PROT)) << listing(h.checker);
}

}  // namespace
}  // namespace eevdf::catalogue
