// "A check that cannot fail is a defect": for every invariant of the catalogue
// (invariants/ids.hpp) except I-FAIR, a test that makes the checker report a
// violation with exactly that id, and a clean twin — the same setting without
// the corruption — in which that id is not reported.
//
// The model is driven through its entry points, each wrapped in
// begin_op()/end_op() as scenario/executor.cpp does (tests/catalogue/harness.hpp);
// the corruption is a write to the public state (or a direct Observer call) inside
// one operation, and the comment next to it names the kernel mechanism it mimics.
// A test named "Was DEFECT N" guards a checker defect found while writing the
// catalogue, now fixed in invariants/.
//
// One file per family of invariants/: this one I-NULLPICK, I-KEY, I-ELIG, I-AVG0,
// I-FRESH (average), I-SUM, I-CNT (accounting) and I-AUG (tree); the others in
// tests/catalogue/ (one program, invariants_catalogue_test).
#include "catalogue/harness.hpp"

namespace eevdf::catalogue {
namespace {

// ===========================================================================
// I-NULLPICK
// ===========================================================================

// pick_eevdf() returning NULL on a non-empty queue (the kernel dereferences it).
TEST(Catalogue, NullPickReportedAtPickWithEntitiesQueued) {
  Harness h;
  h.busy();
  ASSERT_EQ(h.cfs().nr_queued, 3u);
  h.op(OpClass::running, [&] { h.checker.on_pick(h.cfs(), nullptr, true, PickCaller::schedule); });
  EXPECT_TRUE(has_violation(h.checker, Id::NULLPICK)) << listing(h.checker);
}

TEST(Catalogue, NullPickCleanTwinEmptyQueueMayPickNull) {
  Harness h;
  ASSERT_EQ(h.cfs().nr_queued, 0u);
  h.op(OpClass::running, [&] { h.checker.on_pick(h.cfs(), nullptr, true, PickCaller::schedule); });
  EXPECT_FALSE(has_violation(h.checker, Id::NULLPICK)) << listing(h.checker);
  EXPECT_TRUE(clean(h.checker)) << listing(h.checker);
}

// pick_next_entity()'s NULL dereference, raised as a warning, is a NULLPICK, not a WARN.
TEST(Catalogue, NullPickWarningMapsToNullPick) {
  Harness h;
  h.busy();
  h.op(OpClass::running, [&] { h.checker.on_warn(Warn::pick_next_entity_null, nullptr); });
  EXPECT_TRUE(has_violation(h.checker, Id::NULLPICK)) << listing(h.checker);
  EXPECT_FALSE(has_violation(h.checker, Id::WARN)) << listing(h.checker);
}

// A lost update makes sum_w_vruntime hugely negative: the kernel-typed
// eligibility test rejects every queued entity (post-op state check), and the
// next schedule() really picks NULL and oopses.
TEST(Catalogue, NullPickWhenSumMakesNothingEligible) {
  Harness h;
  h.busy();
  h.op(OpClass::placement, [&] { h.cfs().sum_w_vruntime -= static_cast<s64>(h.total_weight()) * 1'000'000'000; });
  EXPECT_TRUE(has_violation(h.checker, Id::NULLPICK)) << listing(h.checker);
  const std::size_t before = h.checker.violations().size();
  h.op(OpClass::running, [&] { h.rq.schedule(); });
  EXPECT_TRUE(h.rq.oops);
  bool at_pick = false;
  for (std::size_t i = before; i < h.checker.violations().size(); ++i)
    at_pick = at_pick || h.checker.violations()[i].id == Id::NULLPICK;
  EXPECT_TRUE(at_pick) << listing(h.checker);
}

// A zero_vruntime left 2^42 behind both entities (a frozen zero point): the
// re-basing keeps I-SUM exact modulo 2^64, but Σ key·w = 2^63 wraps to -2^63
// and the kernel finds nobody eligible.
TEST(Catalogue, NullPickWhenFrozenZeroPointWrapsTheSum) {
  Harness h;
  h.a = h.create("A", 0);
  h.b = h.create("B", 0);
  h.wake(h.a);
  h.wake(h.b);
  ASSERT_EQ(h.cfs().sum_weight, 2 * kNice0);
  ASSERT_EQ(h.cfs().sum_w_vruntime, 0);
  h.op(OpClass::placement, [&] { update_zero_vruntime(h.cfs(), -(s64{1} << 42)); });
  EXPECT_TRUE(has_violation(h.checker, Id::NULLPICK)) << listing(h.checker);
  EXPECT_TRUE(has_violation(h.checker, Id::OVF)) << listing(h.checker);
  EXPECT_FALSE(has_violation(h.checker, Id::SUM)) << listing(h.checker);
  h.schedule();
  EXPECT_TRUE(h.rq.oops);
}

TEST(Catalogue, NullPickCleanTwinScheduleOnBusyQueue) {
  Harness h;
  h.busy();
  h.op(OpClass::placement, [&] { update_zero_vruntime(h.cfs(), -(s64{1} << 20)); });  // harmless re-base
  h.schedule();
  EXPECT_FALSE(h.rq.oops);
  EXPECT_FALSE(has_violation(h.checker, Id::NULLPICK)) << listing(h.checker);
  EXPECT_TRUE(clean(h.checker)) << listing(h.checker);
}

// ===========================================================================
// I-KEY
// ===========================================================================

// zero_vruntime moved 1 s (virtual) away from V, consistently with the sums
// (update_zero_vruntime re-bases them): I-SUM holds, but every key is far
// beyond the lag bounds — a zero point that stopped tracking V.
TEST(Catalogue, KeyFiresWhenZeroVruntimeDriftsAway) {
  Harness h;
  h.busy();
  h.op(OpClass::placement, [&] { update_zero_vruntime(h.cfs(), 1'000'000'000); });
  EXPECT_TRUE(has_violation(h.checker, Id::KEY)) << listing(h.checker);
  EXPECT_FALSE(has_violation(h.checker, Id::SUM)) << listing(h.checker);
  EXPECT_FALSE(has_violation(h.checker, Id::OVF)) << listing(h.checker);
}

// One queued entity drifts 1 s ahead (sums kept exact): its key is out of bounds.
TEST(Catalogue, KeyFiresWhenOneEntityDriftsAway) {
  Harness h;
  h.busy();
  h.op(OpClass::placement, [&] { shift_in_tree(h.cfs(), h.se(h.a), 1'000'000'000); });
  EXPECT_TRUE(has_violation(h.checker, Id::KEY)) << listing(h.checker);
  EXPECT_FALSE(has_violation(h.checker, Id::SUM)) << listing(h.checker);
}

TEST(Catalogue, KeyCleanTwinZeroVruntimeRebasedToV) {
  Harness h;
  h.busy();
  h.op(OpClass::placement, [&] {
    update_zero_vruntime(h.cfs(), avg_vruntime_offset(h.cfs(), null_observer()));  // what avg_vruntime() does
  });
  EXPECT_FALSE(has_violation(h.checker, Id::KEY)) << listing(h.checker);
  EXPECT_TRUE(clean(h.checker)) << listing(h.checker);
}

// ===========================================================================
// I-ELIG
// ===========================================================================

// H (nice -20) and L (nice 19) queued; L pushed k ahead with k·(w_H + w_L) just
// above 2^63 while k·w_L fits. A kernel without b6eee96843e8 (64-bit key·load
// in vruntime_eligible) sees the product wrap negative and calls L eligible;
// exactly, L is far right of V.
void elig_overflow_setting(Harness& h) {
  h.a = h.create("H", -20);
  h.b = h.create("L", 19);
  h.wake(h.a);
  h.wake(h.b);
  ASSERT_TRUE(h.in_tree(h.a) && h.in_tree(h.b));
  const u64 W = h.total_weight();
  ASSERT_EQ(W, h.se(h.a).load.weight + h.se(h.b).load.weight);
  const s64 key_l = entity_key(h.cfs(), h.se(h.b));
  const s64 k = static_cast<s64>((u64{1} << 63) / W + 1) - key_l;
  h.op(OpClass::placement, [&] { shift_in_tree(h.cfs(), h.se(h.b), k); });
}

TEST(Catalogue, EligFiresWhenKeyTimesLoadWrapsWithout128BitEligibility) {
  Profile p = mainline();
  p.behaviour.eligible_int128 = false;
  Harness h(p);
  elig_overflow_setting(h);
  EXPECT_TRUE(has_violation(h.checker, Id::ELIG)) << listing(h.checker);
}

TEST(Catalogue, EligCleanTwinWith128BitEligibility) {
  Harness h;  // mainline: eligible_int128 = true
  elig_overflow_setting(h);
  EXPECT_FALSE(has_violation(h.checker, Id::ELIG)) << listing(h.checker);
  EXPECT_TRUE(has_violation(h.checker, Id::KEY)) << listing(h.checker);  // the far key itself is still out of bounds
}

// A corrupted sum_w_vruntime (lost __sum_w_vruntime_sub) makes the kernel call
// the ineligible curr C eligible.
TEST(Catalogue, EligFiresWhenSumIsCorrupted) {
  Harness h;
  h.busy();
  ASSERT_FALSE(vruntime_eligible(h.cfs(), h.se(h.c).vruntime, null_observer()));
  h.op(OpClass::placement, [&] { h.cfs().sum_w_vruntime += static_cast<s64>(h.total_weight()) * 10'000'000; });
  EXPECT_TRUE(vruntime_eligible(h.cfs(), h.se(h.c).vruntime, null_observer()));
  EXPECT_TRUE(has_violation(h.checker, Id::ELIG)) << listing(h.checker);
}

TEST(Catalogue, EligCleanTwinBusyQueue) {
  Harness h;
  h.busy();
  h.run(3'000'000);
  EXPECT_FALSE(has_violation(h.checker, Id::ELIG)) << listing(h.checker);
  EXPECT_TRUE(clean(h.checker)) << listing(h.checker);
}

// ===========================================================================
// I-AVG0
// ===========================================================================

// sum_w_vruntime too large by 10 W: avg_vruntime()'s offset is floor(S/W) of
// the wrong sum, 10 ns ahead of the exact floor (as if the floor adjustment or
// a sum update were lost).
TEST(Catalogue, Avg0FiresWhenFloorDisagreesWithExactSums) {
  Harness h;
  h.busy();
  h.op(OpClass::placement, [&] { h.cfs().sum_w_vruntime += 10 * static_cast<s64>(h.total_weight()); });
  EXPECT_TRUE(has_violation(h.checker, Id::AVG0)) << listing(h.checker);
}

// sum_w_vruntime next to S64_MIN: avg_vruntime()'s `S -= W-1` wraps to a huge
// positive sum, V lands far to the right and is not eligible.
TEST(Catalogue, Avg0FiresWhenFloorAdjustmentWraps) {
  Harness h;
  h.woken();  // no curr: V comes from the tree sums alone
  h.op(OpClass::placement, [&] { h.cfs().sum_w_vruntime = std::numeric_limits<s64>::min() + 5; });
  const inv::Violation* v = find_violation(h.checker, Id::AVG0);
  ASSERT_NE(v, nullptr) << listing(h.checker);
  EXPECT_NE(v->what.find("would not be eligible"), std::string::npos) << v->what;
}

TEST(Catalogue, Avg0CleanTwin) {
  Harness h;
  h.busy();
  h.op(OpClass::placement, [&] {
    avg_vruntime(h.cfs());                   // re-base: 0 <= S < W
    shift_in_tree(h.cfs(), h.se(h.a), -3);  // S -= 3·w_A: a negative S/W that must be floored
  });
  ASSERT_LT(inv::exact_average(h.cfs()).sum, 0);
  EXPECT_FALSE(has_violation(h.checker, Id::AVG0)) << listing(h.checker);
  EXPECT_TRUE(clean(h.checker)) << listing(h.checker);
}

// I-FRESH. v7.1's enqueue_task_fair() requeues a delayed entity without
// update_curr() (333238da9a19 added it in v7.2): C blocked while delayed, the
// clock moves 300 us without a tick, and C's wakeup re-decides its lag against
// a V that misses curr's 300 us.
// v7.1's own finding (I-AUG: stale max_slice) is not checked here.
inv::Selection without_aug() {
  inv::Selection s;
  s.set(Id::AUG, false);
  return s;
}

TEST(Catalogue, FreshFiresWhenADelayedTaskIsRequeuedBetweenTicks) {
  Harness h(*profile_by_name("v7.1"), {}, without_aug());
  h.with_delayed();
  const int curr = h.rq.curr;
  ASSERT_GE(curr, 0);
  h.run(300'000);  // 5.3 ms -> 5.6 ms: no tick boundary
  ASSERT_EQ(h.rq.clock_task - h.se(curr).exec_start, 300'000u);
  h.wake(h.c);
  const inv::Violation* v = find_violation(h.checker, Id::FRESH);
  ASSERT_NE(v, nullptr) << listing(h.checker);
  EXPECT_EQ(v->where, "update_entity_lag");
  EXPECT_NE(v->what.find("300000 ns of runtime not yet charged"), std::string::npos) << v->what;
}

// Clean twin: the same wakeup at a tick boundary, where the tick has just charged curr.
TEST(Catalogue, FreshCleanTwinRequeueRightAfterATick) {
  Harness h(*profile_by_name("v7.1"), {}, without_aug());
  h.with_delayed();
  h.run(700'000);  // 5.3 ms -> 6.0 ms: ends on the tick, which ran update_curr()
  ASSERT_EQ(h.rq.clock_task % 1'000'000, 0u);
  h.wake(h.c);
  EXPECT_FALSE(has_violation(h.checker, Id::FRESH)) << listing(h.checker);
}

// ===========================================================================
// I-SUM
// ===========================================================================

// A lost/duplicated update of __sum_w_vruntime_add / sum_w_vruntime_sub.
TEST(Catalogue, SumFiresWhenSumWVruntimeDrifts) {
  Harness h;
  h.busy();
  h.op(OpClass::placement, [&] { h.cfs().sum_w_vruntime += 1; });
  EXPECT_TRUE(has_violation(h.checker, Id::SUM)) << listing(h.checker);
}

// sum_weight not decremented (e.g. a dequeue path that skips __dequeue_entity's accounting).
TEST(Catalogue, SumFiresWhenSumWeightDrifts) {
  Harness h;
  h.busy();
  h.op(OpClass::placement, [&] { h.cfs().sum_weight += 2; });
  EXPECT_TRUE(has_violation(h.checker, Id::SUM)) << listing(h.checker);
}

TEST(Catalogue, SumCleanTwin) {
  Harness h;
  h.busy();
  h.op(OpClass::placement, [&] { avg_vruntime(h.cfs()); });  // a legitimate re-basing of the sums
  EXPECT_FALSE(has_violation(h.checker, Id::SUM)) << listing(h.checker);
  EXPECT_TRUE(clean(h.checker)) << listing(h.checker);
}

// ===========================================================================
// I-CNT
// ===========================================================================

// account_entity_enqueue() counted twice.
TEST(Catalogue, CntFiresOnNrQueuedDrift) {
  Harness h;
  h.busy();
  h.op(OpClass::placement, [&] { h.cfs().nr_queued++; });
  EXPECT_TRUE(has_violation(h.checker, Id::CNT)) << listing(h.checker);
}

// h_nr_runnable not restored when a delayed task is requeued (clear_delayed() skipped).
TEST(Catalogue, CntFiresOnHNrRunnableDrift) {
  Harness h;
  h.with_delayed();
  h.op(OpClass::placement, [&] { h.cfs().h_nr_runnable++; });
  EXPECT_TRUE(has_violation(h.checker, Id::CNT)) << listing(h.checker);
}

TEST(Catalogue, CntCleanTwin) {
  Harness h;
  h.with_sleeper();
  h.wake(h.sleeper);
  h.run(2'000'000);
  EXPECT_FALSE(has_violation(h.checker, Id::CNT)) << listing(h.checker);
  EXPECT_TRUE(clean(h.checker)) << listing(h.checker);
}

// ===========================================================================
// I-AUG
// ===========================================================================

// A node's max_slice augment left stale (9a8bc9bb4c3f: __enqueue_entity did not initialise it).
TEST(Catalogue, AugFiresOnStaleMaxSlice) {
  Harness h;
  h.busy();
  SchedEntity* n = h.cfs().tasks_timeline.leftmost();
  ASSERT_NE(n, nullptr);
  h.op(OpClass::placement, [&] { n->max_slice += 1; });
  EXPECT_TRUE(has_violation(h.checker, Id::AUG)) << listing(h.checker);
}

// A stale min_vruntime augment (the heap search of pick_eevdf descends on it).
TEST(Catalogue, AugFiresOnStaleMinVruntime) {
  Harness h;
  h.busy();
  SchedEntity* root = h.cfs().tasks_timeline.root();
  ASSERT_NE(root, nullptr);
  h.op(OpClass::placement, [&] { root->min_vruntime -= 1000; });
  EXPECT_TRUE(has_violation(h.checker, Id::AUG)) << listing(h.checker);
}

// The real upstream bug: on the v7.1 profile one wake-up leaves max_slice 0
// (corpus/regressions/v7.1-max-slice-not-initialised.scn).
TEST(Catalogue, AugFiresNaturallyOnV71) {
  Harness h(*profile_by_name("v7.1"));
  const int t = h.create("T0", 0);
  h.wake(t);
  EXPECT_TRUE(has_violation(h.checker, Id::AUG)) << listing(h.checker);
}

TEST(Catalogue, AugCleanTwinMainline) {
  Harness h;
  h.busy();
  const int t = h.create("T0", 0);
  h.wake(t);
  h.run(5'000'000);
  EXPECT_FALSE(has_violation(h.checker, Id::AUG)) << listing(h.checker);
  EXPECT_TRUE(clean(h.checker)) << listing(h.checker);
}

// `explain` says where each invariant runs: every one on the model and in
// lockstep, on the kernel's own code all but I-HLOAD (no tree has v7.3's flat
// runqueue), I-OVF there at two functions only (the model's shadow re-run on
// the tree's operands, kernelsrc/kernel_backend.cpp).
TEST(Catalogue, EveryInvariantSaysWhereItRuns) {
  for (std::size_t i = 0; i < inv::kIdCount; ++i) {
    const auto id = static_cast<Id>(i);
    const std::string_view where = inv::id_backends(id);
    EXPECT_EQ(where.substr(0, 5), "model") << inv::id_name(id);
    EXPECT_NE(where.find("lockstep"), std::string_view::npos) << inv::id_name(id);
    const bool on_kernel = where.find("kernel (") != std::string_view::npos;
    EXPECT_EQ(on_kernel, id != Id::HLOAD) << inv::id_name(id) << ": " << where;
  }
  EXPECT_NE(inv::id_backends(Id::OVF).find("reweight_entity() and place_entity() only"), std::string_view::npos);
}

}  // namespace
}  // namespace eevdf::catalogue
