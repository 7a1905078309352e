// State coverage for the random engine (`eevdf-check fuzz`), which has no
// compiler instrumentation. After every operation the executor records one
// feature: the operation's kind, its result, and the shape of the runqueue it
// left behind:
//
//   kind      create .. exit                                       12
//   result    done, or why the model refused it (Refusal)           9
//   curr      idle / eligible (v <= V) / not eligible               3
//   queued    cfs.nr_queued: 0, 1, 2, 3, 4 or more                  5
//   delayed   sched_delayed entities queued: 0, 1, 2 or more        3
//   protect   curr runs under slice protection (vprot > vruntime)   2
//   resched   need_resched is set                                   2
//
// Coverage is the number of distinct features seen, out of 19 440 (many are
// unreachable: e.g. a refused create). It grows while the campaign still
// reaches new kinds of state and flattens when it does not. Cost: a few
// loads and one comparison of V per operation (no allocation, no scan).
#pragma once

#include <array>
#include <atomic>
#include <cstddef>

#include "scenario/executor.hpp"
#include "scenario/scenario.hpp"
#include "model/rq.hpp"

namespace eevdf::fuzz {

class StateCoverage final : public scn::OperationObserver {
 public:
  // The executor's hook (ExecOptions::observer): notes the operation's feature.
  void after_operation(const Rq& rq, scn::OpKind kind, Refusal result) override { note(feature(rq, kind, result)); }

  static constexpr std::size_t kKinds = 12, kResults = 9, kCurr = 3, kQueued = 5, kDelayed = 3;
  static constexpr std::size_t kFeatures = kKinds * kResults * kCurr * kQueued * kDelayed * 2 * 2;

  // The feature of operation `kind` with result `result`, in state rq after it
  // (an index below kFeatures).
  static std::size_t feature(const Rq& rq, scn::OpKind kind, Refusal result);

  // A feature taken apart (for tests and for reading a feature number).
  struct Parts {
    std::size_t kind, result, curr, queued, delayed, protect, resched;
    bool operator==(const Parts&) const = default;
  };
  static Parts parts(std::size_t feature);

  // Records a feature; true if it is new. Safe to call from several threads.
  bool note(std::size_t feature) {
    if (seen_[feature].load(std::memory_order_relaxed)) return false;
    if (seen_[feature].exchange(true, std::memory_order_relaxed)) return false;
    count_.fetch_add(1, std::memory_order_relaxed);
    return true;
  }
  std::size_t count() const { return count_.load(std::memory_order_relaxed); }

 private:
  std::array<std::atomic<bool>, kFeatures> seen_{};
  std::atomic<std::size_t> count_{0};
};

}  // namespace eevdf::fuzz
