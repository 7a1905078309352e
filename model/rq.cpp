// kernel/sched/core.c and syscalls.c entry points for one CPU (newest
// the mainline profile): sched_fork, wake_up_new_task, try_to_wake_up, __schedule,
// sched_tick, set_user_nice, __sched_setscheduler / sched_setattr, do_exit.
#include "model/rq.hpp"

#include "model/fair.hpp"
#include "model/wake_cpu.hpp"

namespace eevdf {

const char* policy_name(Policy p) {
  switch (p) {
    case Policy::normal: return "normal";
    case Policy::batch: return "batch";
    case Policy::idle: return "idle";
    case Policy::fifo: return "fifo";
  }
  return "?";
}

const char* refusal_text(Refusal r) {
  switch (r) {
    case Refusal::none: return "ok";
    case Refusal::no_such_task: return "no such task";
    case Refusal::too_many_tasks: return "too many tasks";
    case Refusal::task_not_running_on_cpu: return "the task is not the one running on the CPU";
    case Refusal::task_dead: return "the task has exited";
    case Refusal::task_already_awake: return "the task is already awake";
    case Refusal::task_is_new: return "the task has never been woken";
    case Refusal::bad_argument: return "argument out of range";
    case Refusal::kernel_oopsed: return "the modelled kernel crashed earlier (NULL pick)";
    case Refusal::no_custom_slices:
      return "this kernel has no custom slices (sched_attr::sched_runtime sets the slice since v6.12, 857b158dc5e8)";
    case Refusal::no_such_group: return "no such task group";
    case Refusal::too_many_groups: return "too many task groups";
    case Refusal::group_is_idle: return "the group is idle (cpu.shares of an idle group is -EINVAL)";
    case Refusal::tick_needed:
      return "the CPU cannot stop its tick: more than one task queued (sched_can_stop_tick(): h_nr_queued > 1)";
    case Refusal::task_on_cpu: return "the task is running on its CPU (the load balancer moves only queued tasks)";
    case Refusal::task_throttled:
      return "the task waits on the limbo list of a throttled queue (v6.18's task-based throttle): off its queue, "
             "the load balancer does not see it";
    case Refusal::rt_task:
      return "the task is a SCHED_FIFO task (policy=fifo): this operation is the fair class's (nice, slice, policy, "
             "move, yield, fork and migrate apply to fair tasks only)";
    case Refusal::rt_policy_change:
      return "switching a task to or from SCHED_FIFO is not modelled (create it with policy=fifo instead)";
    case Refusal::group_has_tasks:
      return "a task that has not exited is in the group (cgroup rmdir: -EBUSY; move it out or let it exit first)";
    case Refusal::group_has_children:
      return "the group has a child group (cgroup rmdir: -EBUSY; remove the child first)";
    case Refusal::sis_util_scan:
      return "the wake-up CPU choice depends on select_idle_cpu()'s SIS_UTIL budget (nr_idle_scan, which the load "
             "balancer computes from PELT utilization the model does not keep): name the CPU (cpu=N), or turn "
             "SIS_UTIL off (features NO_SIS_UTIL)";
    case Refusal::rt_wake_cpu:
      return "the wake-up CPU choice of a SCHED_FIFO task (select_task_rq_rt()) is not modelled: name the CPU (cpu=N)";
    case Refusal::no_bandwidth_model:
      return "CPU bandwidth control (cpu.max) runs on the profiles v6.6 to v6.12.118 (the hierarchical throttle) "
             "and v6.18 to v7.1 (the task-based throttle); v7.2 on, with 28ad5427682b, not modelled: "
             "docs/model.md, \"CPU bandwidth control\"";
  }
  return "?";
}

MinVruntimeCallbacks& augment_callbacks(CfsRq& cfs_rq) { return cfs_rq.rq->callbacks_; }

Rq::Rq(Profile profile, Observer* obs, std::vector<Task>& shared_tasks, std::vector<TaskGroup>& shared_groups,
       int cpu_id)
    : cpu(cpu_id),
      possible_cpus_{this},
      tasks(shared_tasks),
      task_groups(shared_groups),
      profile_(std::move(profile)),
      obs_(obs ? obs : &null_observer()) {
  callbacks_.copy_all_fields = profile_.behaviour.augment_copies_all_fields;
  callbacks_.max_slice = profile_.behaviour.augment_has_max_slice;
  cfs.rq = this;
  tasks.reserve(kMaxTasks);
  task_groups.reserve(kMaxGroups);
  groups.reserve(kMaxGroups);
}

// A lone runqueue: CPU 0, with its own task and group tables.
Rq::Rq(Profile profile, Observer* obs) : Rq(std::move(profile), obs, own_tasks_, own_task_groups_, 0) {}

// __set_task_cpu() (core.c, v7.2): set_task_rq() against this CPU's queues.
void Rq::set_task_cpu(Task& p) {
  p.cpu = cpu;
  set_task_rq(p);
}

int Rq::find_task(std::string_view name) const {
  for (std::size_t i = 0; i < tasks.size(); ++i)
    if (tasks[i].name == name) return static_cast<int>(i);
  return -1;
}

int Rq::find_group(std::string_view name) const {
  for (std::size_t i = 0; i < task_groups.size(); ++i)
    if (task_groups[i].name == name && !task_groups[i].destroyed) return static_cast<int>(i);
  return -1;
}

// set_task_rq() (sched.h, v7.1): the task's entity hangs below its group's entity.
void Rq::set_task_rq(Task& p) {
  SchedEntity& se = p.se;
  se.cfs_rq = &group_queue(p.group);
  se.parent = p.group < 0 ? nullptr : &groups[static_cast<std::size_t>(p.group)].se;
  se.depth = se.parent ? se.parent->depth + 1 : 0;
}

// set_load_weight() (core.c, v7.1; v6.6.0 for SCHED_IDLE): the table weight,
// through reweight_task_fair() when the task is already known to the class.
// Before d32960528702 a SCHED_IDLE task got its weight written directly.
void Rq::set_load_weight(Task& p, bool update_load) {
  const bool idle = p.policy == Policy::idle;
  const LoadWeight lw = task_load_weight(p.nice, idle);
  if (update_load && (!idle || profile_.behaviour.idle_weight_reweights)) {
    reweight_task_fair(*this, p, lw);
    return;
  }
  const u64 old_weight = p.se.load.weight;
  p.se.load = lw;
  if (old_weight != lw.weight) obs_->on_load_set(p.se, old_weight);
}

// __sched_fork() + the sched_reset_on_fork part of sched_fork().
void Rq::sched_fork(Task& p) {
  SchedEntity& se = p.se;
  if (se.sched_delayed) warn(Warn::sched_fork_delayed, &se);
  p.on_rq = false;
  se.on_rq = false;
  p.throttled = false;      // init_cfs_throttle_work() (v6.18): no throttle work, on no limbo list
  p.throttle_work = false;
  se.exec_start = 0;
  se.sum_exec_runtime = 0;
  se.prev_sum_exec_runtime = 0;
  se.vruntime = 0;
  se.vprot_aliases_vlag = profile_.behaviour.vprot_aliases_vlag;
  se.set_vlag(0);
  if (profile_.behaviour.fork_clears_rel_deadline) se.rel_deadline = false;  // 3da56dc063cd
  se.rb_parent = se.rb_left = se.rb_right = nullptr;
  set_task_rq(p);  // sched_cgroup_fork() / __set_task_cpu()
  p.state = TaskState::new_;
  if (p.sched_reset_on_fork) {
    if (p.nice < 0) p.nice = 0;
    set_load_weight(p, false);
    se.custom_slice = false;
    se.slice = profile_.sysctl_sched_base_slice();
    p.sched_reset_on_fork = false;
  }
}

int Rq::create_task(std::string_view name, int nice, Policy policy, u64 custom_slice_ns, int group) {
  if (oops || tasks.size() >= kMaxTasks || nice < -20 || nice > 19) return -1;
  if (group >= 0 && (static_cast<std::size_t>(group) >= groups.size() || task_groups[static_cast<std::size_t>(group)].destroyed))
    return -1;
  // an RT task: SCHED_FIFO in the root group, no nice level or slice of its own
  if (policy == Policy::fifo && (nice != 0 || custom_slice_ns != 0 || group >= 0)) return -1;
  Task& p = tasks.emplace_back();
  p.name = std::string(name);
  p.group = group;
  p.nice = nice;
  p.policy = policy;
  p.se.task_id = static_cast<int>(tasks.size() - 1);
  p.cpu = cpu;
  sched_fork(p);
  set_load_weight(p, false);
  // before 857b158dc5e8 (v6.6) a fair task ignores sched_runtime: base slice
  setparam_fair(p, profile_.behaviour.custom_slices ? custom_slice_ns : 0, profile_.sysctl_sched_base_slice());
  init_entity_runnable_average(p.se);  // sched_fork(), every class
  // sched_fork(): only the fair class has a task_fork hook
  if (policy != Policy::fifo) task_fork_fair(*this, p);  // v6.6: placement at fork; no-op after c40dd90ac045
  return p.se.task_id;
}

int Rq::fork_task(int parent, std::string_view child_name, bool copy_races_sched_change) {
  if (oops || tasks.size() >= kMaxTasks) return -1;
  const Task* parent_task = task(parent);
  if (!parent_task || parent != curr) return -1;  // only the running (fair) task forks
  Task child = *parent_task;  // dup_task_struct()
  // the racing change's dequeue_entity() sets rel_deadline (not a sleep), only with PLACE_REL_DEADLINE
  if (copy_races_sched_change && profile_.feat(Feature::PLACE_REL_DEADLINE)) child.se.rel_deadline = true;
  child.name = std::string(child_name);
  child.se.task_id = static_cast<int>(tasks.size());
  Task& p = tasks.emplace_back(std::move(child));
  sched_fork(p);
  init_entity_runnable_average(p.se);
  task_fork_fair(*this, p);
  return p.se.task_id;
}

Refusal Rq::wake(int id, bool sync) { return wake(id, sync, false); }

// core.c wakeup_preempt() (6.12.118, v7.2): the same class asks the class; a
// higher class reschedules curr; a lower one does nothing.
void Rq::wakeup_preempt(Task& p, int flags) {
  if (rt_curr >= 0) return;  // the RT class is above fair: no fair wakeup_preempt call, no resched
  if (curr < 0)
    resched_curr();  // the fair class is above idle
  else
    wakeup_preempt_fair(*this, p, flags);
}

// An RT task becomes runnable (wake_up_new_task() or ttwu_do_activate() of a
// SCHED_FIFO task): enqueue_task_rt() at the tail of the one priority list,
// add_nr_running(), then wakeup_preempt(): above a fair curr or idle, the RT
// class reschedules (no fair wakeup_preempt call); against a running RT task of
// the same priority, wakeup_preempt_rt() does nothing.
Refusal Rq::wake_rt(Task& p) {
  p.state = TaskState::running;
  p.on_rq = true;
  rt_queue.push_back(p.se.task_id);
  ++nr_running;  // add_nr_running()
  if (rt_curr < 0) resched_curr();
  return Refusal::none;
}

// dequeue_task_rt() of a blocking or exiting RT task: off the list, sub_nr_running().
void Rq::dequeue_rt(Task& p) {
  for (std::size_t i = 0; i < rt_queue.size(); ++i)
    if (rt_queue[i] == p.se.task_id) {
      rt_queue.erase(rt_queue.begin() + static_cast<long>(i));
      --nr_running;  // sub_nr_running()
      break;
    }
  p.on_rq = false;
}

Refusal Rq::wake(int id, bool sync, bool migrated) {
  if (oops) return Refusal::kernel_oopsed;
  Task* p = task(id);
  if (!p) return Refusal::no_such_task;
  if (p->state == TaskState::dead) return Refusal::task_dead;
  if (p->state == TaskState::running) return Refusal::task_already_awake;
  // wake_up_new_task(): on the chosen CPU, before the enqueue
  if (p->state == TaskState::new_) post_init_entity_util_avg(p->se, p->policy != Policy::fifo);
  if (p->policy == Policy::fifo) return wake_rt(*p);

  auto preempt = [&](int flags) { wakeup_preempt(*p, flags); };

  if (p->state == TaskState::new_) {  // wake_up_new_task()
    p->state = TaskState::running;
    // ENQUEUE_INITIAL since c40dd90ac045; v6.6 placed at fork and re-places here without it
    const int initial = profile_.behaviour.place_at_fork ? 0 : enqueue_flags::INITIAL;
    enqueue_task_fair(*this, *p, enqueue_flags::NOCLOCK | initial);
    p->on_rq = true;
    preempt(wake_flags::FORK);
    return Refusal::none;
  }

  int flags = wake_flags::TTWU | (sync ? wake_flags::SYNC : 0) | (migrated ? wake_flags::MIGRATED : 0);
  if (p->on_rq) {  // ttwu_runnable(): still queued as delayed
    if (p->se.sched_delayed) enqueue_task_fair(*this, *p, enqueue_flags::NOCLOCK | enqueue_flags::DELAYED);
    if (&tasks[static_cast<std::size_t>(id)] != task(curr)) preempt(flags);
  } else {  // select_task_rq() ran (more than one CPU allowed), then ttwu_do_activate()
    if (profile_.tunables.ncpus > 1) flags |= wake_flags::RQ_SELECTED;
    // ttwu_do_activate(): WF_MIGRATED adds ENQUEUE_MIGRATED
    enqueue_task_fair(*this, *p,
                      enqueue_flags::WAKEUP | enqueue_flags::NOCLOCK | (migrated ? enqueue_flags::MIGRATED : 0));
    p->on_rq = true;
    preempt(flags);
  }
  p->state = TaskState::running;
  return Refusal::none;
}

// The second half of __schedule(): pick, then put_prev/set_next unless
// the same task was picked again. __pick_next_task() (core.c, 6.12.118, v7.2):
// with an RT task queued, rq->nr_running differs from rq->cfs.h_nr_queued and
// the class loop runs: the RT class picks first, and put_prev_set_next_task()
// calls the fair class's put_prev_task_fair() for a fair prev (curr goes back
// into the tree, cfs_rq->curr = NULL). Without one, pick_next_task_fair(): from
// an RT prev (which just blocked) its `simple` path, set_next_task_fair(first).
void Rq::switch_to_next() {
  const bool was_idle = running() < 0;
  if (!rt_queue.empty()) {
    const int next = rt_queue.front();  // pick_task_rt(): the head of the one priority list
    if (next != rt_curr) {
      if (Task* prev = task(curr)) put_prev_task_fair(*this, *prev);
      curr = -1;
      rt_curr = next;  // set_next_task_rt(): the RT class's accounting is not modelled
    }
    need_resched = false;
    return;
  }
  rt_curr = -1;  // an RT prev that blocked or exited: put_prev_task_rt(), nothing modelled
  Task* prev = task(curr);
  if (profile_.behaviour.pick_next_v6_6) {
    Task* next = pick_next_task_fair_v6_6(*this, prev);  // puts prev back and sets next itself
    if (!oops) curr = next ? next->se.task_id : -1;
  } else {
    Task* next = pick_task_fair(*this);
    if (!oops && next != prev) {
      if (prev && next)
        put_prev_set_next_fair(*this, *prev, *next);  // pick_next_task_fair(): only the levels that differ
      else if (prev)
        put_prev_task_fair(*this, *prev);
      else if (next)
        set_next_task_fair(*this, *next, true);
      curr = next ? next->se.task_id : -1;
    }
  }
  // __schedule() clears prev's TIF_NEED_RESCHED after pick_next_task(), which
  // includes the put_prev/set_next of the switch: a resched_curr() in it (an
  // update_curr() of a group level reaching prev's deadline) lands on prev and
  // is cleared with it. Found by lockstep against 6.12.118's own code.
  need_resched = false;
  // the idle task picked after another task: put_prev_set_next_task()'s
  // set_next_task_idle() runs update_idle_core() (idle.c; 6.12.118, 6.18.0, 7.0.0)
  if (!oops && !was_idle && running() < 0) update_idle_core(*this);
}

void Rq::schedule() {
  if (oops) return;
  switch_to_next();
}

Refusal Rq::sleep(int id) {
  if (oops) return Refusal::kernel_oopsed;
  Task* p = task(id);
  if (!p) return Refusal::no_such_task;
  if (id != running()) return Refusal::task_not_running_on_cpu;
  p->state = TaskState::sleeping;
  if (p->policy == Policy::fifo) {  // try_to_block_task(): dequeue_task_rt(), then the pick
    dequeue_rt(*p);
    switch_to_next();
    return Refusal::none;
  }
  if (dequeue_task_fair(*this, *p, dequeue_flags::SLEEP | dequeue_flags::NOCLOCK)) p->on_rq = false;
  switch_to_next();
  return Refusal::none;
}

Refusal Rq::exit_task(int id) {
  if (oops) return Refusal::kernel_oopsed;
  Task* p = task(id);
  if (!p) return Refusal::no_such_task;
  if (id != running()) return Refusal::task_not_running_on_cpu;
  // TASK_DEAD is a special state: block_task() adds DEQUEUE_SPECIAL, no delay.
  p->state = TaskState::dead;
  if (p->policy == Policy::fifo) {
    dequeue_rt(*p);
    switch_to_next();
    return Refusal::none;
  }
  if (dequeue_task_fair(*this, *p, dequeue_flags::SLEEP | dequeue_flags::NOCLOCK | dequeue_flags::SPECIAL))
    p->on_rq = false;
  switch_to_next();
  // task_dead_fair(): a task that is somehow still delayed is dequeued now.
  if (p->se.sched_delayed && !oops)
    dequeue_entities(*this, p->se, dequeue_flags::SLEEP | dequeue_flags::DELAYED);
  if (!oops) remove_entity_load_avg(p->se);  // task_dead_fair(): its load leaves the queue
  return Refusal::none;
}

Refusal Rq::yield(int id) {
  if (oops) return Refusal::kernel_oopsed;
  if (!task(id)) return Refusal::no_such_task;
  if (task(id)->policy == Policy::fifo) return Refusal::rt_task;
  if (id != curr) return Refusal::task_not_running_on_cpu;
  yield_task_fair(*this);
  schedule();
  return Refusal::none;
}

// Not kernel code: whether a queue on se's path has a quota and no runtime left.
bool out_of_runtime(const SchedEntity& se) {
  for (const SchedEntity* e = &se; e; e = e->parent)
    if (e->cfs_rq && e->cfs_rq->runtime_enabled && e->cfs_rq->runtime_remaining <= 0) return true;
  return false;
}

// sched_tick(): the running task's class ticks. An RT task's task_tick_rt()
// (SCHED_FIFO: no time slice, its accounting not modelled) does nothing here;
// task_tick_fair() is not called then.
void Rq::do_tick() {
  if (clock_task - last_tick > longest_tick_gap) longest_tick_gap = clock_task - last_tick;
  last_tick = clock_task;
  Task* p = task(curr);
  if (p && clock_task > p->se.exec_start) ++charged_ticks;
  if (!p) return;
  const u64 before = resched_calls;
  task_tick_fair(*this, *p);
  // a reschedule at a tick where the running task's group has no runtime left
  // is CPU bandwidth control's (__account_cfs_rq_runtime()), not EEVDF's
  if (resched_calls != before && !out_of_runtime(p->se)) ++fair_tick_rescheds;
}

void Rq::schedule_pending() {
  if (need_resched || (running() < 0 && (cfs.nr_queued || !rt_queue.empty()))) schedule();
}

void Rq::exit_to_user_mode() {
  while (!oops && rt_curr < 0) {
    Task* p = task(curr);
    if (!p || !p->throttle_work) return;
    throttle_cfs_rq_work(*this, *p);
    if (need_resched) schedule();
  }
}

Refusal Rq::return_to_user(int id) {
  if (oops) return Refusal::kernel_oopsed;
  Task* p = task(id);
  if (!p) return Refusal::no_such_task;
  if (id != running()) return Refusal::task_not_running_on_cpu;
  if (!p->throttle_work) return Refusal::none;
  throttle_cfs_rq_work(*this, *p);
  if (need_resched) schedule();
  return Refusal::none;
}

void Rq::run(u64 ns) {
  if (oops) return;
  schedule_pending();
  exit_to_user_mode();
  const u64 tick = profile_.tick_nsec();
  const u64 end = clock_task + ns;
  while (!oops) {
    const u64 next_tick = (clock_task / tick + 1) * tick;
    if (next_tick > end) {
      clock_task = end;
      break;
    }
    clock_task = next_tick;
    do_tick();
    if (need_resched) schedule();
    exit_to_user_mode();
  }
}

void Rq::tick() {
  const u64 tick = profile_.tick_nsec();
  run((clock_task / tick + 1) * tick - clock_task);
}

void Rq::tick_nopreempt() {
  if (oops) return;
  const u64 tick = profile_.tick_nsec();
  clock_task = (clock_task / tick + 1) * tick;
  do_tick();
}

Refusal Rq::run_notick(u64 ns) {
  if (oops) return Refusal::kernel_oopsed;
  if (!tick_stoppable()) return Refusal::tick_needed;
  schedule_pending();
  exit_to_user_mode();
  if (!oops) clock_task += ns;
  return Refusal::none;
}

void Rq::tick_after(u64 ns) {
  if (oops) return;
  schedule_pending();
  exit_to_user_mode();
  if (oops) return;
  clock_task += ns;
  do_tick();
  if (need_resched && !oops) schedule();
  exit_to_user_mode();
}

// The sched_change guard: dequeue (and put_prev) around a parameter change,
// then enqueue (and set_next with first = false).
template <class Change>
void Rq::sched_change(Task& p, int flags, Change change) {
  const bool queued = p.on_rq;
  const bool running = curr >= 0 && &tasks[static_cast<std::size_t>(curr)] == &p;
  if (queued) dequeue_task_fair(*this, p, flags);
  if (running) put_prev_task_fair(*this, p);
  change();
  if (queued) {
    int eflags = enqueue_flags::RESTORE | enqueue_flags::NOCLOCK;
    if (flags & dequeue_flags::MOVE) eflags |= enqueue_flags::MOVE;
    enqueue_task_fair(*this, p, eflags);
  }
  if (running) set_next_task_fair(*this, p, false);
}

Refusal nice_refusal(const Task* p, int nice) {
  if (!p) return Refusal::no_such_task;
  if (p->state == TaskState::dead) return Refusal::task_dead;
  if (p->policy == Policy::fifo) return Refusal::rt_task;
  if (nice < -20 || nice > 19) return Refusal::bad_argument;
  return Refusal::none;
}

Refusal policy_refusal(const Task* p, Policy policy) {
  if (!p) return Refusal::no_such_task;
  if (p->state == TaskState::dead) return Refusal::task_dead;
  if (p->policy == Policy::fifo || policy == Policy::fifo) return Refusal::rt_policy_change;
  return Refusal::none;
}

Refusal slice_refusal(const Task* p, const Profile& profile) {
  if (!p) return Refusal::no_such_task;
  if (p->state == TaskState::dead) return Refusal::task_dead;
  if (p->policy == Policy::fifo) return Refusal::rt_task;
  if (!profile.behaviour.custom_slices) return Refusal::no_custom_slices;
  return Refusal::none;
}

Refusal Rq::set_nice(int id, int nice) {
  if (oops) return Refusal::kernel_oopsed;
  Task* p = task(id);
  if (const Refusal r = nice_refusal(p, nice); r != Refusal::none) return r;
  if (p->nice == nice) return Refusal::none;
  const int old_prio = 120 + p->nice;
  sched_change(*p, dequeue_flags::SAVE | dequeue_flags::NOCLOCK, [&] {
    p->nice = nice;
    set_load_weight(*p, true);
  });
  prio_changed_fair(*this, *p, old_prio);
  return Refusal::none;
}

// __sched_setscheduler() / sched_setattr() for a fair policy: the
// sched_change guard around __setparam_fair() and set_load_weight(p, true).
// The nice level is kept, so prio_changed_fair() has nothing to do.
void Rq::change_fair_params(Task& p, Policy policy, u64 runtime) {
  sched_change(p, dequeue_flags::SAVE | dequeue_flags::MOVE | dequeue_flags::NOCLOCK, [&] {
    p.policy = policy;
    // before 857b158dc5e8 (v6.12) __setscheduler_params() leaves se->slice alone:
    // only place_entity() and update_deadline() set it (to the base slice)
    if (profile_.behaviour.custom_slices) setparam_fair(p, runtime, profile_.sysctl_sched_base_slice());
    set_load_weight(p, true);
  });
}

Refusal Rq::set_policy(int id, Policy policy) {
  if (oops) return Refusal::kernel_oopsed;
  Task* p = task(id);
  if (const Refusal r = policy_refusal(p, policy); r != Refusal::none) return r;
  const u64 runtime = p->se.custom_slice ? p->se.slice : 0;  // _sched_setscheduler keeps a custom slice
  if (policy == p->policy && runtime == p->se.slice) return Refusal::none;
  change_fair_params(*p, policy, runtime);
  return Refusal::none;
}

// sched_move_task() (v7.1): the sched_change guard (DEQUEUE_SAVE | DEQUEUE_MOVE)
// around sched_change_group(); a running task is rescheduled, and since v7.0
// (move_wakeup_preempts) a queued one that does not run goes through
// wakeup_preempt(p, 0). A TASK_NEW task
// only changes its group (task_change_group_fair() skips it; wake_up_new_task()
// sets its queue).
Refusal Rq::move_task(int id, int group) {
  if (oops) return Refusal::kernel_oopsed;
  Task* p = task(id);
  if (!p) return Refusal::no_such_task;
  if (p->state == TaskState::dead) return Refusal::task_dead;
  if (group >= 0 && (static_cast<std::size_t>(group) >= groups.size() || task_groups[static_cast<std::size_t>(group)].destroyed))
    return Refusal::no_such_group;
  if (p->policy == Policy::fifo) return Refusal::rt_task;
  if (p->group == group) return Refusal::none;
  const bool running = curr >= 0 && &tasks[static_cast<std::size_t>(curr)] == p;
  const bool queued = p->on_rq;
  sched_change(*p, dequeue_flags::SAVE | dequeue_flags::MOVE | dequeue_flags::NOCLOCK, [&] {
    // sched_change_group() → task_change_group_fair(): the task's averages leave
    // the old group's queue and join the new one's (a TASK_NEW task has none yet)
    const bool task_new = p->state == TaskState::new_;
    if (!task_new) detach_entity_cfs_rq(p->se);
    p->group = group;
    if (!task_new) p->se.avg.last_update_time = 0;
    set_task_rq(*p);
    if (!task_new) attach_entity_cfs_rq(p->se);
  });
  if (running)
    resched_curr();
  else if (queued && profile_.behaviour.move_wakeup_preempts)
    wakeup_preempt(*p, 0);  // e34881c84c25 (v7.0): a queued task that does not run is a wake-up
  return Refusal::none;
}

Refusal Rq::set_slice(int id, u64 slice_ns) {
  if (oops) return Refusal::kernel_oopsed;
  Task* p = task(id);
  if (const Refusal r = slice_refusal(p, profile_); r != Refusal::none) return r;
  if (slice_ns == p->se.slice) return Refusal::none;
  change_fair_params(*p, p->policy, slice_ns);
  return Refusal::none;
}

}  // namespace eevdf
