// The task-group hierarchy of fair.c (CONFIG_FAIR_GROUP_SCHED, newest
// the mainline profile) on a CPU: entity relations, idle groups, group shares
// and the partial put_prev/set_next walk of pick_next_task_fair().
#include "model/fair.hpp"

namespace eevdf {

// cfs_rq_is_idle() (v7.1)
bool cfs_rq_is_idle(const CfsRq& cfs_rq) { return cfs_rq.idle > 0; }

// se_is_idle() (v7.1): a SCHED_IDLE task, or a group entity whose queue is idle.
bool se_is_idle(const Rq& rq, const SchedEntity& se) {
  if (entity_is_task(se)) return rq.task_of(se).policy == Policy::idle;
  return cfs_rq_is_idle(*se.my_q);
}

// is_same_group() (v7.1): the common queue of two entities, or nullptr.
CfsRq* is_same_group(const SchedEntity& se, const SchedEntity& pse) {
  return se.cfs_rq == pse.cfs_rq ? se.cfs_rq : nullptr;
}

// find_matching_se() (v7.1): walk both entities up to the level where they
// share a queue.
void find_matching_se(SchedEntity*& se, SchedEntity*& pse) {
  int se_depth = se->depth;
  int pse_depth = pse->depth;
  while (se_depth > pse_depth) {
    --se_depth;
    se = se->parent;
  }
  while (pse_depth > se_depth) {
    --pse_depth;
    pse = pse->parent;
  }
  while (!is_same_group(*se, *pse)) {
    se = se->parent;
    pse = pse->parent;
  }
}

MatchedEntities matching_entities(Task& donor, Task& p) {
  SchedEntity* se = &donor.se;
  SchedEntity* pse = &p.se;
  find_matching_se(se, pse);
  return {*se, *pse};
}

// calc_group_shares() (v7.1): tg->shares · load / tg_weight, clamped to
// [MIN_SHARES, tg->shares], where load is the queue's weight or its load
// average, whichever is larger, and tg_weight is tg->load_avg with this
// queue's last contribution replaced by load (model/fair_pelt.cpp keeps both
// sums; on one CPU tg_weight = load, and a queue with load gets tg->shares).
u64 calc_group_shares(const Rq& rq, const CfsRq& cfs_rq) {
  const TaskGroup& tg = rq.task_groups[static_cast<std::size_t>(cfs_rq.group_id)];
  const s64 tg_shares = as_s64(tg.shares);
  const u64 load_weight = scale_load_down(cfs_rq.load.weight);
  const s64 load = as_s64(load_weight > cfs_rq.avg.load_avg ? load_weight : cfs_rq.avg.load_avg);
  // tg_weight: long arithmetic on the atomic sum and the unsigned contribution
  const s64 tg_weight = as_s64(as_u64(tg.load_avg) - cfs_rq.tg_load_avg_contrib + as_u64(load));
  s64 shares = tg_shares * load;  // at most 2^28 · 2^41: no overflow
  if (tg_weight) shares /= tg_weight;
  const s64 min_shares = static_cast<s64>(kMinShares);
  if (shares < min_shares) shares = min_shares;
  if (shares > tg_shares) shares = tg_shares;
  return as_u64(shares);
}

// update_cfs_group() (v7.1): a group entity takes its share through
// reweight_entity(); an empty group keeps its weight (DELAY_DEQUEUE,
// 66951e4860d3; before it, v6.12 and v6.6, it drops to MIN_SHARES).
void update_cfs_group(SchedEntity& se) {
  CfsRq* gcfs_rq = se.my_q;
  if (!gcfs_rq) return;
  if (!gcfs_rq->load.weight && gcfs_rq->rq->profile().behaviour.empty_group_keeps_weight) return;
  if (throttled_hierarchy(*gcfs_rq) && !task_based_throttle(*gcfs_rq)) return;  // before v6.18
  const u64 shares = flat_runqueue(*gcfs_rq) ? calc_group_shares_flat(*gcfs_rq->rq, *gcfs_rq)
                                             : calc_group_shares(*gcfs_rq->rq, *gcfs_rq);
  // v6.6.0 reweights with an unchanged weight too (group_reweight_unchanged)
  if (se.load.weight != shares || gcfs_rq->rq->profile().behaviour.group_reweight_unchanged)
    reweight_entity(*se.cfs_rq, se, shares);
}

// The CONFIG_FAIR_GROUP_SCHED part of pick_next_task_fair() (v7.1) when a
// fair task follows a fair task: put_prev/set_next only on the levels below
// the lowest common queue; the shared ancestors stay curr untouched.
void put_prev_set_next_fair(Rq& rq, Task& prev, Task& next) {
  if (rq.profile().behaviour.flat_runqueue) {  // v7.3-rc1: shared levels keep h_curr
    put_prev_task_fair_flat(rq, prev, &next);
    set_next_task_fair_flat(rq, next, true);
    return;
  }
  SchedEntity* se = &next.se;
  SchedEntity* pse = &prev.se;
  CfsRq* cfs_rq = nullptr;
  while (!(cfs_rq = is_same_group(*se, *pse))) {
    const int se_depth = se->depth;
    const int pse_depth = pse->depth;
    if (se_depth <= pse_depth) {
      put_prev_entity(*pse->cfs_rq, *pse);
      pse = pse->parent;
    }
    if (se_depth >= pse_depth) {
      set_next_entity(*se->cfs_rq, *se, true);
      se = se->parent;
    }
  }
  put_prev_entity(*cfs_rq, *pse);
  set_next_entity(*cfs_rq, *se, true);
  if (next.se.sched_delayed) rq.warn(Warn::set_next_task_delayed, &next.se);  // __set_next_task_fair()
}

}  // namespace eevdf
