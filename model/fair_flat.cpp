// The v7.3-rc single runqueue ("flat" cgroup pick): 85570f10a4c6 "sched/eevdf:
// Move to a single runqueue", 68e37487810a "Fix flat hierarchy" and the
// September urgent fix 1719d035a6fa (update_curr_eevdf() in pick_task_fair()
// and yield_task_fair()). Every fair task is queued on rq->cfs at se->h_load,
// the product of its group fractions; group cfs_rqs keep only load and
// counters, group entities carry shares but are never in an EEVDF tree.
// Selected by Behaviour::flat_runqueue (profile v7.3); docs/model.md lists the
// stand-ins.
#include "model/fair.hpp"

namespace eevdf {

namespace {

// Is `se` an entity on the path of task `p` (p's own entity or an ancestor)?
bool on_path(const Task& p, const SchedEntity* se) {
  for (const SchedEntity* s = &p.se; s; s = s->parent)
    if (s == se) return true;
  return false;
}
}  // namespace

LoadWeight& eevdf_load_checked(const CfsRq& cfs_rq, SchedEntity& se) {
  LoadWeight& lw = eevdf_load(cfs_rq, se);
  if (flat_runqueue(cfs_rq) && entity_is_task(se) && lw.weight < kMinShares) [[unlikely]]
    cfs_rq.rq->warn(Warn::h_load_below_min_shares, &se);
  return lw;
}

u64 eevdf_weight_checked(const CfsRq& cfs_rq, const SchedEntity& se, Observer& obs) {
  const u64 w = eevdf_weight(cfs_rq, se);
  // to OBS: a silent re-computation (the checker's snapshot) passes its own
  if (flat_runqueue(cfs_rq) && entity_is_task(se) && w < kMinShares) [[unlikely]]
    obs.on_warn(Warn::h_load_below_min_shares, &se);
  return w;
}

// __calc_prop_weight() (v7.3-rc1): one level of the effective weight,
// w · se->load.weight / (the load of se's queue, or NICE_0_LOAD at the top),
// floored at MIN_SHARES. A zero divisor is the kernel's #DE: reported, and the
// runqueue is marked as oopsed.
u64 calc_prop_weight(CfsRq& cfs_rq, const SchedEntity& se, u64 w) {
  Rq& rq = *cfs_rq.rq;
  w = mul_u64(w, se.load.weight, Site::calc_prop_weight_x_weight, rq.obs());
  const u64 divisor = se.parent ? cfs_rq.load.weight : kNice0Load;
  if (divisor == 0) {
    rq.warn(Warn::calc_prop_weight_zero_divisor, &se);
    rq.oops = true;
    return kMinShares;
  }
  w /= divisor;
  return w < kMinShares ? kMinShares : w;
}

namespace {

// tg_tasks() (v7.3-rc1): max(1, tg->runnable_avg >> SCHED_CAPACITY_SHIFT),
// truncated to int: about the group's runnable tasks, averaged (PELT).
s64 tg_tasks(const TaskGroup& tg) {
  const u64 runnable_avg = as_u64(tg.runnable_avg);
  const auto nr = static_cast<s32>(static_cast<u32>(runnable_avg >> 10));
  return nr > 1 ? nr : 1;
}

// tg_cpus() (v7.3-rc1, with the max(nr, 1) floor): the profile's online CPUs.
s64 tg_cpus(const Rq& rq) {
  const s64 nr = rq.profile().tunables.ncpus;
  return nr > 1 ? nr : 1;
}

// __calc_smp_shares() (v7.3-rc1): ts · load / tg_weight clamped to
// [MIN_SHARES, smax], the upper bound tested first; load is the queue's weight
// or its load average, whichever is larger, and tg_weight is tg->load_avg with
// this queue's last contribution replaced by load (as calc_group_shares()).
s64 calc_smp_shares(const Rq& rq, const TaskGroup& tg, const CfsRq& gcfs_rq, s64 ts, s64 smax) {
  const u64 load_weight = scale_load_down(gcfs_rq.load.weight);
  const s64 load = as_s64(load_weight > gcfs_rq.avg.load_avg ? load_weight : gcfs_rq.avg.load_avg);
  // long arithmetic on the atomic sum and the unsigned contribution
  const s64 tg_weight = as_s64(as_u64(tg.load_avg) - gcfs_rq.tg_load_avg_contrib + as_u64(load));
  s64 shares = mul_s64(ts, load, Site::calc_smp_shares_ts_x_load, rq.obs());
  if (tg_weight) {
    // C division; INT64_MIN / -1 cannot happen: tg->load_avg holds this queue's
    // contribution, so tg_weight is the others' sum plus load, >= 0
    shares /= tg_weight;
  }
  const s64 min_shares = static_cast<s64>(kMinShares);
  return shares >= smax ? smax : (shares <= min_shares ? min_shares : shares);
}

}  // namespace

// calc_group_shares() of the flat runqueue (v7.3-rc1, 4161cb2d867b..fb1050ac8e40):
// the static call selected by sched/cgroup_mode.
u64 calc_group_shares_flat(const Rq& rq, const CfsRq& gcfs_rq) {
  const TaskGroup& tg = rq.task_groups[static_cast<std::size_t>(gcfs_rq.group_id)];
  const s64 shares = as_s64(tg.shares);  // READ_ONCE(tg->shares)
  s64 nr = 1;
  switch (rq.profile().tunables.cgroup_mode) {
    case CgroupMode::up: return tg.shares;
    case CgroupMode::smp: return as_u64(calc_smp_shares(rq, tg, gcfs_rq, shares, shares));
    case CgroupMode::max:
      nr = tg_cpus(rq);
      return as_u64(calc_smp_shares(rq, tg, gcfs_rq, shares * nr, as_s64(scale_load(88761))));
    case CgroupMode::concur: {
      const s64 tasks = tg_tasks(tg);
      const s64 cpus = tg_cpus(rq);
      nr = tasks < cpus ? tasks : cpus;
      break;
    }
    case CgroupMode::tasks: nr = tg_tasks(tg); break;
  }
  // nr ≤ 2^31 and shares ≤ 2^28: the product fits in s64
  return as_u64(calc_smp_shares(rq, tg, gcfs_rq, nr * shares, nr * shares));
}

// reweight_entity() of the flat runqueue (v7.3-rc1): a group entity's (or a
// task's per-level) weight; only se->load, cfs_rq->load and the load averages
// change.
void reweight_entity_flat(CfsRq& cfs_rq, SchedEntity& se, u64 weight) {
  if (se.load.weight == weight) return;
  if (se.on_rq) cfs_rq.load.weight -= se.load.weight;
  dequeue_load_avg(cfs_rq, se);
  se.load.weight = weight;  // update_load_set()
  se.load.inv_weight = 0;
  reweight_load_avg(se);
  enqueue_load_avg(cfs_rq, se);
  if (se.on_rq) {
    cfs_rq.load.weight += weight;
    cfs_rq.load.inv_weight = 0;
  }
}

// reweight_eevdf() (v7.3-rc1): a task's EEVDF weight h_load on rq->cfs. With
// on_rq (the parameter) the task is taken out around V like v7.1's
// reweight_entity(); without, only the saved lag and a relative deadline are
// rescaled (enqueue, before placement). No update_curr(): callers do it.
void reweight_eevdf_flat(CfsRq& cfs_rq, SchedEntity& se, u64 weight, bool on_rq) {
  if (se.h_load.weight == weight) return;
  Observer& obs = cfs_rq.rq->obs();
  const Profile& profile = cfs_rq.rq->profile();
  const bool curr = cfs_rq.curr == &se;
  bool rel_vprot = false;
  u64 avruntime = 0;
  if (on_rq) {
    obs.on_reweight_begin(cfs_rq, se, weight);
    avruntime = avg_vruntime(cfs_rq);
    se.vlag = entity_lag(cfs_rq, se, avruntime);  // clamped with the old h_load
    se.deadline -= avruntime;
    se.rel_deadline = true;
    if (curr && protect_slice(se)) {
      se.vprot -= avruntime;
      rel_vprot = true;
    }
    cfs_rq.h_nr_queued--;
    if (!curr) dequeue_entity_rb(cfs_rq, se);
  }
  u64 vprot = se.vprot;
  rescale_entity(profile, se, weight, rel_vprot ? &vprot : nullptr, obs);  // by the old h_load
  if (rel_vprot) se.vprot = vprot;
  se.h_load.weight = weight;  // update_load_set(&se->h_load, weight)
  se.h_load.inv_weight = 0;
  if (on_rq) {
    if (rel_vprot) se.vprot += avruntime;
    se.deadline += avruntime;
    se.rel_deadline = false;
    se.vruntime = avruntime - as_u64(se.vlag);
    if (!curr) enqueue_entity_rb(cfs_rq, se);
    cfs_rq.h_nr_queued++;
    obs.on_reweight_end(cfs_rq, se);
  }
}

// update_curr() (v7.3-rc1): charge this level's h_curr; only a task's vruntime
// advances, always against rq->cfs.
void update_curr_flat(CfsRq& cfs_rq) {
  SchedEntity* curr = cfs_rq.h_curr;
  if (!curr) return;
  Rq& rq = *cfs_rq.rq;
  const s64 delta = update_se(rq, *curr);
  if (delta <= 0) return;
  if (!entity_is_task(*curr)) return;  // account_cfs_rq_runtime() only
  CfsRq& root = rq.cfs;
  curr->vruntime += calc_delta_fair(as_u64(delta), *curr, root);
  const bool resched = update_deadline(root, *curr);
  if (root.h_nr_queued == 1) return;
  if (resched || !protect_slice(*curr)) {
    rq.resched_curr();
    clear_buddies(root, *curr);
  }
}

// update_curr_eevdf() (68e37487810a): update_curr() on the running task's leaf.
void update_curr_eevdf(CfsRq& cfs_rq) {
  if (cfs_rq.curr) update_curr_flat(*cfs_rq.curr->cfs_rq);
}

// update_curr_fair() (v7.3-rc1): every level of the running task.
void update_curr_fair(Rq& rq) {
  if (rq.curr < 0) return;
  for (SchedEntity* se = &rq.tasks[static_cast<std::size_t>(rq.curr)].se; se; se = se->parent)
    update_curr_flat(*se->cfs_rq);
}

namespace {

// requeue_delayed_entity() (v7.3-rc1) on rq->cfs: re-place a delayed task whose
// lag was clamped; h_nr_queued stands in for nr_queued. update_curr_eevdf()
// ran at the top of enqueue_task_fair().
void requeue_delayed_entity_flat(CfsRq& root, SchedEntity& se) {
  if (!se.sched_delayed || !se.on_rq) root.rq->warn(Warn::requeue_delayed_not_delayed, &se);
  if (update_entity_lag(root, se)) {
    root.h_nr_queued--;
    if (&se != root.curr) dequeue_entity_rb(root, se);
    place_entity(root, se, 0);
    if (&se != root.curr) enqueue_entity_rb(root, se);
    root.h_nr_queued++;
  }
  // rq->cfs, not the task's own queue, also for a task in a group (as the
  // v3 patch and v7.3-rc have it): the task's averages age with running
  // false there, and rq->cfs's own are brought up to date
  update_load_avg(root, se, 0);
  clear_delayed(se);
}

// enqueue_hierarchy() (v7.3-rc1): bottom-up, account the task on every level
// (a level already queued only refreshes its group's share) and multiply the
// fractions into the task's effective weight.
u64 enqueue_hierarchy(Task& p, int flags) {
  SchedEntity* se = &p.se;
  const bool task_new = !(flags & enqueue_flags::WAKEUP);
  const unsigned h_nr_runnable = (task_new && se->sched_delayed) ? 0 : 1;
  unsigned h_nr_idle = task_is_idle(p) ? 1 : 0;
  u64 w = kNice0Load;
  for (; se; se = se->parent) {
    CfsRq& cfs_rq = *se->cfs_rq;
    update_curr_flat(cfs_rq);
    if (!se->on_rq) {  // enqueue_entity(): PELT, shares, account_entity_enqueue()
      update_load_avg(cfs_rq, *se, pelt_flags::UPDATE_TG | pelt_flags::DO_ATTACH);
      se_update_runnable(*se);
      update_cfs_group(*se);
      cfs_rq.load.weight += se->load.weight;
      cfs_rq.load.inv_weight = 0;
      cfs_rq.nr_queued++;
      if (flags & enqueue_flags::MIGRATED) se->exec_start = 0;
      se->on_rq = true;
    } else {
      update_load_avg(cfs_rq, *se, pelt_flags::UPDATE_TG);
      se_update_runnable(*se);
      update_cfs_group(*se);
    }
    cfs_rq.h_nr_runnable += h_nr_runnable;
    cfs_rq.h_nr_queued++;
    cfs_rq.h_nr_idle += h_nr_idle;
    if (cfs_rq_is_idle(cfs_rq)) h_nr_idle = 1;
    w = calc_prop_weight(cfs_rq, *se, w);
    flags = enqueue_flags::WAKEUP;
  }
  return w;
}

// dequeue_hierarchy() (v7.3-rc1): bottom-up, take the entity off each level
// while the level empties, then only refresh shares; every level loses the task
// from its counters.
void dequeue_hierarchy(Task& p, int flags) {
  SchedEntity* se = &p.se;
  const unsigned h_nr_runnable =
      ((flags & (dequeue_flags::SLEEP | dequeue_flags::DELAYED)) || !se->sched_delayed) ? 1 : 0;
  unsigned h_nr_idle = task_is_idle(p) ? 1 : 0;
  bool dequeue = true;
  for (; se; se = se->parent) {
    CfsRq& cfs_rq = *se->cfs_rq;
    update_curr_flat(cfs_rq);
    if (dequeue) {  // dequeue_entity(): PELT, account_entity_dequeue(), shares
      // a task moved by the load balancer leaves the sums now (task_on_rq_migrating())
      const bool migrating = entity_is_task(*se) && (flags & dequeue_flags::MIGRATING);
      update_load_avg(cfs_rq, *se, pelt_flags::UPDATE_TG | (migrating ? pelt_flags::DO_DETACH : 0));
      se_update_runnable(*se);
      se->on_rq = false;
      cfs_rq.load.weight -= se->load.weight;
      cfs_rq.load.inv_weight = 0;
      cfs_rq.nr_queued--;
      update_cfs_group(*se);
      if (cfs_rq.load.weight) dequeue = false;  // the parent stays queued
    } else {
      update_load_avg(cfs_rq, *se, pelt_flags::UPDATE_TG);
      se_update_runnable(*se);
      update_cfs_group(*se);
    }
    cfs_rq.h_nr_runnable -= h_nr_runnable;
    cfs_rq.h_nr_queued--;
    cfs_rq.h_nr_idle -= h_nr_idle;
    if (cfs_rq_is_idle(cfs_rq)) h_nr_idle = 1;
    flags |= dequeue_flags::SLEEP;
    flags &= ~(dequeue_flags::DELAYED | dequeue_flags::SPECIAL);
  }
}

}  // namespace

// enqueue_task_fair() (v7.3-rc1 with 68e37487810a): charge the running task,
// requeue a delayed task, walk the hierarchy, then reweight (off the queue),
// place and insert on rq->cfs.
void enqueue_task_fair_flat(Rq& rq, Task& p, int flags) {
  SchedEntity& se = p.se;
  CfsRq& root = rq.cfs;
  update_curr_eevdf(root);
  if (flags & enqueue_flags::DELAYED) {
    requeue_delayed_entity_flat(root, se);
    return;
  }
  const bool curr = root.curr == &se;
  if (curr) place_entity(root, se, flags);
  if (se.on_rq && se.sched_delayed) requeue_delayed_entity_flat(root, se);
  const u64 w = enqueue_hierarchy(p, flags);
  if (rq.oops) return;
  if (!curr) {
    reweight_eevdf_flat(root, se, w, false);
    const s64 saved_lag = se.vlag;
    const bool lag_placed = place_entity(root, se, flags | enqueue_flags::QUEUED);
    enqueue_entity_rb(root, se);
    if (lag_placed && se.on_rq) rq.obs().on_placed(root, se, saved_lag);
  }
  rq.nr_running++;  // add_nr_running()
}

// __dequeue_task() (v7.3-rc1 with 68e37487810a): false when the task stays
// queued as delayed.
bool dequeue_task_flat(Rq& rq, Task& p, int flags) {
  SchedEntity& se = p.se;
  CfsRq& root = rq.cfs;
  const Profile& profile = rq.profile();
  clear_buddies(root, se);
  update_curr_eevdf(root);
  update_entity_lag(root, se);  // always, while se still counts in V
  if (flags & dequeue_flags::DELAYED) {
    if (!se.sched_delayed) rq.warn(Warn::dequeue_delayed_not_delayed, &se);
  } else {
    const bool delay = (flags & dequeue_flags::SLEEP) && !(flags & (dequeue_flags::SPECIAL | dequeue_flags::THROTTLE));
    if (delay && se.sched_delayed) rq.warn(Warn::dequeue_sleep_already_delayed, &se);
    if (profile.feat(Feature::DELAY_DEQUEUE) && delay && !entity_eligible(root, se)) {
      update_load_avg(*se.cfs_rq, se, 0);  // UPDATE_UTIL_EST only: util_est is not modelled
      set_delayed(se);
      rq.obs().on_delayed(se);
      return false;
    }
  }
  dequeue_hierarchy(p, flags);
  if (profile.feat(Feature::PLACE_REL_DEADLINE) && !(flags & dequeue_flags::SLEEP)) {
    se.deadline -= se.vruntime;
    se.rel_deadline = true;
    rq.obs().on_deadline_made_relative(se);
  }
  if (&se != root.curr) dequeue_entity_rb(root, se);
  rq.nr_running--;  // sub_nr_running()
  if (flags & dequeue_flags::DELAYED) {
    clear_delayed(se);
    p.on_rq = false;  // __block_task()
  }
  return true;
}

// pick_task_fair() (v7.3-rc with 1719d035a6fa): one pick on rq->cfs; a NULL
// pick (a delayed task was dequeued) retries.
Task* pick_task_fair_flat(Rq& rq) {
  CfsRq& root = rq.cfs;
  while (true) {
    if (!root.h_nr_queued) return nullptr;
    if (root.curr && root.curr->on_rq) {
      if (rq.profile().behaviour.flat_pick_yield_update_curr_eevdf)
        update_curr_eevdf(root);
      else
        update_curr_flat(root);  // before 1719d035a6fa: update_curr(cfs_rq)
    }
    SchedEntity* se = pick_next_entity(rq, root, true, PickCaller::schedule);
    if (rq.oops) return nullptr;
    if (se) return &rq.task_of(*se);
  }
}

// put_prev_task_fair() (v7.3-rc1): put_prev_entity() on every level below the
// ones shared with a fair next (they keep h_curr), then curr leaves rq->cfs.
void put_prev_task_fair_flat(Rq& rq, Task& prev, const Task* next) {
  for (SchedEntity* se = &prev.se; se; se = se->parent) {
    if (next && on_path(*next, se)) break;
    CfsRq& cfs_rq = *se->cfs_rq;
    if (se->on_rq) {  // put_prev_entity(): the run counts as running
      update_curr_flat(cfs_rq);
      update_load_avg(cfs_rq, *se, 0);
    }
    cfs_rq.h_curr = nullptr;
  }
  CfsRq& root = rq.cfs;
  root.curr = nullptr;
  if (prev.se.on_rq) enqueue_entity_rb(root, prev.se);
}

// set_next_task_fair() (v7.3-rc1): take the task out of the tree, make every
// level's entity h_curr (on a real pick, the levels already running stay),
// recompute the effective weight, then curr on rq->cfs, reweight and protect.
void set_next_task_fair_flat(Rq& rq, Task& p, bool first) {
  SchedEntity& se = p.se;
  CfsRq& root = rq.cfs;
  if (se.sched_delayed) rq.warn(Warn::set_next_task_delayed, &se);
  clear_buddies(root, se);
  if (se.on_rq) dequeue_entity_rb(root, se);
  u64 w = kNice0Load;
  for (SchedEntity* s = &se; s; s = s->parent) {
    CfsRq& cfs_rq = *s->cfs_rq;
    if (!(first && cfs_rq.h_curr)) {  // set_next_entity()
      if (s->on_rq) update_load_avg(cfs_rq, *s, pelt_flags::UPDATE_TG);  // the wait counts as not running
      s->exec_start = rq.clock_task;
      cfs_rq.h_curr = s;
      s->prev_sum_exec_runtime = s->sum_exec_runtime;
    }
    if (se.on_rq) w = calc_prop_weight(cfs_rq, *s, w);
  }
  root.curr = &se;
  if (se.on_rq && !rq.oops) {
    reweight_eevdf_flat(root, se, w, true);
    if (first) set_protect_slice(root, se);
  }
  rq.obs().on_set_next(se, first);
}

// task_tick_fair() (v7.3-rc1): entity_tick() on every level (update_curr, the
// averages and the group's share) with the effective weight, then reweight_eevdf().
void task_tick_fair_flat(Rq& rq, Task& curr) {
  SchedEntity& se = curr.se;
  if (!se.on_rq) return;
  u64 w = kNice0Load;
  for (SchedEntity* s = &se; s; s = s->parent) {
    CfsRq& cfs_rq = *s->cfs_rq;
    update_curr_flat(cfs_rq);  // entity_tick()
    update_load_avg(cfs_rq, *s, pelt_flags::UPDATE_TG);
    update_cfs_group(*s);
    w = calc_prop_weight(cfs_rq, *s, w);
  }
  if (!rq.oops) reweight_eevdf_flat(rq.cfs, se, w, se.on_rq);
}

// reweight_task_fair() (v7.3-rc1): the task's own weight on its queue, then,
// if queued, the effective weight on rq->cfs (running or not).
void reweight_task_fair_flat(Rq& rq, Task& p, const LoadWeight& lw) {
  SchedEntity& se = p.se;
  const bool on_rq = se.on_rq;
  if (on_rq) update_curr_fair(rq);
  reweight_entity_flat(*se.cfs_rq, se, lw.weight);
  se.load.inv_weight = lw.inv_weight;
  if (!on_rq) return;
  u64 w = kNice0Load;
  for (SchedEntity* s = &se; s; s = s->parent) w = calc_prop_weight(*s->cfs_rq, *s, w);
  if (!rq.oops) reweight_eevdf_flat(rq.cfs, se, w, true);
}

}  // namespace eevdf
