// CPU bandwidth control (CONFIG_CFS_BANDWIDTH, cgroup cpu.max) as 6.12.118
// has it: the hierarchical throttle. A group with a quota hands its queues
// runtime from a pool (cfs_bandwidth.runtime) in slices; a queue that runs
// out is throttled by dequeuing its group entity (throttle_cfs_rq()), and the
// period timer refills the pool and puts the throttled queues back
// (distribute_cfs_runtime(), unthrottle_cfs_rq()). Read in 6.12.118's fair.c
// (the CONFIG_CFS_BANDWIDTH section and its callers) and core.c
// (tg_set_cfs_bandwidth(), __cfs_schedulable()); docs/model.md, "CPU
// bandwidth control", says what is left out.
//
// v6.18 throttles tasks instead (Behaviour::task_based_throttle; e1fad12dcb66
// and its series, read in 6.18.0's fair.c, 7.0.0's is the same): the
// functions below that differ take the v6.18 form under that flag.
#include <algorithm>

#include "model/fair.hpp"

namespace eevdf {

namespace {
constexpr u64 kNsecPerUsec = 1000;
constexpr u64 kBandwidthSlice = 5000 * kNsecPerUsec;         // sysctl_sched_cfs_bandwidth_slice, 5000 us
constexpr u64 kMinCfsRqRuntime = 1'000'000;                   // min_cfs_rq_runtime
constexpr u64 kMinBandwidthExpiration = 2'000'000;            // min_bandwidth_expiration
constexpr u64 kCfsBandwidthSlackPeriod = 5'000'000;           // cfs_bandwidth_slack_period
constexpr u64 kMinCfsQuotaPeriod = 1'000'000;                 // min_cfs_quota_period, 1 ms
constexpr u64 kMaxCfsQuotaPeriod = 1'000'000'000;             // max_cfs_quota_period, 1 s
constexpr unsigned kBwShift = 20;                             // BW_SHIFT
constexpr u64 kMaxBw = (u64{1} << (64 - kBwShift)) - 1;       // MAX_BW
constexpr u64 kMaxCfsRuntime = kMaxBw * kNsecPerUsec;          // max_cfs_runtime

u64 rq_clock_pelt_of(const Rq& rq) { return rq.clock_task + kPeltClockBase; }

// int += int in the kernel's wrapping arithmetic (-fwrapv)
int add_wrapping(int a, int b) { return static_cast<int>(static_cast<unsigned>(a) + static_cast<unsigned>(b)); }

Rq& rq_of_cpu(Rq& any, int cpu) { return *any.possible_cpus()[static_cast<std::size_t>(cpu)]; }

// walk_tg_tree_from(): tg and every live group below it.
template <class F>
void for_each_tg_from(std::vector<TaskGroup>& groups, int from, F f) {
  for (std::size_t g = 0; g < groups.size(); ++g) {
    if (groups[g].destroyed) continue;
    for (int a = static_cast<int>(g); a >= 0; a = groups[static_cast<std::size_t>(a)].parent)
      if (a == from) {
        f(static_cast<int>(g));
        break;
      }
  }
}

// to_ratio(): the quota as a fraction of the period, BW_SHIFT bits.
u64 to_ratio(u64 period, u64 runtime) {
  if (runtime == kRuntimeInf) return u64{1} << kBwShift;
  if (period == 0) return 0;
  return (runtime << kBwShift) / period;
}
}  // namespace

bool task_based_throttle(const CfsRq& cfs_rq) { return cfs_rq.rq->profile().behaviour.task_based_throttle; }
bool walk_stops_at_throttled(const CfsRq& cfs_rq) { return !task_based_throttle(cfs_rq) && cfs_rq_throttled(cfs_rq); }

CfsBandwidth& tg_cfs_bandwidth(CfsRq& cfs_rq) {
  return cfs_rq.rq->task_groups[static_cast<std::size_t>(cfs_rq.group_id)].cfs_bandwidth;
}

// cfs_rq_clock_pelt() with bandwidth (pelt.h): a throttled hierarchy's PELT
// time stands still from the throttle on; the time it stood still is taken
// off afterwards.
// v6.18: the clock stands still while pelt_clock_throttled (the queue
// emptied in a throttled hierarchy), not for the whole throttle.
u64 cfs_rq_clock_pelt(const CfsRq& cfs_rq) {
  if (task_based_throttle(cfs_rq) ? cfs_rq.pelt_clock_throttled : cfs_rq.throttle_count != 0) return cfs_rq.throttled_clock_pelt - cfs_rq.throttled_clock_pelt_time;
  return rq_clock_pelt_of(*cfs_rq.rq) - cfs_rq.throttled_clock_pelt_time;
}

// hrtimer_forward(): move the expiry past now by whole intervals; the number
// of intervals moved (0 when the timer has not expired yet).
u64 hrtimer_forward(HrTimer& t, u64 now, u64 interval) {
  const s64 delta = as_s64(now - t.expires);
  if (delta < 0) return 0;
  u64 orun = 1;
  if (as_u64(delta) >= interval) {
    orun = as_u64(delta) / interval;
    t.expires += orun * interval;
    if (as_s64(t.expires - now) > 0) return orun;
    ++orun;
  }
  t.expires += interval;
  return orun;
}

// __refill_cfs_bandwidth_runtime()
void refill_cfs_bandwidth_runtime(CfsBandwidth& cfs_b) {
  if (cfs_b.quota == kRuntimeInf) return;
  cfs_b.runtime += cfs_b.quota;
  const s64 runtime = as_s64(cfs_b.runtime_snap - cfs_b.runtime);
  if (runtime > 0) {
    cfs_b.burst_time += as_u64(runtime);
    cfs_b.nr_burst = add_wrapping(cfs_b.nr_burst, 1);
  }
  cfs_b.runtime = std::min(cfs_b.runtime, cfs_b.quota + cfs_b.burst);
  cfs_b.runtime_snap = cfs_b.runtime;
}

// start_cfs_bandwidth(): arm the period timer on `cpu` (HRTIMER_MODE_ABS_PINNED).
void start_cfs_bandwidth(CfsBandwidth& cfs_b, int cpu, u64 now) {
  if (cfs_b.period_active) return;
  cfs_b.period_active = true;
  hrtimer_forward(cfs_b.period_timer, now, cfs_b.period);
  cfs_b.period_timer.queued = true;
  cfs_b.period_timer.cpu = cpu;
}

// __assign_cfs_rq_runtime(): top the queue up to target_runtime from the pool.
bool assign_cfs_rq_runtime(CfsBandwidth& cfs_b, CfsRq& cfs_rq, u64 target_runtime) {
  const u64 min_amount = target_runtime - as_u64(cfs_rq.runtime_remaining);
  u64 amount = 0;
  if (cfs_b.quota == kRuntimeInf) {
    amount = min_amount;
  } else {
    start_cfs_bandwidth(cfs_b, cfs_rq.rq->cpu, cfs_rq.rq->clock_task);
    if (cfs_b.runtime > 0) {
      amount = std::min(cfs_b.runtime, min_amount);
      cfs_b.runtime -= amount;
      cfs_b.idle = false;
    }
  }
  cfs_rq.runtime_remaining = as_s64(as_u64(cfs_rq.runtime_remaining) + amount);
  return cfs_rq.runtime_remaining > 0;
}

// account_cfs_rq_runtime() + __account_cfs_rq_runtime()
void account_cfs_rq_runtime(CfsRq& cfs_rq, u64 delta_exec) {
  if (!cfs_rq.rq->cfs_bandwidth_used() || !cfs_rq.runtime_enabled) return;
  cfs_rq.runtime_remaining = as_s64(as_u64(cfs_rq.runtime_remaining) - delta_exec);
  if (cfs_rq.runtime_remaining > 0) return;
  if (cfs_rq.throttled) return;
  if (!assign_cfs_rq_runtime(tg_cfs_bandwidth(cfs_rq), cfs_rq, kBandwidthSlice) && cfs_rq.curr)
    cfs_rq.rq->resched_curr();
}

namespace {
// tg_throttle_down(): the group's queue on rq's CPU enters a throttled hierarchy.
void tg_throttle_down(Rq& rq, CfsRq& cfs_rq) {
  if (rq.profile().behaviour.task_based_throttle) {  // v6.18
    if (cfs_rq.throttle_count++) return;
    // a queue with entities stops its PELT clock when the last one leaves (dequeue_entity_bandwidth())
    if (!cfs_rq.nr_queued) {
      cfs_rq.throttled_clock_pelt = rq_clock_pelt_of(rq);
      cfs_rq.pelt_clock_throttled = true;
    }
    if (cfs_rq.throttled_clock_self) rq.warn(Warn::bandwidth_clock_self_set, nullptr);
    if (!cfs_rq.throttled_limbo_list.empty()) rq.warn(Warn::bandwidth_limbo_not_empty, nullptr);
    return;
  }
  if (!cfs_rq.throttle_count) {
    cfs_rq.throttled_clock_pelt = rq_clock_pelt_of(rq);
    if (cfs_rq.throttled_clock_self) rq.warn(Warn::bandwidth_clock_self_set, nullptr);
    if (cfs_rq.nr_queued) cfs_rq.throttled_clock_self = rq.clock_task;
  }
  cfs_rq.throttle_count++;
}

// tg_unthrottle_up()
// v6.18: the PELT clock only if it stood still, and the queue's limbo tasks
// are enqueued again, in list order.
void tg_unthrottle_up(Rq& rq, CfsRq& cfs_rq) {
  cfs_rq.throttle_count--;
  if (cfs_rq.throttle_count) return;
  const bool task_based = rq.profile().behaviour.task_based_throttle;
  if (!task_based) {
    cfs_rq.throttled_clock_pelt_time += rq_clock_pelt_of(rq) - cfs_rq.throttled_clock_pelt;
  } else if (cfs_rq.pelt_clock_throttled) {
    cfs_rq.throttled_clock_pelt_time += rq_clock_pelt_of(rq) - cfs_rq.throttled_clock_pelt;
    cfs_rq.pelt_clock_throttled = false;
  }
  if (cfs_rq.throttled_clock_self) {
    u64 delta = rq.clock_task - cfs_rq.throttled_clock_self;
    cfs_rq.throttled_clock_self = 0;
    if (as_s64(delta) < 0) {
      rq.warn(Warn::bandwidth_clock_self_backwards, nullptr);
      delta = 0;
    }
    cfs_rq.throttled_clock_self_time += delta;
  }
  if (!task_based) return;
  while (!cfs_rq.throttled_limbo_list.empty()) {
    Task& p = rq.tasks[static_cast<std::size_t>(cfs_rq.throttled_limbo_list.front())];
    cfs_rq.throttled_limbo_list.erase(cfs_rq.throttled_limbo_list.begin());
    p.throttled = false;
    enqueue_task_fair(rq, p, enqueue_flags::WAKEUP);
  }
}

// walk_tg_tree_from(tg, tg_nop, up): up runs on a group after all its
// children, the children in list order (the newest first: list_add_rcu() in
// sched_online_group()). The v6.18 tg_unthrottle_up() enqueues tasks, so the
// order matters there.
template <class F>
void walk_tg_tree_up_from(std::vector<TaskGroup>& groups, int from, F& up) {
  for (std::size_t g = groups.size(); g-- > 0;)
    if (!groups[g].destroyed && groups[g].parent == from) walk_tg_tree_up_from(groups, static_cast<int>(g), up);
  up(from);
}

// The h_nr_* counts of a queue q being throttled, which throttle_cfs_rq()
// takes off and unthrottle_cfs_rq() puts back on each level above it (from an
// idle group's level up, every task below counts as SCHED_IDLE).
struct HDeltas {
  explicit HDeltas(const CfsRq& queue)
      : q(queue), queued(queue.h_nr_queued), runnable(queue.h_nr_runnable), idle(queue.h_nr_idle) {}
  void take_off(CfsRq& level, const SchedEntity& se) {
    if (cfs_rq_is_idle(*se.my_q)) idle = q.h_nr_queued;
    level.h_nr_queued -= queued;
    level.h_nr_runnable -= runnable;
    level.h_nr_idle -= idle;
  }
  void put_back(CfsRq& level, const SchedEntity& se) {
    if (cfs_rq_is_idle(*se.my_q)) idle = q.h_nr_queued;
    level.h_nr_queued += queued;
    level.h_nr_runnable += runnable;
    level.h_nr_idle += idle;
  }
  const CfsRq& q;
  unsigned queued, runnable, idle;
};

// throttle_cfs_rq()'s two walks up from the group entity se: dequeue it and
// each level that empties, then update the levels above. True when they
// reached the root (false: an entity already off its queue above).
bool throttle_levels(SchedEntity* se, HDeltas& d) {
  for (; se; se = se->parent) {
    if (!se->on_rq) return false;
    int flags = dequeue_flags::SLEEP | dequeue_flags::SPECIAL;
    if (se->sched_delayed) flags |= dequeue_flags::DELAYED;
    dequeue_entity(*se->cfs_rq, *se, flags);
    d.take_off(*se->cfs_rq, *se);
    if (se->cfs_rq->load.weight) {
      se = se->parent;
      break;
    }
  }
  for (; se; se = se->parent) {
    if (!se->on_rq) return false;
    update_load_avg(*se->cfs_rq, *se, 0);
    se_update_runnable(*se);
    d.take_off(*se->cfs_rq, *se);
  }
  return true;
}

// unthrottle_cfs_rq()'s two walks up: enqueue the group entity se and each
// level that is not queued (a delayed one dequeued first), then update the
// levels above. True when they reached the root (false: a throttled queue above).
bool unthrottle_levels(SchedEntity* se, HDeltas& d) {
  // before 9b5ce1a37e90 (bug switch B26) a delayed entity is not dequeued first: the
  // walk stops at it as at any queued entity, with a warning
  const bool finish_delayed = se && se->cfs_rq->rq->profile().behaviour.unthrottle_dequeues_delayed;
  for (; se; se = se->parent) {
    CfsRq& qcfs_rq = *se->cfs_rq;
    if (se->sched_delayed && finish_delayed) {
      dequeue_entity(qcfs_rq, *se, dequeue_flags::SLEEP | dequeue_flags::DELAYED);
    } else if (se->on_rq) {
      if (se->sched_delayed) qcfs_rq.rq->warn(Warn::bandwidth_unthrottle_delayed, se);
      break;
    }
    enqueue_entity(qcfs_rq, *se, enqueue_flags::WAKEUP);
    d.put_back(qcfs_rq, *se);
    if (cfs_rq_throttled(qcfs_rq)) return false;
  }
  for (; se; se = se->parent) {
    update_load_avg(*se->cfs_rq, *se, pelt_flags::UPDATE_TG);
    se_update_runnable(*se);
    d.put_back(*se->cfs_rq, *se);
    if (cfs_rq_throttled(*se->cfs_rq)) return false;
  }
  return true;
}
}  // namespace

// throttle_cfs_rq(): false when runtime turned up after all.
bool throttle_cfs_rq(CfsRq& cfs_rq) {
  Rq& rq = *cfs_rq.rq;
  CfsBandwidth& cfs_b = tg_cfs_bandwidth(cfs_rq);
  if (assign_cfs_rq_runtime(cfs_b, cfs_rq, 1)) return false;  // raced with a refill: 1 ns asked for
  ++rq.throttles;
  cfs_b.throttled_cfs_rq.push_back(rq.cpu);

  for_each_tg_from(rq.task_groups, cfs_rq.group_id, [&](int g) { tg_throttle_down(rq, rq.group_queue(g)); });

  if (rq.profile().behaviour.task_based_throttle) {  // v6.18: nothing is dequeued here
    cfs_rq.throttled = true;
    if (cfs_rq.throttled_clock) rq.warn(Warn::bandwidth_throttled_clock_set, nullptr);
    return true;
  }
  HDeltas d(cfs_rq);
  if (throttle_levels(&rq.groups[static_cast<std::size_t>(cfs_rq.group_id)].se, d))  // tg->se[cpu]
    rq.nr_running -= d.queued;  // sub_nr_running()
  cfs_rq.throttled = true;
  if (cfs_rq.throttled_clock) rq.warn(Warn::bandwidth_throttled_clock_set, nullptr);
  if (cfs_rq.nr_queued) cfs_rq.throttled_clock = rq.clock_task;
  return true;
}

// unthrottle_cfs_rq()
void unthrottle_cfs_rq(CfsRq& cfs_rq) {
  Rq& rq = *cfs_rq.rq;
  CfsBandwidth& cfs_b = tg_cfs_bandwidth(cfs_rq);
  const bool task_based = rq.profile().behaviour.task_based_throttle;
  // v6.18: not without runtime (the limbo tasks' enqueues would throttle again)
  if (task_based && cfs_rq.runtime_enabled && cfs_rq.runtime_remaining <= 0) return;
  ++rq.unthrottles;
  cfs_rq.throttled = false;
  if (cfs_rq.throttled_clock) {
    cfs_b.throttled_time += rq.clock_task - cfs_rq.throttled_clock;
    cfs_rq.throttled_clock = 0;
  }
  std::erase(cfs_b.throttled_cfs_rq, rq.cpu);

  if (task_based) {  // v6.18: tg_unthrottle_up() enqueues the limbo tasks; nothing else to put back
    auto up = [&](int g) { tg_unthrottle_up(rq, rq.group_queue(g)); };
    walk_tg_tree_up_from(rq.task_groups, cfs_rq.group_id, up);
    // (the early return of a queue with no load and off the leaf list is not
    // modelled: the leaf list is not; the test below is then a no-op anyway)
    if (rq.running() < 0 && rq.cfs.nr_queued) rq.resched_curr();
    return;
  }
  for_each_tg_from(rq.task_groups, cfs_rq.group_id, [&](int g) { tg_unthrottle_up(rq, rq.group_queue(g)); });

  // An empty queue goes back to nothing (the leaf-list bookkeeping of its
  // branch is not modelled: docs/model.md); its CPU is checked for idleness below.
  if (cfs_rq.load.weight) {
    HDeltas d(cfs_rq);
    if (unthrottle_levels(&rq.groups[static_cast<std::size_t>(cfs_rq.group_id)].se, d))  // tg->se[cpu]
      rq.nr_running += d.queued;  // add_nr_running()
  }
  if (rq.running() < 0 && rq.cfs.nr_queued) rq.resched_curr();
}

namespace {
// unthrottle_cfs_rq_async() + __unthrottle_cfs_rq_async(): a queue of another
// CPU is put on that CPU's CSD list, unthrottled when the CSD runs (Rq::run_cfsb_csd()).
void unthrottle_cfs_rq_async(CfsRq& cfs_rq, int this_cpu) {
  Rq& rq = *cfs_rq.rq;
  if (!cfs_rq_throttled(cfs_rq) || cfs_rq.runtime_remaining <= 0) {
    rq.warn(Warn::bandwidth_async_unthrottle_not_due, nullptr);
    return;
  }
  if (rq.cpu == this_cpu) {
    unthrottle_cfs_rq(cfs_rq);
    return;
  }
  if (cfs_rq.csd_queued) {
    rq.warn(Warn::bandwidth_csd_queued_twice, nullptr);
    return;
  }
  cfs_rq.csd_queued = true;
  rq.cfsb_csd_list.push_back(cfs_rq.group_id);
}
}  // namespace

// distribute_cfs_runtime(), run on CPU this_cpu (any runqueue reaches the
// others through possible_cpus()): true when a queue stays throttled.
bool distribute_cfs_runtime(Rq& any, int group, int this_cpu) {
  CfsBandwidth& cfs_b = any.task_groups[static_cast<std::size_t>(group)].cfs_bandwidth;
  u64 remaining = 1;
  bool throttled = false;
  std::vector<int> local_unthrottle;
  const std::vector<int> list = cfs_b.throttled_cfs_rq;  // nothing leaves it during the walk
  for (int cpu : list) {
    if (!remaining) {
      throttled = true;
      break;
    }
    Rq& rq = rq_of_cpu(any, cpu);
    CfsRq& cfs_rq = rq.group_queue(group);
    if (!cfs_rq_throttled(cfs_rq) || cfs_rq.csd_queued) continue;
    if (cfs_rq.runtime_remaining > 0) rq.warn(Warn::bandwidth_throttled_with_runtime, nullptr);
    u64 runtime = (u64{0} - as_u64(cfs_rq.runtime_remaining)) + 1;  // -runtime_remaining + 1, wrapping
    if (runtime > cfs_b.runtime) runtime = cfs_b.runtime;
    cfs_b.runtime -= runtime;
    remaining = cfs_b.runtime;
    cfs_rq.runtime_remaining = as_s64(as_u64(cfs_rq.runtime_remaining) + runtime);
    if (cfs_rq.runtime_remaining > 0) {
      if (cpu != this_cpu) {
        unthrottle_cfs_rq_async(cfs_rq, this_cpu);
      } else {
        if (!local_unthrottle.empty()) rq.warn(Warn::bandwidth_two_local_unthrottles, nullptr);
        local_unthrottle.push_back(cpu);
      }
    } else {
      throttled = true;
    }
  }
  for (int cpu : local_unthrottle) {
    CfsRq& cfs_rq = rq_of_cpu(any, cpu).group_queue(group);
    if (cfs_rq_throttled(cfs_rq)) unthrottle_cfs_rq(cfs_rq);
  }
  return throttled;
}

// __cfsb_csd_unthrottle(): the CSD of this CPU unthrottles the queues others queued for it.
void Rq::run_cfsb_csd() {
  const std::vector<int> list = std::move(cfsb_csd_list);
  cfsb_csd_list.clear();
  for (int g : list) {
    CfsRq& cfs_rq = group_queue(g);
    cfs_rq.csd_queued = false;
    if (cfs_rq_throttled(cfs_rq)) unthrottle_cfs_rq(cfs_rq);
  }
}

namespace {
// do_sched_cfs_period_timer(): true when the timer may stop (the group is idle).
bool do_sched_cfs_period_timer(Rq& rq, int group, int overrun) {
  CfsBandwidth& cfs_b = rq.task_groups[static_cast<std::size_t>(group)].cfs_bandwidth;
  if (cfs_b.quota == kRuntimeInf) return true;
  bool throttled = !cfs_b.throttled_cfs_rq.empty();
  cfs_b.nr_periods = add_wrapping(cfs_b.nr_periods, overrun);
  refill_cfs_bandwidth_runtime(cfs_b);
  if (cfs_b.idle && !throttled) return true;
  if (!throttled) {
    cfs_b.idle = true;
    return false;
  }
  cfs_b.nr_throttled = add_wrapping(cfs_b.nr_throttled, overrun);
  while (throttled && cfs_b.runtime > 0) throttled = distribute_cfs_runtime(rq, group, rq.cpu);
  cfs_b.idle = false;
  return false;
}

// runtime_refresh_within(): the period timer expires within min_expire, or
// its callback is running.
bool runtime_refresh_within(const CfsBandwidth& cfs_b, u64 min_expire, u64 now) {
  if (cfs_b.period_callback_running) return true;
  const s64 remaining = as_s64(cfs_b.period_timer.expires - now);
  return remaining < as_s64(min_expire);
}

// start_cfs_slack_bandwidth()
void start_cfs_slack_bandwidth(CfsBandwidth& cfs_b, int cpu, u64 now) {
  if (runtime_refresh_within(cfs_b, kCfsBandwidthSlackPeriod + kMinBandwidthExpiration, now)) return;
  if (cfs_b.slack_started) return;
  cfs_b.slack_started = true;
  cfs_b.slack_timer.expires = now + kCfsBandwidthSlackPeriod;
  cfs_b.slack_timer.queued = true;
  cfs_b.slack_timer.cpu = cpu;
}
}  // namespace

// sched_cfs_period_timer(), run on this runqueue's CPU at its clock.
void Rq::fire_period_timer(int group) {
  CfsBandwidth& cfs_b = task_groups[static_cast<std::size_t>(group)].cfs_bandwidth;
  cfs_b.period_timer.queued = false;
  cfs_b.period_callback_running = true;
  // the kernel loops until hrtimer_forward_now() finds the expiry ahead (and
  // doubles a period that keeps overrunning); the model's clock stands still
  // in the callback, so the first forward already puts the expiry past now.
  // The kernel keeps its u64 answer in an int.
  bool idle = false;
  if (const int overrun = static_cast<int>(hrtimer_forward(cfs_b.period_timer, clock_task, cfs_b.period)))
    idle = do_sched_cfs_period_timer(*this, group, overrun);
  if (idle) cfs_b.period_active = false;
  if (!idle) cfs_b.period_timer.queued = true;  // HRTIMER_RESTART
  cfs_b.period_callback_running = false;
}

// sched_cfs_slack_timer() → do_sched_cfs_slack_timer()
void Rq::fire_slack_timer(int group) {
  CfsBandwidth& cfs_b = task_groups[static_cast<std::size_t>(group)].cfs_bandwidth;
  cfs_b.slack_timer.queued = false;
  cfs_b.slack_started = false;
  if (runtime_refresh_within(cfs_b, kMinBandwidthExpiration, clock_task)) return;
  const u64 runtime = (cfs_b.quota != kRuntimeInf && cfs_b.runtime > kBandwidthSlice) ? cfs_b.runtime : 0;
  if (!runtime) return;
  distribute_cfs_runtime(*this, group, cpu);
}

// return_cfs_rq_runtime() + __return_cfs_rq_runtime(): an emptied queue gives
// back what it holds beyond 1 ms.
void return_cfs_rq_runtime(CfsRq& cfs_rq) {
  if (!cfs_rq.rq->cfs_bandwidth_used()) return;
  if (!cfs_rq.runtime_enabled || cfs_rq.nr_queued) return;
  const s64 slack_runtime = as_s64(as_u64(cfs_rq.runtime_remaining) - kMinCfsRqRuntime);
  if (slack_runtime <= 0) return;
  CfsBandwidth& cfs_b = tg_cfs_bandwidth(cfs_rq);
  if (cfs_b.quota != kRuntimeInf) {
    cfs_b.runtime += as_u64(slack_runtime);
    if (cfs_b.runtime > kBandwidthSlice && !cfs_b.throttled_cfs_rq.empty())
      start_cfs_slack_bandwidth(cfs_b, cfs_rq.rq->cpu, cfs_rq.rq->clock_task);
  }
  cfs_rq.runtime_remaining = as_s64(as_u64(cfs_rq.runtime_remaining) - as_u64(slack_runtime));
}

// check_enqueue_throttle(): a queue that wakes up with its runtime spent is throttled at once.
void check_enqueue_throttle(CfsRq& cfs_rq) {
  if (!cfs_rq.rq->cfs_bandwidth_used()) return;
  if (!cfs_rq.runtime_enabled || cfs_rq.curr) return;
  if (cfs_rq_throttled(cfs_rq)) return;
  account_cfs_rq_runtime(cfs_rq, 0);
  if (cfs_rq.runtime_remaining <= 0) throttle_cfs_rq(cfs_rq);
}

// sync_throttle(): a new group's queue inherits its parent's throttle count.
void sync_throttle(Rq& rq, int group) {
  if (!rq.cfs_bandwidth_used()) return;
  const int parent = rq.task_groups[static_cast<std::size_t>(group)].parent;  // -1: the root group's rq->cfs
  CfsRq& cfs_rq = rq.group_queue(group);
  cfs_rq.throttle_count = rq.group_queue(parent).throttle_count;
  cfs_rq.throttled_clock_pelt = rq_clock_pelt_of(rq);
  // v6.18: a queue that joins a throttled hierarchy starts with its PELT clock stopped
  if (rq.profile().behaviour.task_based_throttle && cfs_rq.throttle_count) cfs_rq.pelt_clock_throttled = true;
}

// check_cfs_rq_runtime(): put_prev_entity() and pick_task_fair() throttle a
// queue whose runtime is spent; true when it is (now or already) throttled.
bool check_cfs_rq_runtime(CfsRq& cfs_rq) {
  if (!cfs_rq.rq->cfs_bandwidth_used()) return false;
  if (!cfs_rq.runtime_enabled || cfs_rq.runtime_remaining > 0) return false;
  if (cfs_rq_throttled(cfs_rq)) return true;
  return throttle_cfs_rq(cfs_rq);
}

// The enqueue_entity() tail for a queue that just got its first entity:
// check_enqueue_throttle(), and a throttled hierarchy's clocks.
// v6.18: the PELT clock of a queue that stood still runs again.
void enqueue_entity_bandwidth(CfsRq& cfs_rq) {
  if (cfs_rq.nr_queued != 1) return;
  check_enqueue_throttle(cfs_rq);
  if (task_based_throttle(cfs_rq)) {
    if (cfs_rq.pelt_clock_throttled) {
      cfs_rq.throttled_clock_pelt_time += rq_clock_pelt_of(*cfs_rq.rq) - cfs_rq.throttled_clock_pelt;
      cfs_rq.pelt_clock_throttled = false;
    }
    return;
  }
  if (!throttled_hierarchy(cfs_rq)) return;
  if (cfs_rq_throttled(cfs_rq) && !cfs_rq.throttled_clock) cfs_rq.throttled_clock = cfs_rq.rq->clock_task;
  if (!cfs_rq.throttled_clock_self) cfs_rq.throttled_clock_self = cfs_rq.rq->clock_task;
}

// The dequeue_entity() tail of v6.18 for a queue that emptied: in a
// throttled hierarchy its PELT clock stops.
void dequeue_entity_bandwidth(CfsRq& cfs_rq) {
  if (cfs_rq.nr_queued || !task_based_throttle(cfs_rq) || !throttled_hierarchy(cfs_rq)) return;
  cfs_rq.throttled_clock_pelt = rq_clock_pelt_of(*cfs_rq.rq);
  cfs_rq.pelt_clock_throttled = true;
}

// record_throttle_clock() (v6.18): dequeue_entities() of a task going to limbo
// starts the throttle clocks of each level in a throttled hierarchy.
void record_throttle_clock(CfsRq& cfs_rq) {
  Rq& rq = *cfs_rq.rq;
  if (cfs_rq_throttled(cfs_rq) && !cfs_rq.throttled_clock) cfs_rq.throttled_clock = rq.clock_task;
  if (!cfs_rq.throttled_clock_self) cfs_rq.throttled_clock_self = rq.clock_task;
}

bool task_is_throttled(const Rq& rq, const Task& p) { return rq.cfs_bandwidth_used() && p.throttled; }

bool on_limbo_list(const Task& p) {
  const std::vector<int>& list = p.se.cfs_rq->throttled_limbo_list;
  return std::find(list.begin(), list.end(), p.se.task_id) != list.end();
}

// task_throttle_setup_work() (v6.18): pick_task_fair() picked p below a
// throttled queue; the work runs when p returns to user space (an exiting
// task does not; the model has no kernel threads).
void task_throttle_setup_work(Task& p) {
  if (p.throttle_work) return;
  if (p.state == TaskState::dead) return;
  p.throttle_work = true;
}

// throttle_cfs_rq_work() (v6.18), run by p itself on its way to user space:
// p leaves its queue for the queue's limbo list if its hierarchy is still
// throttled (DEQUEUE_THROTTLE: never delayed), and the CPU reschedules.
// p->on_rq stays TASK_ON_RQ_QUEUED.
void throttle_cfs_rq_work(Rq& rq, Task& p) {
  p.throttle_work = false;
  if (p.state == TaskState::dead) return;   // PF_EXITING
  if (p.policy == Policy::fifo) return;     // no longer fair: raced, forget
  CfsRq& cfs_rq = *p.se.cfs_rq;
  if (!cfs_rq.throttle_count) return;       // unthrottled (or moved) since the pick
  if (p.throttled || on_limbo_list(p)) rq.warn(Warn::bandwidth_throttle_work_on_limbo, &p.se);
  dequeue_task_fair(rq, p, dequeue_flags::SLEEP | dequeue_flags::THROTTLE);
  cfs_rq.throttled_limbo_list.insert(cfs_rq.throttled_limbo_list.begin(), p.se.task_id);
  p.throttled = true;  // after the dequeue, which would take p for a throttled one
  rq.resched_curr();
}

// dequeue_throttled_task() (v6.18): a limbo task is dequeued again (a
// parameter change, a move, a migration): off the limbo list; one that
// blocks is no longer throttled, one that migrates leaves its queue's sums.
void dequeue_throttled_task(Rq& rq, Task& p, int flags) {
  if (p.se.on_rq) rq.warn(Warn::bandwidth_dequeue_throttled_queued, &p.se);
  std::erase(p.se.cfs_rq->throttled_limbo_list, p.se.task_id);
  if (flags & dequeue_flags::SLEEP) {
    p.throttled = false;
    return;
  }
  if (flags & dequeue_flags::MIGRATING) detach_entity_cfs_rq(p.se);
}

// enqueue_throttled_task() (v6.18): a throttled task enqueued into a throttled
// hierarchy goes straight to that queue's limbo list, unless it is the CPU's
// current task (task_current_donor()); true when it did.
bool enqueue_throttled_task(Rq& rq, Task& p) {
  CfsRq& cfs_rq = *p.se.cfs_rq;
  if (on_limbo_list(p)) rq.warn(Warn::bandwidth_limbo_enqueue_listed, &p.se);
  if (throttled_hierarchy(cfs_rq) && rq.curr != p.se.task_id) {
    cfs_rq.throttled_limbo_list.insert(cfs_rq.throttled_limbo_list.begin(), p.se.task_id);
    return true;
  }
  p.throttled = false;
  return false;
}

u64 Rq::cpu_max_burst(int group) const {
  const u64 burst = task_groups[static_cast<std::size_t>(group)].cfs_bandwidth.burst;
  return profile_.behaviour.cpu_max_burst_in_us ? burst / kNsecPerUsec : burst;
}

// tg_set_cfs_bandwidth() (core.c) with __cfs_schedulable() on cgroup v2,
// written from CPU 0: the checks, the static key, the refill, the period
// timer, then every CPU's queue gets runtime_enabled, no runtime, and an unthrottle.
Refusal Rq::set_group_bandwidth(int group, u64 quota, u64 period, u64 burst) {
  TaskGroup* tg = this->group(group);
  if (!tg || tg->destroyed) return Refusal::no_such_group;
  if (!profile_.behaviour.cfs_bandwidth) return Refusal::no_bandwidth_model;
  for (const Rq* r : possible_cpus_)
    if (r->oops) return Refusal::kernel_oopsed;
  if (quota < kMinCfsQuotaPeriod || period < kMinCfsQuotaPeriod) return Refusal::bad_argument;
  if (period > kMaxCfsQuotaPeriod) return Refusal::bad_argument;
  if (quota != kRuntimeInf && quota > kMaxCfsRuntime) return Refusal::bad_argument;
  if (quota != kRuntimeInf && (burst > quota || burst + quota > kMaxCfsRuntime)) return Refusal::bad_argument;

  // __cfs_schedulable(): every group's hierarchical_quota, root first
  // (walk_tg_tree(); a parent's id is below its children's)
  const u64 d_period = quota != kRuntimeInf ? period / kNsecPerUsec : period;
  const u64 d_quota = quota != kRuntimeInf ? quota / kNsecPerUsec : quota;
  for (std::size_t g = 0; g < task_groups.size(); ++g) {
    TaskGroup& t = task_groups[g];
    if (t.destroyed) continue;
    u64 p = t.cfs_bandwidth.period / kNsecPerUsec, q = kRuntimeInf;
    if (static_cast<int>(g) == group) {
      p = d_period;
      q = d_quota;
    } else if (t.cfs_bandwidth.quota != kRuntimeInf) {
      q = t.cfs_bandwidth.quota / kNsecPerUsec;
    }
    s64 hq = as_s64(q == kRuntimeInf ? kRuntimeInf : to_ratio(p, q));
    const s64 parent_quota = t.parent < 0 ? -1 : task_groups[static_cast<std::size_t>(t.parent)].cfs_bandwidth.hierarchical_quota;
    if (hq == -1) hq = parent_quota;
    else if (parent_quota != -1) hq = std::min(hq, parent_quota);
    t.cfs_bandwidth.hierarchical_quota = hq;
  }

  CfsBandwidth& cfs_b = tg->cfs_bandwidth;
  const bool runtime_enabled = quota != kRuntimeInf;
  const bool runtime_was_enabled = cfs_b.quota != kRuntimeInf;
  if (runtime_enabled && !runtime_was_enabled) ++*bandwidth_users;
  cfs_b.period = period;
  cfs_b.quota = quota;
  cfs_b.burst = burst;
  refill_cfs_bandwidth_runtime(cfs_b);
  if (runtime_enabled) start_cfs_bandwidth(cfs_b, 0, possible_cpus_[0]->clock_task);
  for (Rq* r : possible_cpus_) {
    CfsRq& cfs_rq = r->group_queue(group);
    cfs_rq.runtime_enabled = runtime_enabled;
    // v6.18: 1 ns, which unthrottle_cfs_rq() needs to go on
    cfs_rq.runtime_remaining = profile_.behaviour.task_based_throttle ? 1 : 0;
    if (cfs_rq.throttled) unthrottle_cfs_rq(cfs_rq);
  }
  if (runtime_was_enabled && !runtime_enabled) --*bandwidth_users;
  return Refusal::none;
}

}  // namespace eevdf
