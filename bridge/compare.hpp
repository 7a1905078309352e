// The numbers `compare` and `run --rt-app` print: scheduling counters,
// per-task wake-up latency percentiles, runtime share against the ideal
// (weighted) share, lag extremes and the violations, for one run or for two
// runs side by side.
#pragma once

#include <optional>
#include <string>

#include "bridge/sim.hpp"
#include "scenario/executor.hpp"

namespace eevdf::bridge {

// A side of a comparison: a profile name ("v7.1"), a feature list applied on
// top of the workload's profile ("NO_RUN_TO_PARITY,RFC_SAME_PRIO_NO_WAKEUP_PREEMPT"),
// or both as "PROFILE:FEATURES". "default" is the workload's own profile.
std::optional<scn::ProfileOverride> parse_side(const std::string& spec, std::string& error);

// One run's table (per task: wake-ups, latency p50/p99/max, runtime, share, ideal share, lag extremes).
std::string format_metrics(const SimResult& r, const std::string& title);

// Two runs side by side.
std::string format_compare(const SimResult& a, const std::string& label_a, const SimResult& b,
                           const std::string& label_b);

}  // namespace eevdf::bridge
