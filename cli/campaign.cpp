#include "cli/campaign.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>

#include "fuzz/bytes.hpp"
#include "fuzz/executor.hpp"
#include "fuzz/minimize.hpp"
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

}  // namespace

int run_campaign(const Profile& profile, const std::string& profile_args, const CampaignOptions& o) {
  using clock = std::chrono::steady_clock;
  std::mt19937_64 rng(o.seed);
  fuzz::ExecOptions exec;
  exec.strict = false;
  fuzz::Executor executor(profile, exec);
  std::vector<Finding> findings;
  std::vector<std::uint8_t> bytes;
  const auto start = clock::now();
  auto last_progress = start;
  std::uint64_t runs = 0, ops = 0;

  std::cerr << fmt::format("fuzzing profile {} for {}s (seed {}), findings go to {}/\n", profile.name,
                           o.time.count(), o.seed, o.findings_dir);
  while (true) {
    const auto now = clock::now();
    if (now - start >= o.time || (o.max_runs && runs >= o.max_runs)) break;
    bytes.resize(8 + rng() % 400);
    for (auto& b : bytes) b = static_cast<std::uint8_t>(rng());
    bytes[0] = fuzz::kBytesFormatVersion;
    const fuzz::Scenario s = fuzz::decode_bytes(bytes);
    const fuzz::ExecResult r = executor.run(s);
    ++runs;
    ops += static_cast<std::uint64_t>(r.executed + r.skipped);
    for (const auto& v : r.violations) {
      bool known = false;
      for (const auto& f : findings) known = known || (f.id == v.id && f.where == v.where);
      if (known) continue;
      const auto m = fuzz::minimize(s, profile, v, o.minimize_budget);
      Finding f{v.id, v.where, "", m.scenario.ops.size(), runs};
      std::filesystem::create_directories(o.findings_dir);
      f.file = fmt::format("{}/{}-{}.scn", o.findings_dir, inv::id_name(v.id), slug(v.where));
      fuzz::Scenario out = m.scenario;
      out.title = fmt::format("{} in {} (found by eevdf-check fuzz --seed {}, run {})", inv::id_name(v.id), v.where,
                              o.seed, runs);
      out.profile = profile.name;
      std::ofstream(f.file) << fuzz::print_scenario(out);
      std::cerr << fmt::format("\nfinding {}: {} in {}\n  {}\n  minimized to {} operations{}: {}\n  replay: eevdf-check run {}{}\n",
                               findings.size() + 1, inv::id_name(v.id), v.where, v.what, f.ops,
                               m.complete ? "" : " (budget ran out)", f.file, f.file, profile_args);
      findings.push_back(std::move(f));
    }
    if (o.progress && clock::now() - last_progress >= std::chrono::seconds(5)) {
      last_progress = clock::now();
      const double secs = std::chrono::duration<double>(last_progress - start).count();
      std::cerr << fmt::format("  {:>6.0f}s  {:>10} runs  {:>9.0f} runs/s  {:>12} ops  {} findings\n", secs, runs,
                               runs / secs, ops, findings.size());
    }
  }
  const double secs = std::chrono::duration<double>(clock::now() - start).count();
  std::cout << fmt::format("\nSummary: profile {}, {} runs ({} operations) in {:.1f}s = {:.0f} runs/s, seed {}\n",
                           profile.name, runs, ops, secs, runs / (secs > 0 ? secs : 1), o.seed);
  if (findings.empty()) {
    std::cout << "No invariant violated.\n";
  } else {
    std::cout << fmt::format("{} distinct finding(s):\n", findings.size());
    for (const auto& f : findings)
      std::cout << fmt::format("  {:<11} {:<60} {} ops  {}\n", inv::id_name(f.id), f.where.substr(0, 60), f.ops, f.file);
  }
  return static_cast<int>(findings.size());
}

}  // namespace eevdf::cli
