// I-DELAY: a delayed entity is never curr nor the next buddy (state part); its
// debt does not grow while it is delayed (checked when it leaves the delayed
// state, against the lag the Checker recorded at its delay); a delayed group
// entity keeps its weight.
#include <fmt/format.h>

#include <algorithm>

#include "invariants/checker.hpp"
#include "model/fair.hpp"

namespace eevdf::inv {

// CPU bandwidth control (6.12.118's hierarchical throttle): a sched_change of the
// running task (a cgroup move into a throttled group, a sched_setattr() whose
// dequeue charged the last runtime and whose put_prev_entity() throttled) ends in
// set_next_task_fair(), which makes every level's entity of the task curr, while
// its enqueue stopped at the throttled queue and left the levels above as they
// were: an ancestor entity that the dequeue delayed (its queue emptied while it
// was ineligible) becomes its queue's curr although delayed. The task runs below
// the throttled queue until the reschedule that is pending (sched_move_task()'s
// resched_curr(), or __account_cfs_rq_runtime()'s), as I-BW's rule 5 has it; that
// schedule() puts the entity back and a pick dequeues it. A pick never runs a task
// below a throttled queue, so a pick that ran a delayed entity is not excused.
namespace {
bool delayed_curr_above_throttle(const Rq& rq, const SchedEntity& curr) {
  if (!curr.my_q || !rq.need_resched || !rq.cfs_bandwidth_used()) return false;
  if (rq.profile().behaviour.task_based_throttle) return false;  // v6.18: no enqueue stops at a throttled queue
  const Task* p = rq.task(rq.curr);
  if (!p) return false;
  bool throttled_below = false;
  for (const SchedEntity* se = &p->se; se; se = se->parent) {
    if (se == &curr) return throttled_below;
    if (se->cfs_rq && cfs_rq_throttled(*se->cfs_rq)) throttled_below = true;
  }
  return false;
}
}  // namespace

void check_delay(const CheckScope& s) {
  if (!s.on(Id::DELAY)) return;
  const CfsRq& cfs = s.cfs;
  if (cfs.curr && cfs.curr->sched_delayed && !delayed_curr_above_throttle(s.rq, *cfs.curr))
    s.report(Id::DELAY, "set_next_entity", "a sched_delayed entity is cfs_rq->curr", {cfs.curr});
  if (cfs.next && cfs.next->sched_delayed)
    s.report(Id::DELAY, "set_next_buddy", "a sched_delayed entity is cfs_rq->next", {cfs.next});
}

// w·clamp(V - v) for a queued entity, V exact and floored, clamped with the
// profile's lag limit for the largest slice queued with it.
i128 delay_lag(const Rq& rq, const SchedEntity& se) {
  const CfsRq* q = eevdf_queue_of(rq, se);
  if (!q || !se.on_rq) return static_cast<i128>(se.vlag) * static_cast<i128>(eevdf_load_of(rq, se).weight);
  const ExactAverage a = exact_average(*q);
  const i128 w = static_cast<i128>(eevdf_load_of(rq, se).weight);
  if (a.weight == 0) return 0;
  i128 floor_v = a.sum / a.weight;
  if (a.sum % a.weight != 0 && a.sum < 0) --floor_v;
  i128 lag = floor_v - vruntime_diff(se.vruntime, q->zero_vruntime);
  const u64 slice = rq.profile().behaviour.lag_limit_max_slice ? a.max_slice : se.slice;
  const i128 limit = static_cast<i128>(kernel_lag_limit(rq, slice, eevdf_load_of(rq, se)));
  lag = std::clamp(lag, -limit, limit);
  return lag * w;
}

// The transitions: the lag a delayed entity leaves with may not be below the
// one it was delayed with (service units; rounding of a reweight or a
// re-placement allowed). Both lags are taken from the state, on every profile:
// clamp(V - v) when it becomes delayed and when a wake-up requeues it, the
// saved vlag when it is dequeued at last. (v7.1 saves the lag at delay time and
// keeps the debt from growing; before, a V that sank meanwhile deepens it.)
bool delay_debt_grew(const Rq& rq, const SchedEntity& se, i128 at_delay, i128& lag) {
  const u64 weight = eevdf_load_of(rq, se).weight;
  lag = se.on_rq ? delay_lag(rq, se) : static_cast<i128>(se.vlag) * static_cast<i128>(weight);
  return lag < at_delay - static_cast<i128>(weight);
}

void report_delay_debt(const CheckScope& s, const SchedEntity& se, i128 lag, i128 at_delay) {
  s.report(Id::DELAY, se.on_rq ? "requeue_delayed_entity" : "update_entity_lag",
           fmt::format("{} left the delayed state ({}) with w·lag = {}, below the {} it had when delayed "
                       "(a delayed entity's debt may not grow)",
                       entity_name(s.rq, &se), se.on_rq ? "woken, still queued" : "dequeued", format_i128(lag),
                       format_i128(at_delay)),
           {&se});
}

// A delayed group entity's queue is empty, so it has no share to take; it burns
// off its lag at the weight it was delayed with (66951e4860d3: update_cfs_group()
// leaves a group with no load alone; before it, v6.12.0 drops it to MIN_SHARES).
//
// Excepted, with CPU bandwidth control: the entity is no longer queued and its own
// queue is no longer empty. Only unthrottle_cfs_rq()'s walk up (9b5ce1a37e90, up to
// the task-based throttle of e1fad12dcb66) reaches that: it enqueues the unthrottled
// queue's entity into the queue of a delayed ancestor entity, then finishes that
// ancestor's delayed dequeue first (dequeue_entity() with DEQUEUE_DELAYED), whose
// update_cfs_group() runs after on_rq = 0 and before finish_delayed_dequeue_entity()
// clears sched_delayed. The entity has left its queue, its lag saved in vlag, which
// reweight_entity() rescales so that w·vlag is kept (I-RW judges that); the
// enqueue_entity() that follows places it at its new share.
namespace {
bool leaving_delay_with_a_queue_again(const Rq& rq, const SchedEntity& se) {
  return rq.cfs_bandwidth_used() && !se.on_rq && se.my_q->load.weight != 0;
}
}  // namespace

void check_delayed_reweight(const CheckScope& s, const SchedEntity& se, u64 new_weight) {
  if (!se.sched_delayed || !se.my_q || new_weight == se.load.weight) return;
  if (leaving_delay_with_a_queue_again(s.rq, se)) return;
  s.report(Id::DELAY, "update_cfs_group / reweight_entity",
           fmt::format("{} was reweighted {} -> {} while delayed; a delayed group entity's queue is "
                       "empty and it keeps the weight it was delayed with",
                       entity_name(s.rq, &se), se.load.weight, new_weight),
           {&se});
}

}  // namespace eevdf::inv
