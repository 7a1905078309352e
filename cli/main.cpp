// eevdf-check: the command that ties the model, the invariants and the
// engines together. Exit codes: 0 all expectations met / nothing found,
// 1 a violation or a failed expectation, 2 bad input or usage.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <tuple>
#include <utility>
#include <variant>

#include "cli/bridge_commands.hpp"
#include "cli/campaign.hpp"
#include "cli/ci_output.hpp"
#include "cli/counterexample.hpp"
#include "cli/demo.hpp"
#include "cli/known.hpp"
#include "cli/load.hpp"
#include "cli/prove.hpp"
#include "cli/sentinel.hpp"
#include "model/system.hpp"
#include "cli/report.hpp"
#include "scenario/bytes.hpp"
#include "scenario/executor.hpp"
#include "kernelsrc/kernel_backend.hpp"
#include "fuzz/minimize.hpp"
#include "fuzz/rc_commands.hpp"
#include "scenario/run_settings.hpp"
#include "scenario/scenario_parse.hpp"
#include "scenario/scenario_print.hpp"
#include "invariants/ids.hpp"
#include "model/bugs.hpp"

namespace {

using namespace eevdf;

struct RunArgs {
  std::string file;
  scn::ProfileOverride profile;
  std::string only, skip;
  bool json = false, keep_going = false, detail = false, quiet = false, no_tolerance = false, without_bug = false;
  bool force_profile = false;  // --force-profile: judge the kernel's code by a profile of another release
  bool stop_on_known = false;  // --stop-on-known: a known finding is a violation like any other
  std::string backend;  // --backend NAME; empty: the scenario's `backend` (model by default)
  bool lockstep = false;
  std::string trace_out;
  bool tap = false;   // --tap: kselftest TAP on stdout, the usual output as its comments
  std::string junit;  // --junit FILE
};

int bad_input(const std::string& message) {
  std::cerr << "eevdf-check: " << message << "\n";
  return 2;
}

// Runs `body` with std::cout captured; its exit code and what it printed.
template <class F>
std::pair<int, std::string> with_cout_captured(F body) {
  std::ostringstream captured;
  auto* const old = std::cout.rdbuf(captured.rdbuf());
  int rc = 2;
  try {
    rc = body();
  } catch (...) {
    std::cout.rdbuf(old);
    throw;
  }
  std::cout.rdbuf(old);
  return {rc, captured.str()};
}

// A failed point's one-line reason: the first line of `text` that contains
// the first of `markers` found in it, else its last non-empty line.
std::string reason_line(const std::string& text, const std::vector<std::string>& markers) {
  for (const auto& m : markers) {
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
      if (line.find(m) != std::string::npos) return line;
  }
  std::istringstream in(text);
  std::string last;
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) last = line;
  return last;
}

// --tap / --junit of `run` and `fuzz`: `body` is the command (its output to
// std::cout), reported as one test point named `name`; returns its exit code.
template <class F>
int as_test_point(bool tap, const std::string& junit, const std::string& name, const std::vector<std::string>& markers,
                  F body) {
  if (!tap && junit.empty()) return body();
  const auto start = std::chrono::steady_clock::now();
  auto [rc, text] = with_cout_captured(body);
  cli::TestPoint point;
  point.suite = name.substr(0, name.find(' '));
  point.name = name;
  point.status = rc == 0 ? cli::TestPoint::Status::ok : cli::TestPoint::Status::failed;
  if (rc != 0) point.reason = rc == 2 ? "refused (exit 2): see stderr" : reason_line(text, markers);
  point.detail = text;
  point.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (tap)
    cli::write_tap(std::cout, {point});
  else
    std::cout << text;
  std::string error;
  if (!junit.empty() && !cli::write_junit_file(junit, "eevdf-check", {point}, error)) {
    std::cerr << "eevdf-check: " << error << "\n";
    return 2;
  }
  return rc;
}

// --backend NAME / --lockstep (the same as --backend lockstep): the backend
// that replaces the scenario's `backend` directive, or nullopt when neither is
// given. False (and `error` set) for a name that is not a backend.
bool backend_flag(const std::string& name, bool lockstep, std::optional<scn::Backend>& out, std::string& error) {
  out.reset();
  if (lockstep) {
    out = scn::Backend::lockstep;
    return true;
  }
  if (name.empty()) return true;
  out = scn::backend_from_name(name);
  if (!out) error = "--backend " + name + ": not a backend (model, kernel, lockstep)";
  return out.has_value();
}

// fuzz --until ID[@SITE]: the invariant and the site ("" without '@').
std::pair<std::string, std::string> split_until(const std::string& arg) {
  const auto at = arg.find('@');
  if (at == std::string::npos) return {arg, ""};
  return {arg.substr(0, at), arg.substr(at + 1)};
}

std::string profile_args(const scn::ProfileOverride& o) {
  std::string out;
  if (!o.profile.empty()) out += " --profile " + o.profile;
  if (!o.bug.empty()) out += " --bug " + o.bug;
  if (!o.features.empty()) out += " --features " + o.features;
  if (o.hz) out += " --hz " + std::to_string(o.hz);
  if (o.cpus) out += " --cpus " + std::to_string(o.cpus);
  if (o.runqueues) out += " --runqueues " + std::to_string(o.runqueues);
  if (o.smt) out += " --smt " + std::to_string(o.smt);
  return out;
}

// --profile, --bug, --features and the tunables, the same on every command that runs the model.
void add_profile_options(CLI::App* cmd, scn::ProfileOverride& o, const char* profile_help) {
  auto* opt = cmd->add_option("--profile", o.profile, profile_help);
  if (!o.profile.empty()) opt->capture_default_str();
  cmd->add_option("--bug", o.bug, "re-create a historical bug on the profile: B01 (see 'eevdf-check profiles')");
  cmd->add_option("--features", o.features, "scheduler features, debugfs syntax: NO_NEXT_BUDDY,PARANOID_AVG");
  // v7.3's sched/cgroup_mode knob, carried as the features item cgroup_mode=NAME
  // (defined after --features: its callback runs after the list is stored)
  cmd->add_option_function<std::string>(
         "--cgroup-mode",
         [&o](const std::string& mode) { o.features += (o.features.empty() ? "" : ",") + ("cgroup_mode=" + mode); },
         "v7.3 single runqueue: group shares per sched/cgroup_mode (default concur)")
      ->check(CLI::IsMember({"up", "smp", "concur", "max", "tasks"}));
  cmd->add_option("--hz", o.hz, "CONFIG_HZ of the kernel (overrides the scenario's 'hz'; default 1000)")
      ->check(CLI::IsMember(std::vector<unsigned>(scn::kAllowedHz.begin(), scn::kAllowedHz.end())));
  cmd->add_option("--cpus", o.cpus, "online CPUs, for the base-slice factor (overrides the scenario's 'cpus'; default 8)")
      ->check(CLI::Range(1u, static_cast<unsigned>(scn::kMaxCpus)));
  cmd->add_option("--runqueues", o.runqueues,
                  "CPUs modelled, each with its runqueue (overrides the scenario's 'runqueues'; fuzz and check: "
                  "generate wake cpu= and migrate; every profile; default 1)")
      ->check(CLI::Range(1u, kMaxRunqueues));
  cmd->add_option("--smt", o.smt,
                  "SMT siblings a core: CPUs kN .. kN+N-1 (overrides the scenario's 'smt'; fuzz: every run has "
                  "them; not check; N divides the runqueues; default 1, none)")
      ->check(CLI::Range(1u, kMaxRunqueues));
}

// --force-profile: on the kernel's own code the tree's release chooses the
// profile that judges it; a profile of another release is refused without this.
void add_force_profile_flag(CLI::App* cmd, bool& force) {
  cmd->add_flag("--force-profile", force,
                "with --backend kernel or lockstep: judge the tree by the profile given even when it is not the "
                "profile of the tree's release (by default the tree chooses, docs/kernel-backend.md)");
}

// --stop-on-known: a known finding of the profile (corpus/known/) ends the run
// and counts as a finding, as every violation did before known findings.
void add_stop_on_known_flag(CLI::App* cmd, bool& stop) {
  cmd->add_flag("--stop-on-known", stop,
                "a known finding of the profile (docs/findings.md, corpus/known/) is reported and ends the run like "
                "a new one (by default it is labelled 'known' and the run goes on)");
}

int run_loaded(const cli::Loaded& given_as_loaded, const RunArgs& a) {
  std::string error;
  cli::Loaded with_runqueues;
  if (a.profile.runqueues || a.profile.smt) {  // --runqueues and --smt override the scenario's
    with_runqueues = given_as_loaded;
    if (a.profile.runqueues) with_runqueues.scenario.runqueues = a.profile.runqueues;
    if (a.profile.smt) with_runqueues.scenario.smt = a.profile.smt;
  }
  const cli::Loaded& given = a.profile.runqueues || a.profile.smt ? with_runqueues : given_as_loaded;
  cli::Loaded without_bug;
  if (a.without_bug) {
    // the fixed kernel: the same operations without the bug switch must raise nothing
    without_bug = given;
    if (without_bug.scenario.bug.empty() && a.profile.bug.empty())
      return bad_input(a.file + ": --without-bug needs a scenario with 'profile P bug=ID'");
    without_bug.scenario.bug.clear();
    without_bug.scenario.expectations = {scn::Expectation{}};
  }
  const cli::Loaded& loaded = a.without_bug ? without_bug : given;
  scn::ProfileOverride override = a.profile;
  if (a.without_bug) override.bug.clear();
  scn::ExecOptions options;
  options.strict = !loaded.from_bytes;
  options.keep_going = a.keep_going;
  options.trace = true;
  std::optional<scn::Backend> backend;
  if (!backend_flag(a.backend, a.lockstep, backend, error)) return bad_input(error);
  // the scenario's skip, tolerate, keep_going and backend, with the flags
  // (docs/scenario-language.md, "Run settings"); --backend / --lockstep win over `backend`
  if (auto err = scn::apply_run_settings(loaded.scenario, {a.only, a.skip, a.no_tolerance, backend, a.file}, options);
      !err.empty())
    return bad_input(err);
  // on the kernel's own code the tree's release judges (docs/kernel-backend.md, "The judge")
  std::string judge_note;
  if (auto err = scn::choose_judge(options.backend, &loaded.scenario, a.force_profile, override, judge_note, a.file);
      !err.empty())
    return bad_input(err);
  const auto profile = scn::build_profile(loaded.scenario, override, error);
  if (!profile) return bad_input(a.file + ": " + error);
  options.known = scn::known_for_run(options, *profile, a.stop_on_known);
  const auto r = scn::execute(loaded.scenario, *profile, options);
  if (!r.error.empty()) return bad_input(a.file + ":" + r.error);
  if (!a.trace_out.empty() && !cli::write_trace(a.trace_out, loaded.scenario, r, error)) return bad_input(error);
  if (a.json) {
    cli::print_json(std::cout, loaded.scenario, r, *profile);
  } else {
    if (!loaded.scenario.title.empty()) std::cout << loaded.scenario.title << "\n";
    std::cout << fmt::format("profile {}: {}\n", profile->name, profile->description);
    if (!a.quiet) cli::print_table(std::cout, loaded.scenario, r, a.detail);
    cli::print_findings(std::cout, loaded.scenario, r, *profile);
    if (options.backend != scn::Backend::model)
      std::cout << fmt::format("backend {}: Linux {}'s own fair.c, {}\n", scn::backend_name(options.backend),
                               kernelsrc::kernel_version(), judge_note);
    if (r.divergence) {
      const auto& d = *r.divergence;
      const int line = d.op_index >= 0 ? loaded.scenario.ops[static_cast<std::size_t>(d.op_index)].line : 0;
      std::cout << fmt::format("LOCKSTEP DIVERGENCE after line {} ({}): {}: model {}, kernel {}\n", line,
                               scn::print_op(loaded.scenario.ops[static_cast<std::size_t>(d.op_index)]), d.field,
                               d.model, d.kernel);
    } else if (options.backend == scn::Backend::lockstep) {
      std::cout << fmt::format("lockstep: the model and the kernel agree on every field after every operation\n");
    }
    if (r.oops)
      std::cout << fmt::format("the kernel crashed in operation {}: pick_eevdf() returned NULL and pick_next_entity() "
                               "dereferences it; the run stops there\n",
                               r.executed + r.skipped);
    std::cout << fmt::format("\n{} operations, {} skipped, {} violation(s), {} failed expectation(s): {}\n",
                             r.executed, r.skipped, r.violations.size(), r.expectation_failures.size(),
                             r.ok() ? "OK" : "FAILED");
  }
  return r.ok() ? 0 : 1;
}

// --tap and --junit FILE (cli/ci_output.hpp), on run, replay, demo, fuzz and sentinel.
void add_ci_output_options(CLI::App* cmd, bool& tap, std::string& junit) {
  cmd->add_flag("--tap", tap, "TAP version 13 (kselftest) on stdout; the usual output as its '#' comment lines");
  cmd->add_option("--junit", junit, "also write the result as JUnit XML to this file");
}

void add_run_options(CLI::App* cmd, RunArgs& a) {
  add_profile_options(cmd, a.profile, "kernel profile (overrides the scenario's)");
  cmd->add_option("--invariants", a.only, "check only these invariants: I-SUM,I-OVF (instead of the scenario's 'skip')");
  cmd->add_option("--skip", a.skip, "do not check these invariants: I-KEY (besides the scenario's 'skip')");
  cmd->add_flag("--json", a.json, "JSON lines on stdout");
  cmd->add_flag("--keep-going", a.keep_going, "continue after the first violation");
  cmd->add_flag("--detail", a.detail, "print every task's fields after every step");
  cmd->add_flag("--quiet", a.quiet, "no per-step table");
  cmd->add_option("--trace-out", a.trace_out, "write a Chrome/Perfetto trace-event file");
  cmd->add_flag("--no-tolerance", a.no_tolerance,
                "also report the documented findings the checker tolerates by default (docs/findings.md), as the "
                "scenario line 'tolerate none'");
  cmd->add_option("--backend", a.backend,
                  "what the scenario runs on: model (default), kernel (the kernel's own fair.c, "
                  "docs/kernel-backend.md) or lockstep (both, compared after every operation); overrides the "
                  "scenario's 'backend'");
  cmd->add_flag("--lockstep", a.lockstep, "the same as --backend lockstep (overrides the scenario's 'backend')");
  add_force_profile_flag(cmd, a.force_profile);
  add_stop_on_known_flag(cmd, a.stop_on_known);
  cmd->add_flag("--without-bug", a.without_bug,
                "run on the fixed kernel: drop the scenario's bug switch and expect no violation");
  add_ci_output_options(cmd, a.tap, a.junit);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"eevdf-check: checks the arithmetic and invariants of the Linux kernel's EEVDF scheduler"};
  app.require_subcommand(1);
  app.set_version_flag("--version", fmt::format("eevdf-check 0.1 (model: mainline = {})", kMainlineLabel));

  RunArgs run_args;
  auto* run = app.add_subcommand("run", "run a scenario file and check every invariant after every operation");
  run->add_option("file", run_args.file, "scenario (.scn)")->required();
  add_run_options(run, run_args);
  const auto bridge = cli::add_bridge_commands(app, run);  // export, compare, report, run --rt-app

  RunArgs replay_args;
  auto* replay = app.add_subcommand("replay", "replay a scenario or a libFuzzer crash file");
  replay->add_option("file", replay_args.file, "scenario text or crash bytes")->required();
  add_run_options(replay, replay_args);

  RunArgs demo_args;
  auto* demo = app.add_subcommand("demo", "run the built-in demo scenario and print every step");
  add_run_options(demo, demo_args);

  fuzz::CampaignOptions campaign;
  std::string fuzz_backend = "model";
  bool fuzz_lockstep = false;
  scn::ProfileOverride fuzz_profile;
  long time_s = 30, minimize_s = 30;
  bool fuzz_force_profile = false;
  auto* fuzzcmd = app.add_subcommand("fuzz", "random campaign: find and minimize invariant violations");
  add_profile_options(fuzzcmd, fuzz_profile,
                      "kernel profile (default: mainline; on --backend kernel or lockstep the profile of the tree's "
                      "release)");
  add_force_profile_flag(fuzzcmd, fuzz_force_profile);
  fuzzcmd->add_option("--time", time_s, "seconds to fuzz")->capture_default_str()->check(CLI::Range(1L, 86400L));
  fuzzcmd->add_option("--seed", campaign.seed, "random seed")->capture_default_str();
  fuzzcmd->add_option("--backend", fuzz_backend, "model (default), kernel (the kernel's own fair.c) or lockstep");
  fuzzcmd->add_flag("--lockstep", fuzz_lockstep, "the same as --backend lockstep");
  fuzzcmd->add_option("--jobs", campaign.jobs, "worker threads (job j uses seed + j)")->capture_default_str()
      ->check(CLI::Range(1u, 256u));
  fuzzcmd->add_option("--runs", campaign.max_runs, "stop after this many runs (0: time only)");
  bool fuzz_groups = false, fuzz_no_groups = false;
  auto* groups_flag = fuzzcmd->add_flag("--groups", fuzz_groups,
                                        "task-group operations in every run (default: in every other run)");
  fuzzcmd->add_flag("--no-groups", fuzz_no_groups, "no task-group operations (tasks only)")->excludes(groups_flag);
  bool fuzz_debug_read = false, fuzz_no_debug_read = false;
  auto* debug_read_flag = fuzzcmd->add_flag(
      "--debug-read", fuzz_debug_read,
      "generate debug_read (the sched debugfs reader) on any profile (default: where it races, v6.12.118)");
  fuzzcmd->add_flag("--no-debug-read", fuzz_no_debug_read, "no debug_read operations")->excludes(debug_read_flag);
  fuzzcmd->add_flag("--nohz-full", campaign.nohz_full,
                    "generate 'run DUR notick' (a nohz_full CPU; default: it decodes as 'run', which keeps the "
                    "digests of the default streams; docs/fuzzing.md)");
  std::string fuzz_check = "full";
  fuzzcmd
      ->add_option("--check", fuzz_check,
                   "how each operation is judged on the model: full (every invariant from scratch after every "
                   "operation) or incremental (what the operation touched and V after each, every invariant every 16 "
                   "operations and at the end of the run; a run that reports anything runs again in full, which alone "
                   "is reported; docs/invariants.md)")
      ->capture_default_str()
      ->check(CLI::IsMember({"full", "incremental"}));
  fuzzcmd->add_flag("--rt", campaign.rt,
                    "create SCHED_FIFO tasks too ('task T<n> policy=fifo': about one created task in sixteen; default: "
                    "fair tasks only)");
  fuzzcmd->add_flag("--fan-out", campaign.fan_out,
                    "generate fan-out wakes and sleeps (byte format 8: one CPU's running task wakes every task in turn, "
                    "each CPU's running task blocks), which reach wake_wide() on several runqueues (docs/fuzzing.md)");
  fuzzcmd->add_flag("--bandwidth", campaign.bandwidth,
                    "write cpu.max quotas too ('quota G<n> QUOTA/PERIOD|max [burst=DUR]', byte formats 9 and 10): the "
                    "groups' queues are throttled and unthrottled as the period timer fires (docs/model.md, \"CPU "
                    "bandwidth control\"; profiles v6.6 to v6.12.118, and v6.18 to v7.1 with byte formats 11 and 12, which add "
                    "'return_to_user T<n>')");
  fuzzcmd->add_flag("--late-ticks", campaign.late_ticks,
                    "generate 'tick DUR' later than TICK_NSEC too (default: at most 1ms; the bounds of I-FAIR and I-KEY "
                    "then use the longest stretch without a tick, docs/fuzzing.md)");
  std::string fuzz_only, fuzz_skip;
  fuzzcmd->add_option("--invariants", fuzz_only, "check only these invariants: I-SUM,I-OVF");
  fuzzcmd->add_option("--skip", fuzz_skip, "do not check these invariants (e.g. a profile's expected findings)");
  bool fuzz_no_tolerance = false, fuzz_stop_on_known = false;
  std::vector<std::string> fuzz_baselines;
  add_stop_on_known_flag(fuzzcmd, fuzz_stop_on_known);
  bool fuzz_fixed_features = false;
  fuzzcmd->add_flag("--fixed-features", fuzz_fixed_features,
                    "every run with the profile's features (by default one run in four switches on some of its "
                    "default-off features, NEXT_BUDDY, PARANOID_AVG, as debugfs allows; --features implies this)");
  fuzzcmd->add_option("--baseline", fuzz_baselines,
                      "a campaign.known file of an earlier campaign (e.g. the unmodified tree's): its findings are "
                      "known too, so only what is new since is reported (repeatable)");
  fuzzcmd->add_flag("--no-tolerance", fuzz_no_tolerance,
                    "also report the documented findings the checker tolerates by default (docs/findings.md); the "
                    "findings' files say 'tolerate none'");
  fuzzcmd
      ->add_option("--until", campaign.until,
                   "stop at the first violation of this invariant (I-KEY), or of it at a site whose name contains "
                   "SITE (I-RW@reweight_eevdf), and say when")
      ->check([](const std::string& arg) {
        const auto [id, site] = split_until(arg);
        if (arg.find('@') != std::string::npos && site.empty()) return "expected a site after '@' in '" + arg + "'";
        return inv::id_from_name(id) ? std::string() : "unknown invariant '" + id + "'";
      });
  fuzzcmd->add_option("--findings", campaign.findings_dir, "where minimized findings go")->capture_default_str();
  bool fuzz_tap = false;
  std::string fuzz_junit;
  add_ci_output_options(fuzzcmd, fuzz_tap, fuzz_junit);
  fuzzcmd->add_option("--minimize-time", minimize_s, "seconds to minimize each finding")->capture_default_str()
      ->check(CLI::Range(1L, 3600L));

  std::string min_file, min_out;
  scn::ProfileOverride min_profile;
  long min_budget = 30;
  bool min_no_tolerance = false;
  auto* mincmd = app.add_subcommand("minimize", "shrink a failing scenario or crash file to the fewest operations");
  mincmd->add_option("file", min_file, "scenario or crash file")->required();
  mincmd->add_option("-o,--output", min_out, "write the minimized scenario here (default: stdout)");
  bool min_lockstep = false;
  std::string min_backend;
  mincmd->add_flag("--lockstep", min_lockstep,
                   "shrink a lockstep divergence (model against the kernel backend): keep the first differing field "
                   "(implied by the scenario line 'backend lockstep'; kept in the output)");
  mincmd->add_option("--backend", min_backend,
                     "what the scenario runs on while it shrinks: model, kernel or lockstep (as --lockstep); "
                     "overrides the scenario's 'backend' and is kept in the output");
  add_profile_options(mincmd, min_profile, "kernel profile (overrides the scenario's)");
  bool min_force_profile = false, min_stop_on_known = false;
  add_force_profile_flag(mincmd, min_force_profile);
  add_stop_on_known_flag(mincmd, min_stop_on_known);
  mincmd->add_option("--time", min_budget, "seconds")->capture_default_str()->check(CLI::Range(1L, 3600L));
  mincmd->add_flag("--no-tolerance", min_no_tolerance,
                   "also report the documented findings (docs/findings.md), as 'tolerate none'; kept in the output");
  std::string min_only, min_skip;
  mincmd->add_option("--invariants", min_only,
                     "check only these invariants: I-SUM,I-OVF (instead of the scenario's 'skip'; the output "
                     "skips the others)");
  mincmd->add_option("--skip", min_skip,
                     "do not check these invariants (keeps an earlier, known violation out of the way; added to the "
                     "scenario's 'skip' and kept in the output)");

  std::string explain_id;
  bool explain_list = false;
  bool explain_backends = false;
  auto* explain = app.add_subcommand("explain", "print an invariant's documentation");
  explain->add_option("id", explain_id, "invariant id, e.g. I-SUM");
  explain->add_flag("--list", explain_list, "list every invariant");
  explain->add_flag("--backends", explain_backends,
                    "list where every invariant runs: the model, the kernel's own code (which trees), lockstep");

  auto* profiles = app.add_subcommand("profiles", "list the kernel profiles and their feature defaults");

  std::string decode_file;
  auto* decode = app.add_subcommand("decode", "print a libFuzzer input as a text scenario");
  decode->add_option("file", decode_file, "crash or corpus file")->required();

  scn::ProfileOverride check_profile;
  bool check_force_profile = false;
  fuzz::CheckConfig check_config;
  long shrink_s = 30;
  auto* check = app.add_subcommand("check", "RapidCheck stateful testing: random operation sequences, shrunk on failure");
  add_profile_options(check, check_profile,
                      "kernel profile (default: mainline; with --lockstep the profile of the tree's release)");
  add_force_profile_flag(check, check_force_profile);
  check->add_option("--cases", check_config.cases, "number of cases")->capture_default_str()->check(CLI::Range(1, 100000000));
  check->add_option("--max-ops", check_config.max_ops, "largest sequence")->capture_default_str()->check(CLI::Range(1, 10000));
  check->add_option("--seed", check_config.seed, "random seed (0: random)")->capture_default_str();
  check->add_option("--shrink-time", shrink_s, "seconds to shrink a failure")->capture_default_str()->check(CLI::Range(1L, 3600L));
  check->add_option("--reproduce", check_config.reproduce, "replay one failure from its reproduce string");
  bool check_lockstep = false;
  check->add_flag("--lockstep", check_lockstep,
                  "also run every operation on the kernel's own fair.c and fail a case at the first difference");
  check->add_flag("--rt", check_config.rt, "create SCHED_FIFO tasks too ('task T<n> policy=fifo')");
  check->add_flag("--groups", check_config.groups,
                  "generate task-group commands too (group, move, shares, group_idle, group_destroy; finds the open candidate F7)");

  std::string encode_file, encode_out;
  auto* encode = app.add_subcommand("encode", "write a text scenario's operations in the byte encoding (a fuzzing seed)");
  encode->add_option("file", encode_file, "scenario (.scn)")->required();
  encode->add_option("-o,--output", encode_out, "output file")->required();

  cli::KnownArgs known_args;
  auto* knowncmd = app.add_subcommand(
      "known", "check the known-findings files (corpus/known/PROFILE.known) against their scenarios, or update them");
  knowncmd->add_option("files", known_args.files, "corpus/known/PROFILE.known ...")->required();
  knowncmd->add_flag("--update", known_args.update,
                     "write the site and detail class each scenario raises into its entry");
  knowncmd->add_option("--backend", known_args.backend,
                       "model (default) or kernel: replay on this build's tree (only its profile's file)");
  knowncmd->add_option("--root", known_args.root, "the directory the scenario paths start from")->capture_default_str();

  cli::SentinelArgs sentinel_args;
  auto* sentinel = app.add_subcommand(
      "sentinel",
      "every check on kernel trees, for a kernel's CI: build on each tree, lockstep, fuzz --backend kernel, the "
      "documented findings' scenarios on its own code; a Markdown and JSON report (docs/sentinel.md)");
  sentinel->add_option("trees", sentinel_args.trees, "kernel trees: directories or linux-source-*.tar.xz");
  sentinel->add_option("--time", sentinel_args.time_s,
                       "seconds of fuzzing a tree: half lockstep, half fuzz --backend kernel (the build and the "
                       "replays come on top)")
      ->capture_default_str()
      ->check(CLI::Range(2L, 86400L));
  sentinel->add_option("--seed", sentinel_args.seed, "the campaigns' seed")->capture_default_str();
  sentinel->add_option("--out", sentinel_args.out, "where report.json, report.md and the campaigns' findings go")
      ->capture_default_str();
  sentinel->add_option("--builds", sentinel_args.builds,
                       "one build directory a tree under this one, reused by the next run")
      ->capture_default_str();
  sentinel->add_option("--source", sentinel_args.source,
                       "this tool's source tree, which each tree's build is configured from (default: the one this "
                       "build was made from)");
  sentinel->add_option("--since", sentinel_args.since,
                       "an earlier report.json: print only what changed; exit 1 when something is new");
  sentinel->add_option("--report", sentinel_args.report,
                       "render a recorded report.json (with --since, --tap, --junit) instead of checking trees");
  add_ci_output_options(sentinel, sentinel_args.tap, sentinel_args.junit);
  sentinel->add_flag("--this-tree", sentinel_args.this_tree,
                     "(used by the sentinel itself) the checks on this build's own tree, written to --out/tree.json")
      ->group("");

  cli::add_prove_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version exit 0; every usage error exits 2, as documented
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  if (const auto rc = cli::run_bridge_commands(*bridge)) return *rc;

  if (run->parsed() || replay->parsed()) {
    RunArgs& a = run->parsed() ? run_args : replay_args;
    if (a.tap && !a.detail) a.quiet = true;  // the table would be hundreds of comment lines
    return as_test_point(a.tap, a.junit, std::string(run->parsed() ? "run " : "replay ") + a.file,
                         {"LOCKSTEP DIVERGENCE", " violated at operation", " FAILED"}, [&] {
                           std::string error;
                           const auto loaded = cli::load_scenario(a.file, run->parsed(), error);
                           if (!loaded) return bad_input(error);
                           return run_loaded(*loaded, a);
                         });
  }
  if (demo->parsed()) {
    auto parsed = scn::parse_scenario(cli::demo_scenario(), "<demo>");
    demo_args.file = "<demo>";
    const cli::Loaded loaded{std::get<scn::Scenario>(std::move(parsed)), false};
    return as_test_point(demo_args.tap, demo_args.junit, "demo",
                         {"LOCKSTEP DIVERGENCE", " violated at operation", " FAILED"},
                         [&] { return run_loaded(loaded, demo_args); });
  }
  if (fuzzcmd->parsed()) {
    std::tie(campaign.until, campaign.until_site) = split_until(campaign.until);
    if (!campaign.until.empty()) campaign.until = std::string(inv::id_name(*inv::id_from_name(campaign.until)));
    if (auto err = inv::parse_selection(fuzz_only, fuzz_skip, campaign.selection); !err.empty()) return bad_input(err);
    if (fuzz_no_tolerance) campaign.tolerances = inv::Tolerances{false};
    std::string error;
    const auto backend = scn::backend_from_name(fuzz_lockstep ? "lockstep" : fuzz_backend);
    if (!backend) return bad_input("--backend " + fuzz_backend + ": not a backend (model, kernel, lockstep)");
    campaign.backend = *backend;
    if (campaign.backend != scn::Backend::model && !kernelsrc::available())
      return bad_input(std::string("--backend ") + scn::backend_name(campaign.backend) +
                       ": this build has no kernel backend (no kernel tree at build "
                       "time: cmake -DEEVDF_KERNEL_SRC=DIR)");
    // on the kernel's own code the tree's release judges (docs/kernel-backend.md, "The judge")
    if (auto err = scn::choose_judge(campaign.backend, nullptr, fuzz_force_profile, fuzz_profile, campaign.judge_note);
        !err.empty())
      return bad_input(err);
    const auto profile = scn::build_profile(fuzz_profile, error);
    if (!profile) return bad_input(error);
    // known findings: the profile's and the baselines' (runs go on past them; only what is new is a finding)
    if (!fuzz_no_tolerance && !fuzz_stop_on_known) campaign.known = scn::judge_known_findings(profile->name, campaign.backend);
    for (const std::string& file : fuzz_baselines) {
      if (fuzz_no_tolerance || fuzz_stop_on_known)
        return bad_input("--baseline: not with --stop-on-known or --no-tolerance (they report every finding)");
      const auto baseline = scn::KnownSet::load(file, error);
      if (!baseline) return bad_input(error);
      campaign.known.merge(*baseline);
    }
    campaign.vary_features = !fuzz_fixed_features && fuzz_profile.features.empty();
    campaign.check_mode = fuzz_check == "incremental" ? scn::CheckMode::incremental : scn::CheckMode::full;
    campaign.runqueues = fuzz_profile.runqueues ? fuzz_profile.runqueues : 1;
    campaign.smt = fuzz_profile.smt ? fuzz_profile.smt : 1;
    if (std::string why = smt_refusal(campaign.runqueues, campaign.smt); !why.empty())
      return bad_input("fuzz --smt " + std::to_string(campaign.smt) + ": " + why);
    campaign.groups = fuzz_groups      ? fuzz::CampaignOptions::Groups::always
                      : fuzz_no_groups ? fuzz::CampaignOptions::Groups::never
                                       : fuzz::CampaignOptions::Groups::mixed;
    campaign.debug_read = fuzz_debug_read      ? fuzz::CampaignOptions::DebugRead::always
                          : fuzz_no_debug_read ? fuzz::CampaignOptions::DebugRead::never
                                               : fuzz::CampaignOptions::DebugRead::profile;
    campaign.time = std::chrono::seconds(time_s);
    campaign.minimize_budget = std::chrono::seconds(minimize_s);
    // refused before the first run: otherwise every run is refused and the
    // campaign reports "0 operations, no violation" as if it had run
    if (campaign.bandwidth && !profile->behaviour.cfs_bandwidth)
      return bad_input("fuzz --bandwidth: " + std::string(refusal_text(Refusal::no_bandwidth_model)) + ", not on " +
                       profile->name);
    if (campaign.bandwidth && campaign.backend != scn::Backend::model && !kernelsrc::bandwidth())
      return bad_input("fuzz --bandwidth --backend " + std::string(scn::backend_name(campaign.backend)) + ": " +
                       kernelsrc::bandwidth_refusal());
    if (campaign.bandwidth && campaign.groups == fuzz::CampaignOptions::Groups::never)
      return bad_input("fuzz --bandwidth: not with --no-groups (a quota is a group's)");
    if (campaign.backend != scn::Backend::model)
      if (std::string why = kernelsrc::refusal(*profile, campaign.runqueues); !why.empty())
        return bad_input("fuzz --backend " + std::string(scn::backend_name(campaign.backend)) + " --runqueues " +
                         std::to_string(campaign.runqueues) + ": " + why);
    // the replay line of a finding checks what the campaign checked
    std::string replay_args = profile_args(fuzz_profile);
    if (!fuzz_only.empty()) replay_args += " --invariants " + fuzz_only;
    if (!fuzz_skip.empty()) replay_args += " --skip " + fuzz_skip;
    // (the backend is not a flag of it: a finding says `backend kernel` itself)
    const std::string name = fmt::format("fuzz profile {} backend {}{}", profile->name,
                                         scn::backend_name(campaign.backend),
                                         campaign.runqueues > 1 ? fmt::format(" runqueues {}", campaign.runqueues) : "");
    return as_test_point(fuzz_tap, fuzz_junit, name, {"LOCKSTEP DIVERGENCE", "new finding(s)"}, [&] {
      return cli::run_campaign(*profile, replay_args, campaign) > 0 ? 1 : 0;  // 1: something new (or a divergence)
    });
  }
  if (mincmd->parsed()) {
    std::string error;
    auto loaded = cli::load_scenario(min_file, false, error);
    if (!loaded) return bad_input(error);
    if (min_profile.runqueues) loaded->scenario.runqueues = min_profile.runqueues;
    if (min_profile.smt) loaded->scenario.smt = min_profile.smt;
    scn::ExecOptions options;
    options.strict = false;
    std::optional<scn::Backend> backend;
    if (!backend_flag(min_backend, min_lockstep, backend, error)) return bad_input(error);
    if (auto err = scn::apply_run_settings(loaded->scenario,
                                            {min_only, min_skip, min_no_tolerance, backend, min_file}, options);
        !err.empty())
      return bad_input(err);
    std::string judge_note;
    if (auto err = scn::choose_judge(options.backend, &loaded->scenario, min_force_profile, min_profile, judge_note,
                                     min_file);
        !err.empty())
      return bad_input(err);
    const auto profile = scn::build_profile(loaded->scenario, min_profile, error);
    if (!profile) return bad_input(min_file + ": " + error);
    // the minimized scenario on stdout or in --out, what it took on stderr
    const auto write_minimized = [&](const scn::Scenario& out, const fuzz::MinimizeResult& m) {
      const std::string text = scn::print_scenario(out);
      if (min_out.empty())
        std::cout << text;
      else
        std::ofstream(min_out) << text;
      std::cerr << fmt::format("minimized {} -> {} operations in {} runs{}\n", loaded->scenario.ops.size(),
                               out.ops.size(), m.runs, m.complete ? "" : " (budget ran out)");
      return 0;
    };
    // a divergence: from --lockstep, --backend lockstep, or the scenario's 'backend lockstep'
    if (options.backend == scn::Backend::lockstep) {
      const auto r = scn::execute(loaded->scenario, *profile, options);
      if (!r.error.empty()) return bad_input(min_file + ": " + r.error);
      if (!r.divergence) return bad_input(min_file + ": the model and the kernel agree; nothing to minimize");
      const auto m = fuzz::minimize_divergence(loaded->scenario, *profile, *r.divergence, std::chrono::seconds(min_budget));
      scn::Scenario out = m.scenario;
      out.profile = profile->name;
      out.hz = profile->tunables.hz;
      out.cpus = profile->tunables.ncpus;
      out.backend = scn::Backend::lockstep;  // a plain `run` of the output replays the divergence
      const auto& d = m.divergence ? *m.divergence : *r.divergence;
      out.title = fmt::format("lockstep divergence in {} (model {}, kernel {}); replay: eevdf-check run FILE "
                              "(minimized from {} to {} operations)",
                              d.field, d.model, d.kernel, loaded->scenario.ops.size(), out.ops.size());
      return write_minimized(out, m);
    }
    // the first violation that is not a known finding of the profile (runs go on past those), else the first
    options.known = scn::known_for_run(options, *profile, min_stop_on_known);
    const auto r = scn::execute(loaded->scenario, *profile, options);
    if (r.violations.empty()) return bad_input(min_file + ": no invariant is violated; nothing to minimize");
    const auto target = std::find_if(r.violations.begin(), r.violations.end(),
                                     [](const inv::Violation& v) { return v.known.empty(); });
    const bool known_only = target == r.violations.end();
    if (known_only) options.known = nullptr;  // shrink the known finding itself
    const auto m = fuzz::minimize(loaded->scenario, *profile, known_only ? r.violations.front() : *target,
                                  std::chrono::seconds(min_budget), options.tolerances, options.selection,
                                  options.backend, options.known);
    scn::Scenario out = m.scenario;
    // what was checked and on which backend, so that a plain `run` of the output replays the violation
    scn::record_run_settings(options, out);
    out.profile = profile->name;
    out.bug = profile->bug;
    if (!min_profile.features.empty()) out.features = min_profile.features;
    out.title = fmt::format("{} in {} (minimized from {} to {} operations)", inv::id_name(m.violation.id),
                            m.violation.where, loaded->scenario.ops.size(), out.ops.size());
    return write_minimized(out, m);
  }
  if (explain->parsed()) {
    if (explain_backends) {
      for (std::size_t i = 0; i < inv::kIdCount; ++i)
        std::cout << fmt::format("{:<11} {}\n", inv::id_name(static_cast<inv::Id>(i)),
                                 inv::id_backends(static_cast<inv::Id>(i)));
      return 0;
    }
    if (explain_list || explain_id.empty()) {
      for (std::size_t i = 0; i < inv::kIdCount; ++i)
        std::cout << fmt::format("{:<11} {}\n", inv::id_name(static_cast<inv::Id>(i)),
                                 inv::id_statement(static_cast<inv::Id>(i)));
      return 0;
    }
    const auto id = inv::id_from_name(explain_id);
    if (!id) return bad_input(fmt::format("unknown invariant '{}' (see `eevdf-check explain --list`)", explain_id));
    std::cout << fmt::format("{}: {}\n\n{}\nRuns on: {}.\n", inv::id_name(*id), inv::id_statement(*id),
                             inv::id_documentation(*id), inv::id_backends(*id));
    return 0;
  }
  if (profiles->parsed()) {
    for (const auto name : profile_names()) {
      const auto p = *profile_by_name(name);
      std::cout << fmt::format("{}\n  {}\n  features:", p.name, p.description);
      for (std::size_t i = 0; i < kFeatureCount; ++i)
        if (p.known.on[i]) std::cout << " " << (p.features.on[i] ? "" : "NO_") << feature_name(static_cast<Feature>(i));
      std::cout << "\n";
    }
    std::cout << "\nbug switches (--bug ID, or 'profile P bug=ID' in a scenario; docs/profiles.md):\n";
    for (const BugSwitch& b : bug_switches()) {
      std::string where;
      for (std::string_view n : b.profiles) where += (where.empty() ? "" : ",") + std::string(n);
      std::cout << fmt::format("  {}  {}\n       undoes {}; applies to {}; shipped in {}; expect {}\n", b.id, b.title,
                               b.fix, where, b.shipped_in, b.detected_by);
    }
    return 0;
  }
  if (check->parsed()) {
    std::string error;
    std::string judge_note;
    if (auto err = scn::choose_judge(check_lockstep ? scn::Backend::lockstep : scn::Backend::model, nullptr,
                                     check_force_profile, check_profile, judge_note);
        !err.empty())
      return bad_input(err);
    const auto profile = scn::build_profile(check_profile, error);
    if (!profile) return bad_input(error);
    check_config.profile = *profile;
    check_config.runqueues = check_profile.runqueues ? check_profile.runqueues : 1;
    // RapidCheck's generator (fuzz/rc_commands.cpp) builds its System without SMT siblings
    if (check_profile.smt > 1) return bad_input("check --smt: not supported (use fuzz --smt, or a scenario's 'smt N')");
    check_config.shrink_budget = std::chrono::seconds(shrink_s);
    if (check_lockstep) check_config.backend = scn::Backend::lockstep;
    const auto outcome = fuzz::run_stateful_check(check_config);
    std::cout << outcome.message << "\n";
    if (outcome.seconds > 0)
      std::cout << fmt::format("{} commands ({} executed, {} skipped as refused) in {:.2f} s = {:.0f} commands/s\n",
                               outcome.commands_run, outcome.ops_executed, outcome.ops_skipped, outcome.seconds,
                               static_cast<double>(outcome.commands_run) / outcome.seconds);
    if (outcome.passed) return 0;
    if (!outcome.counterexample) return 2;  // nothing ran: the configuration was refused
    std::cout << "\ncounterexample (replay with `eevdf-check run FILE`):\n"
              << scn::print_scenario(*outcome.counterexample) << "\nreproduce: eevdf-check check" << profile_args(check_profile)
              << " --reproduce '" << outcome.reproduce << "'\n";
    if (check_config.reproduce.empty())
      if (const auto shorter =
              cli::minimize_counterexample(*outcome.counterexample, *profile, std::chrono::seconds(shrink_s),
                                            check_config.backend))
        std::cout << "\nminimized further (ddmin and argument shrinking, `eevdf-check minimize`):\n"
                  << scn::print_scenario(*shorter);
    return 1;
  }
  if (knowncmd->parsed()) return cli::run_known(known_args);
  if (sentinel->parsed()) return cli::run_sentinel(sentinel_args);
  if (encode->parsed()) {
    std::string error;
    const auto loaded = cli::load_scenario(encode_file, true, error);
    if (!loaded) return bad_input(error);
    // the byte format names tasks T0, T1, ... in creation order
    scn::Scenario renamed = loaded->scenario;
    std::vector<std::pair<std::string, std::string>> names;
    auto rename = [&](std::string& n) {
      for (const auto& [from, to] : names)
        if (n == from) {
          n = to;
          return;
        }
    };
    for (auto& op : renamed.ops) {
      if (op.kind == scn::OpKind::create) names.emplace_back(op.task, "T" + std::to_string(names.size()));
      if (op.kind == scn::OpKind::fork) names.emplace_back(op.child, "T" + std::to_string(names.size()));
      rename(op.task);
      rename(op.child);
    }
    std::string why;
    const auto bytes = scn::encode_bytes(renamed, true, &why);
    if (!bytes) return bad_input(fmt::format("{}: cannot be written in the byte encoding: {}", encode_file, why));
    std::ofstream out(encode_out, std::ios::binary);
    if (!out) return bad_input(fmt::format("{}: cannot write", encode_out));
    out.write(reinterpret_cast<const char*>(bytes->data()), static_cast<std::streamsize>(bytes->size()));
    return 0;
  }
  if (decode->parsed()) {
    std::string error;
    const auto data = cli::read_file(decode_file, error);
    if (!data) return bad_input(error);
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(data->data());
    if (!scn::bytes_version_supported(bytes, data->size()))
      std::cerr << fmt::format("eevdf-check: {}: first byte is not the format version {}; decoded as version {} "
                               "like the fuzz target does (libFuzzer's minimization can drop it)\n",
                               decode_file, scn::kBytesFormatVersion, scn::kBytesFormatVersion);
    std::cout << scn::print_scenario(scn::decode_bytes(bytes, data->size()));
    return 0;
  }
  return 2;
}
