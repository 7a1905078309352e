#include "scenario/scenario_parse.hpp"

#include <algorithm>
#include <climits>

#include "scenario/duration.hpp"
#include "scenario/parser.hpp"
#include "invariants/ids.hpp"
#include "model/profile.hpp"
#include "model/system.hpp"

namespace eevdf::scn {

namespace parse_detail {

namespace {

constexpr std::string_view kDirectives =
    "profile, features, bug, cpus, hz, base_slice, runqueues, smt, skip, tolerate, keep_going, backend";

bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }

std::string profile_list() {
  std::string s;
  for (std::string_view n : profile_names()) {
    if (!s.empty()) s += ", ";
    s += n;
  }
  return s;
}

std::string invariant_list() {
  std::string s;
  for (std::size_t i = 0; i < inv::kIdCount; ++i) {
    if (!s.empty()) s += ", ";
    s += inv::id_name(static_cast<inv::Id>(i));
  }
  return s;
}

}  // namespace
// Digits only, no sign; nullopt when empty, not all digits, or above `max`.
std::optional<u64> parse_uint(std::string_view s, u64 max) {
  if (s.empty() || s.size() > 64) return std::nullopt;
  u64 v = 0;
  for (char c : s) {
    if (!is_digit(c)) return std::nullopt;
    const u64 d = static_cast<u64>(c - '0');
    if (v > (max - d) / 10) return std::nullopt;
    v = v * 10 + d;
  }
  return v;
}

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!is_digit(c)) return false;
  return true;
}

// [+-]digits within s64.
std::optional<s64> parse_int(std::string_view s) {
  bool neg = false;
  if (!s.empty() && (s.front() == '-' || s.front() == '+')) {
    neg = s.front() == '-';
    s.remove_prefix(1);
  }
  const u64 max = neg ? (u64{1} << 63) : (u64{1} << 63) - 1;
  const auto v = parse_uint(s, max);
  if (!v) return std::nullopt;
  return neg ? static_cast<s64>(u64{0} - *v) : static_cast<s64>(*v);
}

std::string q(std::string_view s) { return quote_input(s); }

ParseResult Parser::run() {
  if (text_.size() > kMaxScenarioBytes) {
    fail_at(1, 1, "expected a scenario of at most " + std::to_string(kMaxScenarioBytes >> 20) +
                      " MiB, found " + std::to_string(text_.size()) + " bytes");
    return *err_;
  }
  std::string_view rest = text_;
  if (rest.substr(0, 3) == "\xEF\xBB\xBF") rest.remove_prefix(3);  // UTF-8 byte order mark
  for (;;) {
    const std::size_t nl = rest.find('\n');
    ++line_;
    line(rest.substr(0, nl));
    if (err_) return *err_;
    if (nl == std::string_view::npos) break;
    rest.remove_prefix(nl + 1);
  }
  check_at_refs();
  if (err_) return *err_;
  check_runqueues_profile();
  if (err_) return *err_;
  check_smt_runqueues();
  if (err_) return *err_;
  return std::move(sc_);
}

bool Parser::fail_at(int line, int col, std::string msg) {
  if (!err_) err_ = ParseError{std::string(file_), line, col, std::move(msg)};
  return false;
}

// ---- lines ----
void Parser::line(std::string_view text) {
  if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
  const std::size_t hash = text.find('#');
  const std::string_view code = text.substr(0, hash);
  toks_.clear();
  eol_col_ = 1;
  std::size_t i = 0;
  while (i < code.size()) {
    while (i < code.size() && (code[i] == ' ' || code[i] == '\t')) ++i;
    if (i >= code.size()) break;
    const std::size_t start = i;
    while (i < code.size() && code[i] != ' ' && code[i] != '\t') ++i;
    toks_.push_back(Token{code.substr(start, i - start), static_cast<int>(start) + 1});
    eol_col_ = static_cast<int>(i) + 1;
  }
  if (toks_.empty()) {
    if (hash != std::string_view::npos && title_possible_) {
      std::string_view t = text.substr(hash + 1);
      if (!t.empty() && t.front() == ' ') t.remove_prefix(1);
      while (!t.empty() && (t.back() == ' ' || t.back() == '\t' || t.back() == '\r')) t.remove_suffix(1);
      sc_.title = std::string(t);
      title_possible_ = false;
    }
    return;
  }
  title_possible_ = false;
  item();
}

void Parser::item() {
  const std::string_view kw = toks_[0].text;
  if (kw == "profile") return directive_profile();
  if (kw == "features") return directive_features();
  if (kw == "bug" || kw.substr(0, 4) == "bug=") return directive_bug();
  if (kw == "cpus")
    return count_directive("cpus", sc_.cpus, kMaxCpus, "a CPU count between 1 and " + std::to_string(kMaxCpus),
                           "the CPU count");
  if (kw == "hz") return directive_hz();
  if (kw == "base_slice") return directive_base_slice();
  // several CPUs (model/system.hpp)
  if (kw == "runqueues")
    return count_directive("runqueues", sc_.runqueues, kMaxRunqueues,
                           "a runqueue count between 1 and " + std::to_string(kMaxRunqueues), "the runqueue count");
  // SMT siblings (model/wake_cpu.hpp): `smt N`, CPUs kN .. kN+N-1 share a core
  if (kw == "smt")
    return count_directive("smt", sc_.smt, kMaxRunqueues,
                           "the siblings of a core, between 1 and " + std::to_string(kMaxRunqueues), "the sibling count");
  if (kw == "skip") return directive_skip();
  if (kw == "tolerate") return directive_tolerate();
  if (kw == "keep_going") return directive_keep_going();
  if (kw == "backend") return directive_backend();
  if (kw == "expect") {
    begin_op(false);
    return expect();
  }
  if (const OpSpec* spec = op_spec_by_keyword(kw)) {
    begin_op(true);
    return operation(op_variant(*spec));
  }
  if (first_op_line_ == 0)
    fail(col(0), "expected a directive (" + std::string(kDirectives) + "), an operation (" +
                     std::string(operation_keywords()) + ") or 'expect', " + found(0));
  else
    fail(col(0), "expected an operation (" + std::string(operation_keywords()) + ") or 'expect', " + found(0));
}

void Parser::begin_op(bool task_op) {
  if (first_op_line_ == 0) first_op_line_ = line_;
  if (task_op) op_lines_.insert(line_);
}

// ---- directives ----
bool Parser::directive_ok(std::string_view name, int c) {
  if (first_op_line_ != 0)
    return fail(c, "expected an operation or 'expect', found the directive '" + std::string(name) +
                       "' (directives must come before the first operation, which is on line " +
                       std::to_string(first_op_line_) + ")");
  return true;
}
bool Parser::note_directive(std::string_view name, int c) {
  const auto it = directives_.find(name);
  if (it != directives_.end())
    return fail(c, "expected each directive at most once, found a second '" + std::string(name) +
                       "' (the first is on line " + std::to_string(it->second) + ")");
  directives_.emplace(std::string(name), line_);
  return true;
}

void Parser::directive_profile() {
  if (!directive_ok("profile", col(0)) || !note_directive("profile", col(0))) return;
  if (!has(1) || !profile_by_name(tok(1))) {
    fail(col(1), "expected a profile name (" + profile_list() + "), " + found(1));
    return;
  }
  sc_.profile = std::string(tok(1));
  sc_.profile_line = line_;
  if (has(2)) {
    if (tok(2).substr(0, 4) != "bug=") {
      fail(col(2), "expected 'bug=ID' or end of line after the profile name, " + found(2));
      return;
    }
    if (!note_directive("bug", col(2)) || !bug_id(tok(2).substr(4), col(2) + 4)) return;
    expect_end(3, "'bug=ID'");
  }
}

bool Parser::bug_id(std::string_view id, int c) {
  if (!valid_bug_id(id))
    return fail(c, "expected a bug id (1 to 64 letters, digits, '_', '-' or '.', e.g. B01), found " +
                       (id.empty() ? std::string("nothing") : q(id)));
  sc_.bug = std::string(id);
  return true;
}

void Parser::directive_bug() {
  if (!directive_ok("bug", col(0)) || !note_directive("bug", col(0))) return;
  if (tok(0) == "bug") {
    if (!need(1, "a bug id after 'bug' (e.g. B01)")) return;
    if (!bug_id(tok(1), col(1))) return;
    expect_end(2, "the bug id");
  } else {
    if (!bug_id(tok(0).substr(4), col(0) + 4)) return;
    expect_end(1, "'bug=ID'");
  }
}

// Token 1 as a comma-separated list in one word (features, skip): `each`
// takes every entry, with its column, and says whether it is accepted. `list`
// names the list in the messages, `entries` and `entries_are` its entries.
template <class Each>
bool Parser::comma_list(std::string_view list, std::string_view entries, std::string_view entries_are, Each each) {
  const std::string_view text = tok(1);
  for (std::size_t pos = 0;;) {
    std::size_t end = text.find(',', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view item = text.substr(pos, end - pos);
    if (item.empty() && end == text.size() && pos > 0 && has(2))
      return fail(col(2), "expected the " + std::string(list) + " as one word (" + std::string(entries) +
                              " separated by commas, without spaces), found " + q(tok(2)) + " after a space");
    if (!each(item, col(1) + static_cast<int>(pos))) return false;
    if (end == text.size()) break;
    pos = end + 1;
  }
  return !has(2) || fail(col(2), "expected end of line after the " + std::string(list) + " (" +
                                     std::string(entries_are) + " are separated by commas, without spaces), " +
                                     found(2));
}

void Parser::directive_features() {
  if (!directive_ok("features", col(0)) || !note_directive("features", col(0))) return;
  if (!need(1, "a comma-separated list of scheduler features (e.g. NO_NEXT_BUDDY,PARANOID_AVG)")) return;
  sc_.features = std::string(tok(1));
  comma_list("feature list", "names", "features", [&](std::string_view item, int c) {
    if (item.empty())
      return fail(c, "expected a scheduler feature name (e.g. NEXT_BUDDY or NO_NEXT_BUDDY) in the feature list, "
                     "found an empty name");
    // v7.3's debugfs knob sched/cgroup_mode, written as an item of the list
    if (item.substr(0, 12) == "cgroup_mode=") {
      if (!cgroup_mode_from_name(item.substr(12)))
        return fail(c + 12, "expected a cgroup_mode (up, smp, concur, max, tasks), found " + q(item.substr(12)));
      const auto profile = profile_by_name(sc_.profile);
      if (!profile || !profile->behaviour.flat_runqueue)
        return fail(c, "expected 'profile v7.3' before 'features' for cgroup_mode: it exists only on the single "
                       "runqueue of v7.3, not on " + q(sc_.profile));
      return true;
    }
    FeatureSet scratch;
    if (apply_features(scratch, item).empty()) return true;
    std::string names;
    for (std::size_t f = 0; f < kFeatureCount; ++f) {
      if (!names.empty()) names += ", ";
      names += feature_name(static_cast<Feature>(f));
    }
    return fail(c, "expected a scheduler feature, optionally prefixed with NO_ (" + names + "), found " + q(item));
  });
}

// `NAME N`, N from 1 to max (cpus, runqueues, smt); `expected` says what N is,
// `noun` names it in "expected end of line after ...".
void Parser::count_directive(std::string_view name, unsigned& out, unsigned max, const std::string& expected,
                             std::string_view noun) {
  if (!directive_ok(name, col(0)) || !note_directive(name, col(0))) return;
  const auto v = parse_uint(tok(1), std::max(max, 1000u));
  if (!has(1) || !v || *v < 1 || *v > max) {
    fail(col(1), "expected " + expected + ", " + found(1));
    return;
  }
  out = static_cast<unsigned>(*v);
  expect_end(2, noun);
}

// smt N pairs the modelled CPUs: N must divide the runqueue count.
void Parser::check_smt_runqueues() {
  const std::string why = smt_refusal(sc_.runqueues, sc_.smt);
  if (why.empty()) return;
  const auto it = directives_.find("smt");
  fail_at(it == directives_.end() ? 1 : it->second, 1, "expected SMT siblings that fit the runqueues: " + why);
}
// runqueues > 1 only where the migration path was checked (model/system.cpp).
void Parser::check_runqueues_profile() {
  const std::string why = runqueues_refusal(sc_.profile, sc_.runqueues);
  if (why.empty()) return;
  const auto it = directives_.find("runqueues");
  fail_at(it == directives_.end() ? 1 : it->second, 1, "expected a profile that models several CPUs: " + why);
}
void Parser::directive_hz() {
  if (!directive_ok("hz", col(0)) || !note_directive("hz", col(0))) return;
  const auto v = parse_uint(tok(1), 100000);
  bool ok = false;
  for (unsigned hz : kAllowedHz)
    if (v && *v == hz) ok = true;
  if (!ok) {
    fail(col(1), "expected HZ of 100, 250, 300 or 1000, " + found(1));
    return;
  }
  sc_.hz = static_cast<unsigned>(*v);
  expect_end(2, "HZ");
}

void Parser::directive_base_slice() {
  if (!directive_ok("base_slice", col(0)) || !note_directive("base_slice", col(0))) return;
  if (!need(1, "a base slice between 0.1ms and 100ms (e.g. 700us)")) return;
  std::string why;
  const auto d = parse_duration(tok(1), &why);
  if (!d) {
    fail(col(1), why);
    return;
  }
  if (*d < kMinSliceNs || *d > kMaxSliceNs) {
    fail(col(1), "expected a base slice between 0.1ms and 100ms, " + found(1));
    return;
  }
  sc_.base_slice = *d;
  expect_end(2, "the base slice");
}

// ---- run settings: what the checker checks and tolerates ----
// skip I-AUG,I-KEY: the --skip list, ids of `eevdf-check explain --list`.
void Parser::directive_skip() {
  if (!directive_ok("skip", col(0)) || !note_directive("skip", col(0))) return;
  if (!need(1, "a comma-separated list of invariants not to check (e.g. I-AUG,I-KEY)")) return;
  comma_list("invariant list", "ids", "ids", [&](std::string_view item, int c) {
    if (item.empty()) return fail(c, "expected an invariant id (e.g. I-AUG) in the skip list, found an empty name");
    if (!valid_invariant_id(item) || !inv::id_from_name(item))  // the I- form only, as `expect violation` writes it
      return fail(c, "expected an invariant id (" + invariant_list() + ") in the skip list, found " + q(item));
    for (const std::string& seen : sc_.skip)
      if (seen == item)
        return fail(c, "expected each invariant at most once in the skip list, found a second " + q(item));
    sc_.skip.emplace_back(item);
    return true;
  });
}

// tolerate none: report the documented findings the checker tolerates by
// default (inv::Tolerances: F1, F6, F7 and F9 are one switch), as --no-tolerance.
void Parser::directive_tolerate() {
  if (!directive_ok("tolerate", col(0)) || !note_directive("tolerate", col(0))) return;
  if (!has(1) || tok(1) != "none") {
    fail(col(1), "expected 'none' after 'tolerate' (the checker tolerates the documented findings F1, F6, F7 and F9 "
                 "together by default; 'tolerate none' reports them, as --no-tolerance does), " + found(1));
    return;
  }
  sc_.tolerate = false;
  expect_end(2, "'tolerate none'");
}

// keep_going: the operations and expectations after the first violation run too, as --keep-going.
void Parser::directive_keep_going() {
  if (!directive_ok("keep_going", col(0)) || !note_directive("keep_going", col(0))) return;
  sc_.keep_going = true;
  expect_end(1, "'keep_going'");
}

// backend model|kernel|lockstep: what the scenario runs on, as --backend. The
// language is the same in every build: a build without the kernel backend
// refuses the scenario when it runs it (apply_run_settings), not here.
void Parser::directive_backend() {
  if (!directive_ok("backend", col(0)) || !note_directive("backend", col(0))) return;
  const auto b = has(1) ? backend_from_name(std::string(tok(1))) : std::nullopt;
  if (!b) {
    fail(col(1), "expected a backend (model, kernel, lockstep) after 'backend', " + found(1));
    return;
  }
  sc_.backend = *b;
  sc_.backend_line = line_;
  expect_end(2, "the backend");
}

void Parser::check_at_refs() {
  for (const AtRef& r : at_refs_) {
    if (!op_lines_.count(r.target)) {
      fail_at(r.line, r.col,
              "expected the line number of an operation after 'at', found " + std::to_string(r.target) +
                  (r.target > line_ ? " (the file has " + std::to_string(line_) + " lines)"
                                    : " (line " + std::to_string(r.target) + " holds no operation)"));
      return;
    }
  }
}

}  // namespace parse_detail

using parse_detail::is_alpha;
using parse_detail::is_digit;
using parse_detail::is_upper;

bool valid_task_name(std::string_view name) {
  if (name.empty() || name.size() > kMaxTaskNameLen || name == "idle") return false;
  if (!is_alpha(name.front()) && name.front() != '_') return false;
  for (char c : name)
    if (!is_alpha(c) && !is_digit(c) && c != '_') return false;
  return true;
}

bool valid_invariant_id(std::string_view id) {
  if (id.size() < 3 || id.size() > 32 || id.substr(0, 2) != "I-") return false;
  for (char c : id.substr(2))
    if (!is_upper(c) && !is_digit(c)) return false;
  return true;
}

bool valid_bug_id(std::string_view id) {
  if (id.empty() || id.size() > 64) return false;
  for (char c : id)
    if (!is_alpha(c) && !is_digit(c) && c != '_' && c != '-' && c != '.') return false;
  return true;
}

ParseResult parse_scenario(std::string_view text, std::string_view file_name) {
  return parse_detail::Parser(text, file_name).run();
}

std::string format_parse_error(const ParseError& e) {
  return e.file + ":" + std::to_string(e.line) + ":" + std::to_string(e.column) + ": error: " + e.message;
}

}  // namespace eevdf::scn