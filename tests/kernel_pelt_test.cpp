// PELT's arithmetic (model/pelt.hpp) against the tree's own pelt.c
// (kernelsrc/kernel_pelt.hpp): random walks of updates on entities, queues and
// the RT class's average, every field and every answer equal after every step.
// The steps cover the regimes of the code: no 1024 ns unit crossed, a partial
// period, several periods, more than 63 half-lives (the sums reset), time
// going backwards, no load with running set, weights from 0 up to a group's
// largest, and states whose products wrap. Also the model alone on values
// PELT is known for (LOAD_AVG_MAX, a half-life of 32 periods).
//
// EEVDF_PELT_WALKS=N sets the number of walks (each of 200 steps).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>

#include "kernelsrc/kernel_backend.hpp"
#include "kernelsrc/kernel_pelt.hpp"
#include "model/pelt.hpp"
#include "model/weights.hpp"

namespace eevdf {
namespace {

std::string show(const SchedAvg& a) {
  return "{last_update_time " + std::to_string(a.last_update_time) + ", load_sum " + std::to_string(a.load_sum) +
         ", runnable_sum " + std::to_string(a.runnable_sum) + ", util_sum " + std::to_string(a.util_sum) +
         ", period_contrib " + std::to_string(a.period_contrib) + ", load_avg " + std::to_string(a.load_avg) +
         ", runnable_avg " + std::to_string(a.runnable_avg) + ", util_avg " + std::to_string(a.util_avg) +
         ", util_est " + std::to_string(a.util_est) + "}";
}

// A step of time: the regimes pelt.c distinguishes.
u64 step_ns(std::mt19937_64& rng) {
  switch (rng() % 8) {
    case 0: return rng() % 1024;                    // no unit crossed
    case 1: return rng() % (1024 * 1024);           // within about a period
    case 2: return rng() % (8 * 1024 * 1024);       // a few periods
    case 3: return rng() % (200 * 1024 * 1024);     // up to ~6 half-lives
    case 4: return u64{63 * 32 + rng() % 64} << 20;  // around the 63 half-lives where the sums reset
    case 5: return 0;
    case 6: return (rng() % 64) << 10;              // whole units
    default: return rng() % (2 * 1024 * 1024);
  }
}

// se->load.weight: nice weights scaled up, the small values scale_load_down()
// clamps to 2, 0, and a group's largest (scale_load(MAX_SHARES)).
u64 load_weight(std::mt19937_64& rng) {
  switch (rng() % 6) {
    case 0: return scale_load(sched_prio_to_weight[rng() % 40]);
    case 1: return rng() % 4096;
    case 2: return 0;
    case 3: return kMaxEntityWeight - rng() % 4;
    case 4: return rng() % kMaxEntityWeight;
    default: return kNice0Load;
  }
}

// A starting state: zero, or one with arbitrary sums and averages (the
// products may wrap; both sides must wrap alike). period_contrib stays below
// 1024, as every update leaves it.
SchedAvg start(std::mt19937_64& rng) {
  SchedAvg a;
  a.last_update_time = rng() % 3 ? 0 : rng();
  a.util_est = static_cast<u32>(rng()) | (rng() % 2 ? kUtilAvgUnchanged : 0);
  if (rng() % 2) {
    a.load_sum = rng() % 3 ? rng() % (u64{kLoadAvgMax} * 88761) : rng();
    a.runnable_sum = rng() % 3 ? rng() % (u64{kLoadAvgMax} << 20) : rng();
    a.util_sum = static_cast<u32>(rng());
    a.period_contrib = static_cast<u32>(rng() % 1024);
    a.load_avg = rng();
    a.runnable_avg = rng();
    a.util_avg = rng();
  }
  return a;
}

std::uint64_t walks() {
  const char* env = std::getenv("EEVDF_PELT_WALKS");
  return env ? std::strtoull(env, nullptr, 10) : 3000;
}

TEST(KernelPelt, EveryUpdateAsTheTreesPeltC) {
  if (!kernelsrc::pelt_available()) GTEST_SKIP() << "no kernel tree in this build";
  std::mt19937_64 rng(20261204);
  std::uint64_t updates = 0, decayed = 0;
  for (std::uint64_t walk = 0; walk < walks(); ++walk) {
    SchedAvg model = start(rng);
    SchedAvg tree = model;
    u64 now = model.last_update_time + rng() % 4096;
    const unsigned kind = rng() % 4;  // task or group entity, cfs_rq, rt_rq
    const u64 weight = load_weight(rng);
    for (int step = 0; step < 200; ++step) {
      now += step_ns(rng);
      if (rng() % 50 == 0) now -= rng() % (u64{1} << 30);  // time going backwards
      bool m = false, t = false;
      std::string what;
      switch (kind) {
        case 0:
        case 1: {
          const bool group = kind == 1;
          const bool blocked = rng() % 5 == 0;
          if (blocked) {
            what = "blocked entity";
            m = update_load_avg_blocked_se(now, model, scale_load_down(weight));
            t = kernelsrc::tree_update_load_avg_blocked_se(now, tree, weight);
            break;
          }
          const bool on_rq = rng() % 4 != 0, delayed = rng() % 5 == 0, running = rng() % 3 == 0;
          const bool util_est = rng() % 4 != 0;
          const u64 runnable_weight = rng() % 8;
          // se_runnable(): a delayed entity is not runnable; a task is while
          // queued; a group entity counts its queue's runnable tasks
          const u64 runnable = delayed ? 0 : group ? runnable_weight : (on_rq ? 1 : 0);
          what = std::string(group ? "group" : "task") + " entity, on_rq " + std::to_string(on_rq) + ", delayed " +
                 std::to_string(delayed) + ", running " + std::to_string(running);
          m = update_load_avg_se(now, model, scale_load_down(weight), on_rq, runnable, running, util_est);
          t = kernelsrc::tree_update_load_avg_se(now, tree, weight, on_rq, delayed, group, runnable_weight, running,
                                                 util_est);
          break;
        }
        case 2: {
          const u64 queue_weight = rng() % 2 ? weight * (1 + rng() % 8) : rng() % (u64{1} << 40);
          const u32 queued = static_cast<u32>(rng() % 16);
          const u32 delayed = queued ? static_cast<u32>(rng() % (queued + 1)) : 0;
          const bool has_curr = rng() % 2;
          what = "cfs_rq, " + std::to_string(queued) + " queued, " + std::to_string(delayed) + " delayed";
          m = update_load_avg_cfs_rq(now, model, scale_load_down(queue_weight), queued - delayed, has_curr);
          t = kernelsrc::tree_update_load_avg_cfs_rq(now, tree, queue_weight, queued, delayed, has_curr);
          break;
        }
        default: {
          const bool running = rng() % 2;
          what = "rt_rq, running " + std::to_string(running);
          m = update_rt_rq_load_avg(now, model, running);
          t = kernelsrc::tree_update_rt_rq_load_avg(now, tree, running);
        }
      }
      ++updates;
      decayed += m;
      ASSERT_EQ(m, t) << "walk " << walk << ", step " << step << " (" << what << ", now " << now << ")";
      ASSERT_EQ(model, tree) << "walk " << walk << ", step " << step << " (" << what << ", now " << now
                             << ")\n  model " << show(model) << "\n  tree  " << show(tree);
    }
  }
  // the walks reach both answers often (not a comparison of no-ops)
  EXPECT_GT(decayed, updates / 10);
  EXPECT_LT(decayed, updates - updates / 10);
  std::printf("%llu updates compared with %s's pelt.c, %llu of them crossing a period\n",
              static_cast<unsigned long long>(updates), kernelsrc::kernel_version().c_str(),
              static_cast<unsigned long long>(decayed));
}

std::string show(const PeltClock& c) {
  return "{clock_pelt " + std::to_string(c.clock_pelt) + ", lost_idle_time " + std::to_string(c.lost_idle_time) +
         ", clock_idle " + std::to_string(c.clock_idle) + ", clock_pelt_idle " + std::to_string(c.clock_pelt_idle) +
         "}";
}

// The PELT clock of pelt.h: a runqueue busy and idle in turn, on CPUs of
// every capacity, with utilization sums at and around the full-busy divider.
TEST(KernelPelt, ClockAsTheTreesPeltH) {
  if (!kernelsrc::pelt_available()) GTEST_SKIP() << "no kernel tree in this build";
  std::mt19937_64 rng(4);
  const u32 divider = (kPeltMinDivider << kSchedCapacityShift) - kLoadAvgMax;
  std::uint64_t lost = 0, scaled = 0;
  for (std::uint64_t walk = 0; walk < walks(); ++walk) {
    PeltClock model;
    u64 clock = rng() % 3 ? 0 : rng(), clock_task = clock - rng() % 1000;
    const u64 cap = rng() % 2 ? 1024 : 1 + rng() % 1024, freq = rng() % 2 ? 1024 : 1 + rng() % 1024;
    model.clock_pelt = rng() % 2 ? clock_task : rng();
    model.lost_idle_time = rng() % 2 ? 0 : rng() % (u64{1} << 40);
    PeltClock tree = model;
    for (int step = 0; step < 200; ++step) {
      const s64 delta = rng() % 20 == 0 ? -static_cast<s64>(rng() % 100000) : static_cast<s64>(step_ns(rng));
      clock += as_u64(delta) + rng() % 1000;
      clock_task += as_u64(delta);
      std::string what;
      if (rng() % 4 == 0) {
        const u32 base = rng() % 2 ? divider : static_cast<u32>(rng());
        const u32 cfs = base - static_cast<u32>(rng() % 3), rt = static_cast<u32>(rng() % 2 ? 0 : rng() % 100000);
        const u32 dl = static_cast<u32>(rng() % 4 ? 0 : rng());
        what = "going idle, util_sums " + std::to_string(cfs) + " " + std::to_string(rt) + " " + std::to_string(dl);
        const u64 before = model.lost_idle_time;
        update_idle_rq_clock_pelt(model, cfs, rt, dl, clock_task, clock);
        kernelsrc::tree_update_idle_rq_clock_pelt(tree, cfs, rt, dl, clock_task, clock);
        lost += model.lost_idle_time != before;
      } else {
        const bool idle = rng() % 3 == 0;
        what = "clock update by " + std::to_string(delta) + (idle ? ", idle" : ", busy");
        update_rq_clock_pelt(model, delta, idle, clock_task, clock, cap, freq);
        kernelsrc::tree_update_rq_clock_pelt(tree, delta, idle, clock_task, clock, cap, freq);
        scaled += !idle && (cap != 1024 || freq != 1024);
      }
      ASSERT_EQ(model, tree) << "walk " << walk << ", step " << step << " (" << what << ")\n  model " << show(model)
                             << "\n  tree  " << show(tree);
      ASSERT_EQ(rq_clock_pelt(model), kernelsrc::tree_rq_clock_pelt(tree));
    }
  }
  EXPECT_GT(lost, 0u);
  EXPECT_GT(scaled, 0u);
}

// The model alone: what PELT is built to give.
TEST(Pelt, AlwaysRunningApproachesTheWeightAndLoadAvgMax) {
  SchedAvg a;
  const u64 w = scale_load_down(kNice0Load);
  for (u64 now = 0; now <= 2'000'000'000; now += 4'000'000)  // 2 s of 4 ms ticks
    update_load_avg_se(now, a, w, true, 1, true, true);
  // the largest sum is LOAD_AVG_MAX; at a period's start it is LOAD_AVG_MAX - 1024
  EXPECT_LE(a.load_sum, u64{kLoadAvgMax});
  EXPECT_GE(a.load_sum, u64{kPeltMinDivider} - 2);
  EXPECT_GE(a.load_avg, w - 2);
  EXPECT_LE(a.load_avg, w);
  EXPECT_GE(a.util_avg, 1022u);
  EXPECT_LE(a.util_avg, 1024u);
}

TEST(Pelt, ThirtyTwoPeriodsHalveTheSum) {
  for (u64 v : {u64{47742}, u64{1} << 40, u64{123456789}}) {
    const u64 half = decay_load(v, 32);
    EXPECT_EQ(half, decay_load(v >> 1, 0)) << v;
    EXPECT_EQ(decay_load(v, 0), static_cast<u64>((static_cast<u128>(v) * 0xffffffffu) >> 32)) << v;
    EXPECT_LT(decay_load(v, 1), v);
    EXPECT_EQ(decay_load(v, 63 * 32 + 1), 0u);
  }
}

TEST(Pelt, SleepingEntityDecaysAndStopsAtZero) {
  SchedAvg a;
  const u64 w = scale_load_down(kNice0Load);
  // running for 1 s, updated at each period boundary (1024 units of 1024 ns)
  const u64 period = 1024 * 1024;
  u64 last = 0;
  for (u64 now = period; now <= 1000 * period; now += period) {
    update_load_avg_se(now, a, w, true, 1, true, true);
    last = now;
  }
  const u64 before = a.load_avg;
  ASSERT_EQ(a.period_contrib, 0u);
  // 32 periods later, blocked: half, within the rounding of the table
  update_load_avg_blocked_se(last + 32 * period, a, w);
  EXPECT_NEAR(static_cast<double>(a.load_avg), before / 2.0, 1.0);
  update_load_avg_blocked_se(last + u64{64 * 32} * period, a, w);
  EXPECT_EQ(a.load_sum, 0u);
  EXPECT_EQ(a.load_avg, 0u);
}

}  // namespace
}  // namespace eevdf
