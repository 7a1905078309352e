#include "cli/bridge_commands.hpp"

#include <fstream>
#include <iostream>
#include <optional>
#include <variant>

#include <fmt/format.h>

#include "bridge/compare.hpp"
#include "bridge/html_report.hpp"
#include "bridge/kstep_export.hpp"
#include "bridge/rtapp_export.hpp"
#include "bridge/rtapp_import.hpp"
#include "bridge/sim.hpp"
#include "cli/load.hpp"
#include "cli/vm_command.hpp"
#include "scenario/duration.hpp"
#include "scenario/executor.hpp"
#include "scenario/scenario_parse.hpp"
#include "scenario/scenario_print.hpp"

namespace eevdf::cli {

struct BridgeCommands {
  CLI::App* run = nullptr;
  std::string run_rtapp, run_duration, run_scenario_out;

  CLI::App* exp = nullptr;
  std::string exp_file, exp_out;
  bool exp_kstep = false, exp_rtapp = false;
  scn::ProfileOverride exp_profile;

  CLI::App* compare = nullptr;
  std::string cmp_workload, cmp_a = "default", cmp_duration, cmp_profile;
  std::vector<std::string> cmp_b;
  unsigned cmp_runqueues = 0, cmp_smt = 0, cmp_cpus = 0;

  CLI::App* report = nullptr;
  std::string rep_file, rep_out;
  scn::ProfileOverride rep_profile;
  bool rep_no_tolerance = false, rep_keep_going = false;
  std::string rep_vm_results;
};

namespace {

int bad(const std::string& message) {
  std::cerr << "eevdf-check: " << message << "\n";
  return 2;
}

bool is_json(const std::string& path) { return path.size() >= 5 && path.substr(path.size() - 5) == ".json"; }

std::optional<u64> duration_arg(const std::string& text, const std::string& option, std::string& error) {
  std::string why;
  const auto d = scn::parse_duration(text, &why);
  if (!d || *d <= 0) {
    error = fmt::format("{} '{}': {}", option, text, d ? "must be more than 0" : why);
    return std::nullopt;
  }
  if (*d > s64{3600} * 1'000'000'000) {
    error = fmt::format("{} '{}': at most 3600s", option, text);
    return std::nullopt;
  }
  return static_cast<u64>(*d);
}

struct Workload {
  bool rtapp = false;
  scn::Scenario scenario;      // a scenario, or the header (profile) of an rt-app run
  bridge::RtWorkload rt;
};

std::optional<Workload> load_workload(const std::string& path, std::string& error) {
  Workload w;
  if (is_json(path)) {
    const auto text = read_file(path, error);
    if (!text) return std::nullopt;
    auto parsed = bridge::parse_rtapp(*text, path);
    if (auto* e = std::get_if<std::string>(&parsed)) {
      error = *e;
      return std::nullopt;
    }
    w.rtapp = true;
    w.rt = std::get<bridge::RtWorkload>(std::move(parsed));
    return w;
  }
  auto loaded = load_scenario(path, true, error);
  if (!loaded) return std::nullopt;
  w.scenario = std::move(loaded->scenario);
  return w;
}

bridge::SimResult run_workload(const Workload& w, const Profile& p, u64 duration, unsigned cpus, unsigned smt) {
  if (w.rtapp) return bridge::simulate_rtapp(w.rt, p, duration, false, {}, cpus, smt).result;
  scn::Scenario s = w.scenario;
  s.runqueues = cpus;
  s.smt = smt;
  return bridge::simulate(s, p, true, false);
}

// The online CPUs (the `cpus` tunable: base-slice factor, v7.3's tg_cpus())
// of an rt-app run: --cpus, else the runqueues when there are several, else the
// model's default (0: the header's).
unsigned online_cpus(unsigned option_cpus, unsigned option_runqueues) {
  if (option_cpus) return option_cpus;
  return option_runqueues > 1 ? option_runqueues : 0;
}

// The runqueues and SMT siblings of a run: the option's, else the scenario's
// (an rt-app workload: 1); empty error when they fit the profile.
bool cpus_of(const std::string& profile, unsigned option_runqueues, unsigned option_smt, unsigned& cpus,
             unsigned& smt, std::string& error) {
  if (option_runqueues) cpus = option_runqueues;
  if (option_smt) smt = option_smt;
  error = runqueues_refusal(profile, cpus);
  if (error.empty()) error = smt_refusal(cpus, smt);
  return error.empty();
}

int run_rtapp(BridgeCommands& b) {
  std::string error;
  scn::ProfileOverride o;
  o.profile = b.run->get_option("--profile")->as<std::string>();
  o.features = b.run->get_option("--features")->as<std::string>();
  const auto text = read_file(b.run_rtapp, error);
  if (!text) return bad(error);
  auto parsed = bridge::parse_rtapp(*text, b.run_rtapp);
  if (auto* e = std::get_if<std::string>(&parsed)) return bad(*e);
  const auto& w = std::get<bridge::RtWorkload>(parsed);
  u64 duration = w.duration_ns.value_or(1'000'000'000ULL);
  if (!b.run_duration.empty()) {
    const auto d = duration_arg(b.run_duration, "--duration", error);
    if (!d) return bad(error);
    duration = *d;
  }
  const auto opt = [&](const char* name) {
    const auto* x = b.run->get_option(name);
    return x->count() ? x->as<unsigned>() : 0u;
  };
  o.cpus = online_cpus(opt("--cpus"), opt("--runqueues"));
  const auto profile = scn::build_profile(o, error);
  if (!profile) return bad(b.run_rtapp + ": " + error);
  unsigned cpus = 1, smt = 1;
  if (!cpus_of(profile->name, opt("--runqueues"), opt("--smt"), cpus, smt, error)) return bad(b.run_rtapp + ": " + error);
  const auto run = bridge::simulate_rtapp(w, *profile, duration, false, {}, cpus, smt);
  if (!b.run_scenario_out.empty()) {
    scn::Scenario sc = run.scenario;
    sc.features = o.features;
    std::ofstream out(b.run_scenario_out);
    if (!out) return bad(fmt::format("{}: cannot write", b.run_scenario_out));
    out << scn::print_scenario(sc);
  }
  std::cout << bridge::format_metrics(
      run.result, fmt::format("rt-app {} on profile {}{}{}: {} threads, {} operations", b.run_rtapp, profile->name,
                              o.features.empty() ? "" : " with " + o.features,
                              cpus > 1 ? fmt::format(", {} CPUs", cpus) : "", w.threads.size(),
                              run.scenario.ops.size()));
  if (!run.result.error.empty()) return bad(b.run_rtapp + ": " + run.result.error);
  return run.result.violations.empty() ? 0 : 1;
}

int run_export(BridgeCommands& b) {
  if (b.exp_kstep == b.exp_rtapp) return bad("export: give exactly one of --kstep and --rt-app");
  std::string error;
  const auto loaded = load_scenario(b.exp_file, true, error);
  if (!loaded) return bad(error);
  const auto profile = scn::build_profile(loaded->scenario, b.exp_profile, error);
  if (!profile) return bad(b.exp_file + ": " + error);
  const auto text = b.exp_kstep ? bridge::export_kstep(loaded->scenario, *profile, b.exp_file, error)
                                : bridge::export_rtapp(loaded->scenario, *profile, b.exp_file, error);
  if (!text) return bad(error);
  if (b.exp_out.empty()) {
    std::cout << *text;
  } else {
    std::ofstream out(b.exp_out);
    if (!out) return bad(fmt::format("{}: cannot write", b.exp_out));
    out << *text;
  }
  return 0;
}

int run_compare(BridgeCommands& b) {
  std::string error;
  const auto w = load_workload(b.cmp_workload, error);
  if (!w) return bad(error);
  std::vector<std::pair<std::string, std::string>> specs{{"--features", b.cmp_a}};  // (option, side)
  for (const auto& side : b.cmp_b) specs.emplace_back("--vs", side);
  scn::Scenario header = w->rtapp ? scn::Scenario{} : w->scenario;
  if (!b.cmp_profile.empty()) header.profile = b.cmp_profile;
  if (const unsigned c = w->rtapp ? online_cpus(b.cmp_cpus, b.cmp_runqueues) : b.cmp_cpus) header.cpus = c;
  u64 duration = w->rtapp ? w->rt.duration_ns.value_or(1'000'000'000ULL) : 0;
  if (!b.cmp_duration.empty()) {
    if (!w->rtapp) return bad("--duration applies to an rt-app workload only");
    const auto d = duration_arg(b.cmp_duration, "--duration", error);
    if (!d) return bad(error);
    duration = *d;
  }
  std::vector<bridge::CompareSide> sides;
  bool refused = false;
  for (const auto& [option, spec] : specs) {
    const auto o = bridge::parse_side(spec, error);
    if (!o) return bad(option + " " + error);
    const auto p = scn::build_profile(header, *o, error);
    if (!p) return bad(fmt::format("{} {}: {}", option, spec, error));
    unsigned cpus = header.runqueues, smt = header.smt;
    if (!cpus_of(p->name, b.cmp_runqueues, b.cmp_smt, cpus, smt, error))
      return bad(fmt::format("{} {}: {}", option, spec, error));
    std::string f = header.features;
    if (!o->features.empty()) f += (f.empty() ? "" : ",") + o->features;
    sides.push_back({f.empty() ? p->name : p->name + " " + f, run_workload(*w, *p, duration, cpus, smt)});
    refused = refused || !sides.back().result.error.empty();
  }
  const unsigned cpus = sides.front().result.cpus;
  std::cout << fmt::format("{} ({}{})\n\n", b.cmp_workload, w->rtapp ? "rt-app workload" : "scenario",
                           cpus > 1 ? fmt::format(", {} CPUs, cpus {}", cpus, header.cpus) : "");
  std::cout << bridge::format_compare(sides);
  if (refused) return 2;
  return std::all_of(sides.begin(), sides.end(), [](const auto& s) { return s.result.violations.empty(); }) ? 0 : 1;
}

int run_report(BridgeCommands& b) {
  std::string error;
  const auto text = read_file(b.rep_file, error);
  if (!text) return bad(error);
  const auto loaded = load_scenario(b.rep_file, true, error);
  if (!loaded) return bad(error);
  const auto profile = scn::build_profile(loaded->scenario, b.rep_profile, error);
  if (!profile) return bad(b.rep_file + ": " + error);
  std::optional<bridge::KernelRun> vm;
  if (!b.rep_vm_results.empty()) {
    std::ifstream in(b.rep_vm_results);
    if (!in) return bad(fmt::format("{}: cannot read", b.rep_vm_results));
    vm = bridge::parse_vm_results(in);
    if (vm->steps.empty()) return bad(fmt::format("{}: no step of a booted-kernel run in it", b.rep_vm_results));
  }
  // the scenario's `keep_going` (or --keep-going): drawn past the first violation to its end
  const bool keep_going = b.rep_keep_going || loaded->scenario.keep_going;
  const auto r =
      bridge::simulate(loaded->scenario, *profile, keep_going, true, inv::Tolerances{!b.rep_no_tolerance});
  if (!r.error.empty()) return bad(b.rep_file + ":" + r.error);
  const std::string html = bridge::html_report(loaded->scenario, b.rep_file, *text, *profile, r, vm ? &*vm : nullptr);
  std::ofstream out(b.rep_out, std::ios::binary);
  if (!out) return bad(fmt::format("{}: cannot write", b.rep_out));
  out << html;
  std::cerr << fmt::format("wrote {} ({} steps, {} violation(s))\n", b.rep_out, r.samples.size(), r.violations.size());
  return 0;
}

}  // namespace

std::shared_ptr<BridgeCommands> add_bridge_commands(CLI::App& app, CLI::App* run) {
  auto b = std::make_shared<BridgeCommands>();
  b->run = run;
  auto* file = run->get_option("file");
  file->required(false);
  run->add_option("--rt-app", b->run_rtapp, "simulate an rt-app JSON workload instead of a scenario")
      ->excludes(file);
  run->add_option("--duration", b->run_duration, "simulated time for --rt-app (default: its global.duration, else 1s)");
  run->add_option("--scenario-out", b->run_scenario_out, "with --rt-app: write the operations it ran as a scenario");

  b->exp = app.add_subcommand("export", "write a scenario as a kSTEP driver (--kstep) or an rt-app workload (--rt-app)");
  b->exp->add_option("file", b->exp_file, "scenario (.scn)")->required();
  b->exp->add_flag("--kstep", b->exp_kstep, "a kSTEP driver (C) on stdout");
  b->exp->add_flag("--rt-app", b->exp_rtapp, "an rt-app JSON workload on stdout");
  b->exp->add_option("-o,--output", b->exp_out, "write here instead of stdout");
  b->exp->add_option("--profile", b->exp_profile.profile, "kernel profile (overrides the scenario's)");
  b->exp->add_option("--features", b->exp_profile.features, "scheduler features, debugfs syntax");

  b->compare = app.add_subcommand("compare", "run a workload under feature sets or profiles, side by side");
  b->compare->add_option("workload", b->cmp_workload, "scenario (.scn) or rt-app workload (.json)")->required();
  b->compare->add_option("--features", b->cmp_a,
                         "side A: a profile, a feature list (NO_RUN_TO_PARITY,...), or PROFILE:FEATURES")
      ->capture_default_str();
  b->compare->add_option("--vs", b->cmp_b, "another side, same forms; repeat for more columns")->required();
  b->compare->add_option("--runqueues", b->cmp_runqueues,
                         "CPUs modelled (overrides the scenario's 'runqueues'; an rt-app workload: default 1)")
      ->check(CLI::Range(1u, kMaxRunqueues));
  b->compare->add_option("--smt", b->cmp_smt, "SMT siblings a core (overrides the scenario's 'smt')")
      ->check(CLI::Range(1u, kMaxRunqueues));
  b->compare->add_option("--cpus", b->cmp_cpus,
                         "online CPUs: base-slice factor, v7.3's tg_cpus() (overrides the scenario's 'cpus'; an rt-app "
                         "workload: the runqueues when several, else 8)")
      ->check(CLI::Range(1u, static_cast<unsigned>(scn::kMaxCpus)));
  b->compare->add_option("--profile", b->cmp_profile, "base profile (default: the scenario's, or mainline)");
  b->compare->add_option("--duration", b->cmp_duration, "simulated time of an rt-app workload");

  b->report = app.add_subcommand("report", "write a self-contained HTML page of a scenario run");
  b->report->add_option("file", b->rep_file, "scenario (.scn)")->required();
  b->report->add_option("-o,--output", b->rep_out, "HTML file")->required();
  b->report->add_option("--profile", b->rep_profile.profile, "kernel profile (overrides the scenario's)");
  b->report->add_option("--features", b->rep_profile.features, "scheduler features, debugfs syntax");
  b->report->add_flag("--no-tolerance", b->rep_no_tolerance, "also report the documented findings (docs/findings.md)");
  b->report->add_flag("--keep-going", b->rep_keep_going,
                      "draw the run past the first violation (as the scenario's keep_going)");
  b->report->add_option("--vm-results", b->rep_vm_results,
                        "a recorded booted-kernel run of the scenario (the results.jsonl of `eevdf-check vm`): its "
                        "run/wait drawn under each task");

  add_vm_command(app);  // vm: runs from its own callback
  return b;
}

std::optional<int> run_bridge_commands(BridgeCommands& b) {
  if (b.run->parsed()) {
    if (!b.run_rtapp.empty()) return run_rtapp(b);
    if (b.run->get_option("file")->count() == 0) return bad("run: give a scenario file or --rt-app FILE");
    if (!b.run_duration.empty() || !b.run_scenario_out.empty())
      return bad("run: --duration and --scenario-out apply to --rt-app only");
    return std::nullopt;
  }
  if (b.exp->parsed()) return run_export(b);
  if (b.compare->parsed()) return run_compare(b);
  if (b.report->parsed()) return run_report(b);
  return std::nullopt;
}

}  // namespace eevdf::cli
