// The numbers `compare` and `run --rt-app` print: scheduling counters,
// per-task wake-up latency percentiles, runtime share against the ideal
// (weighted) share, lag extremes and the violations, for one run or for two
// runs side by side.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "bridge/sim.hpp"
#include "scenario/executor.hpp"

namespace eevdf::bridge {

// A side of a comparison: a profile name ("v7.1"), a feature list applied on
// top of the workload's profile ("NO_RUN_TO_PARITY,RFC_SAME_PRIO_NO_WAKEUP_PREEMPT"),
// or both as "PROFILE:FEATURES". "default" is the workload's own profile.
std::optional<scn::ProfileOverride> parse_side(const std::string& spec, std::string& error);

// One run's table (per task: wake-ups, latency p50/p99/max, runtime, share, ideal share, lag extremes).
std::string format_metrics(const SimResult& r, const std::string& title);

// Runs side by side, one column each. Counters, the wait of every wake-up
// (all tasks), and on several CPUs where wake-ups landed; per task rows when
// there are at most kCompareTaskRows tasks.
struct CompareSide {
  std::string label;
  SimResult result;
};
inline constexpr std::size_t kCompareTaskRows = 8;
std::string format_compare(const std::vector<CompareSide>& sides);

}  // namespace eevdf::bridge
