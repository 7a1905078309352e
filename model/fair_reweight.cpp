// Reweighting a queued or sleeping entity (fair.c, the mainline profile:
// 101f3498b4bd revert of the re-placement, ff38424030f9 vprot): V stays put,
// lag and relative deadline scale by old/new weight. The v6.14-v7.0 form
// (6d71a9c61604) is reweight_entity_replace().
#include "model/fair.hpp"

namespace eevdf {

namespace {
// div64_long() in v7.1; div_s64() with its s32 divisor before.
s64 rescale_div(const Profile& p, s64 x, s64 w) {
  return p.behaviour.reweight == ReweightRule::rescale_around_v ? div64_long(x, w) : div_s64(x, w);
}
}  // namespace

void rescale_entity(const Profile& profile, SchedEntity& se, u64 weight, u64* rel_vprot, Observer& obs) {
  // v7.3-rc1 flat runqueue: a task is rescaled by its old h_load
  const s64 old_weight = as_s64(profile.behaviour.flat_runqueue && entity_is_task(se) ? se.h_load.weight : se.load.weight);
  const s64 new_weight = as_s64(weight);
  se.set_vlag(rescale_div(profile, mul_s64(se.vlag, old_weight, Site::rescale_entity_vlag_x_weight, obs), new_weight));
  if (se.rel_deadline) {
    const u64 old_relative = se.deadline;
    se.deadline = as_u64(rescale_div(
        profile, mul_s64(as_s64(se.deadline), old_weight, Site::rescale_entity_deadline_x_weight, obs), new_weight));
    obs.on_relative_deadline_rescaled(se, old_relative, as_u64(old_weight), as_u64(new_weight));
  }
  if (rel_vprot)
    *rel_vprot = as_u64(rescale_div(
        profile, mul_s64(as_s64(*rel_vprot), old_weight, Site::rescale_entity_vprot_x_weight, obs), new_weight));
}

namespace {

// The queue's side of a reweight: nr_queued, the tree and the load, before
// and after the entity's weight changes.
void reweight_detach(CfsRq& cfs_rq, SchedEntity& se, bool curr) {
  cfs_rq.nr_queued--;
  if (!curr) dequeue_entity_rb(cfs_rq, se);
  cfs_rq.load.weight -= se.load.weight;
  cfs_rq.load.inv_weight = 0;
}

void reweight_attach(CfsRq& cfs_rq, SchedEntity& se, bool curr) {
  cfs_rq.load.weight += se.load.weight;
  cfs_rq.load.inv_weight = 0;
  if (!curr) enqueue_entity_rb(cfs_rq, se);
  cfs_rq.nr_queued++;
  update_min_vruntime(cfs_rq);  // with the min_vruntime key base only (v6.18, B06)
}

// reweight_entity() of v6.14-v7.0 (6d71a9c61604 + c70fc32f4443 + ff38424030f9):
// lag and deadline relative to v, rescaled, then the entity is placed again.
void reweight_entity_replace(CfsRq& cfs_rq, SchedEntity& se, u64 weight) {
  Observer& obs = cfs_rq.rq->obs();
  const Profile& profile = cfs_rq.rq->profile();
  const bool curr = cfs_rq.curr == &se;
  bool rel_vprot = false;
  u64 vprot = 0;

  if (se.on_rq) update_curr(cfs_rq);
  obs.on_reweight_begin(cfs_rq, se, weight);
  if (se.on_rq) {
    update_entity_lag(cfs_rq, se);
    se.deadline -= se.vruntime;
    se.rel_deadline = true;
    if (curr && protect_slice(se) && cfs_rq.rq->profile().behaviour.reweight_keeps_vprot) {  // ff38424030f9
      vprot = se.vprot - se.vruntime;
      rel_vprot = true;
    }
    reweight_detach(cfs_rq, se, curr);
  }
  dequeue_load_avg(cfs_rq, se);
  rescale_entity(profile, se, weight, rel_vprot ? &vprot : nullptr, obs);
  se.load.weight = weight;  // update_load_set()
  se.load.inv_weight = 0;
  reweight_load_avg(se);
  enqueue_load_avg(cfs_rq, se);
  if (se.on_rq) {
    place_entity(cfs_rq, se, 0);
    if (rel_vprot) se.set_vprot(se.vruntime + vprot);
    reweight_attach(cfs_rq, se, curr);
  }
  obs.on_reweight_end(cfs_rq, se);
}

}  // namespace

void reweight_entity(CfsRq& cfs_rq, SchedEntity& se, u64 weight) {
  if (flat_runqueue(cfs_rq)) return reweight_entity_flat(cfs_rq, se, weight);  // v7.3-rc: load only
  switch (cfs_rq.rq->profile().behaviour.reweight) {
    case ReweightRule::replace_after_rescale: return reweight_entity_replace(cfs_rq, se, weight);
    case ReweightRule::eevdf_clamped_lag:
    case ReweightRule::eevdf_raw_lag: return reweight_entity_eevdf(cfs_rq, se, weight);
    case ReweightRule::keep_vruntime: return reweight_entity_keep_vruntime(cfs_rq, se, weight);
    case ReweightRule::eevdf_v6_7: return reweight_entity_eevdf_v6_7(cfs_rq, se, weight);
    case ReweightRule::rescale_around_v: break;
  }
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
    reweight_detach(cfs_rq, se, curr);
  }
  dequeue_load_avg(cfs_rq, se);

  if (rel_vprot) {
    u64 vprot = se.vprot;
    rescale_entity(cfs_rq.rq->profile(), se, weight, &vprot, obs);
    se.vprot = vprot;
  } else {
    rescale_entity(cfs_rq.rq->profile(), se, weight, nullptr, obs);
  }
  se.load.weight = weight;  // update_load_set()
  se.load.inv_weight = 0;
  reweight_load_avg(se);
  enqueue_load_avg(cfs_rq, se);

  if (se.on_rq) {
    if (rel_vprot) se.vprot += avruntime;
    se.deadline += avruntime;
    se.rel_deadline = false;
    se.vruntime = avruntime - as_u64(se.vlag);
    reweight_attach(cfs_rq, se, curr);
  }
  obs.on_reweight_end(cfs_rq, se);
}

}  // namespace eevdf
