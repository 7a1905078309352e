// RapidCheck stateful (model-based) testing: random command sequences drive a
// real eevdf::Rq with an inv::Checker attached, RapidCheck shrinks a failing
// sequence, and the counterexample comes out as a scenario (a value) that
// `eevdf-check run` replays once printed.
//
// Design (why the commands look the way they do)
// ----------------------------------------------
// rc::state generates and repairs a sequence using only the abstract model:
// preconditions never see the system. Which task is on the CPU is the
// kernel's decision (the pick depends on the exact vruntime arithmetic), so an
// abstract model cannot know it without being the model itself. Hence:
//
//  * sleep, yield, exit and fork carry no task: they act on the task that is on
//    the CPU when they run ("sleep <curr>", "fork <curr> -> T5"), and are
//    skipped when the CPU is idle. Their preconditions only ask that some task
//    was ever woken (otherwise the CPU is idle for sure).
//  * wake, nice, policy and slice name a task the model knows. The model knows
//    exactly which tasks are new (never woken), knows a task is awake from its
//    wake until the next sleep/exit command, and otherwise does not know
//    (RcModel::Known). Wake is generated only for a task that is not known to
//    be awake; a command the kernel would refuse in the real state (waking an
//    awake or dead task, renicing a dead one, a task whose fork was skipped
//    because the CPU was idle) is skipped.
//  * Every command is resolved against the real state in run(): a skipped
//    command touches neither the runqueue nor the checker, a performed one is
//    run exactly as scn::Executor runs it (checker.begin_op(i, OpClass), the
//    entry point, checker.end_op()), with i the index among performed
//    operations, and appended to RcSystem::executed with its task resolved.
//
// The shown sequence is therefore the executed one: RcSystem::scenario() (the
// profile header plus the performed operations, skips left out) replays under
// `eevdf-check run` (strict mode) operation for operation, with the same
// checker state and the same violations, because the model is deterministic.
// Command::show() prints the abstract command as print_op would ("sleep
// <curr>"); showValue() of a whole command sequence (what RapidCheck prints as
// the counterexample) replays the sequence on a fresh system and prints the
// resolved scenario, so that every sequence RapidCheck shows is replayable too.
//
// Shrinking budget
// ----------------
// RapidCheck shrinks without a time limit. run_stateful_check() records a
// deadline (first failure + shrink_budget); after it, no property evaluation
// runs the system any more: an evaluation of the smallest failing sequence
// found so far (recognised by its shown commands, which carry every
// parameter) fails again with the recorded failure (the model is
// deterministic), every other one succeeds at once. RapidCheck thus rejects
// every further shrink candidate quickly, ends its shrink loop, re-evaluates
// the best sequence (which still fails) and reports it. The overrun is one
// evaluation in flight at the deadline plus the cheap rejections.
// A reproduce run (CheckConfig::reproduce) has no budget: it walks the
// recorded shrink path.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <rapidcheck.h>
#include <rapidcheck/state.h>

#include "scenario/scenario.hpp"
#include "invariants/checker.hpp"
#include "model/profile.hpp"
#include "model/rq.hpp"
#include "model/system.hpp"
#include "kernelsrc/kernel_backend.hpp"

namespace eevdf::fuzz {

// ---------------------------------------------------------------------------
// The entry point (`eevdf-check check --profile P --cases N`)

struct CheckConfig {
  Profile profile;    // e.g. *profile_by_name("mainline"); must be expressible as a scenario header
  int cases = 100;    // successful cases before the property passes
  // At most this many commands per case: RapidCheck's maxSize = max_ops - 1;
  // case sizes cycle through 0..maxSize and a case has 1..size+1 commands
  // (uniform), so the mean length is about max_ops / 4.
  int max_ops = 100;
  bool groups = false;  // generate task-group commands too (eevdf-check check --groups)
  bool rt = false;      // create SCHED_FIFO tasks too (eevdf-check check --rt)
  unsigned runqueues = 1;  // CPUs (eevdf-check check --runqueues): > 1 adds wake cpu= and migrate
  scn::Backend backend = scn::Backend::model;  // lockstep: compare with the kernel backend (eevdf-check check --lockstep)
  std::chrono::seconds shrink_budget{30};  // wall clock for shrinking, from the first failure
  std::uint64_t seed = 0;                  // 0 = random (the seed used is in CheckOutcome::seed)
  // A CheckOutcome::reproduce string of an earlier run with the same profile:
  // replays that counterexample only (no search, no shrinking, no budget).
  std::string reproduce;
  // Testing only: sleep this long in every shrinking evaluation that runs the
  // system (makes shrinking slow enough to exercise the budget).
  std::chrono::milliseconds slow_shrink{0};
};

struct CheckOutcome {
  bool passed = false;
  int cases_run = 0;                    // test cases generated and run in the search phase
  std::optional<scn::Scenario> counterexample;  // failure: the scenario `eevdf-check run` replays (nullopt on success)
  std::string reproduce;                // failure: "reproduce=... seed=S" (RC_PARAMS syntax; see CheckConfig::reproduce)
  std::string message;                  // one-paragraph summary: what failed, or how many cases passed
  // Statistics.
  std::uint64_t seed = 0;               // the seed actually used
  long long commands_run = 0;           // Command::run calls over every evaluation (search and shrinking)
  long long ops_executed = 0;           // of those, performed on the runqueue
  long long ops_skipped = 0;            // of those, skipped (refused in the real state)
  int shrinks_tried = 0, shrinks_accepted = 0;
  bool shrink_budget_exhausted = false;  // the budget cut shrinking short
  double seconds = 0;                   // wall clock of the whole check
};

CheckOutcome run_stateful_check(const CheckConfig& config);

// ---------------------------------------------------------------------------
// The pieces, for properties that use them directly, e.g.
//   RC_GTEST_PROP(X, Y, ()) {
//     auto setup = make_rc_setup(*profile_by_name("mainline"), err);
//     RcModel m0{setup};
//     RcSystem sut(setup);
//     rc::state::check(m0, sut, gen_rc_command);
//   }

// One check's fixed setup: the scenario header (profile line and directives,
// no operations) and the Profile that header builds (what a replay runs).
struct RcSetup {
  scn::Scenario header;
  Profile profile;
  // Generate task-group commands (group, move, shares, group_idle) and tasks
  // created in groups. run_stateful_check() sets it from CheckConfig::groups.
  bool groups = false;
  // CPUs (runqueues > 1: wake cpu= and migrate commands; the header says
  // `runqueues N`). run_stateful_check() sets it from CheckConfig::runqueues.
  unsigned runqueues = 1;
  // lockstep: every performed operation also runs on the kernel backend and the
  // states are compared (a difference fails the case, id "lockstep").
  scn::Backend backend = scn::Backend::model;
  // SCHED_FIFO tasks: a CreateRt command (run_stateful_check()
  // sets it from CheckConfig::rt). Off: the command streams are as before.
  bool rt = false;
};

// The header for `profile`: its spec (model/profile_spec.hpp), which builds
// exactly `profile`; nullptr and a message if no spec or no scenario header
// expresses it (unknown name, changed behaviours or migration cost, tunables
// out of the scenario language's range).
std::shared_ptr<const RcSetup> make_rc_setup(const Profile& profile, std::string& error);

// The abstract state: what preconditions need and nothing the kernel decides.
struct RcModel {
  static constexpr std::size_t kMaxTasks = 16;  // names ever created or forked
  enum class Known : std::uint8_t {
    fresh,    // created or forked, never woken: TASK_NEW (if it exists at all: a fork may be skipped)
    awake,    // woken, and no sleep or exit command since
    unknown,  // woken once; a later sleep/exit may have hit it (sleeping, dead or still awake)
  };
  struct TaskInfo {
    std::string name;
    Known known = Known::fresh;
  };

  RcModel() = default;
  explicit RcModel(std::shared_ptr<const RcSetup> s) : setup(std::move(s)) {}

  std::shared_ptr<const RcSetup> setup;
  std::vector<TaskInfo> tasks;  // creation order
  int next_name = 0;            // the next fresh name is T<next_name>
  static constexpr std::size_t kMaxGroups = 6;
  std::vector<std::string> groups;  // G<n>, creation order (all exist: group creation is never skipped), removed ones gone
  std::size_t groups_created = 0;   // the next group is G<groups_created> (a removed name is not created again)
  bool any_woken = false;       // some task was woken: the CPU may be busy

  const TaskInfo* find(std::string_view name) const;
  TaskInfo* find(std::string_view name);
};

// The system under test: the runqueue, the checker and the operations performed.
struct RcSystem {
  explicit RcSystem(std::shared_ptr<const RcSetup> setup);
  RcSystem(const RcSystem&) = delete;
  RcSystem& operator=(const RcSystem&) = delete;

  std::shared_ptr<const RcSetup> setup;
  System sys;  // setup->runqueues CPUs
  std::unique_ptr<kernelsrc::KernelBackend> kernel;  // lockstep (RcSetup::backend)
  Rq& rq;      // CPU 0 (the only one unless runqueues > 1)
  std::vector<std::unique_ptr<inv::Checker>> checkers;  // one per runqueue
  inv::Checker& checker;                                // CPU 0's
  std::vector<scn::Op> executed;  // performed operations, resolved; executed[i] ran as op index i
  long long commands = 0;    // Command::run calls
  long long skipped = 0;     // of those, skipped
  bool failed = false;       // a violation, an oops or a refusal ended the run
  std::string failure;       // the violation paragraph(s) (inv::format_violation)
  std::string failure_id;    // "I-AUG", ..., "oops", "refused"

  // Name of the task on the CPU, or "" when idle.
  std::string curr_name() const;
  // ... on CPU cpu.
  std::string curr_name(unsigned cpu) const;
  // The task called `name`, or nullptr.
  const Task* task(const std::string& name) const;
  // Runs a resolved operation exactly as scn::Executor does, records it, and
  // fails the case (RC_FAIL) on a violation, an oops or a refusal.
  void perform(const scn::Op& op);
  // header + executed operations: replayable with `eevdf-check run`.
  scn::Scenario scenario() const;
};

using RcCommandBase = rc::state::Command<RcModel, RcSystem>;
using RcCommandPtr = std::shared_ptr<const RcCommandBase>;
using RcCommands = std::vector<RcCommandPtr>;

// Base of the commands (create, fork, wake, sleep, run, tick, schedule, yield,
// nice, policy, slice, exit, and with RcSetup::groups group, move, shares,
// group_idle; defined in rc_commands.cpp).
class RcCommand : public RcCommandBase {
 public:
  explicit RcCommand(const RcModel& m) : setup_(m.setup) {}
  // The operation as shown; task "<curr>" for commands acting on the task on the CPU.
  virtual scn::Op shown_op() const = 0;
  // The operation to perform in the system's current state, or nullopt to skip.
  virtual std::optional<scn::Op> resolve(const RcSystem& sut) const = 0;
  // ++commands; resolve(); perform() or count a skip.
  void run(const RcModel& s0, RcSystem& sut) const final;
  // print_op(shown_op())
  void show(std::ostream& os) const final;
  const std::shared_ptr<const RcSetup>& setup() const { return setup_; }

 private:
  std::shared_ptr<const RcSetup> setup_;
};

// The generator function for rc::state: one command valid in `model`.
rc::Gen<RcCommandPtr> gen_rc_command(const RcModel& model);

// Replays `cmds` from the initial state on a fresh system (the setup comes from
// the commands) and returns that system's scenario: the resolved, replayable
// form of the sequence, up to and including the failing operation if any.
// Empty scenario with the default profile if `cmds` is empty.
scn::Scenario resolve_commands(const RcCommands& cmds);

// RapidCheck's printer for a command sequence (found by ADL): the resolved
// scenario text, print_scenario(resolve_commands(cmds)).
void showValue(const RcCommands& cmds, std::ostream& os);

}  // namespace eevdf::fuzz
