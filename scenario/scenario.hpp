// The operation language: a scenario is a profile plus a sequence of
// task-level operations and expectations, one a line (see
// docs/scenario-language.md). This header is the in-memory form shared by the
// parser, the printer, the byte decoder, the executor and the shrinker.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/kernel_types.hpp"
#include "model/sched.hpp"

namespace eevdf::scn {

enum class OpKind : std::uint8_t {
  // task operations (kernel entry points)
  create,    // task NAME [nice=N] [policy=normal|batch|idle|fifo] [slice=DUR]  (fifo: an RT task, no nice/slice)
  fork,      // fork PARENT -> CHILD
  wake,      // wake NAME [sync]
  sleep,     // sleep NAME          (NAME must be on the CPU)
  run,       // run DUR             (ticks at every TICK_NSEC boundary)
  tick,      // tick [nopreempt]    (to the next tick boundary; nopreempt: nothing honoured, before or after)
  schedule,  // schedule
  yield,     // yield NAME          (NAME must be on the CPU)
  nice,      // nice NAME N
  policy,    // policy NAME normal|batch|idle
  slice,     // slice NAME DUR      (sched_setattr runtime; 0 = base slice)
  exit,      // exit NAME           (NAME must be on the CPU)
  // positional expectations, checked after the previous operation
  expect_curr,   // expect curr NAME|idle
  expect_field,  // expect field NAME.FIELD OP VALUE [cpu=N]  (cpu=: a group's entity on CPU N)
  // task groups (cgroup cpu controller, on every CPU); after the expect kinds so
  // that the task operations keep their values
  group_create,  // group NAME [shares=N] [parent=GROUP]
  move,          // move TASK GROUP|root      (sched_move_task)
  shares,        // shares GROUP N            (cpu.shares: sched_group_set_shares)
  group_idle,    // group_idle GROUP 0|1      (cpu.idle: sched_group_set_idle)
  // several CPUs (runqueues N > 1); after the group kinds, same reason
  migrate,       // migrate NAME CPU          (load balancer: detach_task + attach_task)
  // the sched debugfs reader; after migrate, same reason
  debug_read,    // debug_read [GROUP|root] [cpu=N] [racing]  (print_cfs_rq(): avg_vruntime() of a queue)
  // a positional expectation on a cfs_rq; after debug_read, same reason
  expect_queue,  // expect queue root|GROUP.FIELD OP VALUE [cpu=N]
  // time without the tick grid; after expect_queue, same reason
  run_notick,    // run DUR notick     (the clock advances, no tick: a nohz_full CPU)
  tick_after,    // tick DUR           (the clock advances by DUR, then one sched_tick())
  // A tunable written mid-run and cgroup removal; after tick_after, same reason
  base_slice,    // base_slice_ns DUR  (a debugfs write of sched/base_slice_ns: sysctl_sched_base_slice)
  group_destroy, // group_destroy GROUP (cgroup rmdir: unregister_fair_sched_group(); the name is gone)
  // CPU bandwidth control; after group_destroy, same reason
  quota,         // quota GROUP QUOTA/PERIOD|max [burst=DUR]  (cpu.max: tg_set_cfs_bandwidth())
  return_to_user,  // return_to_user NAME  (the running task's throttle work: throttle_cfs_rq_work(), v6.18)
};

enum class CmpOp : std::uint8_t { eq, ne, lt, le, gt, ge };

struct Op {
  OpKind kind = OpKind::schedule;
  std::string task;      // the task the operation acts on ("idle" for expect_curr idle;
                         // expect_queue of `next`: the entity expected, a task or group, "" for none)
  std::string child;     // fork: the child's name
  // One field, a meaning per kind: read it through the accessors below, which
  // name the meaning (the operation table's Arg kinds, scenario/op_table.hpp).
  s64 value = 0;
  Policy policy = Policy::normal;  // create, policy
  bool sync = false;     // wake
  bool nopreempt = false;  // tick: sched_tick() with preemption disabled, a pending reschedule stays pending
  bool racing = false;   // fork: the copy races a sched_change of the parent (Rq::fork_task);
                         // debug_read: the reader's loads come before the next operation, its stores after it
  std::string field;     // expect_field, expect_queue: a field of scenario/expect_fields.hpp
  CmpOp cmp = CmpOp::eq; // expect_field, expect_queue
  int line = 0;          // 1-based source line, 0 when generated
  s64 slice = 0;         // create: slice=DUR in ns (0 = base slice); added for the parser
  // Task groups: the group acted on (group_create, shares, group_idle), the
  // task's group (create: group=; move: the target), the queue a debug_read
  // reads, and the queue an expect_queue reads. Empty = the root group.
  std::string group;
  std::string parent;    // group_create: parent=GROUP (empty = root)
  // Several CPUs: wake cpu=N (select_task_rq's answer), the target of
  // migrate, the CPU of expect curr, expect queue and debug_read. -1 = not given (the
  // task's own CPU; CPU 0 for expect curr, expect queue and debug_read).
  int cpu = -1;
  // wake without cpu= on several CPUs: the CPU the wake-up is made from
  // (select_task_rq_fair()'s smp_processor_id()); -1 = the task's own.
  int from = -1;
  // quota: cpu.max's period in ns (0 with `max`: the group's own) and
  // burst= (cpu.max.burst) in ns (-1: not written, the group's own)
  s64 period = 0;
  s64 burst = -1;

  int nice_level() const { return static_cast<int>(value); }   // create (nice=), nice: -20..19
  u64 duration_ns() const { return static_cast<u64>(value); }  // run, run_notick, tick_after: the time to run
  u64 slice_ns() const { return static_cast<u64>(value); }     // slice: the requested slice (0: base); create has `slice`
  u64 shares() const { return static_cast<u64>(value); }       // group_create (shares=), shares: cpu.shares
  u64 base_slice_ns() const { return static_cast<u64>(value); } // base_slice: the value written, ns
  bool idle() const { return value != 0; }                     // group_idle: cpu.idle
  bool quota_max() const { return value < 0; }                 // quota: cpu.max "max"
  u64 quota_ns() const { return static_cast<u64>(value); }     // quota: the quota, ns (not max)
  s64 expected_value() const { return value; }                 // expect_field, expect_queue: the value compared with
};

inline constexpr s64 kDefaultShares = 1024;  // cpu.shares of a new group (NICE_0_LOAD unscaled)

// Whole-run expectations.
struct Expectation {
  enum class Kind : std::uint8_t { violation, no_violation } kind = Kind::no_violation;
  std::string invariant;  // "I-DL" for a violation
  int at_line = 0;        // expect violation I-X at LINE: the op on that line raises it (0 = anywhere)
  int line = 0;           // where the expect line is
};

// What a scenario runs on: the model, the kernel's own fair.c (kernelsrc/),
// or both in lockstep (every operation on both, compared after each one).
// The directive `backend NAME`, the command line's --backend; ExecOptions::backend.
enum class Backend : std::uint8_t { model, kernel, lockstep };
const char* backend_name(Backend b);  // "model", "kernel", "lockstep"
std::optional<Backend> backend_from_name(const std::string& name);

struct Scenario {
  std::string title;              // from a leading "# ..." comment line, if any
  std::string profile = "mainline";
  int profile_line = 0;           // the line of the `profile` directive (0: none: the kernel backend's tree then chooses)
  std::string features;           // debugfs syntax as written: "NO_NEXT_BUDDY,PARANOID_AVG"
  std::string bug;                // bug=ID (later issue); empty = none
  unsigned cpus = 8;              // tunable: online CPUs (base slice factor; WF_RQ_SELECTED)
  unsigned hz = 1000;
  unsigned runqueues = 1;         // CPUs modelled, each with its own runqueue (model/system.hpp)
  unsigned smt = 1;               // `smt N`: CPUs kN .. kN+N-1 are SMT siblings (1: none; model/wake_cpu.hpp)
  std::optional<s64> base_slice;  // normalized base slice in ns, if set
  // Run settings: what the checker checks and tolerates, and what it runs on
  // (the directives `skip`, `tolerate`, `keep_going` and `backend`, the command
  // line's --skip, --no-tolerance, --keep-going and --backend; applied by
  // scenario/run_settings.hpp, not by execute(), which takes ExecOptions as given).
  std::vector<std::string> skip;  // invariants not checked, "I-AUG", in the order written
  bool tolerate = true;           // false: `tolerate none`, report the documented findings F1, F6, F7, F9
  bool keep_going = false;        // `keep_going`: run on after the first violation (--keep-going)
  Backend backend = Backend::model;  // `backend kernel|lockstep`: what it runs on (--backend)
  int backend_line = 0;              // the line of the `backend` directive (0: none, or built in code)
  std::vector<Op> ops;
  std::vector<Expectation> expectations;
};

}  // namespace eevdf::scn
