#include "invariants/fairness.hpp"

#include <fmt/format.h>

#include <cstdint>

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
  // (service_so_far() inline;
  // the sums in 64 bits with a carry check, exact like the 128-bit ones)
  u64 total64 = 0, weight64 = 0;
  bool wide = false;
  i128 members = 0;
  for (std::size_t i = 0; i < ntasks_; ++i) {
    const Task& t = rq.tasks[i];
    const bool member = runnable_member(rq, t);
    if (member != member_[i] || (member && t.se.load.weight != weight_[i])) {
      start(rq);
      return;
    }
    if (!member) continue;
    u64 service = t.se.sum_exec_runtime;
    if (rq.curr == t.se.task_id && rq.cfs.curr == &t.se && rq.clock_task > t.se.exec_start)
      service += rq.clock_task - t.se.exec_start;
    const u64 got = service - start_service_[i];
    got_[i] = got;
    wide |= __builtin_add_overflow(total64, got, &total64);
    wide |= __builtin_add_overflow(weight64, weight_[i], &weight64);
    ++members;
  }
  i128 total = total64, weight = weight64;
  if (wide) {  // a sum beyond 64 bits (never in practice): the 128-bit sums
    total = 0;
    weight = 0;
    for (std::size_t i = 0; i < ntasks_; ++i)
      if (member_[i]) {
        total += got_[i];
        weight += weight_[i];
      }
  }
  if (weight == 0) return;
  // r_max + the quantum: TICK_NSEC, or the longest stretch without a tick (Rq::tick_quantum())
  const i128 unit = static_cast<i128>(s.max_slice_seen + rq.tick_quantum());
  // Every member shares this update's denominator W·unit: the worst ratio is the
  // largest |deviation|·W up to the first violation, compared with the worst
  // seen once (not per member), and the bound is members·unit·W for all.
  const i128 den = weight * unit;
  const i128 limit = members * unit * weight;
  i128 max_dev = -1;
  std::size_t violator = ntasks_;
  const bool fair_on = s.on(Id::FAIR);
  // got_i <= T and w_i <= W: when T·W fits in 63 bits every product and
  // difference below does, and the deviations are computed in 64 bits
  u64 tw = 0;
  if (!wide && !__builtin_mul_overflow(total64, weight64, &tw) && tw <= static_cast<u64>(INT64_MAX)) {
    s64 max64 = -1;
    for (std::size_t i = 0; i < ntasks_; ++i) {
      if (!member_[i]) continue;
      const s64 scaled_dev = static_cast<s64>(got_[i] * weight64) - static_cast<s64>(total64 * weight_[i]);
      const s64 abs_dev = scaled_dev < 0 ? -scaled_dev : scaled_dev;
      if (abs_dev > max64) max64 = abs_dev;
      if (fair_on && abs_dev > limit) {
        violator = i;
        break;
      }
    }
    max_dev = max64;
  } else {
    for (std::size_t i = 0; i < ntasks_; ++i) {
      if (!member_[i]) continue;
      const i128 got = got_[i];
      const i128 scaled_dev = got * weight - total * weight_[i];  // deviation · W
      const i128 abs_dev = scaled_dev < 0 ? -scaled_dev : scaled_dev;
      if (abs_dev > max_dev) max_dev = abs_dev;
      if (fair_on && abs_dev > limit) {
        violator = i;
        break;
      }
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
