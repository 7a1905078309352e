// task_fork_fair() of v6.6: the child is placed on the parent's cfs_rq at
// fork with ENQUEUE_INITIAL (half a virtual slice). wake_up_new_task() then
// enqueues without ENQUEUE_INITIAL and places it again, from vlag = 0: the
// fork placement is overwritten (what c40dd90ac045, v6.12, fixed by moving
// ENQUEUE_INITIAL to wake_up_new_task()). Later kernels do nothing here.
#include "model/fair.hpp"

namespace eevdf {

void task_fork_fair(Rq& rq, Task& p) {
  if (!rq.profile().behaviour.place_at_fork) return;
  // task_cfs_rq(current): the queue of the task running on this CPU (the
  // parent of a fork; whoever runs when a task is created), which is a group's
  // queue when that task is in a group; the idle task's (and an RT task's,
  // always in the root group) is the root queue. Lockstep with 6.6.9 found the
  // root queue taken here for a current task in a group.
  CfsRq& cfs_rq = rq.curr >= 0 ? *rq.tasks[static_cast<std::size_t>(rq.curr)].se.cfs_rq : rq.cfs;
  if (cfs_rq.curr) update_curr(cfs_rq);
  place_entity(cfs_rq, p.se, enqueue_flags::INITIAL);
}

}  // namespace eevdf
