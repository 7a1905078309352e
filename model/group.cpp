// The cgroup cpu controller's entry points for one CPU (kernel/sched/core.c
// and fair.c, newest mainline ≈ v7.1): creating a group, cpu.shares and
// cpu.idle. sched_move_task() is in rq.cpp with the other sched_change users.
#include "model/fair.hpp"
#include "model/rq.hpp"

namespace eevdf {

// sched_create_group() + alloc_fair_sched_group() + init_tg_cfs_entry() (v7.1),
// then a cpu.shares write.
int Rq::create_group(std::string_view name, int parent, u64 shares) {
  if (oops || groups.size() >= kMaxGroups) return -1;
  if (parent >= 0 && static_cast<std::size_t>(parent) >= groups.size()) return -1;
  if (shares < kMinShares || shares > kMaxShares) return -1;
  const int id = static_cast<int>(groups.size());
  TaskGroup& tg = groups.emplace_back();
  tg.name = std::string(name);
  tg.parent = parent;
  tg.shares = kNice0Load;  // alloc_fair_sched_group()
  tg.cfs_rq.rq = this;     // init_cfs_rq()
  tg.cfs_rq.group_id = id;
  SchedEntity& se = tg.se;  // init_tg_cfs_entry()
  se.group_id = id;
  se.my_q = &tg.cfs_rq;
  se.parent = parent < 0 ? nullptr : &groups[static_cast<std::size_t>(parent)].se;
  se.cfs_rq = &group_queue(parent);
  se.depth = se.parent ? se.parent->depth + 1 : 0;
  se.load.weight = kNice0Load;  // update_load_set()
  se.load.inv_weight = 0;
  se.vprot_aliases_vlag = profile_.behaviour.vprot_aliases_vlag;
  sched_group_set_shares(tg, scale_load(shares));
  return id;
}

// __sched_group_set_shares() (v7.1): clamp, store, then update_cfs_group() on
// every level above.
void Rq::sched_group_set_shares(TaskGroup& tg, u64 shares) {
  if (shares < scale_load(kMinShares)) shares = scale_load(kMinShares);
  if (shares > scale_load(kMaxShares)) shares = scale_load(kMaxShares);
  if (tg.shares == shares) return;
  tg.shares = shares;
  for (SchedEntity* se = &tg.se; se; se = se->parent) update_cfs_group(*se);
}

// sched_group_set_shares() (v7.1): -EINVAL for an idle group.
Refusal Rq::set_group_shares(int id, u64 shares) {
  if (oops) return Refusal::kernel_oopsed;
  TaskGroup* tg = group(id);
  if (!tg) return Refusal::no_such_group;
  if (shares < kMinShares || shares > kMaxShares) return Refusal::bad_argument;
  if (tg->idle) return Refusal::group_is_idle;
  sched_group_set_shares(*tg, scale_load(shares));
  return Refusal::none;
}

// sched_group_set_idle() (v7.1): flip cfs_rq->idle, move the group's non-idle
// tasks in or out of h_nr_idle on the queued levels above (up to and
// including the first idle queue), then the idle weight or NICE_0_LOAD.
Refusal Rq::set_group_idle(int id, bool idle) {
  if (oops) return Refusal::kernel_oopsed;
  TaskGroup* tg = group(id);
  if (!tg) return Refusal::no_such_group;
  if (tg->idle == idle) return Refusal::none;
  tg->idle = idle;
  CfsRq& grp_cfs_rq = tg->cfs_rq;
  grp_cfs_rq.idle = idle ? 1 : 0;
  // long idle_task_delta, applied in unsigned arithmetic (wraps like a signed add)
  unsigned delta = grp_cfs_rq.h_nr_queued - grp_cfs_rq.h_nr_idle;
  if (!cfs_rq_is_idle(grp_cfs_rq)) delta = 0u - delta;
  for (SchedEntity* se = &tg->se; se; se = se->parent) {
    CfsRq& cfs_rq = *se->cfs_rq;
    if (!se->on_rq) break;
    cfs_rq.h_nr_idle += delta;
    if (cfs_rq_is_idle(cfs_rq)) break;  // already accounted above
  }
  sched_group_set_shares(*tg, idle ? scale_load(kWeightIdleprio) : kNice0Load);
  return Refusal::none;
}

}  // namespace eevdf
