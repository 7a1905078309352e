#include "model/kernel_types.hpp"

#include <limits>

namespace eevdf {

const char* site_name(Site s) {
  switch (s) {
    case Site::sum_w_vruntime_add_key_x_weight: return "__sum_w_vruntime_add.key_x_weight";
    case Site::sum_w_vruntime_add_accumulate: return "__sum_w_vruntime_add.sum_w_vruntime";
    case Site::sum_w_vruntime_sub_key_x_weight: return "sum_w_vruntime_sub.key_x_weight";
    case Site::sum_w_vruntime_sub_accumulate: return "sum_w_vruntime_sub.sum_w_vruntime";
    case Site::update_zero_vruntime_weight_x_delta: return "update_zero_vruntime.sum_weight_x_delta";
    case Site::update_zero_vruntime_accumulate: return "update_zero_vruntime.sum_w_vruntime";
    case Site::avg_vruntime_curr_key_x_weight: return "avg_vruntime.curr_key_x_weight";
    case Site::avg_vruntime_accumulate: return "avg_vruntime.runtime";
    case Site::avg_vruntime_floor_adjust: return "avg_vruntime.floor_adjust";
    case Site::vruntime_eligible_curr_key_x_weight: return "vruntime_eligible.curr_key_x_weight";
    case Site::vruntime_eligible_accumulate: return "vruntime_eligible.avg";
    case Site::vruntime_eligible_key_x_load: return "vruntime_eligible.key_x_load";
    case Site::place_entity_lag_x_load: return "place_entity.lag_x_load";
    case Site::rescale_entity_vlag_x_weight: return "rescale_entity.vlag_x_weight";
    case Site::rescale_entity_deadline_x_weight: return "rescale_entity.deadline_x_weight";
    case Site::rescale_entity_vprot_x_weight: return "rescale_entity.vprot_x_weight";
    case Site::calc_delta_delta_x_weight: return "__calc_delta.delta_x_weight";
    case Site::calc_delta_mul_u64_u32_shr: return "__calc_delta.mul_u64_u32_shr";
    case Site::ineligible_vruntime_floor_adjust: return "ineligible_vruntime.floor_adjust";
    case Site::calc_prop_weight_x_weight: return "__calc_prop_weight.x_x_weight";
    case Site::calc_smp_shares_ts_x_load: return "__calc_smp_shares.ts_x_load";
    case Site::count_: break;
  }
  return "?";
}

const char* warn_name(Warn w) {
  switch (w) {
    case Warn::sum_w_vruntime_add_product_over_62_bits:
      return "__sum_w_vruntime_add: WARN_ON_ONCE((w_vruntime >> 63) != (w_vruntime >> 62))";
    case Warn::paranoid_avg_sum_shift_limit:
      return "sum_w_vruntime_add_paranoid: BUG_ON(sum_shift >= 10)";
    case Warn::place_entity_zero_load: return "place_entity: WARN_ON_ONCE(!load)";
    case Warn::pick_eevdf_next_buddy_delayed: return "pick_eevdf: WARN_ON_ONCE(next->sched_delayed)";
    case Warn::update_entity_lag_not_on_rq: return "update_entity_lag: WARN_ON_ONCE(!se->on_rq)";
    case Warn::set_next_buddy_not_on_rq: return "set_next_buddy: WARN_ON_ONCE(!se->on_rq)";
    case Warn::dequeue_delayed_not_delayed:
      return "dequeue_entity: WARN_ON_ONCE(!se->sched_delayed) with DEQUEUE_DELAYED";
    case Warn::dequeue_sleep_already_delayed:
      return "dequeue_entity: WARN_ON_ONCE(delay && se->sched_delayed)";
    case Warn::bandwidth_clock_self_set: return "tg_throttle_down: SCHED_WARN_ON(cfs_rq->throttled_clock_self)";
    case Warn::bandwidth_clock_self_backwards: return "tg_unthrottle_up: SCHED_WARN_ON((s64)delta < 0)";
    case Warn::bandwidth_throttled_clock_set: return "throttle_cfs_rq: SCHED_WARN_ON(cfs_rq->throttled_clock)";
    case Warn::bandwidth_async_unthrottle_not_due:
      return "unthrottle_cfs_rq_async: SCHED_WARN_ON(!cfs_rq_throttled(cfs_rq) || cfs_rq->runtime_remaining <= 0)";
    case Warn::bandwidth_csd_queued_twice:
      return "__unthrottle_cfs_rq_async: SCHED_WARN_ON(!list_empty(&cfs_rq->throttled_csd_list))";
    case Warn::bandwidth_throttled_with_runtime:
      return "distribute_cfs_runtime: SCHED_WARN_ON(cfs_rq->runtime_remaining > 0)";
    case Warn::bandwidth_two_local_unthrottles: return "distribute_cfs_runtime: SCHED_WARN_ON(!list_empty(&local_unthrottle))";
    case Warn::bandwidth_unthrottle_delayed: return "unthrottle_cfs_rq: SCHED_WARN_ON(se->sched_delayed)";
    case Warn::bandwidth_limbo_not_empty:
      return "tg_throttle_down: WARN_ON_ONCE(!list_empty(&cfs_rq->throttled_limbo_list))";
    case Warn::bandwidth_throttle_work_on_limbo:
      return "throttle_cfs_rq_work: WARN_ON_ONCE(p->throttled || !list_empty(&p->throttle_node))";
    case Warn::bandwidth_limbo_enqueue_listed:
      return "enqueue_throttled_task: WARN_ON_ONCE(!list_empty(&p->throttle_node))";
    case Warn::bandwidth_dequeue_throttled_queued: return "dequeue_throttled_task: WARN_ON_ONCE(p->se.on_rq)";
    case Warn::set_next_task_delayed: return "set_next_task_fair: WARN_ON_ONCE(se->sched_delayed)";
    case Warn::requeue_delayed_not_delayed:
      return "requeue_delayed_entity: WARN_ON_ONCE(!se->sched_delayed || !se->on_rq)";
    case Warn::sched_fork_delayed: return "__sched_fork: WARN_ON_ONCE(p->se.sched_delayed)";
    case Warn::preempt_sync_without_ttwu: return "preempt_sync: WARN_ON_ONCE(!(wake_flags & WF_TTWU))";
    case Warn::pick_next_entity_null:
      return "pick_next_entity: NULL pick on a cfs_rq with nr_queued > 0 (NULL dereference)";
    case Warn::h_load_below_min_shares:
      return "flat runqueue: a task's se->h_load.weight < MIN_SHARES (2) reaches calc_delta_fair / avg weight / placement";
    case Warn::calc_prop_weight_zero_divisor:
      return "__calc_prop_weight: division by a zero cfs_rq->load.weight (#DE)";
    case Warn::count_: break;
  }
  return "?";
}

Observer& null_observer() {
  static Observer obs;
  return obs;
}

s64 div_s64(s64 dividend, s64 divisor_as_passed) {
  // The kernel's div_s64() takes an s32 divisor: the argument is truncated.
  const s32 divisor = static_cast<s32>(static_cast<u32>(as_u64(divisor_as_passed)));
  if (divisor == 0) return 0;  // the kernel would trap; callers guard against it
  if (divisor == -1) return as_s64(u64{0} - as_u64(dividend));
  return dividend / divisor;
}

s64 div64_long(s64 dividend, s64 divisor) {
  if (divisor == 0) return 0;  // the kernel would trap; callers guard against it
  if (divisor == -1) return as_s64(u64{0} - as_u64(dividend));
  return dividend / divisor;
}

}  // namespace eevdf
