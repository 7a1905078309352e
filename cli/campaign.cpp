#include "cli/campaign.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <tuple>
#include <fmt/ranges.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <vector>

#include "fuzz/coverage.hpp"
#include "kernelsrc/kernel_backend.hpp"
#include "scenario/scenario_print.hpp"

namespace eevdf::cli {

namespace {

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

// Progress and findings on stderr, a lockstep divergence on stdout.
class PrintingLog final : public fuzz::CampaignLog {
 public:
  explicit PrintingLog(const std::string& profile_args) : profile_args_(profile_args) {}

  void started(const Profile& profile, const fuzz::CampaignOptions& o, unsigned jobs, bool debug_read) override {
    using Groups = fuzz::CampaignOptions::Groups;
    const char* groups = o.groups == Groups::always ? "every run" : o.groups == Groups::never ? "none" : "every other run";
    std::cerr << fmt::format(
        "fuzzing profile {} (HZ={}, {} CPUs) for {}s with {} job(s) (seeds {}..{}), task groups in {}{}{}{}{}{}, "
        "findings go to {}/\n",
        profile.name, profile.tunables.hz, profile.tunables.ncpus, o.time.count(), jobs, o.seed, o.seed + jobs - 1,
        groups, !o.vary_features        ? ""
        : o.runqueues > 1 ? ", default-off features on and WA_WEIGHT/SIS_UTIL off in one run of four"
                          : ", default-off features in one run of four",
        debug_read ? ", debugfs reads (debug_read)" : "",
        o.fan_out ? ", fan-out wakes and sleeps (byte format 8)" : "",
        o.bandwidth ? ", cpu.max quotas (byte format 9)" : "",
        o.smt > 1 ? fmt::format(", SMT siblings (smt {})", o.smt) : "", o.findings_dir);
    if (o.check_mode == scn::CheckMode::incremental && o.backend != scn::Backend::lockstep)
      std::cerr << "checking incrementally: every invariant every 16 operations and at the end of each run\n";
    if (o.backend != scn::Backend::model)
      std::cerr << fmt::format("backend {}: Linux {}'s own fair.c, {}\n", scn::backend_name(o.backend),
                               kernelsrc::kernel_version(), o.judge_note);
  }
  void progress(double secs, std::uint64_t runs, std::uint64_t ops, std::size_t coverage,
                std::size_t findings) override {
    std::cerr << fmt::format("  {:>6.0f}s  {:>10} runs  {:>9.0f} runs/s  {:>12} ops  cov {:>5}  {} findings\n", secs,
                             runs, static_cast<double>(runs) / secs, ops, coverage, findings);
  }
  void finding(std::size_t number, const inv::Violation& v, const fuzz::CampaignFinding& f, bool complete,
               const std::string& text) override {
    std::cerr << fmt::format("\nfinding {}: {} in {}{}{}\n  {}\n  minimized to {} operations{}{}: {}\n", number,
                             inv::id_name(v.id), v.where, f.identity.trigger.empty() ? "" : ", at ",
                             f.identity.trigger, v.what, f.ops, complete ? "" : " (budget ran out)",
                             f.after_known.empty() ? "" : ", after the known finding(s) " + f.after_known, f.file);
    std::cerr << "  | " << fmt::format("{}", fmt::join(split_lines(text), "\n  | ")) << "\n";
    std::cerr << fmt::format("  replay: eevdf-check run {}{}\n", f.file, profile_args_);
  }
  void divergence(const scn::Divergence& d, const scn::Op& op, const std::string& shown) override {
    std::cout << fmt::format("LOCKSTEP DIVERGENCE at operation {} ({}): {}: model {}, kernel {}\n", d.op_index,
                             scn::print_op(op), d.field, d.model, d.kernel);
    std::cout << "scenario (replay with: eevdf-check run FILE):\n" << shown;
  }

 private:
  const std::string& profile_args_;
};

}  // namespace

int run_campaign(const Profile& profile, const std::string& profile_args, const fuzz::CampaignOptions& o) {
  PrintingLog log(profile_args);
  const fuzz::CampaignResult r = fuzz::run_campaign(profile, o, log);
  const double secs = r.seconds;
  std::cout << fmt::format("\nSummary: profile {}, {} runs ({} operations) in {:.1f}s = {:.0f} runs/s, {} job(s), seed {}\n",
                           profile.name, r.runs, r.ops, secs, static_cast<double>(r.runs) / (secs > 0 ? secs : 1),
                           r.jobs, o.seed);
  std::cout << fmt::format("Coverage: {} distinct state features (operation kind x result x runqueue shape, "
                           "of {}; see docs/fuzzing.md)\n",
                           r.coverage, fuzz::StateCoverage::kFeatures);
  if (!o.until.empty()) {
    const std::string until = o.until_site.empty() ? o.until : o.until + "@" + o.until_site;
    if (r.until_seconds >= 0)
      std::cout << fmt::format("until: first {} after {:.3f}s, {} runs\n", until, r.until_seconds, r.until_runs);
    else
      std::cout << fmt::format("until: no {} within the budget\n", until);
  }
  if (!r.known.empty()) {
    std::string counts;
    for (const auto& k : r.known) counts += fmt::format("{}{} x{}", counts.empty() ? "" : ", ", k.name, k.runs);
    std::cout << fmt::format("Known findings of {} (runs that raised each; docs/findings.md, corpus/known/): {}\n",
                             profile.name, counts);
  }
  if (r.findings.empty()) {
    std::cout << (o.backend == scn::Backend::lockstep ? "Invariants not checked: lockstep compares the model with the kernel.\n"
                  : r.known.empty() ? "No invariant violated.\n"
                                    : "No new finding: every violation was a known finding.\n");
  } else {
    // grouped by invariant and site (docs/fuzzing.md, "What makes two findings one")
    std::vector<fuzz::CampaignFinding> sorted = r.findings;
    std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
      return std::tuple(inv::id_name(a.identity.id), a.identity.where, a.identity.trigger) <
             std::tuple(inv::id_name(b.identity.id), b.identity.where, b.identity.trigger);
    });
    std::size_t pairs = 0;
    for (std::size_t i = 0; i < sorted.size(); ++i)
      pairs += i == 0 || sorted[i].identity.id != sorted[i - 1].identity.id ||
               sorted[i].identity.where != sorted[i - 1].identity.where;
    std::cout << fmt::format("{} new finding(s) at {} (invariant, site) pair(s):\n", r.findings.size(), pairs);
    for (const auto& f : sorted)
      std::cout << fmt::format("  {:<11} {:<60} {:<10} {} ops  {}{}\n", inv::id_name(f.identity.id),
                               f.identity.where.substr(0, 60), f.identity.trigger, f.ops, f.file,
                               f.after_known.empty() ? "" : "  (after " + f.after_known + ")");
  }
  if (o.backend == scn::Backend::lockstep)
    std::cout << fmt::format("lockstep ({}, Linux {}): {} runs, {} operations, {} divergence(s)\n", profile.name,
                             kernelsrc::kernel_version(), r.runs, r.ops, r.divergences);
  if (o.backend == scn::Backend::lockstep && o.runqueues > 1)
    std::cout << fmt::format("wake-up CPU choices: {} compared with the tree's select_task_rq_fair(), {} refused by "
                             "the model (asked of neither); {} of the model's {} wide (wake_wide()), {} weighed "
                             "(wake_affine_weight())\n",
                             r.wake_choices_compared, r.wake_choices_refused, r.wake_choices_wide,
                             r.wake_choices_answered, r.wake_choices_weighed);
  else if (o.backend == scn::Backend::model && o.runqueues > 1)
    std::cout << fmt::format("wake-up CPU choices: {} made by the model, {} of them wide (wake_wide()), {} weighed "
                             "(wake_affine_weight())\n",
                             r.wake_choices_answered, r.wake_choices_wide, r.wake_choices_weighed);
  if (o.bandwidth)
    std::cout << fmt::format("CPU bandwidth control: {} throttles and {} unthrottles on the {}, in {} of {} runs\n",
                             r.bandwidth_throttles, r.bandwidth_unthrottles,
                             o.backend == scn::Backend::kernel ? "kernel's code" : "model", r.bandwidth_runs, r.runs);
  if (o.check_mode == scn::CheckMode::incremental && o.backend != scn::Backend::lockstep)
    std::cout << fmt::format("--check incremental: {} run(s) reported a new violation and ran again in full; {} "
                             "the full check did not confirm{}\n",
                             r.rechecked, r.unconfirmed,
                             r.unconfirmed ? " (nothing reported for them; docs/fuzzing.md, \"Incremental checking\")" : "");
  if (o.backend == scn::Backend::lockstep && r.lockstep_ended_at_warning)
    std::cout << fmt::format("lockstep: {} run(s) ended at an operation where the kernel's code and the model both "
                             "warned (docs/kernel-backend.md, \"What is compared in lockstep\")\n",
                             r.lockstep_ended_at_warning);
  // what it saw, for `fuzz --baseline` (scenario/known.hpp)
  if (o.backend != scn::Backend::lockstep) {
    std::error_code ec;
    std::filesystem::create_directories(o.findings_dir, ec);
    const std::string file = o.findings_dir + "/campaign.known";
    std::ofstream(file) << fuzz::seen_identities(r, o).print(
        fmt::format("eevdf-check fuzz: the findings of a campaign on profile {} (seed {}, {} runs): the known ones it "
                    "counted, then the new ones, each with its minimized scenario.\n"
                    "Give it to `eevdf-check fuzz --baseline` to report only what is new since.",
                    profile.name, o.seed, r.runs));
    std::cout << fmt::format("Everything it saw: {} (for --baseline)\n", file);
  }
  if (o.backend == scn::Backend::lockstep) return static_cast<int>(r.divergences);
  return static_cast<int>(r.findings.size());
}

}  // namespace eevdf::cli
