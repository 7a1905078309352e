// The invariant checker: an Observer of the model that records what happens
// during an operation (overflows, warnings, picks, reweights) and checks the
// whole state from scratch after it.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "invariants/fairness.hpp"
#include "invariants/ids.hpp"
#include "invariants/queue_index.hpp"
#include "invariants/violation.hpp"
#include "model/rq.hpp"
#include "model/system.hpp"

namespace eevdf::inv {

// What kind of operation is about to run: only placement-class operations may
// move an entity's vruntime other than by running (I-MONO).
enum class OpClass : std::uint8_t { running, placement };

// I-AUG's first finding on a queue's tree, noted by exact_average_and_tree()
// in the order the tree walk meets them; check_tree() reports it.
struct TreeFinding {
  enum Kind : std::uint8_t {
    none,
    empty_leftmost,  // the tree is empty but leftmost is cached
    root_red,
    root_parent,
    leftmost,        // the cached leftmost is not the first node
    order,           // a key outside its ancestors' range
    parent_link,
    red_red,
    black_height,
    min_deadline,    // augment mismatches: the node's value x, the subtree's y
    min_vruntime,
    min_slice,
    max_slice,
  };
  Kind kind = none;
  const SchedEntity* se = nullptr;
  u64 x = 0, y = 0;
};

// Exact (128-bit) Σ key·w' and Σ w' over the tree and an on_rq curr.
struct ExactAverage {
  i128 sum = 0;     // Σ key_i · w'_i
  i128 weight = 0;  // Σ w'_i
  // The same two sums over the tree alone (no curr): their low 64 bits are the
  // kernel's wrapping sum_w_vruntime and sum_weight recomputed (I-SUM).
  i128 tree_sum = 0, tree_weight = 0;
  u64 min_weight = 0;  // lightest full weight on the queue (0 if empty)
  u64 max_slice = 0;   // largest slice on the queue
  s64 kernel_offset = 0;  // avg_vruntime_offset() (filled by Checker::end_op, not by exact_average())
  // The queued entities: the tree's in deadline order, then an on_rq curr.
  // Only [0, queued) is set (no zero-fill: this runs at every operation and pick).
  std::array<const SchedEntity*, kMaxEntities> entities;
  std::size_t in_tree = 0, queued = 0;
  TreeFinding tree;  // set by exact_average_and_tree() only
};
ExactAverage exact_average(const CfsRq& cfs_rq);  // average.cpp
// Only its sum and weight (what I-LAG's sum rule reads), as exact_average()
// computes them; the other fields are left empty.
ExactAverage exact_sums(const CfsRq& cfs_rq);
// The same average from one walk of the tree that also checks its shape,
// order and augments (I-AUG, noted in avg.tree): what end_op() checks a queue
// with. The entities come in the order of exact_average() (rb_next() from the
// cached leftmost): taken from the walk when its links are consistent (then
// the in-order walk and rb_next() agree), else by exact_average() itself.
ExactAverage exact_average_and_tree(const CfsRq& cfs_rq);  // tree.cpp

// Calls f(se) for every entity in the tree, in deadline order (as recorded by exact_average()).
template <class F>
void for_each_in_tree(const ExactAverage& a, F f) {
  for (std::size_t i = 0; i < a.in_tree; ++i) f(*a.entities[i]);
}
// ... and then for an on_rq curr: every entity counted in V.
template <class F>
void for_each_queued(const ExactAverage& a, F f) {
  for (std::size_t i = 0; i < a.queued; ++i) f(*a.entities[i]);
}
// Exact v <= V, i.e. key·W <= S. (Inline: asked for every queued entity at every pick.)
// W is a sum of at most kMaxEntities weights, far below 2^63: the product of
// two 64-bit factors (one multiplication) is exact; the general 128-bit one
// stays for a W that does not fit.
inline bool exactly_eligible(const CfsRq& cfs_rq, const ExactAverage& avg, u64 vruntime) {
  const s64 key = vruntime_diff(vruntime, cfs_rq.zero_vruntime);
  if (avg.weight >= 0 && avg.weight <= static_cast<i128>(INT64_MAX))
    return static_cast<i128>(key) * static_cast<i128>(static_cast<s64>(avg.weight)) <= avg.sum;
  return static_cast<i128>(key) * avg.weight <= avg.sum;
}
// A bound computed in 128 bits, held in the kernel's u64 (saturating).
inline u64 saturate_u64(u128 x) { return x > ~u64{0} ? ~u64{0} : static_cast<u64>(x); }
// lag.cpp: the kernel's lag clamp for weight w: calc_delta(max_slice + TICK, NICE_0_LOAD, w).
// `tick`: the quantum in place of TICK_NSEC (0: TICK_NSEC, the kernel's clamp).
u64 lag_bound(const Rq& rq, u64 max_slice, u64 weight, u64 tick = 0);
// The bound of a saved vlag clamped to old_limit at weight w and rescaled off the queue to w2.
u64 rescaled_lag_bound(u64 old_limit, u64 w, u64 w2);
// The lag clamp entity_lag() computes, exactly (lag_bound() is an upper bound of it).
u64 kernel_lag_limit(const Rq& rq, u64 max_slice, LoadWeight lw);
// What the inverse-weight __calc_delta may add to an exact quotient (0 on full-weight profiles).
u128 inverse_weight_excess(const Rq& rq, u128 exact);
// deadline.cpp: what one virtual slice at old_weight, rescaled to new_weight,
// exceeds calc_delta_fair() at new_weight by (I-DL).
u64 rescaled_slice_excess(const Rq& rq, u64 max_slice, u64 old_weight, u64 new_weight);
// The rounding drift a deadline carries after one more reweight w -> w2 (I-DL), for the largest slice seen.
u64 rescaled_deadline_excess(const Rq& rq, u64 max_slice, u64 prior_excess, u64 w, u64 w2);

class Checker;

// Per-entity state index: a task's id, or kMaxTasks + a group's id.
inline std::size_t entity_slot(const SchedEntity& se) {
  return se.task_id >= 0 ? static_cast<std::size_t>(se.task_id) : kMaxTasks + static_cast<std::size_t>(se.group_id);
}

// The weight EEVDF uses for se: h_load for a task on the v7.3 flat runqueue.
inline const LoadWeight& eevdf_load_of(const Rq& rq, const SchedEntity& se) {
  return rq.profile().behaviour.flat_runqueue && se.task_id >= 0 ? se.h_load : se.load;
}
// The queue whose EEVDF tree holds se: rq->cfs for every task on the flat
// runqueue (group entities are in none: nullptr), se's own queue otherwise.
inline const CfsRq* eevdf_queue_of(const Rq& rq, const SchedEntity& se) {
  if (!rq.profile().behaviour.flat_runqueue) return se.cfs_rq;
  // every task of this CPU (the task table is shared by all CPUs)
  return se.task_id >= 0 && rq.task_of(se).cpu == rq.cpu ? &rq.cfs : nullptr;
}

// Findings on the newest kernel (docs/findings/FN.md, one page each) that the
// checker tolerates by default, so that fuzzing goes on finding other things.
// Each tolerance is exactly the documented staleness, nothing wider, and is one
// call at its check, naming the finding:
// `if (s.known(Finding::F7, record->clamped)) return;`.
enum class Finding : std::uint8_t {
  none,
  // F1: set_user_nice / sched_setscheduler / sched_setattr on the running task
  // go through sched_change: the task is dequeued, reweighted off the queue and
  // re-placed, but se->vprot keeps its old absolute value (and the old
  // weight's scale) until it is re-armed.
  F1,
  // F6: sched_move_task() of the running task is the same sched_change guard:
  // se->vprot keeps its value from the old group's queue, a different virtual
  // time line, until a real pick re-arms it.
  F6,
  // F7 (deadline part): reweight_entity() of a queued entity clamps its lag but
  // rescales its deadline unclamped around V, so the deadline can come to lie
  // before the vruntime until update_deadline() or a placement renews it.
  // F7 (protection part): reweight_entity() of the running entity rescales
  // se->vprot only while it still protects; an expired vprot keeps its
  // absolute value, and the rescaled lag can move vruntime back below it, so
  // the old protection revives past the new deadline.
  F7,
  // F9: sched_idle_rq() counts a delayed (sleeping) task as work, so a CPU
  // whose runnable tasks are all SCHED_IDLE is not sched-idle while a delayed
  // normal task is queued there. Tolerated exactly when the answer is the one
  // the counters give with the delayed tasks counted.
  F9,
};

// Which findings are tolerated: one switch for all four (--no-tolerance and a
// scenario's `tolerate none` turn it off).
struct Tolerances {
  bool f1_unscaled_vprot = true;
  bool tolerates(Finding f) const { return f != Finding::none && f1_unscaled_vprot; }
};

// Handed to every family check: the state, the run-long memory and a sink.
struct CheckScope {
  Rq& rq;
  const Selection& selection;
  const ExactAverage& avg;
  u64 max_slice_seen;
  Checker& checker;
  const CfsRq& cfs;  // the queue under check (rq.cfs or a group's)
  bool on(Id id) const { return selection[id]; }
  // The verdict of a check that saw what finding f describes (`seen`): true if
  // the checker tolerates f, and the check then reports nothing (Checker::known()).
  bool known(Finding f, bool seen = true) const;
  void report(Id id, std::string where, std::string what, std::vector<const SchedEntity*> entities) const;
};

// ---- The families, one file each under invariants/. State checks run after
// every operation from Checker::check_queue() (or the end_op() walk over the
// entities); event checks from the Observer hooks (Checker::on_*), which keep
// the records and call them. ----

// accounting.cpp
void check_accounting(const CheckScope& s);  // I-SUM, I-CNT
void check_sums(const CheckScope& s);        // I-SUM alone (from s.avg's tree sums)
// tree.cpp
void check_tree(const CheckScope& s);        // I-AUG
// I-AUG between sweeps (Checker::end_op_incremental()): noted in avg.tree, as exact_average_and_tree() notes.
void note_tree_incremental(const CfsRq& cfs_rq, const std::vector<const SchedEntity*>& touched, ExactAverage& avg);
// average.cpp
void check_average(const CheckScope& s);     // I-ELIG, I-AVG0, I-NULLPICK, I-KEY
void check_avg0(const CheckScope& s);        // I-AVG0 alone
// I-AVG0, I-KEY and I-NULLPICK between sweeps (Checker::end_op_incremental()).
void check_average_incremental(const CheckScope& s);
// I-FRESH at a read of V (Observer::on_read_avg) on s.cfs by `caller`.
void check_fresh_read(const CheckScope& s, const char* caller);
// lag.cpp
void check_lag(const CheckScope& s);         // I-LAG
// I-LAG's saved-lag rule on the entities an operation touched (Checker::end_op_incremental()).
void check_lag_touched(const CheckScope& s, const std::vector<const SchedEntity*>& touched);
// I-LAG's sum rule for V = zero_vruntime + offset: Σ w·(V - v) within (-Σ w, 0] over s.avg.
void check_lags_sum(const CheckScope& s, s64 offset);
// I-LAG at update_entity_lag()'s clamp (Observer::on_lag_clamp); s.avg is s.cfs's.
void check_lag_clamp(const CheckScope& s, const SchedEntity& se, s64 raw, s64 clamped);
// I-LAG at an avg_vruntime() return v (Observer::on_avg_vruntime); s.avg is s.cfs's.
void check_avg_vruntime(const CheckScope& s, u64 v);
// reweight.cpp: I-RW
// What reweight_entity() of an entity met at its start (Observer::on_reweight_begin),
// for I-RW at its end and for the deadline's and the lag's records.
struct ReweightRecord {
  bool active = false;  // I-RW judges this reweight at its end
  bool on_rq = false;
  bool clamped = false;
  bool queued_begun = false;  // on_reweight_begin() saw a queued entity (whatever the selection)
  u64 prior_excess = 0;       // the rounding drift the entity's deadline carried before
  bool prior_clamped = false;  // and whether an earlier clamped reweight (F7) left it
  u64 old_weight = 0, new_weight = 0;
  i128 v_sum = 0, v_weight = 0;  // exact V before, as S/W, absolute via zero point
  u64 zero = 0;
  s64 vlag = 0;
  i128 rest_weight = 0;  // Σ w' of the other queued entities
  u64 v_floor = 0;       // V as reweight_entity() computes it (avg_vruntime())
  u64 max_slice = 0;     // cfs_rq_max_slice() at the reweight
  i128 lag_cut = 0;      // L - L_c: what entity_lag()'s clamp took off V - v (0 if not clamped)
  i128 lag_c = 0;        // L_c: the lag reweight_eevdf() rescales (V - v after entity_lag()'s clamp)
  i128 lag_limit = 0;    // entity_lag()'s clamp at the old weight
};
// At the start of reweight_entity() of a queued se on cfs_rq: V as the exact
// sums and as the code computes it, the lag it will take and whether
// entity_lag() clamps it (the other fields are the caller's).
void note_queued_reweight(const Rq& rq, const CfsRq& cfs_rq, const SchedEntity& se, ReweightRecord& rw);
// set_load_weight() wrote se's weight (old_weight before) past reweight_entity() (Observer::on_load_set).
void check_load_set(const CheckScope& s, const SchedEntity& se, u64 old_weight);
// At the end of reweight_entity() of se (Observer::on_reweight_end), against what its start recorded.
void check_reweight(const CheckScope& s, const SchedEntity& se, const ReweightRecord& rw);
// deadline.cpp
void check_deadline(const CheckScope& s);    // I-DL, I-SLICE
// I-DL and I-SLICE (tasks) on the entities an operation touched (Checker::end_op_incremental()).
void check_deadline_touched(const CheckScope& s, const std::vector<const SchedEntity*>& touched);
// I-DL's fresh request: a task that joined from sleep without time passing has
// d - v of one virtual slice of its own slice, or, at its first enqueue under
// PLACE_DEADLINE_INITIAL, half of it.
struct FreshRequest {
  const SchedEntity* se = nullptr;  // the first offender
  bool first = false;               // its first enqueue
  i128 ahead = 0, vslice = 0;
};
bool fresh_request_offends(const Rq& rq, const SchedEntity& se, FreshRequest& out);
void report_fresh_request(const CheckScope& s, const FreshRequest& f);
// wake_cpu.cpp
void check_wake_cpu(const CheckScope& s);    // I-WAKECOUNT (root queue: the backend's own answers of the counter tests)
// I-WAKECOUNT at a wake-up CPU choice (Observer::on_wake_choice()), told to the
// waking CPU's checker: the chosen CPU against the design's properties, judged
// from the tasks of every CPU (rq.possible_cpus()).
void check_wake_choice(Checker& checker, const Rq& rq, const WakeCpuChoice& c);
// "group G: " for a group's queue ("group G on CPU 1: " with several CPUs),
// nothing for the root queue (the messages of a task-only run are unchanged).
std::string queue_prefix(const CheckScope& s);  // accounting.cpp
// bandwidth.cpp
void check_bandwidth(const CheckScope& s);   // I-BW (every queue while a group has a quota)
// idle.cpp
void check_idle(const CheckScope& s);        // I-IDLE (root queue)
// pelt.cpp
void check_pelt(const CheckScope& s);        // I-PELT (root queue, while PELT is tracked)
// placement.cpp
// I-PLACE at a placement with the saved lag (Observer::on_placed); s.avg includes se.
void check_placement(const CheckScope& s, const SchedEntity& se, s64 saved_lag);
// protection.cpp
void check_protection(const CheckScope& s);  // I-PROT after the operation
// I-PROT at a real pick (set_next_entity(first)) on se's queue s.cfs; reads no s.avg.
void check_protection_at_pick(const CheckScope& s, const SchedEntity& se);
// I-PROT between picks: whether the protected run left to se, curr without a
// real pick since the last operation, grew from `before` to `now` (w·(end - v))
// by more than the rounding of the reweights of it in the operation (Σ new
// weight), a known finding aside (lag_clamped: one of them clamped its lag).
bool protection_grew(const Checker& checker, const SchedEntity& se, i128 before, i128 now, u64 reweight_rounding,
                     bool lag_clamped);
void check_protection_kept(const CheckScope& s, const SchedEntity& se, i128 before, i128 now);
// I-PROT between picks, where only a real pick arms it: set_next_entity() without a pick moved vprot later.
void check_protection_rearmed(const CheckScope& s, const SchedEntity& se, u64 vprot_before);
// I-PROT's wait rule: on one queue, the entity EEVDF would run while curr's
// protection is over, from the end of the operation that first saw it.
struct ProtectionOverWait {
  const CfsRq* cfs = nullptr;
  const SchedEntity* waiter = nullptr;
  const SchedEntity* curr = nullptr;
  u64 curr_picked_at = 0;  // curr's prev_sum_exec_runtime (set_next_entity() sets it)
  u64 waiter_ran = 0;      // the waiter's sum_exec_runtime
  u64 ticks = 0;           // Rq::charged_ticks at the end of the last operation
  u64 curr_ran = 0;        // curr's sum_exec_runtime then
  u64 clock = 0;           // rq_clock_task() when the wait began
  u64 curr_deadline = 0;   // curr's deadline then (the end of the request it was serving) ...
  u64 curr_weight = 0;     // ... at this weight: a reweight of curr rescales that end (read again)
};
// After the operation, on s.cfs: the entity EEVDF would run gets the CPU at the
// first tick after curr's protection is over. `waits` holds one record per queue.
void check_protection_over_wait(const CheckScope& s, std::vector<ProtectionOverWait>& waits);
// I-PROT's rule 5: whether this CPU's fair class was lone at the end of the
// last operation, and the backend's count of fair ticks that rescheduled then.
struct LoneTickWatch {
  bool lone = false;
  int curr = -1;
  u64 rescheds = 0;  // Rq::fair_tick_rescheds
  u64 unthrottles = 0;  // Rq::unthrottles
};
// A lone fair entity: the running fair task is the only entity queued on every
// level of its hierarchy (cfs_rq->nr_queued == 1 from its queue up to rq->cfs;
// delayed entities count, they are queued by design; on the v7.3-rc single
// runqueue rq->cfs.h_nr_queued == 1). RT tasks are not fair entities.
bool lone_fair_entity(const Rq& rq);
// After the operation, once per CPU (at its root queue): a lone fair entity is
// never rescheduled by the fair class's tick (slice expiry, end of protection).
void check_lone_tick(const CheckScope& s, LoneTickWatch& w);
// w·(end - v) for the protection se holds now (0 if none): vprot, or the v6.6-v6.12 parity stash.
i128 protected_run_left(const Rq& rq, const SchedEntity& se);
// delay.cpp: I-DELAY
void check_delay(const CheckScope& s);       // the state part
// w·clamp(V - v) of a queued entity (the saved w·vlag of one off the queue):
// the lag a delayed entity's debt is measured in.
i128 delay_lag(const Rq& rq, const SchedEntity& se);
// se left the delayed state (woken or dequeued) with the lag `lag` (set), below
// the one it had when delayed (at_delay).
bool delay_debt_grew(const Rq& rq, const SchedEntity& se, i128 at_delay, i128& lag);
void report_delay_debt(const CheckScope& s, const SchedEntity& se, i128 lag, i128 at_delay);
// update_cfs_group() reweights a delayed group entity to new_weight (Observer::on_reweight_begin).
void check_delayed_reweight(const CheckScope& s, const SchedEntity& se, u64 new_weight);
// monotonic.cpp: I-MONO, in an operation that only ran: se's vruntime moved by
// `moved` (it was curr at some point of the operation: was_curr).
// (Inline: asked for every entity after every running operation.)
inline bool vruntime_offends(s64 moved, bool was_curr) { return moved < 0 || (moved > 0 && !was_curr); }
void report_vruntime(const CheckScope& s, const SchedEntity& se, s64 moved);
// warnings.cpp: the arithmetic's and the code's own alarms (Observer::on_overflow, on_warn)
// I-OVF; `reweighting`: the entity inside reweight_entity(), if any.
void check_overflow(Checker& checker, const OverflowEvent& e, const SchedEntity* reweighting);
void check_warn(Checker& checker, const Rq* rq, Warn w, const SchedEntity* se);  // I-WARN, I-HLOAD, I-NULLPICK
// pick.cpp
void check_pick(const CheckScope& s, const SchedEntity* result, bool protect, PickCaller caller);  // I-PICKOPT, I-NULLPICK, I-DELAY
void check_wakeup_preempt(const CheckScope& s, const SchedEntity& wakee, WakeupPreemptReason reason);  // I-WAKEPICK
// find_matching_se() on const entities: the ancestors of se and pse that share a queue.
std::pair<const SchedEntity*, const SchedEntity*> matching_levels(const SchedEntity* se, const SchedEntity* pse);
// I-WAKEPICK at the pick after a non-idle wakee preempted the SCHED_IDLE curr, at the level where they met.
void check_pick_after_idle_preempt(const CheckScope& s, const SchedEntity* result);

// The bounds of one weight under the largest slice seen: the lag clamp and one
// virtual slice. Cached per task: they change only with the weight or the slice.
// (No member initialisers, here and in RescaledDeadline and RescaledLag: a
// Checker, built for every run, value-initialises its per-entity arrays of
// them, which is then one zero fill of the memory instead of a constructor
// call per element; `{}` zeroes one.)
struct WeightBounds {
  u64 weight;
  u64 max_slice;
  u64 lag_bound;  // lag_bound(max_slice, weight): the kernel's clamp (I-LAG)
  u64 quantum;    // Rq::tick_quantum() when computed
  u64 key_bound;  // lag_bound(max_slice, weight, quantum): the lag EEVDF allows (I-KEY)
  u64 vslice;     // calc_delta_fair(max_slice) for this weight, on the profile's path
};

class Checker final : public Observer {
 public:
  // The bound a saved vlag carries from an off-queue reweight (0: none applies).
  // (Inline: asked for every saved lag after every operation.)
  u64 rescaled_lag_limit(const SchedEntity& se) const {
    const RescaledLag& r = rescaled_lag_[entity_slot(se)];
    return r.set && r.vlag == se.vlag && r.weight == eevdf_load_of(*rq_, se).weight ? r.limit : 0;
  }
  const WeightBounds& bounds(const SchedEntity& se) {
    return bounds(se, rq_->tick_quantum(), rq_->profile().behaviour.flat_runqueue);
  }
  // The same, with the run-wide keys (rq.tick_quantum() and the profile's
  // flat_runqueue, which no check changes) read once by the caller of a walk.
  const WeightBounds& bounds(const SchedEntity& se, u64 quantum, bool flat) {
    const WeightBounds& b = bounds_[entity_slot(se)];
    const u64 weight = flat && se.task_id >= 0 ? se.h_load.weight : se.load.weight;  // eevdf_load_of()
    return b.weight == weight && b.max_slice == max_slice_seen_ && b.quantum == quantum ? b : recompute_bounds(se);
  }
  explicit Checker(Selection selection = {}, Tolerances tolerances = {})
      : selection_(selection), tolerances_(tolerances), checking_(any_on(selection)) {
    violations_.reserve(kMaxViolations);
  }
  // Whether any invariant is checked. With none (`--only` of nothing, the
  // benchmarks' baseline) nothing can be reported, so the checker keeps no
  // records and walks nothing: every hook and end_op() return at once.
  bool checking() const { return checking_; }
  // The verdict of a check that saw what finding f describes (`seen`): true if
  // the checker tolerates f (Tolerances), and the check then reports nothing.
  bool known(Finding f, bool seen = true) const { return seen && tolerances_.tolerates(f); }
  // The finding by which se->vprot derives from a stale value (F1: an
  // off-queue reweight or a sched_change's set_next_entity(); F6: a change of
  // queue; F7: a reweight of an expired protection), set at that event and
  // cleared when a real pick re-arms vprot; Finding::none if it is fresh.
  Finding stale_vprot(const SchedEntity& se) const { return stale_vprot_[entity_slot(se)]; }
  // The deadline reweight_entity() left on a queued entity, while it lasts.
  // The kernel rescales d - V and V - v separately, each truncated, so d - v
  // drifts from one virtual slice by up to `excess` ns (virtual), growing by
  // old/new weight at every reweight. `clamped`: entity_lag() clamped the lag
  // but not the deadline (finding F7), so d - v may be anything.
  // `relative`: an off-queue reweight rescaled the relative deadline d - v
  // (`deadline`), which the next placement keeps.
  // `distance`: d - v when recorded; a sched_change re-placement moves d and v
  // together (PLACE_REL_DEADLINE) and keeps it.
  struct RescaledDeadline {
    bool set;
    bool clamped;
    bool relative;
    u64 deadline;
    u64 excess;
    u64 distance;
  };
  // The record if se's deadline is still the one its last reweight left, else null.
  // (Inline: asked for every queued entity after every operation.)
  const RescaledDeadline* rescaled_deadline(const SchedEntity& se) const {
    const RescaledDeadline& r = rescaled_deadline_[entity_slot(se)];
    return r.set ? rescaled_deadline_if_current(se, r) : nullptr;
  }
  // What this checker recorded of task se (its own CPU's checker) becomes other's
  // too: its deadline's reweight record, a stale vprot, a delayed task's lag at
  // its delay (share_end_records()).
  void share_record(const SchedEntity& se, Checker& other) const;
  // The entities of each queue of this CPU, listed at the start of end_op().
  const QueueIndex& queues() const { return queues_; }

  // Becomes the runqueue's observer.
  void attach(Rq& rq);
  void begin_op(int op_index, OpClass cls);
  void end_op();
  // Several runqueues: end of an operation that did not act on this CPU (its
  // state is what the last end_op() checked). Keeps the run-long memory that
  // every operation moves (I-FAIR's window); the queues are not checked again
  // (end_ops_touched() sweeps them).
  void end_op_untouched();
  // --check incremental, between full sweeps (end_op()): the end of an
  // operation judged from what it touched and what it moves for everyone.
  // (Every queue's PELT sums (I-PELT) are judged too: a few comparisons.)
  // The run-long memory is kept exactly as end_op() keeps it (the records of
  // every entity, I-PROT's wait and lone-tick watches, I-FAIR's window: the
  // next full sweep judges the same history); of the state, V (I-LAG's sum
  // rule from the exact sums, I-SUM: the kernel's sums against them) on every
  // queue, and I-DL and I-SLICE of the entities whose deadline, vruntime,
  // slice, queue, on_rq or weight moved; I-AUG's augments of the root (against the
  // whole tree's extremes) and of the paths from those entities up to the root;
  // I-AVG0, and I-KEY and I-NULLPICK from the queue's extreme keys
  // (check_average_incremental()). Not judged until the sweep: the tree's
  // shape, order and colours and the other augments, every entity's
  // eligibility against the exact one (I-ELIG), the saved lags of untouched
  // entities (I-LAG; a touched one's is judged), the counters
  // (I-CNT), I-PROT's and I-DELAY's state parts and I-WAKECOUNT's
  // counter tests. The event checks (picks, placements, reweights, lag clamps,
  // every avg_vruntime(), overflows, warnings) run in both modes.
  void end_op_incremental();
  // The queue checks of end_op() alone, on the state as it is (the sweep at the
  // end of an input whose last operation was refused after an end_op_untouched()).
  void check_queues_now();

  const std::vector<Violation>& violations() const { return violations_; }
  // Moves the violations reported since the last call to `out` (the executor
  // labels each as known or new after every operation).
  void take_violations(std::vector<Violation>& out) {
    for (auto& v : violations_) out.push_back(std::move(v));
    violations_.clear();
  }
  bool violated() const { return !violations_.empty(); }
  const Selection& selection() const { return selection_; }
  void add(Violation v);
  // Several runqueues: the lag bounds use the largest slice seen on any CPU
  // (a migrated task carries a lag clamped on its source), raised before end_op().
  u64 max_slice_seen() const { return max_slice_seen_; }
  void raise_max_slice(u64 m) {
    if (m > max_slice_seen_) max_slice_seen_ = m;
  }

  // Observer
  // (Each returns at once when nothing is checked: checking().)
  void on_overflow(const OverflowEvent& e) override;
  void on_warn(Warn w, const SchedEntity* se) override;
  void on_pick(const CfsRq& cfs_rq, const SchedEntity* result, bool protect, PickCaller caller) override;
  void on_wakeup_preempt(const CfsRq& cfs_rq, const SchedEntity& wakee, WakeupPreemptReason reason) override;
  void on_lag_clamp(const CfsRq& cfs_rq, const SchedEntity& se, s64 raw, s64 clamped) override;
  void on_reweight_begin(const CfsRq& cfs_rq, const SchedEntity& se, u64 new_weight) override;
  void on_reweight_end(const CfsRq& cfs_rq, const SchedEntity& se) override;
  void on_deadline_made_relative(const SchedEntity& se) override;
  void on_relative_deadline_rescaled(const SchedEntity& se, u64 old_relative, u64 old_weight,
                                     u64 new_weight) override;
  void on_read_avg(const CfsRq& cfs_rq, const char* caller) override;
  void on_avg_vruntime(const CfsRq& cfs_rq, u64 v) override;
  void on_placed(const CfsRq& cfs_rq, const SchedEntity& se, s64 saved_lag) override;
  void on_load_set(const SchedEntity& se, u64 old_weight) override;
  void on_set_next(const SchedEntity& se, bool first) override;
  void on_delayed(const SchedEntity& se) override;
  void on_wake_choice(const WakeCpuChoice& c) override;

  // I-FAIR: the largest |service - weighted share| / (max_slice + TICK_NSEC) seen.
  double fairness_worst_ratio() const { return fairness_.worst_ratio(); }

  static constexpr std::size_t kMaxViolations = 32;

 private:
  Rq* rq_ = nullptr;
  QueueIndex queues_;
  Selection selection_;
  Tolerances tolerances_;
  bool checking_;  // see checking()
  static bool any_on(const Selection& s) {
    for (bool on : s.on)
      if (on) return true;
    return false;
  }
  FairnessWindow fairness_;

  int op_index_ = -1;
  OpClass op_class_ = OpClass::running;
  u64 clock_before_ = 0;  // rq_clock_task at begin_op
  u64 unthrottles_before_ = 0;  // Rq::unthrottles at begin_op (I-MONO)
  u64 max_slice_seen_ = 0;
  std::vector<Violation> violations_;
  // Per-task state, set up when a task first appears (adopt_new_tasks()), not
  // zero-filled for all kMaxTasks: a Checker is built for every fuzz run.
  std::size_t known_tasks_ = 0;
  std::size_t known_groups_ = 0;
  void adopt_new_tasks();  // and new groups
  void adopt(std::size_t slot, const SchedEntity& se);
  void check_queue(const CfsRq& cfs_rq, ExactAverage& avg);
  // end_op_incremental()'s part of check_queue().
  void check_queue_incremental(const CfsRq& cfs_rq, ExactAverage& avg);
  // The end-of-operation walk over this CPU's entities that both ends share:
  // the records kept from operation to operation, the largest slice queued,
  // the first offenders of I-MONO, I-DELAY's transitions, I-PROT between picks
  // and I-DL's fresh request (reported after the queue checks,
  // report_end_walk()), and, if `touched` is set, the entities the operation
  // moved (end_op_incremental()).
  struct EndWalk {
    u64 largest_queued = 0;
    FreshRequest fresh;
    const SchedEntity* mono_se = nullptr;
    s64 mono_moved = 0;
    const SchedEntity* delay_se = nullptr;
    i128 delay_left_with = 0, delay_had = 0;
    const SchedEntity* prot_se = nullptr;
    const CfsRq* prot_q = nullptr;
    i128 prot_before = 0, prot_now = 0;
  };
  EndWalk walk_end_records(std::vector<const SchedEntity*>* touched);
  // The largest slice seen, raised from the root queue's average and the walk's largest queued.
  void raise_max_slice_seen(const ExactAverage& root, const EndWalk& w);
  void report_end_walk(const EndWalk& w);
  std::vector<const SchedEntity*> touched_;  // end_op_incremental()'s, reused
  // An event check: calls check(scope) with a scope on queue q and its exact
  // average, or with none, for a check that reads no average.
  template <class F>
  void with_average(const CfsRq& q, F check) {
    const ExactAverage avg = exact_average(q);
    check(CheckScope{*rq_, selection_, avg, max_slice_seen_, *this, q});
  }
  template <class F>
  void with_sums(const CfsRq& q, F check) {
    const ExactAverage avg = exact_sums(q);
    check(CheckScope{*rq_, selection_, avg, max_slice_seen_, *this, q});
  }
  template <class F>
  void without_average(const CfsRq& q, F check) {
    ExactAverage none;
    check(CheckScope{*rq_, selection_, none, max_slice_seen_, *this, q});
  }
  std::array<Finding, kMaxEntities> stale_vprot_;  // see stale_vprot()
  // I-WAKEPICK: the entity of the SCHED_IDLE curr at the level where a
  // non-idle wakee preempted it (find_matching_se()), until the pick that
  // follows reaches that level or leaves its path
  const SchedEntity* idle_preempted_ = nullptr;
  std::array<RescaledDeadline, kMaxEntities> rescaled_deadline_{};  // I-DL after reweight_entity()
  // (Inline: records stay set once made, so this is asked of most entities after every operation.)
  const RescaledDeadline* rescaled_deadline_if_current(const SchedEntity& se, const RescaledDeadline& r) const {
    if (!r.set || se.rel_deadline) return nullptr;
    if (r.relative) return se.deadline - se.vruntime == r.deadline ? &r : nullptr;  // placed since
    return r.deadline == se.deadline || se.deadline - se.vruntime == r.distance ? &r : nullptr;
  }
  std::array<u64, kMaxEntities> vruntime_before_;   // I-MONO
  std::array<u64, kMaxEntities> deadline_before_;   // end_op_incremental(): what the operation touched
  std::array<u64, kMaxEntities> slice_before_;
  std::array<bool, kMaxEntities> on_rq_before_;
  std::array<u64, kMaxEntities> weight_before_;     // (the weight EEVDF uses: eevdf_load_of())
  s64 mono_moved_ = 0;  // I-MONO: what the entity being reweighted had moved before the reweight
  std::array<bool, kMaxEntities> was_curr_;         // I-MONO: curr at some point during the operation
  std::array<const CfsRq*, kMaxEntities> queue_before_;  // F1/F6: the queue at the operation's start
  std::array<bool, kMaxEntities> delayed_before_;   // I-DELAY
  std::array<bool, kMaxEntities> asleep_before_;    // I-DL: a task off every queue at begin_op
  std::array<bool, kMaxEntities> ever_queued_;      // I-DL: a task queued at the end of some operation
  std::array<i128, kMaxEntities> lag_at_delay_;     // I-DELAY: w·clamp(V - v) when the entity was delayed
  // I-PROT between picks: the protected run left (w·(end - v)) at the end of the
  // last operation, while the entity was curr (prot_known_), and whether a real
  // pick of it happened during this operation
  std::array<i128, kMaxEntities> prot_left_;
  std::array<bool, kMaxEntities> prot_known_;
  std::array<bool, kMaxEntities> picked_;
  // I-PROT between picks (set_next_entity() arms only at a real pick): vprot at the
  // operation's start, at the last reweight_entity() (its rescale) or at the last real pick
  std::array<u64, kMaxEntities> vprot_armed_;
  std::vector<ProtectionOverWait> over_wait_;  // I-PROT's wait rule, one per queue seen
  LoneTickWatch lone_tick_;                     // I-PROT's rule 5
  // I-PROT between picks: Σ new weight over the reweight_entity() calls of it in
  // this operation (each may lengthen the protected run by < 1 virtual ns at its new weight)
  std::array<u64, kMaxEntities> reweight_rounding_;
  std::array<bool, kMaxEntities> lag_clamped_;    // ... one of which clamped its lag (F7)
  std::array<bool, kMaxEntities> delay_seen_;     // on_delayed() took lag_at_delay_ during this operation
  // I-LAG: a saved vlag rescaled off the queue by w/w' (reweight of a sleeping or dequeued
  // entity) and the bound it carries: ceil(bound at w · w/w'), while vlag and weight stay.
  struct RescaledLag {
    bool set;
    s64 vlag;
    u64 weight;
    u64 limit;
  };
  std::array<RescaledLag, kMaxEntities> rescaled_lag_{};
  std::array<WeightBounds, kMaxEntities> bounds_{};
  const WeightBounds& recompute_bounds(const SchedEntity& se);

  ReweightRecord rw_;
  const SchedEntity* reweighting_ = nullptr;  // between on_reweight_begin() and on_reweight_end()

};

inline bool CheckScope::known(Finding f, bool seen) const { return checker.known(f, seen); }

// Several runqueues, before end_op(): raises every checker's largest slice to
// the largest queued on any CPU (tasks, and the group entities of every CPU
// outside the flat runqueue) or seen by any checker.
void share_max_slice(const System& sys, const std::vector<std::unique_ptr<Checker>>& checkers);

// Several runqueues, after the checkers' end_op(): what each task's own CPU's
// checker recorded of it becomes every checker's, so that a task migrating in
// the next operation arrives with it: the reweight rounding its deadline
// carries (made from events on the model, inside end_op() from the state on
// the kernel backend), a stale vprot, and a delayed task's lag at its delay
// (I-DELAY: the checker of a CPU it moves to while delayed, a `migrate`,
// judges its requeue or final dequeue against it).
void share_end_records(const System& sys, const std::vector<std::unique_ptr<Checker>>& checkers);

// Several runqueues, after an operation that acted on the CPUs in `touched`
// (bit c: CPU c; the caller derives it from the operation itself, not from the
// model's bookkeeping): share_max_slice(), then every touched CPU's queues
// are checked from scratch (end_op()), the others only keep their run-long
// memory (end_op_untouched()). Every CPU is checked (a full sweep) when `sweep`
// is set (every K operations and at the end of an input: the caller's choice)
// and whenever a touched CPU reported a violation, before it is reported: an
// untouched CPU's state is the one its last check passed, and the sweep is the
// safety net that catches it if it is not.
// Returns true if every CPU was checked.
// `incremental` (--check incremental): a touched CPU between sweeps is judged by
// end_op_incremental(); a violation it reports still brings the full sweep.
bool end_ops_touched(const System& sys, const std::vector<std::unique_ptr<Checker>>& checkers, std::uint32_t touched,
                     bool sweep, bool incremental = false);

}  // namespace eevdf::inv
