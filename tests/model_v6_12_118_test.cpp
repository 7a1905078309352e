// Unit tests of the v6.12.118 profile (6.12.118 as Debian packages it): the
// stable backports that make it differ from v6.12.0. The zero_vruntime key base
// re-based by avg_vruntime() (79f3f9bedd14 + b3d99f43c72b + 1319ea57529e) where
// v6.12 keeps the monotonic min_vruntime; yield forfeiting the vruntime
// (79104becf42b + 1319ea57529e); no NEXT_BUDDY for a delayed wakee
// (493afbd187c4); the idle curr's parity stash cancelled (f553741ac8c0).
//
// Expected values are derived by hand from the rules of the 6.12.118 fair.c
// (docs/profiles.md, section v6.12.118); each derivation is in the comments.
#include <gtest/gtest.h>

#include <string>

#include "invariants/ids.hpp"
#include "model/fair.hpp"
#include "model/profile.hpp"
#include "model/rq.hpp"
#include "support/profile_with_bug.hpp"
#include "support/run_scenario.hpp"

namespace eevdf {
namespace {

constexpr u64 kZero0 = static_cast<u64>(-(s64{1} << 20));  // init_cfs_rq()
constexpr u64 kMs = 1000000;

using test::profile_with_bug;

SchedEntity& se_of(Rq& rq, int id) { return rq.tasks[static_cast<std::size_t>(id)].se; }

TEST(V612118Profile, BackportedDefaults) {
  const Profile p = profile_with_bug("v6.12.118");
  const Profile p0 = profile_with_bug("v6.12");
  EXPECT_EQ(p.behaviour.key_base, KeyBase::zero_at_avg_deadline);
  EXPECT_EQ(p0.behaviour.key_base, KeyBase::min_vruntime);
  EXPECT_EQ(p.behaviour.yield, YieldRule::forfeit_update_deadline);
  EXPECT_TRUE(p.known[Feature::PICK_BUDDY]);
  EXPECT_TRUE(p.feat(Feature::PICK_BUDDY));
  EXPECT_FALSE(p0.known[Feature::PICK_BUDDY]);
  EXPECT_EQ(p.sysctl_sched_base_slice(), 2800000u);  // 700 us x (1 + ilog2(8))
  EXPECT_EQ(p0.sysctl_sched_base_slice(), 3000000u);
  // what 6.12.118 keeps from v6.12.0
  EXPECT_TRUE(p.behaviour.parity_in_vlag);
  EXPECT_FALSE(p.behaviour.lag_limit_max_slice);
  EXPECT_FALSE(p.behaviour.avg_full_weight);
  EXPECT_FALSE(p.behaviour.eligible_int128);
  EXPECT_EQ(p.behaviour.reweight, ReweightRule::eevdf_clamped_lag);
  EXPECT_EQ(p.behaviour.wakeup_preempt, WakeupPreempt::v6_12);
  EXPECT_TRUE(p.behaviour.pick_buddy_in_pick_next());
}

// Two nice-0 tasks wake at the initial zero point; A (leftmost of two equal
// deadlines) runs 1 ms, B waits at zero0. Nothing re-based yet on either
// profile: v6.12's update_min_vruntime() keeps min(A.v, B's min_vruntime) =
// zero0; on v6.12.118 only place_entity() ran avg_vruntime(), with delta 0,
// and A's deadline (zero0 + 1.4 ms) is not reached. V = zero0 +
// (0 + 1 ms) * 1024 / 2048 = zero0 + 500000 on both.
struct TwoTasks {
  Rq rq;
  int a = -1, b = -1;
  explicit TwoTasks(Profile p) : rq(std::move(p)) {
    a = rq.create_task("A", 0, Policy::normal, 0);
    b = rq.create_task("B", 0, Policy::normal, 0);
    EXPECT_EQ(rq.wake(a, false), Refusal::none);
    EXPECT_EQ(rq.wake(b, false), Refusal::none);
    rq.run(kMs);
    EXPECT_EQ(rq.curr, a);
    EXPECT_EQ(se_of(rq, a).vruntime, kZero0 + kMs);
    EXPECT_EQ(se_of(rq, b).vruntime, kZero0);
    EXPECT_EQ(rq.cfs.zero_vruntime, kZero0);
  }
};

// v6.12: avg_vruntime() only reads; the key base stays at min_vruntime.
TEST(V612118ZeroVruntime, V612AvgVruntimeOnlyReads) {
  TwoTasks t(profile_with_bug("v6.12"));
  EXPECT_EQ(avg_vruntime(t.rq.cfs), kZero0 + 500000);
  EXPECT_EQ(t.rq.cfs.zero_vruntime, kZero0);
  EXPECT_EQ(t.rq.cfs.sum_w_vruntime, 0);  // B's key 0 at scale_load_down(1024 << 10) = 1024
  EXPECT_EQ(entity_key(t.rq.cfs, se_of(t.rq, t.b)), 0);
}

// v6.12.118: the same call ends in update_zero_vruntime(): zero_vruntime
// := V, and the tree's sum follows, sum_w_vruntime -= sum_weight * delta =
// 0 - 1024 * 500000. Keys are now relative to V: B -500000, A +500000.
// Eligibility is the same on both (A is not, B is).
TEST(V612118ZeroVruntime, AvgVruntimeReBasesTheKeys) {
  TwoTasks t(profile_with_bug("v6.12.118"));
  EXPECT_EQ(avg_vruntime(t.rq.cfs), kZero0 + 500000);
  EXPECT_EQ(t.rq.cfs.zero_vruntime, kZero0 + 500000);
  EXPECT_EQ(t.rq.cfs.sum_weight, 1024u);
  EXPECT_EQ(t.rq.cfs.sum_w_vruntime, -512000000);
  EXPECT_EQ(entity_key(t.rq.cfs, se_of(t.rq, t.b)), -500000);
  EXPECT_EQ(entity_key(t.rq.cfs, se_of(t.rq, t.a)), 500000);
  EXPECT_FALSE(entity_eligible(t.rq.cfs, se_of(t.rq, t.a)));
  EXPECT_TRUE(entity_eligible(t.rq.cfs, se_of(t.rq, t.b)));
  // a second call moves nothing: V is already the key base
  EXPECT_EQ(avg_vruntime(t.rq.cfs), kZero0 + 500000);
  EXPECT_EQ(t.rq.cfs.zero_vruntime, kZero0 + 500000);
  EXPECT_EQ(t.rq.cfs.sum_w_vruntime, -512000000);
}

// A single task at HZ=1000. v6.12: update_curr() -> update_min_vruntime()
// moves the key base to curr's vruntime at every tick. v6.12.118: only
// update_deadline() calls avg_vruntime() (1319ea57529e; the tick does not,
// unlike b3d99f43c72b alone): A's first deadline zero0 + 1.4 ms is passed at
// the 2 ms tick, which re-bases to A.v = zero0 + 2 ms and sets the next
// deadline to zero0 + 4.8 ms; the 3 and 4 ms ticks leave the base there;
// the 5 ms tick passes the deadline and re-bases to zero0 + 5 ms.
TEST(V612118ZeroVruntime, LoneTaskReBasedAtItsDeadlineOnly) {
  Rq rq12(profile_with_bug("v6.12"));
  const int a12 = rq12.create_task("A", 0, Policy::normal, 0);
  ASSERT_EQ(rq12.wake(a12, false), Refusal::none);
  rq12.run(4 * kMs);
  EXPECT_EQ(se_of(rq12, a12).vruntime, kZero0 + 4 * kMs);
  EXPECT_EQ(rq12.cfs.zero_vruntime, kZero0 + 4 * kMs);

  Rq rq(profile_with_bug("v6.12.118"));
  const int a = rq.create_task("A", 0, Policy::normal, 0);
  ASSERT_EQ(rq.wake(a, false), Refusal::none);
  rq.run(4 * kMs);
  EXPECT_EQ(se_of(rq, a).vruntime, kZero0 + 4 * kMs);
  EXPECT_EQ(se_of(rq, a).deadline, kZero0 + 4800000);
  EXPECT_EQ(rq.cfs.zero_vruntime, kZero0 + 2 * kMs);
  EXPECT_EQ(entity_key(rq.cfs, se_of(rq, a)), s64{2000000});
  rq.run(kMs);
  EXPECT_EQ(se_of(rq, a).deadline, kZero0 + 5 * kMs + 2800000);
  EXPECT_EQ(rq.cfs.zero_vruntime, kZero0 + 5 * kMs);
}

// Yield of an eligible task. A runs 1 ms alone; B wakes at V = A.v (lag 0),
// so A (key equal to V) is eligible and keeps the CPU on its parity stash.
// v6.12 (deadline_only): A.d += one virtual slice, zero0 + 1.5 ms + 3 ms,
// A.v stays. v6.12.118 (79104becf42b + 1319ea57529e): A.v := A.d =
// zero0 + 1.4 ms, then update_deadline(): d = v + 2.8 ms. Both then run B.
TEST(V612118Yield, EligibleYielderForfeitsItsVruntime) {
  for (const char* name : {"v6.12", "v6.12.118"}) {
    const bool backports = std::string(name) == "v6.12.118";
    Rq rq(profile_with_bug(name));
    const int a = rq.create_task("A", 0, Policy::normal, 0);
    const int b = rq.create_task("B", 0, Policy::normal, 0);
    ASSERT_EQ(rq.wake(a, false), Refusal::none);
    rq.run(kMs);
    ASSERT_EQ(rq.wake(b, false), Refusal::none);
    ASSERT_EQ(se_of(rq, b).vruntime, kZero0 + kMs) << name;
    ASSERT_EQ(rq.curr, a) << name;
    ASSERT_EQ(rq.yield(a), Refusal::none);
    EXPECT_EQ(rq.curr, b) << name;
    EXPECT_EQ(se_of(rq, a).vruntime, backports ? kZero0 + 1400000 : kZero0 + kMs) << name;
    EXPECT_EQ(se_of(rq, a).deadline, backports ? kZero0 + 1400000 + 2800000 : kZero0 + 1500000 + 3000000) << name;
  }
}

// 493afbd187c4: with NEXT_BUDDY, renicing a sched_delayed task (B slept while
// ineligible) runs prio_changed_fair() -> check_preempt_wakeup_fair() for it.
// v6.12.0 makes the delayed B the next buddy (I-DELAY at set_next_buddy, then
// pick_next_entity() returns it: the WARN); 6.12.118 passes over it.
std::string delayed_wakee(const std::string& profile) {
  return "profile " + profile +
         "\nfeatures NEXT_BUDDY\ntask A\ntask B\ntask C\nwake A\nwake B\nwake C\nrun 3200us\n"
         "sleep B\nexpect field B.sched_delayed == 1\nnice B 5\nrun 10ms\n";
}

TEST(V612118Wakeup, NextBuddySkipsADelayedWakee) {
  const auto old = test::run_scenario_text(delayed_wakee("v6.12"));
  ASSERT_FALSE(old.violations.empty());
  EXPECT_EQ(old.violations.front().id, inv::Id::DELAY);
  EXPECT_EQ(old.violations.front().where, "set_next_buddy");
  const auto r = test::run_scenario_text(delayed_wakee("v6.12.118"));
  EXPECT_TRUE(r.ok()) << (r.violations.empty() ? r.error : r.violations.front().what);
}

// f553741ac8c0: the v6.12 regression scenario of the idle curr that keeps its
// parity stash: on 6.12.118 the stash is cancelled and A runs.
TEST(V612118Wakeup, IdleCurrLosesItsStash) {
  const std::string text =
      "profile v6.12.118\ntask I policy=idle\ntask A\nwake I\nrun 1ms\nwake A\nrun 100us\n"
      "expect curr A\nexpect no-violation\n";
  const auto r = test::run_scenario_text(text);
  EXPECT_TRUE(r.ok()) << (r.violations.empty() ? "" : r.violations.front().what)
                      << (r.expectation_failures.empty() ? "" : r.expectation_failures.front());
}

// The bug switches of the fixes 6.12.118 took from 6.12.y apply to it and
// re-create the earlier 6.12.y kernels. B02 (b3d99f43c72b undone: zero_vruntime
// moves only in __enqueue/__dequeue_entity, the state of 6.12.y after the
// 79f3f9bedd14 backport): a lone task's key grows with its runtime; I-KEY
// allows 4·(two own-slice lag bounds) = 4·(5.6 + 5.6) ms at nice 0 with
// v6.12's limit max(2·slice, TICK), so 50 ms crosses it, 31.5 ms (mainline's
// B02 scenario, limit slice + TICK) does not. B20 (79104becf42b undone): the
// yield of mainline's B20 scenario pushes only the deadline.
TEST(V612118BugSwitches, B02AndB20ReCreateEarlier612y) {
  const std::string b02 = "profile v6.12.118 bug=B02\ntask T0\nwake T0\nrun 50ms\nexpect violation I-KEY\n";
  EXPECT_TRUE(test::run_scenario_text(b02).ok());
  const std::string b02_short = "profile v6.12.118 bug=B02\ntask T0\nwake T0\nrun 31478500ns\nexpect no-violation\n";
  EXPECT_TRUE(test::run_scenario_text(b02_short).ok());
  const std::string fixed = "profile v6.12.118\ntask T0\nwake T0\nrun 50ms\nexpect no-violation\n";
  EXPECT_TRUE(test::run_scenario_text(fixed).ok());
  const std::string b20 =
      "profile v6.12.118 bug=B20\ntask T0\ntask T1\nwake T1\nwake T0\ntick\nyield T1\nexpect violation I-DL\n";
  EXPECT_TRUE(test::run_scenario_text(b20).ok());
}

}  // namespace
}  // namespace eevdf
