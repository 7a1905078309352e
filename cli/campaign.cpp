#include "cli/campaign.hpp"
#include "kernelsrc/kernel_backend.hpp"
#include "fuzz/scenario_print.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <random>
#include <thread>

#include "fuzz/bytes.hpp"
#include "fuzz/executor.hpp"
#include "fuzz/minimize.hpp"
#include "fuzz/run_settings.hpp"
#include "fuzz/scenario_print.hpp"

namespace eevdf::cli {

namespace {

struct Finding {
  inv::Id id;
  std::string where;
  std::string file;
  std::size_t ops = 0;
  std::uint64_t at_run = 0;
};

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

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t end = text.find('\n', pos);
    lines.push_back(text.substr(pos, end == std::string::npos ? std::string::npos : end - pos));
    if (end == std::string::npos) break;
    pos = end + 1;
  }
  return lines;
}

// Some kernel bugs need one pattern many times in a row (B03: two tasks yield to
// each other about 24 times with no tick), which uniform random operations
// almost never produce. In one run out of four, a window of 1 to 3 operations is
// repeated 4 to 32 times in place (at most kMaxBytesOps operations in all).
void repeat_a_window(fuzz::Scenario& s, std::mt19937_64& rng) {
  if (s.ops.empty() || rng() % 4 != 0) return;
  const std::size_t from = rng() % s.ops.size();
  const std::size_t len = std::min<std::size_t>(1 + rng() % 3, s.ops.size() - from);
  const std::size_t room = fuzz::kMaxBytesOps > s.ops.size() ? (fuzz::kMaxBytesOps - s.ops.size()) / len : 0;
  const std::size_t copies = std::min<std::size_t>(3 + rng() % 29, room);  // 4..32 occurrences in all
  std::array<fuzz::Op, 3> window;
  std::copy_n(s.ops.begin() + static_cast<long>(from), len, window.begin());
  for (std::size_t i = 0; i < copies; ++i)
    s.ops.insert(s.ops.begin() + static_cast<long>(from + len * (i + 1)), window.begin(),
                 window.begin() + static_cast<long>(len));
}

// State shared by the workers of one campaign.
struct Shared {
  Shared(const Profile& p, const std::string& args, const CampaignOptions& opts)
      : profile(p), profile_args(args), o(opts), start(std::chrono::steady_clock::now()),
        debug_read(opts.debug_read == CampaignOptions::DebugRead::always ||
                   (opts.debug_read == CampaignOptions::DebugRead::profile && debug_read_races(p))) {}
  const Profile& profile;
  const std::string& profile_args;
  const CampaignOptions& o;
  std::chrono::steady_clock::time_point start;
  bool debug_read;  // generate debug_read (byte format 5)
  std::atomic<std::uint64_t> runs{0}, ops{0};
  fuzz::StateCoverage coverage;  // shared by the workers (fuzz/coverage.hpp)
  std::mutex mutex;  // findings and output
  std::vector<Finding> findings;
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
  fuzz::ExecOptions exec;
  exec.strict = false;
  exec.selection = o.selection;
  exec.coverage = &sh.coverage;
  exec.backend = o.backend;
  if (o.backend == fuzz::Backend::lockstep) exec.selection.on.fill(false);  // the comparison alone: invariants are the other campaigns' job
  fuzz::Executor executor(sh.profile, exec);
  std::vector<std::uint8_t> bytes;
  fuzz::Scenario s;  // reused from run to run
  auto last_progress = sh.start;
  std::uint64_t my_runs = 0;
  while (true) {
    if (sh.stop.load() || clock::now() - sh.start >= o.time || (o.max_runs && sh.runs.load() >= o.max_runs)) break;
    bytes.resize(8 + rng() % 400);
    for (auto& b : bytes) b = static_cast<std::uint8_t>(rng());
    const bool groups = o.groups == CampaignOptions::Groups::always ||
                        (o.groups == CampaignOptions::Groups::mixed && (bytes[0] & 1));
    bytes[0] = groups ? fuzz::kBytesFormatVersion2 : fuzz::kBytesFormatVersion;  // 2: with task groups
    if (o.runqueues > 1) {  // 3: several CPUs, 4: with task groups
      bytes[0] = groups ? fuzz::kBytesFormatVersion4 : fuzz::kBytesFormatVersion3;
      bytes[1] = fuzz::bytes_runqueue_byte(o.runqueues);
    }
    if (sh.debug_read) {  // 5: the debugfs reader too, with or without task groups
      bytes[0] = fuzz::kBytesFormatVersion5;
      bytes[1] = static_cast<std::uint8_t>(fuzz::bytes_runqueue_byte(o.runqueues) | (groups ? 0 : fuzz::kBytesNoGroups));
    }
    fuzz::decode_bytes_into(bytes.data(), bytes.size(), s);
    repeat_a_window(s, rng);
    const fuzz::ExecResult r = executor.run(s);
    ++my_runs;
    sh.runs.fetch_add(1);
    sh.ops.fetch_add(static_cast<std::uint64_t>(r.executed + r.skipped));
    if (r.divergence) {  // lockstep: the first difference is a finding of its own; the campaign stops there
      std::lock_guard lock(sh.mutex);
      if (!sh.stop.exchange(true)) {
        // the scenario up to the diverging operation, as a file that replays alone:
        // `backend lockstep`, the profile and its bug, and without the operations
        // both sides refused before it (a text scenario runs strictly)
        const auto at = static_cast<std::size_t>(r.divergence->op_index);
        fuzz::Scenario shown = s;
        shown.ops.resize(at + 1);
        for (auto it = r.skipped_ops.rbegin(); it != r.skipped_ops.rend(); ++it)
          if (*it < at) shown.ops.erase(shown.ops.begin() + static_cast<long>(*it));
        shown.profile = sh.profile.name;
        shown.bug = sh.profile.bug;
        shown.hz = sh.profile.tunables.hz;
        shown.cpus = sh.profile.tunables.ncpus;
        shown.backend = fuzz::Backend::lockstep;
        std::cout << fmt::format("LOCKSTEP DIVERGENCE at operation {} ({}): {}: model {}, kernel {}\n",
                                 r.divergence->op_index,
                                 fuzz::print_op(s.ops[static_cast<std::size_t>(r.divergence->op_index)]),
                                 r.divergence->field, r.divergence->model, r.divergence->kernel);
        std::cout << "scenario (replay with: eevdf-check run FILE):\n" << fuzz::print_scenario(shown);
        sh.divergences.fetch_add(1);
      }
      break;
    }
    for (const auto& v : r.violations) {
      {
        std::lock_guard lock(sh.mutex);
        bool known = false;
        for (const auto& f : sh.findings) known = known || (f.id == v.id && f.where == v.where);
        const bool until_match = !o.until.empty() && inv::id_name(v.id) == o.until &&
                                 v.where.find(o.until_site) != std::string::npos;
        if (until_match && sh.until_seconds < 0) {
          sh.until_seconds = std::chrono::duration<double>(clock::now() - sh.start).count();
          sh.until_runs = sh.runs.load();
          sh.stop = true;
        }
        if (known) continue;
        sh.findings.push_back(Finding{v.id, v.where, "", 0, my_runs});  // claim it, minimize outside the lock
      }
      // on the backend that found it: a violation of the kernel's own state is shrunk there
      const auto m = fuzz::minimize(s, sh.profile, v, o.minimize_budget, {}, o.selection, o.backend);
      fuzz::Scenario out = m.scenario;
      out.title = fmt::format("{} in {} (found by eevdf-check fuzz --seed {}, run {})", inv::id_name(v.id), v.where,
                              seed, my_runs);
      out.profile = sh.profile.name;
      out.bug = sh.profile.bug;
      out.hz = sh.profile.tunables.hz;
      out.cpus = sh.profile.tunables.ncpus;
      out.runqueues = o.runqueues;
      out.backend = o.backend;  // `backend kernel`: the finding replays on the kernel's code from the file alone
      fuzz::record_run_settings(exec, out);  // `skip` of --skip: the file alone replays it
      const std::string text = fuzz::print_scenario(out);
      std::lock_guard lock(sh.mutex);
      std::filesystem::create_directories(o.findings_dir);
      const std::string file = fmt::format("{}/{}-{}.scn", o.findings_dir, inv::id_name(v.id), slug(v.where));
      std::ofstream(file) << text;
      std::size_t index = 0;
      for (std::size_t i = 0; i < sh.findings.size(); ++i)
        if (sh.findings[i].id == v.id && sh.findings[i].where == v.where) index = i;
      sh.findings[index].file = file;
      sh.findings[index].ops = out.ops.size();
      std::cerr << fmt::format("\nfinding {}: {} in {}\n  {}\n  minimized to {} operations{}: {}\n", index + 1,
                               inv::id_name(v.id), v.where, v.what, out.ops.size(),
                               m.complete ? "" : " (budget ran out)", file);
      std::cerr << "  | " << fmt::format("{}", fmt::join(split_lines(text), "\n  | ")) << "\n";
      std::cerr << fmt::format("  replay: eevdf-check run {}{}\n", file, sh.profile_args);
    }
    if (job == 0 && o.progress && clock::now() - last_progress >= std::chrono::seconds(5)) {
      last_progress = clock::now();
      const double secs = std::chrono::duration<double>(last_progress - sh.start).count();
      std::lock_guard lock(sh.mutex);
      std::cerr << fmt::format("  {:>6.0f}s  {:>10} runs  {:>9.0f} runs/s  {:>12} ops  cov {:>5}  {} findings\n",
                               secs, sh.runs.load(), static_cast<double>(sh.runs.load()) / secs, sh.ops.load(),
                               sh.coverage.count(), sh.findings.size());
    }
  }
}

}  // namespace

int run_campaign(const Profile& profile, const std::string& profile_args, const CampaignOptions& o) {
  Shared sh(profile, profile_args, o);
  const unsigned jobs = o.backend != fuzz::Backend::model ? 1 : o.jobs == 0 ? 1 : o.jobs;
  const char* groups = o.groups == CampaignOptions::Groups::always  ? "every run"
                       : o.groups == CampaignOptions::Groups::never ? "none"
                                                                     : "every other run";
  std::cerr << fmt::format(
      "fuzzing profile {} (HZ={}, {} CPUs) for {}s with {} job(s) (seeds {}..{}), task groups in {}{}, findings go to "
      "{}/\n",
      profile.name, profile.tunables.hz, profile.tunables.ncpus, o.time.count(), jobs, o.seed, o.seed + jobs - 1,
      groups, sh.debug_read ? ", debugfs reads (debug_read)" : "", o.findings_dir);
  std::vector<std::thread> workers;
  for (unsigned j = 1; j < jobs; ++j) workers.emplace_back(work, std::ref(sh), j);
  work(sh, 0);
  for (auto& t : workers) t.join();

  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - sh.start).count();
  std::cout << fmt::format("\nSummary: profile {}, {} runs ({} operations) in {:.1f}s = {:.0f} runs/s, {} job(s), seed {}\n",
                           profile.name, sh.runs.load(), sh.ops.load(), secs,
                           static_cast<double>(sh.runs.load()) / (secs > 0 ? secs : 1), jobs, o.seed);
  std::cout << fmt::format("Coverage: {} distinct state features (operation kind x result x runqueue shape, "
                           "of {}; see docs/fuzzing.md)\n",
                           sh.coverage.count(), fuzz::StateCoverage::kFeatures);
  if (!o.until.empty()) {
    const std::string until = o.until_site.empty() ? o.until : o.until + "@" + o.until_site;
    if (sh.until_seconds >= 0)
      std::cout << fmt::format("until: first {} after {:.3f}s, {} runs\n", until, sh.until_seconds, sh.until_runs);
    else
      std::cout << fmt::format("until: no {} within the budget\n", until);
  }
  if (sh.findings.empty()) {
    std::cout << (o.backend == fuzz::Backend::lockstep ? "Invariants not checked: lockstep compares the model with the kernel.\n"
                                                       : "No invariant violated.\n");
  } else {
    std::cout << fmt::format("{} distinct finding(s):\n", sh.findings.size());
    for (const auto& f : sh.findings)
      std::cout << fmt::format("  {:<11} {:<60} {} ops  {}\n", inv::id_name(f.id), f.where.substr(0, 60), f.ops, f.file);
  }
  if (o.backend == fuzz::Backend::lockstep)
    std::cout << fmt::format("lockstep ({}, Linux {}): {} runs, {} operations, {} divergence(s)\n",
                             profile.name, kernelsrc::kernel_version(), sh.runs.load(), sh.ops.load(),
                             sh.divergences.load());
  if (o.backend == fuzz::Backend::lockstep) return static_cast<int>(sh.divergences.load());
  return static_cast<int>(sh.findings.size());
}

}  // namespace eevdf::cli
