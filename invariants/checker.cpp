#include "invariants/checker.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "model/fair.hpp"

namespace eevdf::inv {

ExactAverage exact_average(const CfsRq& cfs_rq) {
  ExactAverage a;
  const bool flat = cfs_rq.rq->profile().behaviour.flat_runqueue;
  const u64 zero = cfs_rq.zero_vruntime;
  auto add = [&](const SchedEntity& se) {
    if (a.queued < a.entities.size()) a.entities[a.queued++] = &se;
    const u64 full = flat && entity_is_task(se) ? se.h_load.weight : se.load.weight;  // eevdf_weight()
    const u64 w = avg_vruntime_weight(cfs_rq, full);
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

namespace {
// A bound computed in 128 bits, held in the kernel's u64 (saturating).
u64 saturate_u64(u128 x) { return x > ~u64{0} ? ~u64{0} : static_cast<u64>(x); }

// The real time entity_lag() clamps to: max_slice + TICK_NSEC (6e3c0a4e1ad1),
// before it max(2 * slice, TICK_NSEC).
u64 lag_span(const Rq& rq, u64 max_slice, u64 quantum) {
  const u64 tick = quantum ? quantum : rq.profile().tick_nsec();
  return rq.profile().behaviour.lag_limit_max_slice ? max_slice + tick : std::max(2 * max_slice, tick);
}
}  // namespace

// The profile's lag clamp for the largest slice: calc_delta(max_slice + TICK)
// (6e3c0a4e1ad1), or before it calc_delta(max(2 * slice, TICK)).
u64 lag_bound(const Rq& rq, u64 max_slice, u64 weight, u64 tick) {
  if (weight == 0) return 0;
  const u64 span = lag_span(rq, max_slice, tick);
  const u128 scaled = static_cast<u128>(span) << kNice0LoadShift;
  // a 64-bit division when the dividend fits (it does for any slice up to 2^54 ns): the same quotient
  u128 q = scaled >> 64 ? scaled / weight : static_cast<u64>(scaled) / weight;
  q += inverse_weight_excess(rq, q);
  // The inverse-weight path divides by scale_load_down(w) = floor(w / 1024), not w / 1024:
  // for a group weight that is not a multiple of 1024 the kernel's clamp lies above the
  // exact quotient by up to 1/floor(w / 1024) relative (w = 1024927, 6 ms: 6143999 where the
  // quotient is 6138570), more
  // than the allowance above. The bound is at least the kernel's own clamp.
  if (rq.profile().behaviour.calc_delta == CalcDeltaPath::inverse_weight) {
    LoadWeight lw{weight, 0};
    const u64 kernel = calc_delta_fair(span, lw, CalcDeltaPath::inverse_weight, null_observer());
    if (kernel > q) q = kernel;
  }
  return saturate_u64(q);
}

// The clamp entity_lag() applies, in the kernel's own arithmetic:
// calc_delta_fair(max_slice + TICK_NSEC) (6e3c0a4e1ad1), before it
// calc_delta_fair(max(2 * slice, TICK_NSEC)), on the profile's __calc_delta path.
// lag_bound() is only an upper bound of it (the larger of the exact quotient plus the
// wmult allowance and this value): the inverse-weight path multiplies by floor(0xFFFFFFFF /
// scale_load_down(w)), which for a weight off the nice table lies below 2^32 / w
// (w = 2^28, 6 ms: 23436, where the quotient is 23437.5 and lag_bound() 23438).
// Whether a lag was clamped is decided against this value.
u64 kernel_lag_limit(const Rq& rq, u64 max_slice, LoadWeight lw) {
  return calc_delta_fair(lag_span(rq, max_slice, 0), lw, rq.profile().behaviour.calc_delta, null_observer());
}

// The inverse-weight __calc_delta (up to v7.0) multiplies by sched_prio_to_wmult[],
// whose entries exceed 2^32 / w by up to 9.3e-9 relative (computed over the table):
// a virtual time can exceed the exact quotient by that much, and a reweight's
// rescaling by w_old / w_new keeps the relative excess. Allow 2^-26 (1.5e-8) + 1 ns.
u128 inverse_weight_excess(const Rq& rq, u128 exact) {
  if (rq.profile().behaviour.calc_delta != CalcDeltaPath::inverse_weight) return 0;
  return (exact >> 26) + 1;
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
u64 Checker::rescaled_deadline_excess(u64 prior_excess, u64 w, u64 w2) const {
  const u64 divisor = w2 > 0 ? w2 : 1;
  const u128 scaled = (static_cast<u128>(prior_excess) + 2) * w;
  return saturate_u64((scaled + divisor - 1) / divisor + 4 + rescaled_slice_excess(*rq_, max_slice_seen_, w, w2));
}

std::string entity_name(const Rq& rq, const SchedEntity* se) {
  if (!se) return "NULL";
  if (se->task_id >= 0) return rq.tasks[static_cast<std::size_t>(se->task_id)].name;
  std::string name = "group " + rq.task_groups[static_cast<std::size_t>(se->group_id)].name;
  if (rq.possible_cpus().size() > 1 && se->my_q) name += " on CPU " + std::to_string(se->my_q->rq->cpu);
  return name;
}

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

u64 Checker::rescaled_lag_limit(const SchedEntity& se) const {
  const RescaledLag& r = rescaled_lag_[entity_slot(se)];
  return r.set && r.vlag == se.vlag && r.weight == eevdf_load_of(*rq_, se).weight ? r.limit : 0;
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
  vprot_stale_[i] = false;
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
  adopt_new_tasks();
  op_index_ = op_index;
  op_class_ = cls;  // the previous end_op() already noted this state's slices
  clock_before_ = rq_->clock_task;
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
    vprot_armed_[i] = t.se.vprot;
    was_curr_[i] = false;
    queue_before_[i] = t.se.cfs_rq;
    prot_known_[i] = false;
    asleep_before_[i] = !t.se.on_rq;
  }
  for_each_entity(*rq_, [&](const SchedEntity& se) __attribute__((always_inline)) {
    const std::size_t i = entity_slot(se);
    vruntime_before_[i] = se.vruntime;
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
  if (&cfs_rq == &rq.cfs) check_wake_cpu(scope);
  check_pelt(scope);
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

void Checker::end_op() {
  Rq& rq = *rq_;
  adopt_new_tasks();  // tasks and groups created by this operation (create, fork, group)
  queues_.build(rq);
  // One walk over this CPU's entities before the queue checks:
  // - a deadline a reweight left is followed from operation to operation: running
  //   keeps d and moves v, a sched_change re-placement keeps d - v and moves d;
  //   the record takes the present d and d - v (a new request matches neither);
  // - F6: a task that changed queue keeps a vprot of the old queue until a real pick;
  // - the largest slice queued anywhere on this CPU: with groups every queued
  //   entity's (each one is in its queue's tree or its curr; on the flat runqueue
  //   only tasks are queued for EEVDF, all on the root), else the root queue's.
  const bool flat = rq.profile().behaviour.flat_runqueue;
  u64 largest_queued = 0;
  // ... and, in the same walk (reported after the queue checks), I-MONO (running only moves vruntime forward) and I-DELAY's
  // transitions: the lag a delayed entity leaves with may not be below the one it
  // was delayed with (service units; rounding of a reweight or a re-placement
  // allowed). Both lags are taken from the state, on every profile: clamp(V - v)
  // when it becomes delayed and when a wake-up requeues it, the saved vlag when
  // it is dequeued at last. (v7.1 saves the lag at delay time and keeps the debt
  // from growing; before, a V that sank meanwhile deepens it.) Only the first
  // report of an invariant in an operation is kept (add()): each walk notes its
  // first offender, reported after it, I-MONO's before I-DELAY's.
  const bool mono = selection_[Id::MONO] && op_class_ == OpClass::running;
  const SchedEntity* mono_se = nullptr;
  s64 mono_moved = 0;
  const SchedEntity* delay_se = nullptr;
  i128 delay_lag = 0;
  // ... and I-PROT between picks: the protected run left to an entity that
  // stayed curr without a real pick may only shrink (reported after the others)
  const SchedEntity* prot_se = nullptr;
  const CfsRq* prot_q = nullptr;
  // ... and I-DL's fresh request: a task that joins from sleep in an operation
  // that moves no time (a wake-up) gets d - v of one virtual slice
  FreshRequest fresh;
  const bool fresh_check = selection_[Id::DL] && op_class_ == OpClass::placement && rq.clock_task == clock_before_;
  i128 prot_before = 0, prot_now = 0;
  for_each_entity(rq, [&](const SchedEntity& se) __attribute__((always_inline)) {
    const std::size_t i = entity_slot(se);
    if (rescaled_deadline_[i].set) {
      if (const RescaledDeadline* r = rescaled_deadline(se)) {
        RescaledDeadline& w = rescaled_deadline_[i];
        w = {true, r->clamped, false, se.deadline, r->excess, se.deadline - se.vruntime};
      }
    }
    if (entity_is_task(se) && se.cfs_rq != queue_before_[i]) vprot_stale_[i] = true;
    if (asleep_before_[i] && se.on_rq && !fresh.se && fresh_check) {
      fresh.first = !ever_queued_[i];
      if (fresh_request_offends(rq, se, fresh)) fresh.se = &se;
    }
    if (se.on_rq) ever_queued_[i] = true;
    if (se.on_rq && (entity_is_task(se) || !flat) && se.slice > largest_queued) largest_queued = se.slice;
    const CfsRq* q = eevdf_queue_of(rq, se);
    const bool curr = q && q->curr == &se && se.on_rq;
    const i128 left = curr ? protected_run_left(rq, se) : 0;
    // each reweight rescales end - V and V - v separately, each truncated toward
    // zero: the protected run can come out less than one virtual ns longer, at
    // that reweight's new weight (several reweights in one operation: the sum)
    const i128 rounding = static_cast<i128>(reweight_rounding_[i]);
    // F7 (tolerated with F1's switch): a reweight that clamps the lag moves v by
    // the clamp while end stays rescaled around V, as it leaves the deadline
    const bool f7 = lag_clamped_[i] && tolerates_f7();
    if (!prot_se && selection_[Id::PROT] && curr && prot_known_[i] && !picked_[i] &&
        left > prot_left_[i] + rounding && !vprot_stale(se) && !f7) {
      prot_se = &se;
      prot_q = q;
      prot_before = prot_left_[i];
      prot_now = left;
    }
    prot_known_[i] = curr;
    prot_left_[i] = left;
    picked_[i] = false;
    reweight_rounding_[i] = 0;
    lag_clamped_[i] = false;
    if (mono && !mono_se) {
      const s64 moved = vruntime_diff(se.vruntime, vruntime_before_[i]);
      if (moved < 0 || (moved > 0 && !was_curr_[i])) {
        mono_se = &se;
        mono_moved = moved;
      }
    }
    const bool delay_seen = delay_seen_[i];
    delay_seen_[i] = false;
    if (delayed_before_[i] == se.sched_delayed) return;  // no transition
    delayed_before_[i] = se.sched_delayed;
    if (se.sched_delayed) {
      // taken at the delay itself (on_delayed()) where the backend says when:
      // later in the operation V and the largest slice may have moved
      if (!delay_seen) lag_at_delay_[i] = lag_now(se);
      return;
    }
    if (!selection_[Id::DELAY] || delay_se) return;
    const u64 weight = eevdf_load_of(rq, se).weight;
    const i128 service_lag = se.on_rq ? lag_now(se) : static_cast<i128>(se.vlag) * static_cast<i128>(weight);
    if (service_lag < lag_at_delay_[i] - static_cast<i128>(weight)) {
      delay_se = &se;
      delay_lag = service_lag;
    }
  });
  ExactAverage avg = exact_average_and_tree(rq.cfs);
  u64 largest = avg.max_slice;
  if (!rq.groups.empty() && largest_queued > largest) largest = largest_queued;
  // After a base_slice_ns write, update_deadline() can take the new base slice inside
  // an operation that then sets another slice (sched_setattr() of the running task:
  // the dequeue's update_curr() renews the deadline, then __setparam_fair()), so a
  // deadline may lie one new base slice ahead though no entity holds it afterwards.
  // (Without a write the base slice is no larger than before: nothing changes.)
  if (!rq.earlier_base_slices.empty() && rq.profile().sysctl_sched_base_slice() > largest)
    largest = rq.profile().sysctl_sched_base_slice();
  if (largest > max_slice_seen_) max_slice_seen_ = largest;
  check_queue(rq.cfs, avg);
  const CheckScope scope{rq, selection_, avg, max_slice_seen_, *this, rq.cfs};
  // I-FAIR's shares are weight / Σ weight of one queue: tasks-only runs
  if (selection_[Id::FAIR] && rq.groups.empty()) fairness_.update(scope, op_class_ == OpClass::running);
  for (const TaskGroupCpu& g : rq.groups) {
    ExactAverage group_avg = exact_average_and_tree(g.cfs_rq);
    check_queue(g.cfs_rq, group_avg);
  }

  if (fresh.se) report_fresh_request(scope, fresh);
  if (mono_se) {
    if (mono_moved < 0)
      scope.report(Id::MONO, "update_curr",
                   fmt::format("vruntime of {} moved backwards by {} ns while the CPU only ran",
                               entity_name(rq, mono_se), format_i128(-static_cast<i128>(mono_moved))),
                   {mono_se});
    else
      scope.report(Id::MONO, "update_curr",
                   fmt::format("vruntime of {} moved by {} ns while it never ran (it was never curr)",
                               entity_name(rq, mono_se), mono_moved),
                   {mono_se});
  }
  if (delay_se)
    scope.report(Id::DELAY, delay_se->on_rq ? "requeue_delayed_entity" : "update_entity_lag",
                 fmt::format("{} left the delayed state ({}) with w·lag = {}, below the {} it had when delayed "
                             "(a delayed entity's debt may not grow)",
                             entity_name(rq, delay_se), delay_se->on_rq ? "woken, still queued" : "dequeued",
                             format_i128(delay_lag), format_i128(lag_at_delay_[entity_slot(*delay_se)])),
                 {delay_se});
  if (prot_se) {
    ExactAverage none;  // the report reads no average
    const CheckScope s{rq, selection_, none, max_slice_seen_, *this, *prot_q};
    check_protection_kept(s, *prot_se, prot_before, prot_now);
  }
}

// w·clamp(V - v) for a queued entity, V exact and floored, clamped with the
// profile's lag limit for the largest slice queued with it.
i128 Checker::lag_now(const SchedEntity& se) const {
  const CfsRq* q = eevdf_queue_of(*rq_, se);
  if (!q || !se.on_rq) return static_cast<i128>(se.vlag) * static_cast<i128>(eevdf_load_of(*rq_, se).weight);
  const ExactAverage a = exact_average(*q);
  const i128 w = static_cast<i128>(eevdf_load_of(*rq_, se).weight);
  if (a.weight == 0) return 0;
  i128 floor_v = a.sum / a.weight;
  if (a.sum % a.weight != 0 && a.sum < 0) --floor_v;
  i128 lag = floor_v - vruntime_diff(se.vruntime, q->zero_vruntime);
  const u64 slice = rq_->profile().behaviour.lag_limit_max_slice ? a.max_slice : se.slice;
  const i128 limit = static_cast<i128>(kernel_lag_limit(*rq_, slice, eevdf_load_of(*rq_, se)));
  lag = std::clamp(lag, -limit, limit);
  return lag * w;
}

void Checker::end_op_untouched() {
  Rq& rq = *rq_;
  adopt_new_tasks();
  // I-FAIR's window restarts at every operation that is not only running, on
  // every CPU: as end_op() would (an untouched CPU's tasks received nothing)
  if (selection_[Id::FAIR] && rq.groups.empty()) {
    ExactAverage none;  // I-FAIR reads no average
    const CheckScope scope{rq, selection_, none, max_slice_seen_, *this, rq.cfs};
    fairness_.update(scope, op_class_ == OpClass::running);
  }
}

void Checker::check_queues_now() {
  Rq& rq = *rq_;
  queues_.build(rq);
  ExactAverage avg = exact_average_and_tree(rq.cfs);
  check_queue(rq.cfs, avg);
  for (const TaskGroupCpu& g : rq.groups) {
    ExactAverage group_avg = exact_average_and_tree(g.cfs_rq);
    check_queue(g.cfs_rq, group_avg);
  }
}

void Checker::on_overflow(const OverflowEvent& e) {
  if (!selection_[Id::OVF]) return;
  // F6's second consequence: a stale vprot (see vprot_stale()) rescaled by a
  // weight it was never meant for wraps; reported with --no-tolerance
  if (e.site == Site::rescale_entity_vprot_x_weight && reweighting_ && vprot_stale(*reweighting_)) return;
  Violation v;
  v.id = Id::OVF;
  v.where = site_name(e.site);
  const bool addition = e.site == Site::sum_w_vruntime_add_accumulate || e.site == Site::sum_w_vruntime_sub_accumulate ||
                        e.site == Site::update_zero_vruntime_accumulate || e.site == Site::avg_vruntime_accumulate ||
                        e.site == Site::vruntime_eligible_accumulate || e.site == Site::avg_vruntime_floor_adjust ||
                        e.site == Site::ineligible_vruntime_floor_adjust;
  v.what = fmt::format("{} {} {} wraps: exact {} but the kernel's type holds {}", format_i128(e.lhs),
                       addition ? "+" : "x", format_i128(e.rhs), format_i128(e.exact), format_i128(e.kernel));
  add(std::move(v));
}

void Checker::on_warn(Warn w, const SchedEntity* se) {
  Violation v;
  v.id = w == Warn::pick_next_entity_null ? Id::NULLPICK : Id::WARN;
  if (w == Warn::h_load_below_min_shares || w == Warn::calc_prop_weight_zero_divisor) v.id = Id::HLOAD;
  if (!selection_[v.id]) return;
  v.where = warn_name(w);
  v.what = w == Warn::pick_next_entity_null ? "pick_eevdf() returned NULL with entities queued; the kernel dereferences it"
           : v.id == Id::HLOAD                ? std::string(warn_name(w))
                                              : "the kernel's warning condition holds";
  if (se && rq_) v.entities.push_back(snapshot(*rq_, *se));
  add(std::move(v));
}

void Checker::on_pick(const CfsRq& cfs_rq, const SchedEntity* result, bool protect, PickCaller caller) {
  const bool after_idle_preempt = caller == PickCaller::schedule && idle_preempted_;
  if (!after_idle_preempt && !selection_[Id::PICKOPT] && !selection_[Id::NULLPICK] && !selection_[Id::DELAY]) return;
  const ExactAverage avg = exact_average(cfs_rq);
  const CheckScope scope{*rq_, selection_, avg, max_slice_seen_, *this, cfs_rq};
  check_pick(scope, result, protect, caller);
  if (!after_idle_preempt) return;
  if (&cfs_rq == idle_preempted_->cfs_rq) {  // the level where the preemption was decided
    if (result == idle_preempted_ && cfs_rq.curr == result && protect) check_pick_after_idle_preempt(scope, result);
    idle_preempted_ = nullptr;
    return;
  }
  // above it, the pick goes on down only through the entity's ancestors
  const SchedEntity* path = idle_preempted_->parent;
  while (path && path != result) path = path->parent;
  if (!result || path != result) idle_preempted_ = nullptr;
}

// I-LAG: a lag within the EEVDF bound, calc_delta_fair(r_max + TICK_NSEC) with
// r_max the largest slice queued now, survives update_entity_lag() unclamped.
void Checker::on_lag_clamp(const CfsRq& cfs_rq, const SchedEntity& se, s64 raw, s64 clamped) {
  if (!selection_[Id::LAG] || raw == clamped) return;
  LoadWeight lw = eevdf_load_of(*rq_, se);
  // r_max: the largest slice queued, from the queue itself (not the kernel's
  // max_slice augment, which profiles before 6e3c0a4e1ad1 do not have)
  const ExactAverage avg = exact_average(cfs_rq);
  const u64 span = avg.max_slice + rq_->profile().tick_nsec();
  const i128 bound = calc_delta_fair(span, lw, rq_->profile().behaviour.calc_delta, null_observer());
  if (raw > bound || raw < -bound) return;
  const CheckScope scope{*rq_, selection_, avg, max_slice_seen_, *this, cfs_rq};
  scope.report(Id::LAG, "update_entity_lag / entity_lag",
               fmt::format("the lag V - v = {} of {} lies within the EEVDF bound ±{} (calc_delta_fair(r_max {} + "
                           "TICK_NSEC)) but was clamped to {}",
                           raw, entity_name(*rq_, &se), format_i128(bound), avg.max_slice, clamped),
               {&se});
}

void Checker::on_placed(const CfsRq& cfs_rq, const SchedEntity& se, s64 saved_lag) {
  if (!selection_[Id::PLACE]) return;
  const CheckScope scope{*rq_, selection_, exact_average(cfs_rq), max_slice_seen_, *this, cfs_rq};
  check_placement(scope, se, saved_lag);
}

// I-LAG at every avg_vruntime() return: the V it answers is the floor of the queued
// entities' weighted average (curr included, weighted as the profile's sums weigh
// them): Σ w·(V - v) in (-Σ w, 0]. The same rule as check_lag()'s after the
// operation, which recomputes V from the queue; this one judges the value the
// code computed, where the kernel backend's tree computed it.
void Checker::on_avg_vruntime(const CfsRq& cfs_rq, u64 v) {
  if (!selection_[Id::LAG]) return;
  const ExactAverage avg = exact_average(cfs_rq);
  if (avg.weight == 0) return;
  // Σ w·(V - v_i) = W·(V - zero) - Σ w·key_i
  const i128 total = static_cast<i128>(vruntime_diff(v, cfs_rq.zero_vruntime)) * avg.weight - avg.sum;
  if (total <= 0 && total > -avg.weight) return;
  const CheckScope scope{*rq_, selection_, avg, max_slice_seen_, *this, cfs_rq};
  scope.report(Id::LAG, "avg_vruntime",
               fmt::format("the queued lags Σ w·(V - v) = {} are not within (-{}, 0] (the floor of V)",
                           format_i128(total), format_i128(avg.weight)),
               {});
}

// I-FRESH: a decision reads V only after curr was charged up to rq_clock_task.
void Checker::on_read_avg(const CfsRq& cfs_rq, const char* caller) {
  if (!selection_[Id::FRESH]) return;
  const SchedEntity* curr = cfs_rq.curr;
  if (!curr || !curr->on_rq || curr->exec_start == rq_->clock_task) return;
  const CheckScope scope{*rq_, selection_, exact_average(cfs_rq), max_slice_seen_, *this, cfs_rq};
  scope.report(Id::FRESH, caller,
               fmt::format("{} read V while the running entity {} had {} ns of runtime not yet charged "
                           "(exec_start {}, rq_clock_task {}): update_curr() was not called first",
                           caller, entity_name(*rq_, curr),
                           rq_->clock_task - curr->exec_start, curr->exec_start, rq_->clock_task),
               {curr});
}

void Checker::on_wakeup_preempt(const CfsRq& cfs_rq, const SchedEntity& wakee, WakeupPreemptReason reason) {
  if (!selection_[Id::WAKEPICK]) return;
  if (reason == WakeupPreemptReason::idle_curr && rq_->curr >= 0) {
    idle_preempted_ = matching_levels(&rq_->tasks[static_cast<std::size_t>(rq_->curr)].se, &wakee).first;
  }
  const CheckScope scope{*rq_, selection_, exact_average(cfs_rq), max_slice_seen_, *this, cfs_rq};
  check_wakeup_preempt(scope, wakee, reason);
}

bool Checker::vprot_stale(const SchedEntity& se) const {
  return tolerances_.f1_unscaled_vprot && vprot_stale_[entity_slot(se)];
}

const Checker::RescaledDeadline* Checker::rescaled_deadline_if_current(const SchedEntity& se,
                                                                       const RescaledDeadline& r) const {
  if (!r.set || se.rel_deadline) return nullptr;
  if (r.relative) return se.deadline - se.vruntime == r.deadline ? &r : nullptr;  // placed since
  return r.deadline == se.deadline || se.deadline - se.vruntime == r.distance ? &r : nullptr;
}

void Checker::on_set_next(const SchedEntity& se, bool first) {
  adopt_new_tasks();
  const std::size_t i = entity_slot(se);
  if (first) {
    vprot_stale_[i] = false;
    picked_[i] = true;
    const CfsRq* q = eevdf_queue_of(*rq_, se);
    if (selection_[Id::PROT] && q && q->curr == &se && se.on_rq) {
      ExactAverage none;  // the pick rule walks the tree for slices only
      const CheckScope scope{*rq_, selection_, none, max_slice_seen_, *this, *q};
      check_protection_at_pick(scope, se);
    }
  }
  // F1/F6: set_next_task(first = false) after a sched_change of the running
  // task re-arms no level's protection, while the levels that were dequeued
  // are re-placed (bcd74b2ffdd0): their vprot stays from before
  if (!first && rq_->profile().behaviour.protect_only_first) {
    vprot_stale_[i] = true;
    // so the end itself may not move later: between real picks only update_protect_slice()
    // and cancel_protect_slice() write it, both backwards, and reweight_entity() rescales it
    // (F1's tolerance above excuses v moving under a kept end, not a re-armed end)
    const CfsRq* q = eevdf_queue_of(*rq_, se);
    if (selection_[Id::PROT] && q && protect_slice(se) && vruntime_diff(se.vprot, vprot_armed_[i]) > 0) {
      ExactAverage none;  // the report reads no average
      const CheckScope scope{*rq_, selection_, none, max_slice_seen_, *this, *q};
      check_protection_rearmed(scope, se, vprot_armed_[i]);
    }
  }
  vprot_armed_[i] = se.vprot;
  was_curr_[i] = true;
}

void Checker::on_delayed(const SchedEntity& se) {
  adopt_new_tasks();
  const std::size_t i = entity_slot(se);
  lag_at_delay_[i] = lag_now(se);
  delay_seen_[i] = true;
}

void Checker::on_wake_choice(const WakeCpuChoice& c) {
  adopt_new_tasks();
  if (selection_[Id::WAKECOUNT]) check_wake_choice(*this, *rq_, c);
}

void Checker::on_reweight_begin(const CfsRq& cfs_rq, const SchedEntity& se, u64 new_weight) {
  adopt_new_tasks();
  mono_moved_ = vruntime_diff(se.vruntime, vruntime_before_[entity_slot(se)]);
  if (!se.on_rq) vprot_stale_[entity_slot(se)] = true;
  // F7: the running entity's vprot is rescaled only while it protects
  // (ff38424030f9); an expired one stays absolute while the rescaled, clamped
  // lag can move vruntime back below it
  if (se.on_rq && cfs_rq.curr == &se && !protect_slice(se)) vprot_stale_[entity_slot(se)] = true;
  // I-DELAY: a delayed group entity's queue is empty, so it has no share to take; it
  // burns off its lag at the weight it was delayed with (66951e4860d3: update_cfs_group()
  // leaves a group with no load alone; before it, v6.12.0 drops it to MIN_SHARES)
  if (selection_[Id::DELAY] && se.sched_delayed && se.my_q && new_weight != se.load.weight) {
    const CheckScope scope{*rq_, selection_, exact_average(cfs_rq), max_slice_seen_, *this, cfs_rq};
    scope.report(Id::DELAY, "update_cfs_group / reweight_entity",
                 fmt::format("{} was reweighted {} -> {} while delayed; a delayed group entity's queue is "
                             "empty and it keeps the weight it was delayed with",
                             entity_name(*rq_, &se), se.load.weight, new_weight),
                 {&se});
  }
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
  const ExactAverage avg = exact_average(cfs_rq);
  rw_.v_sum = avg.sum;
  rw_.v_weight = avg.weight;
  rw_.zero = cfs_rq.zero_vruntime;
  rw_.rest_weight = avg.weight - avg_vruntime_weight(cfs_rq, rw_.old_weight);
  // the lag reweight_entity() will compute, and whether entity_lag() clamps it
  const u64 v_floor = cfs_rq.zero_vruntime + as_u64(avg_vruntime_offset(cfs_rq, null_observer()));
  const i128 raw = vruntime_diff(v_floor, se.vruntime);
  // the slice entity_lag() clamps with: the queue's largest (6e3c0a4e1ad1), before it the entity's own
  rw_.max_slice = rq_->profile().behaviour.lag_limit_max_slice ? cfs_rq_max_slice(cfs_rq) : se.slice;
  const i128 limit = static_cast<i128>(kernel_lag_limit(*rq_, rw_.max_slice, eevdf_load_of(*rq_, se)));
  rw_.lag_limit = limit;
  rw_.clamped = raw > limit || raw < -limit;
  if (rw_.clamped) lag_clamped_[entity_slot(se)] = true;  // F7 moves v, not end, with the protection
  rw_.lag_cut = raw > limit ? raw - limit : raw < -limit ? raw + limit : 0;
  rw_.lag_c = raw - rw_.lag_cut;
  rw_.v_floor = v_floor;
}

// A sched_change's dequeue makes the deadline d - v. A record still current
// just before (d unchanged since, or d - v unchanged since) follows it in that
// form: the operation's update_curr() may have moved v first, and the
// placement at its end moves v again (rounding), so neither absolute test
// would match afterwards.
void Checker::on_deadline_made_relative(const SchedEntity& se) {
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
  if (rw_.queued_begun) return;
  adopt_new_tasks();
  RescaledDeadline& r = rescaled_deadline_[entity_slot(se)];
  const bool carried = r.set && (r.relative ? r.deadline == old_relative
                                             : r.deadline == old_relative + se.vruntime || r.distance == old_relative);
  const u64 excess = rescaled_deadline_excess(carried ? r.excess : 0, old_weight, new_weight);
  r = {true, carried && r.clamped, true, se.deadline, excess, 0};
}

// I-RW: a weight written past reweight_entity() (set_load_weight() before
// d32960528702) leaves vlag as it was, so the lag w·vlag changes by
// vlag·(w' - w); a rescale would have kept it within one new weight.
void Checker::on_load_set(const SchedEntity& se, u64 old_weight) {
  adopt_new_tasks();
  if (!selection_[Id::RW] || se.vlag == 0) return;
  const u64 new_weight = se.load.weight;
  const i128 before = static_cast<i128>(se.vlag) * static_cast<i128>(old_weight);
  const i128 after = static_cast<i128>(se.vlag) * static_cast<i128>(new_weight);
  const i128 diff = after > before ? after - before : before - after;
  if (diff < static_cast<i128>(new_weight > 0 ? new_weight : 1)) return;
  const CfsRq& cfs_rq = *se.cfs_rq;
  const CheckScope scope{*rq_, selection_, exact_average(cfs_rq), max_slice_seen_, *this, cfs_rq};
  scope.report(Id::RW, "set_load_weight",
               fmt::format("weight {} -> {} written without reweight_entity(): vlag {} kept, so w·vlag went from {} "
                           "to {}; allowed: less than one new weight",
                           old_weight, new_weight, se.vlag, format_i128(before), format_i128(after)),
               {&se});
}

void Checker::on_reweight_end(const CfsRq& cfs_rq, const SchedEntity& se) {
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
    rescaled_deadline_[entity_slot(se)] = {true,
                                           rw_.clamped || rw_.prior_clamped,
                                           false,
                                           se.deadline,
                                           rescaled_deadline_excess(rw_.prior_excess, rw_.old_weight, rw_.new_weight),
                                           se.deadline - se.vruntime};
  }
  if (!rw_.on_rq) {
    // I-LAG: the saved vlag was clamped at the old weight, at most lag_bound(w) (or what an
    // earlier rescale carried); div_s64() truncates vlag·w/w' toward zero, so |vlag'| <=
    // ceil(that · w/w'). That can exceed lag_bound(w'): the kernel's clamp divides by
    // scale_load_down(w) = floor(w / 1024), whose truncation differs between w and w'
    // (v6.6: a group entity clamped at w = 1024927 and reweighted to MIN_SHARES = 2 when
    // its queue empties keeps 1/1000 more than the bound at weight 2).
    const u64 w = rw_.old_weight, w2 = eevdf_weight(cfs_rq, se);
    if (w > 0 && w2 > 0) {
      const RescaledLag& prev = rescaled_lag_[entity_slot(se)];
      u64 old_limit = lag_bound(*rq_, max_slice_seen_, w);
      if (prev.set && prev.vlag == rw_.vlag && prev.weight == w) old_limit = std::max(old_limit, prev.limit);
      rescaled_lag_[entity_slot(se)] = {true, se.vlag, w2, saturate_u64((static_cast<u128>(old_limit) * w + w2 - 1) / w2)};
    }
  }
  if (!rw_.active) return;
  rw_.active = false;
  const CheckScope scope{*rq_, selection_, exact_average(cfs_rq), max_slice_seen_, *this, cfs_rq};
  if (!rw_.on_rq) {
    // w'·vlag' = trunc(w·vlag / w')·w': within one w' of w·vlag
    const i128 before = static_cast<i128>(rw_.vlag) * static_cast<i128>(rw_.old_weight);
    const u64 new_weight = eevdf_weight(cfs_rq, se);
    const i128 after = static_cast<i128>(se.vlag) * static_cast<i128>(new_weight);
    const i128 diff = after > before ? after - before : before - after;
    if (diff >= static_cast<i128>(new_weight))
      scope.report(Id::RW, "rescale_entity",
                   fmt::format("w·vlag changed from {} to {} (weight {} -> {}); allowed: less than one new weight",
                               format_i128(before), format_i128(after), rw_.old_weight, rw_.new_weight),
                   {&se});
    return;
  }
  // reweight_entity() places the entity at exactly V - vlag' (V as it computed it);
  // reweight_eevdf() (v6.9-v6.13) and v6.6.0 keep the lag in a local: V is checked below.
  // v6.14-v7.0 re-place with place_entity(), from V of the queue without the entity:
  // three floors (that V, the inflated lag's division, V after) put it within 2 ns.
  const ReweightRule rule = rq_->profile().behaviour.reweight;
  const bool lag_stored = rule == ReweightRule::rescale_around_v || rule == ReweightRule::replace_after_rescale;
  const i128 placement_error = vruntime_diff(se.vruntime, rw_.v_floor - as_u64(se.vlag));
  const i128 allowed = rule == ReweightRule::replace_after_rescale ? 2 : 0;
  if (lag_stored && (placement_error > allowed || placement_error < -allowed)) {
    scope.report(Id::RW, "reweight_entity",
                 fmt::format("vruntime {} is not V - vlag = {} - {} after reweighting {} -> {}", se.vruntime,
                             rw_.v_floor, se.vlag, rw_.old_weight, rw_.new_weight),
                 {&se});
    return;
  }
  // v6.9-v6.13 reweight_eevdf() puts the entity at V - vlag', vlag' = trunc(L_c·w/w') with
  // |L_c| <= entity_lag()'s clamp at w (1560d1f6eb6b), so |V - v'| <= floor(clamp·w/w').
  // B08 rescales the raw V - v, which lands beyond once |V - v| exceeds the clamp.
  const bool lag_rescaled = rule == ReweightRule::eevdf_clamped_lag || rule == ReweightRule::eevdf_raw_lag;
  if (lag_rescaled && rw_.new_weight > 0) {
    const i128 lag_after = vruntime_diff(rw_.v_floor, se.vruntime);
    const i128 bound = rw_.lag_limit * static_cast<i128>(rw_.old_weight) / static_cast<i128>(rw_.new_weight);
    if (lag_after > bound || lag_after < -bound) {
      scope.report(Id::RW, "reweight_eevdf / entity_lag",
                   fmt::format("V - v = {} after reweighting {} -> {}: beyond the clamp {} at the old weight "
                               "rescaled by w/w', ±{} (the lag before was {})",
                               format_i128(lag_after), rw_.old_weight, rw_.new_weight, format_i128(rw_.lag_limit),
                               format_i128(bound), format_i128(rw_.lag_c + rw_.lag_cut)),
                   {&se});
      return;
    }
  }
  // v6.9-v6.13 reweight_eevdf() rescales the clamped lag: V moves by the clamp's
  // displacement, checked below. The others keep no clamped lag to check against.
  const bool clamp_moves_v = rule == ReweightRule::eevdf_clamped_lag;
  if (rw_.clamped && !lag_stored && !clamp_moves_v) return;
  if (rw_.clamped && lag_stored) {
    // V moves legitimately; the rescaled lag must lie within the clamp of the new weight
    const i128 limit = static_cast<i128>(lag_bound(*rq_, rw_.max_slice, rw_.new_weight)) + 1;
    if (se.vlag > limit || se.vlag < -limit)
      scope.report(Id::RW, "reweight_entity / entity_lag",
                   fmt::format("the clamped lag rescaled to weight {} is {}, beyond the clamp ±{}", rw_.new_weight,
                               se.vlag, format_i128(limit)),
                   {&se});
    return;
  }
  const ExactAverage& after = scope.avg;
  // V' - V = (v0' - v0) + S'/W' - S/W; allowed |V' - V| <= W/W' + 2 (see id_documentation(I-RW)).
  // With V = V_exact - f (the floor, 0 <= f < 1), L = V - v, L_c the lag entity_lag() clamped
  // it to, L'_c = trunc(L_c·w/w') and a, a' the average's weights of the entity (W' = W - a + a'):
  //   S' = S - a·v + a'·(V - L'_c)  =>  V'_exact - V_exact = ((a - a')·f + a·(L - L_c) + (a·L_c - a'·L'_c)) / W'.
  // a·(L - L_c)/W' is the clamp's displacement (0 unless clamped). The last term splits as
  //   a·L_c - a'·L'_c = a'·(L_c·w/w' - L'_c) + L_c·(a - a'·w/w'),
  // the first part the truncation of the lag division (|.| < a' <= W'), bounded with the
  // floor by W/W' + 2. The second part is 0 only while a/a' = w/w': reweight_eevdf()
  // rescales the lag by the full weights w/w' (v6.12's reweight_eevdf(), div_s64(vlag *
  // old_weight, weight)), while avg_vruntime() counts the entity at a = scale_load_down(w)
  // = floor(w / 1024). With w = 1024·a + r, w' = 1024·a' + r' (0 <= r, r' < 1024):
  //   a - a'·w/w' = (r'·w/w' - r) / 1024,
  // so group shares that are not multiples of 1024 (a share split over several CPUs) move
  // V by L_c·(a·w' - a'·w)/(w'·W'): e.g. 1048576 -> 15138 (a' = 14, r' = 802) with a lag of
  // 500 µs beside one nice-0 task moves V by 26 µs of virtual time. That is the kernel's
  // arithmetic (the revert of 6d71a9c61604 in v7.1 calls it rounding artifacts of
  // scale_load_down(), cured by full-weight averages, 4823725d9d1d), computed here exactly
  // and taken off like the clamp's displacement. It is taken as rounding only while the
  // average counts each weight within one unit of w/1024 (|1024·a - w| < 1024, the
  // truncation's own error; scale_load_down()'s floor max(2, w >> 10) stays within it
  // above 1024: 1536 counted as 2048). At or below 1024 the floor counts the entity at up
  // to 1024 times its weight (MIN_SHARES = 2 counted as 2048: v6.12's empty-group finding,
  // 66951e4860d3; 1006 counted as 2048: the non-empty form); there the term stays in and
  // is reported.
  const i128 W = rw_.v_weight, W2 = after.weight;
  if (W == 0 || W2 == 0) return;
  const i128 a = rw_.v_weight - rw_.rest_weight;
  const i128 a2 = after.weight - rw_.rest_weight;
  const i128 cut = clamp_moves_v ? rw_.lag_cut : 0;
  const i128 dz = vruntime_diff(cfs_rq.zero_vruntime, rw_.zero);
  const u64 w = rw_.old_weight, w2 = rw_.new_weight;
  const auto within_a_unit = [](i128 avg_weight, u64 weight) {
    const i128 d = avg_weight * 1024 - static_cast<i128>(weight);
    return d > -1024 && d < 1024;
  };
  const bool truncated =
      !rq_->profile().behaviour.avg_full_weight && w2 > 0 && within_a_unit(a, w) && within_a_unit(a2, w2);
  const i128 precision =
      lag_rescaled && truncated
          ? W * rw_.lag_c * (a * static_cast<i128>(w2) - a2 * static_cast<i128>(w)) / static_cast<i128>(w2)
          : 0;
  const i128 num = dz * W * W2 + after.sum * W - rw_.v_sum * W2 - W * a * cut - precision;
  // + 1: the truncation of the precision term's division. v6.14-v7.0 re-place the entity
  // through place_entity() (replace_after_rescale), within 2 ns of V - vlag' (checked
  // above): that placement error, counted at the entity's average weight a', moves V by
  // up to 2·a'/W' more.
  const i128 replaced = rule == ReweightRule::replace_after_rescale ? 2 * a2 * W : 0;
  const i128 bound = W * W + 2 * W * W2 + (precision ? 1 : 0) + replaced;
  if (num > bound || num < -bound) {
    const std::string clamp =
        cut ? fmt::format(" beyond the clamp's displacement {} (lag clamped by {})", format_i128(a * cut / W2),
                          format_i128(cut))
            : std::string{};
    const std::string prec = precision ? fmt::format(" beyond the {} of the average's truncated weights",
                                                     format_i128(precision / (W * W2)))
                                       : std::string{};
    // a weight at or below 1024 that the average counts at scale_load_down()'s floor of 2
    // (v6.12's empty-group class, 66951e4860d3 / 6d71a9c61604): said, so that it reads as its own class
    const bool floored = !rq_->profile().behaviour.avg_full_weight && (w <= 1024 || w2 <= 1024);
    scope.report(Id::RW, "reweight_entity",
                 fmt::format("V moved by about {} ns (virtual){}{} while reweighting {}{} -> {}{}; allowed {} (rounding)",
                             format_i128(num / (W * W2)), clamp, prec, cfs_rq.curr == &se ? "the running entity " : "",
                             rw_.old_weight, rw_.new_weight,
                             floored ? " (a weight at or below 1024, which the average counts at its floor)" : "",
                             format_i128(bound / (W * W2))),
                 {&se});
  }
}

void Checker::share_record(const SchedEntity& se, Checker& other) const {
  const std::size_t i = entity_slot(se);
  other.rescaled_deadline_[i] = rescaled_deadline_[i];
  other.vprot_stale_[i] = vprot_stale_[i];
  if (se.sched_delayed) other.lag_at_delay_[i] = lag_at_delay_[i];
}

void share_end_records(const System& sys, const std::vector<std::unique_ptr<Checker>>& checkers) {
  for (const Task& t : sys.tasks) {
    if (t.cpu < 0 || static_cast<std::size_t>(t.cpu) >= checkers.size()) continue;
    const Checker& owner = *checkers[static_cast<std::size_t>(t.cpu)];
    for (const auto& c : checkers)
      if (c.get() != &owner) owner.share_record(t.se, *c);
  }
}

void share_max_slice(const System& sys, const std::vector<std::unique_ptr<Checker>>& checkers) {
  u64 max_slice = 0;
  for (const Task& t : sys.tasks)
    if (t.se.on_rq) max_slice = std::max(max_slice, t.se.slice);
  if (!sys.rq(0).profile().behaviour.flat_runqueue)  // group entities are in no tree there
    for (unsigned c = 0; c < sys.size(); ++c)
      for (const TaskGroupCpu& g : sys.rq(c).groups)
        if (g.se.on_rq) max_slice = std::max(max_slice, g.se.slice);
  for (const auto& c : checkers) max_slice = std::max(max_slice, c->max_slice_seen());
  for (const auto& c : checkers) c->raise_max_slice(max_slice);
}

bool end_ops_touched(const System& sys, const std::vector<std::unique_ptr<Checker>>& checkers, std::uint32_t touched,
                     bool sweep) {
  share_max_slice(sys, checkers);
  const auto is_touched = [touched](std::size_t c) { return c < 32 && (touched >> c & 1u) != 0; };
  for (std::size_t c = 0; c < checkers.size(); ++c)
    if (sweep || is_touched(c)) checkers[c]->end_op();
  if (sweep) {
    share_end_records(sys, checkers);
    return true;
  }
  // a finding is reported only after every queue was checked at this operation
  // (and, with keep_going, at every later one: once violated, always a full sweep)
  bool found = false;
  for (const auto& c : checkers) found = found || c->violated();
  for (std::size_t c = 0; c < checkers.size(); ++c)
    if (!is_touched(c)) {
      if (found) checkers[c]->end_op();
      else checkers[c]->end_op_untouched();
    }
  share_end_records(sys, checkers);
  return found;
}

}  // namespace eevdf::inv
