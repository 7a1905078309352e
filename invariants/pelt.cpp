// I-PELT: a queue's PELT average is what its sum supports.
//
// PELT keeps a sum and reads an average from it: avg = sum / divider, the
// divider between PELT_MIN_DIVIDER (LOAD_AVG_MAX - 1024) and LOAD_AVG_MAX by
// the position in the current period (___update_load_avg()). Between two
// period boundaries the sum only grows, and every change made to a queue's
// sums from outside (an entity attached, detached, reweighted or removed)
// keeps sum >= avg * PELT_MIN_DIVIDER, the lower bound fair.c itself restores
// after each subtraction ("util_sum must be above or equal to util_avg *
// minimum possible divider"). A sum below it means the next period's average
// falls to what the sum holds: the queue's load (cpu_load(), what WA_WEIGHT
// and the load balancer read) drops at once, whatever its tasks do.
// Checked on every queue, the root one and each group's (on the v7.3 flat
// runqueue too, whose group queues keep PELT), for the load, runnable and
// utilization sums.
#include <fmt/format.h>

#include "invariants/checker.hpp"
#include "model/fair.hpp"
#include "model/pelt.hpp"

namespace eevdf::inv {

void check_pelt(const CheckScope& s) {
  if (!s.on(Id::PELT)) return;
  const SchedAvg& a = s.cfs.avg;
  struct Pair {
    const char* name;
    u64 sum, avg;
  };
  for (const Pair& p : {Pair{"load", a.load_sum, a.load_avg}, Pair{"runnable", a.runnable_sum, a.runnable_avg},
                        Pair{"util", a.util_sum, a.util_avg}}) {
    const u128 floor = static_cast<u128>(p.avg) * kPeltMinDivider;
    if (static_cast<u128>(p.sum) >= floor) continue;
    s.report(Id::PELT, "cfs_rq->avg",
             fmt::format("CPU {}, {}: {}_sum {} is below {}_avg {} x PELT_MIN_DIVIDER {} = {}{}: the next "
                         "period's average falls to at most {}",
                         s.rq.cpu, s.cfs.group_id < 0 ? std::string("root queue") : "group " + s.rq.group(s.cfs.group_id)->name,
                         p.name, p.sum, p.name, p.avg, kPeltMinDivider, static_cast<u64>(floor),
                         // a floor past 32 bits: a sum that a 32-bit intermediate cannot hold (F10's class)
                         floor > UINT32_MAX ? " (past 32 bits)" : "", p.sum / kPeltMinDivider),
             {});
    return;
  }
}

}  // namespace eevdf::inv
