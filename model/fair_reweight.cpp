// Reweighting a queued or sleeping entity (fair.c, newest mainline ≈ v7.1:
// 101f3498b4bd revert of the re-placement, ff38424030f9 vprot): V stays put,
// lag and relative deadline scale by old/new weight.
#include "model/fair.hpp"

namespace eevdf {

void rescale_entity(SchedEntity& se, u64 weight, bool rel_vprot, Observer& obs) {
  const s64 old_weight = as_s64(se.load.weight);
  const s64 new_weight = as_s64(weight);
  se.vlag = div64_long(mul_s64(se.vlag, old_weight, Site::rescale_entity_vlag_x_weight, obs), new_weight);
  if (se.rel_deadline)
    se.deadline = as_u64(div64_long(
        mul_s64(as_s64(se.deadline), old_weight, Site::rescale_entity_deadline_x_weight, obs), new_weight));
  if (rel_vprot)
    se.vprot = as_u64(
        div64_long(mul_s64(as_s64(se.vprot), old_weight, Site::rescale_entity_vprot_x_weight, obs), new_weight));
}

void reweight_entity(CfsRq& cfs_rq, SchedEntity& se, u64 weight) {
  Observer& obs = cfs_rq.rq->obs();
  const bool curr = cfs_rq.curr == &se;
  bool rel_vprot = false;
  u64 avruntime = 0;

  if (se.on_rq) update_curr(cfs_rq);
  obs.on_reweight_begin(cfs_rq, se, weight);
  if (se.on_rq) {
    avruntime = avg_vruntime(cfs_rq);
    se.vlag = entity_lag(cfs_rq, se, avruntime);
    se.deadline -= avruntime;
    se.rel_deadline = true;
    if (curr && protect_slice(se)) {
      se.vprot -= avruntime;
      rel_vprot = true;
    }
    cfs_rq.nr_queued--;
    if (!curr) dequeue_entity_rb(cfs_rq, se);
    cfs_rq.load.weight -= se.load.weight;
    cfs_rq.load.inv_weight = 0;
  }

  rescale_entity(se, weight, rel_vprot, obs);
  se.load.weight = weight;  // update_load_set()
  se.load.inv_weight = 0;

  if (se.on_rq) {
    if (rel_vprot) se.vprot += avruntime;
    se.deadline += avruntime;
    se.rel_deadline = false;
    se.vruntime = avruntime - as_u64(se.vlag);
    cfs_rq.load.weight += se.load.weight;
    cfs_rq.load.inv_weight = 0;
    if (!curr) enqueue_entity_rb(cfs_rq, se);
    cfs_rq.nr_queued++;
  }
  obs.on_reweight_end(cfs_rq, se);
}

}  // namespace eevdf
