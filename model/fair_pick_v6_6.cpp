// The v6.6 run queue tree: ordered by vruntime, augmented with the subtree's
// earliest deadline, and its pick_eevdf() (two-pass b01db23d5923, or with
// bug switch B10 the one-pass 147f3efaa241 search). Replaced by the
// deadline-ordered tree of 2227a957e1d5 (v6.8).
#include "model/fair.hpp"

namespace eevdf {

namespace {

// RB_DECLARE_CALLBACKS(min_deadline_cb, ..., min_deadline, min_deadline_update) (v6.6)
struct MinDeadlineCallbacks {
  static bool compute(SchedEntity* se) { return min_deadline_update(se); }
  static void copy(SchedEntity* from, SchedEntity* to) { to->min_deadline = from->min_deadline; }
  static void rotate(SchedEntity* old, SchedEntity* new_) {
    copy(old, new_);
    compute(old);
  }
};

// deadline_gt(min_deadline / deadline, l, r) (v6.6): l's field is later than r's
bool deadline_gt(u64 l, u64 r) { return vruntime_diff(l, r) > 0; }

// entity_before() of v6.6: by vruntime
bool entity_less_v6_6(const SchedEntity* a, const SchedEntity* b) { return vruntime_before(a->vruntime, b->vruntime); }

// __pick_eevdf() of v6.6.0 (b01db23d5923): one descent collecting the best
// eligible node and the best eligible left subtree, then a second descent into
// that subtree if its min_deadline beats the best node.
SchedEntity* pick_eevdf_two_pass(CfsRq& cfs_rq, SchedEntity* curr) {
  SchedEntity* node = cfs_rq.tasks_timeline.root();
  SchedEntity* best = curr;
  SchedEntity* best_left = nullptr;
  while (node) {
    SchedEntity* se = node;
    if (!entity_eligible(cfs_rq, *se)) {
      node = node->rb_left;
      continue;
    }
    if (!best || deadline_gt(best->deadline, se->deadline)) best = se;
    if (SchedEntity* left = node->rb_left) {
      if (!best_left || deadline_gt(best_left->min_deadline, left->min_deadline)) best_left = left;
      if (left->min_deadline == se->min_deadline) break;
    }
    if (se->deadline == se->min_deadline) break;
    node = node->rb_right;
  }
  if (!best_left || deadline_gt(best_left->min_deadline, best->deadline)) return best;
  for (node = best_left; node;) {  // find the node that holds best_left's min_deadline
    if (node->deadline == node->min_deadline) return node;
    if (node->rb_left && node->rb_left->min_deadline == node->min_deadline) {
      node = node->rb_left;
      continue;
    }
    node = node->rb_right;
  }
  return nullptr;
}

// pick_eevdf() of v6.6-rc1..rc4 (147f3efaa241 + 63304558ba5d), bug B10: one
// descent that follows min_deadline and never returns to skipped eligible left subtrees.
SchedEntity* pick_eevdf_one_pass(CfsRq& cfs_rq, SchedEntity* curr) {
  SchedEntity* node = cfs_rq.tasks_timeline.root();
  SchedEntity* best = nullptr;
  while (node) {
    SchedEntity* se = node;
    if (!entity_eligible(cfs_rq, *se)) {
      node = node->rb_left;
      continue;
    }
    if (!best || deadline_gt(best->deadline, se->deadline)) {
      best = se;
      if (best->deadline == best->min_deadline) break;
    }
    if (node->rb_left && node->rb_left->min_deadline == se->min_deadline) {
      node = node->rb_left;
      continue;
    }
    node = node->rb_right;
  }
  if (!best || (curr && deadline_gt(best->deadline, curr->deadline))) best = curr;
  return best;
}

}  // namespace

bool tree_by_vruntime(const Profile& profile) {
  return profile.behaviour.pick == PickRule::v6_6 || profile.behaviour.pick == PickRule::v6_6_rc1;
}

// min_deadline_update() (v6.6): the subtree's earliest deadline, right child
// first; true iff unchanged.
bool min_deadline_update(SchedEntity* se) {
  const u64 old = se->min_deadline;
  se->min_deadline = se->deadline;
  for (const SchedEntity* child : {se->rb_right, se->rb_left})
    if (child && deadline_gt(se->min_deadline, child->min_deadline)) se->min_deadline = child->min_deadline;
  return se->min_deadline == old;
}

void min_deadline_cb_propagate(SchedEntity& se) {
  MinDeadlineCallbacks cb;
  RbTree<SchedEntity>::propagate(&se, nullptr, cb);
}

// __enqueue_entity() of v6.6
void enqueue_entity_rb_v6_6(CfsRq& cfs_rq, SchedEntity& se) {
  MinDeadlineCallbacks cb;
  sum_w_vruntime_add(cfs_rq, se);  // avg_vruntime_add()
  se.min_deadline = se.deadline;
  cfs_rq.tasks_timeline.add(&se, entity_less_v6_6, cb);
}

// __dequeue_entity() of v6.6
void dequeue_entity_rb_v6_6(CfsRq& cfs_rq, SchedEntity& se) {
  MinDeadlineCallbacks cb;
  cfs_rq.tasks_timeline.erase(&se, cb);
  sum_w_vruntime_sub(cfs_rq, se);  // avg_vruntime_sub()
}

// pick_eevdf() of v6.6: an eligible, parity-protected curr first; a NULL
// search result is reported (I-NULLPICK) and replaced by the leftmost entity
// ("EEVDF scheduling fail, picking leftmost").
SchedEntity* pick_eevdf_v6_6(CfsRq& cfs_rq, PickCaller caller) {
  SchedEntity* curr = cfs_rq.curr;
  if (curr && (!curr->on_rq || !entity_eligible(cfs_rq, *curr))) curr = nullptr;
  const Profile& profile = cfs_rq.rq->profile();
  SchedEntity* best = nullptr;
  if (curr && run_to_parity(profile, *curr))
    best = curr;
  else
    best = profile.behaviour.pick == PickRule::v6_6_rc1 ? pick_eevdf_one_pass(cfs_rq, curr)
                                                                       : pick_eevdf_two_pass(cfs_rq, curr);
  cfs_rq.rq->obs().on_pick(cfs_rq, best, true, caller);
  if (!best) best = cfs_rq.tasks_timeline.leftmost();
  return best;
}

}  // namespace eevdf
