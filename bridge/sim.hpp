// A fine-grained run of a workload on the model, with every invariant on:
// operations are applied one at a time through the executor's one
// apply_operation() (scenario/executor.hpp), a `run` is cut at every tick
// boundary so that the task on the CPU is known for every nanosecond, and the
// scheduling events the comparison and the report need are counted. Used by
// `compare`, `report`, `export` and the rt-app importer.
//
// On several CPUs (a System of N runqueues, the scenario's `runqueues`) every
// CPU is advanced and counted the same way; a `wake` without `cpu=` lands
// where select_task_rq_fair() puts it, and where it lands is counted
// (Placement). Samples (the HTML report) have each CPU's V and each task on its
// own CPU.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "scenario/scenario.hpp"
#include "invariants/checker.hpp"
#include "model/rq.hpp"
#include "model/system.hpp"

namespace eevdf::bridge {

// The state of every task at one instant (after an operation or a tick).
struct TaskSample {
  char state = 'n';  // r running, q queued, d delayed, s sleeping, n new, x dead
  s64 vruntime = 0;  // (s64) of the wrapping u64, as the kernel's casts read it
  s64 deadline = 0;
  s64 vprot = 0;
  s64 lag = 0;       // V - vruntime (virtual ns) while queued, else vlag
  u64 weight = 0;
  int cpu = 0;       // the CPU the task is on
};

struct Sample {
  u64 clock = 0;
  int op_index = -1;       // the operation this sample belongs to (-1: the start)
  int curr = -1;           // task index or -1 (idle), on CPU 0
  s64 avg_vruntime = 0;    // V of CPU 0's rq->cfs, (s64)
  std::vector<s64> cpu_avg_vruntime;  // V of each CPU's rq->cfs (CPU 0's first)
  std::vector<TaskSample> tasks;
};

struct TaskMetrics {
  std::string name;
  u64 runtime = 0;             // ns on the CPU
  double ideal_runtime = 0;    // ns: weight / Σ runnable weights, integrated over time
  std::vector<u64> wake_latency;  // ns from wake-up to first time on the CPU, in order
  s64 lag_min = 0, lag_max = 0;   // extremes of V - vruntime while queued (virtual ns)
  u64 wakeups = 0;
};

struct Counters {
  u64 reschedules = 0;          // __schedule() calls caused by need_resched (tick or wake-up)
  u64 wakeup_preemptions = 0;   // wake-ups (and renices) that set need_resched on a running task
  u64 context_switches = 0;     // changes of the task on the CPU (idle included)
};

// Where wake-ups of sleeping tasks landed (a task's first wake-up, and a
// wake-up of a task still queued as delayed, do not choose and are not counted).
struct Placement {
  u64 on_waker_cpu = 0;  // the waking CPU, which was not the task's previous one (wake_affine() pulled it)
  u64 on_prev_cpu = 0;   // the CPU it slept on
  u64 on_other_cpu = 0;  // neither: an idle CPU select_idle_sibling() found
  std::vector<u64> per_cpu;  // wake-ups (every kind) by the CPU they landed on
};

struct SimResult {
  std::vector<Sample> samples;
  std::vector<TaskMetrics> tasks;
  Counters counters;
  Placement placement;
  unsigned cpus = 1;
  std::vector<inv::Violation> violations;
  std::string error;         // an operation the model refused (strict), or a bad profile
  int error_op = -1;
  u64 end_clock = 0;
  bool oops = false;
};

class Sim {
 public:
  // keep_going: continue after the first violation (compare, rt-app runs).
  // cpus runqueues, smt SMT siblings a core (the scenario's directives; both
  // valid: runqueues_refusal(), smt_refusal()).
  Sim(const Profile& profile, bool keep_going, inv::Tolerances tolerances = {}, bool keep_samples = true,
      unsigned cpus = 1, unsigned smt = 1);
  ~Sim();
  Sim(const Sim&) = delete;
  Sim& operator=(const Sim&) = delete;

  // Applies one operation (expectation operations are counted, not judged). Returns false
  // when the model refused it (the reason is in result().error) or a
  // violation stopped the run.
  bool apply(const scn::Op& op);
  bool stopped() const { return stopped_; }

  // CPU 0's runqueue (the lone one on one CPU), and a task's own
  const Rq& rq() const { return sys_->rq(0); }
  const Rq& rq_of(int task) const { return sys_->rq_of(task); }
  const System& system() const { return *sys_; }
  int task_index(const std::string& name) const;
  int ops() const { return op_index_; }
  // Time task id has had on the CPU so far (exact, accounted per interval).
  u64 runtime_of(int id) const {
    return id >= 0 && static_cast<std::size_t>(id) < r_.tasks.size() ? r_.tasks[static_cast<std::size_t>(id)].runtime : 0;
  }
  // Finishes the metrics (the last interval) and returns everything.
  SimResult finish();

 private:
  struct Fwd;
  Profile profile_;
  bool keep_going_, keep_samples_;
  std::unique_ptr<System> sys_;  // operations go through scn::apply_operation(), as the executor's
  std::vector<std::unique_ptr<inv::Checker>> checkers_;  // one a CPU, as the executor's
  std::vector<std::unique_ptr<Fwd>> fwds_;
  SimResult r_;
  int op_index_ = 0;
  bool stopped_ = false;
  std::vector<std::string> names_;
  std::vector<int> ids_;
  std::vector<long long> pending_wake_;  // clock of an unanswered wake-up, -1 if none
  std::vector<int> last_curr_;          // by CPU
  // By CPU, what a step or a wake-up compares with after it (kept between
  // calls: no allocation per operation)
  struct CpuBefore {
    u64 schedule_picks = 0;
    bool need_resched = false;
    bool fair_running = false;
    double runnable_weight = 0;  // account(): Σ weights of its runnable, non-delayed tasks
  };
  std::vector<CpuBefore> before_;

  u64 clock() const { return sys_->rq(0).clock_task; }
  bool violated() const;
  u64 schedule_picks() const;
  void sample();
  void advance(u64 ns);             // clock moves with the current task on each CPU
  void schedule_if_needed();        // what Rq::run() does before advancing, on each CPU
  void account(u64 from, u64 to);   // runtime and ideal share over [from, to), on each CPU
  void after_switch();              // on each CPU
  void count_wake(int id, int prev_cpu, int from);  // reads before_
  void add_task(const std::string& name, int id);
};

// Runs a whole scenario (no expectations judged), on its runqueues and SMT
// siblings. Strict like `run`.
SimResult simulate(const scn::Scenario& s, const Profile& profile, bool keep_going, bool keep_samples = true,
                   inv::Tolerances tolerances = {});

// p-th percentile (nearest rank) of a list, 0 if empty.
u64 percentile(std::vector<u64> values, double p);

}  // namespace eevdf::bridge
