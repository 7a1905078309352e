// The running entity: update_curr(), update_deadline() and slice protection
// (fair.c, the mainline profile: 1319ea57529e, bcd74b2ffdd0).
#include "model/fair.hpp"

namespace eevdf {

// update_se(): charge the time since exec_start; returns the signed delta.
s64 update_se(Rq& rq, SchedEntity& se) {
  const u64 now = rq.clock_task;
  const s64 delta_exec = as_s64(now - se.exec_start);
  if (delta_exec <= 0) return delta_exec;
  se.exec_start = now;
  se.sum_exec_runtime += as_u64(delta_exec);
  return delta_exec;
}

namespace {

}  // namespace

// update_deadline(): once v reaches the deadline, refresh the slice, set the
// next deadline one virtual slice ahead, and re-base zero_vruntime.
bool update_deadline(CfsRq& cfs_rq, SchedEntity& se) {
  if (vruntime_before(se.vruntime, se.deadline)) return false;
  if (!se.custom_slice) se.slice = cfs_rq.rq->profile().sysctl_sched_base_slice();
  se.deadline = se.vruntime + calc_delta_fair(se.slice, se, cfs_rq);
  if (cfs_rq.rq->profile().behaviour.key_base == KeyBase::zero_at_avg_deadline) avg_vruntime(cfs_rq);  // 1319ea57529e
  return true;
}

void update_curr(CfsRq& cfs_rq) {
  if (flat_runqueue(cfs_rq)) return update_curr_flat(cfs_rq);  // v7.3-rc: h_curr
  SchedEntity* curr = cfs_rq.curr;
  if (!curr) return;
  Rq& rq = *cfs_rq.rq;
  const s64 delta = update_se(rq, *curr);
  if (delta <= 0) return;
  curr->vruntime += calc_delta_fair(as_u64(delta), *curr, cfs_rq);
  const bool resched = update_deadline(cfs_rq, *curr);
  update_min_vruntime(cfs_rq);
  account_cfs_rq_runtime(cfs_rq, as_u64(delta));  // CPU bandwidth control: nothing without a quota
  // d4ac164bde7a (v6.12-rc2): the level's own count; 85e511df3cec had rq->nr_running (B25)
  if ((rq.profile().behaviour.lone_test_rq_nr_running ? rq.nr_running : cfs_rq.nr_queued) == 1) return;
  const bool preempt = rq.profile().behaviour.parity_in_vlag ? did_preempt_short(cfs_rq, *curr) : !protect_slice(*curr);
  if (resched || preempt) {
    rq.resched_curr();
    clear_buddies(cfs_rq, *curr);
  }
}

// set_protect_slice(): at a real pick, protect se until the shortest slice of
// the other queued entities (RUN_TO_PARITY) or one normalized base slice.
void set_protect_slice(CfsRq& cfs_rq, SchedEntity& se) {
  const Profile& profile = cfs_rq.rq->profile();
  u64 slice = profile.tunables.normalized_base_slice;
  u64 vprot = se.deadline;
  if (profile.feat(Feature::RUN_TO_PARITY)) slice = cfs_rq_min_slice(cfs_rq);
  if (se.slice < slice) slice = se.slice;
  if (slice != se.slice) {
    if (profile.behaviour.protect_ineligible_cap && profile.feat(Feature::PREEMPT_SHORT))
      vprot = min_vruntime(vprot, ineligible_vruntime(cfs_rq));  // 0d1e7a2bab35 (v7.3-rc1)
    else
      vprot = min_vruntime(vprot, se.vruntime + calc_delta_fair(slice, se, cfs_rq));
  }
  se.set_vprot(vprot);
}

// update_protect_slice(): only ever shortens the protection.
void update_protect_slice(CfsRq& cfs_rq, SchedEntity& se) {
  const u64 slice = cfs_rq_min_slice(cfs_rq);
  u64 runtime = se.vruntime;
  // 49f87b4d0be8 (v7.3-rc1): from min(v, V), with the re-basing avg_vruntime()
  if (cfs_rq.rq->profile().behaviour.update_protect_from_avg) runtime = min_vruntime(runtime, avg_vruntime(cfs_rq));
  se.set_vprot(min_vruntime(se.vprot, runtime + calc_delta_fair(slice, se, cfs_rq)));
}

bool protect_slice(const SchedEntity& se) { return vruntime_before(se.vruntime, se.vprot); }

// v6.6-v6.12: set_next_entity() stashes the deadline in vlag; while it is
// unchanged, RUN_TO_PARITY keeps curr in pick_eevdf().
bool vlag_holds_parity(const SchedEntity& se) { return as_u64(se.vlag) == se.deadline; }

bool run_to_parity(const Profile& profile, const SchedEntity& curr) {
  if (profile.behaviour.parity_in_vlag) return profile.feat(Feature::RUN_TO_PARITY) && vlag_holds_parity(curr);
  return protect_slice(curr);
}

// did_preempt_short() (v6.12 only): once the parity stash is gone (a new
// deadline, or a PREEMPT_SHORT wakeup), an ineligible curr is rescheduled.
bool did_preempt_short(CfsRq& cfs_rq, SchedEntity& curr) {
  if (!cfs_rq.rq->profile().feat(Feature::PREEMPT_SHORT)) return false;
  if (vlag_holds_parity(curr)) return false;
  return !entity_eligible(cfs_rq, curr);
}

void cancel_protect_slice(SchedEntity& se) {
  if (protect_slice(se)) se.set_vprot(se.vruntime);
}

}  // namespace eevdf
