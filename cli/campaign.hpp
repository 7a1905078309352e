// `eevdf-check fuzz`: a random campaign over the byte encoding (every byte
// string is a valid scenario), with progress, minimization of each distinct
// finding (invariant + site) and a summary. Coverage-guided fuzzing with
// libFuzzer is a separate build target.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "fuzz/executor.hpp"

#include "invariants/ids.hpp"
#include "model/profile.hpp"

namespace eevdf::cli {

struct CampaignOptions {
  std::chrono::seconds time{30};
  std::uint64_t seed = 1;
  unsigned jobs = 1;           // worker threads; job j uses seed + j
  std::uint64_t max_runs = 0;  // 0: until the time is up
  std::string findings_dir = "findings";
  std::chrono::seconds minimize_budget{30};
  bool progress = true;
  // Task-group operations: in every run (--groups), in none (--no-groups), or by
  // default in every other run, chosen by the run's random stream.
  enum class Groups : std::uint8_t { mixed, always, never };
  Groups groups = Groups::mixed;
  unsigned runqueues = 1;  // > 1: byte format 3 (wake cpu=, migrate) on this many CPUs; 4 with groups
  // debug_read operations (byte format 5): by default where the profile's
  // debugfs reader races the scheduler (debug_read_races(): v6.12.118);
  // --debug-read on any profile, --no-debug-read on none.
  enum class DebugRead : std::uint8_t { profile, always, never };
  DebugRead debug_read = DebugRead::profile;
  // stop at the first finding of this invariant ("I-KEY"; empty: run the whole time),
  // and report when it came (the rediscovery benchmark); with until_site, only a
  // finding whose site contains it ("reweight_eevdf": B08 beside v6.12's own I-RW)
  std::string until;
  std::string until_site;
  inv::Selection selection;  // --invariants / --skip
  // --backend kernel: the kernel's own fair.c; lockstep: model and kernel compared
  // after every operation, a divergence is a finding (one job: the backend is one per process)
  fuzz::Backend backend = fuzz::Backend::model;
};

// Returns the number of distinct findings.
int run_campaign(const Profile& profile, const std::string& profile_args, const CampaignOptions& options);

}  // namespace eevdf::cli
