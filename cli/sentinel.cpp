#include "cli/sentinel.hpp"

#include <fmt/format.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include "cli/ci_output.hpp"
#include "fuzz/campaign.hpp"
#include "kernelsrc/kernel_backend.hpp"
#include "scenario/executor.hpp"
#include "scenario/known.hpp"
#include "scenario/run_settings.hpp"
#include "scenario/scenario_parse.hpp"
#include "scenario/scenario_print.hpp"

namespace eevdf::cli {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

using Clock = std::chrono::steady_clock;
double since_start(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

void progress(const std::string& line) { std::cerr << "sentinel: " << line << std::endl; }

std::optional<std::string> slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// ---------------------------------------------------------------------------
// The stages on this build's own tree (sentinel --this-tree, or the tree the
// tool was built from): in process, the results as one tree's JSON.

// A documented finding's regression scenario and the violations that say it
// is there: an invariant, at a site (a known-findings entry's) or anywhere ("").
struct FindingScenario {
  std::string finding;
  std::string file;  // relative to the repository
  std::set<std::pair<std::string, std::string>> raises;
};

// The documented findings and their scenarios: every known-findings file's
// entries (corpus/known/, built in: K1, K2, F10, the I-PROT rows, ...), and
// The finding a regression scenario's file name gives ("F13" of
// "F13-....scn" and of "v6.12.118-F13-....scn"), or empty.
std::string finding_of_file_name(std::string_view leaf) {
  const auto digits = [](std::string_view s, std::string_view allowed) {
    return !s.empty() && s.find_first_not_of(allowed) == std::string_view::npos;
  };
  if (!leaf.ends_with(".scn")) return {};
  std::string_view rest = leaf.substr(0, leaf.size() - 4);
  if (rest.starts_with('v')) {
    const auto dash = rest.find('-');
    if (dash == std::string_view::npos || !digits(rest.substr(1, dash - 1), "0123456789.")) return {};
    rest.remove_prefix(dash + 1);
  }
  const auto dash = rest.find('-');
  if (!rest.starts_with('F') || dash == std::string_view::npos || !digits(rest.substr(1, dash - 1), "0123456789"))
    return {};
  return std::string(rest.substr(0, dash));
}

// the regression scenarios named for a finding of docs/findings.md
// (corpus/regressions/[vX.Y-]Fn-*.scn) that expect a violation.
std::vector<FindingScenario> documented_scenarios(const std::string& root) {
  using Raises = std::set<std::pair<std::string, std::string>>;
  std::map<std::pair<std::string, std::string>, Raises> found;
  const auto expected = [&](const std::string& file) {
    Raises ids;
    const auto text = slurp(fs::path(root) / file);
    if (!text) return ids;
    const auto parsed = scn::parse_scenario(*text, file);
    if (const auto* s = std::get_if<scn::Scenario>(&parsed))
      for (const auto& e : s->expectations)
        if (e.kind == scn::Expectation::Kind::violation) ids.insert({e.invariant, ""});
    return ids;
  };
  for (const auto name : profile_names())
    for (const scn::KnownFinding& k : scn::known_findings(name).entries()) {
      if (k.scenario.empty()) continue;
      auto& ids = found[{k.name, k.scenario}];
      if (k.any_invariant)
        ids.merge(expected(k.scenario));
      else
        ids.insert({std::string(inv::id_name(k.identity.id)), k.identity.where});
    }
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(fs::path(root) / "corpus/regressions", ec)) {
    const std::string leaf = entry.path().filename().string();
    const std::string finding = finding_of_file_name(leaf);
    if (finding.empty()) continue;
    const std::string file = "corpus/regressions/" + leaf;
    auto ids = expected(file);
    if (!ids.empty()) found[{finding, file}].merge(ids);
  }
  std::vector<FindingScenario> out;
  for (auto& [key, ids] : found)
    if (!ids.empty()) out.push_back({key.first, key.second, std::move(ids)});
  return out;
}

// One scenario on the tree's own code, judged by the tree's release, every
// documented finding reported: present when it raises one of the finding's
// violations (not labelled as another known finding of the tree's release:
// the same operations can raise a different, documented row), absent when it
// runs without, not expressible when the tree (or this build of it) cannot run it.
json replay_on_tree(const FindingScenario& fs_, const std::string& root) {
  json raises = json::array();
  for (const auto& [id, site] : fs_.raises) raises.push_back(site.empty() ? id : id + " @ " + site);
  json out{{"finding", fs_.finding}, {"file", fs_.file}, {"raises", raises}};
  const auto not_expressible = [&](const std::string& why) {
    out["result"] = "not expressible";
    out["reason"] = why;
    return out;
  };
  const auto text = slurp(fs::path(root) / fs_.file);
  if (!text) return not_expressible("cannot read " + fs_.file);
  auto parsed = scn::parse_scenario(*text, fs_.file);
  auto* s = std::get_if<scn::Scenario>(&parsed);
  if (!s) return not_expressible("does not parse: " + std::get<scn::ParseError>(parsed).message);
  if (!s->bug.empty()) return not_expressible("a bug switch of the model (" + s->bug + ")");
  if (s->features.find("RFC_") != std::string::npos) return not_expressible("an RFC's feature of the model");
  s->profile = "mainline";  // as if it had no profile line: the tree's release judges
  s->profile_line = 0;
  s->expectations.clear();
  scn::ProfileOverride o;
  std::string note, error;
  if (auto err = scn::choose_judge(scn::Backend::kernel, s, false, o, note); !err.empty()) return not_expressible(err);
  const auto profile = scn::build_profile(*s, o, error);
  if (!profile) return not_expressible(error);
  if (auto why = kernelsrc::refusal(*profile, s->runqueues); !why.empty()) return not_expressible(why);
  scn::ExecOptions options;
  if (auto err = scn::apply_run_settings(*s, {"", "", true, scn::Backend::kernel, fs_.file}, options); !err.empty())
    return not_expressible(err);
  options.keep_going = true;
  options.known = &scn::judge_known_findings(profile->name, scn::Backend::kernel);  // the tree's release's known findings
  const scn::ExecResult r = scn::execute(*s, *profile, options);
  if (!r.error.empty()) return not_expressible(r.error);
  bool present = false;
  json raised = json::array();
  for (const auto& v : r.violations) {
    const std::string id(inv::id_name(v.id));
    const bool is_it = fs_.raises.count({id, ""}) || fs_.raises.count({id, v.where});
    present = present || (is_it && (v.known.empty() || v.known == fs_.finding));
    raised.push_back(fmt::format("{} at operation {} in {}{}", id, v.op_index + 1, v.where,
                                 v.known.empty() ? "" : " (known: " + v.known + ")"));
  }
  if (r.oops) raised.push_back("the kernel's code crashed (NULL pick)");
  out["result"] = present ? "present" : "absent";
  out["raised"] = raised;
  return out;
}

// A campaign's log: nothing but the first divergence, kept.
class QuietLog final : public fuzz::CampaignLog {
 public:
  std::optional<json> first_divergence;
  void started(const Profile&, const fuzz::CampaignOptions&, unsigned, bool) override {}
  void progress(double, std::uint64_t, std::uint64_t, std::size_t, std::size_t) override {}
  void finding(std::size_t, const inv::Violation&, const fuzz::CampaignFinding&, bool, const std::string&) override {}
  void divergence(const scn::Divergence& d, const scn::Op& op, const std::string& shown) override {
    first_divergence = json{{"field", d.field}, {"model", d.model}, {"kernel", d.kernel}, {"operation", scn::print_op(op)},
                      {"scenario", shown}};
  }
};

json run_this_tree(const SentinelArgs& a, const std::string& root) {
  const std::string version = kernelsrc::kernel_version();
  const std::string judge = kernelsrc::judge();
  json tree{{"version", version}, {"judge", judge}, {"smp", kernelsrc::smp()}, {"stages", json::array()},
            {"divergences", json::array()}, {"undocumented", json::array()}};
  tree["judge_exact"] = !judge.empty() && profile_release(judge) == kernelsrc::tree_release();
  const long lockstep_s = std::max(1L, a.time_s / 2), fuzz_s = std::max(1L, a.time_s - a.time_s / 2);
  const unsigned cpus = kernelsrc::smp() ? 2 : 1;
  const auto skip_all = [&](const std::string& why) {
    for (const char* s : {"lockstep", "fuzz", "replay"})
      tree["stages"].push_back({{"name", s}, {"result", "skipped"}, {"reason", why}});
    tree["scenarios"] = json::array();
    tree["findings"] = json::object();
    return tree;
  };
  if (judge.empty())
    return skip_all(fmt::format("no profile of Linux {}'s major.minor judges it (docs/kernel-backend.md, \"The judge\")",
                                version));
  std::string error;
  scn::ProfileOverride po;
  po.profile = judge;
  const auto profile = scn::build_profile(po, error);
  if (!profile) return skip_all(error);

  const auto campaign = [&](scn::Backend backend, long seconds, const std::string& findings) {
    fuzz::CampaignOptions o;
    o.backend = backend;
    o.time = std::chrono::seconds(seconds);
    o.seed = a.seed;
    o.runqueues = cpus;
    o.groups = fuzz::CampaignOptions::Groups::mixed;  // tasks alone in one run of two, with groups in the other
    o.findings_dir = findings;
    o.minimize_budget = std::chrono::seconds(std::min(10L, seconds));
    o.progress = false;
    if (backend == scn::Backend::kernel) o.known = scn::judge_known_findings(profile->name, backend);
    return o;
  };
  {
    progress(fmt::format("{}: lockstep against {} on {} CPU(s), {} s", version, judge, cpus, lockstep_s));
    QuietLog log;
    const auto start = Clock::now();
    const auto r = fuzz::run_campaign(*profile, campaign(scn::Backend::lockstep, lockstep_s, a.out + "/lockstep"), log);
    json st{{"name", "lockstep"}, {"result", r.divergences ? "failed" : "ok"}, {"runs", r.runs},
            {"operations", r.ops}, {"divergences", r.divergences}, {"seconds", since_start(start)},
            {"cpus", std::to_string(cpus)}};
    if (log.first_divergence) {
      st["reason"] = fmt::format("{}: model {}, kernel {}", (*log.first_divergence)["field"].get<std::string>(),
                                 (*log.first_divergence)["model"].get<std::string>(),
                                 (*log.first_divergence)["kernel"].get<std::string>());
      tree["divergences"].push_back(*log.first_divergence);
    }
    tree["stages"].push_back(st);
    progress(fmt::format("{}: lockstep: {} runs, {} divergence(s)", version, r.runs, r.divergences));
  }
  {
    progress(fmt::format("{}: fuzz --backend kernel (judged by {}, tasks and groups, {} CPU(s)), {} s", version, judge,
                         cpus, fuzz_s));
    QuietLog log;
    const auto start = Clock::now();
    const auto r = fuzz::run_campaign(*profile, campaign(scn::Backend::kernel, fuzz_s, a.out + "/findings"), log);
    json known = json::object();
    for (const auto& k : r.known) known[k.name] = k.runs;
    for (const auto& f : r.findings)
      tree["undocumented"].push_back({{"invariant", inv::id_name(f.identity.id)}, {"site", f.identity.where},
                                      {"trigger", f.identity.trigger}, {"file", f.file},
                                      {"after_known", f.after_known}});
    tree["stages"].push_back({{"name", "fuzz"}, {"result", r.findings.empty() ? "ok" : "failed"},
                              {"reason", r.findings.empty() ? "" : fmt::format("{} undocumented finding(s)", r.findings.size())},
                              {"runs", r.runs}, {"operations", r.ops}, {"known", known},
                              {"seconds", since_start(start)}, {"cpus", std::to_string(cpus)}});
    progress(fmt::format("{}: fuzz: {} runs, {} known finding(s) counted, {} undocumented", version, r.runs,
                         r.known.size(), r.findings.size()));
  }
  {
    const auto start = Clock::now();
    const auto scenarios = documented_scenarios(root);
    progress(fmt::format("{}: replaying {} regression scenarios of the documented findings", version, scenarios.size()));
    json list = json::array();
    json findings = json::object();
    for (const auto& s : scenarios) {
      json r = replay_on_tree(s, root);
      const std::string result = r["result"], was = findings.value(s.finding, "");
      // present wins over absent, absent over not expressible
      if (was.empty() || result == "present" || (result == "absent" && was == "not expressible"))
        findings[s.finding] = result;
      list.push_back(std::move(r));
    }
    std::size_t present = 0;
    for (const auto& [name, status] : findings.items()) present += status == "present";
    tree["scenarios"] = list;
    tree["findings"] = findings;
    tree["stages"].push_back({{"name", "replay"}, {"result", "ok"}, {"scenarios", scenarios.size()},
                              {"seconds", since_start(start)}});
    progress(fmt::format("{}: replay: {} of {} documented findings present", version, present, findings.size()));
  }
  return tree;
}

// ---------------------------------------------------------------------------
// The trees: a build of this tool on each (or this build, for its own tree),
// then the stages above in that build, through a subprocess.

std::string quote(const std::string& s) {
  std::string out = "'";
  for (const char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

int shell(const std::string& command) {
  const int status = std::system(command.c_str());
  return status == -1 ? -1 : WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// The last lines of a log, for an error message.
std::string tail(const fs::path& log, std::size_t lines) {
  const auto text = slurp(log).value_or("");
  std::vector<std::string> all;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) all.push_back(line);
  std::string out;
  for (std::size_t i = all.size() > lines ? all.size() - lines : 0; i < all.size(); ++i) out += all[i] + "\n";
  return out;
}

std::string self_path() {
  std::error_code ec;
  std::string p = fs::read_symlink("/proc/self/exe", ec).string();
  // rebuilt while it runs: the new binary is at the same path
  if (const std::string gone = " (deleted)"; p.size() > gone.size() && p.ends_with(gone)) p.resize(p.size() - gone.size());
  return ec ? std::string("eevdf-check") : p;
}

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  return !a.empty() && !b.empty() && fs::equivalent(a, b, ec);
}

// The version a tree says it is (extract.py --print-version), or "" and `error`.
std::string tree_version(const std::string& source, const std::string& tree, const fs::path& log, std::string& error) {
  const int rc = shell(fmt::format("python3 {} --print-version --src {} >{} 2>&1",
                                   quote(source + "/kernelsrc/extract.py"), quote(tree), quote(log.string())));
  std::string out = slurp(log).value_or("");
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  if (rc != 0 || out.empty()) {
    error = fmt::format("not a kernel tree the extractor can read: {}", out.empty() ? "no output" : out);
    return "";
  }
  return out;
}

json run_tree(const SentinelArgs& a, const std::string& tree_arg, const std::string& source, std::size_t index,
              std::size_t count) {
  const std::string tree = fs::absolute(tree_arg).lexically_normal().string();
  json result{{"tree", tree_arg}};
  const auto fail = [&](const std::string& error) {
    result["error"] = error;
    progress(fmt::format("[{}/{}] {}: {}", index, count, tree_arg, error));
    return result;
  };
  // a key for this tree's directories: its version and a hash of its path
  const std::string hash = fmt::format("{:08x}", std::hash<std::string>{}(tree) & 0xffffffffu);
  std::error_code ec;
  fs::create_directories(a.out, ec);
  const fs::path scratch = fs::path(a.out) / ("version-" + hash + ".log");
  std::string error;
  // the tree this build was made from: it is the tool's own, its version known
  bool own_tree = false;
#ifdef EEVDF_CONFIGURED_KERNEL_SRC
  own_tree = kernelsrc::available() && same_file(tree, EEVDF_CONFIGURED_KERNEL_SRC);
#endif
  const std::string version = own_tree ? kernelsrc::kernel_version() : tree_version(source, tree, scratch, error);
  fs::remove(scratch, ec);
  if (version.empty()) return fail(error);
  result["version"] = version;
  const std::string key = version + "-" + hash;
  const fs::path tree_out = fs::absolute(fs::path(a.out) / "trees" / key);
  fs::create_directories(tree_out, ec);
  const auto start = Clock::now();
  std::string binary;
  json build{{"name", "build"}, {"result", "ok"}};
  if (own_tree) {
    binary = self_path();
    build["summary"] = "this build";
  } else {
    const fs::path dir = fs::absolute(fs::path(a.builds) / key);
    fs::create_directories(dir, ec);
    const fs::path log = dir / "sentinel-build.log";
    const bool reused = fs::exists(dir / "CMakeCache.txt");
    progress(fmt::format("[{}/{}] {}: Linux {}: {} the kernel-backend build in {} (log: {})", index, count, tree_arg,
                         version, reused ? "updating" : "configuring and building", dir.string(), log.string()));
    std::string command = fmt::format("cmake -S {} -B {} -G Ninja -DEEVDF_KERNEL_SRC={} -DEEVDF_BENCH=OFF >{} 2>&1",
                                      quote(source), quote(dir.string()), quote(tree), quote(log.string()));
    // (CMAKE_BUILD_PARALLEL_LEVEL in the environment sets its jobs)
    command += fmt::format(" && cmake --build {} --target eevdf-check >>{} 2>&1", quote(dir.string()),
                           quote(log.string()));
    if (shell(command) != 0)
      return fail(fmt::format("cannot build the kernel backend on {} (Linux {}); the end of {}:\n{}", tree_arg,
                              version, log.string(), tail(log, 15)));
    // a tree the extractor could not take builds the tool without the backend: that is a failure here
    binary = (dir / "cli" / "eevdf-check").string();
    build["summary"] = reused ? "reused" : "built";
  }
  build["seconds"] = since_start(start);
  const fs::path json_file = tree_out / "tree.json";
  fs::remove(json_file, ec);
  const int rc = shell(fmt::format("{} sentinel --this-tree --time {} --seed {} --source {} --out {}", quote(binary),
                                   a.time_s, a.seed, quote(source), quote(tree_out.string())));
  const auto text = slurp(json_file);
  if (rc != 0 || !text)
    return fail(fmt::format("the checks on {} did not complete (exit {} of {} sentinel --this-tree)", tree_arg, rc,
                            binary));
  json stages = json::parse(*text);
  if (stages.value("version", "") != version)
    return fail(fmt::format("{}: the build in {} has no kernel backend for Linux {} (its tree was not taken: see "
                            "its sentinel-build.log)",
                            tree_arg, binary, version));
  result.update(stages);
  result["tree"] = tree_arg;
  result["build"] = binary;
  result["stages"].insert(result["stages"].begin(), build);
  return result;
}

// Label each tree by its version, numbered where two share one.
void label_trees(json& report) {
  std::map<std::string, int> seen, total;
  for (const json& t : report["trees"]) ++total[t.value("version", t.value("tree", ""))];
  for (json& t : report["trees"]) {
    const std::string v = t.value("version", t.value("tree", ""));
    const int n = ++seen[v];
    t["label"] = total[v] > 1 ? fmt::format("{} #{}", v, n) : v;
  }
}

std::optional<json> load_report(const std::string& path, std::string& error) {
  const auto text = slurp(path);
  if (!text) {
    error = path + ": cannot read";
    return std::nullopt;
  }
  try {
    return json::parse(*text);
  } catch (const json::exception& e) {
    error = path + ": not a sentinel report: " + e.what();
    return std::nullopt;
  }
}

int refuse(const std::string& message) {
  std::cerr << "eevdf-check: sentinel: " << message << "\n";
  return 2;
}

}  // namespace

int run_sentinel(const SentinelArgs& a) {
  std::string source = a.source;
#ifdef EEVDF_SOURCE_DIR
  if (source.empty()) source = EEVDF_SOURCE_DIR;
#endif
  if (a.this_tree) {
    if (!kernelsrc::available()) {
      return refuse("--this-tree: this build has no kernel backend");
    }
    std::error_code ec;
    fs::create_directories(a.out, ec);
    const json tree = run_this_tree(a, source);
    std::ofstream(fs::path(a.out) / "tree.json") << tree.dump(1) << "\n";
    return 0;
  }
  json report;
  std::string error;
  if (!a.report.empty()) {
    auto loaded = load_report(a.report, error);
    if (!loaded) return refuse(error);
    report = std::move(*loaded);
  } else {
    if (a.trees.empty()) return refuse("no tree given (directories or linux-source-*.tar.xz)");
    for (const std::string& t : a.trees)
      if (!fs::exists(t)) return refuse(t + ": no such directory or tarball");
    if (!fs::exists(fs::path(source) / "kernelsrc/extract.py"))
      return refuse(source + " is not this tool's source tree (give --source DIR)");
    report = json{{"format", "eevdf-check sentinel 1"}, {"time_per_tree", a.time_s}, {"seed", a.seed},
                  {"trees", json::array()}};
    std::size_t i = 0;
    for (const std::string& t : a.trees) {
      const auto start = Clock::now();
      json tree = run_tree(a, t, source, ++i, a.trees.size());
      tree["seconds"] = since_start(start);
      progress(fmt::format("[{}/{}] {}: done in {:.0f} s", i, a.trees.size(), t, since_start(start)));
      report["trees"].push_back(std::move(tree));
    }
    label_trees(report);
    std::error_code ec;
    fs::create_directories(a.out, ec);
    std::ofstream(fs::path(a.out) / "report.json") << report.dump(1) << "\n";
    std::ofstream(fs::path(a.out) / "report.md") << sentinel::markdown(report);
    progress(fmt::format("report: {}/report.md, {}/report.json", a.out, a.out));
  }
  std::optional<std::vector<sentinel::Change>> changes;
  if (!a.since.empty()) {
    const auto old = load_report(a.since, error);
    if (!old) return refuse(error);
    changes = sentinel::changes(*old, report);
  }
  const auto points = sentinel::test_points(report, changes ? &*changes : nullptr);
  if (!a.junit.empty() && !write_junit_file(a.junit, "eevdf-check sentinel", points, error))
    return refuse(error);
  bool anything_new = false;
  std::string text;
  if (changes) {
    for (const auto& c : *changes) {
      text += (c.is_new ? "new: " : "gone: ") + c.text + "\n";
      anything_new = anything_new || c.is_new;
    }
    if (changes->empty()) text = "nothing changed since " + a.since + "\n";
  } else {
    text = sentinel::markdown(report);
  }
  if (a.tap) {
    write_tap(std::cout, points);
    std::cout << as_tap_comments(text);
  } else {
    std::cout << text;
  }
  if (changes) return anything_new ? 1 : 0;
  return sentinel::has_undocumented(report) ? 1 : 0;
}

}  // namespace eevdf::cli
