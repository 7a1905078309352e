#include "scenario/executor.hpp"

#include "scenario/expect_fields.hpp"
#include "scenario/finding_identity.hpp"
#include "scenario/op_table.hpp"
#include "scenario/scenario_print.hpp"

#include <algorithm>
#include <memory>
#include <type_traits>
#include <fmt/format.h>

#include "model/bugs.hpp"
#include "model/fair.hpp"
#include "model/rq.hpp"
#include "model/system.hpp"
#include "kernelsrc/kernel_backend.hpp"

namespace eevdf::scn {

ProfileSpec profile_spec(const Scenario& s) {
  ProfileSpec spec;
  spec.name = s.profile;
  spec.bug = s.bug;
  spec.features = s.features;
  spec.cpus = s.cpus;
  spec.hz = s.hz;
  if (s.base_slice) spec.base_slice = static_cast<u64>(*s.base_slice);
  return spec;
}

void set_profile_spec(Scenario& s, const ProfileSpec& spec) {
  s.profile = spec.name;
  s.bug = spec.bug;
  s.features = spec.features;
  s.cpus = spec.cpus;
  s.hz = spec.hz;
  s.base_slice.reset();
  if (spec.base_slice) s.base_slice = static_cast<s64>(*spec.base_slice);
}

namespace {
// What the command line changes: its values replace the header's, its features come after the header's.
ProfileSpec with_override(ProfileSpec spec, const ProfileOverride& o) {
  if (!o.profile.empty()) spec.name = o.profile;
  if (!o.bug.empty()) spec.bug = o.bug;
  if (!o.features.empty()) spec.features += (spec.features.empty() ? "" : ",") + o.features;
  if (o.cpus) spec.cpus = o.cpus;
  if (o.hz) spec.hz = o.hz;
  return spec;
}

std::optional<Profile> build_for_runqueues(const ProfileSpec& spec, unsigned runqueues, std::string& error) {
  auto profile = make_profile(spec, error);
  if (!profile) return std::nullopt;
  if (std::string why = runqueues_refusal(profile->name, runqueues); !why.empty()) {
    error = why;
    return std::nullopt;
  }
  return profile;
}
}  // namespace

std::optional<Profile> build_profile(const Scenario& s, const ProfileOverride& o, std::string& error) {
  return build_for_runqueues(with_override(profile_spec(s), o), o.runqueues ? o.runqueues : s.runqueues, error);
}

std::optional<Profile> build_profile(const ProfileOverride& o, std::string& error) {
  return build_for_runqueues(with_override(ProfileSpec{}, o), o.runqueues ? o.runqueues : 1, error);
}

inv::OpClass op_class(OpKind k) { return op_spec(k).op_class; }

namespace {

const char* task_state_name(const Rq& rq, const Task& t) {
  if (t.state == TaskState::dead) return "dead";
  if (t.state == TaskState::new_) return "new";
  if (t.policy == Policy::fifo)  // an RT task: on the CPU, on the RT list, or asleep
    return rq.running() == t.se.task_id ? "rt-running" : t.on_rq ? "rt-queued" : "sleeping";
  if (rq.running() == t.se.task_id) return "running";
  if (t.se.sched_delayed) return "delayed";
  if (t.se.on_rq) return "queued";
  return "sleeping";
}

StepTrace trace_step(const System& sys, int op_index) {
  const Rq& rq = sys.rq(0);
  StepTrace t;
  t.op_index = op_index;
  t.clock = rq.clock_task;
  t.curr = rq.running() >= 0 ? rq.tasks[static_cast<std::size_t>(rq.running())].name : "idle";
  for (unsigned c = 1; c < sys.size(); ++c) {  // several CPUs: "A|idle|B", CPU 0 first
    const Rq& other = sys.rq(c);
    t.curr += "|" + (other.running() >= 0 ? other.tasks[static_cast<std::size_t>(other.running())].name
                                          : std::string("idle"));
  }
  t.avg_vruntime = rq.cfs.zero_vruntime + as_u64(avg_vruntime_offset(rq.cfs, null_observer()));
  t.sum_w_vruntime = rq.cfs.sum_w_vruntime;
  t.sum_weight = rq.cfs.sum_weight;
  t.zero_vruntime = rq.cfs.zero_vruntime;
  t.nr_queued = rq.cfs.nr_queued;
  t.need_resched = rq.need_resched;
  for (const Task& task : rq.tasks) {
    t.tasks.push_back(inv::snapshot(sys.rq_of(task.se.task_id), task.se));  // lag against its own CPU's V
    t.task_state.push_back(task_state_name(sys.rq_of(task.se.task_id), task));
    if (sys.size() > 1) t.task_cpu.push_back(task.cpu);
  }
  for (unsigned c = 0; sys.size() > 1 && c < sys.size(); ++c)
    t.cpu_avg_vruntime.push_back(sys.rq(c).cfs.zero_vruntime +
                                 as_u64(avg_vruntime_offset(sys.rq(c).cfs, null_observer())));
  return t;
}

bool compare(i128 a, CmpOp op, i128 b) {
  switch (op) {
    case CmpOp::eq: return a == b;
    case CmpOp::ne: return a != b;
    case CmpOp::lt: return a < b;
    case CmpOp::le: return a <= b;
    case CmpOp::gt: return a > b;
    case CmpOp::ge: return a >= b;
  }
  return false;
}

}  // namespace

std::optional<int> group_id(const Rq& rq, const std::string& name) {
  if (name.empty()) return -1;
  const int g = rq.find_group(name);
  if (g < 0) return std::nullopt;
  return g;
}

namespace {
// the warnings the model's code has raised so far, on every CPU
unsigned long warnings(const System& sys) {
  unsigned long n = 0;
  for (unsigned c = 0; c < sys.size(); ++c) n += sys.rq(c).warnings();
  return n;
}

// A group operation on `target`, the model's System (whose group operations
// act on every CPU and whose task move on the task's CPU) or the kernel
// backend; `rq` holds the group table (shared by every CPU).
template <class Target>
Refusal group_op(Target& target, const Rq& rq, const Op& op, int task) {
  const auto g = group_id(rq, op.group);
  switch (op.kind) {
    case OpKind::group_create: {
      const auto parent = group_id(rq, op.parent);
      if (!parent) return Refusal::no_such_group;
      if (rq.find_group(op.group) >= 0) return Refusal::bad_argument;
      if (rq.task_groups.size() >= kMaxGroups) return Refusal::too_many_groups;
      return target.create_group(op.group, *parent, op.shares()) < 0 ? Refusal::bad_argument
                                                                                     : Refusal::none;
    }
    case OpKind::move: return g ? target.move_task(task, *g) : Refusal::no_such_group;
    case OpKind::shares: return g ? target.set_group_shares(*g, op.shares()) : Refusal::no_such_group;
    case OpKind::group_idle: return g ? target.set_group_idle(*g, op.idle()) : Refusal::no_such_group;
    case OpKind::group_destroy: return g && *g >= 0 ? target.destroy_group(*g) : Refusal::no_such_group;
    case OpKind::quota: {  // cpu.max keeps the group's burst, `max` its period too (cpu_max_write())
      if (!g || *g < 0) return Refusal::no_such_group;
      const CfsBandwidth& b = rq.task_groups[static_cast<std::size_t>(*g)].cfs_bandwidth;
      const u64 period = op.period > 0 ? static_cast<u64>(op.period) : b.period;
      const u64 burst = op.burst >= 0 ? static_cast<u64>(op.burst) : target.cpu_max_burst(*g);
      return target.set_group_bandwidth(*g, op.quota_max() ? kRuntimeInf : op.quota_ns(), period, burst);
    }
    default: return Refusal::bad_argument;
  }
}
}  // namespace

namespace {
// The model as a backend: System's entry points, and the runqueue-level ones
// on the task's runqueue (the kernel backend has the same names).
struct ModelTarget {
  System& sys;
  int create_task(std::string_view name, int nice, Policy policy, u64 slice, int group) {
    return sys.rq(0).create_task(name, nice, policy, slice, group);
  }
  int fork_task(int parent, std::string_view child, bool racing) {
    return sys.rq_of(parent).fork_task(parent, child, racing);
  }
  Refusal wake(int id, bool sync, int cpu, int from) { return sys.wake(id, sync, cpu, from); }
  Refusal sleep(int id) { return sys.rq_of(id).sleep(id); }
  Refusal yield(int id) { return sys.rq_of(id).yield(id); }
  Refusal return_to_user(int id) { return sys.rq_of(id).return_to_user(id); }
  Refusal exit_task(int id) { return sys.rq_of(id).exit_task(id); }
  Refusal set_nice(int id, int nice) { return sys.rq_of(id).set_nice(id, nice); }
  Refusal set_policy(int id, Policy p) { return sys.rq_of(id).set_policy(id, p); }
  Refusal set_slice(int id, u64 ns) { return sys.rq_of(id).set_slice(id, ns); }
  Refusal migrate(int id, int cpu) { return sys.migrate(id, cpu); }
  int create_group(std::string_view name, int parent, u64 shares) { return sys.create_group(name, parent, shares); }
  Refusal set_group_shares(int g, u64 shares) { return sys.set_group_shares(g, shares); }
  Refusal set_group_idle(int g, bool idle) { return sys.set_group_idle(g, idle); }
  Refusal move_task(int id, int g) { return sys.move_task(id, g); }
  Refusal destroy_group(int g) { return sys.destroy_group(g); }
  Refusal set_group_bandwidth(int g, u64 quota, u64 period, u64 burst) {
    return sys.set_group_bandwidth(g, quota, period, burst);
  }
  // the burst a cpu.max write without one passes on (cpu_max_write())
  u64 cpu_max_burst(int g) const { return sys.rq(0).cpu_max_burst(g); }
  Refusal write_base_slice_ns(u64 ns) { return sys.write_base_slice_ns(ns); }
  void run(u64 ns) { sys.run(ns); }
  void tick() { sys.tick(); }
  void tick_nopreempt() { sys.tick_nopreempt(); }
  Refusal run_notick(u64 ns) { return sys.run_notick(ns); }
  void tick_after(u64 ns) { sys.tick_after(ns); }
  void schedule() { sys.schedule(); }
  Refusal debug_read(int cpu, int g, bool racing) { return sys.debug_read(cpu, g, racing); }
  std::size_t pending_debug_reads() const { return sys.pending_debug_reads(); }
  void store_debug_reads(std::size_t n) { sys.store_debug_reads(n); }
  System& state() { return sys; }
};

// After an operation, performed or refused: the stores of the racing debugfs
// readers (debug_read ... racing) that loaded before it land.
template <class Target>
void land_debug_reads(Target& t, std::size_t reads_before) {
  if (reads_before) t.store_debug_reads(reads_before);
}

// The one place that applies an operation to a backend (the model or the
// kernel's own code). A create or fork appends the new task's id to
// `slot_task` when given. Expectations are not operations: none.
template <class Target>
Refusal apply_op(Target& t, const Op& op, int id, std::vector<int>* slot_task) {
  const Rq& rq = t.state().rq(0);
  Refusal refusal = Refusal::none;
  // A racing debugfs reader (debug_read ... racing) loaded before this
  // operation; its stores land after it. Expectations are not operations.
  const bool expectation = is_expectation(op.kind);
  const std::size_t reads_before = expectation ? 0 : t.pending_debug_reads();
  switch (op.kind) {
    case OpKind::create: {
      const auto g = group_id(rq, op.group);
      const int task = g ? t.create_task(op.task, op.nice_level(), op.policy, static_cast<u64>(op.slice), *g)
                         : -1;
      if (task < 0) refusal = g ? Refusal::too_many_tasks : Refusal::no_such_group;
      if (slot_task) slot_task->push_back(task);
      break;
    }
    case OpKind::fork: {
      const int curr = id < 0 ? -1 : t.state().rq_of(id).curr;
      const Task* parent = id < 0 ? nullptr : t.state().rq_of(id).task(id);
      const bool rt_parent = parent && parent->policy == Policy::fifo;  // the child would be an RT task
      const int task = id < 0 || rt_parent ? -1 : t.fork_task(id, op.child, op.racing);
      if (task < 0)
        refusal = id < 0       ? Refusal::no_such_task
                  : rt_parent  ? Refusal::rt_task
                  : id != curr ? Refusal::task_not_running_on_cpu
                               : Refusal::too_many_tasks;
      if (slot_task) slot_task->push_back(task);
      break;
    }
    case OpKind::wake:
      // the model chooses a CPU for a wake-up without cpu= (model/wake_cpu.hpp); in
      // lockstep the tree's select_task_rq_fair() chooses too (op_for_kernel())
      refusal = t.wake(id, op.sync, op.cpu, op.from);
      break;
    case OpKind::sleep: refusal = t.sleep(id); break;
    case OpKind::run: t.run(op.duration_ns()); break;
    case OpKind::tick:
      if (op.nopreempt)
        t.tick_nopreempt();
      else
        t.tick();
      break;
    case OpKind::run_notick: refusal = t.run_notick(op.duration_ns()); break;
    case OpKind::tick_after: t.tick_after(op.duration_ns()); break;
    case OpKind::schedule: t.schedule(); break;
    case OpKind::yield: refusal = t.yield(id); break;
    case OpKind::return_to_user: refusal = t.return_to_user(id); break;
    case OpKind::nice: refusal = t.set_nice(id, op.nice_level()); break;
    case OpKind::policy: refusal = t.set_policy(id, op.policy); break;
    case OpKind::slice: refusal = t.set_slice(id, op.slice_ns()); break;
    case OpKind::exit: refusal = t.exit_task(id); break;
    case OpKind::migrate: refusal = t.migrate(id, op.cpu); break;
    case OpKind::group_create:
    case OpKind::move:
    case OpKind::shares:
    case OpKind::group_idle:
    case OpKind::group_destroy:
    case OpKind::quota: refusal = group_op(t, rq, op, id); break;
    case OpKind::base_slice: refusal = t.write_base_slice_ns(op.base_slice_ns()); break;
    case OpKind::debug_read: {
      const auto g = group_id(rq, op.group);
      refusal = g ? t.debug_read(op.cpu, *g, op.racing) : Refusal::no_such_group;
      break;
    }
    case OpKind::expect_curr:
    case OpKind::expect_field:
    case OpKind::expect_queue: break;
  }
  land_debug_reads(t, reads_before);
  return refusal;
}
}  // namespace

// The CPUs an operation acts on (bit c: CPU c), from the operation and the
// task's CPU before it: its task's CPU, a wake-up's or migration's target too;
// time, a reschedule and the group operations of every CPU (create, shares,
// idle) act on all, as does an operation after which a racing debugfs reader
// stores; an expectation on none.
namespace {
std::uint32_t cpus_touched(const System& sys, const Op& op, int id) {
  const std::uint32_t all = sys.size() >= 32 ? ~std::uint32_t{0} : (std::uint32_t{1} << sys.size()) - 1;
  if (sys.pending_debug_reads()) return all;
  const Task* t = id >= 0 ? sys.rq(0).task(id) : nullptr;
  const std::uint32_t own = t && t->cpu >= 0 && t->cpu < 32 ? std::uint32_t{1} << t->cpu : 1u;
  const std::uint32_t target = op.cpu >= 0 && op.cpu < 32 ? std::uint32_t{1} << op.cpu : 0u;
  switch (op.kind) {
    case OpKind::create: return 1u;  // created on CPU 0
    case OpKind::fork:               // the child starts on its parent's CPU
    case OpKind::sleep:
    case OpKind::yield:
    case OpKind::nice:
    case OpKind::policy:
    case OpKind::slice:
    case OpKind::exit:
    case OpKind::return_to_user:
    case OpKind::move: return own;
    case OpKind::wake:  // without cpu= on several CPUs the model chooses: any CPU
      return op.cpu < 0 && sys.size() > 1 ? all : own | target;
    case OpKind::migrate: return own | target;
    case OpKind::expect_curr:
    case OpKind::expect_field:
    case OpKind::expect_queue: return 0;
    case OpKind::run:
    case OpKind::tick:
    case OpKind::run_notick:
    case OpKind::tick_after:
    case OpKind::schedule:
    case OpKind::group_create:
    case OpKind::shares:
    case OpKind::group_idle:
    case OpKind::group_destroy:  // unregister_fair_sched_group(): every CPU
    case OpKind::quota:          // every CPU's queue of the group
    case OpKind::base_slice:     // one sysctl for every CPU
    case OpKind::debug_read: return all;
  }
  return all;
}
}  // namespace

std::optional<Op> op_for_kernel(const System& model, const Op& op, int id, Refusal model_refusal) {
  if (op.kind != OpKind::wake || op.cpu >= 0 || model.size() <= 1 || id < 0) return op;
  // a choice the model could not make (SIS_UTIL's budget, RT placement): not asked of the kernel either
  if (model_refusal == Refusal::sis_util_scan || model_refusal == Refusal::rt_wake_cpu)
    return std::nullopt;
  if (model_refusal != Refusal::none) return op;
  // the tree's own select_task_rq_fair() chooses, from the same waking CPU; its answer
  // is compared with the model's (first_difference()) and performed
  Op chosen = op;
  chosen.cpu = kernelsrc::kTreeChoosesCpu;
  return chosen;
}

Refusal apply_operation(System& sys, const Op& op, int id) {
  ModelTarget t{sys};
  return apply_op(t, op, id, nullptr);
}
Refusal apply_operation(kernelsrc::KernelBackend& kernel, const Op& op, int id) {
  return apply_op(kernel, op, id, nullptr);
}


Executor::Executor(const Profile& profile, ExecOptions options) : profile_(profile), options_(options) {}

ExecResult Executor::run(const Scenario& s) {
  ExecResult r;
  if (std::string why = runqueues_refusal(profile_.name, s.runqueues); !why.empty()) {
    r.error = why;
    return r;
  }
  std::unique_ptr<kernelsrc::KernelBackend> kernel;
  const bool lockstep = options_.backend == Backend::lockstep;
  if (options_.backend != Backend::model) {
    if (!kernelsrc::available()) {
      r.error = "this build has no kernel backend (no kernel tree at build time: cmake -DEEVDF_KERNEL_SRC=DIR)";
      return r;
    }
    if (std::string why = kernelsrc::refusal(profile_, s.runqueues); !why.empty()) {
      r.error = why;
      return r;
    }
    kernel = std::make_unique<kernelsrc::KernelBackend>(profile_, s.runqueues, s.smt);
  }
  System model_sys(profile_, s.runqueues);
  if (!model_sys.set_smt(s.smt)) {
    r.error = smt_refusal(s.runqueues, s.smt);
    return r;
  }
  ModelTarget model_target{model_sys};
  // The state the invariants and expectations read: the model's, or the kernel's own.
  System& sys = kernel && !lockstep ? kernel->state() : model_sys;
  Rq& rq = sys.rq(0);  // the lone runqueue, and the one new tasks start on
  // One checker per runqueue (each its runqueue's observer). With several,
  // the largest slice seen is shared: a migrated task carries a lag clamped
  // on its source CPU.
  std::vector<std::unique_ptr<inv::Checker>> checkers;
  inv::Selection selection = options_.selection;
  if (kernel && !lockstep) {
    // On the kernel's own state the checker hears the model's events from the
    // tree's own functions (kernelsrc/glue.c wraps them: placements, picks,
    // set_next_entity(), delays, reweights, lags, reads of V, why a wake-up
    // preempted) and its warnings (kernelsrc/shim.h). I-OVF hears the model's
    // 128-bit shadow at two of them only, reweight_entity() and place_entity()
    // (the model's arithmetic on the tree's operands; the other sites are not
    // shadowed). docs/kernel-backend.md, "Which invariants run where".
    kernel->set_overflow_shadow(selection[inv::Id::OVF]);
    // a tree built !CONFIG_SMP (6.12.118) keeps no PELT: I-PELT has nothing to judge
    if (!kernelsrc::smp()) selection.set(inv::Id::PELT, false);
  }
  for (unsigned c = 0; options_.check && c < sys.size(); ++c) {
    checkers.push_back(std::make_unique<inv::Checker>(selection, options_.tolerances));
    checkers.back()->attach(sys.rq(c));
  }
  // Only the model's operations say which CPUs they act on (the kernel's own
  // code is not read): every CPU after every operation on the kernel backend.
  const unsigned sweep_period = kernel ? 1 : std::max(options_.sweep_period, 1u);
  // --check incremental: between the sweeps, every sweep_period operations, each
  // CPU checked is judged by Checker::end_op_incremental() (on the kernel
  // backend every CPU, its mirror of the kernel's state)
  const unsigned check_period = std::max(options_.sweep_period, 1u);
  const bool incremental = options_.check_mode == CheckMode::incremental && check_period > 1;
  // The violations of an operation, each labelled known or new (scenario/known.hpp):
  // a known finding is counted and the run goes on; a new one stops it (unless keep_going).
  // Its lasting state is the same finding: the same invariant, site and detail
  // class later in the run is labelled with its name.
  struct SeenKnown {
    inv::Id id;
    std::string where, detail, name;
  };
  std::vector<SeenKnown> seen_known;
  std::vector<inv::Violation> taken;
  std::vector<bool> repeats;  // of taken: a repeat of a known identity seen earlier in the run
  bool new_violation = false;
  std::vector<std::string> known_before;  // the names of seen_known, for a finding known "after NAME"
  std::vector<std::string> names;         // entity_names(s), once the run has a violation
  // Labels v; true when it repeats a known identity seen earlier in the run.
  const auto label = [&](inv::Violation& v) {
    if (!options_.known) return false;
    if (names.empty()) names = entity_names(s);
    const FindingIdentity f = finding_identity(v, s, names);
    for (const SeenKnown& seen : seen_known)
      if (seen.id == f.id && seen.where == f.where && seen.detail == f.detail) {
        v.known = seen.name;
        return true;
      }
    const KnownFinding* k = options_.known->find(f, s, v.op_index, known_before);
    if (!k) return false;
    v.known = k->name;
    seen_known.push_back({f.id, f.where, f.detail, v.known});
    known_before.push_back(v.known);
    return false;
  };
  // every violation of the operation (the checkers' and the kernel's warnings, `taken`):
  // the first of each known identity is kept, the later ones counted
  const auto collect = [&] {
    for (const auto& c : checkers)
      if (c->violated()) c->take_violations(taken);
    // A known finding's consequence can show at the finding's own operation,
    // raised by a check that runs before the finding's ("* after NAME"): label
    // again until no violation of the operation becomes known.
    repeats.assign(taken.size(), false);
    for (bool labelled = true; labelled;) {
      labelled = false;
      for (std::size_t k = 0; k < taken.size(); ++k) {
        if (!taken[k].known.empty()) continue;
        repeats[k] = label(taken[k]);
        labelled = labelled || !taken[k].known.empty();
      }
    }
    for (std::size_t k = 0; k < taken.size(); ++k) {
      inv::Violation& v = taken[k];
      if (repeats[k]) {
        ++r.known_repeats;
        continue;
      }
      if (v.known.empty()) new_violation = true;
      if (r.violations.size() < inv::Checker::kMaxViolations) r.violations.push_back(std::move(v));
    }
    taken.clear();
  };

  // Task names resolve to slots in the order tasks are created; a slot maps
  // to the runqueue's task id once the create or fork has run.
  std::vector<std::string>& slot_names = slot_names_;  // members: their storage outlives the run
  std::vector<int>& slot_task = slot_task_;
  slot_names.clear();
  slot_task.clear();
  // Names are short ("T3"): compared by hand, not through memcmp, which the
  // libFuzzer runtime intercepts and records on every call.
  auto same_name = [](const std::string& a, const std::string& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t k = 0; k < a.size(); ++k)
      if (a[k] != b[k]) return false;
    return true;
  };
  auto slot_of = [&](const std::string& name) -> int {
    for (std::size_t i = 0; i < slot_names.size(); ++i)
      if (same_name(slot_names[i], name)) return static_cast<int>(i);
    return -1;
  };
  auto task_of = [&](const std::string& name) -> int {
    const int slot = slot_of(name);
    return slot < 0 ? -1 : slot_task[static_cast<std::size_t>(slot)];
  };
  if (options_.trace) r.trace.push_back(trace_step(sys, -1));
  bool unswept = false;  // several CPUs: some were not checked after the last operation that ran

  for (std::size_t i = 0; i < s.ops.size(); ++i) {
    const Op& op = s.ops[i];
    const int index = static_cast<int>(i);
    for (auto& c : checkers) c->begin_op(index, op_class(op.kind));
    Refusal refusal = Refusal::none;
    const int id = op.task.empty() ? -1 : task_of(op.task);
    const std::uint32_t touched = sys.size() > 1 && sweep_period > 1 ? cpus_touched(sys, op, id) : ~std::uint32_t{0};
    // the wake-up CPU choices the model made, and the wide ones (what inputs reach)
    const auto count_model_choice = [&](Refusal model_refusal) {
      if (op.kind != OpKind::wake || model_refusal != Refusal::none || !model_sys.last_wake_choice().made) return;
      ++r.wake_choices_answered;
      if (model_sys.last_wake_choice().wide) ++r.wake_choices_wide;
      if (model_sys.last_wake_choice().weighed) ++r.wake_choices_weighed;
    };
    const unsigned long model_warnings_before = lockstep ? warnings(model_sys) : 0;
    if (lockstep) {
      // a wake-up whose CPU the model chooses (on the state before it)
      const bool chooses = op.kind == OpKind::wake && id >= 0 && model_sys.chooses_wake_cpu(id, op.cpu);
      const Refusal model_refusal = apply_op(model_target, op, id, nullptr);
      count_model_choice(model_refusal);
      const std::optional<Op> kernel_op = op_for_kernel(sys, op, id, model_refusal);
      refusal = kernel_op ? apply_op(*kernel, *kernel_op, id, nullptr) : model_refusal;
      // a wake-up the kernel is not asked about is still an operation there
      if (!kernel_op) land_debug_reads(*kernel, kernel->pending_debug_reads());
      if (chooses && !kernel_op) ++r.wake_choices_refused;
      if (chooses && kernel_op && model_refusal == Refusal::none) ++r.wake_choices_compared;
      if (model_refusal != refusal && !r.divergence) {
        r.divergence = Divergence{index, "refusal", refusal_text(model_refusal), refusal_text(refusal)};
      }
      if (op.kind == OpKind::create || op.kind == OpKind::fork) {
        // a refused fork creates nobody: its child's name must not resolve to the last task created
        slot_names.push_back(op.kind == OpKind::fork ? op.child : op.task);
        slot_task.push_back(model_refusal == Refusal::none ? static_cast<int>(sys.rq(0).tasks.size()) - 1 : -1);
      }
    } else if (kernel) {
      refusal = apply_op(*kernel, op, id, &slot_task);
      if (op.kind == OpKind::create || op.kind == OpKind::fork)
        slot_names.push_back(op.kind == OpKind::fork ? op.child : op.task);
    } else {
      refusal = apply_op(model_target, op, id, &slot_task);
      count_model_choice(refusal);
      if (op.kind == OpKind::create || op.kind == OpKind::fork)
        slot_names.push_back(op.kind == OpKind::fork ? op.child : op.task);
    }
    switch (op.kind) {
      case OpKind::expect_curr: {
        const unsigned cpu = op.cpu > 0 && static_cast<unsigned>(op.cpu) < sys.size() ? static_cast<unsigned>(op.cpu) : 0;
        const Rq& crq = sys.rq(cpu);
        const std::string actual =
            crq.running() >= 0 ? crq.tasks[static_cast<std::size_t>(crq.running())].name : "idle";
        if (actual != op.task)
          r.expectation_failures.push_back(
              op.cpu < 0 ? fmt::format("line {}: expected {} on the CPU, found {}", op.line, op.task, actual)
                         : fmt::format("line {}: expected {} on CPU {}, found {}", op.line, op.task, cpu, actual));
        break;
      }
      case OpKind::expect_field: {
        const Task* t = sys.rq_of(id).task(id);
        const int g = t ? -1 : rq.find_group(op.task);
        // a group's entity on CPU `cpu=` (CPU 0 without)
        const unsigned gcpu = op.cpu > 0 && static_cast<unsigned>(op.cpu) < sys.size() ? static_cast<unsigned>(op.cpu) : 0;
        const SchedEntity* se = t ? &t->se : g >= 0 ? &sys.rq(gcpu).groups[static_cast<std::size_t>(g)].se : nullptr;
        const auto value = se ? entity_field(*se, op.field) : std::nullopt;
        if (!value)
          r.expectation_failures.push_back(fmt::format("line {}: no field {}.{}", op.line, op.task, op.field));
        else if (!compare(*value, op.cmp, op.expected_value()))
          r.expectation_failures.push_back(fmt::format("line {}: expected {}.{} {} {}, found {}", op.line, op.task,
                                                       op.field, scn::cmp_keyword(op.cmp), op.expected_value(),
                                                       inv::format_i128(*value)));
        break;
      }
      case OpKind::expect_queue: {
        // CPU `cpu=`'s (0 without) root queue, or the group's queue on it
        const unsigned qcpu = op.cpu > 0 && static_cast<unsigned>(op.cpu) < sys.size() ? static_cast<unsigned>(op.cpu) : 0;
        const Rq& crq = sys.rq(qcpu);
        const int g = op.group.empty() ? -1 : rq.find_group(op.group);
        const CfsRq* q = op.group.empty() ? &crq.cfs
                         : g >= 0         ? &crq.groups[static_cast<std::size_t>(g)].cfs_rq
                                          : nullptr;
        const std::string name = fmt::format("{}.{}{}", op.group.empty() ? "root" : op.group, op.field,
                                             op.cpu >= 0 ? fmt::format(" on CPU {}", qcpu) : "");
        if (!q) {
          r.expectation_failures.push_back(fmt::format("line {}: no queue {}", op.line, name));
          break;
        }
        if (op.field == "next") {  // the next buddy, by name
          const SchedEntity* n = q->next;
          const std::string actual = !n                ? "none"
                                     : n->task_id >= 0 ? crq.tasks[static_cast<std::size_t>(n->task_id)].name
                                                       : crq.task_groups[static_cast<std::size_t>(n->group_id)].name;
          const std::string want = op.task.empty() ? "none" : op.task;
          if ((actual == want) != (op.cmp == CmpOp::eq))
            r.expectation_failures.push_back(fmt::format("line {}: expected {} {} {}, found {}", op.line, name,
                                                         scn::cmp_keyword(op.cmp), want, actual));
          break;
        }
        const QueueValue v = queue_field(*q, crq.need_resched, profile_, op.field);
        if (!v.value)
          r.expectation_failures.push_back(fmt::format("line {}: cannot read {}: {}", op.line, name, v.why));
        else if (!compare(*v.value, op.cmp, op.expected_value()))
          r.expectation_failures.push_back(fmt::format("line {}: expected {} {} {}, found {}", op.line, name,
                                                       scn::cmp_keyword(op.cmp), op.expected_value(),
                                                       inv::format_i128(*v.value)));
        break;
      }
      default: break;
    }
    std::string kernel_warning;  // lockstep: the first warning of the kernel's code at this operation
    if (kernel) {
      for (const auto& w : kernel->take_warnings()) {
        inv::Violation v;
        v.id = inv::Id::WARN;
        v.op_index = index;
        v.where = fmt::format("{}:{}", w.file, w.line);
        v.what = fmt::format("the kernel's warning fired: {}", w.condition);
        if (kernel_warning.empty()) kernel_warning = fmt::format("{} ({})", v.where, w.condition);
        if (!lockstep) taken.push_back(std::move(v));
      }
    }
    if (lockstep && !r.divergence) {
      // a NULL pick crashes both or is a divergence; after it there is no state to compare
      const bool model_oops = model_target.sys.oops(), kernel_oops = kernel->state().oops();
      // A warning of the kernel's code says its state is outside its design: the
      // model must have warned at the same operation, and then the run's
      // comparison ends (what each does to a broken structure is not modelled).
      const bool model_warned = !kernel_warning.empty() && warnings(model_sys) != model_warnings_before;
      if (model_oops != kernel_oops) {
        r.divergence = Divergence{index, "runqueue: oops (pick_eevdf() returned NULL)", model_oops ? "yes" : "no",
                                  kernel_oops ? "yes" : "no"};
      } else if (!kernel_warning.empty() && !model_warned) {
        r.divergence = Divergence{index, "a WARN_ON_ONCE/BUG_ON condition", "none", kernel_warning};
      } else if (!kernel_warning.empty()) {
        r.lockstep_ended_at_warning = true;
      } else if (!model_oops) {
        if (auto d = first_difference(model_target.sys, *kernel)) {
          d->op_index = index;
          r.divergence = std::move(d);
        }
      }
    }
    if (options_.observer) options_.observer->after_operation(sys.rq_of(id), op.kind, refusal);
    if (refusal != Refusal::none) {
      if (options_.strict) {
        const std::string& name = op.task.empty() ? op.group : op.task;
        // a tree built without bandwidth control: its own reason (which trees have it)
        const bool tree_lacks_bandwidth = refusal == Refusal::no_bandwidth_model &&
                                          options_.backend != Backend::model && !kernelsrc::bandwidth();
        r.error = fmt::format("line {}: cannot {}{}{}: {}", op.line, op_spec(op.kind).verb, name.empty() ? "" : " ", name,
                              tree_lacks_bandwidth ? kernelsrc::bandwidth_refusal() : refusal_text(refusal));
        r.error_op = index;
        return r;
      }
      ++r.skipped;
      r.skipped_ops.push_back(index);
    } else {
      ++r.executed;
    }
    // A refused operation leaves the model untouched (model/rq.hpp), so the state
    // the previous check passed is unchanged: checking it again would find nothing new.
    if (refusal == Refusal::none && !checkers.empty()) {
      // a full sweep every sweep_period operations and at the last one
      const bool sweep = (i + 1) % (incremental ? check_period : sweep_period) == 0 || i + 1 == s.ops.size() ||
                         sys.oops() || r.divergence;
      if (sys.size() > 1) {
        // a migrated task's lag was clamped on its source CPU (share_max_slice())
        unswept = !inv::end_ops_touched(sys, checkers, touched, sweep, incremental);
      } else if (incremental && !sweep) {
        for (auto& c : checkers) c->end_op_incremental();
        unswept = true;
      } else {
        for (auto& c : checkers) c->end_op();
        unswept = false;
      }
    }
    collect();
    if (options_.trace) r.trace.push_back(trace_step(sys, index));
    if (sys.oops()) r.oops = true;
    // lockstep goes on past a violation: the comparison is the point, and expected findings are frequent
    if ((new_violation && !options_.keep_going && !lockstep) || sys.oops() || r.divergence ||
        r.lockstep_ended_at_warning)
      break;
  }
  // the sweep at the end of the input, if the last operation was refused (the
  // state is that of the last one that ran)
  if (unswept && !new_violation) {
    for (const auto& c : checkers) c->check_queues_now();
    collect();
  }

  for (unsigned c = 0; c < sys.size(); ++c) {  // what the inputs reached of CPU bandwidth control
    r.bandwidth_throttles += static_cast<int>(sys.rq(c).throttles);
    r.bandwidth_unthrottles += static_cast<int>(sys.rq(c).unthrottles);
  }
  const std::size_t failures_before = r.expectation_failures.size();
  bool expects_violation = false;
  for (const Expectation& e : s.expectations) {
    if (e.kind == Expectation::Kind::violation) expects_violation = true;
    if (e.kind == Expectation::Kind::no_violation) {
      if (!r.violations.empty())
        r.expectation_failures.push_back(fmt::format("line {}: expected no violation, found {}", e.line,
                                                     inv::id_name(r.violations.front().id)));
      continue;
    }
    bool found = false;
    for (const auto& v : r.violations) {
      if (inv::id_name(v.id) != e.invariant) continue;
      const int op_line = v.op_index >= 0 ? s.ops[static_cast<std::size_t>(v.op_index)].line : 0;
      if (e.at_line == 0 || op_line == e.at_line) found = true;
    }
    if (!found)
      r.expectation_failures.push_back(
          e.at_line ? fmt::format("line {}: expected violation {} at line {}", e.line, e.invariant, e.at_line)
                    : fmt::format("line {}: expected violation {}", e.line, e.invariant));
  }
  r.violations_expected = expects_violation && r.expectation_failures.size() == failures_before;
  return r;
}

ExecResult execute(const Scenario& s, const Profile& profile, const ExecOptions& options) {
  return Executor(profile, options).run(s);
}

}  // namespace eevdf::scn
