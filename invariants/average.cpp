// I-ELIG, I-AVG0, I-NULLPICK (state part) and I-KEY: the weighted average V,
// eligibility against exact arithmetic, and the zero point; I-FRESH: V is read
// only once curr is charged. exact_average(): the exact sums every family reads.
#include <fmt/format.h>

#include "invariants/checker.hpp"
#include "model/fair.hpp"

namespace eevdf::inv {

namespace {
// avg_vruntime_weight() (model/fair_avg.cpp) with the profile's switch and the
// queue's shift read once a walk: these walks run at every pick and every
// avg_vruntime() as well as after every operation.
struct AvgWeight {
  bool full_weight;
  unsigned shift;
  explicit AvgWeight(const CfsRq& cfs_rq)
      : full_weight(cfs_rq.rq->profile().behaviour.avg_full_weight), shift(cfs_rq.sum_shift) {}
  u64 operator()(u64 w) const {
    if (!full_weight) return scale_load_down(w);
    if (shift) {
      w >>= shift;
      if (w < 2) w = 2;
    }
    return w;
  }
};
}  // namespace

ExactAverage exact_average(const CfsRq& cfs_rq) {
  ExactAverage a;
  const bool flat = cfs_rq.rq->profile().behaviour.flat_runqueue;
  const u64 zero = cfs_rq.zero_vruntime;
  const AvgWeight avg_weight(cfs_rq);
  auto add = [&](const SchedEntity& se) {
    if (a.queued < a.entities.size()) a.entities[a.queued++] = &se;
    const u64 full = flat && entity_is_task(se) ? se.h_load.weight : se.load.weight;  // eevdf_weight()
    const u64 w = avg_weight(full);
    // entity_key(): the 64-bit key times a weight, exact in 128 bits
    a.sum += static_cast<i128>(vruntime_diff(se.vruntime, zero)) * static_cast<i128>(w);
    a.weight += static_cast<i128>(w);
    if (a.min_weight == 0 || full < a.min_weight) a.min_weight = full;
    if (se.slice > a.max_slice) a.max_slice = se.slice;
  };
  for (const SchedEntity* n = cfs_rq.tasks_timeline.leftmost(); n; n = RbTree<SchedEntity>::next(n)) add(*n);
  a.in_tree = a.queued;
  a.tree_sum = a.sum;
  a.tree_weight = a.weight;
  if (cfs_rq.curr && cfs_rq.curr->on_rq) add(*cfs_rq.curr);
  return a;
}

ExactAverage exact_sums(const CfsRq& cfs_rq) {
  ExactAverage a;
  const bool flat = cfs_rq.rq->profile().behaviour.flat_runqueue;
  const u64 zero = cfs_rq.zero_vruntime;
  const AvgWeight avg_weight(cfs_rq);
  auto add = [&](const SchedEntity& se) {
    const u64 full = flat && entity_is_task(se) ? se.h_load.weight : se.load.weight;  // eevdf_weight()
    const u64 w = avg_weight(full);
    a.sum += static_cast<i128>(vruntime_diff(se.vruntime, zero)) * static_cast<i128>(w);
    a.weight += static_cast<i128>(w);
  };
  for (const SchedEntity* n = cfs_rq.tasks_timeline.leftmost(); n; n = RbTree<SchedEntity>::next(n)) add(*n);
  if (cfs_rq.curr && cfs_rq.curr->on_rq) add(*cfs_rq.curr);
  return a;
}

void check_average(const CheckScope& s) {
  const CfsRq& cfs = s.cfs;
  if (!s.on(Id::ELIG) && !s.on(Id::KEY) && !s.on(Id::NULLPICK) && !s.on(Id::AVG0)) return;
  if (eevdf_nr_queued(cfs) == 0) return;
  Observer& quiet = null_observer();

  // One pass over the queue: kernel vs exact eligibility, some entity eligible, keys near V.
  const bool elig = s.on(Id::ELIG) && s.avg.weight > 0, key_check = s.on(Id::KEY);
  const EligibilityBase base = eligibility_base(cfs, quiet);
  // the bounds of the lag EEVDF allows, with the quantum the run had (a late tick, a
  // tickless stretch: Rq::tick_quantum()), not only TICK_NSEC
  const i128 light = key_check ? lag_bound(s.rq, s.max_slice_seen, s.avg.min_weight, s.rq.tick_quantum()) : 0;
  bool any_eligible = false, elig_reported = false, key_reported = false;
  for_each_queued(s.avg, [&](const SchedEntity& se) {
    const bool kernel = vruntime_eligible(cfs, base, se.vruntime, quiet);
    any_eligible = any_eligible || kernel;
    if (elig && !elig_reported && kernel != exactly_eligible(cfs, s.avg, se.vruntime)) {
      elig_reported = true;
      s.report(Id::ELIG, "vruntime_eligible",
               fmt::format("the kernel says {} is {}eligible; exactly, key·W = {} and Σ key·w = {}",
                           entity_name(s.rq, &se), kernel ? "" : "not ",
                           format_i128(static_cast<i128>(entity_key(cfs, se)) * s.avg.weight), format_i128(s.avg.sum)),
               {&se});
    }
    if (key_check && !key_reported) {
      const i128 key = vruntime_diff(se.vruntime, cfs.zero_vruntime);  // entity_key()
      // within 4·light it is within the bound (lag_bound() >= 0): the entity's own bound is not looked up
      const bool near = key <= 4 * light && key >= -4 * light;
      const i128 bound = near ? 0 : 4 * (static_cast<i128>(s.checker.bounds(se).key_bound) + light);
      if (!near && (key > bound || key < -bound)) {
        key_reported = true;
        s.report(Id::KEY, "avg_vruntime / update_zero_vruntime",
                 fmt::format("entity_key = {} is beyond {} (4 lag bounds of this and of the lightest entity): "
                             "zero_vruntime {} no longer tracks V",
                             format_i128(key), format_i128(bound), cfs.zero_vruntime),
                 {&se});
      }
    }
  });
  // v6.6-v6.18: the zero point is the monotonic min_vruntime, which must be up to
  // date after every operation: never behind the smallest queued vruntime (what
  // update_min_vruntime() would raise it to now)
  if (key_check && !key_reported && s.rq.profile().behaviour.key_base == KeyBase::min_vruntime) {
    const SchedEntity* least = nullptr;
    for_each_queued(s.avg, [&](const SchedEntity& se) {
      if (!least || vruntime_before(se.vruntime, least->vruntime)) least = &se;
    });
    if (least && vruntime_diff(least->vruntime, cfs.zero_vruntime) > 0)
      s.report(Id::KEY, "update_min_vruntime",
               fmt::format("min_vruntime {} is {} ns behind the smallest queued vruntime, {}'s {}: "
                           "update_min_vruntime() was not called after the entity moved",
                           cfs.zero_vruntime, vruntime_diff(least->vruntime, cfs.zero_vruntime),
                           entity_name(s.rq, least), least->vruntime),
               {least});
  }
  if (s.on(Id::NULLPICK) && !any_eligible)
    s.report(Id::NULLPICK, "vruntime_eligible",
             fmt::format("{} entities are queued and none is eligible: the next pick_eevdf() returns NULL",
                         cfs.nr_queued),
             {cfs.tasks_timeline.leftmost(), cfs.curr});

  check_avg0(s);
}

void check_avg0(const CheckScope& s) {
  const CfsRq& cfs = s.cfs;
  Observer& quiet = null_observer();
  if (s.on(Id::AVG0) && s.avg.weight > 0) {
    const s64 offset = s.avg.kernel_offset;
    const u64 v = cfs.zero_vruntime + as_u64(offset);
    if (!vruntime_eligible(cfs, v, quiet)) {
      s.report(Id::AVG0, "avg_vruntime",
               fmt::format("an entity placed at V = avg_vruntime() = {} would not be eligible", v), {});
    } else {
      // W·floor(S/W) - S must lie in (-W, 0]
      const i128 rem = static_cast<i128>(offset) * s.avg.weight - s.avg.sum;
      if (rem > 0 || rem <= -s.avg.weight)
        s.report(Id::AVG0, "avg_vruntime",
                 fmt::format("avg_vruntime() offset {} is not floor(S/W) for S = {}, W = {}", offset,
                             format_i128(s.avg.sum), format_i128(s.avg.weight)),
                 {});
    }
  }
}

// --check incremental's part of check_average() (Checker::end_op_incremental()):
// I-AVG0 as there; I-KEY and I-NULLPICK from the extremes of the queue. Every
// key within 4 lag bounds of the lightest entity passes I-KEY's per-entity rule
// without its own bound being looked up, and some entity is eligible if the one
// with the smallest key is; otherwise (and where the zero point is min_vruntime,
// if it lies ahead of the smallest key) the queue gets check_average() itself,
// whose reports are full mode's. Per-entity eligibility (I-ELIG) waits for the sweep.
void check_average_incremental(const CheckScope& s) {
  const CfsRq& cfs = s.cfs;
  if (!s.on(Id::ELIG) && !s.on(Id::KEY) && !s.on(Id::NULLPICK) && !s.on(Id::AVG0)) return;
  if (eevdf_nr_queued(cfs) == 0 || s.avg.queued == 0) return;
  const bool key_check = s.on(Id::KEY);
  const i128 light = key_check ? lag_bound(s.rq, s.max_slice_seen, s.avg.min_weight, s.rq.tick_quantum()) : 0;
  s64 min_key = 0, max_key = 0;
  const SchedEntity* least = nullptr;
  for_each_queued(s.avg, [&](const SchedEntity& se) {
    const s64 key = vruntime_diff(se.vruntime, cfs.zero_vruntime);
    if (!least || key < min_key) {
      min_key = key;
      least = &se;
    }
    max_key = std::max(max_key, key);
  });
  bool suspect = key_check && (max_key > 4 * light || min_key < -4 * light ||
                               (s.rq.profile().behaviour.key_base == KeyBase::min_vruntime && min_key > 0));
  if (!suspect && s.on(Id::NULLPICK))
    suspect = !vruntime_eligible(cfs, eligibility_base(cfs, null_observer()), least->vruntime, null_observer());
  if (suspect) {
    check_average(s);
    return;
  }
  check_avg0(s);
}

// I-FRESH: a decision reads V only after curr was charged up to rq_clock_task.
void check_fresh_read(const CheckScope& s, const char* caller) {
  const SchedEntity* curr = s.cfs.curr;
  const Rq& rq = s.rq;
  if (!curr || !curr->on_rq || curr->exec_start == rq.clock_task) return;
  s.report(Id::FRESH, caller,
           fmt::format("{} read V while the running entity {} had {} ns of runtime not yet charged "
                       "(exec_start {}, rq_clock_task {}): update_curr() was not called first",
                       caller, entity_name(rq, curr), rq.clock_task - curr->exec_start, curr->exec_start,
                       rq.clock_task),
           {curr});
}

}  // namespace eevdf::inv
