// A fine-grained run of a workload on the model, with every invariant on:
// operations are applied one at a time through the executor's one
// apply_operation() (scenario/executor.hpp), a `run` is cut at every tick
// boundary so that the task on the CPU is known for every nanosecond, and the
// scheduling events the comparison and the report need are counted. Used by
// `compare`, `report`, `export` and the rt-app importer.
//
// Only one CPU is modelled (a System of one runqueue); a workload that needs
// more is refused by its reader.
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
};

struct Sample {
  u64 clock = 0;
  int op_index = -1;       // the operation this sample belongs to (-1: the start)
  int curr = -1;           // task index or -1 (idle)
  s64 avg_vruntime = 0;    // V, (s64)
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

struct SimResult {
  std::vector<Sample> samples;
  std::vector<TaskMetrics> tasks;
  Counters counters;
  std::vector<inv::Violation> violations;
  std::string error;         // an operation the model refused (strict), or a bad profile
  int error_op = -1;
  u64 end_clock = 0;
  bool oops = false;
};

class Sim {
 public:
  // keep_going: continue after the first violation (compare, rt-app runs).
  Sim(const Profile& profile, bool keep_going, inv::Tolerances tolerances = {}, bool keep_samples = true);
  ~Sim();
  Sim(const Sim&) = delete;
  Sim& operator=(const Sim&) = delete;

  // Applies one operation (expectation operations are counted, not judged). Returns false
  // when the model refused it (the reason is in result().error) or a
  // violation stopped the run.
  bool apply(const scn::Op& op);
  bool stopped() const { return stopped_; }

  const Rq& rq() const { return *rq_; }
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
  std::unique_ptr<System> sys_;  // one CPU: operations go through scn::apply_operation(), as the executor's
  Rq* rq_ = nullptr;             // its runqueue
  std::unique_ptr<inv::Checker> checker_;
  std::unique_ptr<Fwd> fwd_;
  SimResult r_;
  int op_index_ = 0;
  bool stopped_ = false;
  std::vector<std::string> names_;
  std::vector<int> ids_;
  std::vector<long long> pending_wake_;  // clock of an unanswered wake-up, -1 if none
  int last_curr_ = -1;

  void sample();
  void advance(u64 ns);             // clock moves with the current task on the CPU
  void schedule_if_needed();        // what Rq::run() does before advancing
  void account(u64 from, u64 to);   // runtime and ideal share over [from, to)
  void after_switch();
  void add_task(const std::string& name, int id);
};

// Runs a whole scenario (no expectations judged). Strict like `run`.
SimResult simulate(const scn::Scenario& s, const Profile& profile, bool keep_going, bool keep_samples = true,
                   inv::Tolerances tolerances = {});

// p-th percentile (nearest rank) of a list, 0 if empty.
u64 percentile(std::vector<u64> values, double p);

}  // namespace eevdf::bridge
