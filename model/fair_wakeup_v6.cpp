// Wakeup preemption of v6.18.0, check_preempt_wakeup_fair(): the buddy is set
// before any test, fork wakeups may preempt, and the PREEMPT_SHORT probe is a
// __pick_eevdf() without protection and without the buddy (PICK_BUDDY lives
// in pick_next_entity() there). Replaced by the action-based
// wakeup_preempt_fair() in v6.19 (e837456fdca8, 15257cc2f905).
#include "model/fair.hpp"

namespace eevdf {

void check_preempt_wakeup_fair(Rq& rq, Task& p, int wake_flags) {
  switch (rq.profile().behaviour.wakeup_preempt) {
    case WakeupPreempt::v6_12: return check_preempt_wakeup_v6_12(rq, p, wake_flags);
    case WakeupPreempt::v6_6: return check_preempt_wakeup_v6_6(rq, p, wake_flags);
    case WakeupPreempt::v6_18:
    case WakeupPreempt::v6_19:  // not this family (wakeup_preempt_fair() does not call here)
    case WakeupPreempt::v7_3: break;
  }
  Task& donor = rq.tasks[static_cast<std::size_t>(rq.curr)];
  const Profile& profile = rq.profile();
  bool do_preempt_short = false;
  WakeupPreemptReason reason = WakeupPreemptReason::pick;

  if (&donor.se == &p.se) return;
  if (task_is_throttled(rq, p)) return;  // v6.18: a limbo task (its enqueue went to the limbo list)
  if (profile.feat(Feature::NEXT_BUDDY) && !(wake_flags & wake_flags::FORK) && !p.se.sched_delayed)
    set_next_buddy(p.se);
  if (rq.need_resched) return;
  if (!profile.feat(Feature::WAKEUP_PREEMPTION)) return;

  auto [se, pse] = matching_entities(donor, p);
  CfsRq& cfs_rq = *se.cfs_rq;

  const bool cse_is_idle = se_is_idle(rq, se);
  const bool pse_is_idle = se_is_idle(rq, pse);
  if (cse_is_idle && !pse_is_idle) {
    do_preempt_short = true;
    reason = WakeupPreemptReason::idle_curr;
  } else {
    if (cse_is_idle != pse_is_idle) return;
    if (p.policy != Policy::normal) return;  // normal_policy()
    update_curr(cfs_rq);
    do_preempt_short = profile.feat(Feature::PREEMPT_SHORT) && pse.slice < se.slice;
    if (do_preempt_short) reason = WakeupPreemptReason::short_pick;
    // __pick_eevdf() directly: it may answer a sched_delayed entity
    if (pick_eevdf(cfs_rq, !do_preempt_short, PickCaller::wakeup_preempt_decision) != &pse) {
      if (profile.feat(Feature::RUN_TO_PARITY) && do_preempt_short) update_protect_slice(cfs_rq, se);
      return;
    }
  }
  // preempt:
  rq.obs().on_wakeup_preempt(cfs_rq, pse, reason);
  if (do_preempt_short) cancel_protect_slice(se);
  rq.resched_curr();
}

}  // namespace eevdf
