// The sentinel's report from its JSON (cli/sentinel.hpp): Markdown, the
// changes since an earlier report, the test points of TAP and JUnit. Pure
// functions of the JSON, so that a recorded report can be rendered and
// compared without a kernel tree.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "cli/sentinel.hpp"

namespace eevdf::cli::sentinel {

using nlohmann::json;

namespace {

std::string str(const json& j, const char* key) {
  return j.contains(key) && j.at(key).is_string() ? j.at(key).get<std::string>() : std::string();
}
long num(const json& j, const char* key) {
  return j.contains(key) && j.at(key).is_number() ? j.at(key).get<long>() : 0;
}
const json& trees_of(const json& report) {
  static const json none = json::array();
  return report.contains("trees") ? report.at("trees") : none;
}
const json* stage(const json& tree, const std::string& name) {
  if (!tree.contains("stages")) return nullptr;
  for (const json& s : tree.at("stages"))
    if (str(s, "name") == name) return &s;
  return nullptr;
}

// K1, K2, then F1 .. F11 in numeric order, then the other names alphabetically.
auto finding_order(const std::string& name) {
  int group = 2, number = 0;
  if (name.size() > 1 && (name[0] == 'K' || name[0] == 'F') &&
      std::all_of(name.begin() + 1, name.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    group = name[0] == 'K' ? 0 : 1;
    number = std::stoi(name.substr(1));
  }
  return std::tuple(group, number, name);
}

std::vector<std::string> finding_names(const json& report) {
  std::set<std::string> names;
  for (const json& t : trees_of(report))
    if (t.contains("findings"))
      for (const auto& [name, status] : t.at("findings").items()) names.insert(name);
  std::vector<std::string> sorted(names.begin(), names.end());
  std::sort(sorted.begin(), sorted.end(),
            [](const std::string& a, const std::string& b) { return finding_order(a) < finding_order(b); });
  return sorted;
}

std::string status_of(const json& tree, const std::string& finding) {
  if (!tree.contains("findings") || !tree.at("findings").contains(finding)) return "";
  return tree.at("findings").at(finding).get<std::string>();
}

// "I-DL @ place_entity": an undocumented pair's key.
std::set<std::string> pairs_of(const json& tree) {
  std::set<std::string> out;
  if (tree.contains("undocumented"))
    for (const json& p : tree.at("undocumented")) out.insert(str(p, "invariant") + " @ " + str(p, "site"));
  return out;
}

long divergences_of(const json& tree) {
  const json* s = stage(tree, "lockstep");
  return s ? num(*s, "divergences") : 0;
}

std::string stage_cell(const json& tree, const std::string& name) {
  if (!str(tree, "error").empty()) return name == "build" ? "**cannot build**" : "—";
  const json* s = stage(tree, name);
  if (!s) return "—";
  const std::string result = str(*s, "result");
  if (result == "skipped") return "skipped: " + str(*s, "reason");
  const std::string secs = fmt::format("{:.0f} s", s->value("seconds", 0.0));
  if (name == "build") return str(*s, "summary") + ", " + secs;
  if (name == "lockstep")
    return fmt::format("{}{} divergence(s), {} runs, {}", result == "failed" ? "**" : "", num(*s, "divergences"),
                       num(*s, "runs"), secs) +
           (result == "failed" ? "**" : "");
  if (name == "fuzz") {
    std::string known;
    if (s->contains("known"))
      for (const auto& [k, v] : s->at("known").items())
        known += fmt::format("{}{} ×{}", known.empty() ? "" : ", ", k, v.get<long>());
    const std::size_t pairs = pairs_of(tree).size();
    return fmt::format("{} runs{}, {}, {}{} undocumented pair(s){}", num(*s, "runs"),
                       str(*s, "cpus").empty() ? "" : " on " + str(*s, "cpus") + " CPUs", secs,
                       pairs ? "**" : "", pairs, pairs ? "**" : "") +
           (known.empty() ? "" : "; known: " + known);
  }
  return result + ", " + secs;
}

std::string finding_cell(const json& tree, const std::string& finding) {
  if (!str(tree, "error").empty()) return "—";
  const std::string status = status_of(tree, finding);
  std::size_t total = 0, raised = 0;
  if (tree.contains("scenarios"))
    for (const json& sc : tree.at("scenarios"))
      if (str(sc, "finding") == finding && str(sc, "result") != "not expressible") {
        ++total;
        raised += str(sc, "result") == "present";
      }
  if (status == "present") return fmt::format("**present** ({}/{})", raised, total);
  if (status == "absent") return fmt::format("absent ({})", total);
  if (status == "not expressible") return "n/e";
  return "—";
}

}  // namespace

std::string markdown(const json& report) {
  const json& trees = trees_of(report);
  std::string out = "# eevdf-check sentinel\n\n";
  out += fmt::format("{} tree(s), {} s of fuzzing a tree (half lockstep, half `fuzz --backend kernel`), seed {}.\n\n",
                     trees.size(), num(report, "time_per_tree"), num(report, "seed"));
  std::string header = "| |", rule = "|---|";
  for (const json& t : trees) {
    header += " " + str(t, "label") + " |";
    rule += "---|";
  }
  out += header + "\n" + rule + "\n";
  const auto row = [&](const std::string& name, auto cell) {
    out += "| " + name + " |";
    for (const json& t : trees) out += " " + cell(t) + " |";
    out += "\n";
  };
  row("tree", [](const json& t) { return "`" + str(t, "tree") + "`"; });
  row("judged by", [](const json& t) {
    const std::string j = str(t, "judge");
    return j.empty() ? std::string("—") : j + (t.value("judge_exact", false) ? "" : " (nearest)");
  });
  for (const char* s : {"build", "lockstep", "fuzz"})
    row(s == std::string("fuzz") ? "fuzz --backend kernel" : s, [&](const json& t) { return stage_cell(t, s); });
  for (const std::string& f : finding_names(report))
    row(f, [&](const json& t) { return finding_cell(t, f); });
  out += "\npresent (k/n): k of the finding's n regression scenarios that run on the tree raise its invariant on "
         "the tree's own code; absent (n): none of n does; n/e: no scenario of it can be expressed on the tree.\n";
  for (const json& t : trees) {
    const std::string label = str(t, "label");
    if (!str(t, "error").empty()) out += fmt::format("\n## {}: cannot build\n\n```\n{}\n```\n", label, str(t, "error"));
    if (t.contains("divergences") && !t.at("divergences").empty()) {
      out += fmt::format("\n## {}: lockstep divergences\n\n", label);
      for (const json& d : t.at("divergences"))
        out += fmt::format("- {}: model {}, kernel {} (`{}`)\n", str(d, "field"), str(d, "model"), str(d, "kernel"),
                           str(d, "operation"));
    }
    if (t.contains("undocumented") && !t.at("undocumented").empty()) {
      out += fmt::format("\n## {}: (invariant, site) pairs not matched to a documented finding\n\n", label);
      for (const json& p : t.at("undocumented"))
        out += fmt::format("- {} at {}{}: `eevdf-check run {}`\n", str(p, "invariant"), str(p, "site"),
                           str(p, "trigger").empty() ? "" : " (" + str(p, "trigger") + ")", str(p, "file"));
    }
  }
  return out;
}

std::vector<Change> changes(const json& old, const json& now) {
  std::vector<Change> out;
  const json& before = trees_of(old);
  const json& after = trees_of(now);
  const auto match = [&](const json& t) -> const json* {
    for (const json& o : before)
      if (str(o, "tree") == str(t, "tree")) return &o;
    for (const json& o : before)
      if (str(o, "version") == str(t, "version") && !str(t, "version").empty()) return &o;
    // one tree then and one now: the same tree before and after a patch series
    if (before.size() == 1 && after.size() == 1) return &before.at(0);
    return nullptr;
  };
  for (const json& t : after) {
    const std::string label = str(t, "label");
    const json* o = match(t);
    if (!o) {
      std::string present;
      for (const std::string& f : finding_names(now))
        if (status_of(t, f) == "present") present += (present.empty() ? "" : ", ") + f;
      out.push_back({fmt::format("{}: not in the earlier report (present: {})", label, present.empty() ? "none" : present),
                     true, label, ""});
      continue;
    }
    const std::string err = str(t, "error"), old_err = str(*o, "error");
    if (!err.empty() && old_err.empty()) out.push_back({label + ": cannot be built any more", true, label, ""});
    if (err.empty() && !old_err.empty()) out.push_back({label + ": builds again", false, label, ""});
    std::set<std::string> names;
    for (const json* j : {o, &t})
      if (j->contains("findings"))
        for (const auto& [name, s] : j->at("findings").items()) names.insert(name);
    std::vector<std::string> sorted(names.begin(), names.end());
    std::sort(sorted.begin(), sorted.end(),
              [](const std::string& a, const std::string& b) { return finding_order(a) < finding_order(b); });
    for (const std::string& f : sorted) {
      const std::string was = status_of(*o, f), is = status_of(t, f);
      if (was == is || is.empty()) continue;
      out.push_back({fmt::format("{}: {}: {} -> {}", label, f, was.empty() ? "not checked" : was, is),
                     is == "present", label, f});
    }
    if (divergences_of(t) > 0 && divergences_of(*o) == 0)
      out.push_back({fmt::format("{}: lockstep diverges (it did not)", label), true, label, ""});
    if (divergences_of(t) == 0 && divergences_of(*o) > 0)
      out.push_back({fmt::format("{}: lockstep no longer diverges", label), false, label, ""});
    const auto now_pairs = pairs_of(t), old_pairs = pairs_of(*o);
    for (const std::string& p : now_pairs)
      if (!old_pairs.count(p)) out.push_back({fmt::format("{}: new undocumented pair {}", label, p), true, label, ""});
    for (const std::string& p : old_pairs)
      if (!now_pairs.count(p)) out.push_back({fmt::format("{}: pair {} no longer raised", label, p), false, label, ""});
  }
  for (const json& o : before) {
    const bool kept = std::any_of(after.begin(), after.end(), [&](const json& t) { return match(t) == &o; });
    if (!kept) out.push_back({str(o, "label") + ": no longer checked", false, str(o, "label"), ""});
  }
  return out;
}

bool has_undocumented(const json& report) {
  for (const json& t : trees_of(report)) {
    if (!str(t, "error").empty() || divergences_of(t) > 0 || !pairs_of(t).empty()) return true;
    if (t.contains("stages"))
      for (const json& s : t.at("stages"))
        if (str(s, "result") == "failed") return true;
  }
  return false;
}

std::vector<TestPoint> test_points(const json& report, const std::vector<Change>* since) {
  std::vector<TestPoint> points;
  using Status = TestPoint::Status;
  for (const json& t : trees_of(report)) {
    const std::string label = str(t, "label");
    const bool built = str(t, "error").empty();
    for (const char* name : {"build", "lockstep", "fuzz"}) {
      TestPoint p{Status::ok, label, label + ": " + name, "", "", 0};
      const json* s = stage(t, name);
      if (!built) {
        p.status = name == std::string("build") ? Status::failed : Status::skipped;
        p.reason = name == std::string("build") ? "cannot build the tree" : "the tree was not built";
        if (name == std::string("build")) p.detail = str(t, "error");
      } else if (!s) {
        p.status = Status::skipped;
        p.reason = "not run";
      } else {
        p.seconds = s->value("seconds", 0.0);
        p.detail = stage_cell(t, name);
        if (str(*s, "result") == "skipped") {
          p.status = Status::skipped;
          p.reason = str(*s, "reason");
          p.detail.clear();
        } else if (str(*s, "result") == "failed") {
          p.status = Status::failed;
          p.reason = str(*s, "reason");
        }
      }
      points.push_back(std::move(p));
    }
    if (!built || !t.contains("scenarios")) continue;
    for (const json& sc : t.at("scenarios")) {
      const std::string finding = str(sc, "finding"), result = str(sc, "result");
      TestPoint p{Status::ok, label, fmt::format("{}: {} {}: {}", label, finding, str(sc, "file"), result), "", "", 0};
      if (result == "not expressible") {
        p.status = Status::skipped;
        p.reason = "not expressible on this tree: " + str(sc, "reason");
      }
      if (sc.contains("raised"))
        for (const json& r : sc.at("raised")) p.detail += r.get<std::string>() + "\n";
      if (since)
        for (const Change& c : *since)
          if (c.is_new && c.tree == label && c.finding == finding && result == "present") {
            p.status = Status::failed;
            p.reason = c.text;
          }
      points.push_back(std::move(p));
    }
  }
  if (since) {
    TestPoint p{Status::ok, "since", "changes since the earlier report", "", "", 0};
    for (const Change& c : *since) {
      p.detail += (c.is_new ? "new: " : "gone: ") + c.text + "\n";
      if (c.is_new && p.status == Status::ok) {
        p.status = Status::failed;
        p.reason = c.text;
      }
    }
    points.push_back(std::move(p));
  }
  return points;
}

}  // namespace eevdf::cli::sentinel
