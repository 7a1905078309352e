#include "kernelsrc/kernel_backend.hpp"

#include <atomic>
#include <iterator>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "kernelsrc/kb_api.h"
#include "model/fair.hpp"
#include "model/weights.hpp"

namespace eevdf::kernelsrc {

static_assert(KB_MAX_CPUS == kMaxRunqueues, "the glue keeps a struct rq for every CPU the model can have");

namespace {
std::atomic<bool> g_alive{false};

int policy_number(Policy p) {  // uapi SCHED_NORMAL, SCHED_BATCH, SCHED_IDLE
  switch (p) {
    case Policy::normal: return 0;
    case Policy::batch: return 3;
    case Policy::idle: return 5;
    case Policy::fifo: return 1;  // SCHED_FIFO: the glue's RT task
  }
  return 0;
}

// sysctl_sched_features from the profile: a features.h entry the model knows
// takes the profile's value, any other the tree's default.
unsigned features_of(const Profile& profile) {
  unsigned bits = 0;
  for (int i = 0; kb_feature_names[i]; ++i) {
    const auto f = feature_from_name(kb_feature_names[i]);
    const bool on = f ? profile.feat(*f) : kb_feature_defaults[i] != 0;
    if (on) bits |= 1u << i;
  }
  return bits;
}

void on_warn(void* ctx, const char* file, int line, const char* cond) {
  static_cast<std::vector<KernelWarning>*>(ctx)->push_back({file, line, cond});
}

// I-OVF on the kernel's code: the model's arithmetic of a tree function,
// re-run on the mirror at the moment the tree's function begins (the operands
// are the tree's), heard for its overflows only (the model's shadow of each
// multiplication and addition, docs/kernel-backend.md "Which invariants run
// where"). Every other hook of that run is dropped: the tree's own events tell those.
class OverflowsOnly final : public Observer {
 public:
  explicit OverflowsOnly(Observer& to) : to_(to) {}
  void on_overflow(const OverflowEvent& e) override { to_.on_overflow(e); }

 private:
  Observer& to_;
};

TaskState state_of(int s) {
  switch (s) {
    case KB_TASK_NEW: return TaskState::new_;
    case KB_TASK_RUNNING: return TaskState::running;
    case KB_TASK_DEAD: return TaskState::dead;
    default: return TaskState::sleeping;
  }
}
}  // namespace

bool available() { return true; }
bool debug_reader_unlocked() { return kb_debug_reader_unlocked() != 0; }
std::string kernel_version() {
  const std::string changes = kb_kernel_changes();
  return std::string(kb_kernel_version()) + (changes.empty() ? "" : " (" + changes + ")");
}
std::vector<std::string> applied_fixes() {
  // EEVDF_KERNEL_CHANGES: "fix K1; fix F9; patch a.patch" (kernelsrc/extract.py, apply_changes())
  std::vector<std::string> ids;
  const std::string changes = kb_kernel_changes();
  std::size_t at = 0;
  while (at < changes.size()) {
    std::size_t end = changes.find("; ", at);
    if (end == std::string::npos) end = changes.size();
    const std::string item = changes.substr(at, end - at);
    if (item.rfind("fix ", 0) == 0) ids.push_back(item.substr(4));
    at = end + 2;
  }
  return ids;
}
KernelRelease tree_release() {
  // EEVDF_KERNEL_VERSION is VERSION.PATCHLEVEL.SUBLEVEL of the tree's Makefile (kernelsrc/extract.py)
  KernelRelease r;
  if (std::sscanf(kb_kernel_version(), "%u.%u.%u", &r.major, &r.minor, &r.sublevel) != 3) return {};
  return r;
}
std::string judge() { return judge_for_kernel(tree_release()); }

bool smp() { return kb_smp() != 0; }
bool bandwidth() { return kb_has_bandwidth() != 0; }
std::string bandwidth_refusal() {
  if (bandwidth()) return {};
  return "CPU bandwidth control (cpu.max) runs on the kernel's code of Linux 6.6.0, 6.12.0, 6.12.10 and 6.12.118 "
         "built with CONFIG_SMP only; "
         "this build's tree, Linux " + kernel_version() + (smp() ? "" : " built !CONFIG_SMP") +
         ", is built without CONFIG_CFS_BANDWIDTH (kernelsrc/extract_trees.py, BANDWIDTH_TREES)";
}

std::string refusal(const Profile& profile, unsigned runqueues) {
  (void)profile;
  if (runqueues > 1 && !smp())
    return "the kernel backend runs one CPU (runqueues 1) on Linux " + kernel_version() +
           ": this tree is built !CONFIG_SMP (its fair.c has no migration code: no set_task_cpu(), no "
           "migrate_task_rq_fair(), one group entity a group); several runqueues need a 6.18 or later tree";
  if (runqueues > KB_MAX_CPUS) return "the kernel backend runs at most " + std::to_string(KB_MAX_CPUS) + " CPUs";
  return {};
}

KernelBackend::KernelBackend(const Profile& profile, unsigned runqueues, unsigned smt) : profile_(profile) {
  if (!refusal(profile, runqueues).empty()) throw std::runtime_error("kernel backend: " + refusal(profile, runqueues));
  if (!smt_refusal(runqueues, smt).empty()) throw std::runtime_error("kernel backend: " + smt_refusal(runqueues, smt));
  if (g_alive.exchange(true)) throw std::runtime_error("kernel backend: one instance at a time");
  mirror_ = std::make_unique<System>(profile_, runqueues < 1 ? 1 : runqueues);
  mirror_->set_smt(smt);
  kb_config cfg{};
  cfg.features = features_of(profile_);
  cfg.ncpus = profile_.tunables.ncpus;
  cfg.tick_nsec = profile_.tick_nsec();
  cfg.normalized_base_slice = profile_.tunables.normalized_base_slice;
  cfg.nr_cpus = mirror_->size();
  cfg.hz = profile_.tunables.hz;
  cfg.smt = mirror_->llc_shared().smt;
  kb_init(&cfg, on_warn, &warnings_);
  kb_set_event_handler(&KernelBackend::on_event, this);
  kb_set_listen_query(&KernelBackend::listening);
  // EEVDF_HANDBACK_CHECK_EVERY=N: the marks' check every N entry points (1: at
  // every export) for a whole campaign; a number from 1 to 2^20, else refused
  if (const char* every = std::getenv("EEVDF_HANDBACK_CHECK_EVERY")) {
    char* end = nullptr;
    const unsigned long n = std::strtoul(every, &end, 10);
    if (end == every || *end != '\0' || n < 1 || n > (1ul << 20))
      throw std::runtime_error(std::string("kernel backend: EEVDF_HANDBACK_CHECK_EVERY=") + every +
                               ": not a number from 1 to 1048576");
    check_every_ = static_cast<unsigned>(n);
  }
  refresh(Handback::all);
}

template <class F>
void KernelBackend::overflow_shadow(Rq& rq, F f) {
  if (!overflow_shadow_on_) return;
  Observer& obs = rq.obs();
  OverflowsOnly overflows(obs);
  rq.set_observer(&overflows);
  f();
  rq.set_observer(&obs);
  refresh(Handback::all, false);  // f wrote the mirror's entities
}

int KernelBackend::listening(void* self, int cpu) {
  const auto& kb = *static_cast<const KernelBackend*>(self);
  return cpu >= 0 && static_cast<unsigned>(cpu) < kb.mirror_->size() &&
         &kb.mirror_->rq(static_cast<unsigned>(cpu)).obs() != &null_observer();
}

void KernelBackend::on_event(void* self, const kb_event* e) {
  auto& kb = *static_cast<KernelBackend*>(self);
  if (e->cpu < 0 || static_cast<unsigned>(e->cpu) >= kb.mirror_->size() || e->queue < -1) return;
  Rq& rq = kb.mirror_->rq(static_cast<unsigned>(e->cpu));
  Observer& obs = rq.obs();
  if (&obs == &null_observer()) return;
  kb.refresh(kb.events_how_, false);
  CfsRq& q = rq.group_queue(e->queue);
  if (e->kind == KB_EVENT_AVG) {
    obs.on_avg_vruntime(q, e->avg);
    return;
  }
  if (e->kind == KB_EVENT_READ_AVG) {
    static constexpr const char* kReaders[] = {"update_entity_lag", "place_entity", "pick_eevdf"};
    if (e->reader >= 0 && static_cast<std::size_t>(e->reader) < std::size(kReaders)) obs.on_read_avg(q, kReaders[e->reader]);
    return;
  }
  // the decision's pick: pick_eevdf() itself (6.18, 7.0: __pick_eevdf()), or through
  // pick_next_entity() (7.1), which dequeues a delayed answer, as the model's callers
  const PickCaller decision = e->via_pick_next ? PickCaller::wakeup_preempt : PickCaller::wakeup_preempt_decision;
  if (e->kind == KB_EVENT_DECISION_PICK && e->entity < 0) {
    obs.on_pick(q, nullptr, e->protect != 0, decision);
    return;
  }
  if (e->kind == KB_EVENT_PICK && e->entity < 0) {
    // a schedule's pick_eevdf() returned NULL: the kernel crashes in pick_next_entity(),
    // reported as the model reports it (pick_next_entity(): on_pick, then the warning)
    obs.on_pick(q, nullptr, true, PickCaller::schedule);
    obs.on_warn(Warn::pick_next_entity_null, nullptr);
    return;
  }
  if (e->kind == KB_EVENT_WAKE_CHOICE) {
    obs.on_wake_choice({e->entity, e->cpu, e->prev_cpu, e->chosen_cpu, e->sync != 0, e->recent_used_cpu,
                        e->had_idle_cores != 0});
    return;
  }
  if (e->entity < 0) return;
  SchedEntity& se = e->entity < KB_MAX_TASKS ? kb.mirror_->rq(0).tasks[static_cast<std::size_t>(e->entity)].se
                                             : rq.groups[static_cast<std::size_t>(e->entity - KB_MAX_TASKS)].se;
  switch (e->kind) {
    case KB_EVENT_PLACED: obs.on_placed(q, se, e->saved_lag); break;
    case KB_EVENT_PICK: obs.on_pick(q, &se, true, PickCaller::schedule); break;
    case KB_EVENT_SET_NEXT: obs.on_set_next(se, e->first != 0); break;
    case KB_EVENT_DELAYED: obs.on_delayed(se); break;
    case KB_EVENT_MADE_RELATIVE: obs.on_deadline_made_relative(se); break;
    case KB_EVENT_REWEIGHT_BEGIN:
      obs.on_reweight_begin(q, se, e->weight);
      // the rescale products (and, from 6.14 on, the re-placement's) of this reweight
      kb.overflow_shadow(rq, [&] { reweight_entity(q, se, e->weight); });
      break;
    case KB_EVENT_PLACING:  // lag·(load + w), V and the virtual slice of this placement
      kb.overflow_shadow(rq, [&] { place_entity(q, se, e->initial ? enqueue_flags::INITIAL : 0); });
      break;
    case KB_EVENT_RELATIVE_RESCALED:
      obs.on_relative_deadline_rescaled(se, e->old_relative, e->old_weight, e->weight);
      break;
    case KB_EVENT_REWEIGHT_END: obs.on_reweight_end(q, se); break;
    case KB_EVENT_LOAD_SET: obs.on_load_set(se, e->old_weight); break;
    case KB_EVENT_LAG: obs.on_lag_clamp(q, se, e->lag_raw, e->lag_saved); break;
    case KB_EVENT_DECISION_PICK: obs.on_pick(q, &se, e->protect != 0, decision); break;
    case KB_EVENT_WAKEUP_PREEMPT:
      switch (e->reason) {
        case KB_PREEMPT_PICK: obs.on_wakeup_preempt(q, se, WakeupPreemptReason::pick); break;
        case KB_PREEMPT_SHORT_PICK: obs.on_wakeup_preempt(q, se, WakeupPreemptReason::short_pick); break;
        case KB_PREEMPT_IDLE_CURR: obs.on_wakeup_preempt(q, se, WakeupPreemptReason::idle_curr); break;
        case KB_PREEMPT_SYNC: obs.on_wakeup_preempt(q, se, WakeupPreemptReason::sync); break;
        default: break;
      }
      break;
    default: break;
  }
}

KernelBackend::~KernelBackend() { g_alive = false; }

void KernelBackend::test_write_unmarked(int task) { kb_test_write_unmarked(task); }

std::vector<KernelWarning> KernelBackend::take_warnings() {
  std::vector<KernelWarning> out;
  out.swap(warnings_);
  return out;
}

Task* KernelBackend::task(int id) { return mirror_->rq(0).task(id); }
Rq& KernelBackend::rq_of(int id) { return mirror_->rq_of(id); }

int KernelBackend::create_task(std::string_view name, int nice, Policy policy, u64 custom_slice_ns, int group) {
  Rq& rq = mirror_->rq(0);
  if (rq.tasks.size() >= kMaxTasks || nice < -20 || nice > 19) return -1;
  if (group >= 0 && static_cast<std::size_t>(group) >= rq.task_groups.size()) return -1;
  if (policy == Policy::fifo && (nice != 0 || custom_slice_ns != 0 || group >= 0)) return -1;
  events_how_ = Handback::compare;  // the rarer entry points: no marks
  const int id = kb_create_task(nice, policy_number(policy), custom_slice_ns, group);
  if (id < 0) return -1;
  Task& t = rq.tasks.emplace_back();
  t.name = std::string(name);
  t.nice = nice;
  t.policy = policy;
  t.se.task_id = id;
  refresh(Handback::all);  // the task vector may have moved
  return id;
}

int KernelBackend::fork_task(int parent, std::string_view child_name, bool racing) {
  Rq& rq = mirror_->rq(0);
  const Task* p = task(parent);
  if (!p || parent != rq_of(parent).curr || rq.tasks.size() >= kMaxTasks) return -1;
  events_how_ = Handback::compare;  // the rarer entry points: no marks
  const int id = kb_fork_task(parent, racing ? 1 : 0);
  if (id < 0) return -1;
  Task child = *p;
  child.name = std::string(child_name);
  child.se.task_id = id;
  child.sched_reset_on_fork = false;
  if (child.nice < 0 && p->sched_reset_on_fork) child.nice = 0;
  rq.tasks.push_back(std::move(child));
  refresh(Handback::all);  // the task vector may have moved
  return id;
}

// try_to_wake_up() / wake_up_new_task() with select_task_rq() answering `cpu`
// (-1: the task's own CPU; kTreeChoosesCpu: the tree's select_task_rq_fair(),
// made from CPU `from`), refused as System::wake() refuses: a task still
// queued (delayed) is woken on its own CPU whatever `cpu` says.
Refusal KernelBackend::wake(int id, bool sync, int cpu, int from) {
  if (kb_oopsed()) return Refusal::kernel_oopsed;
  Task* p = task(id);
  if (!p) return Refusal::no_such_task;
  // Several CPUs and no CPU named: the tree's select_task_rq_fair() chooses,
  // refused where the model refuses (System::wake_choice_refusal()): an RT
  // task, and a choice whose idle-CPU scan read SIS_UTIL's PELT budget
  // (kb_select_task_rq_wake()).
  if (cpu == kTreeChoosesCpu || (cpu < 0 && mirror_->size() > 1)) {
    if (from >= static_cast<int>(mirror_->size())) return Refusal::bad_argument;
    const bool chooses = mirror_->size() > 1 && !p->on_rq && p->state == TaskState::sleeping;
    if (chooses && p->policy == Policy::fifo) return Refusal::rt_wake_cpu;
    cpu = chooses ? kb_select_task_rq_wake(id, sync ? 1 : 0, from < 0 ? p->cpu : from) : -1;
    if (cpu == KB_CHOICE_SIS_UTIL) return Refusal::sis_util_scan;
    wake_choice_ = WakeChoice{id, cpu};
  }
  const bool elsewhere = cpu >= 0 && !p->on_rq && p->state != TaskState::dead && p->state != TaskState::running &&
                         cpu != p->cpu;
  if (elsewhere && static_cast<unsigned>(cpu) >= mirror_->size()) return Refusal::bad_argument;
  if (p->state == TaskState::dead) return Refusal::task_dead;
  if (p->state == TaskState::running) return Refusal::task_already_awake;
  kb_wake(id, sync ? 1 : 0, profile_.behaviour.place_at_fork ? 0 : 1, elsewhere ? cpu : -1);
  refresh();
  return Refusal::none;
}

Refusal KernelBackend::sleep(int id) {
  if (kb_oopsed()) return Refusal::kernel_oopsed;
  if (!task(id)) return Refusal::no_such_task;
  if (id != rq_of(id).running()) return Refusal::task_not_running_on_cpu;
  kb_sleep(id, 0);
  refresh();
  return Refusal::none;
}

Refusal KernelBackend::exit_task(int id) {
  if (kb_oopsed()) return Refusal::kernel_oopsed;
  if (!task(id)) return Refusal::no_such_task;
  if (id != rq_of(id).running()) return Refusal::task_not_running_on_cpu;
  kb_sleep(id, 1);
  kb_exit_delayed(id);
  refresh();
  return Refusal::none;
}

Refusal KernelBackend::yield(int id) {
  if (kb_oopsed()) return Refusal::kernel_oopsed;
  if (!task(id)) return Refusal::no_such_task;
  if (task(id)->policy == Policy::fifo) return Refusal::rt_task;
  if (id != rq_of(id).curr) return Refusal::task_not_running_on_cpu;
  kb_yield(id);
  refresh();
  return Refusal::none;
}

Refusal KernelBackend::return_to_user(int id) {
  if (kb_oopsed()) return Refusal::kernel_oopsed;
  if (!task(id)) return Refusal::no_such_task;
  if (id != rq_of(id).running()) return Refusal::task_not_running_on_cpu;
  return Refusal::none;
}

Refusal KernelBackend::set_nice(int id, int nice) {
  if (kb_oopsed()) return Refusal::kernel_oopsed;
  Task* p = task(id);
  if (const Refusal r = nice_refusal(p, nice); r != Refusal::none) return r;
  if (p->nice == nice) return Refusal::none;
  p->nice = nice;
  kb_set_nice(id, nice);
  refresh();
  return Refusal::none;
}

Refusal KernelBackend::set_policy(int id, Policy policy) {
  if (kb_oopsed()) return Refusal::kernel_oopsed;
  Task* p = task(id);
  if (const Refusal r = policy_refusal(p, policy); r != Refusal::none) return r;
  const u64 runtime = p->se.custom_slice ? p->se.slice : 0;
  if (policy == p->policy && runtime == p->se.slice) return Refusal::none;
  p->policy = policy;
  events_how_ = Handback::compare;  // the rarer entry points: no marks
  kb_set_params(id, policy_number(policy), runtime);
  refresh(Handback::compare);
  return Refusal::none;
}

Refusal KernelBackend::set_slice(int id, u64 slice_ns) {
  if (kb_oopsed()) return Refusal::kernel_oopsed;
  Task* p = task(id);
  if (const Refusal r = slice_refusal(p, profile_); r != Refusal::none) return r;
  if (slice_ns == p->se.slice) return Refusal::none;
  events_how_ = Handback::compare;  // the rarer entry points: no marks
  kb_set_params(id, policy_number(p->policy), slice_ns);
  refresh(Handback::compare);
  return Refusal::none;
}

// The load balancer's detach_task() + attach_task() (kb_migrate()), refused as
// System::migrate() refuses: the running task, an RT task, a dead one; the
// task's own CPU is nothing to do; a task that is not queued only changes CPU.
Refusal KernelBackend::migrate(int id, int cpu) {
  const Task* p = task(id);
  if (!p) return Refusal::no_such_task;
  if (cpu < 0 || static_cast<unsigned>(cpu) >= mirror_->size()) return Refusal::bad_argument;
  if (kb_oopsed()) return Refusal::kernel_oopsed;
  if (p->state == TaskState::dead) return Refusal::task_dead;
  if (p->policy == Policy::fifo) return Refusal::rt_task;
  if (rq_of(id).curr == id) return Refusal::task_on_cpu;
  if (cpu == p->cpu) return Refusal::none;
  if (kb_migrate(id, cpu) != 0) return Refusal::bad_argument;
  refresh();
  return Refusal::none;
}

int KernelBackend::create_group(std::string_view name, int parent, u64 shares) {
  Rq& rq = mirror_->rq(0);
  if (rq.task_groups.size() >= kMaxGroups) return -1;
  if (parent >= 0 && static_cast<std::size_t>(parent) >= rq.task_groups.size()) return -1;
  if (shares < kMinShares || shares > kMaxShares) return -1;
  const int id = static_cast<int>(rq.task_groups.size());
  TaskGroup& tg = rq.task_groups.emplace_back();
  tg.name = std::string(name);
  tg.parent = parent;
  for (unsigned c = 0; c < mirror_->size(); ++c) {  // tg->se[c], tg->cfs_rq[c]
    Rq& crq = mirror_->rq(c);
    TaskGroupCpu& gc = crq.groups.emplace_back();
    gc.cfs_rq.rq = &crq;
    gc.cfs_rq.group_id = id;
    gc.se.group_id = id;
    gc.se.my_q = &gc.cfs_rq;
    tg.se.push_back(&gc.se);
    tg.cfs_rq.push_back(&gc.cfs_rq);
  }
  events_how_ = Handback::compare;  // the rarer entry points: no marks
  const int g = kb_create_group(parent, shares);
  refresh(Handback::all);  // the group vectors may have moved
  return g;
}

Refusal KernelBackend::set_group_shares(int group, u64 shares) {
  if (kb_oopsed()) return Refusal::kernel_oopsed;
  const Rq& rq = mirror_->rq(0);
  if (group < 0 || static_cast<std::size_t>(group) >= rq.task_groups.size()) return Refusal::no_such_group;
  events_how_ = Handback::compare;  // the rarer entry points: no marks
  if (kb_set_group_shares(group, shares) != 0) return Refusal::group_is_idle;
  refresh(Handback::compare);
  return Refusal::none;
}

Refusal KernelBackend::set_group_idle(int group, bool idle) {
  if (kb_oopsed()) return Refusal::kernel_oopsed;
  const Rq& rq = mirror_->rq(0);
  if (group < 0 || static_cast<std::size_t>(group) >= rq.task_groups.size()) return Refusal::no_such_group;
  events_how_ = Handback::compare;  // the rarer entry points: no marks
  if (kb_set_group_idle(group, idle ? 1 : 0) != 0) return Refusal::bad_argument;
  refresh(Handback::compare);
  return Refusal::none;
}

Refusal KernelBackend::move_task(int id, int group) {
  if (kb_oopsed()) return Refusal::kernel_oopsed;
  Task* p = task(id);
  const Rq& rq = mirror_->rq(0);
  if (!p) return Refusal::no_such_task;
  if (p->state == TaskState::dead) return Refusal::task_dead;
  if (group >= 0 && (static_cast<std::size_t>(group) >= rq.task_groups.size() ||
                     rq.task_groups[static_cast<std::size_t>(group)].destroyed))
    return Refusal::no_such_group;
  if (p->policy == Policy::fifo) return Refusal::rt_task;
  if (p->group == group) return Refusal::none;
  events_how_ = Handback::compare;  // the rarer entry points: no marks
  kb_move_task(id, group);
  refresh(Handback::compare);
  return Refusal::none;
}

// cgroup rmdir: refused as the model refuses it (a task that has not exited,
// or a child group not removed, is in it: -EBUSY), then the tree's
// unregister_fair_sched_group(); the mirror's group is marked removed.
Refusal KernelBackend::destroy_group(int group) {
  if (kb_oopsed()) return Refusal::kernel_oopsed;
  Rq& rq = mirror_->rq(0);
  if (group < 0 || static_cast<std::size_t>(group) >= rq.task_groups.size() ||
      rq.task_groups[static_cast<std::size_t>(group)].destroyed)
    return Refusal::no_such_group;
  for (const Task& p : rq.tasks)
    if (p.group == group && p.state != TaskState::dead) return Refusal::group_has_tasks;
  for (const TaskGroup& child : rq.task_groups)
    if (child.parent == group && !child.destroyed) return Refusal::group_has_children;
  events_how_ = Handback::compare;  // the rarer entry points: no marks
  kb_destroy_group(group);
  rq.task_groups[static_cast<std::size_t>(group)].destroyed = true;  // shared by every CPU
  refresh(Handback::compare);
  return Refusal::none;
}

// The debugfs write, on the kernel's sysctl_sched_base_slice and on the
// mirror's profile (which the invariants read: I-SLICE's base slice).
Refusal KernelBackend::write_base_slice_ns(u64 ns) {
  if (kb_oopsed()) return Refusal::kernel_oopsed;
  if (ns < kMinBaseSliceWriteNs || ns > kMaxBaseSliceWriteNs) return Refusal::bad_argument;
  events_how_ = Handback::compare;  // the rarer entry points: no marks
  kb_write_base_slice_ns(ns);
  const Refusal r = mirror_->write_base_slice_ns(ns);
  refresh(Handback::compare);
  return r;
}

// cpu.max: refused as the model refuses (no such group), then the glue's
// tg_set_cfs_bandwidth(); its -EINVAL is bad_argument. Handed back by
// comparison: the tree's unthrottle may run on any CPU.
Refusal KernelBackend::set_group_bandwidth(int group, u64 quota, u64 period, u64 burst) {
  if (!bandwidth()) return Refusal::no_bandwidth_model;  // bandwidth_refusal() says why
  if (kb_oopsed()) return Refusal::kernel_oopsed;
  const Rq& rq = mirror_->rq(0);
  if (group < 0 || static_cast<std::size_t>(group) >= rq.task_groups.size() ||
      rq.task_groups[static_cast<std::size_t>(group)].destroyed)
    return Refusal::no_such_group;
  events_how_ = Handback::compare;  // the rarer entry points: no marks
  const int r = kb_set_bandwidth(group, period, quota, burst);
  refresh(Handback::compare);
  return r == 0 ? Refusal::none : Refusal::bad_argument;
}

u64 KernelBackend::cpu_max_burst(int group) const { return kb_cpu_max_burst(group); }

void KernelBackend::run_csd(int cpu) {
  events_how_ = Handback::compare;
  kb_run_csd(cpu);
  refresh(Handback::compare);
}

bool KernelBackend::fire_due_timers(u64 t) {
  bool ran = false;
  unsigned long long expires = 0;
  int group = -1, slack = 0;
  while (kb_next_timer(&expires, &group, &slack) && expires <= t) {
    if (kb_fire_timer(group, slack) < 0) break;  // the kernel crashed: nothing runs any more
    ran = true;
  }
  for (unsigned c = 0; c < mirror_->size() && !hold_csds_; ++c)
    if (kb_csd_pending(static_cast<int>(c))) {
      kb_run_csd(static_cast<int>(c));
      ran = true;
    }
  return ran;
}

// Time on every CPU as the model's System advances it (model/system.cpp): in
// steps that end at the tick boundaries (one CPU too: a timer armed at a tick
// inside a longer step would fire late), at the end, and at the expiry of an
// armed bandwidth timer; CPU
// 0, 1, .. in each step, then the timers due at its end and the CSDs they
// queued (fire_due_timers()). A stretch in which a timer or a CSD ran is
// handed back by comparison.
void KernelBackend::run(u64 ns) {
  const unsigned n = mirror_->size();
  const u64 tick = profile_.tick_nsec();
  u64 now = mirror_->rq(0).clock_task;
  const u64 end = now + ns;
  bool timers = false;
  for (;;) {
    const u64 next_tick = (now / tick + 1) * tick;
    u64 step_end = next_tick > end ? end : next_tick;
    unsigned long long expires = 0;
    int group = -1, slack = 0;
    if (kb_next_timer(&expires, &group, &slack) && expires > now && expires < step_end) step_end = expires;
    for (unsigned c = 0; c < n; ++c) kb_run(static_cast<int>(c), step_end - now);
    now = step_end;
    timers |= fire_due_timers(now);
    if (now == end) break;
  }
  refresh(timers ? Handback::compare : Handback::marks);
}
void KernelBackend::tick() {
  const u64 tick = profile_.tick_nsec();
  const u64 now = mirror_->rq(0).clock_task;
  run((now / tick + 1) * tick - now);
}
// The stretches below end with the timers due inside them, fired at their end.
void KernelBackend::tick_nopreempt() {
  for (unsigned c = 0; c < mirror_->size(); ++c) kb_tick_nopreempt(static_cast<int>(c));
  const bool timers = fire_due_timers(kb_clock(0));
  refresh(timers ? Handback::compare : Handback::marks);
}
Refusal KernelBackend::run_notick(u64 ns) {
  if (kb_oopsed()) return Refusal::kernel_oopsed;
  for (unsigned c = 0; c < mirror_->size(); ++c)  // rq->cfs.h_nr_queued > 1 on any CPU
    if (!mirror_->rq(c).tick_stoppable()) return Refusal::tick_needed;
  for (unsigned c = 0; c < mirror_->size(); ++c) kb_run_notick(static_cast<int>(c), ns);
  const bool timers = fire_due_timers(kb_clock(0));
  refresh(timers ? Handback::compare : Handback::marks);
  return Refusal::none;
}
void KernelBackend::tick_after(u64 ns) {
  for (unsigned c = 0; c < mirror_->size(); ++c) kb_tick_after(static_cast<int>(c), ns);
  const bool timers = fire_due_timers(kb_clock(0));
  refresh(timers ? Handback::compare : Handback::marks);
}
void KernelBackend::schedule() {
  for (unsigned c = 0; c < mirror_->size(); ++c) kb_schedule(static_cast<int>(c));
  refresh();
}

Refusal KernelBackend::debug_read(int cpu, int group, bool racing) {
  const Rq& rq = mirror_->rq(0);
  if (cpu < 0) cpu = 0;
  if (static_cast<unsigned>(cpu) >= mirror_->size()) return Refusal::bad_argument;
  if (kb_oopsed()) return Refusal::kernel_oopsed;
  if (group >= 0 && static_cast<std::size_t>(group) >= rq.task_groups.size()) return Refusal::no_such_group;
  if (racing && debug_reader_unlocked()) {
    PendingRead p{cpu, group, 0, 0};
    events_how_ = Handback::compare;
    kb_debug_read_load(cpu, group, &p.avg_vruntime, &p.zero_vruntime);
    pending_reads_.push_back(p);
  } else {
    events_how_ = Handback::compare;
    kb_debug_read(cpu, group);
  }
  refresh(Handback::compare);
  return Refusal::none;
}

void KernelBackend::store_debug_reads(std::size_t n) {
  if (n > pending_reads_.size()) n = pending_reads_.size();
  events_how_ = Handback::compare;
  for (std::size_t i = 0; i < n; ++i)
    kb_debug_read_store(pending_reads_[i].cpu, pending_reads_[i].queue, pending_reads_[i].avg_vruntime,
                        pending_reads_[i].zero_vruntime);
  pending_reads_.erase(pending_reads_.begin(), pending_reads_.begin() + static_cast<long>(n));
  if (n) refresh(Handback::compare);
}

// The kernel's state into the mirror: every entity's fields, every queue's
// sums and counts, the trees' shape (parent, children, colour, root, leftmost),
// on every CPU. Only the tasks and entities kb_export() exported are copied:
// a mirror entity is written by refresh() alone, and its copy is a function
// of the kernel's entity and of the task's CPU, so one the export left out is
// already right. How (kb_api.h, kb_export()):
//  - marks (the entry points that run the tree's wake-up, sleep, tick, pick,
//    yield, renice and migration paths, and the events inside them): the
//    entities the tree's functions and the glue marked as written; every
//    check_every_ entry points (and at every export when it is 1) the others
//    are compared with their last export, and a change the marks missed is an
//    error naming the entity (thrown when the entry point ends: an event's
//    refresh runs inside the kernel's code);
//  - compare (the rarer entry points: groups, policies, debugfs): the entities
//    whose struct sched_entity differs from their last export;
//  - all: every entity, when the mirror's entities moved (a new task or group:
//    the vectors may reallocate, and every pointer between entities is
//    rewritten) or something else wrote them (overflow_shadow(): the model's
//    functions on the mirror), and always without the incremental hand-back.
// end_op: the entry point ended (its task and CPUs stop being marked).
void KernelBackend::refresh(Handback how, bool end_op) {
  static kb_state s;  // large: one per process, as the backend; kept between calls (kb_export())
  if (!incremental_) how = Handback::all;
  int flags = how == Handback::all ? KB_EXPORT_ALL : how == Handback::compare ? KB_EXPORT_COMPARE : KB_EXPORT_MARKS;
  if (how == Handback::marks && (check_every_ <= 1 || (end_op && ++since_check_ >= check_every_))) {
    flags |= KB_EXPORT_CHECK;
    since_check_ = 0;
  }
  if (end_op) {
    flags |= KB_EXPORT_END_OP;
    events_how_ = Handback::marks;
  }
  if (kb_export(&s, flags) != 0) {
    if (missed_.empty()) {
      const int id = s.missed_entity;
      missed_ = "kernel backend: the hand-back's marks missed a change: " +
                (id < KB_MAX_TASKS ? "task " + std::to_string(id) + (s.missed_task_fields ? "'s fields (on_rq, state, group, CPU, waker memory)" : "'s struct sched_entity")
                                   : "group " + std::to_string(id - KB_MAX_TASKS) + "'s entity") +
                " on CPU " + std::to_string(s.missed_cpu) +
                (s.missed_offset >= 0 ? " (its bytes from offset " + std::to_string(s.missed_offset) + ")" : "") +
                " changed and was not marked as written (kernelsrc/glue/state.h, the marks)";
    }
    kb_export(&s, KB_EXPORT_ALL | (flags & KB_EXPORT_END_OP));  // the mirror stays right for whoever reads it now
    how = Handback::all;
  }
  const bool full = how == Handback::all;
  const bool aliases = profile_.behaviour.vprot_aliases_vlag;
  // an entity id of the export (task id, or KB_MAX_TASKS + group) on CPU c
  auto entity = [&](Rq& rq, int id) -> SchedEntity* {
    if (id < 0) return nullptr;
    if (id < KB_MAX_TASKS) return &rq.tasks[static_cast<std::size_t>(id)].se;
    return &rq.groups[static_cast<std::size_t>(id - KB_MAX_TASKS)].se;
  };
  auto copy_avg = [](const kb_avg& a, SchedAvg& out) {
    out.last_update_time = a.last_update_time;
    out.load_sum = a.load_sum;
    out.runnable_sum = a.runnable_sum;
    out.util_sum = a.util_sum;
    out.period_contrib = a.period_contrib;
    out.load_avg = a.load_avg;
    out.runnable_avg = a.runnable_avg;
    out.util_avg = a.util_avg;
  };
  auto copy_entity = [&](Rq& rq, const kb_entity& e, SchedEntity& se) {
    se.load.weight = e.weight;
    se.load.inv_weight = e.inv_weight;
    se.deadline = e.deadline;
    se.min_vruntime = e.min_vruntime;
    se.min_slice = e.min_slice;
    se.min_deadline = e.min_deadline;
    se.on_rq = e.on_rq != 0;
    se.sched_delayed = e.sched_delayed != 0;
    se.rel_deadline = e.rel_deadline != 0;
    se.custom_slice = e.custom_slice != 0;
    se.exec_start = e.exec_start;
    se.sum_exec_runtime = e.sum_exec_runtime;
    se.prev_sum_exec_runtime = e.prev_sum_exec_runtime;
    se.vruntime = e.vruntime;
    se.vprot_aliases_vlag = aliases;
    se.vlag = e.vlag;
    se.vprot = aliases ? as_u64(e.vlag) : e.vprot;
    se.max_slice = e.max_slice;
    se.slice = e.slice;
    se.depth = e.depth;
    se.cfs_rq = &rq.group_queue(e.queue);
    se.parent = se.cfs_rq->group_id < 0 ? nullptr : &rq.groups[static_cast<std::size_t>(se.cfs_rq->group_id)].se;
    se.rb_parent = entity(rq, e.rb_parent);
    se.rb_left = entity(rq, e.rb_left);
    se.rb_right = entity(rq, e.rb_right);
    se.rb_red = e.rb_red != 0;
    copy_avg(e.avg, se.avg);
    se.runnable_weight = e.runnable_weight;
  };
  // a node whose place in its tree alone changed (kb_export(): 2)
  auto copy_tree_place = [&](Rq& rq, const kb_entity& e, SchedEntity& se) {
    se.min_vruntime = e.min_vruntime;
    se.min_slice = e.min_slice;
    se.min_deadline = e.min_deadline;
    se.max_slice = e.max_slice;
    se.rb_parent = entity(rq, e.rb_parent);
    se.rb_left = entity(rq, e.rb_left);
    se.rb_right = entity(rq, e.rb_right);
    se.rb_red = e.rb_red != 0;
  };
  auto copy_queue = [&](Rq& rq, const kb_queue& q, CfsRq& c) {
    c.load.weight = q.weight;
    c.load.inv_weight = q.inv_weight;
    c.nr_queued = q.nr_running;
    c.h_nr_queued = q.h_nr_queued;
    c.h_nr_runnable = q.h_nr_runnable;
    c.h_nr_idle = q.idle_h_nr_running;
    c.sum_w_vruntime = q.avg_vruntime;
    c.sum_weight = q.avg_load;
    c.zero_vruntime = q.zero_vruntime;
    c.tasks_timeline.assign(entity(rq, q.root), entity(rq, q.leftmost));
    c.curr = entity(rq, q.curr);
    c.next = entity(rq, q.next);
    c.idle = q.idle;
    c.rq = &rq;
    copy_avg(q.avg, c.avg);
    c.removed = {q.removed_nr, q.removed_util_avg, q.removed_load_avg, q.removed_runnable_avg};
    c.h_load = q.h_load;
    c.last_h_load_update = q.last_h_load_update;
    c.tg_load_avg_contrib = q.tg_load_avg_contrib;
    c.last_update_tg_load_avg = q.last_update_tg_load_avg;
    c.prop_runnable_sum = q.prop_runnable_sum;
    c.propagate = q.propagate != 0;
    c.runtime_enabled = q.runtime_enabled != 0;
    c.runtime_remaining = q.runtime_remaining;
    c.throttled = q.throttled != 0;
    c.throttle_count = q.throttle_count;
    c.throttled_clock = q.throttled_clock;
    c.throttled_clock_pelt = q.throttled_clock_pelt;
    c.throttled_clock_pelt_time = q.throttled_clock_pelt_time;
    c.throttled_clock_self = q.throttled_clock_self;
    c.throttled_clock_self_time = q.throttled_clock_self_time;
    c.csd_queued = q.csd_queued != 0;
  };
  auto copy_timer = [](const kb_hrtimer& t, HrTimer& out) {
    out.expires = t.expires;
    out.queued = t.queued != 0;
    out.cpu = t.cpu;
  };
  auto copy_wakee = [](const kb_wakee& w, WakeeState& out) {
    out.last = w.last;
    out.flips = w.flips;
    out.decay_ts = w.decay_ts;
  };
  Rq& rq0 = mirror_->rq(0);
  for (int g = 0; g < s.nr_groups; ++g) {
    rq0.task_groups[static_cast<std::size_t>(g)].shares = s.group_shares[g];
    rq0.task_groups[static_cast<std::size_t>(g)].idle = s.group_idle[g] != 0;
    rq0.task_groups[static_cast<std::size_t>(g)].load_avg = s.group_load_avg[g];
    if (!s.bandwidth) continue;
    const kb_bandwidth& b = s.group_bw[g];
    CfsBandwidth& out = rq0.task_groups[static_cast<std::size_t>(g)].cfs_bandwidth;
    out.period = b.period;
    out.quota = b.quota;
    out.runtime = b.runtime;
    out.burst = b.burst;
    out.runtime_snap = b.runtime_snap;
    out.hierarchical_quota = b.hierarchical_quota;
    out.idle = b.idle != 0;
    out.period_active = b.period_active != 0;
    out.slack_started = b.slack_started != 0;
    copy_timer(b.period_timer, out.period_timer);
    copy_timer(b.slack_timer, out.slack_timer);
    out.throttled_cfs_rq.assign(b.throttled_cfs_rq, b.throttled_cfs_rq + b.nr_throttled_cfs_rq);
    out.nr_periods = b.nr_periods;
    out.nr_throttled = b.nr_throttled;
    out.nr_burst = b.nr_burst;
    out.throttled_time = b.throttled_time;
    out.burst_time = b.burst_time;
  }
  *rq0.bandwidth_users = s.bandwidth_users;
  for (int k = 0; k < s.nr_changed_tasks; ++k) {
    const int i = s.changed_tasks[k];
    Task& t = rq0.tasks[static_cast<std::size_t>(i)];
    const bool moved = t.cpu != s.task_cpu[i];
    t.cpu = s.task_cpu[i];
    Rq& trq = mirror_->rq(static_cast<unsigned>(t.cpu));
    if (full || moved || s.task_se_changed[i] == 1)
      copy_entity(trq, s.task_se[i], t.se);
    else if (s.task_se_changed[i] == 2)
      copy_tree_place(trq, s.task_se[i], t.se);
    t.on_rq = s.task_on_rq[i] != 0;
    t.state = state_of(s.task_state[i]);
    t.group = s.task_group[i];
    if (s.nr_cpus > 1) {  // select_task_rq_fair()'s memory (a tree built !CONFIG_SMP has none)
      copy_wakee(s.task_wakee[i], t.wakee);
      t.recent_used_cpu = s.task_recent_used_cpu[i];
    }
  }
  const bool oops = kb_oopsed() != 0;
  for (int c = 0; c < s.nr_cpus; ++c) {
    Rq& rq = mirror_->rq(static_cast<unsigned>(c));
    const kb_cpu_state& k = s.cpu[c];
    for (int g = 0; g < s.nr_groups; ++g) {
      if (full || k.group_se_changed[g] == 1)
        copy_entity(rq, k.group_se[g], rq.groups[static_cast<std::size_t>(g)].se);
      else if (k.group_se_changed[g] == 2)
        copy_tree_place(rq, k.group_se[g], rq.groups[static_cast<std::size_t>(g)].se);
      copy_queue(rq, k.group_q[g], rq.groups[static_cast<std::size_t>(g)].cfs_rq);
    }
    copy_queue(rq, k.root, rq.cfs);
    rq.clock_task = k.clock_task;
    rq.charged_ticks = k.charged_ticks;
    rq.last_tick = k.last_tick;
    rq.longest_tick_gap = k.longest_tick_gap;
    rq.curr = k.curr;
    rq.rt_curr = k.rt_curr;
    rq.rt_queue.assign(k.rt_queue, k.rt_queue + k.rt_nr_running);
    rq.resched_calls = k.resched_calls;
    rq.fair_tick_rescheds = k.fair_tick_rescheds;
    rq.throttles = k.throttles;
    rq.unthrottles = k.unthrottles;
    rq.need_resched = k.need_resched != 0;
    rq.nr_running = k.nr_running;
    rq.tree_sched_idle_rq = k.sched_idle_rq != 0 ? 1 : 0;  // the tree's own answers (I-WAKECOUNT)
    rq.tree_sync_affine = k.sync_affine;
    if (s.nr_cpus > 1) copy_wakee(k.idle_wakee, rq.idle_wakee);
    // a NULL pick: the kernel crashed in pick_next_entity() (the model's rq.oops): every CPU stops
    rq.oops = oops;
  }
  mirror_->llc_shared().has_idle_cores = s.has_idle_cores != 0;
  mirror_->set_pelt_kept(s.pelt != 0);
  sched_idle_rq_.clear();
  for (int c = 0; c < s.nr_cpus; ++c) sched_idle_rq_.push_back(s.cpu[c].sched_idle_rq != 0);
  if (end_op && !missed_.empty()) {
    std::string what;
    what.swap(missed_);
    throw std::logic_error(what);
  }
}

}  // namespace eevdf::kernelsrc
