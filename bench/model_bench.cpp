// Throughput of the model: operations per second of a deterministic
// pseudo-random mixed stream (wake, sleep, run of a few hundred µs, tick,
// schedule, yield, renice) on one runqueue, mainline profile.
//
//   BM_MixedStream      4..256 tasks, no observer and no invariant checks.
//   BM_checked          4, 16, 64 tasks, an inv::Checker attached and
//                       begin_op()/end_op() around every operation as the
//                       fuzz executor does, every invariant on.
//   BM_checked_family/<family>
//                       16 tasks, the checker attached with only one family
//                       of invariants on; family "none" (every id off) is the
//                       baseline: a checker that checks nothing keeps no
//                       records (inv::Checker::checking()), so it costs the
//                       hooks' calls only. Cost of a family = its ns/op −
//                       none's ns/op, the checker's shared bookkeeping
//                       (queue index, tree walk, snapshots) included.
//   BM_groups           4 task groups x 16 tasks, hierarchical
//                       (mainline) or the v7.3 single runqueue (flat:1),
//                       without and with every invariant (checked:1).
//   BM_smp_groups       the same 4 groups x 16 tasks on 4 CPUs,
//                       every group with tasks on every CPU; wake-ups choose
//                       a CPU (select_task_rq()), half the renices become a
//                       load-balancer migration; mainline or v7.3 (flat:1),
//                       without and with every invariant (one checker per CPU;
//                       the F7 family tolerated by default, docs/findings/F7.md).
//
// The stream is generated once, outside the timed loop, as intents: a kind,
// a random selector and an argument. The few state-dependent choices are
// resolved in O(1) when the operation runs, so that every operation is valid:
// sleep and yield act on rq.curr, wake picks one of the sleeping tasks (kept
// in a small array, swap-remove), and a kind that is impossible in the
// current state falls back to a tick. The Rq lives across iterations; nothing
// is allocated per operation. The checked runs see exactly the operations of
// the unchecked run (same stream, same resolution); the operation class given
// to begin_op() is that of the operation actually executed (a wake that falls
// back to a tick is a running-class tick).
//
// A checked run that ends with a violation is reported as an error; the
// operations up to the first violation are printed to stderr as a scenario
// (eevdf-check run / replay reproduce it).
#include <benchmark/benchmark.h>

#include <climits>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "invariants/checker.hpp"
#include "invariants/ids.hpp"
#include "invariants/violation.hpp"
#include "model/profile.hpp"
#include "model/rq.hpp"
#include "model/system.hpp"

namespace {

using eevdf::Refusal;
using eevdf::Rq;
using eevdf::u64;
namespace inv = eevdf::inv;

enum class Kind : std::uint8_t { wake, sleep, run, tick, schedule, yield, renice, create };

struct Op {
  Kind kind;
  std::int8_t nice;   // renice
  std::uint32_t pick; // selector for wake / renice
  std::uint32_t ns;   // run length
};

// An operation as it is executed (after resolution): what the hooks see.
struct Action {
  Kind kind;
  int task = -1;
  int nice = 0;
  u64 ns = 0;
  std::uint32_t cpus = ~std::uint32_t{0};  // several CPUs: those the operation acts on (bit c: CPU c)
};

inv::OpClass op_class(Kind k) {
  switch (k) {
    case Kind::run:
    case Kind::tick:
    case Kind::schedule:
    case Kind::sleep:
      return inv::OpClass::running;
    default:  // wake, yield, renice, create
      return inv::OpClass::placement;
  }
}

constexpr std::size_t kStreamLen = std::size_t{1} << 16;
constexpr std::size_t kBatch = 1024;  // operations per benchmark iteration
constexpr unsigned kSeed = 0xEEFD2026u;

std::vector<Op> make_stream(unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<Op> ops;
  ops.reserve(kStreamLen);
  for (std::size_t i = 0; i < kStreamLen; ++i) {
    Op op{};
    const unsigned r = rng() % 100;
    op.kind = r < 20   ? Kind::wake
              : r < 36 ? Kind::sleep
              : r < 60 ? Kind::run
              : r < 74 ? Kind::tick
              : r < 84 ? Kind::schedule
              : r < 93 ? Kind::yield
                       : Kind::renice;
    op.nice = static_cast<std::int8_t>(static_cast<int>(rng() % 40) - 20);
    op.pick = rng();
    op.ns = 100000 + rng() % 400001;  // 100 .. 500 µs
    ops.push_back(op);
  }
  return ops;
}

// No hooks: the unchecked benchmark (everything inlines away).
struct NoHooks {
  void attach(Rq&) {}
  void begin(const Action&) {}
  void end() {}
};

// The checker around every operation, as scenario/executor.cpp drives it.
class CheckHooks {
 public:
  // incremental: --check incremental (scn::CheckMode), every invariant every kSweepPeriod operations
  explicit CheckHooks(inv::Selection selection, std::vector<Action>* log = nullptr, bool incremental = false)
      : checker_(selection), log_(log), incremental_(incremental) {}
  static constexpr std::int64_t kSweepPeriod = 16;  // scn::ExecOptions::sweep_period
  void attach(Rq& rq) { checker_.attach(rq); }
  void begin(const Action& a) {
    checker_.begin_op(index_ < INT_MAX ? static_cast<int>(index_) : INT_MAX, op_class(a.kind));
    if (log_) log_->push_back(a);
  }
  void end() {
    if (incremental_ && (index_ + 1) % kSweepPeriod != 0) checker_.end_op_incremental();
    else checker_.end_op();
    ++index_;
  }
  const inv::Checker& checker() const { return checker_; }
  std::int64_t ops() const { return index_; }

 private:
  inv::Checker checker_;
  std::vector<Action>* log_;
  bool incremental_;
  std::int64_t index_ = 0;
};

template <class Hooks>
class Driver {
 public:
  // ngroups task groups of default shares below the root; task i joins group i % ngroups.
  Driver(int ntasks, Hooks& hooks, const char* profile = "mainline", int ngroups = 0)
      : rq_(*eevdf::profile_by_name(profile)), hooks_(hooks), n_(ntasks) {
    hooks_.attach(rq_);
    sleeping_.reserve(static_cast<std::size_t>(ntasks));
    for (int g = 0; g < ngroups; ++g) {
      hooks_.begin({Kind::create});
      rq_.create_group("g" + std::to_string(g), -1, 1024);
      hooks_.end();
    }
    for (int i = 0; i < ntasks; ++i) {
      const int nice = (i * 7) % 40 - 20;
      hooks_.begin({Kind::create, i, nice, 0});
      const int id = rq_.create_task(task_name(i), nice, eevdf::Policy::normal, 0, ngroups ? i % ngroups : -1);
      hooks_.end();
      hooks_.begin({Kind::wake, id, 0, 0});
      rq_.wake(id, false);
      hooks_.end();
    }
    hooks_.begin({Kind::schedule});
    rq_.schedule();
    hooks_.end();
  }

  static std::string task_name(int i) { return "t" + std::to_string(i); }

  // Returns false if an entry point refused (an invalid operation slipped through).
  bool apply(const Op& op) {
    switch (op.kind) {
      case Kind::wake:
        if (sleeping_.empty()) return tick();
        {
          const std::size_t k = op.pick % sleeping_.size();
          const int id = sleeping_[k];
          sleeping_[k] = sleeping_.back();
          sleeping_.pop_back();
          hooks_.begin({Kind::wake, id});
          const Refusal r = rq_.wake(id, false);
          hooks_.end();
          return r == Refusal::none;
        }
      case Kind::sleep: {
        // Keep at least one task awake so that the CPU has work.
        if (rq_.curr < 0 || static_cast<int>(sleeping_.size()) >= n_ - 1) return tick();
        const int id = rq_.curr;
        hooks_.begin({Kind::sleep, id});
        const Refusal r = rq_.sleep(id);
        hooks_.end();
        if (r != Refusal::none) return false;
        sleeping_.push_back(id);
        return true;
      }
      case Kind::run:
        hooks_.begin({Kind::run, -1, 0, op.ns});
        rq_.run(op.ns);
        hooks_.end();
        return true;
      case Kind::tick:
        return tick();
      case Kind::schedule:
        hooks_.begin({Kind::schedule});
        rq_.schedule();
        hooks_.end();
        return true;
      case Kind::yield: {
        if (rq_.curr < 0) return tick();
        const int id = rq_.curr;
        hooks_.begin({Kind::yield, id});
        const Refusal r = rq_.yield(id);
        hooks_.end();
        return r == Refusal::none;
      }
      case Kind::renice: {
        const int id = static_cast<int>(op.pick % static_cast<unsigned>(n_));
        hooks_.begin({Kind::renice, id, op.nice});
        const Refusal r = rq_.set_nice(id, op.nice);
        hooks_.end();
        return r == Refusal::none;
      }
      case Kind::create:
        break;
    }
    return false;
  }

  const Rq& rq() const { return rq_; }
  bool oops() const { return rq_.oops; }
  unsigned runnable() const { return rq_.cfs.h_nr_runnable; }

 private:
  bool tick() {
    hooks_.begin({Kind::tick});
    rq_.tick();
    hooks_.end();
    return true;
  }
  Rq rq_;
  Hooks& hooks_;
  int n_;
  std::vector<int> sleeping_;
};

// The timed loop of every benchmark: the stream in batches of kBatch
// operations; reports refusals, an oops, items processed and the mean number
// of runnable tasks (sampled once per batch).
template <class D>
void drive(benchmark::State& state, D& driver) {
  const std::vector<Op> ops = make_stream(kSeed);
  std::size_t cursor = 0;
  bool ok = true;
  double queued_sum = 0;
  for (auto _ : state) {
    for (std::size_t i = 0; i < kBatch; ++i) {
      ok &= driver.apply(ops[cursor]);
      cursor = (cursor + 1) & (kStreamLen - 1);
    }
    queued_sum += driver.runnable();
    benchmark::DoNotOptimize(driver.rq().clock_task);
  }
  if (!ok) state.SkipWithError("an entry point refused an operation");
  if (driver.oops()) state.SkipWithError("the modelled kernel oopsed");
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(kBatch));
  state.counters["runnable"] =
      state.iterations() ? queued_sum / static_cast<double>(state.iterations()) : 0.0;
}

void BM_MixedStream(benchmark::State& state) {
  NoHooks hooks;
  Driver<NoHooks> driver(static_cast<int>(state.range(0)), hooks);
  drive(state, driver);
}

BENCHMARK(BM_MixedStream)->ArgName("tasks")->Arg(4)->Arg(16)->Arg(64)->Arg(256);

// ---- checked runs ----

std::string action_text(const Action& a) {
  const std::string t = a.task >= 0 ? Driver<NoHooks>::task_name(a.task) : std::string();
  switch (a.kind) {
    case Kind::create: return "task " + t + (a.nice ? " nice=" + std::to_string(a.nice) : std::string());
    case Kind::wake: return "wake " + t;
    case Kind::sleep: return "sleep " + t;
    case Kind::run: return "run " + std::to_string(a.ns) + "ns";
    case Kind::tick: return "tick";
    case Kind::schedule: return "schedule";
    case Kind::yield: return "yield " + t;
    case Kind::renice: return "nice " + t + " " + std::to_string(a.nice);
  }
  return "?";
}

// Replays the same stream with the same selection, logging the executed
// operations, up to and including the first violating one, and prints them as
// a scenario on stderr.
void print_reproducer(int ntasks, const inv::Selection& selection, const char* bench) {
  const std::vector<Op> ops = make_stream(kSeed);
  std::vector<Action> log;
  CheckHooks hooks(selection, &log);
  Driver<CheckHooks> driver(ntasks, hooks);
  std::size_t cursor = 0;
  // The violation happened within the benchmark's run; bound the replay generously.
  for (std::int64_t n = 0; !hooks.checker().violated() && n < (std::int64_t{1} << 34); ++n) {
    driver.apply(ops[cursor]);
    cursor = (cursor + 1) & (kStreamLen - 1);
  }
  if (!hooks.checker().violated()) {
    std::fprintf(stderr, "%s: the replay did not reproduce the violation\n", bench);
    return;
  }
  const inv::Violation& v = hooks.checker().violations().front();
  const auto last = static_cast<std::size_t>(v.op_index);
  std::fprintf(stderr, "%s: %s at operation %d (%s)\n", bench, std::string(inv::id_name(v.id)).c_str(), v.op_index,
               last < log.size() ? action_text(log[last]).c_str() : "?");
  std::fprintf(stderr, "%s\n", inv::format_violation(v, last < log.size() ? action_text(log[last]) : "?",
                                                     "mainline").c_str());
  std::fprintf(stderr, "# reproducer: model_bench %s, seed 0x%X, %d tasks, ops 0..%d\nprofile mainline\n", bench,
               kSeed, ntasks, v.op_index);
  for (std::size_t i = 0; i <= last && i < log.size(); ++i) std::fprintf(stderr, "%s\n", action_text(log[i]).c_str());
  std::fprintf(stderr, "expect violation %s\n", std::string(inv::id_name(v.id)).c_str());
}

void run_checked(benchmark::State& state, const inv::Selection& selection, const std::string& label,
                 bool incremental = false) {
  const int ntasks = static_cast<int>(state.range(0));
  CheckHooks hooks(selection, nullptr, incremental);
  Driver<CheckHooks> driver(ntasks, hooks);
  drive(state, driver);
  if (hooks.checker().violated()) {
    const inv::Violation& v = hooks.checker().violations().front();
    const std::string msg = "invariant " + std::string(inv::id_name(v.id)) + " violated at operation " +
                            std::to_string(v.op_index) + " (model/checker bug; reproducer on stderr)";
    state.SkipWithError(msg.c_str());
    print_reproducer(ntasks, selection, label.c_str());
  }
}

void BM_checked(benchmark::State& state) {
  run_checked(state, inv::Selection{}, "BM_checked/tasks:" + std::to_string(state.range(0)));
}

BENCHMARK(BM_checked)->ArgName("tasks")->Arg(4)->Arg(16)->Arg(64);

// The same with --check incremental's checker (a full sweep every 16 operations).
void BM_checked_incremental(benchmark::State& state) {
  run_checked(state, inv::Selection{}, "BM_checked_incremental/tasks:" + std::to_string(state.range(0)), true);
}

BENCHMARK(BM_checked_incremental)->ArgName("tasks")->Arg(4)->Arg(16)->Arg(64);

// Task groups: 64 tasks in 4 groups of default shares.
void BM_groups(benchmark::State& state) {
  const char* profile = state.range(0) ? "v7.3" : "mainline";
  constexpr int kTasks = 64, kGroups = 4;
  if (!state.range(1)) {
    NoHooks hooks;
    Driver<NoHooks> driver(kTasks, hooks, profile, kGroups);
    drive(state, driver);
    return;
  }
  CheckHooks hooks(inv::Selection{}, nullptr, state.range(1) == 2);  // checked:2: --check incremental
  Driver<CheckHooks> driver(kTasks, hooks, profile, kGroups);
  drive(state, driver);
  if (hooks.checker().violated()) {
    const inv::Violation& v = hooks.checker().violations().front();
    const std::string msg = "invariant " + std::string(inv::id_name(v.id)) + " violated at operation " +
                            std::to_string(v.op_index) + " on " + profile + " with groups";
    state.SkipWithError(msg.c_str());
  }
}

BENCHMARK(BM_groups)->ArgNames({"flat", "checked"})->Args({0, 0})->Args({0, 1})->Args({0, 2})->Args({1, 0})->Args({1, 1})->Args({1, 2});

// ---- several CPUs with task groups ----

struct SmpNoHooks {
  void attach(eevdf::System&) {}
  void begin(const Action&) {}
  void end() {}
};

// One checker per CPU around every operation, the largest slice shared, as
// scenario/executor.cpp drives them: the CPUs an operation acts on are checked
// after it, every CPU every kSweepPeriod operations (inv::end_ops_touched()).
class SmpCheckHooks {
 public:
  explicit SmpCheckHooks(inv::Selection selection, bool incremental = false)
      : selection_(selection), incremental_(incremental) {}
  void attach(eevdf::System& sys) {
    sys_ = &sys;
    for (unsigned c = 0; c < sys.size(); ++c) {
      checkers_.push_back(std::make_unique<inv::Checker>(selection_));
      checkers_.back()->attach(sys.rq(c));
    }
  }
  static constexpr std::int64_t kSweepPeriod = 16;  // scn::ExecOptions::sweep_period
  void begin(const Action& a) {
    for (auto& c : checkers_) c->begin_op(index_ < INT_MAX ? static_cast<int>(index_) : INT_MAX, op_class(a.kind));
    touched_ = a.cpus;
  }
  void end() {
    inv::end_ops_touched(*sys_, checkers_, touched_, (index_ + 1) % kSweepPeriod == 0, incremental_);
    ++index_;
  }
  const inv::Violation* first_violation() const {
    for (const auto& c : checkers_)
      if (c->violated()) return &c->violations().front();
    return nullptr;
  }

 private:
  inv::Selection selection_;
  bool incremental_;
  eevdf::System* sys_ = nullptr;
  std::vector<std::unique_ptr<inv::Checker>> checkers_;
  std::int64_t index_ = 0;
  std::uint32_t touched_ = ~std::uint32_t{0};
};

// The stream of BM_groups on kCpus CPUs: task i is in group i % ngroups and
// first woken on CPU (i / ngroups) % kCpus, so every group has tasks on every
// CPU. sleep and yield act on the running task of CPU pick % kCpus; a wake-up
// goes to CPU (pick >> 16) % kCpus (a migration when that is another CPU);
// a renice with an odd pick is a migration of a task that is not running to
// CPU (pick >> 16) % kCpus; run, tick and schedule act on every CPU.
template <class Hooks>
class SmpDriver {
 public:
  static constexpr unsigned kCpus = 4;
  // log: the executed operations as scenario lines (for a reproducer), or nullptr.
  SmpDriver(int ntasks, Hooks& hooks, const char* profile, int ngroups, std::vector<std::string>* log = nullptr)
      : sys_(*eevdf::profile_by_name(profile), kCpus), hooks_(hooks), n_(ntasks), log_(log) {
    hooks_.attach(sys_);
    sleeping_.reserve(static_cast<std::size_t>(ntasks));
    for (int g = 0; g < ngroups; ++g) {
      note([&] { return "group g" + std::to_string(g); });
      hooks_.begin({Kind::create});
      sys_.create_group("g" + std::to_string(g), -1, 1024);
      hooks_.end();
    }
    for (int i = 0; i < ntasks; ++i) {
      const int nice = (i * 7) % 40 - 20;
      note([&] { return "task t" + std::to_string(i) + " nice=" + std::to_string(nice) + " group=g" + std::to_string(i % ngroups); });
      hooks_.begin({Kind::create, i, nice, 0, on(0)});
      const int id = sys_.rq(0).create_task(Driver<NoHooks>::task_name(i), nice, eevdf::Policy::normal, 0, i % ngroups);
      hooks_.end();
      const int first_cpu = static_cast<int>(static_cast<unsigned>(i / ngroups) % kCpus);
      note([&] { return "wake t" + std::to_string(id) + " cpu=" + std::to_string(first_cpu); });
      hooks_.begin({Kind::wake, id, 0, 0, on(sys_.rq_of(id).cpu) | on(first_cpu)});
      sys_.wake(id, false, first_cpu);
      hooks_.end();
    }
    note([] { return std::string("schedule"); });
    hooks_.begin({Kind::schedule});
    sys_.schedule();
    hooks_.end();
  }

  bool apply(const Op& op) {
    const unsigned cpu = op.pick % kCpus;
    const int target = static_cast<int>((op.pick >> 16) % kCpus);
    switch (op.kind) {
      case Kind::wake: {
        if (sleeping_.empty()) return tick();
        const std::size_t k = op.pick % sleeping_.size();
        const int id = sleeping_[k];
        sleeping_[k] = sleeping_.back();
        sleeping_.pop_back();
        note([&] { return "wake t" + std::to_string(id) + " cpu=" + std::to_string(target); });
        hooks_.begin({Kind::wake, id, 0, 0, on(sys_.rq_of(id).cpu) | on(target)});
        const Refusal r = sys_.wake(id, false, target);
        hooks_.end();
        return r == Refusal::none;
      }
      case Kind::sleep: {
        Rq& rq = sys_.rq(cpu);
        if (rq.curr < 0 || static_cast<int>(sleeping_.size()) >= n_ - 1) return tick();
        const int id = rq.curr;
        note([&] { return "sleep t" + std::to_string(id); });
        hooks_.begin({Kind::sleep, id, 0, 0, on(static_cast<int>(cpu))});
        const Refusal r = rq.sleep(id);
        hooks_.end();
        if (r != Refusal::none) return false;
        sleeping_.push_back(id);
        return true;
      }
      case Kind::run:
        note([&] { return "run " + std::to_string(op.ns) + "ns"; });
        hooks_.begin({Kind::run, -1, 0, op.ns});
        sys_.run(op.ns);
        hooks_.end();
        return true;
      case Kind::tick: return tick();
      case Kind::schedule:
        note([] { return std::string("schedule"); });
        hooks_.begin({Kind::schedule});
        sys_.schedule();
        hooks_.end();
        return true;
      case Kind::yield: {
        Rq& rq = sys_.rq(cpu);
        if (rq.curr < 0) return tick();
        const int id = rq.curr;
        note([&] { return "yield t" + std::to_string(id); });
        hooks_.begin({Kind::yield, id, 0, 0, on(static_cast<int>(cpu))});
        const Refusal r = rq.yield(id);
        hooks_.end();
        return r == Refusal::none;
      }
      case Kind::renice: {
        const int id = static_cast<int>(op.pick % static_cast<unsigned>(n_));
        Rq& rq = sys_.rq_of(id);
        if (op.pick & 1u && rq.curr != id) {
          note([&] { return "migrate t" + std::to_string(id) + " " + std::to_string(target); });
          hooks_.begin({Kind::wake, id, 0, 0, on(rq.cpu) | on(target)});  // a placement-class operation, as migrate is
          const Refusal r = sys_.migrate(id, target);
          hooks_.end();
          return r == Refusal::none;
        }
        note([&] { return "nice t" + std::to_string(id) + " " + std::to_string(op.nice); });
        hooks_.begin({Kind::renice, id, op.nice, 0, on(rq.cpu)});
        const Refusal r = rq.set_nice(id, op.nice);
        hooks_.end();
        return r == Refusal::none;
      }
      case Kind::create: break;
    }
    return false;
  }

  const Rq& rq() const { return sys_.rq(0); }
  bool oops() const { return sys_.oops(); }
  unsigned runnable() const {
    unsigned n = 0;
    for (unsigned c = 0; c < kCpus; ++c) n += sys_.rq(c).cfs.h_nr_runnable;
    return n;
  }

 private:
  template <class F>
  void note(F line) {
    if (log_) log_->push_back(line());
  }
  static std::uint32_t on(int cpu) { return std::uint32_t{1} << cpu; }
  bool tick() {
    note([] { return std::string("tick"); });
    hooks_.begin({Kind::tick});
    sys_.tick();
    hooks_.end();
    return true;
  }
  eevdf::System sys_;
  Hooks& hooks_;
  int n_;
  std::vector<std::string>* log_;
  std::vector<int> sleeping_;
};

// Replays BM_smp_groups' checked run with a log up to its first violation and
// prints the operations as a scenario on stderr (eevdf-check run / minimize).
void print_smp_reproducer(const char* profile, int ntasks, int ngroups, const inv::Selection& selection) {
  const std::vector<Op> ops = make_stream(kSeed);
  std::vector<std::string> log;
  SmpCheckHooks hooks(selection);
  SmpDriver<SmpCheckHooks> driver(ntasks, hooks, profile, ngroups, &log);
  std::size_t cursor = 0;
  for (std::int64_t n = 0; !hooks.first_violation() && n < (std::int64_t{1} << 30); ++n) {
    driver.apply(ops[cursor]);
    cursor = (cursor + 1) & (kStreamLen - 1);
  }
  const inv::Violation* v = hooks.first_violation();
  if (!v) return;
  std::fprintf(stderr, "# reproducer: model_bench BM_smp_groups, seed 0x%X, ops 0..%d\nprofile %s\nrunqueues %u\n",
               kSeed, v->op_index, profile, SmpDriver<SmpCheckHooks>::kCpus);
  for (std::size_t i = 0; i <= static_cast<std::size_t>(v->op_index) && i < log.size(); ++i)
    std::fprintf(stderr, "%s\n", log[i].c_str());
  std::fprintf(stderr, "expect violation %s\n", std::string(inv::id_name(v->id)).c_str());
}

// 64 tasks in 4 groups of default shares on 4 CPUs.
void BM_smp_groups(benchmark::State& state) {
  const char* profile = state.range(0) ? "v7.3" : "mainline";
  constexpr int kTasks = 64, kGroups = 4;
  if (!state.range(1)) {
    SmpNoHooks hooks;
    SmpDriver<SmpNoHooks> driver(kTasks, hooks, profile, kGroups);
    drive(state, driver);
    return;
  }
  // Every invariant, with the default tolerances: with the shares of a group
  // spread over CPUs, update_cfs_group() reweights queued and running group
  // entities at ordinary ticks, enqueues and dequeues, and this stream reaches
  // the documented F7 finding (docs/findings/F7.md) within a few thousand operations.
  inv::Selection selection;
  SmpCheckHooks hooks(selection, state.range(1) == 2);  // checked:2: --check incremental
  SmpDriver<SmpCheckHooks> driver(kTasks, hooks, profile, kGroups);
  drive(state, driver);
  if (const inv::Violation* v = hooks.first_violation()) {
    const std::string msg = "invariant " + std::string(inv::id_name(v->id)) + " violated at operation " +
                            std::to_string(v->op_index) + " on " + profile + " with groups on 4 CPUs (reproducer on stderr)";
    state.SkipWithError(msg.c_str());
    print_smp_reproducer(profile, kTasks, kGroups, selection);
  }
}

BENCHMARK(BM_smp_groups)->ArgNames({"flat", "checked"})->Args({0, 0})->Args({0, 1})->Args({0, 2})->Args({1, 0})->Args({1, 1})->Args({1, 2});

// One family of invariants at a time (invariants/checker.hpp lists them).
struct Family {
  const char* name;
  std::initializer_list<inv::Id> ids;
};
const Family kFamilies[] = {
    {"none", {}},
    {"accounting", {inv::Id::SUM, inv::Id::CNT}},
    {"tree", {inv::Id::AUG}},
    {"average", {inv::Id::ELIG, inv::Id::AVG0, inv::Id::NULLPICK, inv::Id::KEY}},
    {"lag", {inv::Id::LAG}},
    {"deadline", {inv::Id::DL, inv::Id::PROT, inv::Id::SLICE}},
    {"delay", {inv::Id::DELAY}},
    {"pick", {inv::Id::PICKOPT}},
    {"reweight", {inv::Id::RW}},
    {"arithmetic", {inv::Id::OVF, inv::Id::WARN}},
    {"mono", {inv::Id::MONO}},
    // not in the list: I-FAIR (invariants/fairness.cpp, window-based)
    {"fair", {inv::Id::FAIR}},
};

inv::Selection only(std::initializer_list<inv::Id> ids) {
  inv::Selection s;
  s.on.fill(false);
  for (inv::Id id : ids) s.set(id, true);
  return s;
}

const bool kFamiliesRegistered = [] {
  for (const Family& f : kFamilies) {
    const inv::Selection selection = only(f.ids);
    const std::string name = "BM_checked_family/" + std::string(f.name);
    benchmark::RegisterBenchmark(name.c_str(),
                                 [selection, name](benchmark::State& state) {
                                   run_checked(state, selection, name + "/tasks:" + std::to_string(state.range(0)));
                                 })
        ->ArgName("tasks")
        ->Arg(16);
  }
  return true;
}();

}  // namespace

BENCHMARK_MAIN();
