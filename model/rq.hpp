// One CPU's runqueue (struct rq) with its fair queue, its clock and its tasks,
// and the task-level entry points of kernel/sched/core.c that drive it. The
// entry points are the only way operations change the model.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "model/profile.hpp"
#include "model/sched.hpp"

namespace eevdf {

inline constexpr std::size_t kMaxTasks = 512;
inline constexpr std::size_t kMaxGroups = 32;  // task groups besides the root one
// Rq::write_base_slice_ns(): the range of the base_slice directive (0.1ms .. 100ms)
inline constexpr u64 kMinBaseSliceWriteNs = 100'000;
inline constexpr u64 kMaxBaseSliceWriteNs = 100'000'000;
// Entities the model can hold: every task's and every group's.
inline constexpr std::size_t kMaxEntities = kMaxTasks + kMaxGroups;

// Why an entry point refused to run (the operation is not possible in this
// state). The model is unchanged when an entry point refuses.
enum class Refusal : std::uint8_t {
  none,
  no_such_task,
  too_many_tasks,
  task_not_running_on_cpu,  // sleep/yield of a task that is not current
  task_dead,
  task_already_awake,
  task_is_new,              // operation needs a task that has been woken once
  bad_argument,
  kernel_oopsed,            // an earlier operation crashed the modelled kernel
  no_custom_slices,         // set_slice on a kernel before 857b158dc5e8 (v6.6)
  no_such_group,
  too_many_groups,
  group_is_idle,            // sched_group_set_shares() of an idle group: -EINVAL
  task_on_cpu,              // migrate of the running task (can_migrate_task(): task_on_cpu())
  tick_needed,              // run notick where sched_can_stop_tick() says no: more than one fair task
  rt_task,                  // a fair-class operation (nice, slice, policy, move, yield, fork, migrate) on a SCHED_FIFO task
  rt_policy_change,         // sched_setscheduler() to SCHED_FIFO: switching classes is not modelled
  group_has_tasks,          // cgroup rmdir of a group with a task in it: -EBUSY
  group_has_children,       // cgroup rmdir of a group with a child group: -EBUSY
  rt_wake_cpu,              // a wake-up CPU choice for a SCHED_FIFO task (select_task_rq_rt(): not modelled)
  sis_util_scan,            // a wake-up CPU choice that SIS_UTIL's scan budget decides (model/wake_cpu.hpp)
  no_bandwidth_model,       // cpu.max on a profile whose bandwidth control is not modelled (Behaviour::cfs_bandwidth)
  task_throttled,           // migrate of a task on a limbo list (v6.18's throttle): the load balancer does not see it
};
const char* refusal_text(Refusal r);
// What set_user_nice(), sched_setscheduler() and sched_setattr() with a slice
// refuse before they change the task p (nullptr: no such task), for the model
// and the kernel backend alike; Refusal::none where the change may go on.
Refusal nice_refusal(const Task* p, int nice);
Refusal policy_refusal(const Task* p, Policy policy);
Refusal slice_refusal(const Task* p, const Profile& profile);

class Rq {
 public:
  explicit Rq(Profile profile, Observer* obs = nullptr);
  // One CPU of several (model/system.hpp): the task table and the task groups'
  // configuration are shared by every runqueue of the system, and this
  // runqueue is CPU `cpu`. System::System() then calls set_possible_cpus().
  Rq(Profile profile, Observer* obs, std::vector<Task>& shared_tasks, std::vector<TaskGroup>& shared_groups, int cpu);
  Rq(const Rq&) = delete;
  Rq& operator=(const Rq&) = delete;

  const Profile& profile() const { return profile_; }
  Observer& obs() const { return *obs_; }
  void set_observer(Observer* obs) { obs_ = obs ? obs : &null_observer(); }
  // A WARN_ON_ONCE/BUG_ON condition of the modelled code held: counted (lockstep
  // asks whether the model warned where the kernel's code did) and reported.
  void warn(Warn w, const SchedEntity* se) const {
    ++warnings_;
    obs_->on_warn(w, se);
  }
  unsigned long warnings() const { return warnings_; }

  // ---- task-level entry points (kernel/sched/core.c) ----
  // sched_fork() of a fresh task: creates it in TASK_NEW. Returns its id or -1.
  int create_task(std::string_view name, int nice, Policy policy, u64 custom_slice_ns, int group = -1);
  // copy_process() + sched_fork() by the running task: the child copies the
  // parent, then is reset. Returns -1 if parent is not on the CPU.
  // copy_races_sched_change: dup_task_struct() copies the parent without the rq
  // lock while another CPU holds the parent inside a sched_change (nice,
  // setscheduler, cgroup move): the copy reads se.rel_deadline inside that
  // change (between dequeue and placement) and se.deadline outside it, so the
  // child gets an absolute deadline marked relative (B01's path; the change itself is a
  // separate operation).
  int fork_task(int parent, std::string_view child_name, bool copy_races_sched_change = false);
  // wake_up_new_task() for a new task, try_to_wake_up() for a sleeping one.
  Refusal wake(int task, bool sync);
  // try_to_wake_up() of a task that select_task_rq() moved to this CPU
  // (WF_MIGRATED, so ENQUEUE_MIGRATED): `migrated` (model/system.cpp sets it).
  Refusal wake(int task, bool sync, bool migrated);
  // __set_task_cpu(): the task now belongs to this CPU (its queue becomes this
  // runqueue's root queue or its group's queue here).
  void set_task_cpu(Task& p);
  // The current task blocks: __schedule() with a non-running state.
  Refusal sleep(int task);
  // __schedule(): put the current task back and pick the next one.
  void schedule();
  // sys_sched_yield(): yield_task_fair() then schedule().
  Refusal yield(int task);
  // Advance the clock by `ns`, with a tick at every TICK_NSEC boundary.
  void run(u64 ns);
  // Advance to the next tick boundary and tick.
  void tick();
  // Time off the tick grid. run_notick: advance the clock by `ns` with no
  // tick (a nohz_full CPU: curr's runtime is accounted at the next
  // update_curr()); refused (tick_needed) when the kernel would not stop the
  // tick, sched_can_stop_tick(): more than one task queued (h_nr_queued > 1).
  // tick_after: advance by `ns`, then one sched_tick(). Both honour a pending
  // reschedule first, as run() does; tick_after after the tick too.
  Refusal run_notick(u64 ns);
  // sched_can_stop_tick() (core.c, 6.12.118 and v7.2 alike): a queued SCHED_FIFO
  // task needs no tick (no forced preemption between FIFO tasks, and it runs
  // before any fair task); otherwise more than one fair task queued needs it.
  bool tick_stoppable() const { return !rt_queue.empty() || cfs.h_nr_queued <= 1; }
  void tick_after(u64 ns);
  // sched_tick() at the next tick boundary with preemption disabled: the tick
  // runs (task_tick_fair() may set need_resched) but nothing is honoured, not
  // before it and not at its return: a task in a non-preemptible section, or a
  // kernel without preemption running in kernel mode (`tick nopreempt`).
  void tick_nopreempt();
  // The task-based throttle (v6.18, Behaviour::task_based_throttle): the
  // running task `task` returns to user space and runs its throttle work
  // (throttle_cfs_rq_work(): off to its queue's limbo list if its hierarchy is
  // still throttled, then a reschedule); nothing without a work pending.
  // Refused for a task that does not run on its CPU (only current runs task work).
  Refusal return_to_user(int task);
  // set_user_nice()
  Refusal set_nice(int task, int nice);
  // sched_setscheduler() between SCHED_NORMAL, SCHED_BATCH and SCHED_IDLE.
  Refusal set_policy(int task, Policy policy);
  // sched_setattr() with sched_runtime = slice_ns (0 = back to the base slice).
  Refusal set_slice(int task, u64 slice_ns);
  // do_exit(): a running task exits (schedule() follows).
  Refusal exit_task(int task);

  // ---- task groups (kernel/sched/core.c cgroup cpu controller; model/group.cpp) ----
  // A group has one entity and one queue on every possible CPU: create,
  // cpu.shares and cpu.idle act on all of them (for_each_possible_cpu), on
  // whichever runqueue they are called; move_task() only on the task's CPU.
  // sched_create_group() + sched_online_group() under `parent` (-1 = root),
  // then cpu.shares := shares (unscaled, kMinShares .. kMaxShares). Returns
  // the group's id or -1.
  int create_group(std::string_view name, int parent, u64 shares);
  // cpu.shares write: sched_group_set_shares(tg, scale_load(shares)).
  Refusal set_group_shares(int group, u64 shares);
  // cpu.idle write: sched_group_set_idle().
  Refusal set_group_idle(int group, bool idle);
  // cgroup migration of a task: sched_move_task() (group -1 = the root group).
  Refusal move_task(int task, int group);
  // cgroup rmdir: sched_release_group() + sched_destroy_group() →
  // unregister_fair_sched_group() on every possible CPU (model/group.cpp).
  // Refused while a task that has not exited is in the group, or a child group
  // not removed is below it (cgroup_rmdir's -EBUSY). The group is marked
  // destroyed; find_group() no longer finds it.
  Refusal destroy_group(int group);

  // ---- tunables ----
  // A debugfs write of /sys/kernel/debug/sched/base_slice_ns: a plain store of
  // ns to sysctl_sched_base_slice (debugfs_create_u32, v6.6 .. v7.2), which
  // update_deadline(), place_entity(), __sched_fork() and __setparam_fair()
  // read from then on; normalized_sysctl_sched_base_slice keeps its value.
  // On this runqueue's profile only (System::write_base_slice_ns: every CPU).
  // ns in 0.1ms .. 100ms (the base_slice directive's range), else bad_argument.
  Refusal write_base_slice_ns(u64 ns);

  // ---- CPU bandwidth control (model/fair_bandwidth.cpp) ----
  // A cpu.max write (and cpu.max.burst): tg_set_cfs_bandwidth(tg, period,
  // quota, burst) from CPU 0, for every CPU (quota kRuntimeInf: "max"); the
  // arguments in cpu.max's order, quota first.
  // bad_argument where the kernel answers -EINVAL; no_bandwidth_model on a
  // profile without Behaviour::cfs_bandwidth.
  Refusal set_group_bandwidth(int group, u64 quota, u64 period, u64 burst);
  // cpu_max_write() (core.c, cgroup v2): the burst a cpu.max write passes on
  // when it sets none, the group's own; on v6.6 (before 49217ea147df, v6.10)
  // tg_get_cfs_burst()'s microseconds, taken as nanoseconds
  // (Behaviour::cpu_max_burst_in_us). group exists.
  u64 cpu_max_burst(int group) const;
  // The group's period or slack timer fires on this CPU, at its clock
  // (sched_cfs_period_timer(), sched_cfs_slack_timer()); System::run() calls them.
  void fire_period_timer(int group);
  void fire_slack_timer(int group);
  // __cfsb_csd_unthrottle(): the unthrottles other CPUs queued for this one.
  void run_cfsb_csd();
  // rq->cfsb_csd_list: the groups whose queue on this CPU waits for the CSD, in order.
  std::vector<int> cfsb_csd_list;
  // Not kernel state: every value sysctl_sched_base_slice has had in this run
  // before the present one (a write reaches a queued task only at its next
  // update_deadline() or placement, so its slice may still be an earlier base; I-SLICE).
  std::vector<u64> earlier_base_slices;

  // ---- state ----
  CfsRq cfs;
  u64 clock_task = 0;     // rq_clock_task(), ns
  // Not a kernel field: the ticks so far that found the running task with time to
  // charge (update_curr() did not return early for a zero delta); I-PROT's rule 4.
  u64 charged_ticks = 0;
  // Not kernel fields either: the clock at the last tick and the longest stretch
  // between two ticks so far (a late `tick DUR`, a tickless `run DUR notick`).
  u64 last_tick = 0;
  u64 longest_tick_gap = 0;
  // The scheduling quantum the lag bounds of EEVDF assume: TICK_NSEC, or the
  // longest stretch without a tick so far, the present one included.
  u64 tick_quantum() const {
    const u64 since = clock_task - last_tick;
    const u64 longest = longest_tick_gap > since ? longest_tick_gap : since;
    return longest > profile_.tick_nsec() ? longest : profile_.tick_nsec();
  }
  int curr = -1;          // the fair task on the CPU, -1 = none (idle, or an RT task runs)
  // Another class on the CPU: SCHED_FIFO tasks, one RT
  // priority. rt_queue: the runnable ones in FIFO order (rq->rt's one list,
  // rt_nr_running = its size; the first one runs); rt_curr: the RT task on the
  // CPU (rq->curr when it is not fair; curr is then -1: the fair class put
  // its curr back). The RT class's own accounting (update_curr_rt()) is not
  // modelled: an RT task's sched_entity is never touched.
  std::vector<int> rt_queue;
  int rt_curr = -1;
  // The idle task's record_wakee() memory: a wake-up made while this CPU idles
  // (from an interrupt) has the idle task as `current` (model/wake_cpu.hpp).
  WakeeState idle_wakee;
  // The last-level cache's shared state and SMT siblings (model/wake_cpu.hpp),
  // the System's; nullptr for a lone runqueue.
  LlcShared* llc_shared = nullptr;
  // The task on the CPU whatever its class, -1 = idle.
  int running() const { return rt_curr >= 0 ? rt_curr : curr; }
  bool need_resched = false;
  // Not kernel fields: every resched_curr() call so far, and the ticks whose
  // task_tick_fair() called it (update_curr() at slice expiry or at the end of
  // the protection): I-PROT's rule 5 (a lone fair entity is never rescheduled
  // by the fair class's tick).
  u64 resched_calls = 0;
  // Not kernel state: unthrottle_cfs_rq() calls on this CPU so far (CPU
  // bandwidth control; an unthrottle places the group entities it enqueues: I-MONO).
  u64 unthrottles = 0;
  u64 throttles = 0;  // ... and throttle_cfs_rq() calls that throttled
  u64 fair_tick_rescheds = 0;  // (a tick at which out_of_runtime() holds for curr is bandwidth's: not counted)
  bool oops = false;      // the kernel would have crashed (NULL pick); entry points refuse
  unsigned nr_running = 0;  // rq->nr_running: fair tasks queued (delayed ones included) and RT tasks queued
  // Not kernel state: on the kernel backend's mirror, the tree's own
  // sched_idle_rq() of this CPU as the mirror was last refreshed (0 or 1),
  // the answer I-WAKECOUNT judges there; -1 on the model, whose own functions
  // (model/wake_cpu.hpp) answer.
  int tree_sched_idle_rq = -1;
  // ... and its wake_affine_idle()'s WF_SYNC clause for this CPU's running task (-1: none asked)
  int tree_sync_affine = -1;
  int cpu = 0;              // cpu_of(rq)
 private:
  std::vector<Task> own_tasks_;              // the task table of a lone runqueue
  std::vector<TaskGroup> own_task_groups_;   // the group table of a lone runqueue
  std::vector<Rq*> possible_cpus_;           // every runqueue of the system, by CPU
  int own_bandwidth_users_ = 0;              // the static key of a lone runqueue
 public:
  // The cfs_bandwidth_used() static key (__cfs_bandwidth_used): how many
  // groups have a quota, incremented before a quota is set and decremented
  // after one is removed (tg_set_cfs_bandwidth()); one for the whole system.
  int* bandwidth_users = &own_bandwidth_users_;
  bool cfs_bandwidth_used() const { return *bandwidth_users > 0; }
  // Every task of the system, indexed by task id; with several runqueues the
  // table is shared and a task belongs to runqueue tasks[id].cpu.
  std::vector<Task>& tasks;
  // struct task_group of every group (shared by every runqueue like the task
  // table), indexed by group id.
  std::vector<TaskGroup>& task_groups;
  // This CPU's part of every group, by group id: tg->se[cpu], tg->cfs_rq[cpu]
  // (reserved for kMaxGroups: entity and queue pointers stay valid).
  std::vector<TaskGroupCpu> groups;

  // for_each_possible_cpu(): the runqueues of the system ({this} when alone).
  const std::vector<Rq*>& possible_cpus() const { return possible_cpus_; }
  void set_possible_cpus(std::vector<Rq*> cpus) { possible_cpus_ = std::move(cpus); }

  Task* task(int id) { return id >= 0 && static_cast<std::size_t>(id) < tasks.size() ? &tasks[id] : nullptr; }
  const Task* task(int id) const {
    return id >= 0 && static_cast<std::size_t>(id) < tasks.size() ? &tasks[id] : nullptr;
  }
  int find_task(std::string_view name) const;
  int find_group(std::string_view name) const;
  TaskGroup* group(int id) {
    return id >= 0 && static_cast<std::size_t>(id) < task_groups.size() ? &task_groups[id] : nullptr;
  }
  const TaskGroup* group(int id) const {
    return id >= 0 && static_cast<std::size_t>(id) < task_groups.size() ? &task_groups[id] : nullptr;
  }
  // tg->cfs_rq[cpu] of a group id (-1: rq->cfs).
  CfsRq& group_queue(int id) { return id < 0 ? cfs : groups[static_cast<std::size_t>(id)].cfs_rq; }
  const CfsRq& group_queue(int id) const { return id < 0 ? cfs : groups[static_cast<std::size_t>(id)].cfs_rq; }
  Task& task_of(const SchedEntity& se) { return tasks[static_cast<std::size_t>(se.task_id)]; }
  const Task& task_of(const SchedEntity& se) const { return tasks[static_cast<std::size_t>(se.task_id)]; }

  // resched_curr() / resched_curr_lazy(): one flag (preemption model "full";
  // lazy mode is not modelled).
  void resched_curr() {
    need_resched = true;
    ++resched_calls;
  }
  // core.c wakeup_preempt() for a fair task p (flags: WF_*): the fair class
  // above idle reschedules, a fair curr asks wakeup_preempt_fair(), an RT curr
  // (a higher class) is left alone.
  void wakeup_preempt(Task& p, int flags);

 private:
  Profile profile_;
  Observer* obs_;
  mutable unsigned long warnings_ = 0;
  MinVruntimeCallbacks callbacks_;
  friend MinVruntimeCallbacks& augment_callbacks(CfsRq&);

  void sched_fork(Task& p);
  void set_task_rq(Task& p);
  void sched_group_set_shares(TaskGroup& tg, u64 scaled_shares);  // __sched_group_set_shares
  void init_tg_cfs_entry(TaskGroup& tg, int id);                   // this CPU's part of a new group
  void set_load_weight(Task& p, bool update_load);
  void do_tick();
  Refusal wake_rt(Task& p);   // an RT task becomes runnable: enqueue_task_rt() + wakeup_preempt()
  void dequeue_rt(Task& p);   // dequeue_task_rt(): off the RT list, sub_nr_running()
  void schedule_pending();  // what run() does first: a pending reschedule, or an idle CPU with work
  // The running task returns to user space (exit_to_user_mode_loop()): each
  // time step (run, run notick, tick DUR) does it after its schedule and after
  // each tick's, so a task picked below a throttled queue runs its throttle
  // work then; repeated for the task the reschedule picks. Nothing unless a
  // throttle work is pending (v6.18).
  void exit_to_user_mode();
  void switch_to_next();  // pick_next_task() + put_prev_set_next_task()
  template <class Change>
  void sched_change(Task& p, int dequeue_flags, Change change);
  void change_fair_params(Task& p, Policy policy, u64 runtime);
};

MinVruntimeCallbacks& augment_callbacks(CfsRq& cfs_rq);

}  // namespace eevdf
