// I-FAIR: over a window in which the set of runnable tasks and their weights
// stay the same (no wake-up, sleep, renice, delayed entity or idle CPU), every
// task's service stays within n·(max_slice + TICK_NSEC) of its weighted share
// (n runnable tasks; derivation in `eevdf-check explain I-FAIR`).
#pragma once

#include <array>

#include "model/rq.hpp"

namespace eevdf::inv {

struct CheckScope;

class FairnessWindow {
 public:
  // Called after every operation: continues the window if `running` (only
  // time passed) and the membership is unchanged, else starts a new one.
  void update(const CheckScope& s, bool running);
  // The largest |service - share| / (max_slice + TICK_NSEC) seen so far.
  double worst_ratio() const {
    return worst_den_ == 0 ? 0.0 : static_cast<double>(worst_num_) / static_cast<double>(worst_den_);
  }

 private:
  bool active_ = false;
  std::size_t ntasks_ = 0;
  // valid for [0, ntasks_) once start() ran (no zero-fill: built for every run)
  std::array<bool, kMaxTasks> member_;
  std::array<u64, kMaxTasks> weight_;
  std::array<u64, kMaxTasks> start_service_;
  std::array<u64, kMaxTasks> got_;  // service in the window, this update
  i128 worst_num_ = 0, worst_den_ = 0;  // worst |deviation|·W and W·(max_slice + TICK_NSEC)

  void start(const Rq& rq);
};

// Service received by a task up to now, including the running task's time
// not yet charged by update_curr().
u64 service_so_far(const Rq& rq, const Task& t);

}  // namespace eevdf::inv
