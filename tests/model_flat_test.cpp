// Unit tests of the v7.3-rc single runqueue (model/fair_flat.cpp, profile
// v7.3): __calc_prop_weight with the per-level MIN_SHARES floor, the
// cgroup_mode shares, the stale h_load of a queued task, reweight_eevdf()
// around V, and the cgroup_mode knob. Every expected value is computed by hand
// in the comment next to it (NICE_0_LOAD = 2^20, nice -20 = 88761 << 10,
// nice 19 = 15 << 10, cpu.shares N = N << 10).
#include <gtest/gtest.h>

#include <string_view>
#include <variant>

#include "scenario/scenario_parse.hpp"
#include "model/fair.hpp"
#include "model/profile.hpp"
#include "model/rq.hpp"
#include "model/system.hpp"

namespace eevdf {
namespace {

constexpr u64 kNice0 = 1048576;                  // NICE_0_LOAD
constexpr u64 kNiceMinus20 = u64{88761} << 10;   // 90891264
constexpr u64 kNice5 = u64{335} << 10;           // 343040

Profile v7_3(CgroupMode mode = CgroupMode::concur, unsigned ncpus = 8) {
  Profile p = *profile_by_name("v7.3");
  p.tunables.cgroup_mode = mode;
  p.tunables.ncpus = ncpus;
  return p;
}

SchedEntity& se_of(Rq& rq, int id) { return rq.tasks[static_cast<std::size_t>(id)].se; }

// ---------------------------------------------------------------------------
// __calc_prop_weight
// ---------------------------------------------------------------------------

TEST(ModelFlat, RootTaskGetsItsNiceWeight) {
  Rq rq(v7_3());
  const int a = rq.create_task("A", 5, Policy::normal, 0);
  // top level: 2^20 * 343040 / NICE_0_LOAD = 343040
  EXPECT_EQ(calc_prop_weight(rq.cfs, se_of(rq, a), kNice0), kNice5);
  EXPECT_EQ(se_of(rq, a).h_load.weight, 0u);  // never enqueued
  ASSERT_EQ(rq.wake(a, false), Refusal::none);
  EXPECT_EQ(se_of(rq, a).h_load.weight, kNice5);
  EXPECT_EQ(rq.cfs.sum_weight, kNice5);
}

TEST(ModelFlat, OneGroupHalvesTwoTasksAndTheFirstStaysStale) {
  Rq rq(v7_3(CgroupMode::smp));
  const int g = rq.create_group("G", -1, 1024);  // S = 2^20
  const int a = rq.create_task("A", 0, Policy::normal, 0, g);
  const int b = rq.create_task("B", 0, Policy::normal, 0, g);
  ASSERT_EQ(rq.wake(a, false), Refusal::none);
  // A alone in G: leaf 2^20 * 2^20 / 2^20 = 2^20; G's entity takes S = 2^20 (smp,
  // stand-in tg_weight = load); top 2^20 * 2^20 / 2^20 = 2^20
  EXPECT_EQ(se_of(rq, a).h_load.weight, kNice0);
  ASSERT_EQ(rq.wake(b, false), Refusal::none);
  // B beside A: leaf 2^20 * 2^20 / 2^21 = 2^19; top 2^19 * 2^20 / 2^20 = 2^19
  EXPECT_EQ(se_of(rq, b).h_load.weight, kNice0 / 2);
  // A is queued, not running: nothing recomputes it (spec §2.2)
  EXPECT_EQ(se_of(rq, a).h_load.weight, kNice0);
  EXPECT_EQ(rq.cfs.sum_weight, kNice0 + kNice0 / 2);  // the tree: 2^20 + 2^19
  EXPECT_EQ(rq.cfs.load.weight, kNice0);              // the root holds G's entity only
  EXPECT_EQ(rq.cfs.h_nr_queued, 2u);
  EXPECT_EQ(rq.cfs.nr_queued, 1u);
  // the pick (A: earlier deadline V + 2.8 ms) recomputes A in set_next_task_fair(): 2^19
  rq.run(1);
  ASSERT_EQ(rq.curr, a);
  EXPECT_EQ(se_of(rq, a).h_load.weight, kNice0 / 2);
  EXPECT_EQ(rq.cfs.curr, &se_of(rq, a));
  EXPECT_EQ(rq.groups[0].cfs_rq.h_curr, &se_of(rq, a));
  EXPECT_EQ(rq.cfs.h_curr, &rq.groups[0].se);
  EXPECT_EQ(rq.groups[0].cfs_rq.curr, nullptr);  // curr lives on rq->cfs only
}

TEST(ModelFlat, NestedSmallFractionsFloorToMinShares) {
  Rq rq(v7_3(CgroupMode::smp));
  const int g1 = rq.create_group("G1", -1, 2);  // S1 = 2048
  const int g2 = rq.create_group("G2", g1, 2);  // S2 = 2048
  const int h = rq.create_task("H", -20, Policy::normal, 0, g1);
  const int t = rq.create_task("T", 0, Policy::normal, 0, g2);
  ASSERT_EQ(rq.wake(h, false), Refusal::none);
  ASSERT_EQ(rq.wake(t, false), Refusal::none);
  // T: leaf 2^20 * 2^20 / 2^20 = 2^20; G2's entity in G1 (load 90891264 + 2048):
  // 2^20 * 2048 / 90893312 = 23.6 -> 23; top 23 * 2048 / 2^20 = 0.04 -> 0 -> floor 2
  EXPECT_EQ(se_of(rq, t).h_load.weight, 2u);
  // H (enqueued first, G1 = H alone): leaf 2^20; top 2^20 * 2048 / 2^20 = 2048
  EXPECT_EQ(se_of(rq, h).h_load.weight, 2048u);
  // recomputed now: leaf 2^20 * 90891264 / 90893312 = 1048552; top 1048552 * 2048 / 2^20 = 2047
  u64 w = kNice0;
  for (SchedEntity* s = &se_of(rq, h); s; s = s->parent) w = calc_prop_weight(*s->cfs_rq, *s, w);
  EXPECT_EQ(w, 2047u);
}

TEST(ModelFlat, ZeroDivisorIsReportedAndOopses) {
  Rq rq(v7_3());
  const int g = rq.create_group("G", -1, 1024);
  const int a = rq.create_task("A", 0, Policy::normal, 0, g);
  // A is not accounted on G's queue (load 0): the kernel's #DE
  EXPECT_EQ(calc_prop_weight(rq.groups[0].cfs_rq, se_of(rq, a), kNice0), kMinShares);
  EXPECT_TRUE(rq.oops);
}

// ---------------------------------------------------------------------------
// calc_group_shares per cgroup_mode, from the PELT sums it reads
// ---------------------------------------------------------------------------

// The group queue's shares when TASKS tasks are queued there and the sums
// read are set by hand: this queue's load average and its contribution 0
// (so load = its weight, scaled down), tg->load_avg = others (the other CPUs'
// contributions), tg->runnable_avg = runnable.
u64 shares_with(CgroupMode mode, unsigned ncpus, u64 cpu_shares, int tasks, s64 runnable, s64 others = 0) {
  Rq rq(v7_3(mode, ncpus));
  const int g = rq.create_group("G", -1, cpu_shares);
  for (int i = 0; i < tasks; ++i) {
    const int id = rq.create_task(std::string("T") + std::to_string(i), 0, Policy::normal, 0, g);
    rq.wake(id, false);
  }
  CfsRq& q = rq.groups[0].cfs_rq;
  q.avg.load_avg = 0;
  q.tg_load_avg_contrib = 0;
  rq.task_groups[0].load_avg = others;
  rq.task_groups[0].runnable_avg = runnable;
  return calc_group_shares_flat(rq, q);
}

TEST(ModelFlat, SharesPerCgroupMode) {
  const u64 s = kNice0;  // cpu.shares 1024
  // three tasks on this CPU (load 3072), tg->runnable_avg 3 * 1024 (tg_tasks 3), 2 CPUs:
  // tg_weight = load, so shares = ts, clamped to smax
  EXPECT_EQ(shares_with(CgroupMode::up, 2, 1024, 3, 3072), s);
  EXPECT_EQ(shares_with(CgroupMode::smp, 2, 1024, 3, 3072), s);         // S * load / load
  EXPECT_EQ(shares_with(CgroupMode::concur, 2, 1024, 3, 3072), 2 * s);  // min(3 tasks, 2 cpus) * S
  EXPECT_EQ(shares_with(CgroupMode::max, 2, 1024, 3, 3072), 2 * s);     // 2 cpus * S < 90891264
  EXPECT_EQ(shares_with(CgroupMode::tasks, 2, 1024, 3, 3072), 3 * s);   // 3 tasks * S
  // tg_tasks() truncates: 3071 >> 10 = 2
  EXPECT_EQ(shares_with(CgroupMode::tasks, 2, 1024, 3, 3071), 2 * s);
  // ... and counts at least one
  EXPECT_EQ(shares_with(CgroupMode::tasks, 2, 1024, 3, 0), s);
  // on 8 CPUs concur follows the tasks
  EXPECT_EQ(shares_with(CgroupMode::concur, 8, 1024, 3, 3072), 3 * s);
  // max is capped at scale_load(88761) = 90891264: 8 * 2^28 is beyond it
  EXPECT_EQ(shares_with(CgroupMode::max, 8, 262144, 1, 1024), kNiceMinus20);
  // one task: concur = smp
  EXPECT_EQ(shares_with(CgroupMode::concur, 8, 2, 1, 1024), 2048u);
  // another CPU's contribution 2048 beside this queue's load 3072: smp gives S * 3072 / 5120
  EXPECT_EQ(shares_with(CgroupMode::smp, 2, 1024, 3, 3072, 2048), s * 3072 / 5120);
  // concur: 2S * 3072 / 5120
  EXPECT_EQ(shares_with(CgroupMode::concur, 2, 1024, 3, 3072, 2048), 2 * s * 3072 / 5120);
  // the load average counts when it is above the weight: 4096 -> S * 4096 / (2048 + 4096)
  Rq rq(v7_3(CgroupMode::smp, 2));
  const int g = rq.create_group("G", -1, 1024);
  rq.wake(rq.create_task("A", 0, Policy::normal, 0, g), false);
  CfsRq& q = rq.groups[0].cfs_rq;
  q.avg.load_avg = 4096;
  q.tg_load_avg_contrib = 1000;
  rq.task_groups[0].load_avg = 3048;  // 2048 from another CPU + this queue's 1000
  EXPECT_EQ(calc_group_shares_flat(rq, q), s * 4096 / (2048 + 4096));
}

// The shares reach the group entity at its next update_cfs_group(); what they
// read builds up with PELT. Three busy tasks in one group on one CPU, tasks mode.
TEST(ModelFlat, TasksModeFollowsTheRunnableAverage) {
  Rq rq(v7_3(CgroupMode::tasks, 8));
  const int g = rq.create_group("G", -1, 1024);
  for (const char* n : {"A", "B", "C"}) rq.wake(rq.create_task(n, 0, Policy::normal, 0, g), false);
  // At the first wake-up the group's queue passed on its runnable average,
  // A's initial 512 (post_init_entity_util_avg(): half the free capacity);
  // B's and C's wake-ups are in the same millisecond (the rate limit): tg_tasks 1
  EXPECT_EQ(rq.task_groups[0].runnable_avg, 512);
  EXPECT_EQ(rq.groups[0].se.load.weight, kNice0);
  // After 200 ms of three runnable tasks the queue's runnable average is about
  // 3072 * (1 - 2^(-200/32)) = 3031 (PELT halves in 32 ms), tg_tasks 2
  rq.run(200'000'000);
  EXPECT_GE(rq.task_groups[0].runnable_avg, 3072 - 3072 / 64 - 64);
  EXPECT_LT(rq.task_groups[0].runnable_avg, 3072);
  EXPECT_EQ(rq.groups[0].se.load.weight, 2 * kNice0);
  EXPECT_EQ(rq.cfs.load.weight, 2 * kNice0);
}

// tg->runnable_avg approaches N * 1024 from below and update_tg_load_avg()'s
// 1/64 dead band keeps each CPU's contribution at the last value it passed on:
// with two busy tasks, one on each CPU, tg_tasks() = (below 2048) >> 10 = 1
// for good, and concur gives each CPU's entity S * 1 * 1024 / 2048 = S/2,
// what smp gives (docs/findings/F11.md).
TEST(ModelFlat, ConcurCountsTwoBusyTasksAsOne) {
  for (CgroupMode mode : {CgroupMode::concur, CgroupMode::smp}) {
    System sys(v7_3(mode, 2), 2);
    const int g = sys.create_group("G", -1, 1024);
    const int a = sys.rq(0).create_task("A", 0, Policy::normal, 0, g);
    const int b = sys.rq(0).create_task("B", 0, Policy::normal, 0, g);
    ASSERT_EQ(sys.wake(a, false, 0), Refusal::none);
    ASSERT_EQ(sys.wake(b, false, 1), Refusal::none);
    sys.run(1'000'000'000);
    const TaskGroup& tg = sys.task_groups[0];
    for (unsigned cpu = 0; cpu < 2; ++cpu) {
      EXPECT_EQ(tg.cfs_rq[cpu]->avg.runnable_avg, 1024u) << "CPU " << cpu;  // converged
      EXPECT_LT(tg.cfs_rq[cpu]->tg_runnable_avg_contrib, 1024u) << "CPU " << cpu;
      EXPECT_GE(tg.cfs_rq[cpu]->tg_runnable_avg_contrib, 1024u - 1024u / 64) << "CPU " << cpu;
      EXPECT_EQ(tg.se[cpu]->load.weight, kNice0 / 2) << "CPU " << cpu << " " << cgroup_mode_name(mode);
    }
    EXPECT_LT(tg.runnable_avg, 2048);
  }
}

// ---------------------------------------------------------------------------
// reweight_eevdf(): V kept, lag and relative deadline scaled by old / new
// ---------------------------------------------------------------------------

// Puts se into rq->cfs's tree at (vruntime, deadline) with h_load = its weight,
// as enqueue_task_fair() leaves a root task.
void queue_at(Rq& rq, SchedEntity& se, u64 vruntime, u64 deadline) {
  se.h_load = se.load;
  se.vruntime = vruntime;
  se.deadline = deadline;
  se.slice = rq.profile().sysctl_sched_base_slice();
  se.on_rq = true;
  enqueue_entity_rb(rq.cfs, se);
  rq.cfs.load.weight += se.load.weight;
  rq.cfs.nr_queued++;
  rq.cfs.h_nr_queued++;
}

TEST(ModelFlat, ReweightEevdfKeepsV) {
  Rq rq(v7_3());
  CfsRq& cfs = rq.cfs;
  const u64 z0 = cfs.zero_vruntime;
  SchedEntity& a = se_of(rq, rq.create_task("A", 0, Policy::normal, 0));
  SchedEntity& b = se_of(rq, rq.create_task("B", 0, Policy::normal, 0));
  queue_at(rq, a, z0, z0 + 5000);
  queue_at(rq, b, z0 + 3000, z0 + 10000);
  // V = z0 + (0 + 3000) * 2^20 / 2^21 = z0 + 1500
  ASSERT_EQ(cfs.zero_vruntime + as_u64(avg_vruntime_offset(cfs, rq.obs())), z0 + 1500);
  reweight_eevdf_flat(cfs, b, 2 * kNice0, true);
  // vlag = 1500 - 3000 = -1500, * 2^20 / 2^21 = -750: v = V + 750; d - V = 8500 / 2 = 4250
  EXPECT_EQ(b.vlag, -750);
  EXPECT_EQ(b.vruntime, z0 + 2250);
  EXPECT_EQ(b.deadline, z0 + 1500 + 4250);
  EXPECT_EQ(b.h_load.weight, 2 * kNice0);
  EXPECT_EQ(b.load.weight, kNice0);  // the per-level weight is not touched
  EXPECT_EQ(cfs.sum_weight, 3 * kNice0);
  EXPECT_EQ(cfs.h_nr_queued, 2u);
  // V' = z0 + (0 * 2^20 + 2250 * 2^21) / (3 * 2^20) = z0 + 1500
  EXPECT_EQ(cfs.zero_vruntime + as_u64(avg_vruntime_offset(cfs, rq.obs())), z0 + 1500);
}

TEST(ModelFlat, ReweightEevdfOffQueueScalesOnlyTheSavedLag) {
  Rq rq(v7_3());
  SchedEntity& a = se_of(rq, rq.create_task("A", 0, Policy::normal, 0));
  a.h_load.weight = kNice0;
  a.vlag = -1500;
  a.vruntime = 12345;
  a.deadline = 777;  // relative, as a migration leaves it
  a.rel_deadline = true;
  reweight_eevdf_flat(rq.cfs, a, 3 * kNice0, false);
  // -1500 * 2^20 / (3 * 2^20) = -500; 777 / 3 = 259; vruntime untouched
  EXPECT_EQ(a.vlag, -500);
  EXPECT_EQ(a.deadline, 259u);
  EXPECT_EQ(a.vruntime, 12345u);
  EXPECT_EQ(a.h_load.weight, 3 * kNice0);
  // never set (h_load 0): both scale to 0
  SchedEntity& b = se_of(rq, rq.create_task("B", 0, Policy::normal, 0));
  b.vlag = 4000;
  reweight_eevdf_flat(rq.cfs, b, kNice0, false);
  EXPECT_EQ(b.vlag, 0);
}

// A renice of a sleeping task changes only se->load; the lag saved with the old
// h_load is rescaled once, at the next enqueue (reweight_eevdf(on_rq = false)).
TEST(ModelFlat, RenicedSleeperIsRescaledAtEnqueue) {
  Profile p = v7_3();
  ASSERT_EQ(apply_features(p, "NO_DELAY_DEQUEUE"), "");  // the sleeper leaves the queue at once
  Rq rq(p);
  ASSERT_EQ(rq.wake(rq.create_task("A", 0, Policy::normal, 0), false), Refusal::none);
  const int b = rq.create_task("B", 0, Policy::normal, 0);
  ASSERT_EQ(rq.wake(b, false), Refusal::none);
  rq.run(4'000'000);
  const int running = rq.curr;
  ASSERT_EQ(rq.sleep(running), Refusal::none);
  SchedEntity& s = se_of(rq, running);
  const s64 saved = s.vlag;
  ASSERT_EQ(rq.set_nice(running, 5), Refusal::none);
  EXPECT_EQ(s.load.weight, kNice5);
  EXPECT_EQ(s.h_load.weight, kNice0);  // not yet
  EXPECT_EQ(s.vlag, saved);
  ASSERT_EQ(rq.wake(running, false), Refusal::none);
  EXPECT_EQ(s.h_load.weight, kNice5);
  // div64_long(saved * 2^20, 343040), truncated toward zero
  const s64 expected = static_cast<s64>(static_cast<i128>(saved) * static_cast<i128>(kNice0) /
                                        static_cast<i128>(kNice5));
  EXPECT_EQ(s.vlag, expected);
}

// ---------------------------------------------------------------------------
// the cgroup_mode knob
// ---------------------------------------------------------------------------

TEST(ModelFlat, CgroupModeOnlyOnV73) {
  Profile p = *profile_by_name("v7.3");
  EXPECT_EQ(p.tunables.cgroup_mode, CgroupMode::concur);  // the default
  EXPECT_EQ(apply_features(p, "NO_NEXT_BUDDY,cgroup_mode=smp"), "");
  EXPECT_EQ(p.tunables.cgroup_mode, CgroupMode::smp);
  EXPECT_FALSE(p.feat(Feature::NEXT_BUDDY));
  EXPECT_NE(apply_features(p, "cgroup_mode=bogus"), "");
  Profile m = *profile_by_name("mainline");
  EXPECT_NE(apply_features(m, "cgroup_mode=smp"), "");

  auto ok = scn::parse_scenario("profile v7.3\nfeatures cgroup_mode=tasks\ntask A\nwake A\n");
  ASSERT_TRUE(std::holds_alternative<scn::Scenario>(ok));
  EXPECT_EQ(std::get<scn::Scenario>(ok).features, "cgroup_mode=tasks");
  auto bad = scn::parse_scenario("profile v7.2\nfeatures cgroup_mode=smp\n");
  ASSERT_TRUE(std::holds_alternative<scn::ParseError>(bad));
  EXPECT_EQ(std::get<scn::ParseError>(bad).line, 2);
  EXPECT_NE(std::get<scn::ParseError>(bad).message.find("v7.3"), std::string::npos);
  auto bad_name = scn::parse_scenario("profile v7.3\nfeatures cgroup_mode=fast\n");
  ASSERT_TRUE(std::holds_alternative<scn::ParseError>(bad_name));
  EXPECT_EQ(std::get<scn::ParseError>(bad_name).column, 22);
}

}  // namespace
}  // namespace eevdf
