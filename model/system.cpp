// Several CPUs (model/system.hpp): the core.c wake-up with a CPU choice and
// the load balancer's migration of one task, newest mainline (v7.2).
#include "model/system.hpp"

#include <string_view>

#include "model/fair.hpp"
#include "model/wake_cpu.hpp"

namespace eevdf {

std::string runqueues_refusal(const std::string& profile, unsigned nr) {
  if (nr < 1 || nr > kMaxRunqueues) return "runqueues must be 1 .. 8";
  if (nr == 1) return {};
  // Each profile below had its migration path read in its kernel's source:
  // try_to_wake_up() with select_task_rq()/set_task_cpu() (WF_MIGRATED ->
  // ENQUEUE_MIGRATED), migrate_task_rq_fair() (PELT only since e8f331bcc270,
  // v6.6), detach_task()/attach_task() (deactivate_task() without
  // DEQUEUE_SLEEP, activate_task() adding ENQUEUE_MIGRATED, then the wakeup
  // preemption), dequeue_entity()/enqueue_entity()/place_entity(), and for a
  // delayed task ttwu_runnable() with ENQUEUE_DELAYED. Where the versions
  // differ, the model already follows the profile's Behaviour and features
  // (docs/profiles.md, "Several CPUs").
  static constexpr std::string_view kChecked[] = {
      // v7.2 (the reading the model was written from); mainline is v7.2 with
      // the two augment fixes, which do not touch the migration path.
      "mainline",
      "v7.2",
      // v7.3 with tasks at the root (no groups on several CPUs): v7.2's path
      // but for the wakeup/protection code and reweight_eevdf() at an
      // unchanged h_load.
      "v7.3",
      // v7.1: v7.2's path without the requeue's update_curr() (333238da9a19).
      "v7.1",
      // v7.0 (7.0.0 source): place_entity() restores a relative deadline
      // without the PLACE_REL_DEADLINE test, update_entity_lag() keeps no
      // delayed debt (DELAY_ZERO in requeue_delayed_entity() and
      // finish_delayed_dequeue_entity()), lag limit from max_slice.
      "v7.0",
      // v6.18 (6.18-rc5 source): v7.0's path with the own-slice lag limit,
      // the monotonic min_vruntime key base and the vlag/vprot union, which
      // the migration's update_entity_lag() overwrites.
      "v6.18",
      // v6.12 (6.12.10 source): relative deadline since 82e9d0456e06, restored
      // only under PLACE_REL_DEADLINE; can_migrate_task() still moves a
      // delayed task for any balance type (61b82dfb6b7e came in v6.14).
      "v6.12",
      // v6.12.10 (its own source): v6.12's path; its two backports change the
      // buddy clearing and the delayed counts, not the migration.
      "v6.12.10",
      // v6.12.118 (its own source, Debian linux-source-6.12): v6.12's path
      // (can_migrate_task() still has no migrate_load test for a delayed task,
      // place_entity() restores a relative deadline under PLACE_REL_DEADLINE,
      // own-slice lag limit, the parity stash in vlag), with the zero_vruntime
      // key base re-based by avg_vruntime() in place of min_vruntime.
      "v6.12.118",
      // v6.6 (6.6.9 source, equal to v6.6.0 on this path): no rel_deadline, so
      // place_entity() gives a migrated task a fresh full slice; no delayed
      // dequeue; the fork placement is redone by wake_up_new_task().
      "v6.6",
      // v6.6.9 (its own source): v6.6's path; only reweight_entity() differs
      "v6.6.9",
  };
  for (std::string_view name : kChecked)
    if (profile == name) return {};
  return "runqueues > 1 is modelled on the mainline, v7.3, v7.2, v7.1, v7.0, v6.18, v6.12.118, v6.12.10, v6.12, "
         "v6.6.9 and v6.6 "
         "profiles only "
         "(the migration path of '" +
         profile + "' was not checked)";
}

std::string smt_refusal(unsigned nr, unsigned smt) {
  if (smt < 1 || smt > kMaxRunqueues) return "smt must be 1 .. 8";
  if (smt == 1) return {};
  if (nr % smt != 0)
    return "smt " + std::to_string(smt) + " groups CPUs k*" + std::to_string(smt) + " .. k*" + std::to_string(smt) +
           "+" + std::to_string(smt - 1) + " into cores, so the runqueue count must be a multiple of " +
           std::to_string(smt) + " (runqueues " + std::to_string(nr) + ")";
  return {};
}

bool System::set_smt(unsigned siblings) {
  if (!smt_refusal(size(), siblings).empty()) return false;
  llc_.smt = siblings;
  return true;
}

System::System(const Profile& profile, unsigned nr) {
  tasks.reserve(kMaxTasks);
  task_groups.reserve(kMaxGroups);
  if (nr < 1) nr = 1;
  std::vector<Rq*> cpus;
  for (unsigned c = 0; c < nr; ++c) {
    rqs_.push_back(std::make_unique<Rq>(profile, nullptr, tasks, task_groups, static_cast<int>(c)));
    cpus.push_back(rqs_.back().get());
  }
  for (auto& r : rqs_) {
    r->set_possible_cpus(cpus);
    r->llc_shared = &llc_;
    r->bandwidth_users = &bandwidth_users_;
  }
}

// The group operations loop over every CPU themselves (Rq::possible_cpus()),
// so any runqueue can run them; a task's move runs on its own CPU.
int System::create_group(std::string_view name, int parent, u64 shares) {
  return rqs_[0]->create_group(name, parent, shares);
}
Refusal System::set_group_shares(int group, u64 shares) { return rqs_[0]->set_group_shares(group, shares); }
Refusal System::set_group_idle(int group, bool idle) { return rqs_[0]->set_group_idle(group, idle); }
Refusal System::move_task(int task, int group) { return rq_of(task).move_task(task, group); }
Refusal System::destroy_group(int group) { return rqs_[0]->destroy_group(group); }
Refusal System::write_base_slice_ns(u64 ns) {
  if (oops()) return Refusal::kernel_oopsed;
  for (auto& r : rqs_)
    if (Refusal why = r->write_base_slice_ns(ns); why != Refusal::none) return why;
  return Refusal::none;
}

Rq& System::rq_of(int id) {
  const Task* p = rqs_[0]->task(id);
  return p ? *rqs_[static_cast<std::size_t>(p->cpu)] : *rqs_[0];
}
const Rq& System::rq_of(int id) const {
  const Task* p = rqs_[0]->task(id);
  return p ? *rqs_[static_cast<std::size_t>(p->cpu)] : *rqs_[0];
}

bool System::pelt_kept() const { return pelt_kept_; }

bool System::oops() const {
  for (const auto& r : rqs_)
    if (r->oops) return true;
  return false;
}

// try_to_wake_up() (core.c, v7.2): a task still on its runqueue (delayed) is
// woken there by ttwu_runnable() before select_task_rq() runs, so `cpu` is
// not consulted; a new task gets its CPU by __set_task_cpu() in
// wake_up_new_task(); a sleeping task moved by set_task_cpu() (only PELT in
// migrate_task_rq_fair(): its saved vlag is all the EEVDF state it carries)
// is activated with WF_MIGRATED / ENQUEUE_MIGRATED.
bool System::chooses_wake_cpu(int id, int cpu) const {
  const Task* p = rq_of(id).task(id);
  return p && cpu < 0 && size() > 1 && !p->on_rq && p->state == TaskState::sleeping;
}

// What stops a choice before select_task_rq_fair() is asked: a bad waking
// CPU, a crashed kernel, an RT task (select_task_rq_rt()).
Refusal System::wake_choice_blocked(int id, int from) const {
  if (from >= static_cast<int>(size())) return Refusal::bad_argument;
  if (oops()) return Refusal::kernel_oopsed;
  if (rq_of(id).task(id)->policy == Policy::fifo) return Refusal::rt_wake_cpu;
  return Refusal::none;
}

Refusal System::wake_choice_refusal(int id, bool sync, int cpu, int from) const {
  if (!chooses_wake_cpu(id, cpu)) return Refusal::none;
  if (const Refusal r = wake_choice_blocked(id, from); r != Refusal::none) return r;
  return wake_cpu_refusal(*this, id, from < 0 ? rq_of(id).task(id)->cpu : from, sync);
}

Refusal System::wake(int id, bool sync, int cpu, int from) {
  Rq& src = rq_of(id);
  Task* p = src.task(id);
  if (p && p->state == TaskState::new_) p->recent_used_cpu = p->cpu;  // wake_up_new_task(), before select_task_rq()
  last_wake_choice_ = {};
  if (chooses_wake_cpu(id, cpu)) {
    if (const Refusal r = wake_choice_blocked(id, from); r != Refusal::none) return r;
    bool wide = false, weighed = false;
    if (const Refusal r = select_task_rq_fair_wake(*this, id, from < 0 ? p->cpu : from, sync, cpu, wide, weighed);
        r != Refusal::none)
      return r;
    last_wake_choice_ = {true, wide, weighed};
  }
  if (!p || cpu < 0 || p->on_rq || p->state == TaskState::dead || p->state == TaskState::running ||
      cpu == p->cpu)
    return src.wake(id, sync);
  if (static_cast<unsigned>(cpu) >= size()) return Refusal::bad_argument;
  Rq& dst = rq(static_cast<unsigned>(cpu));
  if (src.oops || dst.oops) return Refusal::kernel_oopsed;
  const bool migrated = p->state != TaskState::new_;
  // set_task_cpu() (wake_up_new_task() has only __set_task_cpu()) calls the
  // task's class's migrate_task_rq(): an RT task's (migrate_task_rq_rt()) leaves
  // se.avg alone (set_task_rq_fair() ages it, a cut point of the backend:
  // kernelsrc/shim_smp.h; never read while the task is RT)
  if (migrated && p->policy != Policy::fifo) migrate_task_rq_fair(*p, false);
  dst.set_task_cpu(*p);
  return dst.wake(id, sync, migrated);
}

// detach_task() + attach_task() (fair.c, v7.2): deactivate_task() with
// DEQUEUE_NOCLOCK on the source (not a sleep: update_entity_lag() saves the
// lag and the deadline becomes relative; a delayed task stays delayed, as a
// load migration may move it), set_task_cpu(), activate_task() with
// ENQUEUE_NOCLOCK | ENQUEUE_MIGRATED (task_on_rq_migrating()) on the
// destination, then wakeup_preempt() there. A sleeping or new task only
// changes CPU.
Refusal System::migrate(int id, int cpu) {
  Rq& src = rq_of(id);
  Task* p = src.task(id);
  if (!p) return Refusal::no_such_task;
  if (cpu < 0 || static_cast<unsigned>(cpu) >= size()) return Refusal::bad_argument;
  Rq& dst = rq(static_cast<unsigned>(cpu));
  if (src.oops || dst.oops) return Refusal::kernel_oopsed;
  if (p->state == TaskState::dead) return Refusal::task_dead;
  if (p->policy == Policy::fifo) return Refusal::rt_task;  // the fair load balancer moves fair tasks
  if (src.curr == id) return Refusal::task_on_cpu;
  if (task_is_throttled(src, *p)) return Refusal::task_throttled;  // v6.18: off the queue, off cfs_tasks
  if (cpu == p->cpu) return Refusal::none;
  if (!p->on_rq) {
    if (p->state != TaskState::new_) migrate_task_rq_fair(*p, false);  // set_task_cpu()
    dst.set_task_cpu(*p);
    return Refusal::none;
  }
  // p->on_rq = TASK_ON_RQ_MIGRATING: the model's DEQUEUE_MIGRATING stands for it
  dequeue_task_fair(src, *p, dequeue_flags::NOCLOCK | dequeue_flags::MIGRATING);
  migrate_task_rq_fair(*p, true);
  dst.set_task_cpu(*p);
  enqueue_task_fair(dst, *p, enqueue_flags::NOCLOCK | enqueue_flags::MIGRATED);  // p->on_rq = TASK_ON_RQ_QUEUED
  dst.wakeup_preempt(*p, 0);
  return Refusal::none;
}

// CPU bandwidth control: the steps also end where a queued period or slack
// timer expires, and the timers due fire after every CPU's step
// (fire_bandwidth_timers()).
void System::run(u64 ns) {
  // no quota and no timer queued: none can be armed on the way
  if (size() == 1 && !rqs_[0]->cfs_bandwidth_used() && !next_bandwidth_expiry(task_groups)) {
    rqs_[0]->run(ns);
    return;
  }
  const u64 tick = rqs_[0]->profile().tick_nsec();
  u64 now = rqs_[0]->clock_task;
  const u64 end = now + ns;
  for (;;) {
    const u64 next_tick = (now / tick + 1) * tick;
    u64 step_end = next_tick > end ? end : next_tick;
    if (const u64 t = next_bandwidth_expiry(task_groups); t && t > now && t < step_end) step_end = t;
    for (auto& r : rqs_) {
      if (r->oops) {
        r->clock_task = step_end;  // a dead CPU's clock still shows the wall clock
        continue;
      }
      r->run(step_end - now);
    }
    now = step_end;
    fire_bandwidth_timers();
    if (now == end) break;
  }
}

std::optional<DueTimer> next_due_bandwidth_timer(const std::vector<TaskGroup>& groups, u64 now) {
  std::optional<DueTimer> best;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    for (const bool slack : {false, true}) {
      const HrTimer& t = slack ? groups[g].cfs_bandwidth.slack_timer : groups[g].cfs_bandwidth.period_timer;
      if (!t.queued || as_s64(t.expires - now) > 0) continue;
      if (!best || as_s64(t.expires - best->expires) < 0) best = DueTimer{static_cast<int>(g), slack, t.expires};
    }
  }
  return best;
}

u64 next_bandwidth_expiry(const std::vector<TaskGroup>& groups) {
  u64 best = 0;
  for (const TaskGroup& tg : groups)
    for (const HrTimer* t : {&tg.cfs_bandwidth.period_timer, &tg.cfs_bandwidth.slack_timer})
      if (t->queued && (!best || t->expires < best)) best = t->expires;
  return best;
}

void System::fire_bandwidth_timers() {
  const u64 now = rqs_[0]->clock_task;
  while (const auto due = next_due_bandwidth_timer(task_groups, now)) {
    CfsBandwidth& cfs_b = task_groups[static_cast<std::size_t>(due->group)].cfs_bandwidth;
    HrTimer& t = due->slack ? cfs_b.slack_timer : cfs_b.period_timer;
    Rq& r = *rqs_[static_cast<std::size_t>(t.cpu)];
    if (r.oops) {  // a crashed CPU runs nothing: its timer is lost
      t.queued = false;
      continue;
    }
    if (due->slack)
      r.fire_slack_timer(due->group);
    else
      r.fire_period_timer(due->group);
  }
  for (auto& r : rqs_)
    if (!r->oops && !r->cfsb_csd_list.empty()) r->run_cfsb_csd();
}

Refusal System::set_group_bandwidth(int group, u64 quota, u64 period, u64 burst) {
  return rqs_[0]->set_group_bandwidth(group, quota, period, burst);
}

void System::tick() {
  const u64 tick = rqs_[0]->profile().tick_nsec();
  const u64 now = rqs_[0]->clock_task;
  run((now / tick + 1) * tick - now);
}

Refusal System::run_notick(u64 ns) {
  if (size() == 1) {
    const Refusal r = rqs_[0]->run_notick(ns);
    if (r == Refusal::none) fire_bandwidth_timers();  // the timers due in the stretch fire at its end
    return r;
  }
  for (auto& r : rqs_)
    if (!r->oops && !r->tick_stoppable()) return Refusal::tick_needed;
  for (auto& r : rqs_) {
    if (r->oops)
      r->clock_task += ns;  // a dead CPU's clock still shows the wall clock
    else
      r->run_notick(ns);
  }
  fire_bandwidth_timers();
  return Refusal::none;
}

void System::tick_after(u64 ns) {
  for (auto& r : rqs_) {
    if (r->oops && size() > 1) r->clock_task += ns;
    r->tick_after(ns);
  }
  fire_bandwidth_timers();
}

// `tick nopreempt` on every CPU, CPU 0 first: each to its next tick boundary
// (one wall clock: every CPU's is the same), one sched_tick(), nothing honoured.
void System::tick_nopreempt() {
  for (auto& r : rqs_) {
    if (r->oops) {
      const u64 tick = r->profile().tick_nsec();
      r->clock_task = (r->clock_task / tick + 1) * tick;
      continue;
    }
    r->tick_nopreempt();
  }
  fire_bandwidth_timers();
}

void System::schedule() {
  for (auto& r : rqs_) r->schedule();
}

}  // namespace eevdf
