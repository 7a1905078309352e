// task_fork_fair() of v6.6: the child is placed on the parent's cfs_rq at
// fork with ENQUEUE_INITIAL (half a virtual slice). wake_up_new_task() then
// enqueues without ENQUEUE_INITIAL and places it again, from vlag = 0: the
// fork placement is overwritten (what c40dd90ac045, v6.12, fixed by moving
// ENQUEUE_INITIAL to wake_up_new_task()). Later kernels do nothing here.
#include "model/fair.hpp"

namespace eevdf {

void task_fork_fair(Rq& rq, Task& p) {
  if (!rq.profile().behaviour.place_at_fork) return;
  CfsRq& cfs_rq = rq.cfs;  // task_cfs_rq(current): one level
  if (cfs_rq.curr) update_curr(cfs_rq);
  place_entity(cfs_rq, p.se, enqueue_flags::INITIAL);
}

}  // namespace eevdf
