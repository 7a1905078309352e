#include "fuzz/campaign.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <random>
#include <thread>

#include "fuzz/coverage.hpp"
#include "fuzz/minimize.hpp"
#include "model/profile_spec.hpp"
#include "scenario/bytes.hpp"
#include "scenario/executor.hpp"
#include "scenario/run_settings.hpp"
#include "scenario/scenario_print.hpp"

namespace eevdf::fuzz {

using namespace scn;  // the scenario layer the engines drive

namespace {

std::string slug(std::string_view where) {
  std::string out;
  for (char c : where) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_')
      out += c;
    else if (!out.empty() && out.back() != '-')
      out += '-';
    if (out.size() > 40) break;
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out;
}

// Some kernel bugs need one pattern many times in a row (B03: two tasks yield to
// each other about 24 times with no tick), which uniform random operations
// almost never produce. In one run out of four, a window of 1 to 3 operations is
// repeated 4 to 32 times in place (at most kMaxBytesOps operations in all).
void repeat_a_window(scn::Scenario& s, std::mt19937_64& rng) {
  if (s.ops.empty() || rng() % 4 != 0) return;
  const std::size_t from = rng() % s.ops.size();
  const std::size_t len = std::min<std::size_t>(1 + rng() % 3, s.ops.size() - from);
  const std::size_t room = scn::kMaxBytesOps > s.ops.size() ? (scn::kMaxBytesOps - s.ops.size()) / len : 0;
  const std::size_t copies = std::min<std::size_t>(3 + rng() % 29, room);  // 4..32 occurrences in all
  std::array<scn::Op, 3> window;
  std::copy_n(s.ops.begin() + static_cast<long>(from), len, window.begin());
  for (std::size_t i = 0; i < copies; ++i)
    s.ops.insert(s.ops.begin() + static_cast<long>(from + len * (i + 1)), window.begin(),
                 window.begin() + static_cast<long>(len));
}

// The profile's default-off SCHED_FEATs that a run may switch on, as
// /sys/kernel/debug/sched/features allows (not the RFC what-ifs, which no
// kernel has): NEXT_BUDDY on every profile, PARANOID_AVG where it exists.
std::vector<Feature> variable_features(const Profile& p) {
  std::vector<Feature> out;
  for (std::size_t i = 0; i < kFeatureCount; ++i) {
    const auto f = static_cast<Feature>(i);
    if (p.known[f] && !p.features[f] && std::string_view(feature_name(f)).substr(0, 4) != "RFC_") out.push_back(f);
  }
  return out;
}

// On several CPUs, the default-on wake-up features a run may switch off: with
// NO_WA_WEIGHT wake_affine_idle()'s answer (the WF_SYNC clause included) is the
// target, not PELT's loads; with NO_SIS_UTIL the idle scan covers the whole LLC
// and no choice is left to the scan budget: I-WAKECOUNT's premises (b) and (c).
std::vector<Feature> switchable_off_features(const Profile& p, unsigned runqueues) {
  std::vector<Feature> out;
  if (runqueues < 2) return out;  // one CPU: no choice to make
  for (const Feature f : {Feature::WA_WEIGHT, Feature::SIS_UTIL})
    if (p.known[f] && p.features[f]) out.push_back(f);
  return out;
}

// The profile, then (vary) the profile with each non-empty subset of its variable
// features flipped: the default-off ones on, the switchable default-on ones off.
std::vector<Profile> feature_variants(const Profile& p, bool vary, unsigned runqueues) {
  std::vector<Profile> out{p};
  std::vector<Feature> features = vary ? variable_features(p) : std::vector<Feature>{};
  if (vary)
    for (const Feature f : switchable_off_features(p, runqueues)) features.push_back(f);
  for (std::size_t mask = 1; mask < (std::size_t{1} << features.size()); ++mask) {
    Profile v = p;
    for (std::size_t b = 0; b < features.size(); ++b)
      if (mask & (std::size_t{1} << b)) v.features.set(features[b], !p.features[features[b]]);
    out.push_back(std::move(v));
  }
  return out;
}

// The header lines of a finding's scenario: the profile, its bug, its
// features as changes from the named profile (a run's variant included), the
// tunables, so that the file alone replays it.
void set_profile_lines(scn::Scenario& s, const Profile& p) {
  std::string error;
  if (const auto spec = spec_of(p, error)) {
    scn::set_profile_spec(s, *spec);
    return;
  }
  s.profile = p.name;  // (a profile no spec builds: the names and tunables alone, as before)
  s.bug = p.bug;
  s.hz = p.tunables.hz;
  s.cpus = p.tunables.ncpus;
}

// State shared by the workers of one campaign.
struct Shared {
  Shared(const Profile& p, const CampaignOptions& opts, CampaignLog& l)
      : profile(p), o(opts), log(l), start(std::chrono::steady_clock::now()),
        debug_read(opts.debug_read == CampaignOptions::DebugRead::always ||
                   (opts.debug_read == CampaignOptions::DebugRead::profile && debug_read_races(p))) {}
  const Profile& profile;
  const CampaignOptions& o;
  std::vector<Profile> variants = feature_variants(profile, o.vary_features, o.runqueues);
  CampaignLog& log;
  std::chrono::steady_clock::time_point start;
  bool debug_read;  // generate debug_read (byte format 6 without kBytesNoDebugRead)
  std::atomic<std::uint64_t> runs{0}, ops{0};
  std::atomic<std::uint64_t> wake_choices_compared{0}, wake_choices_refused{0};
  std::atomic<std::uint64_t> ended_at_warning{0};  // lockstep runs ended where both sides warned
  std::atomic<std::uint64_t> wake_choices_answered{0}, wake_choices_wide{0}, wake_choices_weighed{0};
  std::atomic<std::uint64_t> bandwidth_throttles{0}, bandwidth_unthrottles{0}, bandwidth_runs{0};
  StateCoverage coverage;  // shared by the workers (fuzz/coverage.hpp)
  std::mutex mutex;  // findings and output
  std::vector<CampaignFinding> findings;
  std::atomic<bool> stop{false};
  std::atomic<unsigned> divergences{0};
  std::atomic<std::uint64_t> rechecked{0}, unconfirmed{0};  // --check incremental
  double until_seconds = -1;  // when the --until invariant was first found
  std::uint64_t until_runs = 0;
  std::vector<KnownCount> known;  // runs that raised each known finding
};

// Counts each known finding once for the run that raised it.
void count_known(Shared& sh, const scn::ExecResult& r) {
  if (std::none_of(r.violations.begin(), r.violations.end(), [](const inv::Violation& v) { return !v.known.empty(); }))
    return;
  std::lock_guard lock(sh.mutex);
  for (std::size_t i = 0; i < r.violations.size(); ++i) {
    const std::string& name = r.violations[i].known;
    if (name.empty()) continue;
    bool earlier = false;  // the same finding earlier in this run's list
    for (std::size_t j = 0; j < i && !earlier; ++j) earlier = r.violations[j].known == name;
    if (earlier) continue;
    auto it = std::find_if(sh.known.begin(), sh.known.end(), [&](const KnownCount& k) { return k.name == name; });
    if (it == sh.known.end()) it = sh.known.insert(sh.known.end(), KnownCount{name, 0});
    ++it->runs;
  }
}

// One worker: its own random stream (seed + job) and executor.
void work(Shared& sh, unsigned job) {
  using clock = std::chrono::steady_clock;
  const CampaignOptions& o = sh.o;
  const std::uint64_t seed = o.seed + job;
  std::mt19937_64 rng(seed);
  scn::ExecOptions exec;
  exec.strict = false;
  exec.selection = o.selection;
  exec.tolerances = o.tolerances;
  exec.observer = &sh.coverage;
  exec.backend = o.backend;
  exec.known = o.known.empty() ? nullptr : &o.known;
  if (o.backend == scn::Backend::lockstep) exec.selection.on.fill(false);  // the comparison alone: invariants are the other campaigns' job
  // one executor a feature set (CampaignOptions::vary_features): the profile's, then each variant
  std::vector<scn::Executor> executors;
  for (const Profile& p : sh.variants) executors.emplace_back(p, exec);
  // --check incremental: an input whose run reported a new violation (not a
  // known finding) runs again with every invariant after every operation, and
  // that run's result is the one counted, reported and minimized (the exact
  // first operation); the known findings of the other runs are counted from
  // the incremental run (one that healed before a sweep goes uncounted)
  const bool incremental = o.check_mode == scn::CheckMode::incremental && o.backend != scn::Backend::lockstep;
  std::vector<scn::Executor> incremental_executors;
  if (incremental) {
    scn::ExecOptions light = exec;
    light.check_mode = scn::CheckMode::incremental;
    for (const Profile& p : sh.variants) incremental_executors.emplace_back(p, light);
  }
  std::vector<std::uint8_t> bytes;
  scn::Scenario s;  // reused from run to run
  auto last_progress = sh.start;
  std::uint64_t my_runs = 0;
  while (true) {
    if (sh.stop.load() || clock::now() - sh.start >= o.time || (o.max_runs && sh.runs.load() >= o.max_runs)) break;
    bytes.resize(8 + rng() % 400);
    for (auto& b : bytes) b = static_cast<std::uint8_t>(rng());
    const bool groups = o.groups == CampaignOptions::Groups::always ||
                        (o.groups == CampaignOptions::Groups::mixed && (bytes[0] & 1));
    // format 7: every operation, time off the tick grid (run DUR notick, tick DUR),
    // base_slice_ns writes and group_destroy included; task groups (group_destroy
    // with them), the debugfs reader and SCHED_FIFO tasks only where the campaign has
    // them; format 8 (--fan-out): format 7 with fan-out wakes and sleeps
    // with bandwidth, on a profile with v6.18's task-based throttle, formats 11
    // and 12: return_to_user too (the throttle work of the running task)
    const bool task_based = sh.variants[0].behaviour.task_based_throttle;
    bytes[0] = o.bandwidth ? (task_based ? (o.fan_out ? scn::kBytesFormatVersion12 : scn::kBytesFormatVersion11)
                                         : (o.fan_out ? scn::kBytesFormatVersion10 : scn::kBytesFormatVersion9))
               : o.fan_out ? scn::kBytesFormatVersion8
                           : scn::kBytesFormatVersion7;
    bytes[1] = static_cast<std::uint8_t>(scn::bytes_runqueue_byte(o.runqueues) | (groups ? 0 : scn::kBytesNoGroups) |
                                         (sh.debug_read ? 0 : scn::kBytesNoDebugRead) |
                                         (o.late_ticks ? 0 : scn::kBytesEarlyTicks) |
                                         (o.nohz_full ? 0 : scn::kBytesNoTickless) | (o.rt ? 0 : scn::kBytesNoRt));
    scn::decode_bytes_into(bytes.data(), bytes.size(), s);
    s.smt = o.smt;
    repeat_a_window(s, rng);
    // in one run of four, a set of features flipped (as debugfs allows)
    const std::size_t variant = sh.variants.size() > 1 && rng() % 4 == 0 ? 1 + rng() % (sh.variants.size() - 1) : 0;
    const Profile& run_profile = sh.variants[variant];
    scn::ExecResult r = incremental ? incremental_executors[variant].run(s) : executors[variant].run(s);
    const auto has_new = [](const scn::ExecResult& x) {
      return std::any_of(x.violations.begin(), x.violations.end(), [](const inv::Violation& v) { return v.known.empty(); });
    };
    if (incremental && has_new(r)) {
      r = executors[variant].run(s);
      sh.rechecked.fetch_add(1);
      // the full check judges at least what the incremental one did, at every
      // operation, so a run it finds clean is an error of the incremental
      // oracle; one whose violations it labels known is docs/fuzzing.md's
      // "Incremental checking"
      if (!has_new(r)) sh.unconfirmed.fetch_add(1);
    }
    ++my_runs;
    sh.runs.fetch_add(1);
    sh.ops.fetch_add(static_cast<std::uint64_t>(r.executed + r.skipped));
    sh.wake_choices_compared.fetch_add(static_cast<std::uint64_t>(r.wake_choices_compared));
    sh.wake_choices_refused.fetch_add(static_cast<std::uint64_t>(r.wake_choices_refused));
    if (r.lockstep_ended_at_warning) sh.ended_at_warning.fetch_add(1);
    sh.wake_choices_answered.fetch_add(static_cast<std::uint64_t>(r.wake_choices_answered));
    sh.wake_choices_wide.fetch_add(static_cast<std::uint64_t>(r.wake_choices_wide));
    sh.wake_choices_weighed.fetch_add(static_cast<std::uint64_t>(r.wake_choices_weighed));
    sh.bandwidth_throttles.fetch_add(static_cast<std::uint64_t>(r.bandwidth_throttles));
    sh.bandwidth_unthrottles.fetch_add(static_cast<std::uint64_t>(r.bandwidth_unthrottles));
    if (r.bandwidth_throttles) sh.bandwidth_runs.fetch_add(1);
    if (r.divergence) {  // lockstep: the first difference is a finding of its own; the campaign stops there
      std::lock_guard lock(sh.mutex);
      if (!sh.stop.exchange(true)) {
        // the scenario up to the diverging operation, as a file that replays alone:
        // `backend lockstep`, the profile and its bug, and without the operations
        // both sides refused before it (a text scenario runs strictly)
        const auto at = static_cast<std::size_t>(r.divergence->op_index);
        scn::Scenario shown = s;
        shown.ops.resize(at + 1);
        for (auto it = r.skipped_ops.rbegin(); it != r.skipped_ops.rend(); ++it)
          if (*it < at) shown.ops.erase(shown.ops.begin() + static_cast<long>(*it));
        set_profile_lines(shown, run_profile);
        shown.smt = o.smt;
        shown.backend = scn::Backend::lockstep;
        sh.log.divergence(*r.divergence, s.ops[at], scn::print_scenario(shown));
        sh.divergences.fetch_add(1);
      }
      break;
    }
    if (exec.known) count_known(sh, r);
    for (const auto& v : r.violations) {
      {
        std::lock_guard lock(sh.mutex);
        const bool until_match = !o.until.empty() && inv::id_name(v.id) == o.until &&
                                 v.where.find(o.until_site) != std::string::npos;
        if (until_match && sh.until_seconds < 0) {
          sh.until_seconds = std::chrono::duration<double>(clock::now() - sh.start).count();
          sh.until_runs = sh.runs.load();
          sh.stop = true;
        }
      }
      if (!v.known.empty()) continue;  // a known finding: counted, not a finding
      const FindingIdentity identity = finding_identity(v, s);
      std::size_t index = 0;
      {
        std::lock_guard lock(sh.mutex);
        const bool seen = std::any_of(sh.findings.begin(), sh.findings.end(),
                                      [&](const CampaignFinding& f) { return f.identity == identity; });
        if (seen) continue;
        // claim it, minimize outside the lock; its file is named for the
        // invariant, the site and the trigger, numbered from the second detail class on
        std::size_t same_name = 1;
        for (const auto& f : sh.findings)
          same_name += f.identity.id == v.id && f.identity.where == v.where && f.identity.trigger == identity.trigger;
        index = sh.findings.size();
        sh.findings.push_back(CampaignFinding{
            identity,
            fmt::format("{}/{}-{}{}{}{}.scn", o.findings_dir, inv::id_name(v.id), slug(v.where),
                        identity.trigger.empty() ? "" : "-at-", identity.trigger,
                        same_name > 1 ? fmt::format("-{}", same_name) : ""),
            0, my_runs, ""});
      }
      // on the backend that found it: a violation of the kernel's own state is shrunk there
      const auto m = minimize(s, run_profile, v, o.minimize_budget, o.tolerances, o.selection, o.backend, exec.known);
      scn::Scenario out = m.scenario;
      out.title = fmt::format("{} in {} (found by eevdf-check fuzz --seed {}, run {}{})", inv::id_name(v.id), v.where,
                              seed, my_runs, m.after_known.empty() ? "" : "; after the known finding " + m.after_known);
      set_profile_lines(out, run_profile);
      out.runqueues = o.runqueues;
      out.smt = o.smt;
      out.backend = o.backend;  // `backend kernel`: the finding replays on the kernel's code from the file alone
      scn::record_run_settings(exec, out);  // `skip` of --skip, `tolerate none`: the file alone replays it
      const std::string text = scn::print_scenario(out);
      std::lock_guard lock(sh.mutex);
      std::filesystem::create_directories(o.findings_dir);
      CampaignFinding& f = sh.findings[index];
      std::ofstream(f.file) << text;
      f.ops = out.ops.size();
      f.after_known = m.after_known;
      sh.log.finding(index + 1, v, f, m.complete, text);
    }
    if (job == 0 && o.progress && clock::now() - last_progress >= std::chrono::seconds(5)) {
      last_progress = clock::now();
      const double secs = std::chrono::duration<double>(last_progress - sh.start).count();
      std::lock_guard lock(sh.mutex);
      sh.log.progress(secs, sh.runs.load(), sh.ops.load(), sh.coverage.count(), sh.findings.size());
    }
  }
}

}  // namespace

CampaignResult run_campaign(const Profile& profile, const CampaignOptions& o, CampaignLog& log) {
  Shared sh(profile, o, log);
  const unsigned jobs = o.backend != Backend::model ? 1 : o.jobs == 0 ? 1 : o.jobs;
  sh.log.started(profile, o, jobs, sh.debug_read);
  std::vector<std::thread> workers;
  for (unsigned j = 1; j < jobs; ++j) workers.emplace_back(work, std::ref(sh), j);
  work(sh, 0);
  for (auto& t : workers) t.join();

  CampaignResult r;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - sh.start).count();
  r.runs = sh.runs.load();
  r.ops = sh.ops.load();
  r.jobs = jobs;
  r.coverage = sh.coverage.count();
  r.findings = sh.findings;
  r.known = sh.known;
  r.until_seconds = sh.until_seconds;
  r.until_runs = sh.until_runs;
  r.divergences = sh.divergences.load();
  r.rechecked = sh.rechecked.load();
  r.unconfirmed = sh.unconfirmed.load();
  r.wake_choices_compared = sh.wake_choices_compared.load();
  r.wake_choices_refused = sh.wake_choices_refused.load();
  r.lockstep_ended_at_warning = sh.ended_at_warning.load();
  r.wake_choices_answered = sh.wake_choices_answered.load();
  r.wake_choices_wide = sh.wake_choices_wide.load();
  r.wake_choices_weighed = sh.wake_choices_weighed.load();
  r.bandwidth_throttles = sh.bandwidth_throttles.load();
  r.bandwidth_unthrottles = sh.bandwidth_unthrottles.load();
  r.bandwidth_runs = sh.bandwidth_runs.load();
  return r;
}

scn::KnownSet seen_identities(const CampaignResult& r, const CampaignOptions& o) {
  scn::KnownSet out;
  for (const KnownCount& k : r.known)
    for (const scn::KnownFinding& f : o.known.entries())
      if (f.name == k.name) out.add(f);
  for (const CampaignFinding& f : r.findings) {
    const std::string stem = std::filesystem::path(f.file).stem().string();
    out.add(scn::KnownSet::exactly(stem, f.identity, f.file));
  }
  return out;
}

}  // namespace eevdf::fuzz
