// Placement, enqueue, dequeue and delayed dequeue (fair.c, newest mainline
// place_entity with the heavy-entity zero shift, bool
// update_entity_lag with the delayed clamps, requeue_delayed_entity).
#include "model/fair.hpp"

namespace eevdf {

// set_delayed() / clear_delayed() (v7.1): a delayed task leaves h_nr_runnable
// on every level above it; a delayed group entity has no task below it and
// changes no counter (3429dd57f0de). 6.12.8 - 6.12.14 (76f2f783294d, before
// that fix) count a delayed group entity too (DelayedCount::every_entity);
// v6.12.0 has no count (the model keeps mainline's, which PELT does not read).
namespace {
bool delayed_changes_count(const SchedEntity& se) {
  return entity_is_task(se) || se.cfs_rq->rq->profile().behaviour.delayed_count == DelayedCount::every_entity;
}
}  // namespace

void set_delayed(SchedEntity& se) {
  se.sched_delayed = true;
  if (!delayed_changes_count(se)) return;
  for (SchedEntity* s = &se; s; s = s->parent) {
    s->cfs_rq->h_nr_runnable--;
    if (walk_stops_at_throttled(*s->cfs_rq)) break;  // the levels above do not count a throttled queue's tasks
  }
}

void clear_delayed(SchedEntity& se) {
  se.sched_delayed = false;
  if (!delayed_changes_count(se)) return;
  for (SchedEntity* s = &se; s; s = s->parent) {
    s->cfs_rq->h_nr_runnable++;
    if (walk_stops_at_throttled(*s->cfs_rq)) break;
  }
}

// place_entity(): put se at V minus its saved lag, inflated by (W + w) / W so
// that the lag observed after the insertion equals the saved one.
bool place_entity(CfsRq& cfs_rq, SchedEntity& se, int flags) {
  Rq& rq = *cfs_rq.rq;
  const Profile& profile = rq.profile();
  Observer& obs = rq.obs();
  obs.on_read_avg(cfs_rq, "place_entity");
  const u64 vruntime = avg_vruntime(cfs_rq);
  if (!se.custom_slice) se.slice = profile.sysctl_sched_base_slice();
  u64 vslice = calc_delta_fair(se.slice, se, cfs_rq);
  s64 lag = 0;
  bool update_zero = false;

  // v7.3-rc1 flat runqueue: rq->cfs.h_nr_queued, less the task itself with ENQUEUE_QUEUED
  unsigned nr_queued = cfs_rq.nr_queued;
  if (flat_runqueue(cfs_rq)) nr_queued = cfs_rq.h_nr_queued - ((flags & enqueue_flags::QUEUED) ? 1 : 0);
  const bool lag_placed = profile.feat(Feature::PLACE_LAG) && nr_queued;  // against other entities
  if (lag_placed && se.vlag) {
    const SchedEntity* curr = cfs_rq.curr;
    lag = se.vlag;
    s64 load = as_s64(cfs_rq.sum_weight);
    if (curr && curr->on_rq) load = as_s64(as_u64(load) + avg_vruntime_weight(cfs_rq, eevdf_weight_checked(cfs_rq, *curr, obs)));
    const s64 weight = as_s64(avg_vruntime_weight(cfs_rq, eevdf_weight_checked(cfs_rq, se, obs)));
    lag = mul_s64(lag, as_s64(as_u64(load) + as_u64(weight)), Site::place_entity_lag_x_load, obs);
    if (load == 0) {
      rq.warn(Warn::place_entity_zero_load, &se);
      load = 1;
    }
    lag = profile.behaviour.avg_full_weight ? div64_long(lag, load) : div_s64(lag, load);
    if (weight > load && profile.behaviour.place_shifts_zero) update_zero = true;
  }

  se.vruntime = vruntime - as_u64(lag);
  if (update_zero) update_zero_vruntime(cfs_rq, as_s64(u64{0} - as_u64(lag)));

  const bool rel_allowed = !profile.behaviour.place_rel_deadline_gated || profile.feat(Feature::PLACE_REL_DEADLINE);
  if (rel_allowed && se.rel_deadline) {
    se.deadline += se.vruntime;
    se.rel_deadline = false;
    return lag_placed;
  }
  if (profile.feat(Feature::PLACE_DEADLINE_INITIAL) && (flags & enqueue_flags::INITIAL)) vslice /= 2;
  se.deadline = se.vruntime + vslice;
  return lag_placed;
}

void enqueue_entity(CfsRq& cfs_rq, SchedEntity& se, int flags) {
  const bool curr = cfs_rq.curr == &se;
  s64 saved_lag = se.vlag;
  bool lag_placed = false;
  if (curr) lag_placed = place_entity(cfs_rq, se, flags);
  update_curr(cfs_rq);
  update_load_avg(cfs_rq, se, pelt_flags::UPDATE_TG | pelt_flags::DO_ATTACH);
  se_update_runnable(se);
  update_cfs_group(se);  // a group entity takes its share before it is placed
  if (!curr) {
    saved_lag = se.vlag;  // update_cfs_group() may have rescaled it
    lag_placed = place_entity(cfs_rq, se, flags);
  }
  // account_entity_enqueue()
  cfs_rq.load.weight += se.load.weight;
  cfs_rq.load.inv_weight = 0;
  cfs_rq.nr_queued++;
  if (flags & enqueue_flags::MIGRATED) se.exec_start = 0;
  if (!curr) enqueue_entity_rb(cfs_rq, se);
  se.on_rq = true;
  if (lag_placed) cfs_rq.rq->obs().on_placed(cfs_rq, se, saved_lag);
  enqueue_entity_bandwidth(cfs_rq);
}

// dequeue_entity(): false if the entity stays queued as sched_delayed.
bool dequeue_entity(CfsRq& cfs_rq, SchedEntity& se, int flags) {
  Rq& rq = *cfs_rq.rq;
  const Profile& profile = rq.profile();
  const bool sleep = flags & dequeue_flags::SLEEP;
  update_curr(cfs_rq);
  const bool buddies_first = profile.behaviour.dequeue_clears_buddies_first;
  if (buddies_first) clear_buddies(cfs_rq, se);

  if (flags & dequeue_flags::DELAYED) {
    if (!se.sched_delayed) rq.warn(Warn::dequeue_delayed_not_delayed, &se);
  } else {
    const bool delay = sleep && !(flags & (dequeue_flags::SPECIAL | dequeue_flags::THROTTLE));
    if (delay && se.sched_delayed) rq.warn(Warn::dequeue_sleep_already_delayed, &se);
    if (profile.feat(Feature::DELAY_DEQUEUE) && delay && !entity_eligible(cfs_rq, se)) {
      if (!buddies_first && cfs_rq.next == &se) cfs_rq.next = nullptr;  // this level only (v6.12.0)
      if (profile.behaviour.lag_delayed_clamps) update_entity_lag(cfs_rq, se);  // lag snapshot (v7.1)
      update_load_avg(cfs_rq, se, 0);
      set_delayed(se);
      rq.obs().on_delayed(se);
      return false;
    }
  }

  // a task moved by the load balancer (migrate) leaves the queue's sums now
  // (task_on_rq_migrating(): the task only, not the group entities its
  // dequeue takes along); one woken elsewhere leaves them through
  // remove_entity_load_avg()
  const bool migrating = entity_is_task(se) && (flags & dequeue_flags::MIGRATING);
  update_load_avg(cfs_rq, se, pelt_flags::UPDATE_TG | (migrating ? pelt_flags::DO_DETACH : 0));
  se_update_runnable(se);
  if (!buddies_first) clear_buddies(cfs_rq, se);
  update_entity_lag(cfs_rq, se);
  if (profile.feat(Feature::PLACE_REL_DEADLINE) && !sleep) {
    se.deadline -= se.vruntime;
    se.rel_deadline = true;
    rq.obs().on_deadline_made_relative(se);
  }
  if (&se != cfs_rq.curr) dequeue_entity_rb(cfs_rq, se);
  se.on_rq = false;
  // account_entity_dequeue()
  cfs_rq.load.weight -= se.load.weight;
  cfs_rq.load.inv_weight = 0;
  cfs_rq.nr_queued--;
  return_cfs_rq_runtime(cfs_rq);  // the excess runtime of a queue that emptied
  update_cfs_group(se);
  if ((flags & (dequeue_flags::SAVE | dequeue_flags::MOVE)) != dequeue_flags::SAVE) update_min_vruntime(cfs_rq);
  if (flags & dequeue_flags::DELAYED) {  // finish_delayed_dequeue_entity()
    clear_delayed(se);
    if (!profile.behaviour.lag_delayed_clamps && profile.feat(Feature::DELAY_ZERO) && se.vlag > 0) se.set_vlag(0);
  }
  dequeue_entity_bandwidth(cfs_rq);  // v6.18: an emptied queue of a throttled hierarchy stops its PELT clock
  return true;
}

// requeue_delayed_entity(): a delayed entity is woken while still queued;
// re-place it if its lag was clamped (v7.1), or with DELAY_ZERO if it had
// positive lag, at zero lag (v6.12-v7.0).
void requeue_delayed_entity(SchedEntity& se) {
  CfsRq& cfs_rq = *se.cfs_rq;
  const Profile& profile = cfs_rq.rq->profile();
  if (!se.sched_delayed || !se.on_rq) cfs_rq.rq->warn(Warn::requeue_delayed_not_delayed, &se);
  // 333238da9a19 (v7.2; v7.3-rc: update_curr_eevdf() in enqueue_task_fair): charge
  // curr's runtime first, so that the lag below is taken against the current V
  if (profile.behaviour.requeue_updates_curr) update_curr(cfs_rq);
  bool replace = false;
  if (profile.behaviour.lag_delayed_clamps) {
    replace = update_entity_lag(cfs_rq, se);
  } else if (profile.feat(Feature::DELAY_ZERO)) {
    update_entity_lag(cfs_rq, se);
    replace = se.vlag > 0;
  }
  if (replace) {
    cfs_rq.nr_queued--;
    if (&se != cfs_rq.curr) dequeue_entity_rb(cfs_rq, se);
    if (!profile.behaviour.lag_delayed_clamps) se.set_vlag(0);
    place_entity(cfs_rq, se, 0);
    if (&se != cfs_rq.curr) enqueue_entity_rb(cfs_rq, se);
    cfs_rq.nr_queued++;
  }
  update_load_avg(cfs_rq, se, 0);
  clear_delayed(se);
}

}  // namespace eevdf
