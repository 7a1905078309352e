// Picking, set_next/put_prev and buddies (fair.c, the mainline profile:
// ac8e69e69363 pick_next_entity, 78cde54ea5f0 PICK_BUDDY gated by protect).
#include "model/fair.hpp"

namespace eevdf {

namespace {

SchedEntity* pick_eevdf_search(CfsRq& cfs_rq, bool protect) {
  SchedEntity* node = cfs_rq.tasks_timeline.root();
  SchedEntity* se = cfs_rq.tasks_timeline.leftmost();
  SchedEntity* curr = cfs_rq.curr;
  SchedEntity* best = nullptr;

  if (eevdf_nr_queued(cfs_rq) == 1) return curr && curr->on_rq ? curr : se;

  const Profile& profile = cfs_rq.rq->profile();
  const bool buddy_allowed = !profile.behaviour.pick_buddy_in_pick_next() &&
                             (protect || !profile.behaviour.pick_buddy_needs_protect());  // 78cde54ea5f0
  if (profile.feat(Feature::PICK_BUDDY) && buddy_allowed && cfs_rq.next && entity_eligible(cfs_rq, *cfs_rq.next)) {
    if (cfs_rq.next->sched_delayed) cfs_rq.rq->warn(Warn::pick_eevdf_next_buddy_delayed, cfs_rq.next);
    return cfs_rq.next;
  }
  if (curr && (!curr->on_rq || !entity_eligible(cfs_rq, *curr))) curr = nullptr;
  if (curr && protect && run_to_parity(profile, *curr)) return curr;

  if (se && entity_eligible(cfs_rq, *se)) {
    best = se;
  } else {
    // heap search: a left subtree holding an eligible entity has only earlier deadlines
    while (node) {
      SchedEntity* left = node->rb_left;
      if (left && vruntime_eligible(cfs_rq, left->min_vruntime)) {
        node = left;
        continue;
      }
      if (entity_eligible(cfs_rq, *node)) {
        best = node;
        break;
      }
      node = node->rb_right;
    }
  }
  if (!best || (curr && vruntime_before(curr->deadline, best->deadline))) best = curr;
  return best;
}

}  // namespace

Feature buddy_feature(const Profile& profile) {
  return profile.behaviour.buddy_gated_by_next_buddy() ? Feature::NEXT_BUDDY : Feature::PICK_BUDDY;
}

SchedEntity* pick_eevdf(CfsRq& cfs_rq, bool protect, PickCaller caller) {
  cfs_rq.rq->obs().on_read_avg(cfs_rq, "pick_eevdf");
  if (tree_by_vruntime(cfs_rq.rq->profile())) return pick_eevdf_v6_6(cfs_rq, caller);
  SchedEntity* best = pick_eevdf_search(cfs_rq, protect);
  cfs_rq.rq->obs().on_pick(cfs_rq, best, protect, caller);
  return best;
}

// pick_next_entity(): a delayed pick is dequeued for good and NULL returned
// (the caller retries). A NULL from pick_eevdf() is a kernel NULL dereference;
// the model reports it and marks the runqueue as oopsed.
SchedEntity* pick_next_entity(Rq& rq, CfsRq& cfs_rq, bool protect, PickCaller caller) {
  // v6.12-v6.18: the buddy is tested here, before pick_eevdf()
  if (rq.profile().behaviour.pick_buddy_in_pick_next() && rq.profile().feat(buddy_feature(rq.profile())) &&
      cfs_rq.next && entity_eligible(cfs_rq, *cfs_rq.next)) {
    if (cfs_rq.next->sched_delayed) rq.warn(Warn::pick_eevdf_next_buddy_delayed, cfs_rq.next);
    rq.obs().on_pick(cfs_rq, cfs_rq.next, protect, caller);
    return cfs_rq.next;
  }
  SchedEntity* se = pick_eevdf(cfs_rq, protect, caller);
  if (!se) {
    rq.warn(Warn::pick_next_entity_null, nullptr);
    rq.oops = true;
    return nullptr;
  }
  if (se->sched_delayed) {
    dequeue_entities(rq, *se, dequeue_flags::SLEEP | dequeue_flags::DELAYED);
    return nullptr;
  }
  return se;
}

void set_next_entity(CfsRq& cfs_rq, SchedEntity& se, bool first) {
  clear_buddies(cfs_rq, se);
  if (se.on_rq) {
    dequeue_entity_rb(cfs_rq, se);
    update_load_avg(cfs_rq, se, pelt_flags::UPDATE_TG);  // the wait counts as not running
    if (cfs_rq.rq->profile().behaviour.parity_in_vlag)
      se.set_vlag(as_s64(se.deadline));  // v6.6-v6.12: the RUN_TO_PARITY stash
    else if (first || !cfs_rq.rq->profile().behaviour.protect_only_first)
      set_protect_slice(cfs_rq, se);
  }
  se.exec_start = cfs_rq.rq->clock_task;
  cfs_rq.curr = &se;
  se.prev_sum_exec_runtime = se.sum_exec_runtime;
  cfs_rq.rq->obs().on_set_next(se, first);
}

void put_prev_entity(CfsRq& cfs_rq, SchedEntity& prev) {
  if (prev.on_rq) update_curr(cfs_rq);
  check_cfs_rq_runtime(cfs_rq);  // throttle a queue whose runtime is spent
  if (prev.on_rq) {
    enqueue_entity_rb(cfs_rq, prev);
    update_load_avg(cfs_rq, prev, 0);  // the run counts as running
  }
  cfs_rq.curr = nullptr;
}

// set_next_buddy() (v7.1): the buddy on every level up to an idle entity.
void set_next_buddy(SchedEntity& se) {
  Rq& rq = *se.cfs_rq->rq;
  if (rq.profile().behaviour.flat_runqueue) {  // v7.3-rc1: the buddy lives on rq->cfs only
    if (!se.on_rq) {
      rq.warn(Warn::set_next_buddy_not_on_rq, &se);
      return;
    }
    if (se_is_idle(rq, se)) return;
    rq.cfs.next = &se;
    return;
  }
  for (SchedEntity* s = &se; s; s = s->parent) {
    if (!s->on_rq) {
      rq.warn(Warn::set_next_buddy_not_on_rq, s);
      return;
    }
    if (se_is_idle(rq, *s)) return;
    s->cfs_rq->next = s;
  }
}

// clear_buddies() + __clear_buddies_next() (v7.1): clear upwards while each
// level's buddy is the entity on the path.
void clear_buddies(CfsRq& cfs_rq, SchedEntity& se) {
  if (cfs_rq.next != &se) return;
  if (flat_runqueue(cfs_rq)) {  // v7.3-rc1: only rq->cfs has a buddy
    cfs_rq.next = nullptr;
    return;
  }
  for (SchedEntity* s = &se; s; s = s->parent) {
    if (s->cfs_rq->next != s) break;
    s->cfs_rq->next = nullptr;
  }
}

}  // namespace eevdf
