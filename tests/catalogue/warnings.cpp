// The invariant catalogue (tests/invariants_catalogue_test.cpp): I-OVF, I-WARN,
// I-HLOAD and I-NULLPICK's warning (invariants/warnings.cpp).
#include "catalogue/harness.hpp"

namespace eevdf::catalogue {
namespace {

// ===========================================================================
// I-OVF
// ===========================================================================

// Any s64 site driven with extreme operands through the checker as Observer.
TEST(Catalogue, OverflowFiresOnWrappingMultiplication) {
  Harness h;
  h.op(OpClass::placement, [&] {
    (void)mul_s64(std::numeric_limits<s64>::max(), 2, Site::place_entity_lag_x_load, h.checker);
  });
  expect_reported_at(h.checker, Id::OVF, site_name(Site::place_entity_lag_x_load));
}

TEST(Catalogue, OverflowCleanTwinNonWrappingMultiplication) {
  Harness h;
  h.op(OpClass::placement, [&] {
    EXPECT_EQ(mul_s64(s64{1} << 31, s64{1} << 31, Site::place_entity_lag_x_load, h.checker), s64{1} << 62);
  });
  EXPECT_FALSE(has_violation(h.checker, Id::OVF)) << listing(h.checker);
}

// update_zero_vruntime() with a huge delta: sum_weight·delta (2^21·2^50) wraps in the model itself.
TEST(Catalogue, OverflowFiresInUpdateZeroVruntime) {
  Harness h;
  h.busy();
  h.op(OpClass::placement, [&] { update_zero_vruntime(h.cfs(), s64{1} << 50); });
  expect_reported_at(h.checker, Id::OVF, site_name(Site::update_zero_vruntime_weight_x_delta));
}

TEST(Catalogue, OverflowCleanTwinUpdateZeroVruntimeModestDelta) {
  Harness h;
  h.busy();
  h.op(OpClass::placement, [&] { update_zero_vruntime(h.cfs(), s64{1} << 30); });
  EXPECT_FALSE(has_violation(h.checker, Id::OVF)) << listing(h.checker);
}

// An entity 2^43 ahead of zero_vruntime is enqueued: key·w = 2^63 wraps in __sum_w_vruntime_add.
TEST(Catalogue, OverflowFiresInSumAddForFarEntity) {
  Harness h;
  h.busy();
  h.op(OpClass::placement, [&] { shift_in_tree(h.cfs(), h.se(h.b), s64{1} << 43); });
  const inv::Violation* v = find_violation(h.checker, Id::OVF);
  ASSERT_NE(v, nullptr) << listing(h.checker);
  EXPECT_EQ(v->where, site_name(Site::sum_w_vruntime_add_key_x_weight));
}

// ===========================================================================
// I-WARN
// ===========================================================================

TEST(Catalogue, WarnFiresOnObservedWarning) {
  Harness h;
  h.busy();
  h.op(OpClass::placement, [&] { h.checker.on_warn(Warn::place_entity_zero_load, &h.se(h.a)); });
  expect_reported_at(h.checker, Id::WARN, warn_name(Warn::place_entity_zero_load));
  EXPECT_FALSE(has_violation(h.checker, Id::NULLPICK));
}

// __sum_w_vruntime_add()'s tripwire: an entity 2^42 ahead of zero_vruntime
// has key·w just over 2^62 (fits s64, so no I-OVF, but the WARN fires).
TEST(Catalogue, WarnFiresOnSumAddProductOver62Bits) {
  Harness h;
  h.busy();
  h.op(OpClass::placement, [&] { shift_in_tree(h.cfs(), h.se(h.b), s64{1} << 42); });
  expect_reported_at(h.checker, Id::WARN, warn_name(Warn::sum_w_vruntime_add_product_over_62_bits));
  EXPECT_FALSE(has_violation(h.checker, Id::OVF)) << listing(h.checker);
}

// set_next_buddy() on a task that is not queued.
TEST(Catalogue, WarnFiresOnBuddyNotQueued) {
  Harness h;
  h.with_sleeper();
  h.op(OpClass::placement, [&] { set_next_buddy(h.se(h.sleeper)); });
  expect_reported_at(h.checker, Id::WARN, warn_name(Warn::set_next_buddy_not_on_rq));
}

TEST(Catalogue, WarnCleanTwin) {
  Harness h;
  h.busy();
  h.op(OpClass::placement, [&] { shift_in_tree(h.cfs(), h.se(h.b), s64{1} << 30); });  // far, but key·w < 2^62
  h.op(OpClass::placement, [&] { set_next_buddy(h.se(h.a)); });                       // a queued buddy
  EXPECT_FALSE(has_violation(h.checker, Id::WARN)) << listing(h.checker);
}

// Was DEFECT 1: Checker::on_warn() returned early unless I-WARN is selected, before
// mapping Warn::pick_next_entity_null to I-NULLPICK; with `--only I-NULLPICK`
// the NULL-dereference warning is dropped (check_pick still reports the NULL
// pick itself, so the catalogue as a whole still sees it).
TEST(Catalogue, NullPickWarningReportedWhenWarnDeselected) {
  inv::Selection only_nullpick;
  only_nullpick.on.fill(false);
  only_nullpick.set(Id::NULLPICK, true);
  Harness h(mainline(), {}, only_nullpick);
  h.busy();
  h.op(OpClass::running, [&] { h.checker.on_warn(Warn::pick_next_entity_null, nullptr); });
  EXPECT_TRUE(has_violation(h.checker, Id::NULLPICK)) << listing(h.checker);
}

// I-HLOAD (v7.3 flat runqueue). The running task's h_load is zeroed, as a task
// that no enqueue ever weighed has it (rq->idle, spec §1): update_curr()'s
// calc_delta_fair() then divides by zero in the kernel.
TEST(Catalogue, HloadFiresOnZeroEffectiveWeight) {
  Harness h(*profile_by_name("v7.3"));
  h.busy();
  EXPECT_EQ(h.se(h.c).h_load.weight, u64{335} << 10);  // a root task: its nice-5 weight
  h.op(OpClass::running, [&] {
    h.se(h.c).h_load.weight = 0;
    h.rq.tick();  // update_curr() -> calc_delta_fair()
  });
  const inv::Violation* v = find_violation(h.checker, Id::HLOAD);
  ASSERT_NE(v, nullptr) << listing(h.checker);
  EXPECT_NE(v->where.find("MIN_SHARES"), std::string::npos) << v->where;
}

// ... and a zero __calc_prop_weight divisor: a task not accounted on its group's queue.
TEST(Catalogue, HloadFiresOnZeroPropWeightDivisor) {
  Harness h(*profile_by_name("v7.3"));
  int g = -1, t = -1;
  h.op(OpClass::placement, [&] {
    g = h.rq.create_group("G", -1, 1024);
    t = h.rq.create_task("T", 0, Policy::normal, 0, g);
  });
  h.op(OpClass::placement, [&] { calc_prop_weight(h.rq.groups[0].cfs_rq, h.se(t), kNice0); });
  EXPECT_TRUE(has_violation(h.checker, Id::HLOAD)) << listing(h.checker);
}

// Clean twin: the same running, weights as enqueue left them; and the same run on mainline.
TEST(Catalogue, HloadCleanTwin) {
  for (const char* name : {"v7.3", "mainline"}) {
    Harness h(*profile_by_name(name));
    h.busy();
    h.op(OpClass::running, [&] { h.rq.tick(); });
    EXPECT_FALSE(has_violation(h.checker, Id::HLOAD)) << name << ": " << listing(h.checker);
  }
}

}  // namespace
}  // namespace eevdf::catalogue
