#include "bridge/sim.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "scenario/executor.hpp"
#include "scenario/op_table.hpp"
#include "scenario/scenario_print.hpp"
#include "model/fair.hpp"

namespace eevdf::bridge {

// Hands every model event to the checker and counts the picks made by
// __schedule() (a tick's reschedule shows as one).
struct Sim::Fwd final : Observer {
  inv::Checker* c = nullptr;
  u64 schedule_picks = 0;
  void on_overflow(const OverflowEvent& e) override { c->on_overflow(e); }
  void on_warn(Warn w, const SchedEntity* se) override { c->on_warn(w, se); }
  void on_pick(const CfsRq& q, const SchedEntity* r, bool protect, PickCaller caller) override {
    if (caller == PickCaller::schedule) ++schedule_picks;
    c->on_pick(q, r, protect, caller);
  }
  void on_reweight_begin(const CfsRq& q, const SchedEntity& se, u64 w) override { c->on_reweight_begin(q, se, w); }
  void on_reweight_end(const CfsRq& q, const SchedEntity& se) override { c->on_reweight_end(q, se); }
  void on_set_next(const SchedEntity& se, bool first) override { c->on_set_next(se, first); }
  void on_wakeup_preempt(const CfsRq& q, const SchedEntity& wakee, WakeupPreemptReason why) override {
    c->on_wakeup_preempt(q, wakee, why);
  }
  void on_lag_clamp(const CfsRq& q, const SchedEntity& se, s64 raw, s64 clamped) override {
    c->on_lag_clamp(q, se, raw, clamped);
  }
  void on_relative_deadline_rescaled(const SchedEntity& se, u64 old_relative, u64 old_weight,
                                     u64 new_weight) override {
    c->on_relative_deadline_rescaled(se, old_relative, old_weight, new_weight);
  }
  void on_read_avg(const CfsRq& q, const char* caller) override { c->on_read_avg(q, caller); }
  void on_deadline_made_relative(const SchedEntity& se) override { c->on_deadline_made_relative(se); }
  void on_load_set(const SchedEntity& se, u64 old_weight) override { c->on_load_set(se, old_weight); }
  void on_delayed(const SchedEntity& se) override { c->on_delayed(se); }
  void on_placed(const CfsRq& q, const SchedEntity& se, s64 saved_lag) override { c->on_placed(q, se, saved_lag); }
};

Sim::Sim(const Profile& profile, bool keep_going, inv::Tolerances tolerances, bool keep_samples)
    : profile_(profile), keep_going_(keep_going), keep_samples_(keep_samples) {
  sys_ = std::make_unique<System>(profile_, 1);
  rq_ = &sys_->rq(0);
  checker_ = std::make_unique<inv::Checker>(inv::Selection{}, tolerances);
  fwd_ = std::make_unique<Fwd>();
  fwd_->c = checker_.get();
  checker_->attach(*rq_);
  rq_->set_observer(fwd_.get());
  sample();
}

Sim::~Sim() = default;

int Sim::task_index(const std::string& name) const { return rq_->find_task(name); }

namespace {
char state_of(const Rq& rq, const Task& t) {
  if (t.state == TaskState::dead) return 'x';
  if (t.state == TaskState::new_) return 'n';
  if (rq.running() == t.se.task_id) return 'r';  // an RT task too
  if (t.se.sched_delayed) return 'd';
  if (t.se.on_rq) return 'q';
  return 's';
}
}  // namespace

void Sim::sample() {
  const Rq& rq = *rq_;
  const s64 v = as_s64(rq.cfs.zero_vruntime + as_u64(avg_vruntime_offset(rq.cfs, null_observer())));
  Sample s;
  s.clock = rq.clock_task;
  s.op_index = op_index_ - 1;
  s.curr = rq.running();  // the task on the CPU, of whichever class
  s.avg_vruntime = v;
  s.tasks.reserve(rq.tasks.size());
  for (const Task& t : rq.tasks) {
    TaskSample ts;
    ts.state = state_of(rq, t);
    ts.vruntime = as_s64(t.se.vruntime);
    ts.deadline = as_s64(t.se.deadline);
    ts.vprot = as_s64(t.se.vprot);
    ts.weight = t.se.load.weight;
    const bool queued = t.se.on_rq;
    ts.lag = queued ? vruntime_diff(as_u64(v), t.se.vruntime) : t.se.vlag;
    if (queued && !t.se.sched_delayed) {
      TaskMetrics& m = r_.tasks[static_cast<std::size_t>(t.se.task_id)];
      m.lag_min = std::min(m.lag_min, ts.lag);
      m.lag_max = std::max(m.lag_max, ts.lag);
    }
    s.tasks.push_back(ts);
  }
  if (keep_samples_ || r_.samples.empty())
    r_.samples.push_back(std::move(s));
  else
    r_.samples.back() = std::move(s);
}

void Sim::account(u64 from, u64 to) {
  if (to <= from) return;
  const u64 dt = to - from;
  const Rq& rq = *rq_;
  if (rq.running() >= 0) r_.tasks[static_cast<std::size_t>(rq.running())].runtime += dt;
  double total = 0;
  for (const Task& t : rq.tasks)
    if (t.se.on_rq && !t.se.sched_delayed) total += static_cast<double>(t.se.load.weight);
  if (total <= 0) return;
  for (const Task& t : rq.tasks)
    if (t.se.on_rq && !t.se.sched_delayed)
      r_.tasks[static_cast<std::size_t>(t.se.task_id)].ideal_runtime +=
          static_cast<double>(dt) * static_cast<double>(t.se.load.weight) / total;
}

void Sim::after_switch() {
  const int c = rq_->running();
  if (c == last_curr_) return;
  ++r_.counters.context_switches;
  last_curr_ = c;
  if (c >= 0) {
    auto& pending = pending_wake_[static_cast<std::size_t>(c)];
    if (pending >= 0) {
      r_.tasks[static_cast<std::size_t>(c)].wake_latency.push_back(rq_->clock_task - static_cast<u64>(pending));
      pending = -1;
    }
  }
}

void Sim::schedule_if_needed() {
  Rq& rq = *rq_;
  if (rq.oops) return;
  if (rq.need_resched) ++r_.counters.reschedules;
  if (rq.need_resched || (rq.running() < 0 && (rq.cfs.nr_queued || !rq.rt_queue.empty()))) {
    rq.schedule();
    after_switch();
  }
}

// Advances by ns, which ends at or before the next tick boundary: the task on
// the CPU is the same for the whole interval, a tick at its end may switch.
void Sim::advance(u64 ns) {
  Rq& rq = *rq_;
  if (ns == 0 || rq.oops) return;
  account(rq.clock_task, rq.clock_task + ns);
  const u64 picks = fwd_->schedule_picks;
  rq.run(ns);
  if (fwd_->schedule_picks != picks) ++r_.counters.reschedules;
  after_switch();
}

void Sim::add_task(const std::string& name, int id) {
  if (id < 0) return;
  if (r_.tasks.size() <= static_cast<std::size_t>(id)) {
    r_.tasks.resize(static_cast<std::size_t>(id) + 1);
    pending_wake_.resize(static_cast<std::size_t>(id) + 1, -1);
  }
  r_.tasks[static_cast<std::size_t>(id)].name = name;
}

bool Sim::apply(const scn::Op& op) {
  if (stopped_) return false;
  using scn::OpKind;
  if (scn::is_expectation(op.kind)) {
    ++op_index_;  // keep op indices those of the scenario (violations name them)
    return true;
  }
  System& sys = *sys_;
  Rq& rq = *rq_;
  const int index = op_index_++;
  checker_->begin_op(index, scn::op_class(op.kind));
  Refusal refusal = Refusal::none;
  const int id = op.task.empty() ? -1 : rq.find_task(op.task);
  // `tick nopreempt` honours nothing: applied as one operation (default below)
  switch (op.kind == OpKind::tick && op.nopreempt ? OpKind::schedule : op.kind) {
    case OpKind::run:
    case OpKind::tick: {
      // System::run() cut at every tick boundary, with a sample at each; a
      // racing reader's stores land after the whole operation, as apply_operation() has them
      const std::size_t reads_before = sys.pending_debug_reads();
      const u64 tick = profile_.tick_nsec();
      const u64 end = op.kind == OpKind::run ? rq.clock_task + op.duration_ns()
                                             : (rq.clock_task / tick + 1) * tick;
      schedule_if_needed();
      while (!rq.oops && rq.clock_task < end) {
        const u64 next_tick = (rq.clock_task / tick + 1) * tick;
        const u64 to = std::min(next_tick, end);
        advance(to - rq.clock_task);
        if (to == next_tick && to != end) sample();
      }
      if (reads_before) sys.store_debug_reads(reads_before);
      break;
    }
    case OpKind::create:
    case OpKind::fork: {
      // the bridges find tasks by name: a name given twice is refused
      const std::string& name = op.kind == OpKind::create ? op.task : op.child;
      if (rq.find_task(name) >= 0) {
        refusal = op.kind == OpKind::create ? (scn::group_id(rq, op.group) ? Refusal::too_many_tasks : Refusal::no_such_group)
                  : id < 0                  ? Refusal::no_such_task
                  : id != rq.curr           ? Refusal::task_not_running_on_cpu
                                            : Refusal::too_many_tasks;
        break;
      }
      refusal = scn::apply_operation(sys, op, id);
      if (refusal == Refusal::none) add_task(name, static_cast<int>(rq.tasks.size()) - 1);
      break;
    }
    case OpKind::wake: {
      const bool had = rq.need_resched, running = rq.curr >= 0;
      refusal = scn::apply_operation(sys, op, id);
      if (refusal == Refusal::none) {
        ++r_.tasks[static_cast<std::size_t>(id)].wakeups;
        if (!had && rq.need_resched && running) ++r_.counters.wakeup_preemptions;
        if (rq.curr != id) pending_wake_[static_cast<std::size_t>(id)] = static_cast<long long>(rq.clock_task);
      }
      break;
    }
    case OpKind::schedule:
      if (op.kind == OpKind::schedule && rq.need_resched) ++r_.counters.reschedules;
      refusal = scn::apply_operation(sys, op, id);
      break;
    default: refusal = scn::apply_operation(sys, op, id); break;
  }
  if (refusal != Refusal::none) {
    r_.error = fmt::format("line {}: cannot run '{}': {}", op.line, scn::print_op(op), refusal_text(refusal));
    r_.error_op = index;
    stopped_ = true;
    return false;
  }
  after_switch();
  checker_->end_op();
  sample();
  if (rq.oops) r_.oops = true;
  if ((checker_->violated() && !keep_going_) || rq.oops) stopped_ = true;
  return !stopped_;
}

SimResult Sim::finish() {
  r_.violations = checker_->violations();
  r_.end_clock = rq_->clock_task;
  return std::move(r_);
}

SimResult simulate(const scn::Scenario& s, const Profile& profile, bool keep_going, bool keep_samples,
                   inv::Tolerances tolerances) {
  Sim sim(profile, keep_going, tolerances, keep_samples);
  if (s.runqueues != 1) {  // the bridges model one CPU
    SimResult r = sim.finish();
    r.error = "the bridges (simulate, compare, report, exports) model one CPU; the scenario has runqueues " +
              std::to_string(s.runqueues);
    return r;
  }
  for (const auto& op : s.ops)
    if (!sim.apply(op)) break;
  return sim.finish();
}

u64 percentile(std::vector<u64> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  // nearest rank: the smallest value with at least p% of the values at or below it
  auto rank = static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(values.size())));
  if (rank < 1) rank = 1;
  if (rank > values.size()) rank = values.size();
  return values[rank - 1];
}

}  // namespace eevdf::bridge
