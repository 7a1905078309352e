#include "fuzz/coverage.hpp"

#include <algorithm>

#include "model/fair.hpp"

namespace eevdf::fuzz {

using namespace scn;  // the scenario layer the engines drive

static_assert(static_cast<std::size_t>(OpKind::exit) + 1 == StateCoverage::kKinds);
static_assert(static_cast<std::size_t>(Refusal::kernel_oopsed) + 1 == StateCoverage::kResults);

std::size_t StateCoverage::feature(const Rq& rq, OpKind kind, Refusal result) {
  const CfsRq& cfs = rq.cfs;
  std::size_t curr = 0;  // idle
  if (const SchedEntity* se = cfs.curr)
    curr = se->on_rq && vruntime_eligible(cfs, se->vruntime, null_observer()) ? 1 : 2;
  const std::size_t queued = std::min<std::size_t>(cfs.nr_queued, kQueued - 1);
  const unsigned delayed_count = cfs.h_nr_queued >= cfs.h_nr_runnable ? cfs.h_nr_queued - cfs.h_nr_runnable : 0;
  const std::size_t delayed = std::min<std::size_t>(delayed_count, kDelayed - 1);
  const std::size_t protect = cfs.curr && cfs.curr->on_rq && protect_slice(*cfs.curr) ? 1 : 0;
  const std::size_t resched = rq.need_resched ? 1 : 0;
  const std::size_t k = std::min<std::size_t>(static_cast<std::size_t>(kind), kKinds - 1);  // no expect kinds here
  const std::size_t r = std::min<std::size_t>(static_cast<std::size_t>(result), kResults - 1);
  std::size_t f = k;
  f = f * kResults + r;
  f = f * kCurr + curr;
  f = f * kQueued + queued;
  f = f * kDelayed + delayed;
  f = f * 2 + protect;
  f = f * 2 + resched;
  return f;
}

StateCoverage::Parts StateCoverage::parts(std::size_t f) {
  Parts p{};
  p.resched = f % 2;
  f /= 2;
  p.protect = f % 2;
  f /= 2;
  p.delayed = f % kDelayed;
  f /= kDelayed;
  p.queued = f % kQueued;
  f /= kQueued;
  p.curr = f % kCurr;
  f /= kCurr;
  p.result = f % kResults;
  p.kind = f / kResults;
  return p;
}

}  // namespace eevdf::fuzz
