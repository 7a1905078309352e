// PELT in the fair class (fair.c, 6.12.118 to 7.0.0): where a task's and its
// queue's averages are updated, attached, detached and removed, and the loads
// the wake-up choice reads (cpu_load(), task_h_load()). The arithmetic itself
// is model/pelt.*.
//
// Tracked while the system has no task group and the runqueue is not the
// v7.3 flat one: a group entity's averages, their propagation up the
// hierarchy and tg->load_avg are not modelled, so from the first group on
// every function here is a no-op (the kernel backend stops the tree's PELT at
// the same moment; docs/model.md). The PELT clock is clock_task, from a base
// of about a second (model/pelt.hpp, kPeltClockBase). update_blocked_averages() (load balancing),
// util_est and NO_HZ's migrate_se_pelt_lag() are not modelled.
#include <type_traits>

#include "model/fair.hpp"
#include "model/rq.hpp"

namespace eevdf {

namespace {

u64 se_weight(const SchedEntity& se) { return scale_load_down(se.load.weight); }

// se_runnable(): a delayed entity is not runnable; a queued task is (group
// entities are not tracked here)
u64 se_runnable(const SchedEntity& se) { return se.sched_delayed ? 0 : (se.on_rq ? 1 : 0); }

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

bool pelt_tracked(const Rq& rq) { return !rq.profile().behaviour.flat_runqueue && rq.task_groups.empty(); }

u64 cfs_rq_clock_pelt(const CfsRq& cfs_rq) { return cfs_rq.rq->clock_task + kPeltClockBase; }

void enqueue_load_avg(CfsRq& cfs_rq, const SchedEntity& se) {
  if (!pelt_tracked(*cfs_rq.rq)) return;
  SchedAvg& sa = cfs_rq.avg;
  if (clamp_u32(cfs_rq)) {
    sa.load_avg += se.avg.load_avg;
    sa.load_sum += se_weight(se) * se.avg.load_sum;
  } else {
    update_sa(sa.load_avg, sa.load_sum, se.avg.load_avg, se_weight(se) * se.avg.load_sum);
  }
}

void dequeue_load_avg(CfsRq& cfs_rq, const SchedEntity& se) {
  if (!pelt_tracked(*cfs_rq.rq)) return;
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
    // add_tg_cfs_propagate(): read by a group entity only (none is tracked)
    decayed = true;
  }
  decayed |= update_load_avg_cfs_rq(now, sa, scale_load_down(cfs_rq.load.weight), cfs_rq.h_nr_runnable,
                                    cfs_rq.curr != nullptr);
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
}

void detach_entity_load_avg(CfsRq& cfs_rq, SchedEntity& se) {
  dequeue_load_avg(cfs_rq, se);
  SchedAvg& sa = cfs_rq.avg;
  sub_sa(cfs_rq, sa.util_avg, sa.util_sum, se.avg.util_avg, se.avg.util_sum);
  sub_sa(cfs_rq, sa.runnable_avg, sa.runnable_sum, se.avg.runnable_avg, se.avg.runnable_sum);
}

void update_load_avg(CfsRq& cfs_rq, SchedEntity& se, int flags) {
  if (!pelt_tracked(*cfs_rq.rq)) return;
  const u64 now = cfs_rq_clock_pelt(cfs_rq);
  // util_est stays 0 (not modelled), so cfs_se_util_change() has nothing to clear
  if (se.avg.last_update_time && !(flags & pelt_flags::SKIP_AGE_LOAD))
    update_load_avg_se(now, se.avg, se_weight(se), se.on_rq, se_runnable(se), cfs_rq.curr == &se, false);
  update_cfs_rq_load_avg(now, cfs_rq);  // decayed: tg->load_avg and cpufreq, neither tracked
  if (!se.avg.last_update_time && (flags & pelt_flags::DO_ATTACH))
    attach_entity_load_avg(cfs_rq, se);
  else if (flags & pelt_flags::DO_DETACH)
    detach_entity_load_avg(cfs_rq, se);
}

// remove_entity_load_avg(): a task leaving its queue without a dequeue there
// (a wake-up on another CPU, exit) is synced to the queue's last update, and
// its averages are left for the queue to take out at its next update.
void remove_entity_load_avg(SchedEntity& se) {
  CfsRq& cfs_rq = *se.cfs_rq;
  if (!pelt_tracked(*cfs_rq.rq)) return;
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
      sa.util_avg = cfs_rq.avg.util_avg * se_weight(se);
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

HLoad task_h_load(u64 load_avg, const CfsRq& cfs_rq, u64 jiffies) {
  // update_cfs_rq_h_load() of the root queue: refreshed once a jiffy
  HLoad h{cfs_rq.h_load, cfs_rq.last_h_load_update, 0};
  if (h.last_update != jiffies) {
    h.h_load = cfs_rq.avg.load_avg;
    h.last_update = jiffies;
  }
  h.load = (load_avg * h.h_load) / (cfs_rq.avg.load_avg + 1);
  return h;
}

}  // namespace eevdf
