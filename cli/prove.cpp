#include "cli/prove.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <variant>

#include "cli/prove_scenario.hpp"
#include "kernelsrc/kernel_backend.hpp"
#include "scenario/executor.hpp"
#include "scenario/known.hpp"
#include "invariants/ids.hpp"
#include "model/kernel_types.hpp"
#include "model/rq.hpp"
#include "smt/obligations.hpp"

namespace eevdf::cli {

namespace {

struct ProveArgs {
  std::string profile = "mainline";
  std::string obligation;
  std::string variant;
  std::string scenario_dir;
  bool json = false;
  bool replay = false;
  bool tasks_only = false;
  bool no_bounds = false;
  long long max_queue = 512;
  long long slice_max = 0;  // 0: the profile's premise
  long long tick_max = 0;
  unsigned timeout_ms = 10000;
};

// A premise of an obligation, and the known findings of the profile (corpus/known)
// that break the invariant checking it: then the premise does not hold on that
// kernel, and a proof under it is "proved under a premise that does not hold".
struct PremiseStatus {
  const smt::PremiseInfo* info;
  std::vector<std::string> broken_by;  // the known findings that break it (empty: none)
};

std::vector<PremiseStatus> premise_status(const smt::Outcome& o, const std::string& profile) {
  std::vector<PremiseStatus> out;
  const auto& known = scn::known_findings(profile);
  for (const auto* p : smt::premises_of(o.name)) {
    PremiseStatus st{p, {}};
    for (const auto& k : known.entries()) {
      if (k.any_invariant || p->invariant.empty() || inv::id_name(k.identity.id) != p->invariant) continue;
      // the rule of the invariant that is this premise: by its report's text (a
      // detail class "*" stands for any of them), or by the site for I-OVF
      const auto& f = k.identity;
      if (f.detail != "*" && f.detail.find(p->rule) == std::string::npos && f.where.find(p->rule) == std::string::npos)
        continue;
      if (std::find(st.broken_by.begin(), st.broken_by.end(), k.name) == st.broken_by.end()) st.broken_by.push_back(k.name);
    }
    out.push_back(std::move(st));
  }
  return out;
}

bool under_broken_premise(const std::vector<PremiseStatus>& premises) {
  return std::any_of(premises.begin(), premises.end(), [](const auto& p) { return !p.broken_by.empty(); });
}

std::string join(const std::vector<std::string>& v, std::string_view sep) {
  std::string out;
  for (const auto& x : v) out += (out.empty() ? "" : std::string(sep)) + x;
  return out;
}

// A refutation's scenario replayed on one backend.
struct BackendReplay {
  bool ran = false;
  std::string error;
  std::string violation;  // "I-OVF at place_entity.lag_x_load", or "" if none
  bool reached_site = false;
  std::string divergence;  // lockstep: the first field in which model and kernel differ, "" if none
};

struct Replay {
  BackendReplay model;
  BackendReplay kernel;    // the tree's own fair.c, judged by the profile
  BackendReplay lockstep;  // model and tree side by side
  std::string kernel_why_not;  // why the refutation is not replayed on the tree's code ("" if it was)
};

BackendReplay run_on(const scn::Scenario& s, const Profile& profile, const std::string& site, scn::Backend backend) {
  BackendReplay r;
  scn::ExecOptions options;
  options.backend = backend;
  // the profile's known findings are labelled and the run goes on (a stale
  // augment on v7.1 comes before the overflow): the violation reported is the
  // one at the refuted site, else the first one
  options.known = &scn::known_findings(profile.name);
  const auto result = scn::execute(s, profile, options);
  r.ran = true;
  r.error = result.error;
  const auto at_site = std::find_if(result.violations.begin(), result.violations.end(), [&](const inv::Violation& v) {
    return v.id == inv::Id::OVF && v.where == site;
  });
  if (!result.violations.empty()) {
    const auto& v = at_site != result.violations.end() ? *at_site : result.violations.front();
    r.violation = fmt::format("{} at {}{}", inv::id_name(v.id), v.where, v.known.empty() ? "" : " (known finding " + v.known + ")");
    r.reached_site = at_site != result.violations.end();
  }
  if (result.oops && r.violation.empty()) r.violation = "the kernel crashed: pick_eevdf() returned NULL";
  if (result.divergence) {
    const auto& d = *result.divergence;
    r.divergence = fmt::format("after operation {}: {}: model {}, kernel {}", d.op_index + 1, d.field, d.model, d.kernel);
  }
  return r;
}

// Why a refutation has no scenario (then it replays nowhere).
std::string why_no_scenario(const smt::Outcome& o, const smt::Params& p) {
  if (o.name == "pick.eligible_exists_without_premises")
    return "it drops the premises on purpose (it shows they are needed): no kernel state is claimed";
  if (o.reachable.empty()) {
    if (!p.groups) return "no task-weight counterexample was found";
    std::string why = "the counterexample needs group entities: with task weights only (nice table, SCHED_IDLE) there is none";
    if (o.within_model_limits == smt::Verdict::proved)
      return why + fmt::format(", and none within the model's limits ({} group entities beside tasks, {} tasks)",
                               kMaxGroups, kMaxTasks);
    if (o.within_model_limits == smt::Verdict::refuted)
      return why + "; a queue within the model's limits reaches it (the values above), but no recipe builds it";
    return why + ", and no recipe builds the group queue it needs";
  }
  return "no recipe drives the model to this site (scenarios exist for place_entity.lag_x_load and, with s64 "
         "eligibility, vruntime_eligible.key_x_load)";
}

// Runs a refutation's scenario on the model (with the variant applied) and,
// where this build's tree is the profile's kernel, on the tree's own code and in
// lockstep; otherwise says why not.
Replay replay(const smt::Outcome& o, const Profile& base, const smt::Params& p) {
  Replay r;
  if (o.verdict != smt::Verdict::refuted) return r;
  if (!o.reaching) {
    r.kernel_why_not = "no scenario: " + why_no_scenario(o, p);
    return r;
  }
  const scn::Scenario s = reaching_scenario(*o.reaching);
  const std::string& site = o.reaching->site;
  Profile profile = base;
  if (!smt::apply_variant_to_profile(profile, o.reaching->variant)) {
    r.model.error = "the model has no switch for variant " + o.reaching->variant;
  } else {
    r.model = run_on(s, profile, site, scn::Backend::model);
  }
  if (!o.reaching->variant.empty())
    r.kernel_why_not = "the scenario needs the test-only variant " + o.reaching->variant +
                       ", an arithmetic the tree's code does not have";
  else if (!kernelsrc::available())
    r.kernel_why_not = "this build has no kernel backend (no kernel tree at build time)";
  else if (kernelsrc::judge() != base.name)
    r.kernel_why_not = fmt::format("this build's tree is Linux {}, judged by profile {}, not {}: build with "
                                   "-DEEVDF_KERNEL_SRC= a {} tree (docs/kernel-backend.md, \"Versions\")",
                                   kernelsrc::kernel_version(), kernelsrc::judge().empty() ? "(none)" : kernelsrc::judge(),
                                   base.name, base.name);
  if (!r.kernel_why_not.empty()) return r;
  r.kernel = run_on(s, base, site, scn::Backend::kernel);
  r.lockstep = run_on(s, base, site, scn::Backend::lockstep);
  return r;
}

nlohmann::json to_json(const smt::Outcome& o, const Replay* r, const std::vector<PremiseStatus>& premises) {
  nlohmann::json j;
  j["obligation"] = o.name;
  j["site"] = o.site;
  j["verdict"] = smt::verdict_name(o.verdict);
  j["seconds"] = o.seconds;
  j["queries"] = o.queries;
  j["bound"] = o.bound;
  j["largest"] = o.largest;
  j["detail"] = o.detail;
  auto assignments = [](const std::vector<smt::Assignment>& v) {
    nlohmann::json a = nlohmann::json::array();
    for (const auto& x : v) a.push_back({{"name", x.name}, {"value", x.value}});
    return a;
  };
  j["counterexample"] = assignments(o.counterexample);
  j["reachable_counterexample"] = assignments(o.reachable);
  if (o.within_model_limits) {
    j["within_model_limits"] = smt::verdict_name(*o.within_model_limits);
    j["model_limits_counterexample"] = assignments(o.model_limits_example);
  }
  j["scenario"] = o.reaching ? reaching_scenario_text(*o.reaching) : "";
  j["scenario_variant"] = o.reaching ? o.reaching->variant : "";
  j["scenario_site"] = o.reaching ? o.reaching->site : "";
  j["premises"] = nlohmann::json::array();
  for (const auto& p : premises)
    j["premises"].push_back({{"name", p.info->name}, {"invariant", p.info->invariant}, {"broken_by", p.broken_by}});
  j["under_broken_premise"] = o.verdict == smt::Verdict::proved && under_broken_premise(premises);
  auto backend_json = [](const BackendReplay& b) {
    return nlohmann::json{{"violation", b.violation}, {"reached_site", b.reached_site}, {"error", b.error},
                          {"divergence", b.divergence}};
  };
  if (r && r->model.ran) j["replay"] = backend_json(r->model);
  if (r && r->kernel.ran) j["kernel_replay"] = backend_json(r->kernel);
  if (r && r->lockstep.ran) j["lockstep_replay"] = backend_json(r->lockstep);
  if (r && !r->kernel_why_not.empty()) j["kernel_replay_not_run"] = r->kernel_why_not;
  return j;
}

void print_text(const smt::Params& p, const std::vector<smt::Outcome>& outcomes, const std::vector<Replay>& replays,
                const std::vector<std::vector<PremiseStatus>>& premises, double total) {
  std::cout << fmt::format("profile {}{}: weights {} (sums: {}), eligibility in {}, lag clamp {}, __calc_delta {}, "
                           "place_entity {}\n",
                           p.profile, p.variant.empty() ? "" : " + test-only variant " + p.variant,
                           p.groups ? "[2, 2^28] (groups and tasks)" : "of tasks (nice table, SCHED_IDLE)",
                           p.sum_weight == smt::SumWeight::full ? "full weight" : "scale_load_down",
                           p.eligible_int128 ? "int128" : "s64",
                           p.lag_clamp == smt::LagClamp::max_slice_tick ? "max_slice + TICK" : "max(2 slice, TICK)",
                           p.calc_delta == CalcDeltaPath::full_weight ? "full weight" : "inverse weight",
                           p.place_division == smt::PlaceDivision::div64_long ? "div64_long" : "div_s64");
  std::cout << fmt::format("premises: slice {}..{} ns, TICK_NSEC {}..{} ns, queue n <= {}, |key|·w <= {}·L·NICE_0_LOAD, "
                           "delta_exec <= {} ns, per-query timeout {} ms\n",
                           p.slice_min, p.slice_max, p.tick_min, p.tick_max, p.max_queue, p.key_lags,
                           p.max_delta_exec, p.timeout_ms);
  for (const auto& n : p.notes) std::cout << "note: " << n << "\n";
  std::cout << fmt::format("\n{:<40} {:<8} {:>7}  {:<34} {:<34} {}\n", "obligation", "verdict", "time",
                           "tightest safe bound", "largest under the premises", "premises");
  int broken = 0;
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    const auto& o = outcomes[i];
    const bool under_broken = o.verdict == smt::Verdict::proved && under_broken_premise(premises[i]);
    broken += under_broken;
    std::vector<std::string> names;
    for (const auto& st : premises[i]) names.push_back(std::string(st.info->name) + (st.broken_by.empty() ? "" : "!"));
    std::cout << fmt::format("{:<40} {:<8} {:>6.2f}s  {:<34} {:<34} {}\n", o.name,
                             std::string(smt::verdict_name(o.verdict)) + (under_broken ? "*" : ""), o.seconds, o.bound,
                             o.largest, join(names, " "));
  }
  // The premises, the invariant that checks each in the campaigns, and the
  // known findings of this profile that break it.
  std::cout << "\npremises (checked in the campaigns by):\n";
  const bool has_known = scn::has_known_file(p.profile);
  for (const auto& info : smt::premise_list()) {
    std::vector<std::string> breakers;
    for (const auto& per : premises)
      for (const auto& st : per)
        if (st.info == &info)
          for (const auto& b : st.broken_by)
            if (std::find(breakers.begin(), breakers.end(), b) == breakers.end()) breakers.push_back(b);
    std::cout << fmt::format("  {:<14} {}\n  {:<14} {}: {}{}\n", info.name, info.statement, "",
                             info.invariant.empty() ? "no invariant" : info.invariant, info.checked,
                             breakers.empty() ? ""
                                              : "; broken on " + p.profile + " by the known finding(s) " +
                                                    join(breakers, ", ") + " (premise marked !)");
  }
  if (!has_known)
    std::cout << "  (no known-findings file for " << p.profile
              << ": the premises are not compared with this profile's campaign findings)\n";
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    const auto& o = outcomes[i];
    if (o.verdict == smt::Verdict::proved && o.detail.empty()) continue;
    std::cout << fmt::format("\n{} ({}): {}\n", o.name, o.site, smt::verdict_name(o.verdict));
    if (!o.detail.empty()) std::cout << "  " << o.detail << "\n";
    if (!o.counterexample.empty()) {
      std::cout << "  counterexample:\n";
      for (const auto& a : o.counterexample) std::cout << fmt::format("    {} = {}\n", a.name, a.value);
    }
    if (!o.reachable.empty()) {
      std::cout << "  with task weights only (reachable by the model):\n";
      for (const auto& a : o.reachable) std::cout << fmt::format("    {} = {}\n", a.name, a.value);
    }
    if (o.within_model_limits == smt::Verdict::proved)
      std::cout << fmt::format("  within the model's limits ({} group entities beside tasks): not reachable\n", kMaxGroups);
    if (!o.model_limits_example.empty()) {
      std::cout << fmt::format("  within the model's limits ({} group entities beside tasks):\n", kMaxGroups);
      for (const auto& a : o.model_limits_example) std::cout << fmt::format("    {} = {}\n", a.name, a.value);
    }
    if (o.reaching) {
      const std::string& variant = o.reaching->variant;
      std::cout << "  scenario" << (variant.empty() ? "" : " (needs test-only variant " + variant + ")") << ":\n";
      std::cout << reaching_scenario_text(*o.reaching);
    }
    const Replay& r = replays[i];
    auto show = [](std::string_view what, const BackendReplay& b) {
      if (b.ran)
        std::cout << fmt::format("  {}: {}{}{}{}\n", what, b.violation.empty() ? "no violation" : b.violation,
                                 b.reached_site ? " (the refuted site)" : "",
                                 b.divergence.empty() ? "" : "; divergence " + b.divergence,
                                 b.error.empty() ? "" : "; error: " + b.error);
      else if (!b.error.empty())
        std::cout << fmt::format("  {}: {}\n", what, b.error);
    };
    show("replay on the model", r.model);
    show(fmt::format("replay on Linux {}'s own fair.c", kernelsrc::kernel_version()), r.kernel);
    show("replay in lockstep", r.lockstep);
    if (!r.kernel_why_not.empty()) std::cout << "  not replayed on a kernel tree: " << r.kernel_why_not << "\n";
  }
  int proved = 0, refuted = 0, unknown = 0;
  for (const auto& o : outcomes) {
    proved += o.verdict == smt::Verdict::proved;
    refuted += o.verdict == smt::Verdict::refuted;
    unknown += o.verdict == smt::Verdict::unknown;
  }
  std::cout << fmt::format("\n{} obligations: {} proved, {} refuted, {} unknown, {:.2f} s\n", outcomes.size(), proved,
                           refuted, unknown, total);
  if (broken)
    std::cout << fmt::format("{} of the proved (marked *) are proved under a premise that does not hold on {}: a known "
                             "finding breaks the invariant that checks it\n",
                             broken, p.profile);
}

int run_prove(const ProveArgs& a) {
  const auto profile = profile_by_name(a.profile);
  if (!profile) {
    std::string names;
    for (const auto n : profile_names()) names += (names.empty() ? "" : ", ") + std::string(n);
    std::cerr << fmt::format("eevdf-check: unknown profile '{}' (known: {})\n", a.profile, names);
    return 2;
  }
  if (!a.obligation.empty() && !smt::is_obligation(a.obligation)) {
    std::cerr << fmt::format("eevdf-check: unknown obligation '{}'; known:\n", a.obligation);
    for (const auto& o : smt::obligation_list()) std::cerr << "  " << o.name << "\n";
    return 2;
  }
  smt::Params params = smt::params_for(*profile);
  if (const auto err = smt::apply_variant(params, a.variant); !err.empty()) {
    std::cerr << "eevdf-check: " << err << "\n";
    return 2;
  }
  params.max_queue = a.max_queue;
  if (a.slice_max) params.slice_max = a.slice_max;
  if (a.tick_max) params.tick_max = a.tick_max;
  if (params.slice_min > params.slice_max || params.tick_min > params.tick_max) {
    std::cerr << "eevdf-check: --slice-max and --tick-max must be at least 100000 and 1000000 ns\n";
    return 2;
  }
  params.timeout_ms = a.timeout_ms;
  params.groups = !a.tasks_only;
  params.search_bounds = !a.no_bounds;

  const auto start = std::chrono::steady_clock::now();
  std::vector<smt::Outcome> outcomes;
  if (a.obligation.empty())
    outcomes = smt::prove_all(params);
  else
    outcomes.push_back(*smt::prove_one(a.obligation, params));
  const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!a.scenario_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(a.scenario_dir, ec);
    for (const auto& o : outcomes) {
      if (!o.reaching) continue;
      const std::string& variant = o.reaching->variant;
      const std::string path = a.scenario_dir + "/" + o.name + (variant.empty() ? "" : "." + variant) + ".scn";
      std::ofstream out(path);
      if (!(out << reaching_scenario_text(*o.reaching))) {
        std::cerr << "eevdf-check: cannot write " << path << "\n";
        return 2;
      }
      std::cerr << "wrote " << path << "\n";
    }
  }
  std::vector<std::vector<PremiseStatus>> premises;
  for (const auto& o : outcomes) premises.push_back(premise_status(o, params.profile));
  std::vector<Replay> replays(outcomes.size());
  if (a.replay)
    for (std::size_t i = 0; i < outcomes.size(); ++i) replays[i] = replay(outcomes[i], *profile, params);

  if (a.json) {
    nlohmann::json j;
    j["profile"] = params.profile;
    j["variant"] = params.variant;
    j["max_queue"] = params.max_queue;
    j["groups"] = params.groups;
    j["seconds"] = total;
    j["obligations"] = nlohmann::json::array();
    for (std::size_t i = 0; i < outcomes.size(); ++i) j["obligations"].push_back(to_json(outcomes[i], &replays[i], premises[i]));
    std::cout << j.dump(2) << "\n";
  } else {
    print_text(params, outcomes, replays, premises, total);
  }
  return 0;
}

}  // namespace

void add_prove_command(CLI::App& app) {
  auto args = std::make_shared<ProveArgs>();
  auto* cmd = app.add_subcommand("prove", "Z3 proofs of the EEVDF arithmetic bounds (docs/proofs.md)");
  cmd->add_option("--profile", args->profile, "kernel profile")->capture_default_str();
  cmd->add_option("--obligation", args->obligation, "run only this obligation (default: all)");
  cmd->add_option("--variant", args->variant,
                  "test-only arithmetic change: s64-eligibility, scale-load-down, div-s64, inverse-weight");
  cmd->add_option("--max-queue", args->max_queue, "N: entities on one cfs_rq")
      ->capture_default_str()
      ->check(CLI::Range(2LL, 1LL << 22));
  cmd->add_option("--timeout", args->timeout_ms, "per-query timeout, ms")->capture_default_str()->check(CLI::Range(1u, 600000u));
  cmd->add_option("--slice-max", args->slice_max, "premise: largest slice in ns (default 100 ms, the sched_setattr clamp)");
  cmd->add_option("--tick-max", args->tick_max, "premise: largest TICK_NSEC in ns (default 10 ms, HZ=100)");
  cmd->add_flag("--tasks-only", args->tasks_only, "weights of tasks only (no group entities): what scenarios reach");
  cmd->add_flag("--no-bounds", args->no_bounds, "verdicts only: skip the bound searches");
  cmd->add_flag("--replay", args->replay, "replay each refutation's scenario on the model and, when this build's kernel tree is the profile's, on the tree's own fair.c and in lockstep");
  cmd->add_option("--write-scenarios", args->scenario_dir,
                  "write each refutation's scenario to DIR/<obligation>[.<variant>].scn");
  cmd->add_flag("--json", args->json, "JSON on stdout");
  cmd->callback([args] { throw CLI::RuntimeError(run_prove(*args)); });
}

}  // namespace eevdf::cli
