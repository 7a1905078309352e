// I-DL and I-SLICE: deadlines and slices, on one queue (I-PROT: protection.cpp).
#include <fmt/format.h>

#include "invariants/checker.hpp"
#include "model/fair.hpp"

namespace eevdf::inv {

namespace {

// The report of the first offender, out of the walk (which stays a tight loop).
[[gnu::noinline]] void report_deadline(const CheckScope& s, const SchedEntity& se, i128 ahead, i128 below, i128 vslice,
                                       const Checker::RescaledDeadline* rescaled) {
  s.report(Id::DL, "place_entity / update_deadline",
           fmt::format("the deadline of {} lies {} ns (virtual) after its vruntime; expected at least {} and at "
                       "most one virtual slice, {} (slice {} ns){}",
                       entity_name(s.rq, &se), format_i128(ahead), format_i128(below), format_i128(vslice),
                       s.max_slice_seen,
                       rescaled ? fmt::format(", + {} ns of reweight rounding", rescaled->excess) : ""),
           {&se});
}

// The shortest slice queued on cfs_rq, curr and delayed entities included,
// counted entity by entity: what cfs_rq_min_slice() answers when the min_slice
// augment is right (a stale augment is I-AUG's finding; this is its effect).
u64 exact_min_slice(const QueueIndex& queues, const CfsRq& cfs_rq) {
  return queues.counts(cfs_rq).min_slice;  // counted while the queue's entities were listed
}

// A task's slice is the base slice or its custom slice; a queued, not delayed
// group entity's is the shortest request below it (enqueue_task_fair /
// dequeue_entities propagate cfs_rq_min_slice() on every change), or the base
// slice before that propagation (v6.6).
[[gnu::noinline]] void report_group_slice(const CheckScope& s, const SchedEntity& se, u64 expected) {
  if (se.sched_delayed)
    s.report(Id::SLICE, "dequeue_entities (delayed group slice)",
             fmt::format("delayed {} has slice {} ns; expected a slice in [100000, 100000000]",
                         entity_name(s.rq, &se), se.slice),
             {&se});
  else
    s.report(Id::SLICE, "enqueue_task_fair / dequeue_entities (group slice)",
             fmt::format("{} has slice {} ns; expected the shortest slice queued below it, {} ns",
                         entity_name(s.rq, &se), se.slice, expected),
             {&se});
}

[[gnu::noinline]] void report_task_slice(const CheckScope& s, const Task& t, u64 base) {
  const SchedEntity& se = t.se;
  s.report(Id::SLICE, "__setparam_fair / update_deadline",
           fmt::format("{} has slice {} ns; expected {}", t.name, se.slice,
                       se.custom_slice ? "a custom slice in [100000, 100000000]"
                                       : fmt::format("the base slice {}", base)),
           {&se});
}

// A base slice this run has had before the present one: a debugfs write of
// base_slice_ns reaches a queued entity only at its next update_deadline() or
// placement (Rq::earlier_base_slices; empty without a write).
bool earlier_base(const Rq& rq, u64 slice) {
  for (u64 b : rq.earlier_base_slices)
    if (b == slice) return true;
  return false;
}

// I-DL on one queued entity: its deadline lies between its vruntime and one
// virtual slice ahead (plus a reweight's rounding while its record lasts).
// Sets the report's values and returns true if it does not.
struct DeadlineOffence {
  i128 ahead = 0, below = 0, vslice = 0;
  const Checker::RescaledDeadline* rescaled = nullptr;
};
inline bool deadline_offends(Checker& checker, const SchedEntity& se, u64 quantum, bool flat, DeadlineOffence& out) {
  const u64 vslice = checker.bounds(se, quantum, flat).vslice;
  const s64 ahead = vruntime_diff(se.deadline, se.vruntime);
  const Checker::RescaledDeadline* rescaled = checker.rescaled_deadline(se);
  // the common case in 64 bits: no reweight record, 0 < ahead <= vslice + 2
  if (!rescaled) {
    if (ahead > 0 && (static_cast<u64>(ahead) <= vslice || static_cast<u64>(ahead) - vslice <= 2)) return false;
  } else if (checker.known(Finding::F7, rescaled->clamped)) {
    return false;  // F7 (docs/findings/F7.md): a reweight clamped the lag but not the deadline
  }
  const i128 below = rescaled ? -2 : 1;  // two truncations toward zero
  const i128 above = static_cast<i128>(vslice) + 2 + (rescaled ? static_cast<i128>(rescaled->excess) : 0);
  if (ahead >= below && ahead <= above) return false;
  out = {ahead, below, vslice, rescaled};
  return true;
}

// I-SLICE on a queued group entity: a delayed one keeps the slice of its last
// refresh (some request's, 0.1 .. 100 ms); another holds `expected`, the
// shortest request below it (or the base slice before that propagation).
inline bool group_slice_offends(const Rq& rq, const SchedEntity& se, u64 expected, bool from_queue) {
  const u64 slice = se.slice;
  if (se.sched_delayed) return slice < 100000 || slice > 100000000;
  if (slice == expected) return false;
  // After a base_slice_ns write a group entity may hold a slice taken from a queue
  // whose tasks have since renewed theirs at update_deadline() (the group's is
  // renewed only at the next enqueue or dequeue through it): an earlier base, or,
  // taken from the queue, some request's (0.1 .. 100 ms), as for a delayed one.
  if (rq.earlier_base_slices.empty()) return true;
  return !(from_queue ? slice >= 100000 && slice <= 100000000 : earlier_base(rq, slice));
}

// I-SLICE on a live task: its custom slice, or the base slice (an earlier one
// until its next update_deadline() or placement after a write).
inline bool task_slice_offends(const Rq& rq, const SchedEntity& se, u64 base) {
  const u64 slice = se.slice;
  if (se.custom_slice) return slice < 100000 || slice > 100000000;
  return slice != base && !earlier_base(rq, slice);
}

}  // namespace

// I-DL and I-SLICE in one walk of the queue's entities, each noting its first
// offender and stopping there, reported after the walk (I-DL's first): the
// same reports, and the same bounds() lookups, as one walk each.
void check_deadline(const CheckScope& s) {
  bool dl_open = s.on(Id::DL), slice_open = s.on(Id::SLICE);
  if (!dl_open && !slice_open) return;
  const Rq& rq = s.rq;
  Checker& checker = s.checker;
  const u64 quantum = rq.tick_quantum();
  const bool flat = rq.profile().behaviour.flat_runqueue;
  const u64 base = rq.profile().sysctl_sched_base_slice();
  const bool from_queue = rq.profile().behaviour.group_slice_from_queue;
  const SchedEntity* dl_se = nullptr;  // I-DL's offender
  DeadlineOffence dl;
  const Task* slice_task = nullptr;  // I-SLICE's offender: a task, or a group entity
  const SchedEntity* slice_group = nullptr;
  u64 slice_expected = 0;
  for (const QueueMember& m : checker.queues().eevdf_entities(s.cfs)) {
    const SchedEntity& se = *m.se;
    if (dl_open && se.on_rq && !se.rel_deadline && deadline_offends(checker, se, quantum, flat, dl)) {
      dl_open = false;
      dl_se = &se;
    }
    if (slice_open && m.task && m.task->state != TaskState::dead && task_slice_offends(rq, se, base)) {
      slice_open = false;
      slice_task = m.task;
    } else if (slice_open && !m.task && se.on_rq) {
      const u64 expected = se.sched_delayed ? 0 : from_queue ? exact_min_slice(checker.queues(), *se.my_q) : base;
      if (group_slice_offends(rq, se, expected, from_queue)) {
        slice_open = false;
        slice_group = &se;
        slice_expected = expected;
      }
    }
    if (!dl_open && !slice_open) break;
  }
  if (dl_se) report_deadline(s, *dl_se, dl.ahead, dl.below, dl.vslice, dl.rescaled);
  if (slice_task) report_task_slice(s, *slice_task, base);
  if (slice_group) report_group_slice(s, *slice_group, slice_expected);
}

// I-DL and I-SLICE on the entities an operation touched (--check incremental,
// between full sweeps): the same rules as check_deadline()'s walk, on each of
// `touched` (entities of this CPU whose deadline, vruntime, slice, queue,
// on_rq or weight moved), first offender of each reported. I-SLICE of a group entity
// reads its queue's shortest request (the queue index), and waits for the sweep.
void check_deadline_touched(const CheckScope& s, const std::vector<const SchedEntity*>& touched) {
  bool dl_open = s.on(Id::DL), slice_open = s.on(Id::SLICE);
  if (!dl_open && !slice_open) return;
  const Rq& rq = s.rq;
  Checker& checker = s.checker;
  const u64 quantum = rq.tick_quantum();
  const bool flat = rq.profile().behaviour.flat_runqueue;
  const u64 base = rq.profile().sysctl_sched_base_slice();
  const SchedEntity* dl_se = nullptr;
  DeadlineOffence dl;
  const Task* slice_task = nullptr;
  for (const SchedEntity* e : touched) {
    const SchedEntity& se = *e;
    if (!eevdf_queue_of(rq, se)) continue;  // v7.3 flat runqueue: group entities are in no tree
    if (dl_open && se.on_rq && !se.rel_deadline && deadline_offends(checker, se, quantum, flat, dl)) {
      dl_open = false;
      dl_se = &se;
    }
    if (slice_open && entity_is_task(se)) {
      const Task& t = rq.task_of(se);
      if (t.state != TaskState::dead && task_slice_offends(rq, se, base)) {
        slice_open = false;
        slice_task = &t;
      }
    }
    if (!dl_open && !slice_open) break;
  }
  if (dl_se) report_deadline(s, *dl_se, dl.ahead, dl.below, dl.vslice, dl.rescaled);
  if (slice_task) report_task_slice(s, *slice_task, base);
}

// I-DL's fresh request. EEVDF issues a new request when a task joins: its
// deadline is one virtual slice of its own slice after its vruntime; a new
// task's first request is half of it under PLACE_DEADLINE_INITIAL (v6.6's fork
// placement is redone by wake_up_new_task(): either is accepted at the first
// enqueue). A sleeping task carries no relative deadline (only a change
// dequeues without DEQUEUE_SLEEP, and it enqueues again in the same
// operation), so one that does (B01: a fork copying it) is judged as well. Not
// judged: an RT task, a task still delayed, a task created in the operation.
bool fresh_request_offends(const Rq& rq, const SchedEntity& se, FreshRequest& out) {
  if (se.sched_delayed || rq.task_of(se).policy == Policy::fifo) return false;
  const Profile& profile = rq.profile();
  LoadWeight lw = eevdf_load_of(rq, se);  // a copy: calc_delta_fair() may fill in inv_weight
  const i128 vslice = calc_delta_fair(se.slice, lw, profile.behaviour.calc_delta, null_observer());
  const i128 ahead = vruntime_diff(se.deadline, se.vruntime);
  if (ahead == vslice) return false;
  if (out.first && profile.feat(Feature::PLACE_DEADLINE_INITIAL) && ahead == vslice / 2) return false;
  out.ahead = ahead;
  out.vslice = vslice;
  return true;
}

void report_fresh_request(const CheckScope& s, const FreshRequest& f) {
  s.report(Id::DL, "place_entity (fresh request)",
           fmt::format("{} joined from sleep with d - v = {}; a fresh request is one virtual slice, {} (slice {} ns){}",
                       entity_name(s.rq, f.se), format_i128(f.ahead), format_i128(f.vslice), f.se->slice,
                       f.first ? fmt::format(", or {} at a new task's first enqueue", format_i128(f.vslice / 2)) : ""),
           {f.se});
}

// A reweight rescales d - v (set as calc_delta_fair(slice) at the old weight w) by
// w/w', but I-DL bounds it by calc_delta_fair(slice) at the new weight w'. On the
// inverse-weight path calc_delta_fair(s, w) = (s·1024·floor(0xFFFFFFFF / w_sd)) >> 32
// with w_sd = scale_load_down(w) = floor(w/1024): it lies below s·1024/w_sd by up to
// s·1024/2^32 + 1 (the floored inverse), and s·1024/w_sd lies above s·2^20/w by the
// truncation w/1024 - w_sd. Both errors differ between w and w', so one old virtual
// slice rescaled, K(w)·w/w', can exceed K(w') (v7.0: a group entity of 2^20 with a
// 100 ms slice, K = 100 ms exactly, reweighted to 10·2^20: 10 ms, where K(w') =
// (10^8·1024·419430) >> 32 = 9999990). This is the excess of the rescaled kernel
// slice over the new one, ceil(K(w)·w/w') - K(w'), both in the kernel's arithmetic,
// for the largest slice seen (the deadline was set with a slice no larger).
u64 rescaled_slice_excess(const Rq& rq, u64 max_slice, u64 old_weight, u64 new_weight) {
  if (old_weight == 0 || new_weight == 0) return 0;
  const CalcDeltaPath path = rq.profile().behaviour.calc_delta;
  LoadWeight old_lw{old_weight, 0}, new_lw{new_weight, 0};
  const u128 k_old = calc_delta_fair(max_slice, old_lw, path, null_observer());
  const u128 k_new = calc_delta_fair(max_slice, new_lw, path, null_observer());
  const u128 rescaled = (k_old * old_weight + new_weight - 1) / new_weight;
  return saturate_u64(rescaled > k_new ? rescaled - k_new : 0);
}

// The drift a deadline carries after one more reweight w -> w2 (I-DL): the
// prior drift E and the two truncated rescales (d - V and V - v) with the old
// slice's rounding give (E + 2)·w/w2, + 4 for the new slice's rounding and the
// placement (2 ns, v6.14-v7.0), + what one old virtual slice rescaled exceeds
// the new one by (rescaled_slice_excess()).
u64 rescaled_deadline_excess(const Rq& rq, u64 max_slice, u64 prior_excess, u64 w, u64 w2) {
  const u64 divisor = w2 > 0 ? w2 : 1;
  const u128 scaled = (static_cast<u128>(prior_excess) + 2) * w;
  return saturate_u64((scaled + divisor - 1) / divisor + 4 + rescaled_slice_excess(rq, max_slice, w, w2));
}

}  // namespace eevdf::inv
