// The weighted average V, eligibility and lag (fair.c, the mainline profile:
// 4823725d9d1d sum_shift, b3d99f43c72b/1319ea57529e zero_vruntime,
// 6e3c0a4e1ad1 max_slice lag clamp, b6eee96843e8 int128 eligibility).
#include "model/fair.hpp"

#include <algorithm>

namespace eevdf {

namespace {
Observer& obs_of(const CfsRq& cfs_rq) { return cfs_rq.rq->obs(); }
const Profile& profile_of(const CfsRq& cfs_rq) { return cfs_rq.rq->profile(); }
}  // namespace

u64 calc_delta_fair(u64 delta, SchedEntity& se, const CfsRq& cfs_rq) {
  return eevdf::calc_delta_fair(delta, eevdf_load_checked(cfs_rq, se), profile_of(cfs_rq).behaviour.calc_delta, obs_of(cfs_rq));
}

// avg_vruntime_weight(): full weight, or max(2, w >> sum_shift) once PARANOID_AVG
// shifted; scale_load_down(w) before 4823725d9d1d.
u64 avg_vruntime_weight(const CfsRq& cfs_rq, u64 w) {
  if (!profile_of(cfs_rq).behaviour.avg_full_weight) return scale_load_down(w);
  if (cfs_rq.sum_shift) {
    w >>= cfs_rq.sum_shift;
    if (w < 2) w = 2;
  }
  return w;
}

s64 entity_key(const CfsRq& cfs_rq, const SchedEntity& se) {
  return vruntime_diff(se.vruntime, cfs_rq.zero_vruntime);
}

namespace {

// __sum_w_vruntime_add()
void sum_w_vruntime_add_raw(CfsRq& cfs_rq, SchedEntity& se) {
  Observer& obs = obs_of(cfs_rq);
  const u64 weight = avg_vruntime_weight(cfs_rq, eevdf_weight_checked(cfs_rq, se, obs_of(cfs_rq)));
  const s64 key = entity_key(cfs_rq, se);
  const s64 w_vruntime = mul_s64(key, as_s64(weight), Site::sum_w_vruntime_add_key_x_weight, obs);
  if ((w_vruntime >> 63) != (w_vruntime >> 62)) cfs_rq.rq->warn(Warn::sum_w_vruntime_add_product_over_62_bits, &se);
  cfs_rq.sum_w_vruntime = add_s64(cfs_rq.sum_w_vruntime, w_vruntime, Site::sum_w_vruntime_add_accumulate, obs);
  cfs_rq.sum_weight += weight;
}

// sum_w_vruntime_add_paranoid(): overflow-checked, halves the weights
// (sum_shift++) and rebuilds both sums from the tree on overflow.
void sum_w_vruntime_add_paranoid(CfsRq& cfs_rq, SchedEntity& se) {
  while (true) {
    const u64 weight = avg_vruntime_weight(cfs_rq, eevdf_weight_checked(cfs_rq, se, obs_of(cfs_rq)));
    const s64 key = entity_key(cfs_rq, se);
    s64 product = 0;
    s64 sum = 0;
    const bool mul_overflow = __builtin_mul_overflow(key, as_s64(weight), &product);
    if (!mul_overflow && !__builtin_add_overflow(cfs_rq.sum_w_vruntime, product, &sum)) {
      cfs_rq.sum_w_vruntime = sum;
      cfs_rq.sum_weight += weight;
      return;
    }
    if (cfs_rq.sum_shift >= 10) {
      // BUG_ON(): the kernel stops here. The model reports it and adds the
      // wrapped value so that it can keep going like an unchecked kernel.
      cfs_rq.rq->warn(Warn::paranoid_avg_sum_shift_limit, &se);
      sum_w_vruntime_add_raw(cfs_rq, se);
      return;
    }
    cfs_rq.sum_shift++;
    cfs_rq.sum_w_vruntime = 0;
    cfs_rq.sum_weight = 0;
    for (SchedEntity* n = cfs_rq.tasks_timeline.leftmost(); n; n = RbTree<SchedEntity>::next(n))
      sum_w_vruntime_add_raw(cfs_rq, *n);
  }
}

}  // namespace

void sum_w_vruntime_add(CfsRq& cfs_rq, SchedEntity& se) {
  if (profile_of(cfs_rq).feat(Feature::PARANOID_AVG))
    sum_w_vruntime_add_paranoid(cfs_rq, se);
  else
    sum_w_vruntime_add_raw(cfs_rq, se);
}

void sum_w_vruntime_sub(CfsRq& cfs_rq, SchedEntity& se) {
  Observer& obs = obs_of(cfs_rq);
  const u64 weight = avg_vruntime_weight(cfs_rq, eevdf_weight_checked(cfs_rq, se, obs_of(cfs_rq)));
  const s64 key = entity_key(cfs_rq, se);
  const s64 product = mul_s64(key, as_s64(weight), Site::sum_w_vruntime_sub_key_x_weight, obs);
  cfs_rq.sum_w_vruntime = sub_s64(cfs_rq.sum_w_vruntime, product, Site::sum_w_vruntime_sub_accumulate, obs);
  cfs_rq.sum_weight -= weight;
}

// v' = v + d  =>  sum_w_vruntime' = sum_w_vruntime - d * sum_weight
void update_zero_vruntime(CfsRq& cfs_rq, s64 delta) {
  Observer& obs = obs_of(cfs_rq);
  const s64 product = mul_s64(as_s64(cfs_rq.sum_weight), delta, Site::update_zero_vruntime_weight_x_delta, obs);
  cfs_rq.sum_w_vruntime = sub_s64(cfs_rq.sum_w_vruntime, product, Site::update_zero_vruntime_accumulate, obs);
  cfs_rq.zero_vruntime += as_u64(delta);
}

// The offset of V from zero_vruntime (min_vruntime before v6.19):
// floor(Σ key·w / Σ w) with curr. Reads only.
s64 avg_vruntime_offset(const CfsRq& cfs_rq, Observer& obs) {
  const SchedEntity* curr = cfs_rq.curr;
  const Behaviour& b = profile_of(cfs_rq).behaviour;
  s64 weight = as_s64(cfs_rq.sum_weight);
  if (curr && !curr->on_rq) curr = nullptr;
  // b3d99f43c72b: a lone curr is its own average, without the multiplication
  const bool exact_single = b.key_base == KeyBase::zero_at_avg_tick || b.key_base == KeyBase::zero_at_avg_deadline;
  if (exact_single && !weight) return curr ? as_s64(curr->vruntime - cfs_rq.zero_vruntime) : 0;
  s64 runtime = cfs_rq.sum_w_vruntime;
  if (curr) {
    const u64 w = avg_vruntime_weight(cfs_rq, eevdf_weight_checked(cfs_rq, *curr, obs));
    const s64 term = mul_s64(entity_key(cfs_rq, *curr), as_s64(w), Site::avg_vruntime_curr_key_x_weight, obs);
    runtime = add_s64(runtime, term, Site::avg_vruntime_accumulate, obs);
    weight = as_s64(as_u64(weight) + w);
  }
  if (!weight) return 0;
  // the sign flips truncation into a floor (650cad561cce)
  if (runtime < 0 && b.avg_floor) runtime = sub_s64(runtime, weight - 1, Site::avg_vruntime_floor_adjust, obs);
  return b.avg_full_weight ? div64_long(runtime, weight) : div_s64(runtime, weight);
}

// avg_vruntime(): V = v0 + floor(Σ key·w / Σ w) with curr; since b3d99f43c72b
// it also re-bases: zero_vruntime := V.
u64 avg_vruntime(CfsRq& cfs_rq) {
  const s64 offset = avg_vruntime_offset(cfs_rq, obs_of(cfs_rq));
  u64 v = 0;
  switch (profile_of(cfs_rq).behaviour.key_base) {
    case KeyBase::min_vruntime:
    case KeyBase::zero_at_rb_ops: v = cfs_rq.zero_vruntime + as_u64(offset); break;
    case KeyBase::zero_at_avg_tick:
    case KeyBase::zero_at_avg_deadline:
      update_zero_vruntime(cfs_rq, offset);
      v = cfs_rq.zero_vruntime;
      break;
  }
  obs_of(cfs_rq).on_avg_vruntime(cfs_rq, v);
  return v;
}

// update_min_vruntime() (v6.6-v6.18): the key base follows the smallest of
// curr's vruntime and the tree's min_vruntime (v6.6: the leftmost's vruntime),
// but only forward.
void update_min_vruntime(CfsRq& cfs_rq) {
  if (profile_of(cfs_rq).behaviour.key_base != KeyBase::min_vruntime) return;
  const SchedEntity* curr = cfs_rq.curr;
  const SchedEntity* root = cfs_rq.tasks_timeline.root();
  u64 vruntime = cfs_rq.zero_vruntime;
  if (curr && !curr->on_rq) curr = nullptr;
  if (curr) vruntime = curr->vruntime;
  // v6.6: the tree is by vruntime, the leftmost entity is the smallest
  const bool by_vruntime = tree_by_vruntime(profile_of(cfs_rq));
  const SchedEntity* first = by_vruntime ? cfs_rq.tasks_timeline.leftmost() : root;
  if (first) {
    const u64 first_vruntime = by_vruntime ? first->vruntime : first->min_vruntime;
    vruntime = curr ? min_vruntime(vruntime, first_vruntime) : first_vruntime;
  }
  const s64 delta = vruntime_diff(vruntime, cfs_rq.zero_vruntime);
  if (delta > 0) update_zero_vruntime(cfs_rq, delta);  // avg_vruntime_update() + the store
}

// v6.19 (79f3f9bedd14): __enqueue/__dequeue_entity() set zero_vruntime := V.
void update_zero_vruntime_at_rb_op(CfsRq& cfs_rq) {
  if (profile_of(cfs_rq).behaviour.key_base != KeyBase::zero_at_rb_ops) return;
  update_zero_vruntime(cfs_rq, avg_vruntime_offset(cfs_rq, obs_of(cfs_rq)));
}

// The queue part of vruntime_eligible(): Σ key·w and Σ w with an on_rq curr.
EligibilityBase eligibility_base(const CfsRq& cfs_rq, Observer& obs) {
  const SchedEntity* curr = cfs_rq.curr;
  EligibilityBase b{cfs_rq.sum_w_vruntime, as_s64(cfs_rq.sum_weight)};
  if (curr && curr->on_rq) {
    const u64 weight = avg_vruntime_weight(cfs_rq, eevdf_weight_checked(cfs_rq, *curr, obs));
    const s64 term = mul_s64(entity_key(cfs_rq, *curr), as_s64(weight), Site::vruntime_eligible_curr_key_x_weight, obs);
    b.avg = add_s64(b.avg, term, Site::vruntime_eligible_accumulate, obs);
    b.load = as_s64(as_u64(b.load) + weight);
  }
  return b;
}

// The entity part: (Σ key·w) >= (v - v0)·(Σ w), no division.
bool vruntime_eligible(const CfsRq& cfs_rq, const EligibilityBase& b, u64 vruntime, Observer& obs) {
  const s64 key = vruntime_diff(vruntime, cfs_rq.zero_vruntime);
  if (profile_of(cfs_rq).behaviour.eligible_int128) return static_cast<i128>(b.avg) >= static_cast<i128>(key) * b.load;
  return b.avg >= mul_s64(key, b.load, Site::vruntime_eligible_key_x_load, obs);
}

// vruntime_eligible(): reads only.
bool vruntime_eligible(const CfsRq& cfs_rq, u64 vruntime, Observer& obs) {
  return vruntime_eligible(cfs_rq, eligibility_base(cfs_rq, obs), vruntime, obs);
}

bool vruntime_eligible(CfsRq& cfs_rq, u64 vruntime) { return vruntime_eligible(cfs_rq, vruntime, obs_of(cfs_rq)); }

bool entity_eligible(CfsRq& cfs_rq, const SchedEntity& se) { return vruntime_eligible(cfs_rq, se.vruntime); }

// entity_lag(): V - v clamped to ±calc_delta_fair(max_slice + TICK_NSEC), or
// before 6e3c0a4e1ad1 to ±calc_delta_fair(max(2 * slice, TICK_NSEC)).
s64 entity_lag(CfsRq& cfs_rq, SchedEntity& se, u64 avruntime) {
  const u64 tick = profile_of(cfs_rq).tick_nsec();
  const u64 max_slice = profile_of(cfs_rq).behaviour.lag_limit_max_slice ? cfs_rq_max_slice(cfs_rq) + tick
                                                                        : std::max(2 * se.slice, tick);
  const s64 vlag = as_s64(avruntime - se.vruntime);
  const s64 limit = as_s64(calc_delta_fair(max_slice, se, cfs_rq));
  // clamp(vlag, -limit, limit) as the kernel's macro evaluates it
  const s64 neg_limit = as_s64(u64{0} - as_u64(limit));
  s64 r = vlag < neg_limit ? neg_limit : vlag;
  return r > limit ? limit : r;
}

// update_entity_lag(): saves the clamped lag; a delayed entity's debt may not
// grow, and with DELAY_ZERO it may not become positive. True if vlag differs
// from V - v (the lag was clamped).
bool update_entity_lag(CfsRq& cfs_rq, SchedEntity& se) {
  obs_of(cfs_rq).on_read_avg(cfs_rq, "update_entity_lag");
  const u64 avruntime = avg_vruntime(cfs_rq);
  s64 vlag = entity_lag(cfs_rq, se, avruntime);
  obs_of(cfs_rq).on_lag_clamp(cfs_rq, se, as_s64(avruntime - se.vruntime), vlag);
  if (!se.on_rq) cfs_rq.rq->warn(Warn::update_entity_lag_not_on_rq, &se);
  if (se.sched_delayed && profile_of(cfs_rq).behaviour.lag_delayed_clamps) {
    if (se.vlag > vlag) vlag = se.vlag;
    if (profile_of(cfs_rq).feat(Feature::DELAY_ZERO) && vlag > 0) vlag = 0;
  }
  se.set_vlag(vlag);
  return avruntime - as_u64(vlag) != se.vruntime;
}

u64 cfs_rq_min_slice(const CfsRq& cfs_rq) {
  const SchedEntity* root = cfs_rq.tasks_timeline.root();
  const SchedEntity* curr = cfs_rq.curr;
  u64 min_slice = ~u64{0};
  if (curr && curr->on_rq) min_slice = curr->slice;
  if (root && root->min_slice < min_slice) min_slice = root->min_slice;
  return min_slice;
}

u64 cfs_rq_max_slice(const CfsRq& cfs_rq) {
  const SchedEntity* root = cfs_rq.tasks_timeline.root();
  const SchedEntity* curr = cfs_rq.curr;
  u64 max_slice = 0;
  if (curr && curr->on_rq) max_slice = curr->slice;
  if (root && root->max_slice > max_slice) max_slice = root->max_slice;
  return max_slice;
}

// min_vruntime_update(): recompute the three augments from the children
// (right then left); true iff none changed.
bool min_vruntime_update(SchedEntity* se, bool with_max_slice) {
  const u64 old_min_vruntime = se->min_vruntime;
  const u64 old_min_slice = se->min_slice;
  const u64 old_max_slice = se->max_slice;
  se->min_vruntime = se->vruntime;
  se->min_slice = se->slice;
  if (with_max_slice) se->max_slice = se->slice;
  for (const SchedEntity* child : {se->rb_right, se->rb_left}) {
    if (!child) continue;
    if (vruntime_diff(se->min_vruntime, child->min_vruntime) > 0) se->min_vruntime = child->min_vruntime;
    if (child->min_slice < se->min_slice) se->min_slice = child->min_slice;
    if (with_max_slice && child->max_slice > se->max_slice) se->max_slice = child->max_slice;
  }
  // before 6e3c0a4e1ad1 (v7.0) there is no max_slice: the walk up stops on min_vruntime and min_slice alone
  return se->min_vruntime == old_min_vruntime && se->min_slice == old_min_slice &&
         (!with_max_slice || se->max_slice == old_max_slice);
}

bool MinVruntimeCallbacks::compute(SchedEntity* se) const { return min_vruntime_update(se, max_slice); }

namespace {
bool entity_less(const SchedEntity* a, const SchedEntity* b) { return vruntime_before(a->deadline, b->deadline); }
}  // namespace

// __enqueue_entity()
void enqueue_entity_rb(CfsRq& cfs_rq, SchedEntity& se) {
  if (tree_by_vruntime(profile_of(cfs_rq))) return enqueue_entity_rb_v6_6(cfs_rq, se);
  sum_w_vruntime_add(cfs_rq, se);
  se.min_vruntime = se.vruntime;
  se.min_slice = se.slice;
  if (profile_of(cfs_rq).behaviour.enqueue_inits_max_slice) se.max_slice = se.slice;
  cfs_rq.tasks_timeline.add(&se, entity_less, augment_callbacks(cfs_rq));
  update_zero_vruntime_at_rb_op(cfs_rq);
}

void min_vruntime_cb_propagate(CfsRq& cfs_rq, SchedEntity& se) {
  RbTree<SchedEntity>::propagate(&se, nullptr, augment_callbacks(cfs_rq));
}

// __dequeue_entity()
void dequeue_entity_rb(CfsRq& cfs_rq, SchedEntity& se) {
  if (tree_by_vruntime(profile_of(cfs_rq))) return dequeue_entity_rb_v6_6(cfs_rq, se);
  cfs_rq.tasks_timeline.erase(&se, augment_callbacks(cfs_rq));
  sum_w_vruntime_sub(cfs_rq, se);
  update_zero_vruntime_at_rb_op(cfs_rq);
}

}  // namespace eevdf
