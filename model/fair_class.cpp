// The fair class callbacks (fair.c, the mainline profile) with the task
// group hierarchy: every for_each_sched_entity() walk of the kernel.
#include <vector>

#include "model/fair.hpp"

namespace eevdf {

namespace {
bool normal_policy(const Task& p) { return p.policy == Policy::normal; }

// The second loop of enqueue_task_fair() and dequeue_entities(): on each level
// from se up, whose entity stays queued, update the entity's averages and
// runnable count, refresh the group weight, give the
// entity its queue's shortest request (with the min_slice augment) and update
// the hierarchical counters with `account`.
// Returns false when it stopped at a throttled queue (CPU bandwidth control
// before v6.18): the levels above do not count what is below it. v6.18's
// dequeue of a task going to limbo (DEQUEUE_THROTTLE) starts each level's
// throttle clocks in a throttled hierarchy (record_throttle_clock()).
template <class Account>
bool refresh_queued_levels(SchedEntity* se, u64 slice, Account& account, bool task_throttled = false) {
  for (; se; se = se->parent) {
    CfsRq& cfs_rq = *se->cfs_rq;
    const Behaviour& b = cfs_rq.rq->profile().behaviour;
    update_load_avg(cfs_rq, *se, pelt_flags::UPDATE_TG);
    se_update_runnable(*se);
    update_cfs_group(*se);
    if (b.group_slice_from_queue) {
      se->slice = slice;
      if (b.group_slice_updates_augment && se != cfs_rq.curr) min_vruntime_cb_propagate(cfs_rq, *se);
      slice = cfs_rq_min_slice(cfs_rq);
    }
    account(cfs_rq);
    if (task_throttled && throttled_hierarchy(cfs_rq)) record_throttle_clock(cfs_rq);
    if (walk_stops_at_throttled(cfs_rq)) return false;
  }
  return true;
}
}  // namespace

// enqueue_task_fair() (v7.1): enqueue upwards until a level is already
// queued (a delayed one is requeued), then refresh the queued levels above:
// group shares, group slices from cfs_rq_min_slice() with the min_slice
// augment, and the h_nr_* counters.
// v6.18: a throttled task may go straight to a limbo list (enqueue_throttled_task()),
// and no walk stops at a throttled queue.
void enqueue_task_fair(Rq& rq, Task& p, int flags) {
  if (rq.profile().behaviour.flat_runqueue) return enqueue_task_fair_flat(rq, p, flags);
  if (task_is_throttled(rq, p) && enqueue_throttled_task(rq, p)) return;
  SchedEntity* se = &p.se;
  if (flags & enqueue_flags::DELAYED) {
    requeue_delayed_entity(*se);
    return;
  }
  unsigned h_nr_idle = task_is_idle(p) ? 1 : 0;
  const bool task_new = !(flags & enqueue_flags::WAKEUP);
  const unsigned h_nr_runnable = (task_new && se->sched_delayed) ? 0 : 1;
  u64 slice = 0;
  auto account = [&](CfsRq& cfs_rq) {
    cfs_rq.h_nr_runnable += h_nr_runnable;
    cfs_rq.h_nr_queued++;
    cfs_rq.h_nr_idle += h_nr_idle;
    if (cfs_rq_is_idle(cfs_rq)) h_nr_idle = 1;
  };
  for (; se; se = se->parent) {
    if (se->on_rq) {
      if (se->sched_delayed) requeue_delayed_entity(*se);
      break;
    }
    CfsRq& cfs_rq = *se->cfs_rq;
    if (slice && rq.profile().behaviour.group_slice_from_queue) {  // a group entity serves its queue's shortest request
      se->slice = slice;
      se->custom_slice = true;
    }
    enqueue_entity(cfs_rq, *se, flags);
    slice = cfs_rq_min_slice(cfs_rq);
    account(cfs_rq);
    if (walk_stops_at_throttled(cfs_rq)) return;  // a throttled queue: the levels above see nothing
    flags = enqueue_flags::WAKEUP;
  }
  if (!refresh_queued_levels(se, slice, account)) return;
  rq.nr_running++;  // add_nr_running()
}

// dequeue_entities() (v7.1): 1 when dequeued, -1 when the task stays queued
// as delayed. Dequeues upwards while a level empties (a group entity may be
// delayed there), then refreshes the levels above like enqueue_task_fair().
int dequeue_entities(Rq& rq, SchedEntity& se_in, int flags) {
  if (rq.profile().behaviour.flat_runqueue) return dequeue_task_flat(rq, rq.task_of(se_in), flags) ? 1 : -1;
  const bool task_sleep = flags & dequeue_flags::SLEEP;
  const bool task_delayed = flags & dequeue_flags::DELAYED;
  const bool task_throttled = flags & dequeue_flags::THROTTLE;  // v6.18: a task going to limbo
  SchedEntity* se = &se_in;
  Task* p = nullptr;
  unsigned h_nr_idle = 0, h_nr_queued = 0, h_nr_runnable = 0;
  u64 slice = 0;
  bool throttled = false;
  const bool slice_fixed = rq.profile().behaviour.dequeue_slice_from_nonempty_queue;
  if (entity_is_task(*se)) {
    p = &rq.task_of(*se);
    h_nr_queued = 1;
    h_nr_idle = task_is_idle(*p) ? 1 : 0;
    if (task_sleep || task_delayed || !se->sched_delayed) h_nr_runnable = 1;
  } else if (!slice_fixed) {
    slice = cfs_rq_min_slice(*se->my_q);  // a delayed group entity's queue is empty: U64_MAX
  }
  auto account = [&](CfsRq& cfs_rq) {
    cfs_rq.h_nr_runnable -= h_nr_runnable;
    cfs_rq.h_nr_queued -= h_nr_queued;
    cfs_rq.h_nr_idle -= h_nr_idle;
    if (cfs_rq_is_idle(cfs_rq)) h_nr_idle = h_nr_queued;
  };
  while (se) {
    CfsRq& cfs_rq = *se->cfs_rq;
    if (!dequeue_entity(cfs_rq, *se, flags)) {
      if (p && &p->se == se) return -1;
      if (slice_fixed) slice = cfs_rq_min_slice(cfs_rq);
      break;  // the delayed group entity itself is refreshed below
    }
    account(cfs_rq);
    if (task_throttled && throttled_hierarchy(cfs_rq)) record_throttle_clock(cfs_rq);
    if (walk_stops_at_throttled(cfs_rq)) {  // the levels above never counted it
      se = nullptr;
      throttled = true;
      break;
    }
    if (cfs_rq.load.weight) {  // the parent has other entities: it stays queued
      slice = cfs_rq_min_slice(cfs_rq);
      se = se->parent;
      // (before v6.18 not in a throttled hierarchy)
      if (task_sleep && se && (task_based_throttle(cfs_rq) || !throttled_hierarchy(cfs_rq))) set_next_buddy(*se);
      break;
    }
    flags |= dequeue_flags::SLEEP;
    flags &= ~(dequeue_flags::DELAYED | dequeue_flags::SPECIAL);
    se = se->parent;
  }
  if (!throttled) throttled = !refresh_queued_levels(se, slice, account, task_throttled);
  if (!throttled) rq.nr_running -= h_nr_queued;  // sub_nr_running()
  // __block_task(); before 6.12.54 only past the throttled queues
  if (p && task_delayed && (!throttled || rq.profile().behaviour.throttled_dequeue_blocks_delayed)) p->on_rq = false;
  return throttled ? 0 : 1;
}

// v6.18: a limbo task is only taken off its limbo list (dequeue_throttled_task()).
bool dequeue_task_fair(Rq& rq, Task& p, int flags) {
  if (task_is_throttled(rq, p)) {
    dequeue_throttled_task(rq, p, flags);
    return true;
  }
  return dequeue_entities(rq, p.se, flags) >= 0;
}

// pick_task_fair() (v7.1): pick on every level from the root down; a NULL
// pick (a delayed entity was dequeued) restarts at the root. v6.18: a
// throttled level is picked from all the same, and the task picked below it
// gets the throttle work (task_throttle_setup_work()).
Task* pick_task_fair(Rq& rq) {
  if (rq.profile().behaviour.flat_runqueue) return pick_task_fair_flat(rq);
  const bool task_based = rq.profile().behaviour.task_based_throttle;
  while (true) {
    CfsRq* cfs_rq = &rq.cfs;
    if (!cfs_rq->nr_queued) return nullptr;
    SchedEntity* se = nullptr;
    bool throttled = false;
    do {
      if (cfs_rq->curr && cfs_rq->curr->on_rq) update_curr(*cfs_rq);
      if (task_based) {
        throttled |= check_cfs_rq_runtime(*cfs_rq);
      } else if (check_cfs_rq_runtime(*cfs_rq)) {  // throttled now: pick again from the root
        se = nullptr;
        break;
      }
      se = pick_next_entity(rq, *cfs_rq, true, PickCaller::schedule);
      if (rq.oops) return nullptr;
      if (!se) break;
      cfs_rq = se->my_q;
    } while (cfs_rq);
    if (!se) continue;
    Task& p = rq.task_of(*se);
    if (throttled) task_throttle_setup_work(p);
    return &p;
  }
}

// put_prev_task_fair() (v7.1): every level.
void put_prev_task_fair(Rq& rq, Task& prev) {
  if (rq.profile().behaviour.flat_runqueue) return put_prev_task_fair_flat(rq, prev, nullptr);
  for (SchedEntity* se = &prev.se; se; se = se->parent) put_prev_entity(*se->cfs_rq, *se);
}

// set_next_task_fair() (v7.1): every level.
void set_next_task_fair(Rq& rq, Task& p, bool first) {
  if (rq.profile().behaviour.flat_runqueue) return set_next_task_fair_flat(rq, p, first);
  if (p.se.sched_delayed) rq.warn(Warn::set_next_task_delayed, &p.se);
  for (SchedEntity* se = &p.se; se; se = se->parent) {
    set_next_entity(*se->cfs_rq, *se, first);
    account_cfs_rq_runtime(*se->cfs_rq, 0);  // bandwidth for the new queue
  }
}

// pick_next_task_fair() of v6.6 (6.6.0 fair.c; Behaviour::pick_next_v6_6):
// from a fair prev, the pick from the root, a level's runtime checked only
// where it has a current entity; a throttle on the way goes to the simple
// path. From no fair prev, the simple path: prev put back, then pick and
// set_next_entity() from the root down without a check. Puts prev back and
// sets the next task itself; nullptr: the idle task (prev put back).
Task* pick_next_task_fair_v6_6(Rq& rq, Task* prev) {
  if (!rq.cfs.nr_queued) {
    if (prev) put_prev_task_fair(rq, *prev);  // __pick_next_task(): the idle class picks
    return nullptr;
  }
  if (prev) {
    CfsRq* cfs_rq = &rq.cfs;
    SchedEntity* se = nullptr;
    bool throttled = false;
    do {
      if (SchedEntity* curr = cfs_rq->curr) {
        if (curr->on_rq) update_curr(*cfs_rq);
        if (check_cfs_rq_runtime(*cfs_rq)) {
          throttled = true;
          break;
        }
      }
      se = pick_next_entity(rq, *cfs_rq, true, PickCaller::schedule);
      if (!se) return nullptr;  // an empty pick: oops
      cfs_rq = se->my_q;
    } while (cfs_rq);
    if (!throttled) {
      Task& p = rq.task_of(*se);
      if (&p != prev) put_prev_set_next_fair(rq, *prev, p);
      return &p;
    }
    const bool idle = !rq.cfs.nr_queued;  // tested before prev is put back
    put_prev_task_fair(rq, *prev);
    if (idle) return nullptr;
  }
  // simple:
  CfsRq* cfs_rq = &rq.cfs;
  SchedEntity* se = nullptr;
  do {
    se = pick_next_entity(rq, *cfs_rq, true, PickCaller::schedule);
    if (!se) return nullptr;  // put_prev_task() throttled the last queued level: oops
    set_next_entity(*cfs_rq, *se, true);
    cfs_rq = se->my_q;
  } while (cfs_rq);
  return &rq.task_of(*se);
}

// set_preempt_buddy(): keep an earlier-deadline buddy, else make pse the buddy.
bool set_preempt_buddy(CfsRq& cfs_rq, SchedEntity& pse) {
  if (cfs_rq.next && vruntime_before(cfs_rq.next->deadline, pse.deadline)) return false;
  set_next_buddy(pse);
  return true;
}

// preempt_sync(): a sync wakee with an earlier deadline preempts once the
// waker ran at least the migration cost (a quarter of it if the rq was selected).
PreemptAction preempt_sync(Rq& rq, int wake_flags, SchedEntity& pse, SchedEntity& se) {
  if (!(wake_flags & wake_flags::TTWU)) rq.warn(Warn::preempt_sync_without_ttwu, &se);
  u64 threshold = rq.profile().tunables.migration_cost;
  u64 delta = rq.clock_task - se.exec_start;
  if (as_s64(delta) < 0) delta = 0;
  if (wake_flags & wake_flags::RQ_SELECTED) threshold >>= 2;
  if (vruntime_before(pse.deadline, se.deadline) && delta >= threshold) return PreemptAction::resched;
  return PreemptAction::none;
}

void wakeup_preempt_fair(Rq& rq, Task& p, int wake_flags) {
  if (rq.profile().behaviour.wakeup_check_preempt()) return check_preempt_wakeup_fair(rq, p, wake_flags);
  if (rq.profile().behaviour.wakeup_preempt == WakeupPreempt::v7_3) return wakeup_preempt_fair_v7_3(rq, p, wake_flags);
  Task& donor = rq.tasks[static_cast<std::size_t>(rq.curr)];
  const Profile& profile = rq.profile();
  PreemptAction action = PreemptAction::pick;
  WakeupPreemptReason reason = WakeupPreemptReason::pick;

  if (&donor.se == &p.se) return;
  if (task_is_throttled(rq, p)) return;  // v6.18 on: a limbo task (its enqueue went to the limbo list)
  if (rq.need_resched) return;
  if (!profile.feat(Feature::WAKEUP_PREEMPTION)) return;

  auto [se, pse] = matching_entities(donor, p);
  CfsRq& cfs_rq = *se.cfs_rq;

  const bool cse_is_idle = se_is_idle(rq, se);
  const bool pse_is_idle = se_is_idle(rq, pse);
  if (cse_is_idle && !pse_is_idle) {
    action = PreemptAction::short_;
    reason = WakeupPreemptReason::idle_curr;
  } else {
    if (cse_is_idle != pse_is_idle) return;
    if (!normal_policy(p)) return;
    // RFC variant (not in any kernel; Feature::RFC_SAME_PRIO_NO_WAKEUP_PREEMPT,
    // off by default): no wakeup preemption between two SCHED_NORMAL tasks of
    // the same weight; the wakee waits for the tick or a voluntary switch.
    if (profile.feat(Feature::RFC_SAME_PRIO_NO_WAKEUP_PREEMPT) && normal_policy(donor) &&
        pse.load.weight == se.load.weight)
      return;
    update_curr(cfs_rq);
    if (profile.feat(Feature::PREEMPT_SHORT) && pse.slice < se.slice) {
      action = PreemptAction::short_;
      reason = WakeupPreemptReason::short_pick;
    } else {
      if ((wake_flags & wake_flags::FORK) || pse.sched_delayed) return;
      // e837456fdca8 (reverted by 15257cc2f905): an ineligible waker yields at once
      if (profile.behaviour.forced_wakeup_preempt && !entity_eligible(cfs_rq, se)) {
        action = PreemptAction::resched;
        reason = WakeupPreemptReason::forced;
      }
      if (action == PreemptAction::pick && profile.feat(Feature::NEXT_BUDDY) && set_preempt_buddy(cfs_rq, pse)) {
        if (wake_flags & wake_flags::SYNC) {
          action = preempt_sync(rq, wake_flags, pse, se);
          reason = WakeupPreemptReason::sync;
        }
      }
      if (action == PreemptAction::none) return;
    }
    if (action != PreemptAction::resched) {
      // pick: would EEVDF run the wakee now?
      const WakeupPick rule = profile.behaviour.wakeup_pick;
      while (true) {
        const bool protect = action != PreemptAction::short_;
        SchedEntity* nse = rule == WakeupPick::pick_eevdf
                               ? pick_eevdf(cfs_rq, protect, PickCaller::wakeup_preempt_decision)
                               : pick_next_entity(rq, cfs_rq, protect, PickCaller::wakeup_preempt);
        if (rq.oops) return;
        if (nse == &pse) break;  // preempt
        if (rule == WakeupPick::pick_next_unguarded && !nse) continue;
        if (rule == WakeupPick::pick_next_guarded && !nse && cfs_rq.nr_queued) continue;
        if (profile.feat(Feature::RUN_TO_PARITY)) update_protect_slice(cfs_rq, se);
        return;
      }
    }
  }
  // preempt:
  if (action == PreemptAction::short_) {
    cancel_protect_slice(se);
    // 78cde54ea5f0. The kernel's decision holds task_cfs_rq(donor) until it
    // has passed the idle tests (cfs_rq_of(se) after them): the idle-curr
    // preemption asks curr's own queue, where a group's entity `se` is never
    // the buddy, so a buddy on `se` stays (read in 7.1.5's fair.c; found by
    // lockstep against it)
    CfsRq& held = reason == WakeupPreemptReason::idle_curr ? *donor.se.cfs_rq : cfs_rq;
    if (profile.behaviour.pick_buddy_needs_protect()) clear_buddies(held, se);
  }
  // observed after the buddy is cleared: with groups curr's entity can be the
  // buddy (dequeue_entities() sets it on the parent levels)
  rq.obs().on_wakeup_preempt(cfs_rq, pse, reason);
  rq.resched_curr();
}

void yield_task_fair(Rq& rq) {
  Task& curr = rq.tasks[static_cast<std::size_t>(rq.curr)];
  SchedEntity& se = curr.se;
  const bool flat = rq.profile().behaviour.flat_runqueue;  // v7.3-rc: rq->cfs, update_curr_eevdf (1719d035a6fa)
  CfsRq& cfs_rq = flat ? rq.cfs : *se.cfs_rq;
  if (rq.nr_running == 1) return;
  clear_buddies(cfs_rq, se);
  if (flat && rq.profile().behaviour.flat_pick_yield_update_curr_eevdf)
    update_curr_eevdf(cfs_rq);
  else
    update_curr(cfs_rq);  // v7.3-rc1..rc2 (before 1719d035a6fa): the root level only
  switch (rq.profile().behaviour.yield) {
    case YieldRule::deadline_only:  // v6.6-v6.18
      se.deadline += calc_delta_fair(se.slice, se, cfs_rq);
      return;
    case YieldRule::forfeit_unguarded:  // 78f8764d34c0
      se.vruntime = se.deadline;
      se.deadline += calc_delta_fair(se.slice, se, cfs_rq);
      return;
    case YieldRule::forfeit_add_slice:  // 79104becf42b
      if (entity_eligible(cfs_rq, se)) {
        se.vruntime = se.deadline;
        se.deadline += calc_delta_fair(se.slice, se, cfs_rq);
      }
      return;
    case YieldRule::forfeit_update_deadline:  // 1319ea57529e
      if (entity_eligible(cfs_rq, se)) {
        se.vruntime = se.deadline;  // forfeit the rest of the request
        update_deadline(cfs_rq, se);
      }
      return;
  }
}

// task_tick_fair() -> entity_tick(): update_curr() on the running entity, and
// between b3d99f43c72b and 1319ea57529e a re-basing avg_vruntime().
// entity_tick() (v7.1) on every level: update_curr(), then the group's share.
void task_tick_fair(Rq& rq, Task& curr) {
  if (rq.profile().behaviour.flat_runqueue) return task_tick_fair_flat(rq, curr);
  for (SchedEntity* se = &curr.se; se; se = se->parent) {
    CfsRq& cfs_rq = *se->cfs_rq;
    update_curr(cfs_rq);
    if (rq.profile().behaviour.key_base == KeyBase::zero_at_avg_tick) avg_vruntime(cfs_rq);
    update_load_avg(cfs_rq, *se, pelt_flags::UPDATE_TG);  // the running average, at least once a tick
    update_cfs_group(*se);
  }
}

void reweight_task_fair(Rq& rq, Task& p, const LoadWeight& lw) {
  if (rq.profile().behaviour.flat_runqueue) return reweight_task_fair_flat(rq, p, lw);
  reweight_entity(*p.se.cfs_rq, p.se, lw.weight);
  p.se.load.inv_weight = lw.inv_weight;
}

void prio_changed_fair(Rq& rq, Task& p, int old_prio) {
  if (!p.on_rq) return;
  if (120 + p.nice == old_prio) return;
  if (eevdf_nr_queued(rq.cfs) == 1) return;
  if (rq.curr >= 0 && &rq.tasks[static_cast<std::size_t>(rq.curr)] == &p) {
    if (120 + p.nice > old_prio) rq.resched_curr();
  } else {
    rq.wakeup_preempt(p, 0);  // core wakeup_preempt(): fair, idle or an RT curr
  }
}

void setparam_fair(Task& p, u64 sched_runtime, u64 sysctl_base_slice) {
  if (sched_runtime) {
    p.se.custom_slice = true;
    p.se.slice = sched_runtime < 100000 ? 100000 : (sched_runtime > 100000000 ? 100000000 : sched_runtime);
  } else {
    p.se.custom_slice = false;
    p.se.slice = sysctl_base_slice;
  }
}

}  // namespace eevdf
