// I-DELAY (state part): a delayed entity is never curr nor the next buddy.
// The lag part is checked by the Checker across operations.
#include <fmt/format.h>

#include "invariants/checker.hpp"

namespace eevdf::inv {

void check_delay(const CheckScope& s) {
  if (!s.on(Id::DELAY)) return;
  const CfsRq& cfs = s.cfs;
  if (cfs.curr && cfs.curr->sched_delayed)
    s.report(Id::DELAY, "set_next_entity", "a sched_delayed entity is cfs_rq->curr", {cfs.curr});
  if (cfs.next && cfs.next->sched_delayed)
    s.report(Id::DELAY, "set_next_buddy", "a sched_delayed entity is cfs_rq->next", {cfs.next});
}

}  // namespace eevdf::inv
