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

// nice / policy / slice NAME VALUE: skipped if the task does not exist or is dead.
class ParamCmd : public RcCommand {
 public:
  explicit ParamCmd(const RcModel& m) : RcCommand(m), task_(*rc::gen::elementOf(names_where(m, any_task))) {}
  void checkPreconditions(const RcModel& m) const override {
    const bool ok = m.find(task_) != nullptr;
    RC_PRE(ok);
  }
  std::optional<Op> resolve(const RcSystem& sut) const override {
    if (!live_fair_task(sut, task_)) return std::nullopt;
    return shown_op();
  }

 protected:
  std::string task_;
};

class NiceCmd final : public ParamCmd {
 public:
  explicit NiceCmd(const RcModel& m) : ParamCmd(m), nice_(*gen_nice_value()) {}
  Op shown_op() const override {
    Op op = make_op(OpKind::nice, task_);
    op.value = nice_;
    return op;
  }

 private:
  int nice_;
};

class PolicyCmd final : public ParamCmd {
 public:
  explicit PolicyCmd(const RcModel& m) : ParamCmd(m), policy_(*gen_policy()) {}
  Op shown_op() const override {
    Op op = make_op(OpKind::policy, task_);
    op.policy = policy_;
    return op;
  }

 private:
  Policy policy_;
};

class SliceCmd final : public ParamCmd {
 public:
  explicit SliceCmd(const RcModel& m) : ParamCmd(m), slice_(*gen_slice()) {}
  Op shown_op() const override {
    Op op = make_op(OpKind::slice, task_);
    op.value = slice_;
    return op;
  }

 private:
  s64 slice_;
};

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

// ---------------------------------------------------------------------------

std::shared_ptr<const RcSetup> make_rc_setup(const Profile& profile, std::string& error) {
  const auto spec = spec_of(profile, error);
  if (!spec) return nullptr;
  // A replay reads the header: its tunables must be ones the language can write.
  const bool hz_ok = std::find(kAllowedHz.begin(), kAllowedHz.end(), spec->hz) != kAllowedHz.end();
  const bool cpus_ok = spec->cpus >= 1 && spec->cpus <= kMaxCpus;
  const bool slice_ok = !spec->base_slice || (static_cast<s64>(*spec->base_slice) >= kMinSliceNs &&
                                              static_cast<s64>(*spec->base_slice) <= kMaxSliceNs);
  if (!hz_ok || !cpus_ok || !slice_ok) {
    error = fmt::format("profile '{}' cannot be written as a scenario: {}", profile.name,
                        !hz_ok     ? fmt::format("hz {} (100, 250, 300 or 1000)", spec->hz)
                        : !cpus_ok ? fmt::format("cpus {} (1 to {})", spec->cpus, kMaxCpus)
                                   : fmt::format("base slice {} ns (0.1ms to 100ms)", *spec->base_slice));
    return nullptr;
  }
  auto rebuilt = make_profile(*spec, error);
  if (!rebuilt) return nullptr;
  auto setup = std::make_shared<RcSetup>();
  set_profile_spec(setup->header, *spec);
  setup->profile = std::move(*rebuilt);
  return setup;
}

const RcModel::TaskInfo* RcModel::find(std::string_view name) const {
  for (const auto& t : tasks)
    if (t.name == name) return &t;
  return nullptr;
}

RcModel::TaskInfo* RcModel::find(std::string_view name) {
  for (auto& t : tasks)
    if (t.name == name) return &t;
  return nullptr;
}

namespace {
// Every invariant; none in lockstep, where the comparison with the kernel is the property.
std::vector<std::unique_ptr<inv::Checker>> checkers_for(System& sys, Backend backend) {
  std::vector<std::unique_ptr<inv::Checker>> out;
  inv::Selection selection;
  if (backend == Backend::lockstep) selection.on.fill(false);
  for (unsigned c = 0; c < sys.size(); ++c) {
    out.push_back(std::make_unique<inv::Checker>(selection, inv::Tolerances{}));
    out.back()->attach(sys.rq(c));
  }
  return out;
}
}  // namespace

RcSystem::RcSystem(std::shared_ptr<const RcSetup> s)
    : setup(std::move(s)),
      sys(setup->profile, setup->runqueues),
      rq(sys.rq(0)),
      checkers(checkers_for(sys, setup->backend)),
      checker(*checkers.front()) {
  executed.reserve(128);
  if (setup->backend == Backend::lockstep) kernel = std::make_unique<kernelsrc::KernelBackend>(setup->profile, setup->runqueues);
}

std::string RcSystem::curr_name() const { return curr_name(0); }

std::string RcSystem::curr_name(unsigned cpu) const {
  const Rq& r = sys.rq(cpu < sys.size() ? cpu : 0);
  return r.running() >= 0 ? r.tasks[static_cast<std::size_t>(r.running())].name : std::string();  // an RT task too
}

const Task* RcSystem::task(const std::string& name) const { return rq.task(rq.find_task(name)); }

void RcSystem::perform(const Op& op) {
  const int index = static_cast<int>(executed.size());
  executed.push_back(op);
  for (auto& c : checkers) c->begin_op(index, op_class(op.kind));
  const int id = op.task.empty() ? -1 : rq.find_task(op.task);
  Refusal refusal = apply_operation(sys, op, id);  // as scn::Executor does
  std::optional<Divergence> divergence;
  if (kernel) {
    const std::optional<Op> kernel_op = op_for_kernel(sys, op, id, refusal);
    const Refusal kernel_refusal = kernel_op ? apply_operation(*kernel, *kernel_op, id) : refusal;
    // once the modelled kernel has crashed (a NULL pick), the state after it is
    // not the kernel's: the executor's lockstep stops there too
    if (kernel_refusal != refusal)
      divergence = Divergence{index, "refusal", refusal_text(refusal), refusal_text(kernel_refusal)};
    else if (!sys.oops())
      divergence = first_difference(sys, *kernel);
  }
  if (sys.size() > 1) inv::share_max_slice(sys, checkers);  // as scn::Executor does
  for (auto& c : checkers) c->end_op();
  if (sys.size() > 1) inv::share_end_records(sys, checkers);
  std::vector<inv::Violation> violations;
  for (const auto& c : checkers) violations.insert(violations.end(), c->violations().begin(), c->violations().end());

  if (divergence) {
    failed = true;
    failure_id = "lockstep";
    failure = fmt::format("lockstep divergence after operation {} ({}): {}: model {}, kernel {}\n", index + 1,
                          print_op(op), divergence->field, divergence->model, divergence->kernel);
    RC_FAIL(failure);
  }
  if (refusal != Refusal::none) {
    // A bug of resolve(): the command should have been skipped.
    failed = true;
    failure_id = "refused";
    failure = fmt::format("internal error: operation {} ({}) refused: {}\n", index + 1, print_op(op),
                          refusal_text(refusal));
    RC_FAIL(failure);
  }
  if (!violations.empty()) {
    failed = true;
    failure_id = inv::id_name(violations.front().id);
    failure.clear();
    for (const auto& v : violations) {
      const std::string text =
          v.op_index >= 0 && static_cast<std::size_t>(v.op_index) < executed.size()
              ? print_op(executed[static_cast<std::size_t>(v.op_index)])
              : std::string();
      failure += inv::format_violation(v, text, setup->profile.name);
    }
  } else if (sys.oops()) {
    failed = true;
    failure_id = "oops";
    failure = fmt::format("the modelled kernel crashed (NULL pick) at operation {} ({}) [profile {}]\n", index + 1,
                          print_op(op), setup->profile.name);
  }
  if (failed) RC_FAIL(failure);
}

Scenario RcSystem::scenario() const {
  Scenario s = setup->header;
  s.ops = executed;
  return s;
}

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

// ---------------------------------------------------------------------------
// run_stateful_check

namespace {

using Clock = std::chrono::steady_clock;

struct CheckContext {
  std::shared_ptr<const RcSetup> setup;
  bool budget_enabled = true;
  Clock::duration budget{};
  std::chrono::milliseconds slow{0};  // CheckConfig::slow_shrink
  std::optional<Clock::time_point> deadline;  // set at the first failure
  bool budget_hit = false;

  // The last failing evaluation: RapidCheck accepts every failing shrink, so
  // this is the smallest failure so far and, at the end, the counterexample.
  // Recognised by content (key()), not by pointers: RapidCheck regenerates the
  // commands of an unshrunk case each time it evaluates it.
  std::string best_key;
  Scenario best_scenario;
  std::string best_failure;
  std::string best_id;

  long long commands = 0, executed = 0, skipped = 0;
};

class Listener final : public rc::detail::TestListener {
 public:
  void onTestCaseFinished(const rc::detail::CaseDescription&) override { ++cases; }
  void onShrinkTried(const rc::detail::CaseDescription&, bool accepted) override {
    ++tried;
    if (accepted) ++accepted_;
  }
  void onTestFinished(const rc::detail::TestMetadata&, const rc::detail::TestResult&) override {}
  int cases = 0, tried = 0, accepted_ = 0;
};

constexpr const char* kTestId = "eevdf-check stateful";

// A command sequence's identity: the shown commands, which carry every
// parameter a command has.
std::string key(const RcCommands& cmds) {
  std::ostringstream os;
  for (const auto& c : cmds) {
    c->show(os);
    os << '\n';
  }
  return os.str();
}

// The property: generate a command sequence, run it on a fresh system.
void evaluate(CheckContext& ctx) {
  const RcModel initial{ctx.setup};
  const RcCommands cmds = *rc::state::gen::commands(initial, [](const RcModel& m) { return gen_rc_command(m); });
  if (ctx.deadline && Clock::now() >= *ctx.deadline) {
    // Shrinking budget spent: run nothing more. The best failure fails again
    // as it did (the model is deterministic); every other candidate passes,
    // so RapidCheck accepts no further shrink.
    ctx.budget_hit = true;
    if (key(cmds) == ctx.best_key) RC_FAIL(ctx.best_failure);
    return;
  }
  if (ctx.deadline && ctx.slow.count() > 0) std::this_thread::sleep_for(ctx.slow);
  RcSystem sut(ctx.setup);
  auto account = [&] {
    ctx.commands += sut.commands;
    ctx.skipped += sut.skipped;
    ctx.executed += sut.commands - sut.skipped;
  };
  try {
    rc::state::runAll(cmds, initial, sut);
  } catch (...) {
    account();
    if (sut.failed) {
      if (ctx.budget_enabled && !ctx.deadline) ctx.deadline = Clock::now() + ctx.budget;
      ctx.best_key = key(cmds);
      ctx.best_scenario = sut.scenario();
      ctx.best_failure = sut.failure;
      ctx.best_id = sut.failure_id;
    }
    throw;
  }
  account();
}

}  // namespace

CheckOutcome run_stateful_check(const CheckConfig& config) {
  const auto start = Clock::now();
  CheckOutcome out;
  auto finish = [&]() -> CheckOutcome {
    out.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return std::move(out);
  };

  std::string error;
  auto base_setup = make_rc_setup(config.profile, error);
  if (!base_setup) {
    out.message = error;
    return finish();
  }
  auto group_setup = std::make_shared<RcSetup>(*base_setup);
  group_setup->groups = config.groups;
  group_setup->rt = config.rt;
  group_setup->runqueues = config.runqueues;
  group_setup->header.runqueues = config.runqueues;
  group_setup->backend = config.backend;
  if (config.backend != Backend::model) {
    if (!kernelsrc::available() || config.backend != Backend::lockstep) {
      out.message = config.backend != Backend::lockstep ? "check drives the kernel backend in lockstep only (--lockstep)"
                                                        : "this build has no kernel backend";
      return finish();
    }
    if (std::string why = kernelsrc::refusal(config.profile, config.runqueues); !why.empty()) {
      out.message = why;
      return finish();
    }
  }
  if (std::string why = runqueues_refusal(config.profile.name, config.runqueues); !why.empty()) {
    out.message = why;
    return finish();
  }
  const std::shared_ptr<const RcSetup> setup = group_setup;
  if (config.cases < 1 || config.max_ops < 1) {
    out.message = "cases and max_ops must be at least 1";
    return finish();
  }

  std::unordered_map<std::string, rc::detail::Reproduce> reproduce_map;
  if (!config.reproduce.empty()) {
    try {
      reproduce_map = rc::detail::configFromString(config.reproduce).reproduce;
    } catch (const std::exception& e) {
      out.message = fmt::format("bad reproduce string: {}", e.what());
      return finish();
    }
    if (reproduce_map.find(kTestId) == reproduce_map.end()) {
      out.message = "bad reproduce string: it does not name this check (expected the string a failed check printed)";
      return finish();
    }
  }

  auto ctx = std::make_shared<CheckContext>();
  ctx->setup = setup;
  ctx->budget_enabled = reproduce_map.empty();
  ctx->budget = std::chrono::duration_cast<Clock::duration>(config.shrink_budget);
  ctx->slow = config.slow_shrink;

  rc::detail::TestParams params;
  if (config.seed != 0) {
    params.seed = config.seed;
  } else {
    std::random_device rd;
    params.seed = (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
    if (params.seed == 0) params.seed = 1;
  }
  params.maxSuccess = config.cases;
  params.maxSize = config.max_ops - 1;  // a sequence has 1 .. size + 1 commands
  out.seed = params.seed;

  rc::detail::TestMetadata metadata;
  metadata.id = kTestId;
  metadata.description = kTestId;
  Listener listener;
  const auto property = rc::detail::toProperty([ctx] { evaluate(*ctx); });
  const rc::detail::TestResult result =
      rc::detail::checkProperty(property, metadata, params, listener, reproduce_map);

  out.cases_run = listener.cases;
  out.commands_run = ctx->commands;
  out.ops_executed = ctx->executed;
  out.ops_skipped = ctx->skipped;
  out.shrinks_tried = listener.tried;
  out.shrinks_accepted = listener.accepted_;
  out.shrink_budget_exhausted = ctx->budget_hit;

  rc::detail::SuccessResult success;
  rc::detail::FailureResult failure;
  rc::detail::GaveUpResult gave_up;
  rc::detail::Error rc_error;
  if (result.match(success)) {
    out.passed = true;
    if (!reproduce_map.empty()) {
      out.passed = false;
      out.message = "the reproduce string matched no test case";
    } else {
      out.message = fmt::format("OK, passed {} case(s) on profile {} (seed {})", success.numSuccess,
                                setup->profile.name, out.seed);
    }
  } else if (result.match(failure)) {
    rc::detail::Configuration rc_config;
    rc_config.testParams.seed = params.seed;
    rc_config.reproduce[kTestId] = failure.reproduce;
    out.reproduce = rc::detail::configToMinimalString(rc_config);
    if (ctx->best_scenario.ops.empty()) {
      // Not a system failure (e.g. an exception in the test machinery).
      out.message = "property failed without a counterexample: " + failure.description;
    } else {
      Scenario s = ctx->best_scenario;
      s.title = fmt::format("rapidcheck counterexample on profile {}: {} at operation {}", setup->profile.name,
                            ctx->best_id, s.ops.size());
      out.counterexample = std::move(s);
      out.message = fmt::format(
          "FAILED on profile {} (seed {}) after {} case(s) and {} shrink(s){}:\n{}", setup->profile.name, out.seed,
          reproduce_map.empty() ? failure.numSuccess + 1 : 0, out.shrinks_accepted,
          out.shrink_budget_exhausted ? fmt::format(", shrinking stopped by the {}s budget", config.shrink_budget.count())
                                      : std::string(),
          ctx->best_failure);
      // RapidCheck re-ran the counterexample last; it must have failed the same way.
      if (failure.description.find(ctx->best_failure) == std::string::npos)
        out.message += "warning: RapidCheck's final run of the counterexample did not fail the same way:\n" +
                       failure.description + "\n";
    }
  } else if (result.match(gave_up)) {
    out.message = "gave up: " + gave_up.description;
  } else if (result.match(rc_error)) {
    out.message = "rapidcheck error: " + rc_error.description;
  }
  return finish();
}

}  // namespace eevdf::fuzz
