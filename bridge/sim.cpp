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
  void on_avg_vruntime(const CfsRq& q, u64 v) override { c->on_avg_vruntime(q, v); }
  void on_deadline_made_relative(const SchedEntity& se) override { c->on_deadline_made_relative(se); }
  void on_load_set(const SchedEntity& se, u64 old_weight) override { c->on_load_set(se, old_weight); }
  void on_delayed(const SchedEntity& se) override { c->on_delayed(se); }
  void on_placed(const CfsRq& q, const SchedEntity& se, s64 saved_lag) override { c->on_placed(q, se, saved_lag); }
};

Sim::Sim(const Profile& profile, bool keep_going, inv::Tolerances tolerances, bool keep_samples, unsigned cpus,
         unsigned smt)
    : profile_(profile), keep_going_(keep_going), keep_samples_(keep_samples) {
  sys_ = std::make_unique<System>(profile_, cpus);
  sys_->set_smt(smt);
  for (unsigned c = 0; c < cpus; ++c) {
    // one checker per runqueue, each its runqueue's observer (as the executor's)
    checkers_.push_back(std::make_unique<inv::Checker>(inv::Selection{}, tolerances));
    fwds_.push_back(std::make_unique<Fwd>());
    fwds_.back()->c = checkers_.back().get();
    checkers_.back()->attach(sys_->rq(c));
    sys_->rq(c).set_observer(fwds_.back().get());
  }
  last_curr_.assign(cpus, -1);
  before_.assign(cpus, {});
  r_.cpus = cpus;
  r_.placement.per_cpu.assign(cpus, 0);
  sample();
}

Sim::~Sim() = default;

int Sim::task_index(const std::string& name) const { return sys_->rq(0).find_task(name); }

bool Sim::violated() const {
  return std::any_of(checkers_.begin(), checkers_.end(), [](const auto& c) { return c->violated(); });
}

namespace {
char state_of(const Rq& rq, const Task& t) {
  if (t.state == TaskState::dead) return 'x';
  if (t.state == TaskState::new_) return 'n';
  if (rq.running() == t.se.task_id) return 'r';  // an RT task too
  if (t.se.sched_delayed) return 'd';
  if (t.se.on_rq) return 'q';
  return 's';
}

s64 v_of(const CfsRq& q) { return as_s64(q.zero_vruntime + as_u64(avg_vruntime_offset(q, null_observer()))); }

// The queue whose V a task's lag is measured against: its own (a group's,
// for a task in a group), or rq->cfs on the single runqueue
const CfsRq& eevdf_queue(const Rq& rq, const Task& t) {
  return rq.profile().behaviour.flat_runqueue || !t.se.cfs_rq ? rq.cfs : *t.se.cfs_rq;
}
}  // namespace

void Sim::sample() {
  const Rq& rq0 = sys_->rq(0);
  Sample s;
  s.clock = rq0.clock_task;
  s.op_index = op_index_ - 1;
  s.curr = rq0.running();  // the task on the CPU, of whichever class
  s.avg_vruntime = v_of(rq0.cfs);
  for (unsigned c = 0; c < sys_->size(); ++c) s.cpu_avg_vruntime.push_back(v_of(sys_->rq(c).cfs));
  s.tasks.reserve(rq0.tasks.size());
  for (const Task& t : rq0.tasks) {
    const Rq& rq = sys_->rq_of(t.se.task_id);
    TaskSample ts;
    ts.state = state_of(rq, t);
    ts.vruntime = as_s64(t.se.vruntime);
    ts.deadline = as_s64(t.se.deadline);
    ts.vprot = as_s64(t.se.vprot);
    ts.weight = t.se.load.weight;
    ts.cpu = t.cpu;
    const bool queued = t.se.on_rq;
    const CfsRq& q = eevdf_queue(rq, t);
    const s64 v = &q == &rq.cfs ? s.cpu_avg_vruntime[static_cast<std::size_t>(t.cpu)] : v_of(q);
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
  const auto runnable = [](const Task& t) { return t.se.on_rq && !t.se.sched_delayed; };
  for (unsigned c = 0; c < sys_->size(); ++c) {
    const Rq& rq = sys_->rq(c);
    if (rq.running() >= 0) r_.tasks[static_cast<std::size_t>(rq.running())].runtime += dt;
    before_[c].runnable_weight = 0;
  }
  const std::vector<Task>& tasks = sys_->rq(0).tasks;
  for (const Task& t : tasks)
    if (runnable(t)) before_[static_cast<std::size_t>(t.cpu)].runnable_weight += static_cast<double>(t.se.load.weight);
  for (const Task& t : tasks)
    if (runnable(t))
      r_.tasks[static_cast<std::size_t>(t.se.task_id)].ideal_runtime +=
          static_cast<double>(dt) * static_cast<double>(t.se.load.weight) /
          before_[static_cast<std::size_t>(t.cpu)].runnable_weight;
}

void Sim::after_switch() {
  for (unsigned cpu = 0; cpu < sys_->size(); ++cpu) {
    const Rq& rq = sys_->rq(cpu);
    const int c = rq.running();
    if (c == last_curr_[cpu]) continue;
    ++r_.counters.context_switches;
    last_curr_[cpu] = c;
    if (c >= 0) {
      auto& pending = pending_wake_[static_cast<std::size_t>(c)];
      if (pending >= 0) {
        r_.tasks[static_cast<std::size_t>(c)].wake_latency.push_back(rq.clock_task - static_cast<u64>(pending));
        pending = -1;
      }
    }
  }
}

void Sim::schedule_if_needed() {
  for (unsigned c = 0; c < sys_->size(); ++c) {
    Rq& rq = sys_->rq(c);
    if (rq.oops) continue;
    if (rq.need_resched) ++r_.counters.reschedules;
    if (rq.need_resched || (rq.running() < 0 && (rq.cfs.nr_queued || !rq.rt_queue.empty()))) rq.schedule();
  }
  after_switch();
}

// Advances by ns, which ends at or before the next tick boundary: the task on
// each CPU is the same for the whole interval, a tick at its end may switch.
void Sim::advance(u64 ns) {
  if (ns == 0 || sys_->oops()) return;
  account(clock(), clock() + ns);
  for (std::size_t c = 0; c < fwds_.size(); ++c) before_[c].schedule_picks = fwds_[c]->schedule_picks;
  sys_->run(ns);
  for (std::size_t c = 0; c < fwds_.size(); ++c)
    if (fwds_[c]->schedule_picks != before_[c].schedule_picks) ++r_.counters.reschedules;  // the tick's reschedule
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

void Sim::count_wake(int id, int prev_cpu, int from) {
  const Task& t = *sys_->rq_of(id).task(id);
  const Rq& rq = sys_->rq_of(id);
  ++r_.tasks[static_cast<std::size_t>(id)].wakeups;
  ++r_.placement.per_cpu[static_cast<std::size_t>(t.cpu)];
  if (const System::WakeChoiceMade& made = sys_->last_wake_choice(); made.made) {
    if (t.cpu == prev_cpu)
      ++r_.placement.on_prev_cpu;
    else if (t.cpu == from)
      ++r_.placement.on_waker_cpu;
    else
      ++r_.placement.on_other_cpu;
  }
  // need_resched set on a CPU that ran a fair task before
  const CpuBefore& b = before_[static_cast<std::size_t>(t.cpu)];
  if (!b.need_resched && rq.need_resched && b.fair_running) ++r_.counters.wakeup_preemptions;
  if (rq.curr != id) pending_wake_[static_cast<std::size_t>(id)] = static_cast<long long>(rq.clock_task);
}

bool Sim::apply(const scn::Op& op) {
  if (stopped_) return false;
  using scn::OpKind;
  if (scn::is_expectation(op.kind)) {
    ++op_index_;  // keep op indices those of the scenario (violations name them)
    return true;
  }
  System& sys = *sys_;
  const Rq& rq0 = sys.rq(0);
  const int index = op_index_++;
  for (auto& c : checkers_) c->begin_op(index, scn::op_class(op.kind));
  Refusal refusal = Refusal::none;
  const int id = op.task.empty() ? -1 : rq0.find_task(op.task);
  // `tick nopreempt` honours nothing: applied as one operation (default below)
  switch (op.kind == OpKind::tick && op.nopreempt ? OpKind::schedule : op.kind) {
    case OpKind::run:
    case OpKind::tick: {
      // System::run() cut at every tick boundary, with a sample at each; a
      // racing reader's stores land after the whole operation, as apply_operation() has them
      const std::size_t reads_before = sys.pending_debug_reads();
      const u64 tick = profile_.tick_nsec();
      const u64 end = op.kind == OpKind::run ? clock() + op.duration_ns() : (clock() / tick + 1) * tick;
      schedule_if_needed();
      sample();  // who runs from here: the report draws a stretch in the state it starts with
      while (!sys.oops() && clock() < end) {
        const u64 next_tick = (clock() / tick + 1) * tick;
        const u64 to = std::min(next_tick, end);
        advance(to - clock());
        if (to == next_tick && to != end) sample();
      }
      if (reads_before) sys.store_debug_reads(reads_before);
      break;
    }
    case OpKind::create:
    case OpKind::fork: {
      // the bridges find tasks by name: a name given twice is refused
      const std::string& name = op.kind == OpKind::create ? op.task : op.child;
      if (rq0.find_task(name) >= 0) {
        refusal = op.kind == OpKind::create ? (scn::group_id(rq0, op.group) ? Refusal::too_many_tasks : Refusal::no_such_group)
                  : id < 0                  ? Refusal::no_such_task
                  : id != sys.rq_of(id).curr ? Refusal::task_not_running_on_cpu
                                            : Refusal::too_many_tasks;
        break;
      }
      refusal = scn::apply_operation(sys, op, id);
      if (refusal == Refusal::none) add_task(name, static_cast<int>(rq0.tasks.size()) - 1);
      break;
    }
    case OpKind::wake: {
      const int prev_cpu = id >= 0 ? sys.rq_of(id).task(id)->cpu : 0;
      const int from = op.from >= 0 ? op.from : prev_cpu;
      for (unsigned c = 0; c < sys.size(); ++c) {
        before_[c].need_resched = sys.rq(c).need_resched;
        before_[c].fair_running = sys.rq(c).curr >= 0;
      }
      refusal = scn::apply_operation(sys, op, id);
      if (refusal == Refusal::none) count_wake(id, prev_cpu, from);
      break;
    }
    case OpKind::schedule:
      if (op.kind == OpKind::schedule)
        for (unsigned c = 0; c < sys.size(); ++c)
          if (sys.rq(c).need_resched) ++r_.counters.reschedules;
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
  if (sys.size() > 1)
    inv::end_ops_touched(sys, checkers_, ~std::uint32_t{0}, true);  // every CPU, sharing what a migration carries
  else
    checkers_.front()->end_op();
  sample();
  if (sys.oops()) r_.oops = true;
  if ((violated() && !keep_going_) || sys.oops()) stopped_ = true;
  return !stopped_;
}

SimResult Sim::finish() {
  for (const auto& c : checkers_)  // CPU by CPU, as the executor reports them
    for (const auto& v : c->violations())
      if (r_.violations.size() < inv::Checker::kMaxViolations) r_.violations.push_back(v);
  r_.end_clock = clock();
  return std::move(r_);
}

SimResult simulate(const scn::Scenario& s, const Profile& profile, bool keep_going, bool keep_samples,
                   inv::Tolerances tolerances) {
  Sim sim(profile, keep_going, tolerances, keep_samples, s.runqueues, s.smt);
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
