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

void check_deadlines(const CheckScope& s) {
  for (const QueueMember& m : s.checker.queues().eevdf_entities(s.cfs)) {
    const SchedEntity& se = *m.se;
    if (!se.on_rq || se.rel_deadline) continue;
    const u64 vslice = s.checker.bounds(se).vslice;
    const s64 ahead = vruntime_diff(se.deadline, se.vruntime);
    const Checker::RescaledDeadline* rescaled = s.checker.rescaled_deadline(se);
    // the common case in 64 bits: no reweight record, 0 <= ahead <= vslice + 2
    if (!rescaled) {
      if (ahead >= 0 && (static_cast<u64>(ahead) <= vslice || static_cast<u64>(ahead) - vslice <= 2)) continue;
    } else if (rescaled->clamped && s.checker.tolerates_f7()) {
      continue;  // finding F7, docs/findings.md
    }
    const i128 below = rescaled ? -2 : 0;  // two truncations toward zero
    const i128 above = static_cast<i128>(vslice) + 2 + (rescaled ? static_cast<i128>(rescaled->excess) : 0);
    if (ahead >= below && ahead <= above) continue;
    report_deadline(s, se, ahead, below, vslice, rescaled);  // the first offender only
    return;
  }
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

void check_slices(const CheckScope& s) {
  const u64 base = s.rq.profile().sysctl_sched_base_slice();
  // the first offender in a tight walk, reported after it
  for (const QueueMember& m : s.checker.queues().eevdf_entities(s.cfs)) {
    const SchedEntity& se = *m.se;
    const Task* t = m.task;
    const u64 slice = se.slice;
    if (t) {
      if (t->state == TaskState::dead) continue;
      const bool ok =
          se.custom_slice ? (slice >= 100000 && slice <= 100000000) : slice == base || earlier_base(s.rq, slice);
      if (ok) continue;
      report_task_slice(s, *t, base);
      return;
    }
    if (!se.on_rq) continue;
    if (se.sched_delayed) {  // keeps the slice of its last refresh: some request's, 0.1 .. 100 ms
      if (slice >= 100000 && slice <= 100000000) continue;
      report_group_slice(s, se, 0);
      return;
    }
    const u64 expected =
        s.rq.profile().behaviour.group_slice_from_queue ? exact_min_slice(s.checker.queues(), *se.my_q) : base;
    if (slice == expected) continue;
    // After a base_slice_ns write a group entity may hold a slice taken from a queue
    // whose tasks have since renewed theirs at update_deadline() (the group's is
    // renewed only at the next enqueue or dequeue through it): an earlier base, or,
    // taken from the queue, some request's (0.1 .. 100 ms), as for a delayed one.
    if (!s.rq.earlier_base_slices.empty() &&
        (s.rq.profile().behaviour.group_slice_from_queue ? slice >= 100000 && slice <= 100000000
                                                         : earlier_base(s.rq, slice)))
      continue;
    report_group_slice(s, se, expected);
    return;
  }
}

}  // namespace

void check_deadline(const CheckScope& s) {
  if (s.on(Id::DL)) check_deadlines(s);
  if (s.on(Id::SLICE)) check_slices(s);
}

}  // namespace eevdf::inv
