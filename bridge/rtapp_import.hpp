// rt-app workloads (github.com/scheduler-tools/rt-app, doc/tutorial.txt) read
// into the model: the fair-class subset that one CPU without task groups can
// replay. Supported: "global" (duration, default_policy and rt-app's
// run-environment keys, which are ignored), per task "instance", "loop",
// "policy" (SCHED_OTHER/SCHED_NORMAL, SCHED_BATCH, SCHED_IDLE), "priority"
// (the nice level), "delay", "taskgroup" (a cgroup path, "/a/b": the groups
// are created with default cpu.shares, each named after its path, "a", "a_b"),
// "cpus" (accepted on one CPU, where it changes nothing; an error on
// several, where the model has no affinity),
// "dl-runtime" (for a fair task: the custom slice, sched_runtime, as rt-app's
// doc/examples/custom-slice.json does), "phases" (each with "loop" and its own
// policy/priority/dl-runtime), and the events "run", "runtime", "sleep",
// "timer" (relative or absolute; "unique" refs per thread, others shared),
// "yield", "suspend" and "resume". C comments are accepted as rt-app's parser
// does. Anything else is an error that names the key and the thread.
#pragma once

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "bridge/sim.hpp"
#include "scenario/scenario.hpp"

namespace eevdf::bridge {

struct RtEvent {
  enum class Kind : std::uint8_t { run, runtime, sleep, timer, yield, suspend, resume } kind = Kind::run;
  u64 ns = 0;           // run/runtime/sleep: duration; timer: period
  std::string ref;      // timer: the timer's name; resume: the rt-app task to wake
  bool absolute = false;  // timer mode (rt-app's default is relative)
  std::string key;      // as written, e.g. "run0"
};

// Scheduling parameters a task or a phase sets (a phase only changes what it names).
struct RtSched {
  std::optional<Policy> policy;
  std::optional<int> nice;        // "priority" of a fair task
  std::optional<u64> slice_ns;    // "dl-runtime" of a fair task: the custom slice (sched_runtime)
  std::optional<std::string> taskgroup;  // the thread's cgroup path (a task's key only)
  bool pinned = false;            // "cpus" given
};

struct RtPhase {
  std::string name;
  long long loop = 1;
  RtSched sched;
  std::vector<RtEvent> events;
};

struct RtThread {
  std::string name;     // a scenario task name: the rt-app name, made an identifier, with _<instance> if several
  std::string rtapp_name;
  Policy policy = Policy::normal;
  int nice = 0;
  u64 slice_ns = 0;     // custom slice, 0 = base slice
  u64 delay_ns = 0;
  long long loop = -1;  // -1: until the end of the run
  std::vector<std::string> groups;  // its taskgroup: scenario group names, outermost first (empty: root)
  bool pinned = false;  // it has "cpus"
  std::vector<RtPhase> phases;
};

struct RtWorkload {
  std::optional<u64> duration_ns;  // global.duration when > 0
  std::vector<RtThread> threads;
};

// Parses rt-app JSON. On error: "FILE: where: reason".
std::variant<RtWorkload, std::string> parse_rtapp(const std::string& text, const std::string& file);

struct RtRun {
  scn::Scenario scenario;  // the operations the run performed, replayable with `eevdf-check run`
  SimResult result;
};

// Replays the workload on profile for duration_ns of simulated time, on
// `cpus` runqueues with `smt` SMT siblings a core. On several CPUs a thread's
// first wake-up places it on CPU (its index mod cpus), a stand-in for the fork
// balancing the model does not have; every later wake-up lands where
// select_task_rq_fair() puts it: a timer's or a sleep's end wakes it from the
// CPU it slept on, a "resume" from the resumer's CPU. A workload with "cpus"
// is refused there (error), as the model has no affinity.
RtRun simulate_rtapp(const RtWorkload& w, const Profile& profile, u64 duration_ns, bool keep_samples = true,
                     inv::Tolerances tolerances = {}, unsigned cpus = 1, unsigned smt = 1);

}  // namespace eevdf::bridge
