#include "invariants/fairness.hpp"

#include <fmt/format.h>

#include "invariants/checker.hpp"

namespace eevdf::inv {

namespace {
// A runnable task of this runqueue (the task table may be shared by several).
bool runnable_member(const Rq& rq, const Task& t) { return t.cpu == rq.cpu && t.se.on_rq && !t.se.sched_delayed; }
}  // namespace

u64 service_so_far(const Rq& rq, const Task& t) {
  u64 s = t.se.sum_exec_runtime;
  if (rq.curr == t.se.task_id && rq.cfs.curr == &t.se && rq.clock_task > t.se.exec_start)
    s += rq.clock_task - t.se.exec_start;
  return s;
}

void FairnessWindow::start(const Rq& rq) {
  ntasks_ = rq.tasks.size();
  active_ = rq.curr >= 0 && rq.cfs.h_nr_runnable == rq.cfs.nr_queued;
  for (std::size_t i = 0; i < ntasks_; ++i) {
    const Task& t = rq.tasks[i];
    member_[i] = runnable_member(rq, t);
    weight_[i] = t.se.load.weight;
    start_service_[i] = service_so_far(rq, t);
  }
}

void FairnessWindow::update(const CheckScope& s, bool running) {
  const Rq& rq = s.rq;
  if (!active_ || !running || rq.tasks.size() != ntasks_ || rq.curr < 0 || rq.cfs.h_nr_runnable != rq.cfs.nr_queued) {
    start(rq);
    return;
  }
  // T = Σ service received in the window, W = Σ weights; task i's share is T·w_i/W.
  // One walk: the membership is unchanged (same runnable tasks, same weights)
  // and the sums; a changed membership starts a new window.
  i128 total = 0, weight = 0, members = 0;
  for (std::size_t i = 0; i < ntasks_; ++i) {
    const Task& t = rq.tasks[i];
    if (runnable_member(rq, t) != member_[i] || (member_[i] && t.se.load.weight != weight_[i])) {
      start(rq);
      return;
    }
    if (!member_[i]) continue;
    got_[i] = service_so_far(rq, t) - start_service_[i];
    total += got_[i];
    weight += weight_[i];
    ++members;
  }
  if (weight == 0) return;
  const i128 unit = static_cast<i128>(s.max_slice_seen + rq.profile().tick_nsec());
  // Every member shares this update's denominator W·unit: the worst ratio is the
  // largest |deviation|·W up to the first violation, compared with the worst
  // seen once (not per member), and the bound is members·unit·W for all.
  const i128 den = weight * unit;
  const i128 limit = members * unit * weight;
  i128 max_dev = -1;
  std::size_t violator = ntasks_;
  for (std::size_t i = 0; i < ntasks_; ++i) {
    if (!member_[i]) continue;
    const i128 got = got_[i];
    const i128 scaled_dev = got * weight - total * weight_[i];  // deviation · W
    const i128 abs_dev = scaled_dev < 0 ? -scaled_dev : scaled_dev;
    if (abs_dev > max_dev) max_dev = abs_dev;
    if (s.on(Id::FAIR) && abs_dev > limit) {
      violator = i;
      break;
    }
  }
  if (max_dev >= 0 && (worst_den_ == 0 || max_dev * worst_den_ > worst_num_ * den)) {
    worst_num_ = max_dev;
    worst_den_ = den;
  }
  if (violator == ntasks_) return;
  const std::size_t i = violator;
  const i128 got = got_[i];
  s.report(Id::FAIR, "pick_eevdf / update_curr (EEVDF lag bound)",
           fmt::format("{} received {} ns in a window of {} ns where its weighted share is {} ns; the lag bound "
                       "allows n·(max_slice {} + TICK_NSEC) = {}·{} = {} ns",
                       rq.tasks[i].name, format_i128(got), format_i128(total),
                       format_i128(total * weight_[i] / weight), s.max_slice_seen, format_i128(members),
                       format_i128(unit), format_i128(members * unit)),
           {&rq.tasks[i].se});
  start(rq);  // report once per window
}

}  // namespace eevdf::inv
