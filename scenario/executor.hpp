// The executor: runs a scenario on a profile, checks the invariants after
// every operation, and reports violations, failed expectations and (on
// request) a per-operation trace. Deterministic; no allocation per operation
// when tracing is off.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "scenario/known.hpp"
#include "scenario/scenario.hpp"
#include "invariants/checker.hpp"
#include "model/profile.hpp"
#include "model/profile_spec.hpp"
#include "model/system.hpp"
#include "kernelsrc/kernel_backend.hpp"

namespace eevdf::scn {

// The profile a scenario asks for (profile, features, cpus, hz, base_slice),
// with an optional override from the command line. Error text on failure.
struct ProfileOverride {
  std::string profile;   // empty: the scenario's
  std::string features;  // applied after the scenario's
  std::string bug;       // empty: the scenario's
  unsigned hz = 0;       // CONFIG_HZ; 0: the scenario's
  unsigned cpus = 0;     // online CPUs; 0: the scenario's
  unsigned runqueues = 0;  // CPUs modelled (--runqueues); 0: the scenario's. Not part of the Profile:
                           // callers apply it to the scenario; build_profile() checks the profile allows it
  unsigned smt = 0;        // SMT siblings a core (--smt); 0: the scenario's. Callers apply it to the scenario
};
std::optional<Profile> build_profile(const Scenario& s, const ProfileOverride& o, std::string& error);
// The profile of the command line alone (`fuzz`, `check`): a default header with the override.
std::optional<Profile> build_profile(const ProfileOverride& o, std::string& error);

// A scenario header's profile lines (profile, bug, features, cpus, hz, base_slice) as a
// value, and the header lines that say a spec.
ProfileSpec profile_spec(const Scenario& s);
void set_profile_spec(Scenario& s, const ProfileSpec& spec);

// Backend, backend_name() and backend_from_name(): scenario/scenario.hpp (the
// scenario's `backend` directive names one).

// Lockstep: the first field in which the kernel's state differs from the model's.
struct Divergence {
  int op_index = -1;
  std::string field;   // "task A: vruntime", "queue root: sum_w_vruntime", "refusal", ...
  std::string model;   // the model's value
  std::string kernel;  // the kernel's value
};
// The first difference between the model's state and the kernel's (every CPU), or nullopt.
std::optional<Divergence> first_difference(const System& model, const System& kernel);
// The same against the kernel backend: first the CPU the tree's
// select_task_rq_fair() chose for the last operation, if it chose one
// (KernelBackend::take_wake_choice(), which this consumes), against the CPU
// the model woke the task on ("wake A: cpu"); then the state; then the
// answers of sched_idle_rq(), the choice's SCHED_IDLE-only test, against the
// tree's own.
std::optional<Divergence> first_difference(const System& model, kernelsrc::KernelBackend& kernel);

// Told of every operation the executor applied: its kind, its result and the
// runqueue it ran on. The fuzz engines' state coverage (fuzz/coverage.hpp) is one.
class OperationObserver {
 public:
  virtual void after_operation(const Rq& rq, OpKind kind, Refusal result) = 0;

 protected:
  ~OperationObserver() = default;
};

enum class CheckMode : std::uint8_t { full, incremental };

struct ExecOptions {
  // Text scenarios are strict: an operation the kernel cannot perform in the
  // current state (sleep of a task that is not running, ...) is an error.
  // Generated scenarios skip such operations.
  bool strict = true;
  bool keep_going = false;  // continue after the first operation with a violation that is not known
  // Known findings (scenario/known.hpp; the caller's: by default the judging
  // profile's): a violation of one of these identities is labelled
  // (Violation::known) and the run goes on, and so is a later violation of the
  // same invariant, site and detail class in the same run (the known finding's
  // state lasts). nullptr: every violation is a finding.
  const KnownSet* known = nullptr;
  bool trace = false;       // record a StepTrace after every operation
  inv::Selection selection;
  inv::Tolerances tolerances;  // documented findings tolerated by default (docs/findings.md)
  OperationObserver* observer = nullptr;  // if set, told of every operation (state coverage: fuzz/coverage.hpp)
  Backend backend = Backend::model;
  // Several runqueues on the model: after each operation the queues of the CPUs
  // it acts on are checked, and every CPU's every sweep_period operations, at the
  // end of the input and before a violation is reported (inv::end_ops_touched()).
  // 1: every CPU after every operation.
  unsigned sweep_period = 16;
  // How each operation's end is judged.
  // full: every invariant from scratch after every operation. incremental:
  // what the operation touched and what it moves for everyone
  // (inv::Checker::end_op_incremental()), every invariant from scratch every
  // sweep_period operations, at the end of the input and before a violation is
  // reported; a campaign re-runs an input that reported one in full mode
  // before reporting or minimizing anything (fuzz/campaign.cpp).
  CheckMode check_mode = CheckMode::full;
  // false: no checker at all (the throughput baseline of an unchecked run).
  bool check = true;
};

struct EntityTrace {
  inv::EntitySnapshot e;
};

struct StepTrace {
  int op_index = -1;  // -1: the initial state
  u64 clock = 0;
  std::string curr;  // task on the CPU or "idle"
  u64 avg_vruntime = 0;  // V as avg_vruntime() would return it (not applied)
  s64 sum_w_vruntime = 0;
  u64 sum_weight = 0;
  u64 zero_vruntime = 0;
  unsigned nr_queued = 0;
  bool need_resched = false;
  std::vector<inv::EntitySnapshot> tasks;  // every task, queued or not
  std::vector<std::string> task_state;     // "running", "queued", "delayed", "sleeping", "new", "dead"
  // Several runqueues (empty with one): each task's CPU, and V of every CPU.
  std::vector<int> task_cpu;
  std::vector<u64> cpu_avg_vruntime;
};

struct ExecResult {
  std::string error;  // a refused operation in strict mode, or a bad profile
  int error_op = -1;
  // The violations: every one that is not known, and the first of each known
  // identity (invariant, site, detail class); later ones are only counted in
  // known_repeats.
  std::vector<inv::Violation> violations;
  int known_repeats = 0;
  std::vector<std::string> expectation_failures;
  int executed = 0;  // operations that ran
  int skipped = 0;   // operations refused and skipped (non-strict)
  std::vector<std::size_t> skipped_ops;  // their indices
  bool oops = false; // the modelled kernel crashed (NULL pick)
  std::vector<StepTrace> trace;
  std::optional<Divergence> divergence;  // lockstep: the first difference (the run stops there)
  // lockstep: the kernel's code and the model warned at the same operation, and the
  // run stopped there (its state is outside the kernel's design)
  bool lockstep_ended_at_warning = false;
  // lockstep: wake-ups whose CPU both the model and the tree's select_task_rq_fair()
  // chose (compared), and those the model refused to choose (asked of neither)
  int wake_choices_compared = 0;
  int wake_choices_refused = 0;
  // the model (model backend and lockstep): wake-ups whose CPU it chose, and those of
  // them that wake_wide() found wide (want_affine false); a measure of what inputs reach
  int wake_choices_answered = 0;
  int wake_choices_wide = 0;
  int wake_choices_weighed = 0;  // of those, decided by wake_affine_weight()
  // CPU bandwidth control: the queues throttled and unthrottled (Rq::throttles, Rq::unthrottles;
  // the kernel's on --backend kernel, the model's otherwise)
  int bandwidth_throttles = 0, bandwidth_unthrottles = 0;
  bool violations_expected = false;  // the scenario expects violations and every one it expects occurred
  // A violation that is not a known finding.
  bool has_new() const {
    for (const auto& v : violations)
      if (v.known.empty()) return true;
    return false;
  }
  // Everything as the scenario expects: no error, no failed expectation, and no
  // violation that is not known unless the scenario expects violations.
  bool ok() const { return error.empty() && expectation_failures.empty() && !divergence && (!has_new() || violations_expected); }
};

// How the checker sees an operation: only placement-class operations may move
// a vruntime other than by running (I-MONO). The operation table's column.
inv::OpClass op_class(OpKind kind);

// The group id of a group name (empty = the root group, -1), or nullopt.
std::optional<int> group_id(const Rq& rq, const std::string& name);

// The one place that applies an operation to a backend (scenario/executor.cpp):
// the model's System, or the kernel backend. The executor, the RapidCheck
// commands (fuzz/rc_commands.cpp) and the bridges' simulator (bridge/sim.cpp)
// all call it. `id` is the resolved task id of
// op.task (-1 if none). Expectations are not operations: Refusal::none.
Refusal apply_operation(System& sys, const Op& op, int id);
// Lockstep: the operation as the kernel backend performs it after the model:
// a wake-up without cpu= on several CPUs that the model performed has its CPU
// chosen by the tree's own select_task_rq_fair() (kernelsrc::kTreeChoosesCpu;
// first_difference() compares the two answers), and is not performed at all
// (nullopt: the model's refusal stands for both) when the model refused to
// choose (WA_WEIGHT, the SIS_UTIL budget, an RT task: model/wake_cpu.hpp).
std::optional<Op> op_for_kernel(const System& model, const Op& op, int id, Refusal model_refusal);
Refusal apply_operation(kernelsrc::KernelBackend& kernel, const Op& op, int id);

// Runs s on profile. The expectations of s are evaluated.
ExecResult execute(const Scenario& s, const Profile& profile, const ExecOptions& options);

// Executes on an existing runqueue (for benchmarks and engines that keep one).
class Executor {
 public:
  Executor(const Profile& profile, ExecOptions options);
  ExecResult run(const Scenario& s);

 private:
  Profile profile_;
  ExecOptions options_;
  std::vector<std::string> slot_names_;  // per run: task names in creation order
  std::vector<int> slot_task_;           // per run: their runqueue ids
};

}  // namespace eevdf::scn
