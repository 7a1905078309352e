// The checker's bookkeeping: what it remembers of every entity from operation
// to operation and inside one (the Observer hooks record the events), the
// snapshots of the state before and after, and the calls of the families'
// checks (one file each: accounting, average, tree, lag, reweight, deadline,
// delay, protection, pick, fairness, placement, monotonic, warnings, pelt,
// wake_cpu), which judge.
#include "invariants/checker.hpp"

#include <algorithm>

#include "model/fair.hpp"

namespace eevdf::inv {

const WeightBounds& Checker::recompute_bounds(const SchedEntity& se) {
  WeightBounds& b = bounds_[entity_slot(se)];
  LoadWeight lw = eevdf_load_of(*rq_, se);
  b.weight = lw.weight;
  b.max_slice = max_slice_seen_;
  b.lag_bound = lag_bound(*rq_, max_slice_seen_, lw.weight);
  b.quantum = rq_->tick_quantum();
  b.key_bound = b.quantum == rq_->profile().tick_nsec() ? b.lag_bound : lag_bound(*rq_, max_slice_seen_, lw.weight, b.quantum);
  b.vslice = calc_delta_fair(max_slice_seen_, lw, rq_->profile().behaviour.calc_delta, null_observer());
  b.vslice += static_cast<u64>(inverse_weight_excess(*rq_, b.vslice));
  return b;
}

void CheckScope::report(Id id, std::string where, std::string what, std::vector<const SchedEntity*> entities) const {
  Violation v;
  v.id = id;
  v.where = std::move(where);
  v.what = std::move(what);
  for (const SchedEntity* se : entities)
    if (se) v.entities.push_back(snapshot(rq, *se));
  checker.add(std::move(v));
}

void Checker::attach(Rq& rq) {
  if (!checking_) return;
  rq_ = &rq;
  rq.set_observer(this);
  adopt_new_tasks();
}

void Checker::add(Violation v) {
  if (violations_.size() >= kMaxViolations) return;
  if (v.op_index < 0) v.op_index = op_index_;
  // one report per invariant and operation is enough
  for (const auto& old : violations_)
    if (old.id == v.id && old.op_index == v.op_index) return;
  violations_.push_back(std::move(v));
}


void Checker::adopt(std::size_t i, const SchedEntity& se) {
  stale_vprot_[i] = Finding::none;
  rescaled_deadline_[i] = {};
  delayed_before_[i] = se.sched_delayed;
  asleep_before_[i] = false;  // adopted during an operation: its placement is not judged
  ever_queued_[i] = se.on_rq;
  lag_at_delay_[i] = 0;
  prot_left_[i] = 0;
  prot_known_[i] = false;
  picked_[i] = false;
  reweight_rounding_[i] = 0;
  lag_clamped_[i] = false;
  delay_seen_[i] = false;
  was_curr_[i] = false;
  queue_before_[i] = se.cfs_rq;
  vruntime_before_[i] = se.vruntime;
  deadline_before_[i] = se.deadline;
  slice_before_[i] = se.slice;
  on_rq_before_[i] = se.on_rq;
  weight_before_[i] = eevdf_load_of(*rq_, se).weight;
  vprot_armed_[i] = se.vprot;
  bounds_[i] = WeightBounds{};
}

void Checker::adopt_new_tasks() {
  for (std::size_t i = known_tasks_; i < rq_->tasks.size(); ++i) adopt(i, rq_->tasks[i].se);
  known_tasks_ = rq_->tasks.size();
  for (std::size_t g = known_groups_; g < rq_->groups.size(); ++g) adopt(kMaxTasks + g, rq_->groups[g].se);
  known_groups_ = rq_->groups.size();
}

namespace {
// Calls f(se) for every entity of this runqueue: the tasks on its CPU (with
// several runqueues the task table is shared) and every group's entity.
template <class F>
void for_each_entity(const Rq& rq, F f) {
  for (const Task& t : rq.tasks)
    if (t.cpu == rq.cpu) f(t.se);
  for (const TaskGroupCpu& g : rq.groups) f(g.se);
}
// On the v7.3 flat runqueue a grouped task is curr of rq->cfs, not of its own queue.
bool is_curr(const Rq& rq, const SchedEntity& se) {
  return (se.cfs_rq && se.cfs_rq->curr == &se) || rq.cfs.curr == &se;
}
}  // namespace

void Checker::begin_op(int op_index, OpClass cls) {
  if (!checking_) return;
  adopt_new_tasks();
  op_index_ = op_index;
  op_class_ = cls;  // the previous end_op() already noted this state's slices
  clock_before_ = rq_->clock_task;
  unthrottles_before_ = rq_->unthrottles;
  // A task on another CPU may arrive during this operation: what this checker
  // remembers of it starts from its state now (a delayed one with its saved lag).
  // (With one runqueue every task is on it.)
  for (const Task& t : rq_->tasks) {
    if (rq_->possible_cpus().size() <= 1) break;
    if (t.cpu == rq_->cpu) continue;
    const std::size_t i = entity_slot(t.se);
    delayed_before_[i] = t.se.sched_delayed;
    // a delayed one's lag at its delay is the one its CPU's checker took
    // (share_end_records(), after the last operation); se->vlag holds it only
    // from v7.1 on (059258b0d424)
    vruntime_before_[i] = t.se.vruntime;
    deadline_before_[i] = t.se.deadline;
    slice_before_[i] = t.se.slice;
    on_rq_before_[i] = t.se.on_rq;
    weight_before_[i] = eevdf_load_of(*rq_, t.se).weight;
    vprot_armed_[i] = t.se.vprot;
    was_curr_[i] = false;
    queue_before_[i] = t.se.cfs_rq;
    prot_known_[i] = false;
    asleep_before_[i] = !t.se.on_rq;
  }
  const bool flat = rq_->profile().behaviour.flat_runqueue;  // eevdf_load_of(), read once
  for_each_entity(*rq_, [&](const SchedEntity& se) __attribute__((always_inline)) {
    const std::size_t i = entity_slot(se);
    vruntime_before_[i] = se.vruntime;
    deadline_before_[i] = se.deadline;
    slice_before_[i] = se.slice;
    on_rq_before_[i] = se.on_rq;
    weight_before_[i] = flat && se.task_id >= 0 ? se.h_load.weight : se.load.weight;
    vprot_armed_[i] = se.vprot;
    was_curr_[i] = is_curr(*rq_, se);
    queue_before_[i] = se.cfs_rq;
    asleep_before_[i] = entity_is_task(se) && !se.on_rq;
  });
}

// The per-queue families on one queue (root or a group's).
void Checker::check_queue(const CfsRq& cfs_rq, ExactAverage& avg) {
  Rq& rq = *rq_;
  avg.kernel_offset = avg_vruntime_offset(cfs_rq, null_observer());
  const CheckScope scope{rq, selection_, avg, max_slice_seen_, *this, cfs_rq};
  check_accounting(scope);
  if (&cfs_rq == &rq.cfs) {
    check_wake_cpu(scope);
    check_idle(scope);
  }
  check_pelt(scope);
  check_bandwidth(scope);
  // v7.3 flat runqueue: a group's queue keeps load and counters only (no tree, no curr)
  if (rq.profile().behaviour.flat_runqueue && &cfs_rq != &rq.cfs) return;
  check_tree(scope);
  check_average(scope);
  check_lag(scope);
  check_deadline(scope);
  check_protection(scope);
  check_protection_over_wait(scope, over_wait_);
  check_lone_tick(scope, lone_tick_);
  check_delay(scope);
}

Checker::EndWalk Checker::walk_end_records(std::vector<const SchedEntity*>* touched) {
  Rq& rq = *rq_;
  // One walk over this CPU's entities before the queue checks:
  // - a deadline a reweight left is followed from operation to operation: running
  //   keeps d and moves v, a sched_change re-placement keeps d - v and moves d;
  //   the record takes the present d and d - v (a new request matches neither);
  // - F6: a task that changed queue keeps a vprot of the old queue until a real pick;
  // - the largest slice queued anywhere on this CPU: with groups every queued
  //   entity's (each one is in its queue's tree or its curr; on the flat runqueue
  //   only tasks are queued for EEVDF, all on the root), else the root queue's.
  const bool flat = rq.profile().behaviour.flat_runqueue;
  EndWalk w;
  // ... and, in the same walk (reported after the queue checks), I-MONO
  // (monotonic.cpp) and I-DELAY's transitions (delay.cpp): the lag a delayed
  // entity leaves with against the one it was delayed with. Only the first
  // report of an invariant in an operation is kept (add()): each walk notes its
  // first offender, reported after it, I-MONO's before I-DELAY's.
  // (an unthrottle in a time operation, CPU bandwidth control's period timer,
  // places the group entities it enqueues: the operation is then a placement)
  const bool mono = selection_[Id::MONO] && op_class_ == OpClass::running && rq.unthrottles == unthrottles_before_;
  // ... and I-PROT between picks (protection.cpp): the protected run left to an
  // entity that stayed curr without a real pick may only shrink (reported after the others)
  // ... and I-DL's fresh request (deadline.cpp): a task that joins from sleep in
  // an operation that moves no time (a wake-up) gets d - v of one virtual slice
  const bool fresh_check = selection_[Id::DL] && op_class_ == OpClass::placement && rq.clock_task == clock_before_;
  for_each_entity(rq, [&](const SchedEntity& se) __attribute__((always_inline)) {
    const std::size_t i = entity_slot(se);
    if (touched && (se.vruntime != vruntime_before_[i] || se.deadline != deadline_before_[i] ||
                    se.slice != slice_before_[i] || se.on_rq != on_rq_before_[i] || se.cfs_rq != queue_before_[i] ||
                    (flat && se.task_id >= 0 ? se.h_load.weight : se.load.weight) != weight_before_[i]))
      touched->push_back(&se);
    if (rescaled_deadline_[i].set) {
      if (const RescaledDeadline* r = rescaled_deadline(se)) {
        RescaledDeadline& d = rescaled_deadline_[i];
        d = {true, r->clamped, false, se.deadline, r->excess, se.deadline - se.vruntime};
      }
    }
    if (entity_is_task(se) && se.cfs_rq != queue_before_[i]) stale_vprot_[i] = Finding::F6;
    if (asleep_before_[i] && se.on_rq && !w.fresh.se && fresh_check) {
      w.fresh.first = !ever_queued_[i];
      if (fresh_request_offends(rq, se, w.fresh)) w.fresh.se = &se;
    }
    if (se.on_rq) ever_queued_[i] = true;
    // a task on a limbo list (v6.18's throttle) comes back with its slice at the unthrottle,
    // possibly inside an operation that throttles it again: update_entity_lag() of its
    // group entity, the queue's curr then, counts that slice (cfs_rq_max_slice())
    const bool limbo = entity_is_task(se) && rq.task_of(se).throttled;
    if ((se.on_rq || limbo) && (entity_is_task(se) || !flat) && se.slice > w.largest_queued)
      w.largest_queued = se.slice;
    const CfsRq* q = flat ? eevdf_queue_of(rq, se) : se.cfs_rq;  // eevdf_queue_of()
    const bool curr = q && q->curr == &se && se.on_rq;
    const i128 left = curr ? protected_run_left(rq, se) : 0;
    if (!w.prot_se && selection_[Id::PROT] && curr && prot_known_[i] && !picked_[i] &&
        protection_grew(*this, se, prot_left_[i], left, reweight_rounding_[i], lag_clamped_[i])) {
      w.prot_se = &se;
      w.prot_q = q;
      w.prot_before = prot_left_[i];
      w.prot_now = left;
    }
    prot_known_[i] = curr;
    prot_left_[i] = left;
    picked_[i] = false;
    reweight_rounding_[i] = 0;
    lag_clamped_[i] = false;
    if (mono && !w.mono_se) {
      const s64 moved = vruntime_diff(se.vruntime, vruntime_before_[i]);
      if (vruntime_offends(moved, was_curr_[i])) {
        w.mono_se = &se;
        w.mono_moved = moved;
      }
    }
    const bool delay_seen = delay_seen_[i];
    delay_seen_[i] = false;
    if (delayed_before_[i] == se.sched_delayed) return;  // no transition
    delayed_before_[i] = se.sched_delayed;
    if (se.sched_delayed) {
      // taken at the delay itself (on_delayed()) where the backend says when:
      // later in the operation V and the largest slice may have moved
      if (!delay_seen) lag_at_delay_[i] = delay_lag(rq, se);
      return;
    }
    if (!selection_[Id::DELAY] || w.delay_se) return;
    if (delay_debt_grew(rq, se, lag_at_delay_[i], w.delay_left_with)) {
      w.delay_se = &se;
      w.delay_had = lag_at_delay_[i];
    }
  });
  return w;
}

void Checker::raise_max_slice_seen(const ExactAverage& root, const EndWalk& w) {
  const Rq& rq = *rq_;
  u64 largest = root.max_slice;
  if (!rq.groups.empty() && w.largest_queued > largest) largest = w.largest_queued;
  // After a base_slice_ns write, update_deadline() can take the new base slice inside
  // an operation that then sets another slice (sched_setattr() of the running task:
  // the dequeue's update_curr() renews the deadline, then __setparam_fair()), so a
  // deadline may lie one new base slice ahead though no entity holds it afterwards.
  // (Without a write the base slice is no larger than before: nothing changes.)
  if (!rq.earlier_base_slices.empty() && rq.profile().sysctl_sched_base_slice() > largest)
    largest = rq.profile().sysctl_sched_base_slice();
  if (largest > max_slice_seen_) max_slice_seen_ = largest;
}

void Checker::report_end_walk(const EndWalk& w) {
  Rq& rq = *rq_;
  ExactAverage none;
  const CheckScope scope{rq, selection_, none, max_slice_seen_, *this, rq.cfs};
  if (w.fresh.se) report_fresh_request(scope, w.fresh);
  if (w.mono_se) report_vruntime(scope, *w.mono_se, w.mono_moved);
  if (w.delay_se) report_delay_debt(scope, *w.delay_se, w.delay_left_with, w.delay_had);
  if (w.prot_se)
    without_average(*w.prot_q, [&](const CheckScope& s) { check_protection_kept(s, *w.prot_se, w.prot_before, w.prot_now); });
}

void Checker::end_op() {
  if (!checking_) return;
  Rq& rq = *rq_;
  adopt_new_tasks();  // tasks and groups created by this operation (create, fork, group)
  queues_.build(rq);
  const EndWalk w = walk_end_records(nullptr);
  ExactAverage avg = exact_average_and_tree(rq.cfs);
  raise_max_slice_seen(avg, w);
  check_queue(rq.cfs, avg);
  const CheckScope scope{rq, selection_, avg, max_slice_seen_, *this, rq.cfs};
  // I-FAIR's shares are weight / Σ weight of one queue: tasks-only runs
  if (selection_[Id::FAIR] && rq.groups.empty()) fairness_.update(scope, op_class_ == OpClass::running);
  for (const TaskGroupCpu& g : rq.groups) {
    ExactAverage group_avg = exact_average_and_tree(g.cfs_rq);
    check_queue(g.cfs_rq, group_avg);
  }
  report_end_walk(w);
}

void Checker::check_queue_incremental(const CfsRq& cfs_rq, ExactAverage& avg) {
  Rq& rq = *rq_;
  avg.kernel_offset = avg_vruntime_offset(cfs_rq, null_observer());
  const CheckScope scope{rq, selection_, avg, max_slice_seen_, *this, cfs_rq};
  if (selection_[Id::SUM]) check_sums(scope);
  if (&cfs_rq == &rq.cfs) check_idle(scope);
  check_pelt(scope);
  check_bandwidth(scope);
  // v7.3 flat runqueue: a group's queue keeps load and counters only (no tree, no curr)
  if (rq.profile().behaviour.flat_runqueue && &cfs_rq != &rq.cfs) return;
  if (selection_[Id::AUG]) {
    note_tree_incremental(cfs_rq, touched_, avg);
    check_tree(scope);
  }
  check_average_incremental(scope);
  if (selection_[Id::LAG]) check_lags_sum(scope, avg.kernel_offset);
  // the run-long watches, kept as end_op() keeps them
  check_protection_over_wait(scope, over_wait_);
  check_lone_tick(scope, lone_tick_);
}

void Checker::end_op_incremental() {
  if (!checking_) return;
  Rq& rq = *rq_;
  adopt_new_tasks();
  touched_.clear();
  const EndWalk w = walk_end_records(&touched_);
  ExactAverage avg = exact_average(rq.cfs);
  raise_max_slice_seen(avg, w);
  check_queue_incremental(rq.cfs, avg);
  const CheckScope scope{rq, selection_, avg, max_slice_seen_, *this, rq.cfs};
  if (selection_[Id::FAIR] && rq.groups.empty()) fairness_.update(scope, op_class_ == OpClass::running);
  for (const TaskGroupCpu& g : rq.groups) {
    ExactAverage group_avg = exact_average(g.cfs_rq);
    check_queue_incremental(g.cfs_rq, group_avg);
  }
  check_deadline_touched(scope, touched_);
  check_lag_touched(scope, touched_);
  report_end_walk(w);
}

void Checker::end_op_untouched() {
  if (!checking_) return;
  Rq& rq = *rq_;
  adopt_new_tasks();
  // I-FAIR's window restarts at every operation that is not only running, on
  // every CPU: as end_op() would (an untouched CPU's tasks received nothing)
  if (selection_[Id::FAIR] && rq.groups.empty())
    without_average(rq.cfs, [&](const CheckScope& s) { fairness_.update(s, op_class_ == OpClass::running); });
}

void Checker::check_queues_now() {
  if (!checking_) return;
  Rq& rq = *rq_;
  queues_.build(rq);
  ExactAverage avg = exact_average_and_tree(rq.cfs);
  check_queue(rq.cfs, avg);
  for (const TaskGroupCpu& g : rq.groups) {
    ExactAverage group_avg = exact_average_and_tree(g.cfs_rq);
    check_queue(g.cfs_rq, group_avg);
  }
}

void Checker::on_pick(const CfsRq& cfs_rq, const SchedEntity* result, bool protect, PickCaller caller) {
  if (!checking_) return;
  const bool after_idle_preempt = caller == PickCaller::schedule && idle_preempted_;
  if (!after_idle_preempt && !selection_[Id::PICKOPT] && !selection_[Id::NULLPICK] && !selection_[Id::DELAY]) return;
  // the pick that follows a preemption of a SCHED_IDLE curr, at the level where it was decided
  const bool idle_level = after_idle_preempt && &cfs_rq == idle_preempted_->cfs_rq;
  with_average(cfs_rq, [&](const CheckScope& s) {
    check_pick(s, result, protect, caller);
    if (idle_level && result == idle_preempted_ && cfs_rq.curr == result && protect)
      check_pick_after_idle_preempt(s, result);
  });
  if (!after_idle_preempt) return;
  if (idle_level) {
    idle_preempted_ = nullptr;
    return;
  }
  // above it, the pick goes on down only through the entity's ancestors
  const SchedEntity* path = idle_preempted_->parent;
  while (path && path != result) path = path->parent;
  if (!result || path != result) idle_preempted_ = nullptr;
}

void Checker::on_placed(const CfsRq& cfs_rq, const SchedEntity& se, s64 saved_lag) {
  if (!checking_) return;
  if (selection_[Id::PLACE]) with_average(cfs_rq, [&](const CheckScope& s) { check_placement(s, se, saved_lag); });
}

void Checker::on_lag_clamp(const CfsRq& cfs_rq, const SchedEntity& se, s64 raw, s64 clamped) {
  if (!checking_) return;
  if (!selection_[Id::LAG] || raw == clamped) return;  // nothing clamped, nothing to judge
  with_average(cfs_rq, [&](const CheckScope& s) { check_lag_clamp(s, se, raw, clamped); });
}

void Checker::on_avg_vruntime(const CfsRq& cfs_rq, u64 v) {
  if (!checking_) return;
  if (selection_[Id::LAG]) with_sums(cfs_rq, [&](const CheckScope& s) { check_avg_vruntime(s, v); });
}

void Checker::on_read_avg(const CfsRq& cfs_rq, const char* caller) {
  if (!checking_) return;
  if (selection_[Id::FRESH]) without_average(cfs_rq, [&](const CheckScope& s) { check_fresh_read(s, caller); });
}

void Checker::on_overflow(const OverflowEvent& e) { check_overflow(*this, e, reweighting_); }

void Checker::on_warn(Warn w, const SchedEntity* se) { check_warn(*this, rq_, w, se); }

void Checker::on_wakeup_preempt(const CfsRq& cfs_rq, const SchedEntity& wakee, WakeupPreemptReason reason) {
  if (!checking_) return;
  if (!selection_[Id::WAKEPICK]) return;
  if (reason == WakeupPreemptReason::idle_curr && rq_->curr >= 0) {
    idle_preempted_ = matching_levels(&rq_->tasks[static_cast<std::size_t>(rq_->curr)].se, &wakee).first;
  }
  with_average(cfs_rq, [&](const CheckScope& s) { check_wakeup_preempt(s, wakee, reason); });
}

void Checker::on_set_next(const SchedEntity& se, bool first) {
  if (!checking_) return;
  adopt_new_tasks();
  const std::size_t i = entity_slot(se);
  if (first) {
    stale_vprot_[i] = Finding::none;
    picked_[i] = true;
    const CfsRq* q = eevdf_queue_of(*rq_, se);
    // the pick rule walks the tree for slices only
    if (selection_[Id::PROT] && q && q->curr == &se && se.on_rq)
      without_average(*q, [&](const CheckScope& s) { check_protection_at_pick(s, se); });
  }
  // F1/F6: set_next_task(first = false) after a sched_change of the running
  // task re-arms no level's protection, while the levels that were dequeued
  // are re-placed (bcd74b2ffdd0): their vprot stays from before
  if (!first && rq_->profile().behaviour.protect_only_first) {
    stale_vprot_[i] = Finding::F1;
    const CfsRq* q = eevdf_queue_of(*rq_, se);
    if (selection_[Id::PROT] && q)
      without_average(*q, [&](const CheckScope& s) { check_protection_rearmed(s, se, vprot_armed_[i]); });
  }
  vprot_armed_[i] = se.vprot;
  was_curr_[i] = true;
}

void Checker::on_delayed(const SchedEntity& se) {
  if (!checking_) return;
  adopt_new_tasks();
  const std::size_t i = entity_slot(se);
  lag_at_delay_[i] = delay_lag(*rq_, se);
  delay_seen_[i] = true;
}

void Checker::on_wake_choice(const WakeCpuChoice& c) {
  if (!checking_) return;
  adopt_new_tasks();
  if (selection_[Id::WAKECOUNT]) check_wake_choice(*this, *rq_, c);
}

void Checker::on_reweight_begin(const CfsRq& cfs_rq, const SchedEntity& se, u64 new_weight) {
  if (!checking_) return;
  adopt_new_tasks();
  mono_moved_ = vruntime_diff(se.vruntime, vruntime_before_[entity_slot(se)]);
  // F1: off the queue (a sched_change) vprot is not rescaled
  if (!se.on_rq) stale_vprot_[entity_slot(se)] = Finding::F1;
  // F7: the running entity's vprot is rescaled only while it protects
  // (ff38424030f9); an expired one stays absolute while the rescaled, clamped
  // lag can move vruntime back below it
  if (se.on_rq && cfs_rq.curr == &se && !protect_slice(se)) stale_vprot_[entity_slot(se)] = Finding::F7;
  if (selection_[Id::DELAY])
    without_average(cfs_rq, [&](const CheckScope& s) { check_delayed_reweight(s, se, new_weight); });
  rw_ = {};
  reweighting_ = &se;
  rw_.on_rq = se.on_rq;
  rw_.old_weight = eevdf_weight(cfs_rq, se);
  rw_.new_weight = new_weight;
  rw_.vlag = se.vlag;
  if (!selection_[Id::RW] && !se.on_rq) return;
  rw_.active = selection_[Id::RW];
  if (!se.on_rq) return;
  rw_.queued_begun = true;
  if (const RescaledDeadline* before = rescaled_deadline(se)) {
    rw_.prior_excess = before->excess;
    rw_.prior_clamped = before->clamped;
  }
  note_queued_reweight(*rq_, cfs_rq, se, rw_);
  if (rw_.clamped) lag_clamped_[entity_slot(se)] = true;  // F7 moves v, not end, with the protection
}

// A sched_change's dequeue makes the deadline d - v. A record still current
// just before (d unchanged since, or d - v unchanged since) follows it in that
// form: the operation's update_curr() may have moved v first, and the
// placement at its end moves v again (rounding), so neither absolute test
// would match afterwards.
void Checker::on_deadline_made_relative(const SchedEntity& se) {
  if (!checking_) return;
  adopt_new_tasks();
  RescaledDeadline& r = rescaled_deadline_[entity_slot(se)];
  if (!r.set || r.relative) return;
  const u64 absolute = se.deadline + se.vruntime;  // wraps as the kernel's u64 does
  if (r.deadline == absolute || r.distance == se.deadline) r = {true, r.clamped, true, se.deadline, r.excess, 0};
}

// Off the queue (a sched_change, or the v7.3 enqueue before placement) the
// deadline is d - v, which the next placement keeps: one truncated rescale of
// d - v, carrying the drift (and an F7 mark) of the reweight that left d, if d
// is still that one. (A queued reweight's d - V is recorded at its end.)
void Checker::on_relative_deadline_rescaled(const SchedEntity& se, u64 old_relative, u64 old_weight,
                                            u64 new_weight) {
  if (!checking_) return;
  if (rw_.queued_begun) return;
  adopt_new_tasks();
  RescaledDeadline& r = rescaled_deadline_[entity_slot(se)];
  const bool carried = r.set && (r.relative ? r.deadline == old_relative
                                             : r.deadline == old_relative + se.vruntime || r.distance == old_relative);
  const u64 excess = rescaled_deadline_excess(*rq_, max_slice_seen_, carried ? r.excess : 0, old_weight, new_weight);
  r = {true, carried && r.clamped, true, se.deadline, excess, 0};
}

void Checker::on_load_set(const SchedEntity& se, u64 old_weight) {
  if (!checking_) return;
  adopt_new_tasks();
  if (selection_[Id::RW]) without_average(*se.cfs_rq, [&](const CheckScope& s) { check_load_set(s, se, old_weight); });
}

void Checker::on_reweight_end(const CfsRq& cfs_rq, const SchedEntity& se) {
  if (!checking_) return;
  reweighting_ = nullptr;
  vprot_armed_[entity_slot(se)] = se.vprot;
  reweight_rounding_[entity_slot(se)] += eevdf_load_of(*rq_, se).weight;
  // v7.3 flat runqueue: set_next_task_fair() and task_tick_fair() reweight the
  // running task; I-MONO then measures running from the reweighted vruntime
  if (rq_->profile().behaviour.flat_runqueue) vruntime_before_[entity_slot(se)] = se.vruntime;
  // A queued group entity is reweighted by update_cfs_group() while its CPU
  // runs too (entity_tick(), the dequeue of a delayed task at a pick) once its
  // share depends on the group's load on other CPUs; reweight_entity() moves
  // its vruntime to V - vlag' by design (I-RW checks where). I-MONO keeps
  // what it moved before the reweight and measures from the new vruntime.
  else
    vruntime_before_[entity_slot(se)] = se.vruntime - as_u64(mono_moved_);
  if (rw_.queued_begun) {
    rw_.queued_begun = false;
    const u64 excess =
        rescaled_deadline_excess(*rq_, max_slice_seen_, rw_.prior_excess, rw_.old_weight, rw_.new_weight);
    const bool clamped = rw_.clamped || rw_.prior_clamped;
    rescaled_deadline_[entity_slot(se)] = {true, clamped, false, se.deadline, excess, se.deadline - se.vruntime};
  }
  if (!rw_.on_rq) {
    // I-LAG: the saved vlag was clamped at the old weight, at most lag_bound(w) (or what an
    // earlier rescale carried), and rescaled off the queue
    const u64 w = rw_.old_weight, w2 = eevdf_weight(cfs_rq, se);
    if (w > 0 && w2 > 0) {
      const RescaledLag& prev = rescaled_lag_[entity_slot(se)];
      u64 old_limit = lag_bound(*rq_, max_slice_seen_, w);
      if (prev.set && prev.vlag == rw_.vlag && prev.weight == w) old_limit = std::max(old_limit, prev.limit);
      rescaled_lag_[entity_slot(se)] = {true, se.vlag, w2, rescaled_lag_bound(old_limit, w, w2)};
    }
  }
  if (!rw_.active) return;
  rw_.active = false;
  with_average(cfs_rq, [&](const CheckScope& s) { check_reweight(s, se, rw_); });
}

void Checker::share_record(const SchedEntity& se, Checker& other) const {
  if (!checking_) return;
  const std::size_t i = entity_slot(se);
  other.rescaled_deadline_[i] = rescaled_deadline_[i];
  other.stale_vprot_[i] = stale_vprot_[i];
  if (se.sched_delayed) other.lag_at_delay_[i] = lag_at_delay_[i];
}

}  // namespace eevdf::inv
