// The RapidCheck commands (fuzz/rc_commands.hpp): one class a kind of
// operation, its preconditions on the abstract model and its resolution
// against the real state, and the generator that weighs them. The system they
// drive: fuzz/rc_system.cpp; the check that runs them: fuzz/rc_check.cpp.
#include "fuzz/rc_commands.hpp"

#include "model/bugs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <exception>
#include <ostream>
#include <random>
#include <sstream>
#include <thread>
#include <unordered_map>
#include <variant>

#include <rapidcheck/detail/Configuration.h>
#include <rapidcheck/detail/TestListener.h>

#include "scenario/executor.hpp"
#include "scenario/op_table.hpp"
#include "scenario/scenario_parse.hpp"
#include "scenario/scenario_print.hpp"
#include "invariants/ids.hpp"

namespace eevdf::fuzz {

using namespace scn;  // the scenario layer the engines drive

namespace {

const std::string kCurr = "<curr>";

std::string task_name(int index) { return "T" + std::to_string(index); }

Op make_op(OpKind kind, std::string task = {}) {
  Op op;
  op.kind = kind;
  op.task = std::move(task);
  return op;
}

// ---- value generators (the values of tests/support/random_ops.hpp) ----
// rc::gen::element does not shrink in this RapidCheck; an index into a table
// (rc::gen::inRange shrinks towards its minimum) shrinks towards the table's
// first, simplest entry.

template <class T>
rc::Gen<T> table(std::vector<T> values) {
  const std::size_t n = values.size();
  return rc::gen::map(rc::gen::inRange<std::size_t>(0, n), [values = std::move(values)](std::size_t i) { return values[i]; });
}

rc::Gen<s64> gen_duration() {
  return rc::gen::oneOf(table<s64>({1000, 100000, 500000, 700000, 999999, 1000000, 1000001, 2000000, 3000000, 4000000,
                                    10000000}),
                        rc::gen::inRange<s64>(1, 20000000));
}

rc::Gen<s64> gen_slice() { return table<s64>({0, 100000, 700000, 1000000, 3000000, 20000000, 100000000}); }

// 0, -1, 1, -2, 2, ..., 19, -20: shrinks towards 0.
rc::Gen<int> gen_nice_value() {
  return rc::gen::map(rc::gen::inRange(0, 40), [](int i) { return i % 2 == 0 ? i / 2 : -(i + 1) / 2; });
}

rc::Gen<int> gen_nice() { return rc::gen::oneOf(rc::gen::just(0), gen_nice_value()); }

rc::Gen<Policy> gen_policy() {
  return table<Policy>({Policy::normal, Policy::normal, Policy::normal, Policy::batch, Policy::idle});
}

rc::Gen<bool> gen_sync() { return table<bool>({false, false, false, true}); }
// fork ... racing: about as often as the byte format's parent bytes >= 240
rc::Gen<bool> gen_racing() { return table<bool>({false, false, false, false, false, false, false, true}); }

std::vector<std::string> names_where(const RcModel& m, bool (*keep)(const RcModel::TaskInfo&)) {
  std::vector<std::string> out;
  for (const auto& t : m.tasks)
    if (keep(t)) out.push_back(t.name);
  return out;
}

bool wakeable(const RcModel::TaskInfo& t) { return t.known != RcModel::Known::awake; }
bool any_task(const RcModel::TaskInfo&) { return true; }

// Room for one more task, under a name not taken yet.
bool can_add(const RcModel& m, int index) {
  return m.tasks.size() < RcModel::kMaxTasks && m.find(task_name(index)) == nullptr;
}

// A task that is not dead, by name (nullptr if it does not exist: a skipped fork).
const Task* live_task(const RcSystem& sut, const std::string& name) {
  const Task* t = sut.task(name);
  return t && t->state != TaskState::dead ? t : nullptr;
}

// The same, for the fair class's operations (nice, policy, slice, move,
// migrate): an RT task is skipped (the executor refuses them on it).
const Task* live_fair_task(const RcSystem& sut, const std::string& name) {
  const Task* t = live_task(sut, name);
  return t && t->policy != Policy::fifo ? t : nullptr;
}

void add_task(RcModel& m, const std::string& name, int index) {
  m.tasks.push_back({name, RcModel::Known::fresh});
  m.next_name = std::max(m.next_name, index + 1);
}

// A sleep or exit of the task on the CPU: whichever it was is no longer known awake.
void forget_awake(RcModel& m) {
  for (auto& t : m.tasks)
    if (t.known == RcModel::Known::awake) t.known = RcModel::Known::unknown;
}

// ---- the commands ----
//
// Preconditions use RC_PRE on a plain bool: RapidCheck prints the operands of
// a failed RC_PRE, and printing a nullptr operand throws std::logic_error
// (showValue(const char*)), which is not a discard and silently ends the
// shrink sequence being repaired.

unsigned runqueues_of(const RcModel& m) { return m.setup ? m.setup->runqueues : 1; }
// The CPU of a command on "the running task": -1 with one CPU (no draw, so
// one-CPU generation is unchanged), else one of the CPUs.
int gen_cpu(const RcModel& m) {
  return runqueues_of(m) > 1 ? *rc::gen::inRange(0, static_cast<int>(runqueues_of(m))) : -1;
}

// A group of the model or the root group (""), root first so that it shrinks to root.
rc::Gen<std::string> gen_group_or_root(const RcModel& m) {
  std::vector<std::string> choices{std::string()};
  choices.insert(choices.end(), m.groups.begin(), m.groups.end());
  return table<std::string>(std::move(choices));
}

bool has_group(const RcModel& m, const std::string& g) {
  return g.empty() || std::find(m.groups.begin(), m.groups.end(), g) != m.groups.end();
}

// cpu.shares: the default first (shrinks to it), MIN_SHARES, MAX_SHARES, some in between.
rc::Gen<s64> gen_shares() { return table<s64>({1024, 2, 3, 100, 512, 2048, 10240, 262144}); }

// task T<i> [nice=N] [policy=P] [slice=DUR] [group=G]
class CreateCmd final : public RcCommand {
 public:
  explicit CreateCmd(const RcModel& m)
      : RcCommand(m),
        index_(m.next_name),
        nice_(*gen_nice()),
        policy_(*gen_policy()),
        slice_(*gen_slice()),
        group_(m.groups.empty() ? std::string() : *gen_group_or_root(m)) {}
  void checkPreconditions(const RcModel& m) const override {
    const bool ok = can_add(m, index_) && has_group(m, group_);
    RC_PRE(ok);
  }
  void apply(RcModel& m) const override { add_task(m, task_name(index_), index_); }
  Op shown_op() const override {
    Op op = make_op(OpKind::create, task_name(index_));
    op.value = nice_;
    op.policy = policy_;
    op.slice = slice_;
    op.group = group_;
    return op;
  }
  std::optional<Op> resolve(const RcSystem&) const override { return shown_op(); }

 private:
  int index_;
  int nice_;
  Policy policy_;
  s64 slice_;
  std::string group_;
};

// task T<i> policy=fifo: an RT task (CheckConfig::rt).
class CreateRtCmd final : public RcCommand {
 public:
  explicit CreateRtCmd(const RcModel& m) : RcCommand(m), index_(m.next_name) {}
  void checkPreconditions(const RcModel& m) const override {
    const bool ok = can_add(m, index_);
    RC_PRE(ok);
  }
  void apply(RcModel& m) const override { add_task(m, task_name(index_), index_); }
  Op shown_op() const override {
    Op op = make_op(OpKind::create, task_name(index_));
    op.policy = Policy::fifo;
    return op;
  }
  std::optional<Op> resolve(const RcSystem&) const override { return shown_op(); }

 private:
  int index_;
};

// group G<i> [shares=N] [parent=G]: never skipped, so the model knows every group.
class GroupCmd final : public RcCommand {
 public:
  explicit GroupCmd(const RcModel& m)
      : RcCommand(m), name_("G" + std::to_string(m.groups_created)), parent_(*gen_group_or_root(m)),
        shares_(*gen_shares()) {}
  void checkPreconditions(const RcModel& m) const override {
    const bool ok = m.groups_created < RcModel::kMaxGroups && name_ == "G" + std::to_string(m.groups_created) &&
                    has_group(m, parent_);
    RC_PRE(ok);
  }
  void apply(RcModel& m) const override {
    m.groups.push_back(name_);
    ++m.groups_created;
  }
  Op shown_op() const override {
    Op op = make_op(OpKind::group_create);
    op.group = name_;
    op.parent = parent_;
    op.value = shares_;
    return op;
  }
  std::optional<Op> resolve(const RcSystem&) const override { return shown_op(); }

 private:
  std::string name_, parent_;
  s64 shares_;
};

// move NAME G|root: skipped if the task does not exist or is dead.
class MoveCmd final : public RcCommand {
 public:
  explicit MoveCmd(const RcModel& m)
      : RcCommand(m), task_(*rc::gen::elementOf(names_where(m, any_task))), group_(*gen_group_or_root(m)) {}
  void checkPreconditions(const RcModel& m) const override {
    const bool ok = m.find(task_) != nullptr && has_group(m, group_);
    RC_PRE(ok);
  }
  Op shown_op() const override {
    Op op = make_op(OpKind::move, task_);
    op.group = group_;
    return op;
  }
  std::optional<Op> resolve(const RcSystem& sut) const override {
    if (!live_fair_task(sut, task_)) return std::nullopt;
    return shown_op();
  }

 private:
  std::string task_, group_;
};

// shares G N / group_idle G 0|1 (shares of an idle group is -EINVAL: skipped).
template <OpKind Kind>
class GroupParamCmd final : public RcCommand {
 public:
  explicit GroupParamCmd(const RcModel& m)
      : RcCommand(m), group_(*rc::gen::elementOf(m.groups)),
        value_(Kind == OpKind::shares ? *gen_shares() : *table<s64>({1, 0})) {}
  void checkPreconditions(const RcModel& m) const override {
    const bool ok = !group_.empty() && has_group(m, group_);
    RC_PRE(ok);
  }
  Op shown_op() const override {
    Op op = make_op(Kind);
    op.group = group_;
    op.value = value_;
    return op;
  }
  std::optional<Op> resolve(const RcSystem& sut) const override {
    const int g = sut.rq.find_group(group_);
    if (g < 0) return std::nullopt;
    if (Kind == OpKind::shares && sut.rq.task_groups[static_cast<std::size_t>(g)].idle) return std::nullopt;
    return shown_op();
  }

 private:
  std::string group_;
  s64 value_;
};
using SharesCmd = GroupParamCmd<OpKind::shares>;
using GroupIdleCmd = GroupParamCmd<OpKind::group_idle>;

// group_destroy G: the name is gone from the model whatever happens; skipped
// where the cgroup would refuse (-EBUSY: a task not exited, or a child group, in it).
class GroupDestroyCmd final : public RcCommand {
 public:
  explicit GroupDestroyCmd(const RcModel& m) : RcCommand(m), group_(*rc::gen::elementOf(m.groups)) {}
  void checkPreconditions(const RcModel& m) const override {
    const bool ok = !group_.empty() && has_group(m, group_);
    RC_PRE(ok);
  }
  void apply(RcModel& m) const override { m.groups.erase(std::find(m.groups.begin(), m.groups.end(), group_)); }
  Op shown_op() const override {
    Op op = make_op(OpKind::group_destroy);
    op.group = group_;
    return op;
  }
  std::optional<Op> resolve(const RcSystem& sut) const override {
    const int g = sut.rq.find_group(group_);
    if (g < 0) return std::nullopt;
    for (const Task& p : sut.rq.tasks)
      if (p.group == g && p.state != TaskState::dead) return std::nullopt;
    for (const TaskGroup& child : sut.rq.task_groups)
      if (child.parent == g && !child.destroyed) return std::nullopt;
    return shown_op();
  }

 private:
  std::string group_;
};

// base_slice_ns DUR: the debugfs write of sysctl_sched_base_slice, from the
// edges of the range, the defaults and values between.
class BaseSliceCmd final : public RcCommand {
 public:
  explicit BaseSliceCmd(const RcModel& m)
      : RcCommand(m), ns_(*table<s64>({2800000, 700000, 100000, 100000000, 3000000, 750000})) {}
  Op shown_op() const override {
    Op op = make_op(OpKind::base_slice);
    op.value = ns_;
    return op;
  }
  std::optional<Op> resolve(const RcSystem&) const override { return shown_op(); }

 private:
  s64 ns_;
};

// fork <curr> -> T<i> [racing]
class ForkCmd final : public RcCommand {
 public:
  explicit ForkCmd(const RcModel& m) : RcCommand(m), index_(m.next_name), racing_(*gen_racing()) {}
  void checkPreconditions(const RcModel& m) const override {
    const bool ok = m.any_woken && can_add(m, index_);
    RC_PRE(ok);
  }
  void apply(RcModel& m) const override { add_task(m, task_name(index_), index_); }
  Op shown_op() const override {
    Op op = make_op(OpKind::fork, kCurr);
    op.child = task_name(index_);
    op.racing = racing_;
    return op;
  }
  std::optional<Op> resolve(const RcSystem& sut) const override {
    const std::string curr = sut.curr_name();
    if (curr.empty() || sut.rq.tasks.size() >= kMaxTasks) return std::nullopt;
    if (sut.task(curr)->policy == Policy::fifo) return std::nullopt;  // an RT parent: refused
    Op op = shown_op();
    op.task = curr;
    return op;
  }

 private:
  int index_;
  bool racing_;
};

// wake NAME [sync] [cpu=N | from=N]: only of a task not known to be awake; skipped unless new or sleeping.
class WakeCmd final : public RcCommand {
 public:
  explicit WakeCmd(const RcModel& m)
      : RcCommand(m),
        task_(*rc::gen::elementOf(names_where(m, wakeable))),
        sync_(*gen_sync()),
        cpu_(runqueues_of(m) > 1 ? *rc::gen::inRange(-1, static_cast<int>(runqueues_of(m))) : -1),
        from_(cpu_ < 0 && runqueues_of(m) > 1 ? *rc::gen::inRange(-1, static_cast<int>(runqueues_of(m))) : -1) {}
  void checkPreconditions(const RcModel& m) const override {
    const auto* t = m.find(task_);
    const bool ok = t && wakeable(*t);
    RC_PRE(ok);
  }
  void apply(RcModel& m) const override {
    m.find(task_)->known = RcModel::Known::awake;
    m.any_woken = true;
  }
  Op shown_op() const override {
    Op op = make_op(OpKind::wake, task_);
    op.sync = sync_;
    op.cpu = cpu_;
    op.from = from_;
    return op;
  }
  std::optional<Op> resolve(const RcSystem& sut) const override {
    const Task* t = sut.task(task_);
    if (!t || (t->state != TaskState::new_ && t->state != TaskState::sleeping)) return std::nullopt;
    // a choice the model cannot make (SIS_UTIL's budget, an RT task's class) is skipped like a wake of an awake task
    if (sut.sys.wake_choice_refusal(t->se.task_id, sync_, cpu_, from_) != Refusal::none) return std::nullopt;
    return shown_op();
  }

 private:
  std::string task_;
  bool sync_;
  int cpu_;   // select_task_rq()'s answer; -1: the model's choice (model/wake_cpu.hpp)
  int from_;  // without cpu=: the CPU the wake-up is made from; -1: the task's own
};

// migrate NAME CPU (runqueues > 1): the load balancer moves a queued task;
// skipped if the task does not exist, is dead or runs on its CPU.
class MigrateCmd final : public RcCommand {
 public:
  explicit MigrateCmd(const RcModel& m)
      : RcCommand(m),
        task_(*rc::gen::elementOf(names_where(m, any_task))),
        cpu_(*rc::gen::inRange(0, static_cast<int>(runqueues_of(m)))) {}
  void checkPreconditions(const RcModel& m) const override {
    const bool ok = runqueues_of(m) > 1 && m.find(task_) != nullptr && cpu_ < static_cast<int>(runqueues_of(m));
    RC_PRE(ok);
  }
  Op shown_op() const override {
    Op op = make_op(OpKind::migrate, task_);
    op.cpu = cpu_;
    return op;
  }
  std::optional<Op> resolve(const RcSystem& sut) const override {
    const Task* t = live_fair_task(sut, task_);
    if (!t || sut.sys.rq(static_cast<unsigned>(t->cpu)).curr == t->se.task_id) return std::nullopt;
    return shown_op();
  }

 private:
  std::string task_;
  int cpu_;
};

// sleep / yield / exit <curr>
template <OpKind Kind>
class CurrCmd final : public RcCommand {
 public:
  explicit CurrCmd(const RcModel& m) : RcCommand(m), cpu_(gen_cpu(m)) {}
  void checkPreconditions(const RcModel& m) const override { RC_PRE(m.any_woken); }
  void apply(RcModel& m) const override {
    if constexpr (Kind != OpKind::yield) forget_awake(m);
  }
  Op shown_op() const override { return make_op(Kind, cpu_ > 0 ? "<curr of CPU " + std::to_string(cpu_) + ">" : kCurr); }
  std::optional<Op> resolve(const RcSystem& sut) const override {
    const std::string curr = sut.curr_name(static_cast<unsigned>(cpu_ < 0 ? 0 : cpu_));
    if (curr.empty()) return std::nullopt;
    // an RT task on the CPU sleeps and exits; it does not yield (the fair class's)
    if (Kind == OpKind::yield && sut.task(curr)->policy == Policy::fifo) return std::nullopt;
    return make_op(Kind, curr);
  }

 private:
  int cpu_;  // the CPU whose task acts (-1: one CPU)
};
using SleepCmd = CurrCmd<OpKind::sleep>;
using YieldCmd = CurrCmd<OpKind::yield>;
using ExitCmd = CurrCmd<OpKind::exit>;

// run DUR, run DUR notick, tick DUR
template <OpKind Kind>
class TimedCmd final : public RcCommand {
 public:
  // tick DUR: at most 1ms (at most TICK_NSEC at any HZ), as the campaign without --late-ticks
  explicit TimedCmd(const RcModel& m)
      : RcCommand(m),
        ns_(Kind == OpKind::tick_after ? *table<s64>({1000, 100000, 500000, 700000, 999999, 1000000})
                                       : *gen_duration()) {}
  Op shown_op() const override {
    Op op = make_op(Kind);
    op.value = ns_;
    return op;
  }
  std::optional<Op> resolve(const RcSystem& sut) const override {
    // a tickless run only where every CPU could stop its tick (sched_can_stop_tick())
    if constexpr (Kind == OpKind::run_notick)
      for (unsigned c = 0; c < sut.sys.size(); ++c)
        if (!sut.sys.rq(c).oops && !sut.sys.rq(c).tick_stoppable()) return std::nullopt;
    return shown_op();
  }

 private:
  s64 ns_;
};
using RunCmd = TimedCmd<OpKind::run>;
using RunNotickCmd = TimedCmd<OpKind::run_notick>;
using TickAfterCmd = TimedCmd<OpKind::tick_after>;

// tick / schedule
template <OpKind Kind>
class PlainCmd final : public RcCommand {
 public:
  explicit PlainCmd(const RcModel& m) : RcCommand(m) {}
  Op shown_op() const override { return make_op(Kind); }
  std::optional<Op> resolve(const RcSystem&) const override { return shown_op(); }
};
using TickCmd = PlainCmd<OpKind::tick>;
using ScheduleCmd = PlainCmd<OpKind::schedule>;

// A value of kind `a` (the operation table's Arg kinds, scenario/op_table.hpp), drawn into op.
constexpr bool drawable(Arg a) { return a == Arg::nice || a == Arg::policy || a == Arg::slice; }
void draw_value(Arg a, Op& op) {
  switch (a) {
    case Arg::nice: op.value = *gen_nice_value(); break;
    case Arg::policy: op.policy = *gen_policy(); break;
    case Arg::slice: op.value = *gen_slice(); break;
    default: break;  // drawable() says which
  }
}

// nice / policy / slice NAME VALUE, the value drawn by the kind of the row's
// second argument; skipped if the task does not exist or is dead.
template <OpKind Kind>
class ParamCmd final : public RcCommand {
  static_assert(op_spec(Kind).nargs() == 2 && op_spec(Kind).args[0].kind == Arg::task &&
                drawable(op_spec(Kind).args[1].kind));

 public:
  explicit ParamCmd(const RcModel& m) : RcCommand(m), op_(make_op(Kind, *rc::gen::elementOf(names_where(m, any_task)))) {
    draw_value(op_spec(Kind).args[1].kind, op_);
  }
  void checkPreconditions(const RcModel& m) const override {
    const bool ok = m.find(op_.task) != nullptr;
    RC_PRE(ok);
  }
  Op shown_op() const override { return op_; }
  std::optional<Op> resolve(const RcSystem& sut) const override {
    if (!live_fair_task(sut, op_.task)) return std::nullopt;
    return op_;
  }

 private:
  Op op_;
};
using NiceCmd = ParamCmd<OpKind::nice>;
using PolicyCmd = ParamCmd<OpKind::policy>;
using SliceCmd = ParamCmd<OpKind::slice>;

// debug_read [G|root] [cpu=N] [racing]: the sched debugfs reader of a queue
// (generated where it races the scheduler: debug_read_races(), v6.12.118).
// Never skipped: groups always exist.
class DebugReadCmd final : public RcCommand {
 public:
  explicit DebugReadCmd(const RcModel& m)
      : RcCommand(m), group_(*gen_group_or_root(m)), racing_(*table<bool>({true, false})), cpu_(gen_cpu(m)) {}
  void checkPreconditions(const RcModel& m) const override {
    const bool ok = has_group(m, group_) && cpu_ < static_cast<int>(runqueues_of(m));
    RC_PRE(ok);
  }
  Op shown_op() const override {
    Op op = make_op(OpKind::debug_read);
    op.group = group_;
    op.racing = racing_;
    op.cpu = cpu_;
    return op;
  }
  std::optional<Op> resolve(const RcSystem&) const override { return shown_op(); }

 private:
  std::string group_;
  bool racing_;
  int cpu_;
};

// Command kinds in the order the generator weighs them.
enum Kind : std::size_t { kCreate, kFork, kWake, kSleep, kRun, kTick, kSchedule, kYield, kNice, kPolicy, kSlice, kExit,
                          kGroup, kMove, kShares, kGroupIdle, kMigrate, kDebugRead, kRunNotick, kTickAfter,
                          kBaseSlice, kGroupDestroy, kCreateRt, kKinds };

std::array<std::size_t, kKinds> weights(const RcModel& m) {
  std::array<std::size_t, kKinds> w{};
  const bool room = m.tasks.size() < RcModel::kMaxTasks;
  const bool has_tasks = !m.tasks.empty();
  const bool has_wakeable =
      std::any_of(m.tasks.begin(), m.tasks.end(), [](const RcModel::TaskInfo& t) { return wakeable(t); });
  w[kCreate] = !room ? 0 : m.tasks.empty() ? 8 : m.tasks.size() < 3 ? 3 : 1;
  w[kFork] = room && m.any_woken ? 1 : 0;
  w[kWake] = has_wakeable ? 6 : 0;
  w[kSleep] = m.any_woken ? 3 : 0;
  w[kRun] = 6;
  w[kTick] = 2;
  // time off the tick grid: a tick of at most 1ms (TimedCmd); no tickless run
  // (RunNotick, weight 0), as the campaign without --nohz-full: tickless runs
  // make I-KEY fire on mainline (docs/fuzzing.md), an open question
  w[kRunNotick] = 0;
  w[kTickAfter] = 1;
  w[kSchedule] = 1;
  w[kYield] = m.any_woken ? 2 : 0;
  w[kNice] = has_tasks ? 1 : 0;
  w[kPolicy] = has_tasks ? 1 : 0;
  const bool custom_slices = !m.setup || m.setup->profile.behaviour.custom_slices;  // v6.6 refuses set_slice
  w[kSlice] = has_tasks && custom_slices ? 1 : 0;
  w[kExit] = m.any_woken ? 1 : 0;
  const bool groups = m.setup && m.setup->groups;
  const bool has_groups = !m.groups.empty();
  w[kGroup] = groups && m.groups_created < RcModel::kMaxGroups ? (has_groups ? 1 : 3) : 0;
  w[kMove] = groups && has_tasks && has_groups ? 2 : 0;
  w[kShares] = groups && has_groups ? 1 : 0;
  w[kGroupIdle] = groups && has_groups ? 1 : 0;
  w[kMigrate] = runqueues_of(m) > 1 && has_tasks ? 3 : 0;
  w[kDebugRead] = m.setup && debug_read_races(m.setup->profile) && has_tasks ? 2 : 0;
  w[kBaseSlice] = 1;
  w[kGroupDestroy] = groups && has_groups ? 1 : 0;
  w[kCreateRt] = room && m.setup && m.setup->rt ? 1 : 0;  // last: weight 0 leaves the other draws as they were
  return w;
}

RcCommandPtr make_command(std::size_t kind, const RcModel& m) {
  switch (kind) {
    case kCreate: return std::make_shared<CreateCmd>(m);
    case kFork: return std::make_shared<ForkCmd>(m);
    case kWake: return std::make_shared<WakeCmd>(m);
    case kSleep: return std::make_shared<SleepCmd>(m);
    case kRun: return std::make_shared<RunCmd>(m);
    case kTick: return std::make_shared<TickCmd>(m);
    case kSchedule: return std::make_shared<ScheduleCmd>(m);
    case kYield: return std::make_shared<YieldCmd>(m);
    case kNice: return std::make_shared<NiceCmd>(m);
    case kPolicy: return std::make_shared<PolicyCmd>(m);
    case kSlice: return std::make_shared<SliceCmd>(m);
    case kGroup: return std::make_shared<GroupCmd>(m);
    case kMove: return std::make_shared<MoveCmd>(m);
    case kShares: return std::make_shared<SharesCmd>(m);
    case kGroupIdle: return std::make_shared<GroupIdleCmd>(m);
    case kMigrate: return std::make_shared<MigrateCmd>(m);
    case kDebugRead: return std::make_shared<DebugReadCmd>(m);
    case kRunNotick: return std::make_shared<RunNotickCmd>(m);
    case kTickAfter: return std::make_shared<TickAfterCmd>(m);
    case kBaseSlice: return std::make_shared<BaseSliceCmd>(m);
    case kGroupDestroy: return std::make_shared<GroupDestroyCmd>(m);
    case kCreateRt: return std::make_shared<CreateRtCmd>(m);
    default: return std::make_shared<ExitCmd>(m);
  }
}

// Runs `cmds` on `sut` like rc::state::runAll, stopping at the first failure.
void run_commands(const RcCommands& cmds, RcSystem& sut) {
  const RcModel model{sut.setup};
  try {
    rc::state::runAll(cmds, model, sut);
  } catch (...) {
    // a failed case: sut.failed and sut.failure say why
  }
}

}  // namespace


void RcCommand::run(const RcModel&, RcSystem& sut) const {
  ++sut.commands;
  if (const auto op = resolve(sut)) {
    sut.perform(*op);
  } else {
    ++sut.skipped;
  }
}

void RcCommand::show(std::ostream& os) const { os << print_op(shown_op()); }

rc::Gen<RcCommandPtr> gen_rc_command(const RcModel& model) {
  auto m = std::make_shared<const RcModel>(model);
  const auto w = weights(*m);
  std::size_t total = 0;
  for (std::size_t x : w) total += x;
  return rc::Gen<RcCommandPtr>([m, w, total](const rc::Random& random, int size) {
    auto r = random;
    std::size_t x = static_cast<std::size_t>(r.split().next() % total);
    std::size_t kind = 0;
    while (x >= w[kind]) x -= w[kind++];
    return rc::gen::exec([m, kind] { return make_command(kind, *m); })(r, size);
  });
}

Scenario resolve_commands(const RcCommands& cmds) {
  std::shared_ptr<const RcSetup> setup;
  for (const auto& c : cmds)
    if (const auto* rc_cmd = dynamic_cast<const RcCommand*>(c.get()); rc_cmd && rc_cmd->setup()) {
      setup = rc_cmd->setup();
      break;
    }
  if (!setup) return Scenario{};
  RcSystem sut(setup);
  run_commands(cmds, sut);
  return sut.scenario();
}

void showValue(const RcCommands& cmds, std::ostream& os) { os << print_scenario(resolve_commands(cmds)); }

}  // namespace eevdf::fuzz
