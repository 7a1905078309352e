// The v7.3-rc wakeup preemption and its helpers (fair.c of v7.3-rc1..rc6,
// root cfs_rq, tasks only): Vincent Guittot's short-slice series merged with
// the single runqueue (8f97b627ff1c, 49f87b4d0be8, 7ad0ec7890b3, ba0d3bf5f97b,
// 7cd2ef17de5e, 0d1e7a2bab35, 04998aa54848). Selected by Behaviour::wakeup_preempt == WakeupPreempt::v7_3
// and Behaviour::protect_ineligible_cap; the v7.1 versions are in fair_class.cpp
// and fair_curr.cpp.
#include "model/fair.hpp"

namespace eevdf {

// ineligible_vruntime() (v7.3-rc1, 0d1e7a2bab35): zero_vruntime + floor(S/W) + 1
// over the tree alone (curr is not in the sums); offset 0 on an empty tree. The
// kernel's WARN for a missing on_rq curr is not modelled: in the model's
// set_next_entity() curr is set after set_protect_slice(), in the kernel's
// set_next_task_fair() before; the sums are the same.
u64 ineligible_vruntime(CfsRq& cfs_rq) {
  const s64 weight = as_s64(cfs_rq.sum_weight);
  s64 delta = 0;
  if (weight) {
    s64 runtime = cfs_rq.sum_w_vruntime;
    if (runtime < 0) runtime = sub_s64(runtime, weight - 1, Site::ineligible_vruntime_floor_adjust, cfs_rq.rq->obs());
    delta = div64_long(runtime, weight);
  }
  return cfs_rq.zero_vruntime + as_u64(delta) + 1;
}

// set_short_buddy() (v7.3-rc1, 8f97b627ff1c): keep a buddy whose slice is
// strictly shorter than the wakee's, else make the wakee the buddy.
bool set_short_buddy(CfsRq& cfs_rq, SchedEntity& pse) {
  if (cfs_rq.next && cfs_rq.next->slice < pse.slice) return false;
  set_next_buddy(pse);
  return true;
}

namespace {

enum class Decision { preempt, keep, none };

// The decision part of wakeup_preempt_fair() (v7.3-rc): preempt, keep curr
// (then update_protect_slice runs), or none (the NEXT_BUDDY return, no update).
Decision wakeup_decision(Rq& rq, Task& donor, Task& p, int wake_flags, PreemptAction& action,
                         WakeupPreemptReason& reason) {
  SchedEntity& se = donor.se;
  SchedEntity& pse = p.se;
  CfsRq& cfs_rq = rq.profile().behaviour.flat_runqueue ? rq.cfs : *se.cfs_rq;  // &rq->cfs
  const Profile& profile = rq.profile();
  const bool cse_is_idle = task_is_idle(donor);
  const bool pse_is_idle = task_is_idle(p);
  if (cse_is_idle && !pse_is_idle) {  // action stays PICK: no buddy
    reason = WakeupPreemptReason::idle_curr;
    return Decision::preempt;
  }
  if (profile.behaviour.flat_runqueue)
    update_curr_fair(rq);  // every level of the running task
  else
    update_curr(cfs_rq);  // one level for a root task
  // 04998aa54848: a delayed wakee never preempts, not even a shorter one
  if (cse_is_idle != pse_is_idle || p.policy != Policy::normal || pse.sched_delayed) return Decision::keep;
  if (profile.feat(Feature::PREEMPT_SHORT) && pse.slice < se.slice) {
    action = PreemptAction::short_;
    reason = WakeupPreemptReason::short_pick;
  } else {
    if (wake_flags & wake_flags::FORK) return Decision::keep;
    if (profile.feat(Feature::NEXT_BUDDY) && set_preempt_buddy(cfs_rq, pse) && (wake_flags & wake_flags::SYNC)) {
      action = preempt_sync(rq, wake_flags, pse, se);
      reason = WakeupPreemptReason::sync;
    }
    if (action == PreemptAction::none) return Decision::none;
    if (action == PreemptAction::resched) return Decision::preempt;
  }
  while (cfs_rq.h_nr_queued) {
    SchedEntity* nse = pick_next_entity(rq, cfs_rq, action != PreemptAction::short_, PickCaller::wakeup_preempt);
    if (rq.oops) return Decision::none;
    if (!nse) continue;
    if (nse == &pse) return Decision::preempt;
    break;
  }
  // ba0d3bf5f97b: an eligible short wakee preempts even if the pick chose another
  if (action == PreemptAction::short_ && entity_eligible(cfs_rq, pse)) {
    reason = WakeupPreemptReason::short_eligible;
    return Decision::preempt;
  }
  return Decision::keep;
}

}  // namespace

// wakeup_preempt_fair() of v7.3-rc1..rc6. fa02b2868420's "both fair" test is
// implicit (the model has only fair tasks and calls this with a running donor).
void wakeup_preempt_fair_v7_3(Rq& rq, Task& p, int wake_flags) {
  Task& donor = rq.tasks[static_cast<std::size_t>(rq.curr)];
  SchedEntity& se = donor.se;
  SchedEntity& pse = p.se;
  CfsRq& cfs_rq = rq.profile().behaviour.flat_runqueue ? rq.cfs : *se.cfs_rq;
  const Profile& profile = rq.profile();
  PreemptAction action = PreemptAction::pick;
  WakeupPreemptReason reason = WakeupPreemptReason::pick;

  if (&se == &pse) return;
  // 7ad0ec7890b3: a pending reschedule ends the decision only without PREEMPT_SHORT
  if (!profile.feat(Feature::PREEMPT_SHORT) && rq.need_resched) return;
  if (!profile.feat(Feature::WAKEUP_PREEMPTION)) return;

  switch (wakeup_decision(rq, donor, p, wake_flags, action, reason)) {
    case Decision::none: return;
    case Decision::keep:
      if (profile.feat(Feature::RUN_TO_PARITY)) update_protect_slice(cfs_rq, se);  // 7cd2ef17de5e
      return;
    case Decision::preempt: break;
  }
  // preempt: every preemption cancels curr's protection; a SHORT one sets the
  // short buddy (8f97b627ff1c) instead of v7.1's clear_buddies()
  cancel_protect_slice(se);
  if (action == PreemptAction::short_) set_short_buddy(cfs_rq, pse);
  rq.obs().on_wakeup_preempt(cfs_rq, pse, reason);
  rq.resched_curr();
}

}  // namespace eevdf
