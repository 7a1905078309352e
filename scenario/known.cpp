#include "scenario/known.hpp"

#include <fmt/format.h>

#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <stdexcept>

#include <algorithm>

#include "invariants/ids.hpp"
#include "scenario/executor.hpp"
#include "scenario/op_table.hpp"
#include "scenario/run_settings.hpp"
#include "scenario/scenario_parse.hpp"

namespace eevdf::scn {

// The text of corpus/known/PROFILE.known, built in (scenario/CMakeLists.txt
// writes known_data.cpp at configure time); nullopt without a file.
std::optional<std::string_view> built_in_known_text(std::string_view profile);

namespace {

std::vector<std::string_view> split_tabs(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t pos = 0;
  while (true) {
    const std::size_t tab = line.find('\t', pos);
    out.push_back(line.substr(pos, tab == std::string_view::npos ? std::string_view::npos : tab - pos));
    if (tab == std::string_view::npos) return out;
    pos = tab + 1;
  }
}

// The first item of a '|'-separated list ("a|b|c") that f accepts, or nullopt.
template <class F>
std::optional<std::string_view> find_item(std::string_view list, F f) {
  for (;;) {
    const std::size_t bar = list.find('|');
    const std::string_view item = list.substr(0, bar);
    if (f(item)) return item;
    if (bar == std::string_view::npos) return std::nullopt;
    list.remove_prefix(bar + 1);
  }
}

}  // namespace

std::optional<KnownSet> KnownSet::parse(std::string_view text, const std::string& file, std::string& error) {
  KnownSet set;
  std::size_t pos = 0;
  for (int line_no = 1; pos < text.size(); ++line_no) {
    const std::size_t end = text.find('\n', pos);
    std::string_view line = text.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos);
    pos = end == std::string_view::npos ? text.size() : end + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || line.front() == '#') continue;
    const auto fields = split_tabs(line);
    const auto fail = [&](const std::string& why) {
      error = fmt::format("{}:{}: error: {}", file, line_no, why);
      return std::nullopt;
    };
    if (fields.size() != 6)
      return fail(fmt::format("expected 6 tab-separated fields (name, invariant, triggers, site, scenario, detail "
                              "class), found {}",
                              fields.size()));
    const auto id = fields[1] == "*" ? std::optional<inv::Id>(inv::Id::WARN) : inv::id_from_name(fields[1]);
    if (!id) return fail(fmt::format("unknown invariant '{}'", fields[1]));
    if (fields[0].empty() || fields[3].empty()) return fail("empty name or site");
    if (fields[1] == "*" && (fields[3] != "*" || fields[5] != "*" || fields[2].find(" after ") == std::string_view::npos))
      return fail("an entry for any invariant ('*') takes any site and detail class ('*') and needs a condition "
                  "(' after ...')");
    KnownFinding f;
    f.line = line_no;
    f.name = std::string(fields[0]);
    f.identity.id = *id;
    f.any_invariant = fields[1] == "*";
    f.identity.where = std::string(fields[3]);
    f.scenario = std::string(fields[4]);
    f.identity.detail = std::string(fields[5]);
    // TRIGGERS [after KEYWORD [racing]]
    std::string_view triggers = fields[2];
    if (const std::size_t after = triggers.find(" after "); after != std::string_view::npos) {
      std::string_view cond = triggers.substr(after + 7);
      triggers = triggers.substr(0, after);
      if (cond.size() > 7 && cond.substr(cond.size() - 7) == " racing") {
        f.after_racing = true;
        cond.remove_suffix(7);
      }
      if (cond.empty() || cond.find(' ') != std::string_view::npos)
        return fail(fmt::format("'after {}': not an operation or a finding's name", cond));
      f.after = std::string(cond);
      // a finding's name stands alone; a racing operation, or several, are operations
      const bool operations = f.after_racing || cond.find('|') != std::string_view::npos;
      if (const auto bad = find_item(cond, [&](std::string_view a) {
            return a.empty() || (operations && !op_spec_by_keyword(a));
          }))
        return fail(fmt::format("'after {}': '{}' is not an operation{}", cond, *bad,
                                operations ? "" : " or a finding's name"));
    }
    if (triggers != "*") {
      if (const auto bad = find_item(triggers, [&](std::string_view t) {
            if (t != "-" && !op_spec_by_keyword(t)) return true;
            f.triggers.push_back(t == "-" ? std::string() : std::string(t));
            return false;
          }))
        return fail(fmt::format("trigger '{}': not an operation", *bad));
      f.identity.trigger = f.triggers.front();
    }
    set.add(std::move(f));
  }
  return set;
}

std::optional<KnownSet> KnownSet::load(const std::string& path, std::string& error) {
  std::ifstream in(path);
  if (!in) {
    error = path + ": error: cannot read the file";
    return std::nullopt;
  }
  std::stringstream text;
  text << in.rdbuf();
  return parse(text.str(), path, error);
}

bool KnownFinding::matches(const FindingIdentity& f, const Scenario& s, int op_index,
                           const std::vector<std::string>& before) const {
  if (!any_invariant && (f.id != identity.id || f.where != identity.where ||
                         (identity.detail != "*" && f.detail != identity.detail)))
    return false;
  if (!triggers.empty() && std::find(triggers.begin(), triggers.end(), f.trigger) == triggers.end()) return false;
  if (after.empty()) return true;
  if (!op_spec_by_keyword(std::string_view(after).substr(0, after.find('|'))))
    return std::find(before.begin(), before.end(), after) != before.end();
  for (int i = 0; i < op_index && static_cast<std::size_t>(i) < s.ops.size(); ++i) {
    const Op& op = s.ops[static_cast<std::size_t>(i)];
    if (after_names(op_spec(op.kind).keyword) && (!after_racing || op.racing)) return true;
  }
  return false;
}

bool KnownFinding::after_names(std::string_view word) const {
  return find_item(after, [&](std::string_view a) { return a == word; }).has_value();
}

std::string KnownFinding::triggers_text() const {
  std::string out;
  for (const std::string& t : triggers) out += (out.empty() ? "" : "|") + (t.empty() ? std::string("-") : t);
  if (triggers.empty()) out = "*";
  if (!after.empty()) out += " after " + after + (after_racing ? " racing" : "");
  return out;
}

KnownFinding KnownSet::exactly(std::string name, const FindingIdentity& f, std::string scenario) {
  KnownFinding k;
  k.name = std::move(name);
  k.identity = f;
  k.triggers = {f.trigger};
  k.scenario = std::move(scenario);
  return k;
}

std::string KnownSet::print(const std::string& header) const {
  std::string out;
  std::size_t pos = 0;
  while (pos < header.size()) {  // every line of the header as a comment
    const std::size_t end = header.find('\n', pos);
    out += "# " + header.substr(pos, end == std::string::npos ? std::string::npos : end - pos) + "\n";
    pos = end == std::string::npos ? header.size() : end + 1;
  }
  for (const KnownFinding& f : entries_)
    out += fmt::format("{}\t{}\t{}\t{}\t{}\t{}\n", f.name, f.any_invariant ? "*" : inv::id_name(f.identity.id),
                       f.triggers_text(),
                       f.identity.where, f.scenario, f.identity.detail);
  return out;
}

const KnownFinding* KnownSet::find(const FindingIdentity& f, const Scenario& s, int op_index,
                                   const std::vector<std::string>& before) const {
  for (const KnownFinding& k : entries_)
    if (k.matches(f, s, op_index, before)) return &k;
  return nullptr;
}

void KnownSet::add(KnownFinding f) {
  for (const KnownFinding& k : entries_)
    if (k.name == f.name && k.identity == f.identity && k.triggers == f.triggers && k.after == f.after &&
        k.after_racing == f.after_racing)
      return;
  entries_.push_back(std::move(f));
}

void KnownSet::merge(const KnownSet& other) {
  for (const KnownFinding& f : other.entries_) add(f);
}

std::vector<std::string> replay_known(KnownSet& set, const std::string& profile, const std::string& root,
                                      Backend backend, bool update) {
  std::vector<std::string> problems;
  for (KnownFinding& k : set.entries_) {
    const auto problem = [&](const std::string& what) {
      problems.push_back(fmt::format("{} ({} in {}): {}", k.name, inv::id_name(k.identity.id), k.scenario, what));
    };
    std::ifstream in(root + "/" + k.scenario);
    if (!in) {
      problem("cannot read the scenario");
      continue;
    }
    std::stringstream text;
    text << in.rdbuf();
    ParseResult parsed = parse_scenario(text.str(), k.scenario);
    if (const auto* e = std::get_if<ParseError>(&parsed)) {
      problem(format_parse_error(*e));
      continue;
    }
    Scenario& sc = std::get<Scenario>(parsed);
    if (sc.profile_line > 0 && sc.profile != profile) {
      problem("the scenario's profile is " + sc.profile + ", not " + profile);
      continue;
    }
    ExecOptions options;
    if (std::string err = apply_run_settings(sc, {}, options); !err.empty()) {
      problem(err);
      continue;
    }
    options.backend = backend;
    options.keep_going = true;  // every violation it raises
    options.known = &set;       // labelled, so that an entry "after NAME" sees NAME
    ProfileOverride o;
    o.profile = profile;
    std::string error;
    const auto p = build_profile(sc, o, error);
    if (!p) {
      problem(error);
      continue;
    }
    const ExecResult r = execute(sc, *p, options);
    if (!r.error.empty()) {
      problem(r.error);
      continue;
    }
    // the violation of the entry's invariant at its triggers, after its condition (whatever its site and
    // detail class: those are what is checked, or updated)
    const inv::Violation* seen = nullptr;
    FindingIdentity seen_identity;
    int seen_score = -1;
    for (const inv::Violation& v : r.violations) {
      // the known findings the run raised up to v's operation, that one's others included
      // (as the executor labels an operation's violations, scenario/executor.cpp)
      std::vector<std::string> before;
      for (const inv::Violation& u : r.violations)
        if (&u != &v && u.op_index <= v.op_index && !u.known.empty()) before.push_back(u.known);
      const FindingIdentity f = finding_identity(v, sc);
      KnownFinding any_site = k;
      any_site.identity.where = f.where;
      any_site.identity.detail = f.detail;
      // the closest to what the entry says: the same site and detail class, else the same site, else the first
      const int score = (f.where == k.identity.where ? 2 : 0) + (f.detail == k.identity.detail ? 1 : 0);
      if ((k.any_invariant || v.id == k.identity.id) && any_site.matches(f, sc, v.op_index, before) &&
          (!seen || score > seen_score)) {
        seen = &v;
        seen_identity = f;
        seen_score = score;
      }
    }
    if (!seen) {
      problem(fmt::format("raises no {} at {}", k.any_invariant ? "violation" : inv::id_name(k.identity.id),
                          k.triggers_text()));
      continue;
    }
    if (k.any_invariant) continue;  // a violation after the condition is all it asks
    const bool any_detail = k.identity.detail == "*";
    if (update) {
      k.identity.where = seen_identity.where;
      if (!any_detail) k.identity.detail = seen_identity.detail;
    } else if (seen_identity.where != k.identity.where || (!any_detail && seen_identity.detail != k.identity.detail)) {
      problem(fmt::format("raises it in '{}' as '{}', the file says '{}' as '{}'", seen_identity.where,
                          seen_identity.detail, k.identity.where, k.identity.detail));
    }
  }
  return problems;
}

KnownSet KnownSet::without(const std::vector<std::string>& names) const {
  KnownSet out;
  for (const KnownFinding& k : entries_)
    if (std::find(names.begin(), names.end(), k.name) == names.end()) out.entries_.push_back(k);
  return out;
}

bool has_known_file(std::string_view profile) { return built_in_known_text(profile).has_value(); }

const KnownSet& known_findings(std::string_view profile) {
  // parsed once a profile (the campaign's workers ask from several threads)
  static std::mutex mutex;
  static std::map<std::string, KnownSet, std::less<>> parsed;
  std::lock_guard lock(mutex);
  if (const auto it = parsed.find(profile); it != parsed.end()) return it->second;
  KnownSet set;
  if (const auto text = built_in_known_text(profile)) {
    std::string error;
    auto p = KnownSet::parse(*text, "corpus/known/" + std::string(profile) + ".known", error);
    // the files are checked when the tool is built (tests/known_findings_test.cpp): a bad one is a defect
    if (!p) throw std::logic_error(error);
    set = std::move(*p);
  }
  return parsed.emplace(std::string(profile), std::move(set)).first->second;
}

}  // namespace eevdf::scn
