#include "invariants/queue_index.hpp"

#include <cstdint>

#include "invariants/checker.hpp"
#include "model/fair.hpp"

namespace eevdf::inv {

void QueueIndex::build(const Rq& rq) {
  const std::size_t n = rq.groups.size() + 1;
  flat_ = rq.profile().behaviour.flat_runqueue;
  entities_.resize(n);
  for (auto& list : entities_) list.clear();
  if (flat_) {
    eevdf_.resize(n);
    for (auto& list : eevdf_) list.clear();
  }
  counts_.assign(n, HierCounts{});
  // the slot of a queue of this CPU, or -1 (none, or another CPU's)
  const Rq* const self = &rq;
  const auto slot_of = [self](const CfsRq* q) { return q && q->rq == self ? q->group_id + 1 : -1; };
  HierCounts* const counts = counts_.data();
  const bool flat = flat_;
  // (inlined: called for every task and group entity after every operation)
  const auto add = [&](const SchedEntity& se, const Task* t) __attribute__((always_inline)) {
    if (const int i = slot_of(se.cfs_rq); i >= 0) {
      entities_[static_cast<std::size_t>(i)].push_back({&se, t});
      if (se.on_rq) {
        HierCounts& c = counts[i];
        ++c.on_rq;
        c.load += se.load.weight;
        if (se.slice < c.min_slice) c.min_slice = se.slice;
      }
    }
    if (!flat) return;  // EEVDF's queue of se is se.cfs_rq (eevdf_queue_of())
    if (const int i = slot_of(eevdf_queue_of(rq, se)); i >= 0) eevdf_[static_cast<std::size_t>(i)].push_back({&se, t});
  };
  // One walk up each queued task's path counts it on every queue it reaches;
  // an entity that is not queued ends the walk and marks the queues not reached.
  // (Done in the same pass over the tasks that lists them.)
  static_assert(kMaxGroups + 1 <= 64, "one bit per queue");
  const auto count_path = [&](const Task& t) __attribute__((always_inline)) {
    bool idle = t.policy == Policy::idle;
    const bool runnable = !t.se.sched_delayed;
    std::uint64_t reached = 0;
    for (const SchedEntity* e = &t.se; e; e = e->parent) {
      if (!e->on_rq) {
        for (std::size_t i = 0; i < n; ++i)
          if (!(reached >> i & 1) && !counts[i].broken) counts[i].broken = &t;
        break;
      }
      if (const int i = slot_of(e->cfs_rq); i >= 0) {
        HierCounts& c = counts[i];
        reached |= std::uint64_t{1} << i;
        ++c.queued;
        if (runnable) ++c.runnable;
        if (idle) ++c.idle;
      }
      // CPU bandwidth control (hierarchical throttle): a throttled queue
      // counts its tasks, the levels above do not (throttle_cfs_rq() took
      // them off, enqueue_task_fair() and dequeue_entities() stop there);
      // v6.18's task-based throttle: every level counts them
      if (walk_stops_at_throttled(*e->cfs_rq)) break;
      if (e->parent) idle = idle || cfs_rq_is_idle(*e->cfs_rq);  // for the levels above
    }
  };
  for (const Task& t : rq.tasks) {
    add(t.se, &t);
    if (t.se.on_rq) count_path(t);
  }
  for (const TaskGroupCpu& g : rq.groups) add(g.se, nullptr);
}

}  // namespace eevdf::inv
