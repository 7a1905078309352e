// The invariant catalogue (tests/invariants_catalogue_test.cpp): I-DL, its
// fresh request, and I-SLICE (invariants/deadline.cpp).
#include "catalogue/harness.hpp"

namespace eevdf::catalogue {
namespace {

// ===========================================================================
// I-DL
// ===========================================================================

// curr's deadline pushed 1 s ahead without its vruntime following (a deadline
// set from a stale relative deadline).
TEST(Catalogue, DlFiresOnDeadlineFarAhead) {
  Harness h;
  h.busy();
  h.op(OpClass::placement, [&] { h.se(h.c).deadline += 1'000'000'000; });
  EXPECT_TRUE(has_violation(h.checker, Id::DL)) << listing(h.checker);
}

// A deadline behind the vruntime (negative request).
TEST(Catalogue, DlFiresOnDeadlineBeforeVruntime) {
  Harness h;
  h.busy();
  h.op(OpClass::placement, [&] { h.se(h.c).deadline = h.se(h.c).vruntime - 10; });
  EXPECT_TRUE(has_violation(h.checker, Id::DL)) << listing(h.checker);
}

// A completed request left in place: v reached d and no new request was issued
// (update_deadline() renewing only past the deadline, not at it).
TEST(Catalogue, DlFiresOnCompletedRequestNotRenewed) {
  Harness h;
  h.busy();
  h.op(OpClass::running, [&] { h.se(h.c).deadline = h.se(h.c).vruntime; });
  const inv::Violation* v = find_violation(h.checker, Id::DL);
  ASSERT_NE(v, nullptr) << listing(h.checker);
  EXPECT_NE(v->what.find("expected at least 1"), std::string::npos) << v->what;
}

TEST(Catalogue, DlCleanTwin) {
  Harness h;
  h.busy();
  h.run(10'000'000);  // several update_deadline() refreshes
  EXPECT_FALSE(has_violation(h.checker, Id::DL)) << listing(h.checker);
  EXPECT_TRUE(clean(h.checker)) << listing(h.checker);
}

// ===========================================================================
// I-DL's fresh request
// ===========================================================================

// The sleeper wakes, but its deadline comes out a third of a slice ahead, as a
// wake-up that kept an old relative deadline would leave it (within one
// virtual slice: the bound of I-DL alone holds).
TEST(Catalogue, DeadlineFreshRequestFiresOnAShortenedRequest) {
  Harness h;
  h.with_sleeper();
  const int s = h.sleeper;
  h.op(OpClass::placement, [&] {
    EXPECT_EQ(h.rq.wake(s, false), Refusal::none);
    SchedEntity& se = h.se(s);
    dequeue_entity_rb(h.cfs(), se);
    se.deadline = se.vruntime + (se.deadline - se.vruntime) / 3;
    enqueue_entity_rb(h.cfs(), se);
  });
  expect_reported_at(h.checker, Id::DL, "place_entity (fresh request)");
}

// Clean twin: the real wake-up issues one virtual slice.
TEST(Catalogue, DeadlineFreshRequestCleanTwin) {
  Harness h;
  h.with_sleeper();
  const int s = h.sleeper;
  h.wake(s);
  EXPECT_FALSE(has_violation(h.checker, Id::DL)) << listing(h.checker);
  EXPECT_EQ(h.se(s).deadline - h.se(s).vruntime, h.se(s).slice);  // nice 0: the virtual slice is the slice
}

// I-DL after a reweight: one virtual slice at w rescaled by w/w' may exceed
// calc_delta_fair(slice) at w' on the inverse-weight path (floored inverse of a
// weight off the nice table, truncated scale_load_down()); not on the full-weight path.
TEST(Catalogue, RescaledSliceExcessIsTheKernelsDifference) {
  const Rq v70(*profile_by_name("v7.0"));
  // 100 ms at 2^20 is 100 ms; rescaled to 10·2^20: 10 ms, where (10^8·1024·419430) >> 32 = 9999990
  EXPECT_EQ(inv::rescaled_slice_excess(v70, 100'000'000, u64{1} << 20, u64{10} << 20), 10u);
  // the other way round the rescaled slice (99999900) lies below the kernel's 100 ms
  EXPECT_EQ(inv::rescaled_slice_excess(v70, 100'000'000, u64{10} << 20, u64{1} << 20), 0u);
  const Rq main(mainline());
  EXPECT_LE(inv::rescaled_slice_excess(main, 100'000'000, u64{1} << 20, u64{10} << 20), 1u);
}

// ===========================================================================
// I-SLICE
// ===========================================================================

// A task left without a slice (zero), as if __setparam_fair() were skipped.
TEST(Catalogue, SliceFiresOnZeroSlice) {
  Harness h;
  h.busy();
  const int n = h.create("N", 0);
  h.op(OpClass::placement, [&] { h.se(n).slice = 0; });
  EXPECT_TRUE(has_violation(h.checker, Id::SLICE)) << listing(h.checker);
}

// A custom slice above 100 ms: __setparam_fair()'s clamp missing.
TEST(Catalogue, SliceFiresOnUnclampedCustomSlice) {
  Harness h;
  h.busy();
  const int n = h.create("N", 0);
  h.op(OpClass::placement, [&] {
    h.se(n).custom_slice = true;
    h.se(n).slice = 200'000'000;
  });
  EXPECT_TRUE(has_violation(h.checker, Id::SLICE)) << listing(h.checker);
}

TEST(Catalogue, SliceCleanTwinSetattrClamps) {
  Harness h;
  h.busy();
  const int n = h.create("N", 0);
  h.op(OpClass::placement, [&] { EXPECT_EQ(h.rq.set_slice(n, 200'000'000), Refusal::none); });  // sched_setattr()
  EXPECT_EQ(h.se(n).slice, 100'000'000u);
  EXPECT_FALSE(has_violation(h.checker, Id::SLICE)) << listing(h.checker);
  EXPECT_TRUE(clean(h.checker)) << listing(h.checker);
}

}  // namespace
}  // namespace eevdf::catalogue
