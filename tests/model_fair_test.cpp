// Unit tests of the fair-class functions of the model (model/fair.hpp) on the
// mainline profile: the floored weighted average, eligibility at zero lag,
// place_entity()'s heavy-entity zero shift, reweight invariance of V, delayed
// dequeue, and the "A wakes C" example of kernel commit 15257cc2f905.
//
// Expected values are derived from the kernel rules (kernel-eevdf.md), not
// read back from the model; each derivation is in the comments.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "model/fair.hpp"
#include "model/profile.hpp"
#include "model/rq.hpp"

namespace eevdf {
namespace {

constexpr u64 kNice0 = 1048576;        // NICE_0_LOAD
constexpr u64 kBaseSlice = 2800000;    // 700 us * (1 + ilog2(8)) with the default 8 CPUs
constexpr u64 kInitZero = ~u64{0} - (u64{1} << 20) + 1;  // init_cfs_rq(): (u64)(-(1LL << 20))

Profile mainline() { return *profile_by_name("mainline"); }

Profile mainline_with(std::string_view features) {
  Profile p = mainline();
  const std::string err = apply_features(p.features, features);
  EXPECT_EQ(err, "");
  return p;
}

i128 floor_div(i128 a, i128 b) {
  i128 q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

bool in_tree(const CfsRq& cfs, const SchedEntity* se) {
  for (SchedEntity* n = cfs.tasks_timeline.leftmost(); n; n = RbTree<SchedEntity>::next(n))
    if (n == se) return true;
  return false;
}

// Puts a task's entity straight into the tree at the given vruntime, the way
// enqueue_entity() leaves it (on_rq, counted in load and nr_queued).
void queue_at(CfsRq& cfs, SchedEntity& se, u64 vruntime, u64 deadline) {
  se.vruntime = vruntime;
  se.deadline = deadline;
  se.on_rq = true;
  enqueue_entity_rb(cfs, se);
  cfs.load.weight += se.load.weight;
  cfs.nr_queued++;
}

// ---------------------------------------------------------------------------
// avg_vruntime() floors a negative average
// ---------------------------------------------------------------------------

TEST(ModelFair, AvgVruntimeFloorsNegativeAverage) {
  Rq rq(mainline());
  CfsRq& cfs = rq.cfs;
  SchedEntity& a = rq.tasks[rq.create_task("A", 0, Policy::normal, 0)].se;
  SchedEntity& b = rq.tasks[rq.create_task("B", 0, Policy::normal, 0)].se;
  const u64 z0 = cfs.zero_vruntime;
  ASSERT_EQ(z0, kInitZero);

  // keys -3 and 0 at equal weights: S = -3w, W = 2w, S/W = -1.5.
  queue_at(cfs, a, z0 - 3, z0 + 1000);
  queue_at(cfs, b, z0, z0 + 2000);
  EXPECT_EQ(cfs.sum_w_vruntime, -3 * static_cast<s64>(kNice0));
  EXPECT_EQ(cfs.sum_weight, 2 * kNice0);

  // floor(-1.5) = -2; a truncating division would give -1.
  const u64 V = avg_vruntime(cfs);
  EXPECT_EQ(V, z0 - 2);
  // avg_vruntime() re-bases: zero_vruntime := V, keys become -1 and +2.
  EXPECT_EQ(cfs.zero_vruntime, z0 - 2);
  EXPECT_EQ(cfs.sum_w_vruntime, static_cast<s64>(kNice0));  // -1*w + 2*w
  EXPECT_EQ(cfs.sum_weight, 2 * kNice0);
  // Idempotent.
  EXPECT_EQ(avg_vruntime(cfs), V);

  // V itself is eligible (S' = w >= 0 * W), the truncated value z0 - 1 is not
  // (key +1: w >= 1 * 2w is false).
  EXPECT_TRUE(vruntime_eligible(cfs, V));
  EXPECT_FALSE(vruntime_eligible(cfs, z0 - 1));
  EXPECT_TRUE(entity_eligible(cfs, a));   // v = V - 1
  EXPECT_FALSE(entity_eligible(cfs, b));  // v = V + 2

  // An entity with zero lag placed now lands exactly at V and is eligible,
  // before and after it joins the tree.
  SchedEntity& c = rq.tasks[rq.create_task("C", 0, Policy::normal, 0)].se;
  ASSERT_EQ(c.vlag, 0);
  place_entity(cfs, c, 0);
  EXPECT_EQ(c.vruntime, V);
  EXPECT_EQ(c.deadline, V + kBaseSlice);  // no ENQUEUE_INITIAL: a full virtual slice at nice 0
  EXPECT_TRUE(entity_eligible(cfs, c));
  enqueue_entity_rb(cfs, c);
  cfs.load.weight += c.load.weight;
  cfs.nr_queued++;
  c.on_rq = true;
  EXPECT_TRUE(entity_eligible(cfs, c));
  // S'' = w + 0, W'' = 3w: floor(1/3) = 0, V unchanged.
  EXPECT_EQ(avg_vruntime(cfs), V);
}

// The same against brute force: random weights, random keys (mostly
// negative sums), optionally a running curr outside the tree.
TEST(ModelFair, AvgVruntimeMatchesExactFloorRandomized) {
  std::mt19937 rng(20260517);
  for (int round = 0; round < 300; ++round) {
    Rq rq(mainline());
    CfsRq& cfs = rq.cfs;
    const u64 z0 = cfs.zero_vruntime;
    const int n = 1 + static_cast<int>(rng() % 6);
    const bool with_curr = rng() % 2;
    i128 S = 0, W = 0;
    for (int i = 0; i < n; ++i) {
      const int nice = static_cast<int>(rng() % 40) - 20;
      SchedEntity& se = rq.tasks[rq.create_task("T" + std::to_string(i), nice, Policy::normal, 0)].se;
      const s64 key = static_cast<s64>(rng() % 20001) - 15000;  // biased negative
      S += static_cast<i128>(key) * se.load.weight;
      W += se.load.weight;
      if (with_curr && i == 0) {
        se.vruntime = z0 + as_u64(key);
        se.on_rq = true;
        cfs.curr = &se;
        cfs.load.weight += se.load.weight;
        cfs.nr_queued++;
      } else {
        queue_at(cfs, se, z0 + as_u64(key), z0 + 100000 + rng() % 1000);
      }
    }
    const i128 expect = floor_div(S, W);
    const u64 V = avg_vruntime(cfs);
    ASSERT_EQ(vruntime_diff(V, z0), static_cast<s64>(expect)) << "round " << round;
    EXPECT_TRUE(vruntime_eligible(cfs, V)) << "round " << round;
    EXPECT_FALSE(vruntime_eligible(cfs, V + 1)) << "round " << round;  // (floor + 1) * W > S
  }
}

// ---------------------------------------------------------------------------
// A zero-lag wakee lands at V and is eligible
// ---------------------------------------------------------------------------

TEST(ModelFair, ZeroLagWakeIntoBusyQueueIsEligible) {
  Rq rq(mainline());
  CfsRq& cfs = rq.cfs;
  const int a = rq.create_task("A", 0, Policy::normal, 0);
  const int b = rq.create_task("B", 5, Policy::normal, 0);
  const int c = rq.create_task("C", -3, Policy::normal, 0);
  for (int t : {a, b, c}) ASSERT_EQ(rq.wake(t, false), Refusal::none);
  rq.run(7'300'000);  // several slices, several switches, ends between ticks
  ASSERT_GE(rq.curr, 0);
  ASSERT_EQ(cfs.nr_queued, 3u);

  const int d = rq.create_task("D", 2, Policy::normal, 0);
  ASSERT_EQ(rq.tasks[d].se.vlag, 0);
  ASSERT_EQ(rq.wake(d, false), Refusal::none);
  SchedEntity& dse = rq.tasks[d].se;
  ASSERT_TRUE(dse.on_rq);
  EXPECT_TRUE(entity_eligible(cfs, dse));
  // D sits exactly at V: adding an entity with key 0 to S' in [0, W) leaves
  // floor(S'/(W+w)) = 0, so the average with D included is still D's vruntime.
  EXPECT_EQ(avg_vruntime(cfs), dse.vruntime);
  EXPECT_TRUE(entity_eligible(cfs, dse));
  // ENQUEUE_INITIAL: half a virtual slice. nice 2 weight = 655 << 10.
  LoadWeight lw = task_load_weight(2, false);
  EXPECT_EQ(dse.deadline - dse.vruntime,
            calc_delta_fair(kBaseSlice, lw, CalcDeltaPath::full_weight, null_observer()) / 2);
}

// ---------------------------------------------------------------------------
// place_entity(): a heavy newcomer becomes the zero point
// ---------------------------------------------------------------------------

TEST(ModelFair, PlaceEntityHeavyEntityShiftsZeroVruntime) {
  Rq rq(mainline());
  CfsRq& cfs = rq.cfs;
  const int l = rq.create_task("L", 19, Policy::normal, 0);  // weight 15 << 10 = 15360
  ASSERT_EQ(rq.wake(l, false), Refusal::none);
  rq.schedule();
  ASSERT_EQ(rq.curr, l);
  const u64 V = rq.tasks[l].se.vruntime;  // a lone curr is its own average

  const int h = rq.create_task("H", -20, Policy::normal, 0);  // weight 88761 << 10 = 90891264
  SchedEntity& hse = rq.tasks[h].se;
  hse.vlag = 1000;  // as if H had left earlier with 1000 of positive lag
  ASSERT_EQ(rq.wake(h, false), Refusal::none);

  // load = 15360 (curr L), weight = 90891264 > load:
  // lag = 1000 * (15360 + 90891264) / 15360 = 1000 * 5918.4 = 5918400 (exact)
  EXPECT_EQ(hse.vruntime, V - 5918400);
  // weight > load: zero_vruntime moves to H, whose key is therefore 0; the
  // light curr carries the large key instead.
  EXPECT_EQ(cfs.zero_vruntime, hse.vruntime);
  EXPECT_EQ(entity_key(cfs, hse), 0);
  EXPECT_EQ(cfs.sum_w_vruntime, 0);
  EXPECT_EQ(cfs.sum_weight, 90891264u);
  EXPECT_EQ(entity_key(cfs, rq.tasks[l].se), 5918400);
  // The inflation makes the lag observed after insertion the saved one:
  // S = 5918400 * 15360 = 90906624000, W = 90906624, S/W = 1000 exactly.
  EXPECT_EQ(avg_vruntime(cfs) - hse.vruntime, 1000u);
}

TEST(ModelFair, PlaceEntityLightEntityKeepsZeroAtV) {
  Rq rq(mainline());
  CfsRq& cfs = rq.cfs;
  const int h = rq.create_task("H", -20, Policy::normal, 0);
  ASSERT_EQ(rq.wake(h, false), Refusal::none);
  rq.schedule();
  ASSERT_EQ(rq.curr, h);
  const u64 V = rq.tasks[h].se.vruntime;

  const int l = rq.create_task("L", 19, Policy::normal, 0);
  SchedEntity& lse = rq.tasks[l].se;
  lse.vlag = 1000;
  ASSERT_EQ(rq.wake(l, false), Refusal::none);
  // lag = trunc(1000 * (90891264 + 15360) / 90891264) = trunc(1000.169) = 1000
  EXPECT_EQ(lse.vruntime, V - 1000);
  // weight 15360 < load 90891264: no shift, the zero point stays at V.
  EXPECT_EQ(cfs.zero_vruntime, V);
  EXPECT_EQ(entity_key(cfs, lse), -1000);
}

// ---------------------------------------------------------------------------
// reweight_entity() keeps V
// ---------------------------------------------------------------------------
//
// Let V be the average right before (after avg_vruntime() re-based the sums,
// so S = Σ key·w over tree ∪ curr lies in [0, W)). X is queued, not curr, with
// lag l = V - v (inside the clamp) and weight w; it gets weight w'.
// rescale_entity: l' = trunc(l·w / w'), v' = V - l'. With e = l·w - l'·w'
// (|e| < w', same sign as l), S' = S + l·w - l'·w' = S + e, W' = W - w + w',
// so V' = V + floor((S + e) / W'). Hence:
//   * e = 0 (w' divides l·w) and S < W'  =>  V' == V exactly;
//   * in general -1 <= V' - V and, when w <= W', V' - V <= 1;
//   * w·(V - v) - w'·(V - v') = e, |e| < w'  (the lag·weight is kept up to one
//     rounding of the division).
struct ReweightCase {
  const char* name;
  u64 new_weight;  // 0 = old weight / 4
};

class ModelFairReweight : public ::testing::TestWithParam<ReweightCase> {};

TEST_P(ModelFairReweight, KeepsAverageVruntime) {
  Rq rq(mainline());
  CfsRq& cfs = rq.cfs;
  const int a = rq.create_task("A", 0, Policy::normal, 0);
  const int b = rq.create_task("B", 0, Policy::normal, 0);
  const int c = rq.create_task("C", 3, Policy::normal, 0);
  const int d = rq.create_task("D", -2, Policy::normal, 0);
  for (int t : {a, b, c, d}) ASSERT_EQ(rq.wake(t, false), Refusal::none);
  rq.run(9'450'000);
  ASSERT_GE(rq.curr, 0);

  // The first queued entity that is not curr.
  SchedEntity* x = nullptr;
  for (int t : {a, b, c, d})
    if (t != rq.curr) {
      x = &rq.tasks[t].se;
      break;
    }
  ASSERT_NE(x, nullptr);
  ASSERT_TRUE(x->on_rq);
  ASSERT_FALSE(x->sched_delayed);

  update_curr(cfs);  // charge curr up to now so that reweight's update_curr is a no-op
  const u64 V = avg_vruntime(cfs);
  const SchedEntity* curr = cfs.curr;
  ASSERT_NE(curr, nullptr);
  const i128 S = static_cast<i128>(cfs.sum_w_vruntime) + static_cast<i128>(entity_key(cfs, *curr)) * curr->load.weight;
  const i128 W = static_cast<i128>(cfs.sum_weight) + curr->load.weight;
  ASSERT_GE(S, 0);
  ASSERT_LT(S, W);

  const u64 w = x->load.weight;
  const u64 w_new = GetParam().new_weight ? GetParam().new_weight : w / 4;
  const s64 lag = vruntime_diff(V, x->vruntime);
  const s64 d_rel = vruntime_diff(x->deadline, V);
  LoadWeight xlw = x->load;
  const s64 limit = as_s64(calc_delta_fair(cfs_rq_max_slice(cfs) + rq.profile().tick_nsec(), xlw,
                                           CalcDeltaPath::full_weight, null_observer()));
  ASSERT_LE(lag, limit);
  ASSERT_GE(lag, -limit);  // not clamped: the reweight keeps this exact lag

  reweight_entity(cfs, *x, w_new);

  const s64 lag_new = static_cast<s64>(static_cast<i128>(lag) * w / w_new);  // trunc toward 0
  EXPECT_EQ(x->load.weight, w_new);
  EXPECT_EQ(x->vlag, lag_new);
  EXPECT_EQ(x->vruntime, V - as_u64(lag_new));
  EXPECT_EQ(vruntime_diff(x->deadline, V), static_cast<s64>(static_cast<i128>(d_rel) * w / w_new));
  EXPECT_FALSE(x->rel_deadline);
  EXPECT_TRUE(in_tree(cfs, x));

  const i128 e = static_cast<i128>(lag) * w - static_cast<i128>(lag_new) * w_new;
  EXPECT_LT(e < 0 ? -e : e, static_cast<i128>(w_new));
  if (e != 0) {
    EXPECT_EQ(e < 0, lag < 0);
  }

  const i128 W_new = W - w + w_new;
  const u64 V_after = avg_vruntime(cfs);
  EXPECT_EQ(vruntime_diff(V_after, V), static_cast<s64>(floor_div(S + e, W_new)))
      << "S=" << static_cast<long long>(S) << " e=" << static_cast<long long>(e);
  if (static_cast<i128>(w) <= W_new) {
    EXPECT_LE(vruntime_diff(V_after, V), 1);
    EXPECT_GE(vruntime_diff(V_after, V), -1);
  }
  if (e == 0 && S < W_new) {
    EXPECT_EQ(V_after, V);
  }
  // The sums still describe the tree.
  EXPECT_EQ(cfs.load.weight, [&] {
    u64 sum = 0;
    for (int t : {a, b, c, d}) sum += rq.tasks[t].se.load.weight;
    return sum;
  }());
}

INSTANTIATE_TEST_SUITE_P(Weights, ModelFairReweight,
                         ::testing::Values(ReweightCase{"quarter", 0}, ReweightCase{"nice5", 335u << 10},
                                           ReweightCase{"nice_minus5", 3121u << 10},
                                           ReweightCase{"double", 2 * kNice0 + 2},
                                           ReweightCase{"group_min_shares", 2}),
                         [](const auto& info) { return std::string(info.param.name); });

// The exact case in a hand-built queue: S = 0, so V cannot move at all.
TEST(ModelFair, ReweightExactCaseKeepsVExactly) {
  Rq rq(mainline());
  CfsRq& cfs = rq.cfs;
  SchedEntity& a = rq.tasks[rq.create_task("A", 0, Policy::normal, 0)].se;
  SchedEntity& b = rq.tasks[rq.create_task("B", 0, Policy::normal, 0)].se;
  SchedEntity& c = rq.tasks[rq.create_task("C", 0, Policy::normal, 0)].se;
  const u64 z0 = cfs.zero_vruntime;
  queue_at(cfs, a, z0 - 1000, z0 + 500000);
  queue_at(cfs, b, z0 + 1000, z0 + 600000);
  queue_at(cfs, c, z0, z0 + 700000);
  ASSERT_EQ(avg_vruntime(cfs), z0);
  // A (lag +1000, weight 2^20) -> weight 2^18: lag' = 4000, e = 0, W' = 2.25·2^20 > S = 0.
  reweight_entity(cfs, a, kNice0 / 4);
  EXPECT_EQ(a.vlag, 4000);
  EXPECT_EQ(a.vruntime, z0 - 4000);
  EXPECT_EQ(a.deadline, z0 + 2000000);  // (d - V)·4
  EXPECT_EQ(avg_vruntime(cfs), z0);
  // w·(V - v) preserved exactly: 2^20·1000 == 2^18·4000.
  EXPECT_EQ(static_cast<s64>(kNice0 / 4) * a.vlag, static_cast<s64>(kNice0) * 1000);
  // And back: 4000·2^18 / 2^20 = 1000.
  reweight_entity(cfs, a, kNice0);
  EXPECT_EQ(a.vlag, 1000);
  EXPECT_EQ(a.vruntime, z0 - 1000);
  EXPECT_EQ(a.deadline, z0 + 500000);
  EXPECT_EQ(avg_vruntime(cfs), z0);
}

// The rounding of l' can move V by one: A (lag -1001, right of V) goes from
// w to 3w. l' = trunc(-1001/3) = -333, e = -1001·w + 333·3w = -2w,
// S' = 0 - 2w, W' = 5w, V' = V + floor(-2/5) = V - 1.
TEST(ModelFair, ReweightRoundingMovesVByAtMostOne) {
  Rq rq(mainline());
  CfsRq& cfs = rq.cfs;
  SchedEntity& a = rq.tasks[rq.create_task("A", 0, Policy::normal, 0)].se;
  SchedEntity& b = rq.tasks[rq.create_task("B", 0, Policy::normal, 0)].se;
  SchedEntity& c = rq.tasks[rq.create_task("C", 0, Policy::normal, 0)].se;
  const u64 z0 = cfs.zero_vruntime;
  queue_at(cfs, a, z0 + 1001, z0 + 600000);
  queue_at(cfs, b, z0 - 1001, z0 + 700000);
  queue_at(cfs, c, z0, z0 + 800000);
  ASSERT_EQ(avg_vruntime(cfs), z0);
  reweight_entity(cfs, a, 3 * kNice0);
  EXPECT_EQ(a.vlag, -333);
  EXPECT_EQ(a.vruntime, z0 + 333);
  EXPECT_EQ(a.deadline, z0 + 200000);  // (d - V)·w/3w
  // |w·l - w'·l'| = 2w < w' = 3w
  EXPECT_EQ(static_cast<s64>(kNice0) * -1001 - static_cast<s64>(3 * kNice0) * a.vlag, -2 * static_cast<s64>(kNice0));
  EXPECT_EQ(avg_vruntime(cfs), z0 - 1);
}

// ---------------------------------------------------------------------------
// Delayed dequeue
// ---------------------------------------------------------------------------
//
// A and B (nice 0) are woken at lag 0: both at V0 with deadline V0 + 1.4 ms
// (half a slice, ENQUEUE_INITIAL). A is picked (leftmost; equal deadlines keep
// insertion order). A runs 1 ms: v_A = V0 + 1 ms, still before its deadline
// and protected (vprot = deadline), so no resched at the 1 ms tick.
// V = V0 + 0.5 ms, so A is not eligible when it goes to sleep.

TEST(ModelFair, DelayedDequeueKeepsIneligibleSleeperQueued) {
  Rq rq(mainline());
  CfsRq& cfs = rq.cfs;
  const int a = rq.create_task("A", 0, Policy::normal, 0);
  const int b = rq.create_task("B", 0, Policy::normal, 0);
  ASSERT_EQ(rq.wake(a, false), Refusal::none);
  ASSERT_EQ(rq.wake(b, false), Refusal::none);
  rq.schedule();
  ASSERT_EQ(rq.curr, a);
  rq.run(1'000'000);
  ASSERT_EQ(rq.curr, a);
  SchedEntity& ase = rq.tasks[a].se;
  const u64 V0 = kInitZero;
  ASSERT_EQ(ase.vruntime, V0 + 1'000'000);
  ASSERT_FALSE(entity_eligible(cfs, ase));
  ASSERT_EQ(cfs.h_nr_runnable, 2u);

  ASSERT_EQ(rq.sleep(a), Refusal::none);
  // Still queued, delayed: counted in nr_queued/h_nr_queued/nr_running, not runnable.
  EXPECT_TRUE(ase.sched_delayed);
  EXPECT_TRUE(ase.on_rq);
  EXPECT_TRUE(rq.tasks[a].on_rq);
  EXPECT_EQ(rq.tasks[a].state, TaskState::sleeping);
  EXPECT_EQ(cfs.nr_queued, 2u);
  EXPECT_EQ(cfs.h_nr_queued, 2u);
  EXPECT_EQ(cfs.h_nr_runnable, 1u);
  EXPECT_EQ(rq.nr_running, 2u);
  EXPECT_EQ(cfs.load.weight, 2 * kNice0);
  EXPECT_EQ(rq.curr, b);
  EXPECT_TRUE(in_tree(cfs, &ase));
  // The lag is recorded at delay time: V - v = 0.5 ms - 1 ms.
  EXPECT_EQ(ase.vlag, -500'000);

  // B runs; at the 3 ms tick v_B = V0 + 2 ms passes its deadline (V0 + 1.4 ms)
  // and the resched picks: B (key 2 ms) is not eligible at V = V0 + 1.5 ms, A
  // (v = V0 + 1 ms, deadline V0 + 1.4 ms) is, so the pick returns the delayed A,
  // which pick_next_entity() dequeues for good; B is picked again.
  rq.run(2'000'000);
  EXPECT_EQ(rq.curr, b);
  EXPECT_FALSE(ase.on_rq);
  EXPECT_FALSE(ase.sched_delayed);
  EXPECT_FALSE(rq.tasks[a].on_rq);
  EXPECT_FALSE(in_tree(cfs, &ase));
  EXPECT_EQ(cfs.nr_queued, 1u);
  EXPECT_EQ(cfs.h_nr_queued, 1u);
  EXPECT_EQ(cfs.h_nr_runnable, 1u);
  EXPECT_EQ(rq.nr_running, 1u);
  // Final lag V - v = +0.5 ms, then DELAY_ZERO clips it to 0.
  EXPECT_EQ(ase.vlag, 0);
}

TEST(ModelFair, WithoutDelayDequeueIneligibleSleeperLeaves) {
  Rq rq(mainline_with("NO_DELAY_DEQUEUE"));
  ASSERT_FALSE(rq.profile().feat(Feature::DELAY_DEQUEUE));
  CfsRq& cfs = rq.cfs;
  const int a = rq.create_task("A", 0, Policy::normal, 0);
  const int b = rq.create_task("B", 0, Policy::normal, 0);
  ASSERT_EQ(rq.wake(a, false), Refusal::none);
  ASSERT_EQ(rq.wake(b, false), Refusal::none);
  rq.schedule();
  ASSERT_EQ(rq.curr, a);
  rq.run(1'000'000);
  SchedEntity& ase = rq.tasks[a].se;
  ASSERT_FALSE(entity_eligible(cfs, ase));

  ASSERT_EQ(rq.sleep(a), Refusal::none);
  EXPECT_FALSE(ase.sched_delayed);
  EXPECT_FALSE(ase.on_rq);
  EXPECT_FALSE(rq.tasks[a].on_rq);
  EXPECT_FALSE(in_tree(cfs, &ase));
  EXPECT_EQ(cfs.nr_queued, 1u);
  EXPECT_EQ(cfs.h_nr_queued, 1u);
  EXPECT_EQ(cfs.h_nr_runnable, 1u);
  EXPECT_EQ(rq.nr_running, 1u);
  EXPECT_EQ(cfs.load.weight, kNice0);
  EXPECT_EQ(rq.curr, b);
  EXPECT_EQ(ase.vlag, -500'000);  // the same negative lag, kept for the next wakeup
}

// An eligible sleeper is never delayed, even with DELAY_DEQUEUE.
TEST(ModelFair, EligibleSleeperIsDequeuedAtOnce) {
  Rq rq(mainline());
  const int a = rq.create_task("A", 0, Policy::normal, 0);
  const int b = rq.create_task("B", 0, Policy::normal, 0);
  ASSERT_EQ(rq.wake(a, false), Refusal::none);
  ASSERT_EQ(rq.wake(b, false), Refusal::none);
  rq.schedule();
  ASSERT_EQ(rq.curr, a);
  // No time passes: v_A = V, eligible.
  ASSERT_TRUE(entity_eligible(rq.cfs, rq.tasks[a].se));
  ASSERT_EQ(rq.sleep(a), Refusal::none);
  EXPECT_FALSE(rq.tasks[a].se.sched_delayed);
  EXPECT_FALSE(rq.tasks[a].se.on_rq);
  EXPECT_EQ(rq.cfs.nr_queued, 1u);
  EXPECT_EQ(rq.tasks[a].se.vlag, 0);
}

// ---------------------------------------------------------------------------
// "A wakes C" (15257cc2f905, known-bugs.md B23)
// ---------------------------------------------------------------------------
//
// A and B (nice 0) are woken together at lag 0. With an empty queue V = V0
// (the initial zero_vruntime), so both are placed at v = V0 with deadline
// V0 + vslice/2 = V0 + 1.4 ms (ENQUEUE_INITIAL halves the 2.8 ms base slice).
// schedule() picks A: both are eligible, equal deadlines, and the tree keeps
// insertion order. set_protect_slice() gives A vprot = its deadline (every
// other queued slice equals A's).
//
// A runs 200 us (no tick in between), then wakes C at lag 0. The enqueue
// charges A first: v_A = V0 + 200 us. Then V = (200 + 0) / 2 = V0 + 100 us,
// C is placed at v_C = V0 + 100 us. Now A is NOT eligible (v_A > V), even
// though it is still inside its protected slice.
//
// EEVDF picks the eligible entity with the earliest deadline; slice
// protection only keeps curr if curr is eligible (pick_eevdf() drops an
// ineligible curr before looking at protect_slice()). Eligible: B (v = V0,
// d = V0 + 1.4 ms) and C (v = V, d = V0 + 100 us + vslice[/2] >= V0 + 1.5 ms).
// So B has the earliest eligible deadline:
//   * the wakeup-preemption pick returns B != C: C does not preempt A
//     (for a new task, WF_FORK returns even before that pick);
//   * at the next schedule() B runs, neither A (ineligible) nor C (later
//     deadline).
// This is the example of the revert: forcing a preemption on wakeup just
// switches to B, not to the wakee C.

TEST(ModelFair, AWakesCNewTaskThenBRuns) {
  Rq rq(mainline());
  ASSERT_FALSE(rq.profile().feat(Feature::NEXT_BUDDY));
  ASSERT_TRUE(rq.profile().feat(Feature::RUN_TO_PARITY));
  CfsRq& cfs = rq.cfs;
  const u64 V0 = kInitZero;
  const int a = rq.create_task("A", 0, Policy::normal, 0);
  const int b = rq.create_task("B", 0, Policy::normal, 0);
  ASSERT_EQ(rq.wake(a, false), Refusal::none);
  ASSERT_EQ(rq.wake(b, false), Refusal::none);
  rq.schedule();
  ASSERT_EQ(rq.curr, a);
  SchedEntity& ase = rq.tasks[a].se;
  SchedEntity& bse = rq.tasks[b].se;
  EXPECT_EQ(ase.vruntime, V0);
  EXPECT_EQ(bse.vruntime, V0);
  EXPECT_EQ(ase.deadline, V0 + kBaseSlice / 2);
  EXPECT_EQ(bse.deadline, V0 + kBaseSlice / 2);
  EXPECT_EQ(ase.vprot, ase.deadline);

  rq.run(200'000);
  const int c = rq.create_task("C", 0, Policy::normal, 0);
  ASSERT_EQ(rq.wake(c, false), Refusal::none);
  SchedEntity& cse = rq.tasks[c].se;

  EXPECT_EQ(ase.vruntime, V0 + 200'000);
  EXPECT_EQ(cse.vruntime, V0 + 100'000);
  EXPECT_EQ(cse.deadline, V0 + 100'000 + kBaseSlice / 2);
  EXPECT_FALSE(entity_eligible(cfs, ase));
  EXPECT_TRUE(entity_eligible(cfs, bse));
  EXPECT_TRUE(entity_eligible(cfs, cse));
  EXPECT_TRUE(protect_slice(ase));  // protected, but protection needs eligibility
  EXPECT_FALSE(rq.need_resched);    // no wakeup preemption
  EXPECT_EQ(rq.curr, a);

  rq.schedule();
  EXPECT_EQ(rq.curr, b);
}

// The same with C a sleeping task woken by try_to_wake_up() (WF_TTWU), so the
// wakeup-preemption pick really runs: it returns B, not C.
TEST(ModelFair, AWakesCSleeperThenBRuns) {
  Rq rq(mainline());
  CfsRq& cfs = rq.cfs;
  const u64 V0 = kInitZero;
  // C runs for no time and sleeps while eligible: dequeued with lag exactly 0.
  const int c = rq.create_task("C", 0, Policy::normal, 0);
  ASSERT_EQ(rq.wake(c, false), Refusal::none);
  rq.schedule();
  ASSERT_EQ(rq.curr, c);
  ASSERT_EQ(rq.sleep(c), Refusal::none);
  SchedEntity& cse = rq.tasks[c].se;
  ASSERT_FALSE(cse.on_rq);
  ASSERT_EQ(cse.vlag, 0);
  ASSERT_EQ(rq.curr, -1);
  ASSERT_EQ(cfs.zero_vruntime, V0);

  const int a = rq.create_task("A", 0, Policy::normal, 0);
  const int b = rq.create_task("B", 0, Policy::normal, 0);
  ASSERT_EQ(rq.wake(a, false), Refusal::none);
  ASSERT_EQ(rq.wake(b, false), Refusal::none);
  rq.schedule();
  ASSERT_EQ(rq.curr, a);
  rq.run(200'000);
  ASSERT_EQ(rq.wake(c, false), Refusal::none);  // A wakes C

  SchedEntity& ase = rq.tasks[a].se;
  SchedEntity& bse = rq.tasks[b].se;
  EXPECT_EQ(ase.vruntime, V0 + 200'000);
  EXPECT_EQ(cse.vruntime, V0 + 100'000);
  EXPECT_EQ(cse.deadline, V0 + 100'000 + kBaseSlice);  // a wakeup gets the full slice
  EXPECT_EQ(bse.deadline, V0 + kBaseSlice / 2);
  EXPECT_FALSE(entity_eligible(cfs, ase));
  EXPECT_FALSE(rq.need_resched);  // pick_next_entity() returned B, not C
  EXPECT_EQ(cfs.next, nullptr);   // NEXT_BUDDY is off
  EXPECT_EQ(rq.curr, a);

  rq.schedule();
  EXPECT_EQ(rq.curr, b);
}

// Contrast: with NEXT_BUDDY the wakee becomes cfs_rq->next, and PICK_BUDDY
// returns an eligible next buddy (C is at V, so eligible) before anything
// else, in the wakeup pick (protect = true) and in the next schedule().
TEST(ModelFair, AWakesCWithNextBuddyCRuns) {
  Rq rq(mainline_with("NEXT_BUDDY"));
  const int c = rq.create_task("C", 0, Policy::normal, 0);
  ASSERT_EQ(rq.wake(c, false), Refusal::none);
  rq.schedule();
  ASSERT_EQ(rq.sleep(c), Refusal::none);
  ASSERT_EQ(rq.tasks[c].se.vlag, 0);
  const int a = rq.create_task("A", 0, Policy::normal, 0);
  const int b = rq.create_task("B", 0, Policy::normal, 0);
  ASSERT_EQ(rq.wake(a, false), Refusal::none);
  ASSERT_EQ(rq.wake(b, false), Refusal::none);
  rq.schedule();
  ASSERT_EQ(rq.curr, a);
  rq.run(200'000);
  ASSERT_EQ(rq.wake(c, false), Refusal::none);
  EXPECT_EQ(rq.cfs.next, &rq.tasks[c].se);
  EXPECT_TRUE(rq.need_resched);
  rq.schedule();
  EXPECT_EQ(rq.curr, c);
  EXPECT_EQ(rq.cfs.next, nullptr);  // set_next_entity() clears the buddy
}

// NEXT_BUDDY + WF_SYNC (e837456fdca8 as merged, preempt_sync()): the wakee
// should preempt at once if its deadline is earlier and the waker ran at
// least sysctl_sched_migration_cost (a quarter of it with WF_RQ_SELECTED).
// But wakeup_preempt_fair() calls update_curr() before preempt_sync(), and
// update_curr() sets se->exec_start = rq_clock_task(), so preempt_sync() sees
// delta = rq_clock_task - exec_start = 0 and returns NONE: the wakee only
// becomes the buddy and runs at the next schedule(). (The v1 patch measured
// delta before update_curr(); the merged code does not.)
TEST(ModelFair, NextBuddySyncWakeupDeltaIsZeroAfterUpdateCurr) {
  Rq rq(mainline_with("NEXT_BUDDY"));
  // C (nice -10, virtual slice 2.8 ms·1024/9548 = 300293 ns) sleeps at lag 0.
  const int c = rq.create_task("C", -10, Policy::normal, 0);
  ASSERT_EQ(rq.wake(c, false), Refusal::none);
  rq.schedule();
  ASSERT_EQ(rq.sleep(c), Refusal::none);
  ASSERT_EQ(rq.tasks[c].se.vlag, 0);
  const int a = rq.create_task("A", 0, Policy::normal, 0);
  ASSERT_EQ(rq.wake(a, false), Refusal::none);
  rq.schedule();
  ASSERT_EQ(rq.curr, a);
  rq.run(900'000);  // no tick before 1 ms: A has run 900 us >= 500 us uncharged
  ASSERT_EQ(rq.clock_task - rq.tasks[a].se.exec_start, 900'000u);

  ASSERT_EQ(rq.wake(c, /*sync=*/true), Refusal::none);
  SchedEntity& ase = rq.tasks[a].se;
  SchedEntity& cse = rq.tasks[c].se;
  // C placed at V = v_A with deadline v_A + 300293 < A's deadline V0 + 1.4 ms.
  EXPECT_EQ(cse.vruntime, ase.vruntime);
  EXPECT_EQ(cse.deadline - cse.vruntime, 300293u);
  EXPECT_TRUE(vruntime_before(cse.deadline, ase.deadline));
  EXPECT_EQ(ase.exec_start, rq.clock_task);  // update_curr() ran first
  EXPECT_EQ(rq.cfs.next, &cse);              // set_preempt_buddy()
  EXPECT_FALSE(rq.need_resched);             // preempt_sync() saw delta 0
  rq.schedule();
  EXPECT_EQ(rq.curr, c);  // PICK_BUDDY at the next pick
}

}  // namespace
}  // namespace eevdf
