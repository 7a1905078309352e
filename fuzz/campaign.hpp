// The own engine (`eevdf-check fuzz`): a random campaign over the byte
// encoding (every byte string is a valid scenario), with state coverage,
// minimization of each distinct finding (scenario/finding_identity.hpp), each written to
// a scenario file. What it finds is told to a CampaignLog as it goes and
// summed up in a CampaignResult; printing both is the CLI's job
// (cli/campaign.cpp). Coverage-guided fuzzing with libFuzzer is a separate
// build target (fuzz/targets/).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "scenario/executor.hpp"

#include "scenario/finding_identity.hpp"
#include "invariants/ids.hpp"
#include "model/profile.hpp"

namespace eevdf::fuzz {

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
  // SMT siblings a core in every run (--smt N: the scenario's `smt N`; the byte
  // format has no such field, so a finding's file says it); 1: none
  unsigned smt = 1;
  // debug_read operations (byte format 5): by default where the profile's
  // debugfs reader races the scheduler (debug_read_races(): v6.12.118);
  // --debug-read on any profile, --no-debug-read on none.
  enum class DebugRead : std::uint8_t { profile, always, never };
  DebugRead debug_read = DebugRead::profile;
  // `tick DUR` later than TICK_NSEC (--late-ticks) and `run DUR notick`
  // (--nohz-full). Off by default: the time steps stay on the tick grid (the
  // lag bounds of I-FAIR and I-KEY take the longest stretch without a tick
  // either way, Rq::tick_quantum()); without the first, `tick DUR` is at most 1ms.
  bool late_ticks = false;
  bool nohz_full = false;
  // RT tasks (--rt): a create's policy byte from 240 on is `task T<n>
  // policy=fifo` (byte format 7). Off by default: the runqueue
  // byte's kBytesNoRt bit then reads that byte % 3, as before.
  bool rt = false;
  // Fan-out wakes and sleeps (--fan-out): byte format 8, whose wake and sleep read
  // three in four of their task bytes as every task (a producer on one CPU waking them all one
  // after another; each CPU's running task blocking), so that wakers build up
  // record_wakee()'s flips and wake_wide() is reached. Off by default:
  // the streams stay format 7's.
  bool fan_out = false;
  // CPU bandwidth control (--bandwidth): byte formats 9 and 10 (7 and 8 with
  // `quota` writes of cpu.max; the period and slack timers fire as time
  // passes). Only on a profile with Behaviour::cfs_bandwidth; on one with
  // Behaviour::task_based_throttle (v6.18 to v7.1) formats 11 and 12, which
  // add return_to_user.
  bool bandwidth = false;
  // stop at the first finding of this invariant ("I-KEY"; empty: run the whole time),
  // and report when it came (the rediscovery benchmark); with until_site, only a
  // finding whose site contains it ("reweight_eevdf": B08 beside v6.12's own I-RW)
  std::string until;
  std::string until_site;
  inv::Selection selection;  // --invariants / --skip
  inv::Tolerances tolerances;  // --no-tolerance: every documented finding reported too
  // --backend kernel: the kernel's own fair.c; lockstep: model and kernel compared
  // after every operation, a divergence is a finding (one job: the backend is one per process)
  scn::Backend backend = scn::Backend::model;
  std::string judge_note;  // on the kernel's code: which profile judges the tree, and why (scn::choose_judge())
  // Known findings (scenario/known.hpp): the judging profile's, and a
  // --baseline's. Their violations are counted by name and the runs go on;
  // only what is not known is a finding. Empty (--stop-on-known,
  // --no-tolerance): every violation is a finding and ends its run.
  scn::KnownSet known;
  // In one run of four, a set of the profile's default-off features switched
  // on (NEXT_BUDDY, PARANOID_AVG where the profile has it; as debugfs allows),
  // and on several CPUs of its wake-up features WA_WEIGHT and SIS_UTIL switched
  // off, so that the code behind them runs too; a finding's scenario says which.
  // Off: every run has the profile's features (--features, --fixed-features).
  bool vary_features = true;
  // --check: full (every invariant after every operation) or incremental
  // (scn::ExecOptions::check_mode; lockstep compares states and checks no invariant)
  scn::CheckMode check_mode = scn::CheckMode::full;
};

// One distinct finding (its identity: invariant, site, detail class and
// trigger), minimized and written to `file`.
struct CampaignFinding {
  scn::FindingIdentity identity;
  std::string file;
  std::size_t ops = 0;       // operations of the minimized scenario
  std::uint64_t at_run = 0;  // the run of its worker that found it
  // The known findings its minimized scenario raises before it
  // (MinimizeResult::after_known): it may be their consequence, which the
  // reader judges (a documented consequence is a known finding "after NAME",
  // scenario/known.hpp); it is a finding all the same.
  std::string after_known;
};

// A known finding's count: the runs that raised it.
struct KnownCount {
  std::string name;
  std::uint64_t runs = 0;
};

// What a campaign tells as it goes. Calls come one at a time (under the
// campaign's lock), from any worker.
class CampaignLog {
 public:
  virtual ~CampaignLog() = default;
  // Before the workers start: `jobs` workers; debug_read: byte format 5 is generated.
  virtual void started(const Profile& profile, const CampaignOptions& o, unsigned jobs, bool debug_read) = 0;
  // Every 5 s, from worker 0 (CampaignOptions::progress).
  virtual void progress(double seconds, std::uint64_t runs, std::uint64_t ops, std::size_t coverage,
                        std::size_t findings) = 0;
  // A new finding, number `number` (1-based), minimized (complete: 1-minimal) and
  // written to f.file with the scenario text `text`.
  virtual void finding(std::size_t number, const inv::Violation& v, const CampaignFinding& f, bool complete,
                       const std::string& text) = 0;
  // Lockstep: the first divergence (the campaign stops there); `shown` is the
  // scenario text that replays it alone.
  virtual void divergence(const scn::Divergence& d, const scn::Op& op, const std::string& shown) = 0;
};

struct CampaignResult {
  std::uint64_t runs = 0, ops = 0;
  double seconds = 0;
  unsigned jobs = 1;
  std::size_t coverage = 0;   // distinct state features (fuzz/coverage.hpp), of StateCoverage::kFeatures
  std::vector<CampaignFinding> findings;  // the new ones, one an identity
  std::vector<KnownCount> known;          // the known findings seen, in the order first seen
  double until_seconds = -1;  // when the --until invariant was first found (-1: not found)
  std::uint64_t until_runs = 0;
  unsigned divergences = 0;   // lockstep
  // --check incremental: runs that reported a new violation and ran again in
  // full mode, and of those, runs whose new violation the full run did not
  // confirm (docs/fuzzing.md, "Incremental checking")
  std::uint64_t rechecked = 0, unconfirmed = 0;
  std::uint64_t wake_choices_compared = 0, wake_choices_refused = 0;  // lockstep (scn::ExecResult)
  std::uint64_t lockstep_ended_at_warning = 0;  // lockstep runs ended where both sides warned
  std::uint64_t wake_choices_answered = 0, wake_choices_wide = 0;     // the model's choices, and the wide ones
  std::uint64_t wake_choices_weighed = 0;  // ... and those wake_affine_weight() decided
  // --bandwidth: the model's throttles and unthrottles, and the runs with a throttle
  std::uint64_t bandwidth_throttles = 0, bandwidth_unthrottles = 0, bandwidth_runs = 0;
};

CampaignResult run_campaign(const Profile& profile, const CampaignOptions& options, CampaignLog& log);

// What a campaign saw, as a known-findings file (scenario/known.hpp) that
// `fuzz --baseline` reads back: the known findings it counted, then every
// finding with its minimized scenario (a new one named for its file).
scn::KnownSet seen_identities(const CampaignResult& r, const CampaignOptions& o);

}  // namespace eevdf::fuzz
