// I-DL, I-PROT and I-SLICE: deadlines, slice protection and slices.
#include <fmt/format.h>

#include "invariants/checker.hpp"
#include "model/fair.hpp"

namespace eevdf::inv {

namespace {

void check_deadlines(const CheckScope& s) {
  const Rq& rq = s.rq;
  for (const Task& t : rq.tasks) {
    const SchedEntity& se = t.se;
    if (!se.on_rq || se.rel_deadline) continue;
    const i128 vslice = s.checker.bounds(se).vslice;
    const i128 ahead = vruntime_diff(se.deadline, se.vruntime);
    if (ahead < 0 || ahead > vslice + 2) {
      s.report(Id::DL, "place_entity / update_deadline",
               fmt::format("the deadline of {} lies {} ns (virtual) after its vruntime; expected at least 0 and at "
                           "most one virtual slice, {} (slice {} ns)",
                           t.name, format_i128(ahead), format_i128(vslice), s.max_slice_seen),
               {&se});
      return;
    }
  }
}

void check_protection(const CheckScope& s) {
  const SchedEntity* curr = s.rq.cfs.curr;
  if (s.rq.profile().behaviour.parity_in_vlag) return;  // v6.6-v6.12: no vprot, the parity stash lies in vlag
  if (!curr || !curr->on_rq || !protect_slice(*curr)) return;
  if (s.checker.vprot_stale(*curr)) return;  // finding F1, docs/findings.md
  if (vruntime_diff(curr->vprot, curr->deadline) > 0)
    s.report(Id::PROT, "set_protect_slice / update_protect_slice",
             fmt::format("curr is protected up to vprot {} beyond its deadline {}", curr->vprot, curr->deadline),
             {curr});
}

void check_slices(const CheckScope& s) {
  const Rq& rq = s.rq;
  const u64 base = rq.profile().sysctl_sched_base_slice();
  for (const Task& t : rq.tasks) {
    if (t.state == TaskState::dead) continue;
    const u64 slice = t.se.slice;
    const bool ok = t.se.custom_slice ? (slice >= 100000 && slice <= 100000000) : slice == base;
    if (!ok) {
      s.report(Id::SLICE, "__setparam_fair / update_deadline",
               fmt::format("{} has slice {} ns; expected {}", t.name, slice,
                           t.se.custom_slice ? "a custom slice in [100000, 100000000]"
                                             : fmt::format("the base slice {}", base)),
               {&t.se});
      return;
    }
  }
}

}  // namespace

void check_deadline(const CheckScope& s) {
  if (s.on(Id::DL)) check_deadlines(s);
  if (s.on(Id::PROT)) check_protection(s);
  if (s.on(Id::SLICE)) check_slices(s);
}

}  // namespace eevdf::inv
