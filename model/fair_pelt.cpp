// PELT in the fair class (fair.c, 6.12.118 to 7.0.0): where a task's and its
// queue's averages are updated, attached, detached and removed, and the loads
// the wake-up choice reads (cpu_load(), task_h_load()). The arithmetic itself
// is model/pelt.*.
//
// With task groups: a group entity's averages, their propagation up the
// hierarchy (propagate_entity_load_avg(), update_tg_cfs_*()), tg->load_avg
// (update_tg_load_avg()), a group's attach at its creation and a task's
// detach/attach at a move between groups, and the hierarchical h_load of
// task_h_load(). On the v7.3 flat runqueue the same functions run from the
// flat paths (model/fair_flat.cpp); what is "running" there is each level's
// h_curr (the v3 patch's pelt.c), and tg->runnable_avg is kept too
// (Behaviour::tg_runnable_avg). The PELT clock is clock_task, from a base of
// about a second (model/pelt.hpp, kPeltClockBase); sched_clock_cpu(), which
// rate-limits tg->load_avg, is the scenario's clock from the same base.
// update_blocked_averages() (load balancing), util_est, NO_HZ's
// migrate_se_pelt_lag(), the leaf cfs_rq list and bandwidth are not modelled.
#include <array>
#include <type_traits>

#include "model/fair.hpp"
#include "model/rq.hpp"

namespace eevdf {

namespace {

u64 se_weight(const SchedEntity& se) { return scale_load_down(se.load.weight); }

// The runnable count __update_load_avg_cfs_rq() and se_update_runnable() read:
// h_nr_runnable (h_nr_running - h_nr_delayed in 6.12.y), or on v6.12.0, which
// keeps no delayed count, h_nr_running with the delayed tasks in it.
u64 pelt_runnable_count(const CfsRq& cfs_rq) {
  if (cfs_rq.rq->profile().behaviour.delayed_count == DelayedCount::none) return cfs_rq.h_nr_queued;
  return cfs_rq.h_nr_runnable;
}

// se_runnable(): a delayed entity is not runnable; a queued task is; a group
// entity counts its queue's runnable tasks as se_update_runnable() last saw them
u64 se_runnable(const SchedEntity& se) {
  if (se.sched_delayed) return 0;
  if (entity_is_task(se)) return se.on_rq ? 1 : 0;
  return se.runnable_weight;
}

// sub_positive(): subtract, 0 on underflow (up to v6.18)
template <class T>
void sub_positive(T& var, T val) {
  const T res = var - val;
  var = res > var ? 0 : res;
}

// add_positive() of v7.0: the delta in the signed type of the target, 0 on underflow
template <class T>
void add_positive(T& var, std::make_signed_t<T> val) {
  const T res = var + static_cast<T>(val);
  var = (val < 0 && res > var) ? 0 : res;
}

// max_t(u32, sum, avg * PELT_MIN_DIVIDER), stored back: both truncated to 32 bits
template <class T>
void clamp_sum_u32(T& sum, u64 avg) {
  const u32 a = static_cast<u32>(sum), b = static_cast<u32>(avg * kPeltMinDivider);
  sum = a > b ? a : b;
}

// __update_sa() of v7.0: add both deltas (in the signed type of each field),
// then keep the sum at least avg * PELT_MIN_DIVIDER in its own width
template <class S>
void update_sa(u64& avg, S& sum, u64 delta_avg, u64 delta_sum) {
  add_positive(avg, as_s64(delta_avg));
  add_positive(sum, static_cast<std::make_signed_t<S>>(static_cast<S>(delta_sum)));
  const S floor = static_cast<S>(avg * kPeltMinDivider);
  if (floor > sum) sum = floor;
}

bool clamp_u32(const CfsRq& cfs_rq) { return cfs_rq.rq->profile().behaviour.pelt_clamp_u32; }

// add_positive() up to v6.18: the delta in its own (64-bit signed) type
template <class T>
void add_positive_s64(T& var, s64 val) {
  const T res = static_cast<T>(var + static_cast<T>(val));
  var = (val < 0 && res > var) ? 0 : res;
}

// Add DELTA_AVG and DELTA_SUM to one of the queue's average/sum pairs, as the
// propagation does: add_positive() on each, then the max_t(u32, ...) floor (up
// to v6.18), or __update_sa() (v7.0).
template <class S>
void add_sa(const CfsRq& cfs_rq, u64& avg, S& sum, s64 delta_avg, s64 delta_sum) {
  if (clamp_u32(cfs_rq)) {
    add_positive_s64(avg, delta_avg);
    add_positive_s64(sum, delta_sum);
    clamp_sum_u32(sum, avg);
  } else {
    update_sa(avg, sum, as_u64(delta_avg), as_u64(delta_sum));
  }
}

// Take AVG_PART and SUM_PART out of one of the queue's average/sum pairs, as
// the version does: sub_positive() on each, then the max_t(u32, ...) floor (up
// to v6.18), or __update_sa() with the negated parts (v7.0).
template <class S>
void sub_sa(const CfsRq& cfs_rq, u64& avg, S& sum, u64 avg_part, u64 sum_part) {
  if (clamp_u32(cfs_rq)) {
    sub_positive(avg, avg_part);
    sub_positive(sum, static_cast<S>(sum_part));
    clamp_sum_u32(sum, avg);
  } else {
    update_sa(avg, sum, u64{0} - avg_part, u64{0} - sum_part);
  }
}

}  // namespace

namespace {
// The entity of this level on the running task's path, which PELT counts as
// running: cfs_rq->curr, or on the flat runqueue cfs_rq->h_curr (85570f10a4c6
// changed pelt.c to read it; rq->cfs.curr is the running task itself there)
const SchedEntity* pelt_curr(const CfsRq& cfs_rq) { return flat_runqueue(cfs_rq) ? cfs_rq.h_curr : cfs_rq.curr; }
}  // namespace

// sched_clock_cpu(): the scenario's clock, from the PELT clock's base (the
// kernel backend's is the same)
u64 sched_clock_cpu(const Rq& rq) { return rq.clock_task + kPeltClockBase; }

void add_tg_cfs_propagate(CfsRq& cfs_rq, s64 runnable_sum) {
  cfs_rq.propagate = true;
  cfs_rq.prop_runnable_sum = as_s64(as_u64(cfs_rq.prop_runnable_sum) + as_u64(runnable_sum));
}

// update_tg_load_avg(): a group's queue passes the change of its load average
// on to tg->load_avg when it is more than 1/64 of what it last passed on, at
// most once a millisecond (Behaviour::tg_load_avg_ratelimit). With
// Behaviour::tg_runnable_avg (v7.3) the runnable average goes to
// tg->runnable_avg the same way, and a change of either moves both. Every
// CPU is active. The clock, sched_clock_cpu() (v6.7 on) or rq_clock() (v7.3),
// is clock_task from the same base in the model.
void update_tg_load_avg(CfsRq& cfs_rq) {
  if (cfs_rq.group_id < 0) return;  // the root task group's sum is not read
  const Rq& rq = *cfs_rq.rq;
  const Behaviour& b = rq.profile().behaviour;
  const u64 now = sched_clock_cpu(rq);
  if (b.tg_load_avg_ratelimit && now - cfs_rq.last_update_tg_load_avg < kNsecPerMsec) return;
  const auto magnitude = [](s64 d) { return d < 0 ? u64{0} - as_u64(d) : as_u64(d); };
  const s64 dl = as_s64(cfs_rq.avg.load_avg - cfs_rq.tg_load_avg_contrib);
  const s64 dr = as_s64(cfs_rq.avg.runnable_avg - cfs_rq.tg_runnable_avg_contrib);
  const bool load_moved = magnitude(dl) > cfs_rq.tg_load_avg_contrib / 64;
  const bool runnable_moved = b.tg_runnable_avg && magnitude(dr) > cfs_rq.tg_runnable_avg_contrib / 64;
  if (!load_moved && !runnable_moved) return;
  TaskGroup& tg = *cfs_rq.rq->group(cfs_rq.group_id);
  tg.load_avg = as_s64(as_u64(tg.load_avg) + as_u64(dl));
  cfs_rq.tg_load_avg_contrib = cfs_rq.avg.load_avg;
  if (b.tg_runnable_avg) {
    tg.runnable_avg = as_s64(as_u64(tg.runnable_avg) + as_u64(dr));
    cfs_rq.tg_runnable_avg_contrib = cfs_rq.avg.runnable_avg;
  }
  if (b.tg_load_avg_ratelimit) cfs_rq.last_update_tg_load_avg = now;
}

namespace {

// update_tg_cfs_util(): the group entity takes its queue's utilization; the
// parent queue's sums follow.
void update_tg_cfs_util(CfsRq& cfs_rq, SchedEntity& se, const CfsRq& gcfs_rq) {
  const s64 delta_avg = as_s64(gcfs_rq.avg.util_avg - se.avg.util_avg);
  if (!delta_avg) return;
  const u32 divider = get_pelt_divider(cfs_rq.avg);
  se.avg.util_avg = gcfs_rq.avg.util_avg;
  const u32 new_sum = static_cast<u32>(se.avg.util_avg * divider);
  const s64 delta_sum = s64{new_sum} - s64{se.avg.util_sum};
  se.avg.util_sum = new_sum;
  add_sa(cfs_rq, cfs_rq.avg.util_avg, cfs_rq.avg.util_sum, delta_avg, delta_sum);
}

// update_tg_cfs_runnable(): the same for the runnable average (a u32 new sum,
// u64 with Behaviour::tg_cfs_runnable_sum_u64)
void update_tg_cfs_runnable(CfsRq& cfs_rq, SchedEntity& se, const CfsRq& gcfs_rq) {
  const s64 delta_avg = as_s64(gcfs_rq.avg.runnable_avg - se.avg.runnable_avg);
  if (!delta_avg) return;
  const u32 divider = get_pelt_divider(cfs_rq.avg);
  se.avg.runnable_avg = gcfs_rq.avg.runnable_avg;
  const u64 product = se.avg.runnable_avg * divider;
  const u64 new_sum = cfs_rq.rq->profile().behaviour.tg_cfs_runnable_sum_u64 ? product : static_cast<u32>(product);
  const s64 delta_sum = as_s64(new_sum) - as_s64(se.avg.runnable_sum);
  se.avg.runnable_sum = new_sum;
  add_sa(cfs_rq, cfs_rq.avg.runnable_avg, cfs_rq.avg.runnable_sum, delta_avg, delta_sum);
}

// update_tg_cfs_load(): the load sum waiting in the group's queue (attached
// or detached entities, removed load) changes the group entity's unweighted
// runnable sum: added and clipped at the divider, or, when taken away,
// estimated from the queue's load sum per unit of weight; never below its
// running sum; its load average follows with its weight.
void update_tg_cfs_load(CfsRq& cfs_rq, SchedEntity& se, CfsRq& gcfs_rq) {
  s64 runnable_sum = gcfs_rq.prop_runnable_sum;
  if (!runnable_sum) return;
  gcfs_rq.prop_runnable_sum = 0;
  const u32 divider = get_pelt_divider(cfs_rq.avg);
  u64 load_sum = 0;
  if (runnable_sum >= 0) {
    runnable_sum = as_s64(as_u64(runnable_sum) + se.avg.load_sum);
    if (runnable_sum > s64{divider}) runnable_sum = divider;
  } else {
    const u64 weight = scale_load_down(gcfs_rq.load.weight);
    if (weight) load_sum = gcfs_rq.avg.load_sum / static_cast<u32>(weight);  // div_u64(): a u32 divisor
    runnable_sum = as_s64(se.avg.load_sum < load_sum ? se.avg.load_sum : load_sum);
  }
  const s64 running_sum = s64{se.avg.util_sum >> 10};  // >> SCHED_CAPACITY_SHIFT
  if (running_sum > runnable_sum) runnable_sum = running_sum;
  load_sum = se_weight(se) * as_u64(runnable_sum);
  const u64 load_avg = load_sum / divider;
  const s64 delta_avg = as_s64(load_avg - se.avg.load_avg);
  if (!delta_avg) return;
  const s64 delta_sum = as_s64(load_sum - se_weight(se) * se.avg.load_sum);
  se.avg.load_sum = as_u64(runnable_sum);
  se.avg.load_avg = load_avg;
  add_sa(cfs_rq, cfs_rq.avg.load_avg, cfs_rq.avg.load_sum, delta_avg, delta_sum);
}

// propagate_entity_load_avg(): a group entity whose queue has something to
// pass up takes it, and leaves the load part for its own parent
bool propagate_entity_load_avg(SchedEntity& se) {
  if (entity_is_task(se)) return false;
  CfsRq& gcfs_rq = *se.my_q;
  if (!gcfs_rq.propagate) return false;
  gcfs_rq.propagate = false;
  CfsRq& cfs_rq = *se.cfs_rq;
  add_tg_cfs_propagate(cfs_rq, gcfs_rq.prop_runnable_sum);
  update_tg_cfs_util(cfs_rq, se, gcfs_rq);
  update_tg_cfs_runnable(cfs_rq, se, gcfs_rq);
  update_tg_cfs_load(cfs_rq, se, gcfs_rq);
  return true;
}

}  // namespace


void enqueue_load_avg(CfsRq& cfs_rq, const SchedEntity& se) {
  SchedAvg& sa = cfs_rq.avg;
  if (clamp_u32(cfs_rq)) {
    sa.load_avg += se.avg.load_avg;
    sa.load_sum += se_weight(se) * se.avg.load_sum;
  } else {
    update_sa(sa.load_avg, sa.load_sum, se.avg.load_avg, se_weight(se) * se.avg.load_sum);
  }
}

void dequeue_load_avg(CfsRq& cfs_rq, const SchedEntity& se) {
  sub_sa(cfs_rq, cfs_rq.avg.load_avg, cfs_rq.avg.load_sum, se.avg.load_avg, se_weight(se) * se.avg.load_sum);
}

// update_cfs_rq_load_avg(): first take out what tasks that left for another
// CPU had (removed, at the divider before this update), then advance the sums.
bool update_cfs_rq_load_avg(u64 now, CfsRq& cfs_rq) {
  SchedAvg& sa = cfs_rq.avg;
  bool decayed = false;
  if (cfs_rq.removed.nr) {
    const u32 divider = get_pelt_divider(sa);
    const CfsRq::Removed r = cfs_rq.removed;
    cfs_rq.removed = {};
    sub_sa(cfs_rq, sa.load_avg, sa.load_sum, r.load_avg, r.load_avg * divider);
    sub_sa(cfs_rq, sa.util_avg, sa.util_sum, r.util_avg, r.util_avg * divider);
    sub_sa(cfs_rq, sa.runnable_avg, sa.runnable_sum, r.runnable_avg, r.runnable_avg * divider);
    // the unweighted runnable average stands for the removed load sum
    add_tg_cfs_propagate(cfs_rq, -as_s64(r.runnable_avg * divider) >> 10);
    decayed = true;
  }
  decayed |= update_load_avg_cfs_rq(now, sa, scale_load_down(cfs_rq.load.weight), pelt_runnable_count(cfs_rq),
                                    pelt_curr(cfs_rq) != nullptr);
  return decayed;
}

// attach_entity_load_avg(): the entity joins the queue's sums at the queue's
// position in the period; its sums are rebuilt from its averages.
void attach_entity_load_avg(CfsRq& cfs_rq, SchedEntity& se) {
  const u32 divider = get_pelt_divider(cfs_rq.avg);
  SchedAvg& a = se.avg;
  a.last_update_time = cfs_rq.avg.last_update_time;
  a.period_contrib = cfs_rq.avg.period_contrib;
  a.util_sum = static_cast<u32>(a.util_avg * divider);
  a.runnable_sum = a.runnable_avg * divider;
  a.load_sum = a.load_avg * divider;
  const u64 w = se_weight(se);
  a.load_sum = w < a.load_sum ? a.load_sum / static_cast<u32>(w) : 1;
  enqueue_load_avg(cfs_rq, se);
  cfs_rq.avg.util_avg += a.util_avg;
  cfs_rq.avg.util_sum += a.util_sum;
  cfs_rq.avg.runnable_avg += a.runnable_avg;
  cfs_rq.avg.runnable_sum += a.runnable_sum;
  add_tg_cfs_propagate(cfs_rq, as_s64(a.load_sum));
}

void detach_entity_load_avg(CfsRq& cfs_rq, SchedEntity& se) {
  dequeue_load_avg(cfs_rq, se);
  SchedAvg& sa = cfs_rq.avg;
  sub_sa(cfs_rq, sa.util_avg, sa.util_sum, se.avg.util_avg, se.avg.util_sum);
  sub_sa(cfs_rq, sa.runnable_avg, sa.runnable_sum, se.avg.runnable_avg, se.avg.runnable_sum);
  add_tg_cfs_propagate(cfs_rq, as_s64(u64{0} - se.avg.load_sum));
}

void update_load_avg(CfsRq& cfs_rq, SchedEntity& se, int flags) {
  const u64 now = cfs_rq_clock_pelt(cfs_rq);
  // util_est stays 0 (not modelled), so cfs_se_util_change() has nothing to clear
  if (se.avg.last_update_time && !(flags & pelt_flags::SKIP_AGE_LOAD))
    update_load_avg_se(now, se.avg, se_weight(se), se.on_rq, se_runnable(se), pelt_curr(cfs_rq) == &se, false);
  bool decayed = update_cfs_rq_load_avg(now, cfs_rq);
  decayed |= propagate_entity_load_avg(se);
  if (!se.avg.last_update_time && (flags & pelt_flags::DO_ATTACH)) {
    attach_entity_load_avg(cfs_rq, se);
    update_tg_load_avg(cfs_rq);
  } else if (flags & pelt_flags::DO_DETACH) {
    detach_entity_load_avg(cfs_rq, se);
    update_tg_load_avg(cfs_rq);
  } else if (decayed && (flags & pelt_flags::UPDATE_TG)) {
    update_tg_load_avg(cfs_rq);  // (and cpufreq's hook, not modelled)
  }
}

void se_update_runnable(SchedEntity& se) {
  if (!entity_is_task(se)) se.runnable_weight = pelt_runnable_count(*se.my_q);
}

// propagate_entity_cfs_rq(): every level above SE takes what changed below
// (CPU bandwidth control before v6.18: not past a throttled queue)
void propagate_entity_cfs_rq(SchedEntity& se) {
  if (walk_stops_at_throttled(*se.cfs_rq)) return;
  for (SchedEntity* p = se.parent; p; p = p->parent) {
    update_load_avg(*p->cfs_rq, *p, pelt_flags::UPDATE_TG);
    if (walk_stops_at_throttled(*p->cfs_rq)) break;
  }
}

// detach_entity_cfs_rq(): an attached entity leaves its queue's sums (synced
// first), and the hierarchy above learns of it
void detach_entity_cfs_rq(SchedEntity& se) {
  CfsRq& cfs_rq = *se.cfs_rq;
  if (!se.avg.last_update_time) return;
  update_load_avg(cfs_rq, se, 0);
  detach_entity_load_avg(cfs_rq, se);
  update_tg_load_avg(cfs_rq);
  propagate_entity_cfs_rq(se);
}

// attach_entity_cfs_rq() with ATTACH_AGE_LOAD (the default, not a model feature)
void attach_entity_cfs_rq(SchedEntity& se) {
  CfsRq& cfs_rq = *se.cfs_rq;
  update_load_avg(cfs_rq, se, 0);
  attach_entity_load_avg(cfs_rq, se);
  update_tg_load_avg(cfs_rq);
  propagate_entity_cfs_rq(se);
}

// remove_entity_load_avg(): a task leaving its queue without a dequeue there
// (a wake-up on another CPU, exit) is synced to the queue's last update, and
// its averages are left for the queue to take out at its next update.
void remove_entity_load_avg(SchedEntity& se) {
  CfsRq& cfs_rq = *se.cfs_rq;
  update_load_avg_blocked_se(cfs_rq.avg.last_update_time, se.avg, se_weight(se));  // sync_entity_load_avg()
  ++cfs_rq.removed.nr;
  cfs_rq.removed.util_avg += se.avg.util_avg;
  cfs_rq.removed.load_avg += se.avg.load_avg;
  cfs_rq.removed.runnable_avg += se.avg.runnable_avg;
}

void migrate_task_rq_fair(Task& p, bool migrating) {
  if (!migrating) remove_entity_load_avg(p.se);
  p.se.avg.last_update_time = 0;  // attached without aging where it is enqueued next
}

void init_entity_runnable_average(SchedEntity& se) {
  se.avg = {};
  if (entity_is_task(se)) se.avg.load_avg = scale_load_down(se.load.weight);
}

void post_init_entity_util_avg(SchedEntity& se, bool fair) {
  CfsRq& cfs_rq = *se.cfs_rq;
  SchedAvg& sa = se.avg;
  const s64 cpu_scale = 1024;  // arch_scale_cpu_capacity()
  const s64 cap = as_s64(as_u64(cpu_scale) - cfs_rq.avg.util_avg) / 2;
  if (!fair) {
    sa.last_update_time = cfs_rq_clock_pelt(cfs_rq);
    return;
  }
  if (cap > 0) {
    if (cfs_rq.avg.util_avg != 0) {
      // v6.6: se->load.weight itself (post_init_util_unscaled_weight)
      const u64 weight = cfs_rq.rq->profile().behaviour.post_init_util_unscaled_weight ? se.load.weight : se_weight(se);
      sa.util_avg = cfs_rq.avg.util_avg * weight;
      sa.util_avg /= cfs_rq.avg.load_avg + 1;
      if (sa.util_avg > as_u64(cap)) sa.util_avg = as_u64(cap);
    } else {
      sa.util_avg = as_u64(cap);
    }
  }
  sa.runnable_avg = sa.util_avg;
}

void reweight_load_avg(SchedEntity& se) {
  se.avg.load_avg = (se_weight(se) * se.avg.load_sum) / get_pelt_divider(se.avg);
}

u64 cpu_load(const Rq& rq) { return rq.cfs.avg.load_avg; }

unsigned HLoadWrites::index_of(const CfsRq& cfs_rq) const {
  unsigned i = 0;
  while (i < n_ && writes_[i].cfs_rq != &cfs_rq) ++i;
  return i;
}

HLoadWrites::Cache HLoadWrites::read(const CfsRq& cfs_rq) const {
  const unsigned i = index_of(cfs_rq);
  return i < n_ ? writes_[i].cache : Cache{cfs_rq.h_load, cfs_rq.last_h_load_update};
}

void HLoadWrites::write(const CfsRq& cfs_rq, Cache cache) {
  const unsigned i = index_of(cfs_rq);
  writes_[i] = {&cfs_rq, cache};
  if (i == n_) ++n_;
}

void HLoadWrites::apply() const {
  for (unsigned i = 0; i < n_; ++i) {
    // the choice read the queues through the const system; the caller applies it to the same, mutable one
    CfsRq& q = const_cast<CfsRq&>(*writes_[i].cfs_rq);
    q.h_load = writes_[i].cache.h_load;
    q.last_h_load_update = writes_[i].cache.last_update;
  }
}

namespace {

// update_cfs_rq_h_load(): refreshed once a jiffy, top down: from the highest
// queue on the path that is already current (or the root, which takes its
// load average), each group's queue gets its parent's h_load times its
// entity's share of the parent's load average
void update_cfs_rq_h_load(const CfsRq& cfs_rq, u64 jiffies, HLoadWrites& w) {
  if (w.read(cfs_rq).last_update == jiffies) return;
  std::array<const SchedEntity*, kMaxGroups + 1> path{};  // the group entities from CFS_RQ's up
  unsigned depth = 0;
  const CfsRq* top = &cfs_rq;
  const SchedEntity* se = cfs_rq.group_id < 0 ? nullptr : &cfs_rq.rq->groups[static_cast<std::size_t>(cfs_rq.group_id)].se;
  for (; se; se = se->parent) {
    path[depth++] = se;
    top = se->cfs_rq;
    if (w.read(*top).last_update == jiffies) break;
  }
  if (!se) w.write(*top, {top->avg.load_avg, jiffies});
  for (unsigned i = depth; i-- > 0;) {
    const SchedEntity& ge = *path[i];
    const u64 load = (w.read(*ge.cfs_rq).h_load * ge.avg.load_avg) / (ge.cfs_rq->avg.load_avg + 1);
    w.write(*ge.my_q, {load, jiffies});
  }
}

}  // namespace

u64 task_h_load(u64 load_avg, const CfsRq& cfs_rq, u64 jiffies, HLoadWrites& w) {
  update_cfs_rq_h_load(cfs_rq, jiffies, w);
  return (load_avg * w.read(cfs_rq).h_load) / (cfs_rq.avg.load_avg + 1);
}

}  // namespace eevdf
