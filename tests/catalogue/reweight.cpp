// The invariant catalogue (tests/invariants_catalogue_test.cpp): I-RW
// (invariants/reweight.cpp).
#include "catalogue/harness.hpp"

namespace eevdf::catalogue {
namespace {

// ===========================================================================
// I-RW
// ===========================================================================

// A queued entity reweighted from nice 0 to nice 5 and, in the same breath,
// re-placed 5 ms (virtual) to the right: V moves (the behaviour that
// 101f3498b4bd reverted: reweight must keep V put).
TEST(Catalogue, RwFiresWhenQueuedReweightMovesV) {
  Harness h;
  h.busy();
  SchedEntity& se = h.se(h.b);
  ASSERT_TRUE(h.in_tree(h.b));
  const u64 new_weight = h.se(h.c).load.weight;  // nice 5
  h.op(OpClass::placement, [&] {
    CfsRq& cfs = h.cfs();
    h.checker.on_reweight_begin(cfs, se, new_weight);
    dequeue_entity_rb(cfs, se);
    cfs.load.weight -= se.load.weight;
    se.load.weight = new_weight;
    se.vruntime += 5'000'000;
    se.deadline += 5'000'000;
    cfs.load.weight += se.load.weight;
    enqueue_entity_rb(cfs, se);
    h.checker.on_reweight_end(cfs, se);
  });
  EXPECT_TRUE(has_violation(h.checker, Id::RW)) << listing(h.checker);
}

TEST(Catalogue, RwCleanTwinQueuedReweight) {
  Harness h;
  h.busy();
  ASSERT_TRUE(h.in_tree(h.b));
  const u64 new_weight = h.se(h.c).load.weight;
  h.op(OpClass::placement, [&] { reweight_entity(h.cfs(), h.se(h.b), new_weight); });  // calls the hooks itself
  EXPECT_EQ(h.se(h.b).load.weight, new_weight);
  EXPECT_FALSE(has_violation(h.checker, Id::RW)) << listing(h.checker);
  EXPECT_TRUE(clean(h.checker)) << listing(h.checker);
}

// A sleeper reweighted from nice 0 to nice 5 without rescale_entity(): vlag
// keeps its value, so w·vlag (the service lag) changes by vlag·(w' - w).
TEST(Catalogue, RwFiresWhenSleeperVlagIsNotRescaled) {
  Harness h;
  h.with_sleeper();
  SchedEntity& se = h.se(h.sleeper);
  const u64 nice5 = task_load_weight(5, false).weight;
  h.op(OpClass::placement, [&] {
    h.checker.on_reweight_begin(h.cfs(), se, nice5);
    se.load.weight = nice5;  // update_load_set() without rescale_entity()
    h.checker.on_reweight_end(h.cfs(), se);
  });
  EXPECT_TRUE(has_violation(h.checker, Id::RW)) << listing(h.checker);
}

TEST(Catalogue, RwCleanTwinSleeperRenice) {
  Harness h;
  h.with_sleeper();
  h.op(OpClass::placement, [&] { EXPECT_EQ(h.rq.set_nice(h.sleeper, 5), Refusal::none); });  // set_user_nice()
  EXPECT_EQ(h.se(h.sleeper).load.weight, task_load_weight(5, false).weight);
  EXPECT_FALSE(has_violation(h.checker, Id::RW)) << listing(h.checker);
  EXPECT_TRUE(clean(h.checker)) << listing(h.checker);
}

// Was DEFECT 3: I-RW's documentation says that when the lag was clamped "only the
// clamp is checked"; on_reweight_end() returns without checking anything.
// Here B sits 10 ms (virtual) right of V, beyond its ±3.8 ms lag clamp, and
// is reweighted nice 0 -> nice 1 by a reweight that forgets entity_lag()'s
// clamp: the unclamped lag is rescaled and B re-placed from it. No check fires.
TEST(Catalogue, RwChecksAClampedReweight) {
  Harness h;
  h.busy();
  SchedEntity& se = h.se(h.b);
  ASSERT_TRUE(h.in_tree(h.b));
  h.op(OpClass::placement, [&] { shift_in_tree(h.cfs(), se, 10'000'000); });
  ASSERT_TRUE(clean(h.checker)) << listing(h.checker);
  const u64 new_weight = task_load_weight(1, false).weight;
  h.op(OpClass::placement, [&] {
    CfsRq& cfs = h.cfs();
    h.checker.on_reweight_begin(cfs, se, new_weight);
    const u64 V = avg_vruntime(cfs);
    const s64 raw_lag = vruntime_diff(V, se.vruntime);  // about -5.7 ms: no clamp
    ASSERT_LT(raw_lag, -static_cast<s64>(inv::lag_bound(h.rq, cfs_rq_max_slice(cfs), se.load.weight)));
    dequeue_entity_rb(cfs, se);
    cfs.load.weight -= se.load.weight;
    se.vlag = div64_long(raw_lag * static_cast<s64>(se.load.weight), static_cast<s64>(new_weight));
    se.load.weight = new_weight;
    se.deadline -= se.vruntime;
    se.deadline = se.deadline * kNice0 / new_weight;
    se.vruntime = V - as_u64(se.vlag);
    se.deadline += se.vruntime;
    cfs.load.weight += se.load.weight;
    enqueue_entity_rb(cfs, se);
    h.checker.on_reweight_end(cfs, se);
  });
  EXPECT_TRUE(has_violation(h.checker, Id::RW) || has_violation(h.checker, Id::LAG)) << listing(h.checker);
}

// v6.12's reweight_eevdf() rescales the clamped lag, so a clamped reweight moves V
// by a·(L - L_c)/W' and by no more than I-RW's rounding beyond that. A reweight
// that rescales the unclamped lag (reweight_eevdf() before 1560d1f6eb6b, B08)
// keeps V where it was: the clamp's displacement away from v6.12's V.
void v612_clamped_reweight(bool forget_clamp) {
  Harness h(*profile_by_name("v6.12"));
  h.busy();
  SchedEntity& se = h.se(h.b);
  ASSERT_TRUE(h.in_tree(h.b));
  h.op(OpClass::placement, [&] { shift_in_tree(h.cfs(), se, 30'000'000); });
  const u64 new_weight = task_load_weight(1, false).weight;
  h.op(OpClass::placement, [&] {
    CfsRq& cfs = h.cfs();
    const u64 V = avg_vruntime(cfs);
    const s64 raw_lag = vruntime_diff(V, se.vruntime);
    ASSERT_LT(raw_lag, -static_cast<s64>(inv::lag_bound(h.rq, se.slice, se.load.weight)));  // clamped
    if (!forget_clamp) {
      reweight_entity(cfs, se, new_weight);  // calls the hooks itself
      return;
    }
    h.checker.on_reweight_begin(cfs, se, new_weight);
    dequeue_entity_rb(cfs, se);
    cfs.load.weight -= se.load.weight;
    const s64 vlag = div_s64(raw_lag * static_cast<s64>(se.load.weight), static_cast<s64>(new_weight));
    const s64 vslice = div_s64(vruntime_diff(se.deadline, V) * static_cast<s64>(se.load.weight),
                               static_cast<s64>(new_weight));
    se.load.weight = new_weight;
    se.vruntime = V - as_u64(vlag);
    se.deadline = V + as_u64(vslice);
    cfs.load.weight += se.load.weight;
    enqueue_entity_rb(cfs, se);
    h.checker.on_reweight_end(cfs, se);
  });
  EXPECT_EQ(se.load.weight, new_weight);
  EXPECT_EQ(has_violation(h.checker, Id::RW), forget_clamp) << listing(h.checker);
}

TEST(Catalogue, RwV612FiresWhenAClampedReweightKeepsV) { v612_clamped_reweight(true); }
TEST(Catalogue, RwV612CleanTwinClampedReweightMovesVByTheClamp) { v612_clamped_reweight(false); }

// v6.12's reweight_eevdf() rescales the lag by the full weights w/w', while
// avg_vruntime() counts the entity at scale_load_down(): V moves by
// L_c·(a - a'·w/w')/W' (a = floor(w / 1024)), which is the truncation of
// scale_load_down() while the average counts both weights within one unit of
// w/1024 (I-RW takes it off), and scale_load_down()'s floor of 2 at or below 1024
// (reported: v6.12 expected finding).
void v612_reweight_to(u64 new_weight, bool reported) {
  Harness h(*profile_by_name("v6.12"));
  h.busy();
  SchedEntity& se = h.se(h.b);
  ASSERT_TRUE(h.in_tree(h.b));
  h.op(OpClass::placement, [&] { shift_in_tree(h.cfs(), se, 1'000'000); });  // lag -1 ms, not clamped
  const inv::ExactAverage before = inv::exact_average(h.cfs());
  const u64 zero = h.cfs().zero_vruntime;
  h.op(OpClass::placement, [&] { reweight_entity(h.cfs(), se, new_weight); });
  const inv::ExactAverage after = inv::exact_average(h.cfs());
  // exact V before and after, relative to the first zero point
  const i128 moved = vruntime_diff(h.cfs().zero_vruntime, zero) + after.sum / after.weight - before.sum / before.weight;
  EXPECT_GT(moved < 0 ? -moved : moved, 3) << "the reweight must move V beyond the old rounding allowance";
  EXPECT_EQ(has_violation(h.checker, Id::RW), reported) << listing(h.checker);
}

// 1048576 -> 15138: a' = 14, 15138 = 14·1024 + 802, a - a'·w/w' = 54.25: V moves by ~39 µs
TEST(Catalogue, RwV612TruncatedAverageWeightIsRounding) { v612_reweight_to(15138, false); }
// 1048576 -> 1006: scale_load_down(1006) = max(2, 0) = 2, a - a'·w/w' = -1060.6
TEST(Catalogue, RwV612AverageWeightFlooredAt2IsReported) { v612_reweight_to(1006, true); }
// 1048576 -> 1536: counted as 2 (2048), within one unit of 1.5: rounding
TEST(Catalogue, RwV612AverageWeightFlooredWithinAUnitIsRounding) { v612_reweight_to(1536, false); }

}  // namespace
}  // namespace eevdf::catalogue
