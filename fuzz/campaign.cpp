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

// The campaign's features as changes from the named profile (--features), for
// a finding's or divergence's header: the file alone replays it. Empty when the
// profile has none, or when no spec builds it (spec_of() says why; the file then
// names the profile alone, as before).
std::string features_of(const Profile& profile) {
  std::string error;
  const auto spec = spec_of(profile, error);
  return spec ? spec->features : std::string();
}

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

// State shared by the workers of one campaign.
struct Shared {
  Shared(const Profile& p, const CampaignOptions& opts, CampaignLog& l)
      : profile(p), o(opts), log(l), start(std::chrono::steady_clock::now()),
        debug_read(opts.debug_read == CampaignOptions::DebugRead::always ||
                   (opts.debug_read == CampaignOptions::DebugRead::profile && debug_read_races(p))) {}
  const Profile& profile;
  const CampaignOptions& o;
  CampaignLog& log;
  std::chrono::steady_clock::time_point start;
  bool debug_read;  // generate debug_read (byte format 6 without kBytesNoDebugRead)
  std::atomic<std::uint64_t> runs{0}, ops{0};
  std::atomic<std::uint64_t> wake_choices_compared{0}, wake_choices_refused{0};
  std::atomic<std::uint64_t> wake_choices_answered{0}, wake_choices_wide{0}, wake_choices_weighed{0};
  StateCoverage coverage;  // shared by the workers (fuzz/coverage.hpp)
  std::mutex mutex;  // findings and output
  std::vector<CampaignFinding> findings;
  std::atomic<bool> stop{false};
  std::atomic<unsigned> divergences{0};
  double until_seconds = -1;  // when the --until invariant was first found
  std::uint64_t until_runs = 0;
};

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
  if (o.backend == scn::Backend::lockstep) exec.selection.on.fill(false);  // the comparison alone: invariants are the other campaigns' job
  scn::Executor executor(sh.profile, exec);
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
    bytes[0] = o.fan_out ? scn::kBytesFormatVersion8 : scn::kBytesFormatVersion7;
    bytes[1] = static_cast<std::uint8_t>(scn::bytes_runqueue_byte(o.runqueues) | (groups ? 0 : scn::kBytesNoGroups) |
                                         (sh.debug_read ? 0 : scn::kBytesNoDebugRead) |
                                         (o.late_ticks ? 0 : scn::kBytesEarlyTicks) |
                                         (o.nohz_full ? 0 : scn::kBytesNoTickless) | (o.rt ? 0 : scn::kBytesNoRt));
    scn::decode_bytes_into(bytes.data(), bytes.size(), s);
    s.smt = o.smt;
    repeat_a_window(s, rng);
    const scn::ExecResult r = executor.run(s);
    ++my_runs;
    sh.runs.fetch_add(1);
    sh.ops.fetch_add(static_cast<std::uint64_t>(r.executed + r.skipped));
    sh.wake_choices_compared.fetch_add(static_cast<std::uint64_t>(r.wake_choices_compared));
    sh.wake_choices_refused.fetch_add(static_cast<std::uint64_t>(r.wake_choices_refused));
    sh.wake_choices_answered.fetch_add(static_cast<std::uint64_t>(r.wake_choices_answered));
    sh.wake_choices_wide.fetch_add(static_cast<std::uint64_t>(r.wake_choices_wide));
    sh.wake_choices_weighed.fetch_add(static_cast<std::uint64_t>(r.wake_choices_weighed));
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
        shown.profile = sh.profile.name;
        shown.bug = sh.profile.bug;
        shown.hz = sh.profile.tunables.hz;
        shown.cpus = sh.profile.tunables.ncpus;
        shown.features = features_of(sh.profile);
        shown.smt = o.smt;
        shown.backend = scn::Backend::lockstep;
        sh.log.divergence(*r.divergence, s.ops[at], scn::print_scenario(shown));
        sh.divergences.fetch_add(1);
      }
      break;
    }
    for (const auto& v : r.violations) {
      const FindingIdentity identity = finding_identity(v, s);
      std::size_t index = 0;
      {
        std::lock_guard lock(sh.mutex);
        const bool until_match = !o.until.empty() && inv::id_name(v.id) == o.until &&
                                 v.where.find(o.until_site) != std::string::npos;
        if (until_match && sh.until_seconds < 0) {
          sh.until_seconds = std::chrono::duration<double>(clock::now() - sh.start).count();
          sh.until_runs = sh.runs.load();
          sh.stop = true;
        }
        const bool known = std::any_of(sh.findings.begin(), sh.findings.end(),
                                       [&](const CampaignFinding& f) { return f.identity == identity; });
        if (known) continue;
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
            0, my_runs});
      }
      // on the backend that found it: a violation of the kernel's own state is shrunk there
      const auto m = minimize(s, sh.profile, v, o.minimize_budget, o.tolerances, o.selection, o.backend);
      scn::Scenario out = m.scenario;
      out.title = fmt::format("{} in {} (found by eevdf-check fuzz --seed {}, run {})", inv::id_name(v.id), v.where,
                              seed, my_runs);
      out.profile = sh.profile.name;
      out.bug = sh.profile.bug;
      out.hz = sh.profile.tunables.hz;
      out.cpus = sh.profile.tunables.ncpus;
      out.features = features_of(sh.profile);
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
  r.until_seconds = sh.until_seconds;
  r.until_runs = sh.until_runs;
  r.divergences = sh.divergences.load();
  r.wake_choices_compared = sh.wake_choices_compared.load();
  r.wake_choices_refused = sh.wake_choices_refused.load();
  r.wake_choices_answered = sh.wake_choices_answered.load();
  r.wake_choices_wide = sh.wake_choices_wide.load();
  r.wake_choices_weighed = sh.wake_choices_weighed.load();
  return r;
}

}  // namespace eevdf::fuzz
