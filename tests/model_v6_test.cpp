// Unit tests of the v6.6 and v6.12 profiles: the two-pass pick_eevdf() of
// v6.6 on a tree where the one-pass search of B10 fails, the v6.6 fork
// placement that wake_up_new_task() overwrites, the v6.12 RUN_TO_PARITY stash
// (vlag == deadline) and its cancellation by PREEMPT_SHORT, and the lag clamp
// of reweight_eevdf() that B08 removes.
//
// Expected values are derived by hand from the kernel rules
// (docs/notes/research/v6.6-v6.18.md); each derivation is in the comments.
#include <gtest/gtest.h>

#include <string>

#include "invariants/checker.hpp"
#include "model/bugs.hpp"
#include "model/fair.hpp"
#include "model/profile.hpp"
#include "model/rq.hpp"
#include "support/profile_with_bug.hpp"

namespace eevdf {
namespace {

constexpr u64 kNice0 = 1048576;       // NICE_0_LOAD
constexpr u64 kBaseSlice = 3000000;   // 750 us * (1 + ilog2(8)) with the default 8 CPUs
constexpr u64 kUnit = 100000;         // ns, the step of the hand-built tree

using test::profile_with_bug;

// Four nice-0 entities queued at vruntime zero + {0, 10, 20, 30} units with
// deadlines {40, 45, 50, 35} units (A, B, C, D), no curr. Inserted in
// vruntime order, the kernel's red-black rotations give root B, B.left = A,
// B.right = C, C.right = D. V = zero + 15 units: A and B are eligible.
// The earliest deadline overall is D's (35, ineligible); the eligible
// earliest deadline is A's (40).
struct FourEntityTree {
  Rq rq;
  int a, b, c, d;
  explicit FourEntityTree(Profile p) : rq(std::move(p)) {
    a = rq.create_task("A", 0, Policy::normal, 0);
    b = rq.create_task("B", 0, Policy::normal, 0);
    c = rq.create_task("C", 0, Policy::normal, 0);
    d = rq.create_task("D", 0, Policy::normal, 0);
    const int ids[] = {a, b, c, d};
    const u64 v[] = {0, 10, 20, 30};
    const u64 dl[] = {40, 45, 50, 35};
    for (int i = 0; i < 4; ++i) {
      SchedEntity& se = rq.tasks[static_cast<std::size_t>(ids[i])].se;
      se.vruntime = rq.cfs.zero_vruntime + v[i] * kUnit;
      se.deadline = rq.cfs.zero_vruntime + dl[i] * kUnit;
      enqueue_entity_rb(rq.cfs, se);
      se.on_rq = true;
      rq.cfs.nr_queued++;
    }
  }
  SchedEntity* se(int id) { return &rq.tasks[static_cast<std::size_t>(id)].se; }
};

TEST(V66Pick, TreeIsOrderedByVruntimeWithMinDeadline) {
  FourEntityTree t(profile_with_bug("v6.6"));
  const RbTree<SchedEntity>& tree = t.rq.cfs.tasks_timeline;
  ASSERT_EQ(tree.root(), t.se(t.b));
  ASSERT_EQ(tree.root()->rb_left, t.se(t.a));
  ASSERT_EQ(tree.root()->rb_right, t.se(t.c));
  ASSERT_EQ(t.se(t.c)->rb_right, t.se(t.d));
  EXPECT_EQ(tree.leftmost(), t.se(t.a));
  // min_deadline: D's 35 at D, C and the root; A keeps its own 40
  EXPECT_EQ(t.se(t.b)->min_deadline, t.rq.cfs.zero_vruntime + 35 * kUnit);
  EXPECT_EQ(t.se(t.c)->min_deadline, t.rq.cfs.zero_vruntime + 35 * kUnit);
  EXPECT_EQ(t.se(t.a)->min_deadline, t.rq.cfs.zero_vruntime + 40 * kUnit);
  EXPECT_TRUE(entity_eligible(t.rq.cfs, *t.se(t.b)));
  EXPECT_FALSE(entity_eligible(t.rq.cfs, *t.se(t.c)));
}

// Two-pass (b01db23d5923): at B (eligible) best = B and best_left = A; A's
// min_deadline 40 != the root's 35, so the walk goes right to C (ineligible)
// and ends. best_left's 40 is not later than best's 45: the second pass
// descends from A and returns A.
TEST(V66Pick, TwoPassFindsTheEligibleEarliestDeadline) {
  FourEntityTree t(profile_with_bug("v6.6"));
  EXPECT_EQ(pick_eevdf(t.rq.cfs, true, PickCaller::schedule), t.se(t.a));
}

// One pass (B10): the same walk keeps best = B and never returns to A.
TEST(V66Pick, OnePassOfB10MissesIt) {
  FourEntityTree t(profile_with_bug("v6.6", "B10"));
  EXPECT_EQ(pick_eevdf(t.rq.cfs, true, PickCaller::schedule), t.se(t.b));
}

// v6.6 fork: task_fork_fair() charges the parent and places the child at V
// with half a virtual slice (ENQUEUE_INITIAL); wake_up_new_task() re-places
// it without ENQUEUE_INITIAL from vlag = 0: a full virtual slice.
TEST(V66Fork, PlacementAtForkIsOverwrittenAtWakeup) {
  Rq rq(profile_with_bug("v6.6"));
  const int a = rq.create_task("A", 0, Policy::normal, 0);
  ASSERT_EQ(rq.wake(a, false), Refusal::none);
  rq.run(1000000);
  ASSERT_EQ(rq.curr, a);
  const u64 v_parent = rq.tasks[static_cast<std::size_t>(a)].se.vruntime;
  const int c = rq.fork_task(a, "C");
  ASSERT_GE(c, 0);
  const SchedEntity& child = rq.tasks[static_cast<std::size_t>(c)].se;
  EXPECT_EQ(child.vruntime, v_parent);                  // V = the lone curr's vruntime
  EXPECT_EQ(child.deadline - child.vruntime, kBaseSlice / 2);
  ASSERT_EQ(rq.wake(c, false), Refusal::none);
  EXPECT_EQ(child.vruntime, v_parent);
  EXPECT_EQ(child.deadline - child.vruntime, kBaseSlice);  // PLACE_DEADLINE_INITIAL lost
}

// v6.12 (c40dd90ac045): nothing at fork, half a slice at the first wakeup.
TEST(V612Fork, PlacementAtWakeupOnly) {
  Rq rq(profile_with_bug("v6.12"));
  const int a = rq.create_task("A", 0, Policy::normal, 0);
  ASSERT_EQ(rq.wake(a, false), Refusal::none);
  rq.run(1000000);
  const u64 v_parent = rq.tasks[static_cast<std::size_t>(a)].se.vruntime;
  const int c = rq.fork_task(a, "C");
  const SchedEntity& child = rq.tasks[static_cast<std::size_t>(c)].se;
  EXPECT_EQ(child.vruntime, 0u);  // __sched_fork()
  ASSERT_EQ(rq.wake(c, false), Refusal::none);
  EXPECT_EQ(child.vruntime, v_parent);
  EXPECT_EQ(child.deadline - child.vruntime, kBaseSlice / 2);
}

TEST(V66Slices, SetSliceIsRefused) {
  Rq rq(profile_with_bug("v6.6"));
  const int a = rq.create_task("A", 0, Policy::normal, 0);
  EXPECT_EQ(rq.set_slice(a, 1000000), Refusal::no_custom_slices);
  Rq rq12(profile_with_bug("v6.12"));
  const int b = rq12.create_task("B", 0, Policy::normal, 0);
  EXPECT_EQ(rq12.set_slice(b, 1000000), Refusal::none);
}

// v6.12 parity: A wakes alone (d = v + 1.5 ms, ENQUEUE_INITIAL), is picked
// (vlag := deadline) and runs 1 ms: v < d, so the deadline and the stash
// stay. B (nice -10: a virtual slice of about 0.32 ms) wakes at V = A's
// vruntime with half of it: an earlier deadline than A's. Both are eligible;
// pick_eevdf() keeps A because vlag == deadline: no preemption.
struct ParityRun {
  Rq rq;
  int a = -1, b = -1;
  ParityRun(Profile p, u64 b_slice) : rq(std::move(p)) {
    a = rq.create_task("A", 0, Policy::normal, 0);
    EXPECT_EQ(rq.wake(a, false), Refusal::none);
    rq.run(1000000);
    b = rq.create_task("B", -10, Policy::normal, b_slice);
    rq.need_resched = false;
    EXPECT_EQ(rq.wake(b, false), Refusal::none);
  }
  SchedEntity& se(int id) { return rq.tasks[static_cast<std::size_t>(id)].se; }
};

TEST(V612Parity, StashKeepsCurrAgainstAnEarlierDeadline) {
  ParityRun r(profile_with_bug("v6.12"), 0);
  const u64 zero = r.rq.cfs.zero_vruntime;
  EXPECT_EQ(r.rq.curr, r.a);
  EXPECT_EQ(r.se(r.a).deadline - r.se(r.a).vruntime, kBaseSlice / 2 - 1000000);
  EXPECT_EQ(as_u64(r.se(r.a).vlag), r.se(r.a).deadline);
  EXPECT_EQ(r.se(r.b).vruntime, r.se(r.a).vruntime);
  EXPECT_LT(r.se(r.b).deadline - zero, r.se(r.a).deadline - zero);
  EXPECT_FALSE(r.rq.need_resched);
}

TEST(V612Parity, WithoutRunToParityTheEarlierDeadlinePreempts) {
  Profile p = profile_with_bug("v6.12");
  ASSERT_EQ(apply_features(p, "NO_RUN_TO_PARITY"), "");
  ParityRun r(p, 0);
  EXPECT_TRUE(r.rq.need_resched);
}

// PREEMPT_SHORT: B asks for 0.1 ms < A's 3 ms, is eligible and has the
// earlier deadline: do_preempt_short() cancels the stash (vlag = deadline + 1)
// and pick_eevdf() answers B.
TEST(V612Parity, ShorterSliceCancelsTheStash) {
  ParityRun r(profile_with_bug("v6.12"), 100000);
  EXPECT_EQ(as_u64(r.se(r.a).vlag), r.se(r.a).deadline + 1);
  EXPECT_TRUE(r.rq.need_resched);
}

// reweight_eevdf(): B, queued and not curr, lies 100 ms (virtual) left of V.
// Reweighted from nice 0 to nice 19 (15360), its lag is first clamped to
// calc_delta_fair(max(2 * 3 ms, TICK), nice 0) = 6 ms, then scaled by
// 1048576 / 15360: 409 600 000 ns. Without the clamp (B08) it is
// 100 ms * 1048576 / 15360 = 6 826 666 666 ns (truncated), far beyond any
// lag bound of the new weight: I-KEY fires.
struct ReweightFarFromV {
  Rq rq;
  inv::Checker checker;
  int a = -1, b = -1;
  u64 avruntime = 0;
  explicit ReweightFarFromV(Profile p) : rq(std::move(p)) {
    a = rq.create_task("A", 0, Policy::normal, 0);
    b = rq.create_task("B", 0, Policy::normal, 0);
    EXPECT_EQ(rq.wake(a, false), Refusal::none);
    EXPECT_EQ(rq.wake(b, false), Refusal::none);
    rq.schedule();
    SchedEntity& se = rq.tasks[static_cast<std::size_t>(rq.curr == a ? b : a)].se;
    CfsRq& cfs = rq.cfs;
    dequeue_entity_rb(cfs, se);
    se.vruntime -= 200000000;  // A and B at equal weight: V - v = 100 ms
    se.deadline -= 200000000;
    enqueue_entity_rb(cfs, se);
    b = se.task_id;
    avruntime = avg_vruntime(cfs);
    EXPECT_EQ(avruntime - se.vruntime, 100000000u);
    checker.attach(rq);
    checker.begin_op(0, inv::OpClass::placement);
    reweight_entity(cfs, se, 15360);
    checker.end_op();
  }
  const SchedEntity& se() const { return rq.tasks[static_cast<std::size_t>(b)].se; }
  bool violated(inv::Id id) const {
    for (const auto& v : checker.violations())
      if (v.id == id) return true;
    return false;
  }
};

TEST(V612Reweight, EntityLagClampsBeforeRescaling) {
  ReweightFarFromV r(profile_with_bug("v6.12"));
  EXPECT_EQ(r.avruntime - r.se().vruntime, 409600000u);
  EXPECT_FALSE(r.violated(inv::Id::KEY));
}

TEST(V612Reweight, B08RescalesTheRawLag) {
  ReweightFarFromV r(profile_with_bug("v6.12", "B08"));
  EXPECT_EQ(r.avruntime - r.se().vruntime, 6826666666u);
  EXPECT_TRUE(r.violated(inv::Id::KEY));
}

// SCHED_IDLE and the saved lag. A sleeping task with vlag L switched to
// SCHED_IDLE: v6.12's set_load_weight() goes through reweight_entity(), which
// scales vlag by old/new weight = 1024·2^10 / 3·2^10 (truncated toward zero);
// v6.6.0's writes the idle weight and returns, so vlag stays L (d32960528702).
// The way back to SCHED_NORMAL rescales on both: L·3/1024 on v6.6.
struct SleepingWithLag {
  Rq rq;
  int a = -1, b = -1;
  explicit SleepingWithLag(Profile p) : rq(std::move(p)) {
    a = rq.create_task("A", 0, Policy::normal, 0);
    b = rq.create_task("B", 0, Policy::normal, 0);
    EXPECT_EQ(rq.wake(a, false), Refusal::none);
    EXPECT_EQ(rq.wake(b, false), Refusal::none);
    rq.run(1000000);
    const int running = rq.curr;
    EXPECT_EQ(rq.sleep(running), Refusal::none);
    b = running;  // the sleeper
  }
  SchedEntity& se(int id) { return rq.tasks[static_cast<std::size_t>(id)].se; }
};

TEST(V66IdleWeight, SwitchToIdleKeepsTheUnscaledLag) {
  SleepingWithLag s(profile_with_bug("v6.6"));
  const s64 lag = s.se(s.b).vlag;
  ASSERT_NE(lag, 0);
  ASSERT_EQ(s.rq.set_policy(s.b, Policy::idle), Refusal::none);
  EXPECT_EQ(s.se(s.b).load.weight, 3u << 10);
  EXPECT_EQ(s.se(s.b).vlag, lag);  // not rescaled
  ASSERT_EQ(s.rq.set_policy(s.b, Policy::normal), Refusal::none);
  EXPECT_EQ(s.se(s.b).vlag, lag * 3 / 1024);  // rescaled back: the lag shrank 341-fold
}

// v6.12 without DELAY_DEQUEUE, so that the sleeper (which ran, so its lag is
// negative) leaves the queue as on v6.6 instead of staying delayed.
Profile v6_12_no_delay() {
  Profile p = profile_with_bug("v6.12");
  p.features.set(Feature::DELAY_DEQUEUE, false);
  return p;
}

TEST(V612IdleWeight, SwitchToIdleRescalesTheLag) {
  SleepingWithLag s(v6_12_no_delay());
  const s64 lag = s.se(s.b).vlag;
  ASSERT_NE(lag, 0);
  ASSERT_EQ(s.rq.set_policy(s.b, Policy::idle), Refusal::none);
  EXPECT_EQ(s.se(s.b).vlag, lag * 1024 / 3);
  ASSERT_EQ(s.rq.set_policy(s.b, Policy::normal), Refusal::none);
  EXPECT_EQ(s.se(s.b).vlag, lag * 1024 / 3 * 3 / 1024);
}

// The checker reports the unscaled lag on v6.6 (I-RW at set_load_weight) and
// nothing on v6.12.
TEST(V66IdleWeight, CheckerReportsTheLostLag) {
  for (const char* name : {"v6.6", "v6.12"}) {
    SleepingWithLag s(std::string(name) == "v6.6" ? profile_with_bug(name) : v6_12_no_delay());
    inv::Checker checker;
    checker.attach(s.rq);
    checker.begin_op(0, inv::OpClass::placement);
    ASSERT_EQ(s.rq.set_policy(s.b, Policy::idle), Refusal::none);
    checker.end_op();
    bool reported = false;
    for (const auto& v : checker.violations()) reported |= v.id == inv::Id::RW && v.where == "set_load_weight";
    EXPECT_EQ(reported, std::string(name) == "v6.6") << name;
  }
}

}  // namespace
}  // namespace eevdf
