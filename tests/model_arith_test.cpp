// Unit tests of the kernel arithmetic helpers of the model: weights,
// __calc_delta on both paths, div_s64 / div64_long, the overflow-reporting
// multiply/add helpers and the wrap-around vruntime comparisons.
// Expected values are the worked examples of kernel-eevdf.md §1 and §3.1,
// recomputed by hand in the comments.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "model/kernel_types.hpp"
#include "model/weights.hpp"

namespace eevdf {
namespace {

constexpr s64 kS64Max = std::numeric_limits<s64>::max();
constexpr s64 kS64Min = std::numeric_limits<s64>::min();
constexpr u64 kU64Max = std::numeric_limits<u64>::max();

// Records every overflow the helpers report.
class RecordingObserver : public Observer {
 public:
  std::vector<OverflowEvent> events;
  void on_overflow(const OverflowEvent& e) override { events.push_back(e); }
};

// ---------------------------------------------------------------------------
// Weight tables and scaling
// ---------------------------------------------------------------------------

TEST(ModelArith, TaskLoadWeightIsScaledTableEntry) {
  const LoadWeight n0 = task_load_weight(0, false);
  EXPECT_EQ(n0.weight, 1048576u);  // 1024 << 10 = NICE_0_LOAD
  EXPECT_EQ(n0.inv_weight, 4194304u);
  const LoadWeight p1 = task_load_weight(1, false);
  EXPECT_EQ(p1.weight, 839680u);  // 820 << 10
  EXPECT_EQ(p1.inv_weight, 5237765u);
  const LoadWeight m20 = task_load_weight(-20, false);
  EXPECT_EQ(m20.weight, 90891264u);  // 88761 << 10
  EXPECT_EQ(m20.inv_weight, 48388u);
  const LoadWeight p19 = task_load_weight(19, false);
  EXPECT_EQ(p19.weight, 15360u);  // 15 << 10
  const LoadWeight idle = task_load_weight(0, true);
  EXPECT_EQ(idle.weight, 3072u);  // WEIGHT_IDLEPRIO << 10
  EXPECT_EQ(idle.inv_weight, 1431655765u);
}

TEST(ModelArith, ScaleLoadDown) {
  EXPECT_EQ(scale_load_down(0), 0u);
  EXPECT_EQ(scale_load_down(1), 2u);     // max(2, 1 >> 10 = 0)
  EXPECT_EQ(scale_load_down(2), 2u);
  EXPECT_EQ(scale_load_down(2047), 2u);  // 2047 >> 10 = 1 -> 2
  EXPECT_EQ(scale_load_down(3072), 3u);
  EXPECT_EQ(scale_load_down(1048576), 1024u);
  EXPECT_EQ(scale_load(1024), 1048576u);
}

TEST(ModelArith, UpdateInvWeight) {
  LoadWeight lw{2, 0};  // scale_load_down(2) = 2
  update_inv_weight(lw);
  EXPECT_EQ(lw.inv_weight, 0x7FFFFFFFu);  // 0xFFFFFFFF / 2
  LoadWeight zero{0, 0};
  update_inv_weight(zero);
  EXPECT_EQ(zero.inv_weight, 0xFFFFFFFFu);
  LoadWeight cached{1048576, 12345};  // already computed: left alone
  update_inv_weight(cached);
  EXPECT_EQ(cached.inv_weight, 12345u);
  LoadWeight nice0{1048576, 0};
  update_inv_weight(nice0);
  EXPECT_EQ(nice0.inv_weight, 4194303u);  // floor(0xFFFFFFFF/1024), not the table's 4194304
}

// ---------------------------------------------------------------------------
// calc_delta_fair / __calc_delta
// ---------------------------------------------------------------------------

TEST(ModelArith, CalcDeltaFairNicePlusOneBothPaths) {
  // full: floor(10^6 * 1048576 / 839680) = floor(1248780.49) = 1248780
  // inverse: fact = 1024 * 5237765 = 5363471360 > 2^32 -> fs = 1, shift 31,
  //          fact = 2681735680; floor(10^6 * 2681735680 / 2^31) = 1248780
  RecordingObserver obs;
  LoadWeight full = task_load_weight(1, false);
  LoadWeight inv = task_load_weight(1, false);
  EXPECT_EQ(calc_delta_fair(1000000, full, CalcDeltaPath::full_weight, obs), 1248780u);
  EXPECT_EQ(calc_delta_fair(1000000, inv, CalcDeltaPath::inverse_weight, obs), 1248780u);
  EXPECT_TRUE(obs.events.empty());
}

TEST(ModelArith, CalcDeltaFairNiceMinus20BothPaths) {
  // full: floor(10^6 * 1048576 / 90891264) = floor(11536.5) = 11536
  // inverse: fact = 1024 * 48388 = 49549312 < 2^32; floor(10^6 * 49549312 / 2^32) = 11536
  RecordingObserver obs;
  LoadWeight full = task_load_weight(-20, false);
  LoadWeight inv = task_load_weight(-20, false);
  EXPECT_EQ(calc_delta_fair(1000000, full, CalcDeltaPath::full_weight, obs), 11536u);
  EXPECT_EQ(calc_delta_fair(1000000, inv, CalcDeltaPath::inverse_weight, obs), 11536u);
  EXPECT_TRUE(obs.events.empty());
}

TEST(ModelArith, CalcDeltaFairGroupWeightTwo) {
  // A group entity at MIN_SHARES has raw weight 2.
  // inverse: scale_load_down(2) = 2, inv = 0x7FFFFFFF, fact = 1024 * inv =
  //   2199023254528 -> fact_hi = 511, fs = 9, shift 23, fact = 4294967294;
  //   floor(10^6 * 4294967294 / 2^23) = floor(511999999.76) = 511999999 (behaves as 2048)
  // full: 10^6 * 1048576 / 2 = 524288000000 (1024 times more)
  RecordingObserver obs;
  LoadWeight inv{2, 0};
  LoadWeight full{2, 0};
  EXPECT_EQ(calc_delta_fair(1000000, inv, CalcDeltaPath::inverse_weight, obs), 511999999u);
  EXPECT_EQ(inv.inv_weight, 0x7FFFFFFFu);  // computed lazily by __update_inv_weight
  EXPECT_EQ(calc_delta_fair(1000000, full, CalcDeltaPath::full_weight, obs), 524288000000u);
  EXPECT_TRUE(obs.events.empty());
}

TEST(ModelArith, CalcDeltaFairNiceZeroIsIdentity) {
  RecordingObserver obs;
  for (const u64 delta : {u64{0}, u64{1}, u64{999999}, u64{1} << 50, kU64Max}) {
    LoadWeight a = task_load_weight(0, false);
    LoadWeight b = task_load_weight(0, false);
    EXPECT_EQ(calc_delta_fair(delta, a, CalcDeltaPath::full_weight, obs), delta);
    EXPECT_EQ(calc_delta_fair(delta, b, CalcDeltaPath::inverse_weight, obs), delta);
  }
  // Identity means no multiplication at all, hence no overflow even for U64_MAX.
  EXPECT_TRUE(obs.events.empty());
}

TEST(ModelArith, CalcDeltaFullWeightReportsWrap) {
  // delta * 2^20 wraps for delta >= 2^44 (kernel-eevdf.md §12.8).
  RecordingObserver obs;
  LoadWeight lw = task_load_weight(1, false);
  const u64 delta = u64{1} << 44;
  const u64 r = calc_delta_fair(delta, lw, CalcDeltaPath::full_weight, obs);
  EXPECT_EQ(r, 0u);  // (2^44 * 2^20) mod 2^64 = 0, / 839680 = 0
  ASSERT_EQ(obs.events.size(), 1u);
  EXPECT_EQ(obs.events[0].site, Site::calc_delta_delta_x_weight);
  EXPECT_EQ(obs.events[0].exact, static_cast<i128>(1) << 64);
  EXPECT_EQ(obs.events[0].kernel, 0);
  // One below the limit does not wrap.
  obs.events.clear();
  const u64 below = (u64{1} << 44) - 1;
  EXPECT_EQ(calc_delta_fair(below, lw, CalcDeltaPath::full_weight, obs),
            static_cast<u64>((static_cast<u128>(below) << 20) / 839680u));
  EXPECT_TRUE(obs.events.empty());
}

// ---------------------------------------------------------------------------
// div_s64 / div64_long
// ---------------------------------------------------------------------------

TEST(ModelArith, DivS64TruncatesTowardZero) {
  EXPECT_EQ(div_s64(7, 2), 3);
  EXPECT_EQ(div_s64(-7, 2), -3);  // not -4 (that would be a floor)
  EXPECT_EQ(div_s64(7, -2), -3);
  EXPECT_EQ(div_s64(-7, -2), 3);
  EXPECT_EQ(div_s64(-1, 3), 0);
  EXPECT_EQ(div_s64(kS64Min, 1), kS64Min);
  EXPECT_EQ(div_s64(kS64Min, -1), kS64Min);  // wraps, as the kernel's idiv would not trap on the model
}

TEST(ModelArith, DivS64TruncatesDivisorToS32) {
  // The prototype is div_s64(s64, s32): a wider argument loses its high bits.
  EXPECT_EQ(div_s64(10, (s64{1} << 32) + 3), 3);            // divisor behaves as 3
  EXPECT_EQ(div_s64(-10, (s64{1} << 32) + 3), -3);
  EXPECT_EQ(div_s64(100, (s64{1} << 32) - 5), -20);         // low 32 bits = 0xFFFFFFFB = -5
  EXPECT_EQ(div_s64(s64{1} << 40, (s64{1} << 31)), -512);   // 2^31 as s32 is -2^31
  EXPECT_EQ(div_s64(1000, (s64{7} << 32) | 10), 100);
  // div64_long keeps the full 64-bit divisor.
  EXPECT_EQ(div64_long(10, (s64{1} << 32) + 3), 0);
  EXPECT_EQ(div64_long(s64{1} << 40, s64{1} << 31), 512);
}

TEST(ModelArith, Div64Long) {
  EXPECT_EQ(div64_long(-7, 2), -3);
  EXPECT_EQ(div64_long(7, -2), -3);
  EXPECT_EQ(div64_long(-3145728, 2097152), -1);  // -1.5 truncates to -1
  EXPECT_EQ(div64_long(kS64Max, 1 << 20), s64{8796093022207});
  EXPECT_EQ(div64_long(kS64Min, -1), kS64Min);
  EXPECT_EQ(div64_long(-(s64{1} << 40) - 1, s64{1} << 40), -1);
}

// ---------------------------------------------------------------------------
// mul/add/sub helpers: report exactly when the 128-bit result differs
// ---------------------------------------------------------------------------

TEST(ModelArith, MulS64ReportsExactlyOnOverflow) {
  RecordingObserver obs;
  EXPECT_EQ(mul_s64(3, -5, Site::place_entity_lag_x_load, obs), -15);
  // -2^32 * 2^31 = -2^63 fits exactly.
  EXPECT_EQ(mul_s64(-(s64{1} << 32), s64{1} << 31, Site::place_entity_lag_x_load, obs), kS64Min);
  EXPECT_EQ(mul_s64(kS64Max, 1, Site::place_entity_lag_x_load, obs), kS64Max);
  EXPECT_EQ(mul_s64(kS64Min, 1, Site::place_entity_lag_x_load, obs), kS64Min);
  EXPECT_TRUE(obs.events.empty());

  // 2^32 * 2^31 = 2^63 does not fit: wraps to S64_MIN.
  EXPECT_EQ(mul_s64(s64{1} << 32, s64{1} << 31, Site::sum_w_vruntime_add_key_x_weight, obs), kS64Min);
  ASSERT_EQ(obs.events.size(), 1u);
  EXPECT_EQ(obs.events[0].site, Site::sum_w_vruntime_add_key_x_weight);
  EXPECT_EQ(obs.events[0].lhs, static_cast<i128>(1) << 32);
  EXPECT_EQ(obs.events[0].rhs, static_cast<i128>(1) << 31);
  EXPECT_EQ(obs.events[0].exact, static_cast<i128>(1) << 63);
  EXPECT_EQ(obs.events[0].kernel, static_cast<i128>(kS64Min));

  // S64_MIN * -1 = 2^63: overflow, the kernel gets S64_MIN back.
  EXPECT_EQ(mul_s64(kS64Min, -1, Site::rescale_entity_vlag_x_weight, obs), kS64Min);
  ASSERT_EQ(obs.events.size(), 2u);
  EXPECT_EQ(obs.events[1].site, Site::rescale_entity_vlag_x_weight);

  // A product that wraps all the way around into a small positive value:
  // (2^62 + 1) * 4 = 2^64 + 4 -> 4.
  const s64 a = (s64{1} << 62) + 1;
  EXPECT_EQ(mul_s64(a, 4, Site::vruntime_eligible_key_x_load, obs), 4);
  ASSERT_EQ(obs.events.size(), 3u);
  EXPECT_EQ(obs.events[2].exact, (static_cast<i128>(1) << 64) + 4);
  EXPECT_EQ(obs.events[2].kernel, 4);
}

TEST(ModelArith, AddSubS64ReportExactlyOnOverflow) {
  RecordingObserver obs;
  EXPECT_EQ(add_s64(kS64Max, -1, Site::sum_w_vruntime_add_accumulate, obs), kS64Max - 1);
  EXPECT_EQ(add_s64(kS64Min, kS64Max, Site::sum_w_vruntime_add_accumulate, obs), -1);
  EXPECT_EQ(sub_s64(-1, kS64Max, Site::sum_w_vruntime_sub_accumulate, obs), kS64Min);
  EXPECT_TRUE(obs.events.empty());

  EXPECT_EQ(add_s64(kS64Max, 1, Site::sum_w_vruntime_add_accumulate, obs), kS64Min);
  ASSERT_EQ(obs.events.size(), 1u);
  EXPECT_EQ(obs.events[0].site, Site::sum_w_vruntime_add_accumulate);
  EXPECT_EQ(obs.events[0].exact, static_cast<i128>(kS64Max) + 1);
  EXPECT_EQ(obs.events[0].kernel, static_cast<i128>(kS64Min));

  EXPECT_EQ(add_s64(kS64Min, -1, Site::avg_vruntime_accumulate, obs), kS64Max);
  ASSERT_EQ(obs.events.size(), 2u);
  EXPECT_EQ(obs.events[1].exact, static_cast<i128>(kS64Min) - 1);

  EXPECT_EQ(sub_s64(kS64Min, 1, Site::avg_vruntime_floor_adjust, obs), kS64Max);
  ASSERT_EQ(obs.events.size(), 3u);
  EXPECT_EQ(obs.events[2].site, Site::avg_vruntime_floor_adjust);

  EXPECT_EQ(sub_s64(0, kS64Min, Site::update_zero_vruntime_accumulate, obs), kS64Min);
  ASSERT_EQ(obs.events.size(), 4u);
  EXPECT_EQ(obs.events[3].exact, -static_cast<i128>(kS64Min));
}

TEST(ModelArith, MulU64ReportsExactlyOnOverflow) {
  RecordingObserver obs;
  EXPECT_EQ(mul_u64(u64{1} << 32, (u64{1} << 32) - 1, Site::calc_delta_delta_x_weight, obs),
            (u64{1} << 32) * ((u64{1} << 32) - 1));
  EXPECT_TRUE(obs.events.empty());
  EXPECT_EQ(mul_u64(u64{1} << 32, u64{1} << 32, Site::calc_delta_delta_x_weight, obs), 0u);
  ASSERT_EQ(obs.events.size(), 1u);
  EXPECT_EQ(obs.events[0].exact, static_cast<i128>(1) << 64);
}

TEST(ModelArith, MulU64U32Shr) {
  EXPECT_EQ(mul_u64_u32_shr(1000000, 2681735680u, 31), 1248780u);
  // floor((2^64-1)(2^32-1)/2^32) = floor(2^64 - 2^32 - 1 + 2^-32) = 2^64 - 2^32 - 1
  EXPECT_EQ(mul_u64_u32_shr(kU64Max, 0xFFFFFFFFu, 32), kU64Max - (u64{1} << 32));
  EXPECT_EQ(mul_u64_u32_shr(3, 1, 1), 1u);
  EXPECT_EQ(fls64(0), 0);
  EXPECT_EQ(fls64(1), 1);
  EXPECT_EQ(fls64(511), 9);
  EXPECT_EQ(fls64(u64{1} << 63), 64);
  EXPECT_EQ(ilog2(8), 3);
}

// ---------------------------------------------------------------------------
// Wrap-around vruntime ordering
// ---------------------------------------------------------------------------

TEST(ModelArith, VruntimeDiffWrapsAround) {
  EXPECT_EQ(vruntime_diff(0, kU64Max), 1);
  EXPECT_EQ(vruntime_diff(kU64Max, 0), -1);
  EXPECT_EQ(vruntime_diff(10, kU64Max - 5), 16);
  EXPECT_TRUE(vruntime_before(kU64Max - 5, 10));
  EXPECT_FALSE(vruntime_before(10, kU64Max - 5));
  EXPECT_FALSE(vruntime_before(7, 7));
  // Exactly half the circle apart, the difference is S64_MIN both ways, so each
  // value is "before" the other: the order is only meaningful within 2^63.
  EXPECT_EQ(vruntime_diff(u64{1} << 63, 0), kS64Min);
  EXPECT_EQ(vruntime_diff(0, u64{1} << 63), kS64Min);
  EXPECT_TRUE(vruntime_before(u64{1} << 63, 0));
  EXPECT_TRUE(vruntime_before(0, u64{1} << 63));
  // Just under half the circle the order is the plain one; just over, it flips.
  EXPECT_TRUE(vruntime_before(0, (u64{1} << 63) - 1));
  EXPECT_FALSE(vruntime_before((u64{1} << 63) - 1, 0));
  EXPECT_TRUE(vruntime_before((u64{1} << 63) + 1, 0));
}

TEST(ModelArith, MinMaxVruntimeWrapAround) {
  // 10 lies after UINT64_MAX-5 on the circle, so the minimum is UINT64_MAX-5.
  EXPECT_EQ(min_vruntime(kU64Max - 5, 10), kU64Max - 5);
  EXPECT_EQ(min_vruntime(10, kU64Max - 5), kU64Max - 5);
  EXPECT_EQ(max_vruntime(kU64Max - 5, 10), 10u);
  EXPECT_EQ(max_vruntime(10, kU64Max - 5), 10u);
  EXPECT_EQ(min_vruntime(3, 4), 3u);
  EXPECT_EQ(max_vruntime(3, 4), 4u);
  // Equal: the first argument is kept.
  EXPECT_EQ(min_vruntime(kU64Max, kU64Max), kU64Max);
}

TEST(ModelArith, AsS64IsModular) {
  EXPECT_EQ(as_s64(kU64Max), -1);
  EXPECT_EQ(as_s64(u64{1} << 63), kS64Min);
  EXPECT_EQ(as_u64(-1), kU64Max);
}

}  // namespace
}  // namespace eevdf
