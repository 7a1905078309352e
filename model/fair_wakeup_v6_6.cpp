// Wakeup preemption of v6.12.0 (check_preempt_wakeup_fair() with
// do_preempt_short(), 85e511df3cec) and of v6.6.0 (check_preempt_wakeup()):
// both ask pick_eevdf() with its RUN_TO_PARITY test; v6.12 first cancels the
// parity stash for a shorter-slice wakee. 6.12.y (v6.12.118) adds two
// stable backports: no NEXT_BUDDY for a delayed wakee (493afbd187c4) and the
// stash cancelled for a preempted SCHED_IDLE curr (f553741ac8c0).
#include <optional>

#include "model/fair.hpp"

namespace eevdf {

namespace {

// v6.6 and v6.12: what both share after the policy tests: would pick_eevdf() run the wakee?
void preempt_if_picked(Rq& rq, CfsRq& cfs_rq, SchedEntity& pse, WakeupPreemptReason reason) {
  if (pick_eevdf(cfs_rq, true, PickCaller::wakeup_preempt_decision) != &pse) return;
  rq.obs().on_wakeup_preempt(cfs_rq, pse, reason);
  rq.resched_curr();
}

// cancel_protect_slice() on the parity stash (6.12.y, 9cdb4fe20cd2; v6.12.0
// open-codes it): a stash still equal to the deadline is broken by one.
void cancel_parity_stash(SchedEntity& se) {
  if (vlag_holds_parity(se)) se.set_vlag(as_s64(se.deadline + 1));
}

// v6.6 and v6.12: a SCHED_IDLE curr yields to any other wakee (goto preempt);
// 6.12.y (f553741ac8c0) first cancels the idle entity's parity stash.
void preempt_idle_curr(Rq& rq, CfsRq& cfs_rq, SchedEntity& se, SchedEntity& pse) {
  if (rq.profile().behaviour.idle_preempt_cancels_protection) cancel_parity_stash(se);
  rq.obs().on_wakeup_preempt(cfs_rq, pse, WakeupPreemptReason::idle_curr);
  rq.resched_curr();
}

// do_preempt_short() (v6.12): a shorter-slice eligible wakee with an earlier
// deadline, or facing an ineligible curr.
bool do_preempt_short(CfsRq& cfs_rq, SchedEntity& pse, SchedEntity& se) {
  if (!cfs_rq.rq->profile().feat(Feature::PREEMPT_SHORT)) return false;
  if (pse.slice >= se.slice) return false;
  if (!entity_eligible(cfs_rq, pse)) return false;
  if (vruntime_before(pse.deadline, se.deadline)) return true;  // entity_before()
  return !entity_eligible(cfs_rq, se);
}

// v6.6 and v6.12: find_matching_se() and the se_is_idle() tests of the two
// entities it returns; nullopt when they decide the wakeup (an idle entity is
// preempted by a non-idle one, and nothing happens the other way round).
std::optional<MatchedEntities> match_for_wakeup(Rq& rq, Task& curr, Task& p) {
  auto [se, pse] = matching_entities(curr, p);
  const bool cse_is_idle = se_is_idle(rq, se);
  const bool pse_is_idle = se_is_idle(rq, pse);
  if (cse_is_idle && !pse_is_idle) {
    preempt_idle_curr(rq, *se.cfs_rq, se, pse);
    return std::nullopt;
  }
  if (cse_is_idle != pse_is_idle) return std::nullopt;
  return MatchedEntities{se, pse};
}

}  // namespace

// check_preempt_wakeup_fair() of v6.12.0: the idle tests compare the
// entities find_matching_se() returns (faa42d29419d, v6.11), then the policy.
void check_preempt_wakeup_v6_12(Rq& rq, Task& p, int wake_flags) {
  Task& curr = rq.tasks[static_cast<std::size_t>(rq.curr)];
  const Profile& profile = rq.profile();

  if (&curr.se == &p.se) return;
  if (throttled_hierarchy(*p.se.cfs_rq)) return;  // the wakee's enqueue throttled its queue
  // v6.12.0 has no !pse->sched_delayed test here (493afbd187c4 came in 6.12.y)
  const bool buddy_skips_delayed = profile.behaviour.wakeup_buddy_skips_delayed && p.se.sched_delayed;
  if (profile.feat(Feature::NEXT_BUDDY) && !(wake_flags & wake_flags::FORK) && !buddy_skips_delayed)
    set_next_buddy(p.se);
  if (rq.need_resched) return;
  if (!profile.feat(Feature::WAKEUP_PREEMPTION)) return;
  const auto matched = match_for_wakeup(rq, curr, p);
  if (!matched) return;
  auto [se, pse] = *matched;
  CfsRq& cfs_rq = *se.cfs_rq;
  if (p.policy != Policy::normal) return;  // normal_policy()
  update_curr(cfs_rq);
  WakeupPreemptReason reason = WakeupPreemptReason::pick;
  if (do_preempt_short(cfs_rq, pse, se)) {
    reason = WakeupPreemptReason::short_pick;
    cancel_parity_stash(se);  // cancel RUN_TO_PARITY
  }
  preempt_if_picked(rq, cfs_rq, pse, reason);
}

// check_preempt_wakeup() of v6.6.0: the task policy tests, then the idle
// tests of the entities find_matching_se() returns (304000390f88, v5.15).
void check_preempt_wakeup_v6_6(Rq& rq, Task& p, int wake_flags) {
  Task& curr = rq.tasks[static_cast<std::size_t>(rq.curr)];
  const Profile& profile = rq.profile();

  if (&curr.se == &p.se) return;
  if (throttled_hierarchy(*p.se.cfs_rq)) return;  // the wakee's enqueue throttled its queue
  if (profile.feat(Feature::NEXT_BUDDY) && !(wake_flags & wake_flags::FORK)) set_next_buddy(p.se);
  if (rq.need_resched) return;
  if (task_is_idle(curr) && !task_is_idle(p)) return preempt_idle_curr(rq, *p.se.cfs_rq, curr.se, p.se);
  if (p.policy != Policy::normal || !profile.feat(Feature::WAKEUP_PREEMPTION)) return;
  const auto matched = match_for_wakeup(rq, curr, p);
  if (!matched) return;
  auto [se, pse] = *matched;
  CfsRq& cfs_rq = *se.cfs_rq;
  update_curr(cfs_rq);
  preempt_if_picked(rq, cfs_rq, pse, WakeupPreemptReason::pick);
}

}  // namespace eevdf
