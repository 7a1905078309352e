// I-PICKOPT and I-NULLPICK at every pick: the result against a brute-force
// pick with exact eligibility and the profile's curr, protection and buddy rules.
#include <fmt/format.h>

#include "invariants/checker.hpp"
#include "model/fair.hpp"

namespace eevdf::inv {

namespace {

struct ExpectedPick {
  const SchedEntity* se = nullptr;
  const char* rule = "";
};

// What pick_eevdf(protect) must answer, by brute force with exact eligibility.
// honour_protection = false: curr's slice protection is ignored, as in the
// pick that follows a reschedule (curr is back in the tree by then).
// with_buddy = false: a bare pick_eevdf() on a kernel whose buddy lives in
// pick_next_entity() (v6.12-v6.18: the wakeup probe does not see the buddy).
ExpectedPick brute_force_pick(const CheckScope& s, bool protect, bool honour_protection, bool with_buddy = true) {
  const CfsRq& cfs = s.cfs;
  const Profile& profile = s.rq.profile();
  const SchedEntity* leftmost = cfs.tasks_timeline.leftmost();
  const SchedEntity* curr = cfs.curr && cfs.curr->on_rq ? cfs.curr : nullptr;
  const bool buddy_allowed = protect || !profile.behaviour.pick_buddy_needs_protect();
  if (eevdf_nr_queued(cfs) == 1) return {curr ? curr : leftmost, "the only queued entity"};
  if (with_buddy && profile.feat(buddy_feature(profile)) && buddy_allowed && cfs.next &&
      exactly_eligible(cfs, s.avg, cfs.next->vruntime))
    return {cfs.next, "the eligible next buddy (PICK_BUDDY)"};
  const SchedEntity* eligible_curr = curr && exactly_eligible(cfs, s.avg, curr->vruntime) ? curr : nullptr;
  if (eligible_curr && protect && honour_protection && run_to_parity(profile, *eligible_curr))
    return {eligible_curr, "curr, whose slice is protected"};
  // the first eligible entity in deadline order (the v6.6 tree is in vruntime order: the earliest deadline)
  const bool by_vruntime = tree_by_vruntime(profile);
  const SchedEntity* best = nullptr;
  for (std::size_t i = 0; i < s.avg.in_tree && (by_vruntime || !best); ++i) {
    const SchedEntity* se = s.avg.entities[i];
    if (exactly_eligible(cfs, s.avg, se->vruntime) && (!best || vruntime_before(se->deadline, best->deadline)))
      best = se;
  }
  if (!best || (eligible_curr && vruntime_before(eligible_curr->deadline, best->deadline))) best = eligible_curr;
  return {best, "the earliest deadline among eligible entities"};
}

// v6.6's tree is in vruntime order: among eligible entities with the same
// earliest deadline, which one the two-pass search finds depends on the tree
// shape, and any is optimal.
bool equally_good(const CheckScope& s, const ExpectedPick& expected, const SchedEntity* result) {
  if (!tree_by_vruntime(s.rq.profile()) || !expected.se || !result) return false;
  return result->deadline == expected.se->deadline && exactly_eligible(s.cfs, s.avg, result->vruntime);
}

std::string task_name(const CheckScope& s, const SchedEntity* se) { return entity_name(s.rq, se); }

}  // namespace

void check_pick(const CheckScope& s, const SchedEntity* result, bool protect, PickCaller caller) {
  const CfsRq& cfs = s.cfs;
  const SchedEntity* leftmost = cfs.tasks_timeline.leftmost();
  const SchedEntity* curr = cfs.curr && cfs.curr->on_rq ? cfs.curr : nullptr;

  if (result == nullptr && eevdf_nr_queued(cfs) > 0) {
    if (s.on(Id::NULLPICK))
      s.report(Id::NULLPICK, "pick_eevdf",
               fmt::format("pick_eevdf() returned NULL with nr_queued = {}", cfs.nr_queued), {leftmost, curr});
    return;
  }
  if (caller == PickCaller::wakeup_preempt_decision && result && result->sched_delayed && s.on(Id::DELAY))
    s.report(Id::DELAY, "wakeup_preempt_fair",
             fmt::format("wakeup preemption compared the wakee with {}, a sched_delayed entity that "
                         "pick_next_entity() would have dequeued",
                         task_name(s, result)),
             {result});
  if (!s.on(Id::PICKOPT)) return;
  const bool bare_pick_eevdf =
      caller == PickCaller::wakeup_preempt_decision && s.rq.profile().behaviour.pick_buddy_in_pick_next();
  const ExpectedPick expected = brute_force_pick(s, protect, true, !bare_pick_eevdf);
  if (expected.se != result && !equally_good(s, expected, result))
    s.report(Id::PICKOPT, "pick_eevdf",
             fmt::format("pick_eevdf(protect={}) returned {}, but {} is {}", protect, task_name(s, result),
                         expected.rule, task_name(s, expected.se)),
             {result, expected.se});
}

std::pair<const SchedEntity*, const SchedEntity*> matching_levels(const SchedEntity* se, const SchedEntity* pse) {
  while (se->depth > pse->depth) se = se->parent;
  while (pse->depth > se->depth) pse = pse->parent;
  while (se->cfs_rq != pse->cfs_rq) {
    se = se->parent;
    pse = pse->parent;
  }
  return {se, pse};
}

namespace {

// A SCHED_IDLE curr yields to a non-idle wakee, judged at the level where the
// two meet (304000390f88, cgroup SCHED_IDLE): a normal task in an idle group
// does not preempt an idle-policy task of a normal group. v6.6 asks the task
// policies first (fixed by faa42d29419d, v6.12).
void check_idle_preempt_level(const CheckScope& s, const SchedEntity& wakee) {
  if (s.rq.curr < 0 || s.rq.profile().behaviour.flat_runqueue) return;
  const SchedEntity& curr = s.rq.tasks[static_cast<std::size_t>(s.rq.curr)].se;
  const auto [se, pse] = matching_levels(&curr, &wakee);
  if (se_is_idle(s.rq, *se) && !se_is_idle(s.rq, *pse)) return;
  s.report(Id::WAKEPICK, "wakeup_preempt_fair",
           fmt::format("{} preempted the SCHED_IDLE curr {} as an idle curr, but where they meet {} is {} and {} is {}",
                       task_name(s, &wakee), task_name(s, &curr), entity_name(s.rq, se),
                       se_is_idle(s.rq, *se) ? "idle" : "not idle", entity_name(s.rq, pse),
                       se_is_idle(s.rq, *pse) ? "idle" : "not idle"),
           {se, pse});
}

}  // namespace

void check_wakeup_preempt(const CheckScope& s, const SchedEntity& wakee, WakeupPreemptReason reason) {
  if (!s.on(Id::WAKEPICK)) return;
  if (reason == WakeupPreemptReason::idle_curr) return check_idle_preempt_level(s, wakee);
  // the sync shortcut trusts the buddy: it does not claim that EEVDF picks the wakee
  if (reason == WakeupPreemptReason::sync) return;
  const ExpectedPick expected = brute_force_pick(s, true, false);
  if (expected.se && expected.se->sched_delayed) return;  // that pick dequeues it first: V moves, undetermined
  if (expected.se == &wakee) return;
  // v7.3-rc (8f97b627ff1c): a SHORT preemption keeps a next buddy whose slice is
  // strictly shorter than the wakee's (set_short_buddy), and the pick runs that
  // buddy when it is eligible: the shortest request first, by design
  const SchedEntity* next = s.rq.cfs.next;
  if (s.rq.profile().behaviour.wakeup_preempt == WakeupPreempt::v7_3 &&
      (reason == WakeupPreemptReason::short_pick || reason == WakeupPreemptReason::short_eligible) &&
      expected.se == next && next->slice < wakee.slice)
    return;
  s.report(Id::WAKEPICK, "wakeup_preempt_fair",
           fmt::format("the running task was preempted for {} ({}), but the pick after the reschedule takes {}: {}",
                       task_name(s, &wakee),
                       reason == WakeupPreemptReason::forced ? "forced: the waker is no longer eligible"
                       : reason == WakeupPreemptReason::short_pick ? "PREEMPT_SHORT"
                       : reason == WakeupPreemptReason::short_eligible ? "PREEMPT_SHORT, eligible wakee"
                                                                   : "EEVDF pick",
                       task_name(s, expected.se), expected.rule),
           {&wakee, expected.se});
}

// After wakeup_preempt_fair() rescheduled a SCHED_IDLE curr for a non-idle
// wakee, the pick must not keep curr by its slice protection alone: the
// preemption was decided without asking EEVDF, and f553741ac8c0 (v6.15)
// cancels the protection for it. (v6.6 - v6.12 keep it: a finding there.)
void check_pick_after_idle_preempt(const CheckScope& s, const SchedEntity* result) {
  if (!s.on(Id::WAKEPICK) || !result) return;
  if (s.known(s.checker.stale_vprot(*result))) return;  // F1, F6 or F7: protected by a stale vprot
  const ExpectedPick unprotected = brute_force_pick(s, true, false);
  if (unprotected.se == result || equally_good(s, unprotected, result)) return;
  s.report(Id::WAKEPICK, "wakeup_preempt_fair / pick_eevdf",
           fmt::format("a non-idle wakee preempted the SCHED_IDLE curr {}, but the pick keeps it by its slice "
                       "protection; without it the pick is {} ({})",
                       task_name(s, result), task_name(s, unprotected.se), unprotected.rule),
           {result, unprotected.se});
}

}  // namespace eevdf::inv
