// Several CPUs: one runqueue (model/rq.hpp) per CPU, a task table shared by
// all of them, one wall clock, and the paths that move a task between CPUs
// (kernel/sched/core.c: try_to_wake_up() with select_task_rq(), the load
// balancer's detach_task()/attach_task() in fair.c; newest mainline, v7.2; also v7.3, v7.1).
//
// Time: every CPU's rq_clock_task() is the wall clock. `run` advances it in
// steps that end at the TICK_NSEC boundaries; at each step CPU 0, 1, .. N-1
// run in this order (Rq::run over the step: a pending reschedule first, then
// the tick at the boundary). CPUs do not interact while time passes: there is
// no load balancing of its own; tasks move only by `wake ... cpu=N` and
// `migrate`. With one CPU every call is the lone runqueue's.
//
// Task groups: the groups' configuration (struct task_group) is shared like
// the task table; every runqueue holds its own entity and queue of every
// group (tg->se[cpu], tg->cfs_rq[cpu]). Creating a group, cpu.shares and
// cpu.idle act on every CPU; a task's cgroup move and its migration touch
// the queues of the CPUs it leaves and joins only.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/rq.hpp"

namespace eevdf {

inline constexpr unsigned kMaxRunqueues = 8;

// Empty when `profile` can run with `nr` runqueues, else why not.
std::string runqueues_refusal(const std::string& profile, unsigned nr);
// Empty when `nr` runqueues can be grouped into cores of `smt` SMT siblings
// each (CPUs k*smt .. k*smt+smt-1; smt 1: none), else why not.
std::string smt_refusal(unsigned nr, unsigned smt);

// A bandwidth timer due at `now`: the queued period or slack timer with the
// earliest expiry at or before now (ties: the lower group, the period timer
// first); none when no timer is due. The kernel backend fires the tree's
// timers in the same order.
struct DueTimer {
  int group = -1;
  bool slack = false;
  u64 expires = 0;
};
std::optional<DueTimer> next_due_bandwidth_timer(const std::vector<TaskGroup>& groups, u64 now);
// The earliest expiry of a queued bandwidth timer, 0 when none is queued.
u64 next_bandwidth_expiry(const std::vector<TaskGroup>& groups);

class System {
 public:
  System(const Profile& profile, unsigned nr_runqueues);
  System(const System&) = delete;
  System& operator=(const System&) = delete;

  unsigned size() const { return static_cast<unsigned>(rqs_.size()); }
  // SMT siblings (the scenario's `smt N`), before the first operation; false
  // (nothing changed) when smt_refusal() is not empty. The last-level cache's
  // shared state (has_idle_cores) and the topology: model/wake_cpu.hpp.
  bool set_smt(unsigned siblings);
  LlcShared& llc_shared() { return llc_; }
  const LlcShared& llc_shared() const { return llc_; }
  Rq& rq(unsigned cpu) { return *rqs_[cpu]; }
  const Rq& rq(unsigned cpu) const { return *rqs_[cpu]; }
  // Whether the PELT averages are kept: always by the model; a mirror of the
  // kernel backend says whether the tree kept them (none on a !CONFIG_SMP
  // tree), and lockstep compares them only then.
  bool pelt_kept() const;
  void set_pelt_kept(bool kept) { pelt_kept_ = kept; }
  // The runqueue of task id (CPU 0 for an unknown id).
  Rq& rq_of(int task);
  const Rq& rq_of(int task) const;
  bool oops() const;

  // try_to_wake_up() / wake_up_new_task() with select_task_rq() answering
  // `cpu`. With cpu -1 on several runqueues a sleeping fair task's CPU is
  // chosen by select_task_rq_fair() (model/wake_cpu.hpp), the wake-up made
  // from CPU `from` (-1: the task's own, as a timer that fires where the task
  // slept); a new task starts on the CPU it was created on (fork balancing is
  // not modelled); one runqueue, or a task still queued (ttwu_runnable()),
  // does not choose.
  Refusal wake(int task, bool sync, int cpu, int from = -1);
  // Whether wake() chooses the CPU, and whether that choice would be refused
  // (Refusal::none if it would not, or if wake() does not choose); changes nothing.
  bool chooses_wake_cpu(int task, int cpu) const;
  Refusal wake_choice_refusal(int task, bool sync, int cpu, int from) const;
  // What the last wake() chose, if it chose: whether it made a choice,
  // whether wake_wide() found it wide, and whether wake_affine_weight()'s PELT
  // loads were weighed (measures the campaigns count).
  struct WakeChoiceMade {
    bool made = false;
    bool wide = false;
    bool weighed = false;
  };
  const WakeChoiceMade& last_wake_choice() const { return last_wake_choice_; }

 private:
  Refusal wake_choice_blocked(int task, int from) const;

 public:
  // The load balancer moving task to `cpu`: detach_task() + attach_task()
  // for a queued task; only set_task_cpu() for a sleeping or new one.
  Refusal migrate(int task, int cpu);
  // The cgroup cpu controller (model/group.cpp): sched_create_group(),
  // sched_group_set_shares(), sched_group_set_idle() on every CPU, and
  // sched_move_task() on the task's CPU. create_group() returns the id or -1.
  int create_group(std::string_view name, int parent, u64 shares);
  Refusal set_group_shares(int group, u64 shares);
  Refusal set_group_idle(int group, bool idle);
  Refusal move_task(int task, int group);
  // cgroup rmdir (Rq::destroy_group): unregister_fair_sched_group() on every CPU.
  Refusal destroy_group(int group);
  // The debugfs write of sched/base_slice_ns (Rq::write_base_slice_ns): one
  // global sysctl_sched_base_slice, so every CPU's runqueue.
  Refusal write_base_slice_ns(u64 ns);
  // Advance the wall clock by ns on every CPU; tick() to the next boundary.
  void run(u64 ns);
  void tick();
  // Off the tick grid, CPU 0 first (Rq::run_notick, Rq::tick_after): no tick
  // on any CPU (refused unless every CPU can stop its tick); or one tick on
  // every CPU after ns.
  Refusal run_notick(u64 ns);
  void tick_after(u64 ns);
  // sched_tick() at the next boundary on every CPU with preemption disabled
  // (Rq::tick_nopreempt): a pending reschedule stays pending.
  void tick_nopreempt();
  // __schedule() on every CPU, in order.
  void schedule();
  // CPU bandwidth control (model/fair_bandwidth.cpp): a cpu.max write
  // (Rq::set_group_bandwidth), and the bandwidth timers due at the wall
  // clock fired, earliest first, each on its CPU, then every CPU's pending
  // CSD unthrottles (run() and the other clock operations call it).
  Refusal set_group_bandwidth(int group, u64 quota, u64 period, u64 burst);
  void fire_bandwidth_timers();

  // A read of /sys/kernel/debug/sched/debug reaching print_cfs_rq() for CPU
  // `cpu`'s queue of `group` (-1: rq->cfs): the reader's avg_vruntime() of
  // that queue (model/debug_read.cpp). With `racing` on a kernel whose reader
  // re-bases without the rq lock (debug_read_races()), its loads happen now
  // and its stores of avg_vruntime (sum_w_vruntime) and zero_vruntime wait
  // for store_debug_reads() after the next operation; otherwise the reader
  // runs alone, now (on a min_vruntime kernel it only reads).
  Refusal debug_read(int cpu, int group, bool racing);
  // The stores a racing reader has still to do, oldest first.
  struct DebugReadStore {
    int cpu = 0;
    int group = -1;
    s64 sum_w_vruntime = 0;
    u64 zero_vruntime = 0;
  };
  std::size_t pending_debug_reads() const { return pending_reads_.size(); }
  const std::vector<DebugReadStore>& pending_reads() const { return pending_reads_; }
  // The stores of the first n pending reads, in order, overwriting whatever
  // the operation between their loads and now wrote to the two fields.
  void store_debug_reads(std::size_t n);

  std::vector<Task> tasks;  // shared by every runqueue (reserved: pointers stay valid)
  std::vector<TaskGroup> task_groups;  // shared by every runqueue (reserved)

 private:
  std::vector<std::unique_ptr<Rq>> rqs_;
  std::vector<DebugReadStore> pending_reads_;
  LlcShared llc_;
  bool pelt_kept_ = true;
  int bandwidth_users_ = 0;  // Rq::bandwidth_users of every CPU
  WakeChoiceMade last_wake_choice_;
};

// True when the profile's debugfs reader can interleave with the scheduler and
// writes: Behaviour::debug_reader_unlocked_rmw and an avg_vruntime() that
// re-bases zero_vruntime (KeyBase::zero_at_avg_tick or zero_at_avg_deadline).
bool debug_read_races(const Profile& profile);
// A racing reader's loads and arithmetic on q: avg_vruntime() runs, the two
// fields it wrote are returned in sum/zero, and q gets its old values back.
void debug_read_load(CfsRq& q, s64& sum, u64& zero);

}  // namespace eevdf
