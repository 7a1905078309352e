// Several runqueues: one checker per CPU, and what they share after every
// operation (the largest slice, each task's records) and which of them check
// their queues (end_ops_touched()).
#include <algorithm>

#include "invariants/checker.hpp"

namespace eevdf::inv {

void share_end_records(const System& sys, const std::vector<std::unique_ptr<Checker>>& checkers) {
  for (const Task& t : sys.tasks) {
    if (t.cpu < 0 || static_cast<std::size_t>(t.cpu) >= checkers.size()) continue;
    const Checker& owner = *checkers[static_cast<std::size_t>(t.cpu)];
    for (const auto& c : checkers)
      if (c.get() != &owner) owner.share_record(t.se, *c);
  }
}

void share_max_slice(const System& sys, const std::vector<std::unique_ptr<Checker>>& checkers) {
  u64 max_slice = 0;
  for (const Task& t : sys.tasks)
    if (t.se.on_rq) max_slice = std::max(max_slice, t.se.slice);
  if (!sys.rq(0).profile().behaviour.flat_runqueue)  // group entities are in no tree there
    for (unsigned c = 0; c < sys.size(); ++c)
      for (const TaskGroupCpu& g : sys.rq(c).groups)
        if (g.se.on_rq) max_slice = std::max(max_slice, g.se.slice);
  for (const auto& c : checkers) max_slice = std::max(max_slice, c->max_slice_seen());
  for (const auto& c : checkers) c->raise_max_slice(max_slice);
}

bool end_ops_touched(const System& sys, const std::vector<std::unique_ptr<Checker>>& checkers, std::uint32_t touched,
                     bool sweep, bool incremental) {
  share_max_slice(sys, checkers);
  const auto is_touched = [touched](std::size_t c) { return c < 32 && (touched >> c & 1u) != 0; };
  for (std::size_t c = 0; c < checkers.size(); ++c)
    if (sweep) checkers[c]->end_op();
    else if (is_touched(c) && incremental) checkers[c]->end_op_incremental();
    else if (is_touched(c)) checkers[c]->end_op();
  if (sweep) {
    share_end_records(sys, checkers);
    return true;
  }
  // a finding is reported only after every queue was checked at this operation
  // (and, with keep_going, at every later one: once violated, always a full sweep)
  bool found = false;
  for (const auto& c : checkers) found = found || c->violated();
  for (std::size_t c = 0; c < checkers.size(); ++c)
    if (!is_touched(c)) {
      if (found) checkers[c]->end_op();
      else checkers[c]->end_op_untouched();
    }
  share_end_records(sys, checkers);
  return found;
}

}  // namespace eevdf::inv
