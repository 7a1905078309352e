// fork() whose copy of the parent races a sched_change of the parent on
// another CPU (Rq::fork_task(..., copy_races_sched_change = true), the
// scenario's 'fork P -> C racing'): the child's copy holds the parent's
// absolute deadline with rel_deadline set. B01 (3da56dc063cd not applied)
// keeps the flag through __sched_fork(); the fixed kernel clears it.
//
// Numbers (mainline, 8 CPUs: base slice 2.8 ms; one nice-0 task A woken at
// V0 = -1048576 and run 100 ms alone): A's vruntime is 98951424 and its
// deadline 99751424 (A's requests end at V0 + 1.4 ms + k·2.8 ms; the last
// before 100 ms real is 99751424). The forked child B is placed at V =
// 98951424 with lag 0.
#include <gtest/gtest.h>

#include <string_view>

#include "model/bugs.hpp"
#include "model/profile.hpp"
#include "model/rq.hpp"
#include "support/profile_with_bug.hpp"

namespace eevdf {
namespace {

constexpr u64 kV = 98951424;          // A's vruntime = V after 100 ms alone
constexpr u64 kParentDeadline = 99751424;
constexpr u64 kBaseSlice = 2800000;   // 700 us · (1 + ilog2(8))

using test::profile_with_bug;

// A runs 100 ms alone, forks B (racing or not), B is woken.
struct ForkAfterLongRun {
  Rq rq;
  int a = -1, b = -1;
  ForkAfterLongRun(Profile p, bool racing) : rq(std::move(p)) {
    a = rq.create_task("A", 0, Policy::normal, 0);
    rq.wake(a, false);
    rq.run(100000000);
    b = rq.fork_task(a, "B", racing);
    rq.wake(b, false);
  }
  const SchedEntity& se(int id) const { return rq.tasks[static_cast<std::size_t>(id)].se; }
};

TEST(ForkRace, ParentStateBeforeTheFork) {
  ForkAfterLongRun f(profile_with_bug("mainline"), false);
  EXPECT_EQ(f.se(f.a).vruntime, kV);
  EXPECT_EQ(f.se(f.a).deadline, kParentDeadline);
}

TEST(ForkRace, FixedKernelGivesTheChildAFreshHalfSliceDeadline) {
  for (bool racing : {false, true}) {
    ForkAfterLongRun f(profile_with_bug("mainline"), racing);
    EXPECT_EQ(f.se(f.b).vruntime, kV) << racing;
    EXPECT_EQ(f.se(f.b).deadline, kV + kBaseSlice / 2) << racing;  // PLACE_DEADLINE_INITIAL
    EXPECT_FALSE(f.se(f.b).rel_deadline) << racing;
  }
}

TEST(ForkRace, B01AddsTheAbsoluteDeadlineAndTheYieldDoublesVruntime) {
  ForkAfterLongRun f(profile_with_bug("mainline", "B01"), true);
  EXPECT_EQ(f.se(f.b).deadline, kV + kParentDeadline);  // 198702848: about 2V
  // A runs 1 ms more and becomes ineligible; the tick hands the CPU to B, which has not run yet
  f.rq.run(1000000);
  ASSERT_EQ(f.rq.curr, f.b);
  EXPECT_EQ(f.se(f.b).vruntime, kV);
  EXPECT_EQ(f.rq.yield(f.b), Refusal::none);
  EXPECT_EQ(f.se(f.b).vruntime, 2 * kV + 800000);       // vruntime := deadline
}

TEST(ForkRace, B01WithoutTheRaceIsHarmless) {
  ForkAfterLongRun f(profile_with_bug("mainline", "B01"), false);
  EXPECT_EQ(f.se(f.b).deadline, kV + kBaseSlice / 2);
}

TEST(ForkRace, NoRelativeDeadlineWithoutPlaceRelDeadline) {
  Profile p = profile_with_bug("mainline", "B01");
  p.features.set(Feature::PLACE_REL_DEADLINE, false);
  ForkAfterLongRun f(std::move(p), true);
  EXPECT_EQ(f.se(f.b).deadline, kV + kBaseSlice / 2);
}

}  // namespace
}  // namespace eevdf
