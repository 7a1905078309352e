// The wake-up CPU choice's tests of one CPU (model/wake_cpu.hpp), on the model
// per profile and against the kernel tree's own sched_idle_rq().
#include <gtest/gtest.h>

#include "kernelsrc/kernel_backend.hpp"
#include "model/profile.hpp"
#include "model/rq.hpp"
#include "model/wake_cpu.hpp"
#include "support/kernel_tree.hpp"

namespace eevdf {
namespace {

// T0 (normal) runs beside T1 (SCHED_IDLE), then blocks with negative lag:
// DELAY_DEQUEUE keeps it queued, asleep (corpus/regressions/F9-*.scn).
struct DelayedBesideIdle {
  explicit DelayedBesideIdle(const char* profile) : rq(*profile_by_name(profile)) {
    t0 = rq.create_task("T0", 0, Policy::normal, 0);
    t1 = rq.create_task("T1", 0, Policy::idle, 0);
    EXPECT_EQ(rq.wake(t0, false), Refusal::none);
    EXPECT_EQ(rq.wake(t1, false), Refusal::none);
    rq.tick();
    EXPECT_EQ(rq.running(), t0);
    EXPECT_EQ(rq.sleep(t0), Refusal::none);
  }
  Rq rq;
  int t0 = -1, t1 = -1;
};

TEST(WakeCpu, DelayedTaskCountsForSchedIdleRqOnDelayDequeueProfiles) {
  for (const char* name : {"v6.12", "v6.12.118", "v6.18", "v7.0", "v7.1", "mainline", "v7.3"}) {
    DelayedBesideIdle s(name);
    ASSERT_TRUE(s.rq.tasks[static_cast<std::size_t>(s.t0)].se.sched_delayed) << name;
    EXPECT_EQ(s.rq.running(), s.t1) << name;
    EXPECT_EQ(s.rq.nr_running, 2u) << name;
    EXPECT_FALSE(sched_idle_rq(s.rq)) << name << ": only T1 (SCHED_IDLE) can run, but T0 is counted";
    EXPECT_FALSE(idle_cpu(s.rq)) << name;
  }
  // v6.6 has no delayed dequeue: T0 leaves, and the CPU is SCHED_IDLE-only
  DelayedBesideIdle old("v6.6");
  EXPECT_FALSE(old.rq.tasks[static_cast<std::size_t>(old.t0)].se.on_rq);
  EXPECT_TRUE(sched_idle_rq(old.rq));
}

// aa3ee4f0b754: the WF_SYNC clause left the delayed tasks out from v6.16 on,
// and 6.12.118 has the backport; v6.12.0 counts T0 and refuses the waker's CPU.
TEST(WakeCpu, SyncClauseCountsTheDelayedTaskOnlyOnV612) {
  DelayedBesideIdle v612("v6.12");
  EXPECT_FALSE(wake_affine_idle_sync(v612.rq));
  for (const char* name : {"v6.12.118", "v6.18", "mainline", "v7.3"}) {
    DelayedBesideIdle s(name);
    EXPECT_TRUE(wake_affine_idle_sync(s.rq)) << name << ": T1 is the only task that can run";
  }
}

// The lockstep compares the model's sched_idle_rq() with the tree's own after
// every operation; here the tree's answer is followed through both values.
TEST(WakeCpu, TreesOwnSchedIdleRqAgreesWithTheModel) {
  const char* profile = test::kernel_tree_is("6.12.") ? "v6.12.118" : test::kernel_tree_is("6.18.") ? "v6.18" : nullptr;
  if (!profile) GTEST_SKIP() << "no 6.12.y or 6.18 kernel backend in this build";
  kernelsrc::KernelBackend k(*profile_by_name(profile));
  Rq m(*profile_by_name(profile));
  const auto same = [&](const char* step) {
    EXPECT_EQ(k.sched_idle_rq(), sched_idle_rq(m)) << step;
    return k.sched_idle_rq();
  };
  const int kt0 = k.create_task("T0", 0, Policy::normal, 0, -1), kt1 = k.create_task("T1", 0, Policy::idle, 0, -1);
  const int t0 = m.create_task("T0", 0, Policy::normal, 0), t1 = m.create_task("T1", 0, Policy::idle, 0);
  EXPECT_FALSE(same("nothing queued"));
  k.wake(kt1, false, 0);
  m.wake(t1, false);
  EXPECT_TRUE(same("T1 alone"));
  k.wake(kt0, false, 0);
  m.wake(t0, false);
  k.tick();
  m.tick();
  EXPECT_FALSE(same("T0 runs beside T1"));
  k.sleep(kt0);
  m.sleep(t0);
  ASSERT_TRUE(k.state().rq(0).tasks[static_cast<std::size_t>(kt0)].se.sched_delayed);
  EXPECT_FALSE(same("T0 delayed: still counted (F9)"));
}

}  // namespace
}  // namespace eevdf
