// reweight_entity() of v6.6.0 and of v6.9-v6.13 (reweight_eevdf()). Both keep
// the entity in place of a re-placement: v6.12 moves v and d around V, v6.6.0
// rescales only d - v and lets V jump (fixed by eab03c23c2a1).
#include "model/fair.hpp"

namespace eevdf {

namespace {

// v6.6-v6.13: x * old_weight / new_weight as the kernel writes it: s64 times unsigned
// long (wraps), then div_s64() with its s32 divisor.
s64 scale_by_weight(s64 x, u64 old_weight, u64 weight, Site site, Observer& obs) {
  return div_s64(mul_s64(x, as_s64(old_weight), site, obs), as_s64(weight));
}

void account_load_sub(CfsRq& cfs_rq, const SchedEntity& se) {  // update_load_sub()
  cfs_rq.load.weight -= se.load.weight;
  cfs_rq.load.inv_weight = 0;
}

void account_load_add(CfsRq& cfs_rq, const SchedEntity& se) {  // update_load_add()
  cfs_rq.load.weight += se.load.weight;
  cfs_rq.load.inv_weight = 0;
}

void set_weight(SchedEntity& se, u64 weight) {  // update_load_set()
  se.load.weight = weight;
  se.load.inv_weight = 0;
}

// reweight_eevdf() (v6.9-v6.13, 1560d1f6eb6b): lag and deadline relative to
// V (sampled with se still counted), both times old/new weight. Without
// 1560d1f6eb6b (B08) the lag is the raw V - v.
void reweight_eevdf(CfsRq& cfs_rq, SchedEntity& se, u64 avruntime, u64 weight) {
  Observer& obs = cfs_rq.rq->obs();
  const u64 old_weight = se.load.weight;
  if (avruntime != se.vruntime) {
    s64 vlag = cfs_rq.rq->profile().behaviour.reweight == ReweightRule::eevdf_raw_lag
                   ? as_s64(avruntime - se.vruntime)
                   : entity_lag(cfs_rq, se, avruntime);
    vlag = scale_by_weight(vlag, old_weight, weight, Site::rescale_entity_vlag_x_weight, obs);
    se.vruntime = avruntime - as_u64(vlag);
  }
  const s64 vslice = scale_by_weight(as_s64(se.deadline - avruntime), old_weight, weight,
                                     Site::rescale_entity_deadline_x_weight, obs);
  se.deadline = avruntime + as_u64(vslice);
}

// v6.12 reweight_entity(), off the queue: vlag only (a relative deadline stays, unlike 6d71a9c61604)
void rescale_sleeping_vlag(CfsRq& cfs_rq, SchedEntity& se, u64 weight) {
  se.set_vlag(scale_by_weight(se.vlag, se.load.weight, weight, Site::rescale_entity_vlag_x_weight, cfs_rq.rq->obs()));
}

}  // namespace

// reweight_entity() of v6.9-v6.13: update_curr() always, V before the
// dequeue (11b1b8bc2b98, afae8002b4fd), update_min_vruntime() at the end
// (5068d84054b7). An off-queue entity rescales vlag only, not a relative deadline.
void reweight_entity_eevdf(CfsRq& cfs_rq, SchedEntity& se, u64 weight) {
  Observer& obs = cfs_rq.rq->obs();
  const bool curr = cfs_rq.curr == &se;
  u64 avruntime = 0;
  if (se.on_rq) update_curr(cfs_rq);
  obs.on_reweight_begin(cfs_rq, se, weight);
  if (se.on_rq) {
    avruntime = avg_vruntime(cfs_rq);
    if (!curr) dequeue_entity_rb(cfs_rq, se);
    account_load_sub(cfs_rq, se);
  }
  dequeue_load_avg(cfs_rq, se);
  if (se.on_rq)
    reweight_eevdf(cfs_rq, se, avruntime, weight);
  else
    rescale_sleeping_vlag(cfs_rq, se, weight);
  set_weight(se, weight);
  reweight_load_avg(se);
  enqueue_load_avg(cfs_rq, se);
  if (se.on_rq) {
    account_load_add(cfs_rq, se);
    if (!curr) enqueue_entity_rb(cfs_rq, se);
    update_min_vruntime(cfs_rq);
  }
  obs.on_reweight_end(cfs_rq, se);
}

// reweight_entity() as eab03c23c2a1 first had it (v6.7; backported to 6.6.y,
// read in 6.6.9's fair.c): a queued entity that is not curr leaves the tree
// (and so the sums) first, and reweight_eevdf() then samples V without it;
// the lag rescaled is the raw V - v; update_curr() runs for curr only, and
// update_min_vruntime() only after a non-curr entity went back into the tree.
// Later fixes sample V with the entity still counted (11b1b8bc2b98,
// afae8002b4fd) and clamp the lag (1560d1f6eb6b): reweight_entity_eevdf().
void reweight_entity_eevdf_v6_7(CfsRq& cfs_rq, SchedEntity& se, u64 weight) {
  Observer& obs = cfs_rq.rq->obs();
  const bool curr = cfs_rq.curr == &se;
  if (se.on_rq && curr) update_curr(cfs_rq);
  obs.on_reweight_begin(cfs_rq, se, weight);
  if (se.on_rq) {
    if (!curr) dequeue_entity_rb(cfs_rq, se);
    account_load_sub(cfs_rq, se);
  }
  dequeue_load_avg(cfs_rq, se);
  if (!se.on_rq) {
    rescale_sleeping_vlag(cfs_rq, se, weight);
  } else {
    const u64 avruntime = avg_vruntime(cfs_rq);  // without se, unless se is curr
    const u64 old_weight = se.load.weight;
    if (avruntime != se.vruntime) {
      const s64 vlag = scale_by_weight(as_s64(avruntime - se.vruntime), old_weight, weight,
                                       Site::rescale_entity_vlag_x_weight, obs);
      se.vruntime = avruntime - as_u64(vlag);
    }
    const s64 vslice = scale_by_weight(as_s64(se.deadline - avruntime), old_weight, weight,
                                       Site::rescale_entity_deadline_x_weight, obs);
    se.deadline = avruntime + as_u64(vslice);
  }
  set_weight(se, weight);
  reweight_load_avg(se);
  enqueue_load_avg(cfs_rq, se);
  if (se.on_rq) {
    account_load_add(cfs_rq, se);
    if (!curr) {
      enqueue_entity_rb(cfs_rq, se);
      update_min_vruntime(cfs_rq);
    }
  }
  obs.on_reweight_end(cfs_rq, se);
}

// reweight_entity() of v6.6.0 (before eab03c23c2a1): a queued entity stays in
// the tree; only its share of the average is taken out and put back with the
// new weight. v is kept and d - v rescaled, so V jumps; no update_min_vruntime().
void reweight_entity_keep_vruntime(CfsRq& cfs_rq, SchedEntity& se, u64 weight) {
  Observer& obs = cfs_rq.rq->obs();
  const bool curr = cfs_rq.curr == &se;
  const u64 old_weight = se.load.weight;
  if (se.on_rq && curr) update_curr(cfs_rq);
  obs.on_reweight_begin(cfs_rq, se, weight);
  if (se.on_rq) {
    if (!curr) sum_w_vruntime_sub(cfs_rq, se);  // avg_vruntime_sub()
    account_load_sub(cfs_rq, se);
  }
  dequeue_load_avg(cfs_rq, se);
  set_weight(se, weight);
  reweight_load_avg(se);
  enqueue_load_avg(cfs_rq, se);
  if (!se.on_rq) {
    se.set_vlag(scale_by_weight(se.vlag, old_weight, weight, Site::rescale_entity_vlag_x_weight, obs));
  } else {
    const s64 rel = scale_by_weight(as_s64(se.deadline - se.vruntime), old_weight, weight,
                                    Site::rescale_entity_deadline_x_weight, obs);
    se.deadline = se.vruntime + as_u64(rel);
    if (!curr) min_deadline_cb_propagate(se);
  }
  if (se.on_rq) {
    account_load_add(cfs_rq, se);
    if (!curr) sum_w_vruntime_add(cfs_rq, se);  // avg_vruntime_add()
  }
  obs.on_reweight_end(cfs_rq, se);
}

}  // namespace eevdf
