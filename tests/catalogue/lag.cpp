// The invariant catalogue (tests/invariants_catalogue_test.cpp): I-LAG and the
// lag clamp it bounds with (invariants/lag.cpp).
#include "catalogue/harness.hpp"

namespace eevdf::catalogue {
namespace {

// ===========================================================================
// I-LAG
// ===========================================================================

// A sleeper's saved lag beyond ±calc_delta_fair(max_slice + TICK_NSEC): an
// update_entity_lag() without the clamp (entity_lag()'s clamp lost).
TEST(Catalogue, LagFiresOnSleeperBeyondClamp) {
  Harness h;
  h.with_sleeper();
  h.op(OpClass::placement, [&] { h.se(h.sleeper).vlag = -1'000'000'000; });
  EXPECT_TRUE(has_violation(h.checker, Id::LAG)) << listing(h.checker);
}

// The same for a delayed entity, whose saved lag is also checked.
TEST(Catalogue, LagFiresOnDelayedEntityBeyondClamp) {
  Harness h;
  h.with_delayed();
  h.op(OpClass::placement, [&] { h.se(h.c).vlag = 1'000'000'000; });
  EXPECT_TRUE(has_violation(h.checker, Id::LAG)) << listing(h.checker);
}

// Queued lags no longer sum to zero up to the floor of V (V computed from a
// sum that is 10 W too large).
TEST(Catalogue, LagFiresWhenQueuedLagsDoNotSumToZero) {
  Harness h;
  h.busy();
  h.op(OpClass::placement, [&] { h.cfs().sum_w_vruntime += 10 * static_cast<s64>(h.total_weight()); });
  expect_reported_at(h.checker, Id::LAG, "avg_vruntime");
}

TEST(Catalogue, LagCleanTwinSleeperAndDelayed) {
  Harness h;
  h.with_sleeper();
  Harness d;
  d.with_delayed();
  EXPECT_FALSE(has_violation(h.checker, Id::LAG)) << listing(h.checker);
  EXPECT_FALSE(has_violation(d.checker, Id::LAG)) << listing(d.checker);
}

// I-LAG at an avg_vruntime() return: the value the code answers is the floor of
// the weighted average. 650cad561cce's floor undone (a negative sum divided
// towards zero) answers one more than the floor: reported; the true V is not.
TEST(Catalogue, LagFiresWhenAvgVruntimeAnswersAboveTheFloor) {
  Harness h(*profile_by_name("mainline"));
  h.busy();
  h.op(OpClass::running, [&] {
    const u64 v = avg_vruntime(h.rq.cfs);  // the model's V: its own call is judged too
    EXPECT_TRUE(clean(h.checker)) << listing(h.checker);
    // a V whose Σ w·(V - v) is 0 is exact; one more is beyond the floor whatever the sums
    h.checker.on_avg_vruntime(h.rq.cfs, v + 1);
  });
  const inv::Violation* v = find_violation(h.checker, Id::LAG);
  ASSERT_NE(v, nullptr) << listing(h.checker);
  EXPECT_EQ(v->where, "avg_vruntime");
  EXPECT_NE(v->what.find("(the floor of V)"), std::string::npos) << v->what;
}

// entity_lag()'s clamp on the inverse-weight path multiplies by floor(0xFFFFFFFF /
// scale_load_down(w)): for a group entity of weight 2^28 (inv_weight 16383) and a
// 3 ms slice, v6.12 clamps at (6 ms · 1024 · 16383) >> 32 = 23436 ns, below the
// exact quotient 23437.5 that lag_bound() bounds it by (23438 with the wmult
// allowance). I-RW decides "clamped" against the kernel's value.
TEST(Catalogue, KernelLagLimitIsTheKernelsClamp) {
  const Rq v612(*profile_by_name("v6.12"));
  const LoadWeight group{u64{1} << 28, 0};
  EXPECT_EQ(inv::kernel_lag_limit(v612, 3'000'000, group), 23436u);
  EXPECT_EQ(inv::lag_bound(v612, 3'000'000, group.weight), 23438u);
  EXPECT_EQ(inv::kernel_lag_limit(v612, 3'000'000, task_load_weight(0, false)), 6'000'000u);  // nice 0: 2 slices
  // mainline: calc_delta_fair(max_slice + TICK_NSEC) on the full-weight path, 4 ms · 2^20 / 2^28
  const Rq main(mainline());
  EXPECT_EQ(inv::kernel_lag_limit(main, 3'000'000, group), 15625u);
}

// lag_bound() is an upper bound of the kernel's clamp also for a group weight that is
// not a multiple of 1024: the inverse-weight path divides by floor(w / 1024).
TEST(Catalogue, LagBoundCoversTheTruncatedScaleLoadDown) {
  const Rq v66(*profile_by_name("v6.6"));
  const LoadWeight group{1024927, 0};
  EXPECT_EQ(inv::kernel_lag_limit(v66, 3'000'000, group), 6143999u);  // max(2·3 ms, 1 ms), w_sd = 1000
  EXPECT_GE(inv::lag_bound(v66, 3'000'000, group.weight), 6143999u);  // exact quotient: 6138570
}

}  // namespace
}  // namespace eevdf::catalogue
