// The cgroup cpu controller's entry points (kernel/sched/core.c and fair.c,
// the mainline profile): creating a group, cpu.shares and cpu.idle. Each
// acts on the group's entity and queue of every possible CPU, CPU 0 first, as
// the kernel's for_each_possible_cpu() loops do. sched_move_task() is in
// rq.cpp with the other sched_change users (it touches the task's CPU only).
#include <algorithm>

#include "model/fair.hpp"
#include "model/rq.hpp"

namespace eevdf {

// init_tg_cfs_entry() (v7.1) on this CPU: init_cfs_rq(), the group entity
// below the parent's entity of this CPU, tg->se[cpu] and tg->cfs_rq[cpu].
void Rq::init_tg_cfs_entry(TaskGroup& tg, int id) {
  TaskGroupCpu& gc = groups.emplace_back();
  gc.cfs_rq.rq = this;
  gc.cfs_rq.group_id = id;
  SchedEntity& se = gc.se;
  se.group_id = id;
  se.my_q = &gc.cfs_rq;
  se.parent = tg.parent < 0 ? nullptr : &groups[static_cast<std::size_t>(tg.parent)].se;
  se.cfs_rq = &group_queue(tg.parent);
  se.depth = se.parent ? se.parent->depth + 1 : 0;
  se.load.weight = kNice0Load;  // update_load_set()
  se.load.inv_weight = 0;
  se.vprot_aliases_vlag = profile_.behaviour.vprot_aliases_vlag;
  tg.se.push_back(&se);
  tg.cfs_rq.push_back(&gc.cfs_rq);
}

// sched_create_group() + alloc_fair_sched_group() (v7.1): the shared part,
// then init_tg_cfs_entry() on every possible CPU (the entity's averages start
// at 0); sched_online_group() → online_fair_sched_group(): on every possible
// CPU the group entity is attached to its parent queue's sums
// (attach_entity_cfs_rq()); then a cpu.shares write.
int Rq::create_group(std::string_view name, int parent, u64 shares) {
  for (const Rq* r : possible_cpus_)
    if (r->oops) return -1;
  if (task_groups.size() >= kMaxGroups) return -1;
  if (parent >= 0 && (static_cast<std::size_t>(parent) >= task_groups.size() ||
                      task_groups[static_cast<std::size_t>(parent)].destroyed))
    return -1;
  if (shares < kMinShares || shares > kMaxShares) return -1;
  const int id = static_cast<int>(task_groups.size());
  TaskGroup& tg = task_groups.emplace_back();
  tg.name = std::string(name);
  tg.parent = parent;
  tg.shares = kNice0Load;  // alloc_fair_sched_group()
  // init_cfs_bandwidth(): no quota; the period timer's random phase is taken as 0
  tg.cfs_bandwidth.hierarchical_quota =
      parent < 0 ? -1 : task_groups[static_cast<std::size_t>(parent)].cfs_bandwidth.hierarchical_quota;
  for (Rq* r : possible_cpus_) r->init_tg_cfs_entry(tg, id);
  for (std::size_t c = 0; c < tg.se.size(); ++c) {  // online_fair_sched_group()
    attach_entity_cfs_rq(*tg.se[c]);
    sync_throttle(*possible_cpus_[c], id);
  }
  sched_group_set_shares(tg, scale_load(shares));
  return id;
}

// __sched_group_set_shares() (v7.1): clamp, store, then on every possible
// CPU, on every level from the group's entity there up, update_load_avg() and
// update_cfs_group().
void Rq::sched_group_set_shares(TaskGroup& tg, u64 shares) {
  if (shares < scale_load(kMinShares)) shares = scale_load(kMinShares);
  if (shares > scale_load(kMaxShares)) shares = scale_load(kMaxShares);
  if (tg.shares == shares) return;
  tg.shares = shares;
  for (SchedEntity* cpu_se : tg.se)
    for (SchedEntity* se = cpu_se; se; se = se->parent) {
      update_load_avg(*se->cfs_rq, *se, pelt_flags::UPDATE_TG);
      update_cfs_group(*se);
    }
}

// sched_group_set_shares() (v7.1): -EINVAL for an idle group.
Refusal Rq::set_group_shares(int id, u64 shares) {
  for (const Rq* r : possible_cpus_)
    if (r->oops) return Refusal::kernel_oopsed;
  TaskGroup* tg = group(id);
  if (!tg || tg->destroyed) return Refusal::no_such_group;
  if (shares < kMinShares || shares > kMaxShares) return Refusal::bad_argument;
  if (tg->idle) return Refusal::group_is_idle;
  sched_group_set_shares(*tg, scale_load(shares));
  return Refusal::none;
}

// sched_group_set_idle() (v7.1): on every possible CPU, flip cfs_rq->idle and
// move the group's non-idle tasks in or out of h_nr_idle on the queued levels
// above (up to and including the first idle queue); then the idle weight or
// NICE_0_LOAD through __sched_group_set_shares().
Refusal Rq::set_group_idle(int id, bool idle) {
  for (const Rq* r : possible_cpus_)
    if (r->oops) return Refusal::kernel_oopsed;
  TaskGroup* tg = group(id);
  if (!tg || tg->destroyed) return Refusal::no_such_group;
  if (tg->idle == idle) return Refusal::none;
  tg->idle = idle;
  for (std::size_t c = 0; c < tg->se.size(); ++c) {
    CfsRq& grp_cfs_rq = *tg->cfs_rq[c];
    grp_cfs_rq.idle = idle ? 1 : 0;
    // long idle_task_delta, applied in unsigned arithmetic (wraps like a signed add)
    unsigned delta = grp_cfs_rq.h_nr_queued - grp_cfs_rq.h_nr_idle;
    if (!cfs_rq_is_idle(grp_cfs_rq)) delta = 0u - delta;
    for (SchedEntity* se = tg->se[c]; se; se = se->parent) {
      CfsRq& cfs_rq = *se->cfs_rq;
      if (!se->on_rq) break;
      cfs_rq.h_nr_idle += delta;
      if (cfs_rq_is_idle(cfs_rq)) break;  // already accounted above
    }
  }
  sched_group_set_shares(*tg, idle ? scale_load(kWeightIdleprio) : kNice0Load);
  return Refusal::none;
}

// cgroup rmdir of a cpu-controller group (the cgroup core refuses a group with
// a task or a child in it: -EBUSY), then what the scheduler does as the css
// goes: sched_release_group() unlinks it (here: `destroyed`, so no name finds
// it), and sched_destroy_group() → sched_unregister_group() →
// unregister_fair_sched_group() (v6.12 .. v7.2; 6.12.118 the same): on every
// possible CPU, CPU 0 first, a group entity still queued as sched_delayed (its
// last task left while it was ineligible) is dequeued under that CPU's rq lock,
// dequeue_entities(DEQUEUE_SLEEP | DEQUEUE_DELAYED), which also takes the
// levels above with it when their queues empty; then the entity's averages
// are left for its parent queue to take out (remove_entity_load_avg()). The
// rest (the leaf cfs_rq list, bandwidth) is not modelled.
// v6.6 has no delayed dequeue (152e11f6df29 came in v6.12): nothing is queued
// there. The v7.3 single runqueue never queues a group entity in a tree, so
// none is delayed. The RCU grace periods between the steps are not modelled:
// nothing else runs in between.
Refusal Rq::destroy_group(int id) {
  for (const Rq* r : possible_cpus_)
    if (r->oops) return Refusal::kernel_oopsed;
  TaskGroup* tg = group(id);
  if (!tg || tg->destroyed) return Refusal::no_such_group;
  for (const Task& p : tasks)
    if (p.group == id && p.state != TaskState::dead) return Refusal::group_has_tasks;
  for (const TaskGroup& child : task_groups)
    if (child.parent == id && !child.destroyed) return Refusal::group_has_children;
  tg->destroyed = true;  // sched_release_group(): off the task group list
  for (std::size_t c = 0; c < tg->se.size(); ++c) {
    SchedEntity& se = *tg->se[c];
    if (se.sched_delayed && !profile_.behaviour.flat_runqueue) {
      Rq& rq = *tg->cfs_rq[c]->rq;  // cpu_rq(cpu); update_rq_clock(): the model's clock is already current
      dequeue_entities(rq, se, dequeue_flags::SLEEP | dequeue_flags::DELAYED);
    }
    remove_entity_load_avg(se);  // its averages leave the parent queue at that queue's next update
  }
  // destroy_cfs_bandwidth(): both timers cancelled, every CPU's pending CSD
  // unthrottles run now (the static key keeps its count, as in the kernel)
  tg->cfs_bandwidth.period_timer.queued = false;
  tg->cfs_bandwidth.slack_timer.queued = false;
  for (Rq* r : possible_cpus_)
    if (!r->cfsb_csd_list.empty()) r->run_cfsb_csd();
  return Refusal::none;
}

// The debugfs write of sched/base_slice_ns (debugfs_create_u32() in
// sched_init_debug(), v6.6 .. v7.2: the value is stored as it is, no handler,
// normalized_sysctl_sched_base_slice untouched). Nothing is recomputed now:
// update_deadline(), place_entity(), __sched_fork() and __setparam_fair() read
// the new value the next time they run.
Refusal Rq::write_base_slice_ns(u64 ns) {
  if (oops) return Refusal::kernel_oopsed;
  if (ns < kMinBaseSliceWriteNs || ns > kMaxBaseSliceWriteNs) return Refusal::bad_argument;
  const u64 old = profile_.sysctl_sched_base_slice();
  if (old == ns) return Refusal::none;
  if (std::find(earlier_base_slices.begin(), earlier_base_slices.end(), old) == earlier_base_slices.end())
    earlier_base_slices.push_back(old);
  profile_.tunables.base_slice_written = ns;
  return Refusal::none;
}

}  // namespace eevdf
