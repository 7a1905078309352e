// The entities of each of one CPU's queues, listed once after an operation:
// the checks of a queue walk its list instead of the whole task table (with
// task groups, every queue used to scan every task and group entity).
#pragma once

#include <cstddef>
#include <vector>

#include "model/rq.hpp"

namespace eevdf::inv {

// One entity of a queue, with its task (nullptr for a group entity).
struct QueueMember {
  const SchedEntity* se;
  const Task* task;
};

// The hierarchical counts of one queue: a queued task counts on every queue
// up its path of queued entities; it counts as idle on a queue if it is
// SCHED_IDLE or a queue strictly below that one on its path is idle.
struct HierCounts {
  unsigned queued = 0, runnable = 0, idle = 0;
  unsigned on_rq = 0;  // the entities of this queue (not below it) that are on_rq
  u64 load = 0;        // and the sum of their load.weight
  u64 min_slice = ~u64{0};  // and the shortest of their slices
  const Task* broken = nullptr;  // the first queued task whose path meets an entity that is not queued first
};

class QueueIndex {
 public:
  // Lists rq's queues (rq->cfs and every group's queue on this CPU).
  void build(const Rq& rq);
  // The entities whose queue is q: tasks in id order, then group entities.
  const std::vector<QueueMember>& entities(const CfsRq& q) const { return entities_[slot(q)]; }
  // The entities EEVDF places on q (eevdf_queue_of(), checker.hpp), in the same order.
  // (Outside the flat runqueue that is q's own list: not built twice.)
  const std::vector<QueueMember>& eevdf_entities(const CfsRq& q) const {
    return flat_ ? eevdf_[slot(q)] : entities_[slot(q)];
  }
  const HierCounts& counts(const CfsRq& q) const { return counts_[slot(q)]; }

 private:
  static std::size_t slot(const CfsRq& q) { return static_cast<std::size_t>(q.group_id + 1); }
  std::vector<std::vector<QueueMember>> entities_, eevdf_;
  std::vector<HierCounts> counts_;
  bool flat_ = false;  // the v7.3 flat runqueue: eevdf_ differs from entities_
};

// Calls f(se, task) for every member of a list.
template <class F>
void for_each_member(const std::vector<QueueMember>& members, F f) {
  for (const QueueMember& m : members) f(*m.se, m.task);
}

}  // namespace eevdf::inv
