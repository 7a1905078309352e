// Unit tests of what the v7.2 and v7.3 profiles change: 333238da9a19's
// update_curr() before requeue_delayed_entity() (v7.2), and the v7.3-rc
// protection/wakeup arithmetic: ineligible_vruntime() (0d1e7a2bab35),
// update_protect_slice() from min(v, V) (49f87b4d0be8), set_short_buddy()
// (8f97b627ff1c) and the eligible short wakee (ba0d3bf5f97b). Each test runs
// the same state on the profile before the change, so that it fails if the
// switch does nothing. Expected values are computed by hand in the comments.
#include <gtest/gtest.h>

#include <algorithm>
#include <string_view>
#include <utility>

#include "model/fair.hpp"
#include "model/profile.hpp"
#include "model/rq.hpp"

namespace eevdf {
namespace {

constexpr u64 kNice0 = 1048576;      // NICE_0_LOAD
constexpr u64 kBaseSlice = 2800000;  // 700 us * (1 + ilog2(8))

Profile profile(std::string_view name) { return *profile_by_name(name); }

// Puts se into the tree at (vruntime, deadline, slice), as enqueue_entity() leaves it.
void queue_at(CfsRq& cfs, SchedEntity& se, u64 vruntime, u64 deadline, u64 slice) {
  se.h_load = se.load;  // v7.3 flat runqueue: a root task's EEVDF weight is its own
  se.vruntime = vruntime;
  se.deadline = deadline;
  se.slice = slice;
  se.on_rq = true;
  enqueue_entity_rb(cfs, se);
  cfs.load.weight += se.load.weight;
  cfs.nr_queued++;
  cfs.h_nr_queued++;
}

// Makes se the running, queued curr (not in the tree), charged up to now.
void make_curr(Rq& rq, int task, u64 vruntime, u64 deadline, u64 vprot) {
  SchedEntity& se = rq.tasks[static_cast<std::size_t>(task)].se;
  se.h_load = se.load;  // v7.3 flat runqueue: a root task's EEVDF weight is its own
  se.vruntime = vruntime;
  se.deadline = deadline;
  se.set_vprot(vprot);
  se.on_rq = true;
  se.exec_start = rq.clock_task;
  rq.cfs.curr = &se;
  rq.cfs.h_curr = &se;  // v7.3 flat runqueue: update_curr() charges h_curr
  rq.cfs.load.weight += se.load.weight;
  rq.cfs.nr_queued++;
  rq.cfs.h_nr_queued++;
  rq.curr = task;
}

// ---------------------------------------------------------------------------
// ineligible_vruntime() = zero_vruntime + floor(S/W) + 1, tree only
// ---------------------------------------------------------------------------

TEST(ModelV73, IneligibleVruntimeIsFlooredTreeAveragePlusOne) {
  Rq rq(profile("v7.3"));
  CfsRq& cfs = rq.cfs;
  const u64 z0 = cfs.zero_vruntime;
  EXPECT_EQ(ineligible_vruntime(cfs), z0 + 1);  // empty tree: offset 0

  SchedEntity& a = rq.tasks[rq.create_task("A", 0, Policy::normal, 0)].se;
  SchedEntity& b = rq.tasks[rq.create_task("B", 0, Policy::normal, 0)].se;
  // keys -3 and 0 at equal weight: S/W = -1.5, floored to -2, plus 1
  queue_at(cfs, a, z0 - 3, z0 + 1000, kBaseSlice);
  queue_at(cfs, b, z0, z0 + 2000, kBaseSlice);
  EXPECT_EQ(ineligible_vruntime(cfs), z0 - 1);
  // a curr is not in the sums: a curr far to the right changes nothing
  const int c = rq.create_task("C", 0, Policy::normal, 0);
  make_curr(rq, c, z0 + 1'000'000, z0 + 3'000'000, z0 + 3'000'000);
  EXPECT_EQ(ineligible_vruntime(cfs), z0 - 1);
}

TEST(ModelV73, IneligibleVruntimePositiveAverage) {
  Rq rq(profile("v7.3"));
  CfsRq& cfs = rq.cfs;
  const u64 z0 = cfs.zero_vruntime;
  SchedEntity& a = rq.tasks[rq.create_task("A", 0, Policy::normal, 0)].se;
  SchedEntity& b = rq.tasks[rq.create_task("B", 5, Policy::normal, 0)].se;  // nice 5: weight 335 << 10
  // keys 0 (w 1048576) and 3000 (w 343040): S/W = 1029120000/1391616 = 739.5..., floor 739, plus 1
  queue_at(cfs, a, z0, z0 + 1000, kBaseSlice);
  queue_at(cfs, b, z0 + 3000, z0 + 9000, kBaseSlice);
  ASSERT_EQ(b.load.weight, 343040u);
  EXPECT_EQ(ineligible_vruntime(cfs), z0 + 740);
}

// ---------------------------------------------------------------------------
// set_protect_slice(): a shortened protection ends at ineligible_vruntime()
// ---------------------------------------------------------------------------
//
// A (default slice 2.8 ms, v = z0, d = z0 + 1 ms) is picked while B (slice
// 100 us, key 3000) waits. The shortest slice is B's, so the protection is cut:
// v7.2: vprot = min(d, v + calc_delta_fair(100 us)) = z0 + 100000 (nice 0);
// v7.3 (PREEMPT_SHORT on): vprot = min(d, ineligible_vruntime) = z0 + 3000 + 1.

u64 protect_after_pick(std::string_view name, std::string_view features) {
  Profile p = profile(name);
  EXPECT_EQ(apply_features(p, features), "");
  Rq rq(p);
  CfsRq& cfs = rq.cfs;
  const u64 z0 = cfs.zero_vruntime;
  SchedEntity& a = rq.tasks[rq.create_task("A", 0, Policy::normal, 0)].se;
  SchedEntity& b = rq.tasks[rq.create_task("B", 0, Policy::normal, 0)].se;
  queue_at(cfs, b, z0 + 3000, z0 + 53000, 100000);
  a.h_load = a.load;  // v7.3 flat runqueue: set by the enqueue that queued A
  a.vruntime = z0;
  a.deadline = z0 + 1'000'000;
  a.slice = kBaseSlice;
  set_protect_slice(cfs, a);
  return a.vprot - z0;
}

TEST(ModelV73, SetProtectSliceCapsAtIneligibleVruntime) {
  EXPECT_EQ(protect_after_pick("v7.3", "PREEMPT_SHORT"), 3001u);
  EXPECT_EQ(protect_after_pick("v7.2", "PREEMPT_SHORT"), 100000u);
  // without PREEMPT_SHORT v7.3 keeps the slice-based cap
  EXPECT_EQ(protect_after_pick("v7.3", "NO_PREEMPT_SHORT"), 100000u);
}

// ---------------------------------------------------------------------------
// update_protect_slice(): vprot = min(vprot, min(v, V) + calc_delta_fair(min_slice))
// ---------------------------------------------------------------------------
//
// curr A: v = z0 + 500000, vprot = z0 + 5 ms; B in the tree at key 0; both
// nice 0, default slice. V = z0 + 250000. Minimum slice 2.8 ms.
// v7.3: min(v, V) = z0 + 250000 -> vprot = z0 + 3050000, and avg_vruntime()
//       re-bases zero_vruntime to V on the way.
// v7.2: v + 2.8 ms = z0 + 3300000, zero_vruntime untouched.

TEST(ModelV73, UpdateProtectSliceStartsFromAverage) {
  for (const char* name : {"v7.3", "v7.2"}) {
    SCOPED_TRACE(name);
    Rq rq(profile(name));
    CfsRq& cfs = rq.cfs;
    const u64 z0 = cfs.zero_vruntime;
    const int a = rq.create_task("A", 0, Policy::normal, 0);
    SchedEntity& b = rq.tasks[rq.create_task("B", 0, Policy::normal, 0)].se;
    queue_at(cfs, b, z0, z0 + kBaseSlice, kBaseSlice);
    make_curr(rq, a, z0 + 500'000, z0 + 6'000'000, z0 + 5'000'000);
    SchedEntity& ase = rq.tasks[a].se;
    update_protect_slice(cfs, ase);
    if (std::string_view(name) == "v7.3") {
      EXPECT_EQ(ase.vprot, z0 + 3'050'000);
      EXPECT_EQ(cfs.zero_vruntime, z0 + 250'000);
    } else {
      EXPECT_EQ(ase.vprot, z0 + 3'300'000);
      EXPECT_EQ(cfs.zero_vruntime, z0);
    }
  }
}

// ---------------------------------------------------------------------------
// set_short_buddy(): keep a buddy with a strictly shorter slice
// ---------------------------------------------------------------------------

TEST(ModelV73, SetShortBuddyKeepsOnlyAStrictlyShorterBuddy) {
  Rq rq(profile("v7.3"));
  CfsRq& cfs = rq.cfs;
  const u64 z0 = cfs.zero_vruntime;
  SchedEntity& s = rq.tasks[rq.create_task("S", 0, Policy::normal, 0)].se;
  SchedEntity& t = rq.tasks[rq.create_task("T", 0, Policy::normal, 0)].se;
  SchedEntity& u = rq.tasks[rq.create_task("U", 0, Policy::normal, 0)].se;
  queue_at(cfs, s, z0, z0 + 500000, 500000);
  queue_at(cfs, t, z0, z0 + 200000, 200000);
  queue_at(cfs, u, z0, z0 + 100000, 500000);

  EXPECT_TRUE(set_short_buddy(cfs, s));  // no buddy yet
  EXPECT_EQ(cfs.next, &s);
  EXPECT_TRUE(set_short_buddy(cfs, t));  // 500 us buddy, 200 us wakee: replaced
  EXPECT_EQ(cfs.next, &t);
  EXPECT_FALSE(set_short_buddy(cfs, s));  // 200 us buddy kept over a 500 us wakee
  EXPECT_EQ(cfs.next, &t);
  cfs.next = &s;
  EXPECT_TRUE(set_short_buddy(cfs, u));  // equal slices: replaced (the tie-break d2e010082757 is tip only)
  EXPECT_EQ(cfs.next, &u);
}

// ---------------------------------------------------------------------------
// wakeup_preempt_fair(): an eligible short wakee preempts even when the pick
// returns another entity, cancels curr's protection and becomes the buddy
// ---------------------------------------------------------------------------
//
// curr A: key 100, slice 2.8 ms, protected to z0 + 1 ms. X: key 0, d = z0 +
// 1000. S (the wakee, slice 1 ms): key 50, d = z0 + 500000. All nice 0, so
// V = z0 + 50: A is not eligible, X and S are. The unprotected pick returns
// X (earliest eligible deadline), not S.
// v7.2: no preemption; update_protect_slice leaves vprot at z0 + 1 ms
//       (min(z0 + 1 ms, v + 1 ms)).
// v7.3: S is eligible and shorter -> preempt, vprot := v, next := S.

// The state above: A runs (not eligible), X and the short S are queued.
// Returns the ids of A and S.
std::pair<int, int> short_wakee_state(Rq& rq) {
  CfsRq& cfs = rq.cfs;
  const u64 z0 = cfs.zero_vruntime;
  const int a = rq.create_task("A", 0, Policy::normal, 0);
  SchedEntity& x = rq.tasks[rq.create_task("X", 0, Policy::normal, 0)].se;
  const int s = rq.create_task("S", 0, Policy::normal, 1'000'000);
  queue_at(cfs, x, z0, z0 + 1000, kBaseSlice);
  queue_at(cfs, rq.tasks[s].se, z0 + 50, z0 + 500'000, 1'000'000);
  make_curr(rq, a, z0 + 100, z0 + 1'000'000, z0 + 1'000'000);
  return {a, s};
}

TEST(ModelV73, EligibleShortWakeePreemptsAndBecomesBuddy) {
  for (const char* name : {"v7.3", "v7.2"}) {
    SCOPED_TRACE(name);
    Rq rq(profile(name));
    CfsRq& cfs = rq.cfs;
    const u64 z0 = cfs.zero_vruntime;
    const auto [a, s] = short_wakee_state(rq);
    SchedEntity& sse = rq.tasks[s].se;
    SchedEntity& ase = rq.tasks[a].se;
    ASSERT_FALSE(entity_eligible(cfs, ase));
    ASSERT_TRUE(entity_eligible(cfs, sse));

    wakeup_preempt_fair(rq, rq.tasks[s], wake_flags::TTWU);
    if (std::string_view(name) == "v7.3") {
      EXPECT_TRUE(rq.need_resched);
      EXPECT_EQ(cfs.next, &sse);
      EXPECT_EQ(ase.vprot, ase.vruntime);
    } else {
      EXPECT_FALSE(rq.need_resched);
      EXPECT_EQ(cfs.next, nullptr);
      EXPECT_EQ(ase.vprot, z0 + 1'000'000);
    }
  }
}

// 7ad0ec7890b3: with PREEMPT_SHORT a pending reschedule no longer ends the
// decision. The same state as above with need_resched already set: v7.3 still
// runs it (S becomes the buddy, A's protection is cancelled); v7.2 returns at once.
TEST(ModelV73, PendingReschedDoesNotEndShortDecision) {
  for (const char* name : {"v7.3", "v7.2"}) {
    SCOPED_TRACE(name);
    Rq rq(profile(name));
    CfsRq& cfs = rq.cfs;
    const u64 z0 = cfs.zero_vruntime;
    const auto [a, s] = short_wakee_state(rq);
    SchedEntity& sse = rq.tasks[s].se;
    rq.need_resched = true;
    wakeup_preempt_fair(rq, rq.tasks[s], wake_flags::TTWU);
    const bool v73 = std::string_view(name) == "v7.3";
    EXPECT_EQ(cfs.next, v73 ? &sse : nullptr);
    EXPECT_EQ(rq.tasks[a].se.vprot, v73 ? z0 + 100 : z0 + 1'000'000);
  }
}

// An idle curr is preempted by a non-idle wakee with action PICK on v7.3: the
// protection is cancelled but the wakee does not become the buddy (v7.2 takes
// the SHORT path: cancel and clear_buddies(curr), no buddy either, so only v7.3
// is checked for the buddy; a SHORT action would set it).
TEST(ModelV73, IdleCurrPreemptedWithoutBuddy) {
  Rq rq(profile("v7.3"));
  CfsRq& cfs = rq.cfs;
  const u64 z0 = cfs.zero_vruntime;
  const int a = rq.create_task("A", 0, Policy::idle, 0);
  const int w = rq.create_task("W", 0, Policy::normal, 100'000);
  SchedEntity& wse = rq.tasks[w].se;
  queue_at(cfs, wse, z0 + 5000, z0 + 105'000, 100'000);
  make_curr(rq, a, z0, z0 + 1'000'000, z0 + 1'000'000);
  wakeup_preempt_fair(rq, rq.tasks[w], wake_flags::TTWU);
  EXPECT_TRUE(rq.need_resched);
  EXPECT_EQ(cfs.next, nullptr);
  EXPECT_EQ(rq.tasks[a].se.vprot, z0);  // cancel_protect_slice(): vprot := v
}

// A delayed wakee never preempts on v7.3 (04998aa54848), even with a shorter
// slice and the earliest eligible deadline; v7.2's SHORT path would run the
// pick. Same state as above with S delayed and X's deadline later than S's.
TEST(ModelV73, DelayedShortWakeeDoesNotPreempt) {
  Rq rq(profile("v7.3"));
  CfsRq& cfs = rq.cfs;
  const u64 z0 = cfs.zero_vruntime;
  const int a = rq.create_task("A", 0, Policy::normal, 0);
  SchedEntity& x = rq.tasks[rq.create_task("X", 0, Policy::normal, 0)].se;
  const int s = rq.create_task("S", 0, Policy::normal, 1'000'000);
  SchedEntity& sse = rq.tasks[s].se;
  queue_at(cfs, x, z0, z0 + 900'000, kBaseSlice);
  queue_at(cfs, sse, z0 + 50, z0 + 500'000, 1'000'000);
  sse.sched_delayed = true;
  make_curr(rq, a, z0 + 100, z0 + 1'000'000, z0 + 1'000'000);
  wakeup_preempt_fair(rq, rq.tasks[s], wake_flags::TTWU);
  EXPECT_FALSE(rq.need_resched);
  EXPECT_EQ(cfs.next, nullptr);
  EXPECT_TRUE(sse.sched_delayed);  // the pick did not run: nothing dequeued it
}

// ---------------------------------------------------------------------------
// v7.2 (333238da9a19): requeue_delayed_entity() after update_curr()
// ---------------------------------------------------------------------------
//
// A and B (nice 0) start at V0; A runs 1 ms and sleeps ineligible (V = V0 +
// 0.5 ms): delayed with vlag = -0.5 ms. B runs 300 us without a tick (run()
// charges curr only at ticks), then A is woken while still queued.
// v7.1: the requeue sees v_B = V0: V = V0 + 0.5 ms, lag -0.5 ms.
// v7.2: update_curr first: v_B = V0 + 0.3 ms, V = V0 + 0.65 ms, lag = -0.35 ms
//       (max with the old -0.5 ms, DELAY_ZERO keeps it <= 0).
// In both, V - lag = V0 + 1 ms = v_A: no re-placement.

TEST(ModelV72, RequeueDelayedSeesCurrentRuntime) {
  for (const char* name : {"v7.2", "v7.1"}) {
    SCOPED_TRACE(name);
    Rq rq(profile(name));
    const int a = rq.create_task("A", 0, Policy::normal, 0);
    const int b = rq.create_task("B", 0, Policy::normal, 0);
    ASSERT_EQ(rq.wake(a, false), Refusal::none);
    ASSERT_EQ(rq.wake(b, false), Refusal::none);
    rq.schedule();
    ASSERT_EQ(rq.curr, a);
    rq.run(1'000'000);
    ASSERT_EQ(rq.sleep(a), Refusal::none);
    SchedEntity& ase = rq.tasks[a].se;
    ASSERT_TRUE(ase.sched_delayed);
    ASSERT_EQ(ase.vlag, -500'000);
    ASSERT_EQ(rq.curr, b);
    const u64 va = ase.vruntime;
    rq.run(300'000);
    ASSERT_EQ(rq.wake(a, false), Refusal::none);
    EXPECT_FALSE(ase.sched_delayed);
    EXPECT_EQ(ase.vruntime, va);
    EXPECT_EQ(ase.vlag, std::string_view(name) == "v7.2" ? -350'000 : -500'000);
  }
}

TEST(ModelV73, ProfilesAreListed) {
  const auto& names = profile_names();
  EXPECT_NE(std::find(names.begin(), names.end(), "v7.2"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "v7.3"), names.end());
  EXPECT_TRUE(profile("v7.2").behaviour.requeue_updates_curr);
  EXPECT_FALSE(profile("v7.1").behaviour.requeue_updates_curr);
  EXPECT_TRUE(profile("mainline").behaviour.requeue_updates_curr);
  EXPECT_NE(profile("mainline").behaviour.wakeup_preempt, WakeupPreempt::v7_3);
}

}  // namespace
}  // namespace eevdf
