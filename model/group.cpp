// The cgroup cpu controller's entry points (kernel/sched/core.c and fair.c,
// the mainline profile): creating a group, cpu.shares and cpu.idle. Each
// acts on the group's entity and queue of every possible CPU, CPU 0 first, as
// the kernel's for_each_possible_cpu() loops do. sched_move_task() is in
// rq.cpp with the other sched_change users (it touches the task's CPU only).
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
// then init_tg_cfs_entry() on every possible CPU; then a cpu.shares write.
int Rq::create_group(std::string_view name, int parent, u64 shares) {
  for (const Rq* r : possible_cpus_)
    if (r->oops) return -1;
  if (task_groups.size() >= kMaxGroups) return -1;
  if (parent >= 0 && static_cast<std::size_t>(parent) >= task_groups.size()) return -1;
  if (shares < kMinShares || shares > kMaxShares) return -1;
  const int id = static_cast<int>(task_groups.size());
  TaskGroup& tg = task_groups.emplace_back();
  tg.name = std::string(name);
  tg.parent = parent;
  tg.shares = kNice0Load;  // alloc_fair_sched_group()
  for (Rq* r : possible_cpus_) r->init_tg_cfs_entry(tg, id);
  sched_group_set_shares(tg, scale_load(shares));
  return id;
}

// __sched_group_set_shares() (v7.1): clamp, store, then on every possible
// CPU update_cfs_group() on every level above the group's entity there.
void Rq::sched_group_set_shares(TaskGroup& tg, u64 shares) {
  if (shares < scale_load(kMinShares)) shares = scale_load(kMinShares);
  if (shares > scale_load(kMaxShares)) shares = scale_load(kMaxShares);
  if (tg.shares == shares) return;
  tg.shares = shares;
  for (SchedEntity* cpu_se : tg.se)
    for (SchedEntity* se = cpu_se; se; se = se->parent) update_cfs_group(*se);
}

// sched_group_set_shares() (v7.1): -EINVAL for an idle group.
Refusal Rq::set_group_shares(int id, u64 shares) {
  for (const Rq* r : possible_cpus_)
    if (r->oops) return Refusal::kernel_oopsed;
  TaskGroup* tg = group(id);
  if (!tg) return Refusal::no_such_group;
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
  if (!tg) return Refusal::no_such_group;
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

}  // namespace eevdf
