// I-PROT: slice protection, the run that RUN_TO_PARITY (and the minimum quantum of
// NO_RUN_TO_PARITY) lets curr keep although another entity has an earlier deadline.
//
// Three rules of the design (052c3d87c82e, 74eec63661d4, bcd74b2ffdd0), checked on
// every profile; kernels that protected longer report them as expected findings
// (docs/profiles.md):
//   1. never beyond curr's deadline (after every operation);
//   2. at a real pick, at most the shortest request queued at that moment
//      (min(se->slice, the other queued entities' slices), in se's virtual time),
//      or one normalized base slice without RUN_TO_PARITY;
//   3. between real picks it only shrinks: the protected run left, in real time
//      (w · (end - v)), never grows, whatever the operation (a wake-up may shorten
//      it, a reweight rescales it around the same point; a sched_change's
//      put_prev/set_next cycle is not a pick and may not re-arm it).
//   4. what a waiting entity feels: once curr's protection is over, the entity EEVDF
//      would run (the earliest eligible deadline) gets the CPU at the next tick:
//      update_curr() reschedules an unprotected curr when another entity is queued,
//      and the pick that follows takes it. With rules 1-3 this bounds the wait of an
//      entity that became the EEVDF choice to the protection left, at most its own
//      request (RUN_TO_PARITY) or one normalized base slice, plus one tick.
//   5. and its converse: a lone fair entity (nothing else queued on any level of
//      its hierarchy, delayed entities included: they are queued by design; RT
//      tasks are not fair entities) is never rescheduled by the fair class's tick,
//      neither at slice expiry nor at the end of its protection: there is nobody
//      to switch to (update_curr() tests cfs_rq->nr_queued on its own level, since
//      d4ac164bde7a in v6.12-rc2; 85e511df3cec had tested rq->nr_running, which
//      counts an RT task too).
// The protected run of v6.6-v6.12 is the RUN_TO_PARITY stash vlag == deadline:
// curr keeps the CPU up to its deadline.
#include <fmt/format.h>

#include <optional>

#include "invariants/checker.hpp"
#include "model/fair.hpp"

namespace eevdf::inv {

std::optional<u64> protection_end(const Rq& rq, const SchedEntity& se) {
  const Profile& profile = rq.profile();
  if (profile.behaviour.parity_in_vlag) {
    if (profile.feat(Feature::RUN_TO_PARITY) && vlag_holds_parity(se)) return se.deadline;
    return std::nullopt;
  }
  if (protect_slice(se)) return se.vprot;
  return std::nullopt;
}

i128 protected_run_left(const Rq& rq, const SchedEntity& se) {
  const std::optional<u64> end = protection_end(rq, se);
  if (!end) return 0;
  const i128 left = vruntime_diff(*end, se.vruntime);
  return left > 0 ? left * static_cast<i128>(eevdf_load_of(rq, se).weight) : 0;
}

// Rule 1, from set_next_entity() at a real pick: se is curr of s.cfs, out of its
// tree, which holds the other queued entities (s.avg is not read).
void check_protection_at_pick(const CheckScope& s, const SchedEntity& se) {
  const std::optional<u64> end = protection_end(s.rq, se);
  if (!end) return;
  const Profile& profile = s.rq.profile();
  // 0d1e7a2bab35 (v7.3-rc1): under PREEMPT_SHORT a shortened protection lasts until
  // curr turns ineligible instead (listed in docs/profiles.md, design differences)
  if (profile.behaviour.protect_ineligible_cap && profile.feat(Feature::PREEMPT_SHORT)) return;
  u64 shortest = ~u64{0};
  const SchedEntity* shorter = nullptr;
  for (const SchedEntity* n = s.cfs.tasks_timeline.leftmost(); n; n = RbTree<SchedEntity>::next(n)) {
    if (n != &se && n->on_rq && n->slice < shortest) {
      shortest = n->slice;
      shorter = n;
    }
  }
  const u64 limit = profile.feat(Feature::RUN_TO_PARITY) ? shortest : profile.tunables.normalized_base_slice;
  if (limit >= se.slice) return;  // up to the deadline: rule 1 after the operation
  LoadWeight lw = eevdf_load_of(s.rq, se);
  const u64 allowed = calc_delta_fair(limit, lw, profile.behaviour.calc_delta, null_observer());
  const i128 granted = vruntime_diff(*end, se.vruntime);
  if (granted <= static_cast<i128>(allowed)) return;
  // Where the protection is computed from the queue's min_slice augment (cfs_rq_min_slice(),
  // 052c3d87c82e; not the v6.6-v6.12 stash), whether that augment was right at the pick: a
  // stale augment's protection (docs/findings.md, "Known upstream bugs rediscovered") and a
  // protection that ignores a right one are two findings.
  const SchedEntity* root = s.cfs.tasks_timeline.root();
  const bool stale = !profile.behaviour.parity_in_vlag && profile.feat(Feature::RUN_TO_PARITY) && root &&
                     shorter && root->min_slice != shortest;
  s.report(Id::PROT, "set_next_entity / set_protect_slice (real pick)",
           fmt::format("{} was picked and protected for {} ns (virtual, up to {}), beyond the {} ns of the "
                       "shortest request queued ({} ns{}); its own slice is {} ns{}",
                       entity_name(s.rq, &se), format_i128(granted), *end, allowed, limit,
                       profile.feat(Feature::RUN_TO_PARITY) && shorter
                           ? fmt::format(", {}", entity_name(s.rq, shorter))
                           : ", one normalized base slice",
                       se.slice,
                       stale ? fmt::format(" (the queue's min_slice augment was stale: {} ns)", root->min_slice)
                             : ""),
           {&se});
}

// Rule 1 after every operation: never beyond the deadline.
void check_protection(const CheckScope& s) {
  if (!s.on(Id::PROT)) return;
  const SchedEntity* curr = s.cfs.curr;
  if (!curr || !curr->on_rq) return;
  const std::optional<u64> end = protection_end(s.rq, *curr);
  if (!end) return;
  if (s.known(s.checker.stale_vprot(*curr))) return;  // F1, F6 or F7 (docs/findings/): a stale vprot
  if (vruntime_diff(*end, curr->deadline) > 0)
    s.report(Id::PROT, "set_protect_slice / update_protect_slice",
             fmt::format("curr is protected up to vprot {} beyond its deadline {}", *end, curr->deadline), {curr});
}

// Rule 3's test, after an operation in which se stayed curr without a real pick.
bool protection_grew(const Checker& checker, const SchedEntity& se, i128 before, i128 now, u64 reweight_rounding,
                     bool lag_clamped) {
  // each reweight rescales end - V and V - v separately, each truncated toward
  // zero: the protected run can come out less than one virtual ns longer, at
  // that reweight's new weight (several reweights in one operation: the sum)
  if (now <= before + static_cast<i128>(reweight_rounding)) return false;
  if (checker.known(checker.stale_vprot(se))) return false;  // F1, F6 or F7: a stale vprot
  // F7: a reweight that clamps the lag moves v by the clamp while end stays
  // rescaled around V, as it leaves the deadline
  return !checker.known(Finding::F7, lag_clamped);
}

// Rule 3, after an operation in which se stayed curr without a real pick.
void check_protection_kept(const CheckScope& s, const SchedEntity& se, i128 before, i128 now) {
  if (now <= before) return;
  const u64 w = eevdf_load_of(s.rq, se).weight;
  s.report(Id::PROT, "between picks (sched_change set_next_entity / reweight / wake-up)",
           fmt::format("the protected run left to {} grew from {} to {} (w·(end − v), weight now {}: {} ns of "
                       "real time) although it was not picked",
                       entity_name(s.rq, &se), format_i128(before), format_i128(now), w,
                       format_i128(now / static_cast<i128>(kNice0Load))),
           {&se});
}

// Rule 3 at the event, where set_next_entity() arms only at a real pick: a
// set_next_entity() that is not one (a sched_change's) moved the end later.
// Between real picks only update_protect_slice() and cancel_protect_slice()
// write it, both backwards, and reweight_entity() rescales it (F1's tolerance
// excuses v moving under a kept end, not a re-armed end).
void check_protection_rearmed(const CheckScope& s, const SchedEntity& se, u64 vprot_before) {
  if (!protect_slice(se) || vruntime_diff(se.vprot, vprot_before) <= 0) return;
  s.report(Id::PROT, "between picks (sched_change set_next_entity)",
           fmt::format("set_next_entity() of {} without a pick moved its protection's end from {} to {} "
                       "(vruntime {}): only a real pick arms it",
                       entity_name(s.rq, &se), vprot_before, se.vprot, se.vruntime),
           {&se});
}

// Rule 4, after every operation, from the state and the backend's count of the
// ticks that charged curr some time (a tick at the clock of curr's last update
// returns early from update_curr() and decides nothing). The count is the CPU's
// (its running task's); a tick charges this queue's curr only if curr's own
// sum_exec_runtime grew in the same operation: with groups a tick can charge the
// task and leave the group entity above it at delta 0 (its queue was updated at
// the same clock by a wake-up), and that level then decides nothing either. Not
// while a next buddy is set: PICK_BUDDY / NEXT_BUDDY run the buddy first, by design.
void check_protection_over_wait(const CheckScope& s, std::vector<ProtectionOverWait>& waits) {
  if (!s.on(Id::PROT)) return;
  ProtectionOverWait* w = nullptr;
  for (ProtectionOverWait& r : waits)
    if (r.cfs == &s.cfs) w = &r;
  if (!w) w = &waits.emplace_back(ProtectionOverWait{&s.cfs});
  const CfsRq& cfs = s.cfs;
  const SchedEntity* curr = cfs.curr && cfs.curr->on_rq ? cfs.curr : nullptr;
  // the entity EEVDF would run, ignoring curr's protection: the earliest deadline
  // among the eligible ones (exact eligibility), curr included
  const SchedEntity* best = curr && exactly_eligible(cfs, s.avg, curr->vruntime) ? curr : nullptr;
  for_each_in_tree(s.avg, [&](const SchedEntity& se) {
    if (exactly_eligible(cfs, s.avg, se.vruntime) && (!best || vruntime_before(se.deadline, best->deadline)))
      best = &se;
  });
  const bool waiting = curr && best && best != curr && !best->sched_delayed && !cfs.next &&
                       !protection_end(s.rq, *curr);
  if (!waiting) {
    w->waiter = nullptr;
    return;
  }
  const bool same = w->waiter == best && w->curr == curr && w->curr_picked_at == curr->prev_sum_exec_runtime &&
                    w->waiter_ran == best->sum_exec_runtime;
  if (!same) {
    *w = ProtectionOverWait{&cfs,
                            best,
                            curr,
                            curr->prev_sum_exec_runtime,
                            best->sum_exec_runtime,
                            s.rq.charged_ticks,
                            curr->sum_exec_runtime,
                            s.rq.clock_task,
                            curr->deadline,
                            eevdf_load_of(s.rq, *curr).weight};
    return;
  }
  // A reweight of curr (reweight_entity(): a cpu.shares write, a renice, update_cfs_group())
  // rescales its deadline around V and keeps the real time left of the request: the same
  // request, whose end is read again at the new weight, not a renewal. (A renewal in the
  // operation that reweighted is then reported at the site without the renewal.)
  if (const u64 weight = eevdf_load_of(s.rq, *curr).weight; weight != w->curr_weight) {
    w->curr_weight = weight;
    w->curr_deadline = curr->deadline;
  }
  const u64 ticks = s.rq.charged_ticks - w->ticks;
  const bool charged = ticks != 0 && curr->sum_exec_runtime != w->curr_ran;
  w->ticks = s.rq.charged_ticks;
  w->curr_ran = curr->sum_exec_runtime;
  if (!charged) return;
  // curr has served the whole request it had when the wait began and has a new one: the
  // renewal's own reschedule (update_deadline()'s, every profile) did not happen either,
  // a failure apart from a missed end of protection (0b9ca2dcabc3)
  if (vruntime_diff(curr->vruntime, w->curr_deadline) >= 0 && vruntime_diff(curr->deadline, w->curr_deadline) > 0) {
    s.report(Id::PROT, "entity_tick / update_curr (request renewed)",
             fmt::format("{} has the earliest eligible deadline ({}) and curr {} is not protected, but {} tick(s) "
                         "charging it and {} ns later {} still runs, past the end of its request ({}) and with a "
                         "new one (deadline {}): the tick that renewed it should have rescheduled it",
                         entity_name(s.rq, best), best->deadline, entity_name(s.rq, curr), ticks,
                         s.rq.clock_task - w->clock, entity_name(s.rq, curr), w->curr_deadline, curr->deadline),
             {best, curr});
    return;
  }
  s.report(Id::PROT, "entity_tick / update_curr (protection over)",
           fmt::format("{} has the earliest eligible deadline ({}) and curr {} is not protected (v {}, protection "
                       "ended), but {} tick(s) charging it and {} ns later {} still runs: the first tick should "
                       "have rescheduled it",
                       entity_name(s.rq, best), best->deadline, entity_name(s.rq, curr), curr->vruntime, ticks,
                       s.rq.clock_task - w->clock, entity_name(s.rq, curr)),
           {best, curr});
}

}  // namespace eevdf::inv

namespace eevdf::inv {

bool lone_fair_entity(const Rq& rq) {
  const Task* p = rq.task(rq.curr);
  if (!p || !p->se.on_rq) return false;
  if (rq.profile().behaviour.flat_runqueue) return rq.cfs.h_nr_queued == 1;  // every task on rq->cfs
  for (const SchedEntity* se = &p->se; se; se = se->parent)
    if (!se->cfs_rq || se->cfs_rq->nr_queued != 1) return false;
  return rq.cfs.h_nr_queued == 1;
}

// Rule 5, after every operation, from the state at the end of the last one and
// the backend's count of fair ticks that rescheduled (Rq::fair_tick_rescheds):
// only time operations tick, and none adds a fair entity (but an unthrottle by
// CPU bandwidth control's timers, which lifts the rule for that operation), so
// an entity lone before the operation is lone at each of its ticks.
void check_lone_tick(const CheckScope& s, LoneTickWatch& w) {
  const Rq& rq = s.rq;
  if (&s.cfs != &rq.cfs) return;  // once per CPU
  const LoneTickWatch before = w;
  w = LoneTickWatch{lone_fair_entity(rq), rq.curr, rq.fair_tick_rescheds, rq.unthrottles};
  if (!s.on(Id::PROT) || !before.lone || rq.fair_tick_rescheds == before.rescheds) return;
  // CPU bandwidth control: the period timer's unthrottle adds entities while time passes
  if (rq.unthrottles != before.unthrottles) return;
  const Task* p = rq.task(before.curr);
  if (!p) return;
  s.report(Id::PROT, "entity_tick / update_curr (lone entity)",
           fmt::format("{} was the only fair entity queued on its CPU (nr_queued 1 on every level{}), yet {} "
                       "tick(s) of the fair class rescheduled it (rq->nr_running {}{})",
                       p->name, rq.profile().behaviour.flat_runqueue ? ", h_nr_queued 1" : "",
                       rq.fair_tick_rescheds - before.rescheds, rq.nr_running,
                       rq.rt_queue.empty() ? "" : fmt::format(", {} RT task(s) queued", rq.rt_queue.size())),
           {&p->se});
}

}  // namespace eevdf::inv
