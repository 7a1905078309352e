#include "scenario/scenario_parse.hpp"

#include <climits>
#include <map>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "scenario/duration.hpp"
#include "scenario/expect_fields.hpp"
#include "scenario/op_table.hpp"
#include "invariants/ids.hpp"
#include "model/profile.hpp"
#include "model/system.hpp"

namespace eevdf::scn {

namespace {

constexpr std::string_view kDirectives =
    "profile, features, bug, cpus, hz, base_slice, runqueues, smt, skip, tolerate, keep_going, backend";
constexpr std::string_view kGroupNameRule =
    "a group name: a letter or '_', then letters, digits or '_', at most 32 characters, not 'root'";
constexpr std::string_view kTaskNameRule =
    "a task name: a letter or '_', then letters, digits or '_', at most 32 characters";

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }

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

std::optional<Policy> policy_from(std::string_view s) {
  if (s == "normal") return Policy::normal;
  if (s == "batch") return Policy::batch;
  if (s == "idle") return Policy::idle;
  if (s == "fifo") return Policy::fifo;  // SCHED_FIFO: only `task NAME policy=fifo`
  return std::nullopt;
}

std::optional<CmpOp> cmp_from(std::string_view s) {
  if (s == "==") return CmpOp::eq;
  if (s == "!=") return CmpOp::ne;
  if (s == "<") return CmpOp::lt;
  if (s == "<=") return CmpOp::le;
  if (s == ">") return CmpOp::gt;
  if (s == ">=") return CmpOp::ge;
  return std::nullopt;
}

std::string q(std::string_view s) { return quote_input(s); }

struct Token {
  std::string_view text;
  int col = 0;
};

class Parser {
 public:
  Parser(std::string_view text, std::string_view file) : text_(text), file_(file) {}

  ParseResult run() {
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

 private:
  std::string_view text_;
  std::string_view file_;
  Scenario sc_;
  std::optional<ParseError> err_;
  int line_ = 0;
  std::vector<Token> toks_;
  int eol_col_ = 1;
  bool title_possible_ = true;
  int first_op_line_ = 0;
  std::unordered_map<std::string, int> tasks_;       // name -> line of creation
  std::unordered_map<std::string, int> groups_;      // group name -> line of creation (live groups only)
  std::unordered_map<std::string, int> destroyed_;   // group name -> line of its group_destroy (while gone)
  std::size_t groups_created_ = 0;                   // every `group` line: destroyed groups keep their slot
  std::map<std::string, int, std::less<>> directives_;  // directive -> line
  std::unordered_set<int> op_lines_;                 // lines holding a task operation
  int no_violation_line_ = 0;
  int violation_line_ = 0;
  struct AtRef {
    int target;
    int line;
    int col;
  };
  std::vector<AtRef> at_refs_;

  // ---- errors ----
  bool fail_at(int line, int col, std::string msg) {
    if (!err_) err_ = ParseError{std::string(file_), line, col, std::move(msg)};
    return false;
  }
  bool fail(int col, std::string msg) { return fail_at(line_, col, std::move(msg)); }
  int col(std::size_t i) const { return i < toks_.size() ? toks_[i].col : eol_col_; }
  bool has(std::size_t i) const { return i < toks_.size(); }
  std::string_view tok(std::size_t i) const { return i < toks_.size() ? toks_[i].text : std::string_view{}; }
  std::string found(std::size_t i) const { return has(i) ? "found " + q(toks_[i].text) : "found end of line"; }
  // Token i must exist: otherwise "expected WHAT, found end of line".
  bool need(std::size_t i, std::string_view what) {
    return has(i) || fail(col(i), "expected " + std::string(what) + ", found end of line");
  }
  bool expect_end(std::size_t i, std::string_view after) {
    if (!has(i)) return true;
    return fail(col(i), "expected end of line after " + std::string(after) + ", " + found(i));
  }

  // ---- lines ----
  void line(std::string_view text) {
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

  void item() {
    const std::string_view kw = toks_[0].text;
    if (kw == "profile") return directive_profile();
    if (kw == "features") return directive_features();
    if (kw == "bug" || kw.substr(0, 4) == "bug=") return directive_bug();
    if (kw == "cpus") return directive_cpus();
    if (kw == "hz") return directive_hz();
    if (kw == "base_slice") return directive_base_slice();
    if (kw == "runqueues") return directive_runqueues();
    if (kw == "smt") return directive_smt();
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
      // `run DUR notick` and `tick DUR` share their keywords with run and tick
      if (spec->kind == OpKind::run && tok(2) == "notick") spec = &op_spec(OpKind::run_notick);
      if (spec->kind == OpKind::tick && has(1) && tok(1) != "nopreempt") spec = &op_spec(OpKind::tick_after);
      return operation(*spec);
    }
    if (first_op_line_ == 0)
      fail(col(0), "expected a directive (" + std::string(kDirectives) + "), an operation (" +
                       std::string(operation_keywords()) + ") or 'expect', " + found(0));
    else
      fail(col(0), "expected an operation (" + std::string(operation_keywords()) + ") or 'expect', " + found(0));
  }

  void begin_op(bool task_op) {
    if (first_op_line_ == 0) first_op_line_ = line_;
    if (task_op) op_lines_.insert(line_);
  }

  // ---- directives ----
  bool directive_ok(std::string_view name, int c) {
    if (first_op_line_ != 0)
      return fail(c, "expected an operation or 'expect', found the directive '" + std::string(name) +
                         "' (directives must come before the first operation, which is on line " +
                         std::to_string(first_op_line_) + ")");
    return true;
  }
  bool note_directive(std::string_view name, int c) {
    const auto it = directives_.find(name);
    if (it != directives_.end())
      return fail(c, "expected each directive at most once, found a second '" + std::string(name) +
                         "' (the first is on line " + std::to_string(it->second) + ")");
    directives_.emplace(std::string(name), line_);
    return true;
  }

  std::string profile_list() const {
    std::string s;
    for (std::string_view n : profile_names()) {
      if (!s.empty()) s += ", ";
      s += n;
    }
    return s;
  }

  void directive_profile() {
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

  bool bug_id(std::string_view id, int c) {
    if (!valid_bug_id(id))
      return fail(c, "expected a bug id (1 to 64 letters, digits, '_', '-' or '.', e.g. B01), found " +
                         (id.empty() ? std::string("nothing") : q(id)));
    sc_.bug = std::string(id);
    return true;
  }

  void directive_bug() {
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

  void directive_features() {
    if (!directive_ok("features", col(0)) || !note_directive("features", col(0))) return;
    if (!need(1, "a comma-separated list of scheduler features (e.g. NO_NEXT_BUDDY,PARANOID_AVG)")) return;
    const std::string_view list = tok(1);
    std::size_t pos = 0;
    for (;;) {
      std::size_t end = list.find(',', pos);
      if (end == std::string_view::npos) end = list.size();
      const std::string_view item = list.substr(pos, end - pos);
      FeatureSet scratch;
      const int c = col(1) + static_cast<int>(pos);
      if (item.empty() && end == list.size() && pos > 0 && has(2)) {
        fail(col(2), "expected the feature list as one word (names separated by commas, without spaces), found " +
                         q(tok(2)) + " after a space");
        return;
      }
      if (item.empty()) {
        fail(c, "expected a scheduler feature name (e.g. NEXT_BUDDY or NO_NEXT_BUDDY) in the feature list, found an "
                "empty name");
        return;
      }
      // v7.3's debugfs knob sched/cgroup_mode, written as an item of the list
      if (item.substr(0, 12) == "cgroup_mode=") {
        if (!cgroup_mode_from_name(item.substr(12))) {
          fail(c + 12, "expected a cgroup_mode (up, smp, concur, max, tasks), found " + q(item.substr(12)));
          return;
        }
        const auto profile = profile_by_name(sc_.profile);
        if (!profile || !profile->behaviour.flat_runqueue) {
          fail(c, "expected 'profile v7.3' before 'features' for cgroup_mode: it exists only on the single "
                  "runqueue of v7.3, not on " + q(sc_.profile));
          return;
        }
        if (end == list.size()) break;
        pos = end + 1;
        continue;
      }
      const std::string why = apply_features(scratch, item);
      if (!why.empty()) {
        std::string names;
        for (std::size_t f = 0; f < kFeatureCount; ++f) {
          if (!names.empty()) names += ", ";
          names += feature_name(static_cast<Feature>(f));
        }
        fail(c, "expected a scheduler feature, optionally prefixed with NO_ (" + names + "), found " + q(item));
        return;
      }
      if (end == list.size()) break;
      pos = end + 1;
    }
    sc_.features = std::string(list);
    if (has(2))
      fail(col(2), "expected end of line after the feature list (features are separated by commas, without "
                   "spaces), " + found(2));
  }

  void directive_cpus() {
    if (!directive_ok("cpus", col(0)) || !note_directive("cpus", col(0))) return;
    const auto v = parse_uint(tok(1), kMaxCpus);
    if (!has(1) || !v || *v < 1) {
      fail(col(1), "expected a CPU count between 1 and " + std::to_string(kMaxCpus) + ", " + found(1));
      return;
    }
    sc_.cpus = static_cast<unsigned>(*v);
    expect_end(2, "the CPU count");
  }

  // ---- several CPUs (model/system.hpp) ----
  void directive_runqueues() {
    if (!directive_ok("runqueues", col(0)) || !note_directive("runqueues", col(0))) return;
    const auto v = parse_uint(tok(1), 1000);
    if (!has(1) || !v || *v < 1 || *v > kMaxRunqueues) {
      fail(col(1), "expected a runqueue count between 1 and " + std::to_string(kMaxRunqueues) + ", " + found(1));
      return;
    }
    sc_.runqueues = static_cast<unsigned>(*v);
    expect_end(2, "the runqueue count");
  }
  // SMT siblings (model/wake_cpu.hpp): `smt N`, CPUs kN .. kN+N-1 share a core.
  void directive_smt() {
    if (!directive_ok("smt", col(0)) || !note_directive("smt", col(0))) return;
    const auto v = parse_uint(tok(1), 1000);
    if (!has(1) || !v || *v < 1 || *v > kMaxRunqueues) {
      fail(col(1), "expected the siblings of a core, between 1 and " + std::to_string(kMaxRunqueues) + ", " + found(1));
      return;
    }
    sc_.smt = static_cast<unsigned>(*v);
    expect_end(2, "the sibling count");
  }
  // smt N pairs the modelled CPUs: N must divide the runqueue count.
  void check_smt_runqueues() {
    const std::string why = smt_refusal(sc_.runqueues, sc_.smt);
    if (why.empty()) return;
    const auto it = directives_.find("smt");
    fail_at(it == directives_.end() ? 1 : it->second, 1, "expected SMT siblings that fit the runqueues: " + why);
  }
  // runqueues > 1 only where the migration path was checked (model/system.cpp).
  void check_runqueues_profile() {
    const std::string why = runqueues_refusal(sc_.profile, sc_.runqueues);
    if (why.empty()) return;
    const auto it = directives_.find("runqueues");
    fail_at(it == directives_.end() ? 1 : it->second, 1, "expected a profile that models several CPUs: " + why);
  }
  // cpu=N with N below the runqueue count.
  bool cpu_value(std::string_view v, int c, int& out, std::string_view after) {
    const auto n = parse_uint(v, 64);
    if (!n || *n >= sc_.runqueues)
      return fail(c, "expected a CPU between 0 and " + std::to_string(sc_.runqueues - 1) + " after " +
                         std::string(after) + " (runqueues " + std::to_string(sc_.runqueues) + "), found " +
                         (v.empty() ? std::string("nothing") : q(v)));
    out = static_cast<int>(*n);
    return true;
  }

  void directive_hz() {
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

  void directive_base_slice() {
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
  static std::string invariant_list() {
    std::string s;
    for (std::size_t i = 0; i < inv::kIdCount; ++i) {
      if (!s.empty()) s += ", ";
      s += inv::id_name(static_cast<inv::Id>(i));
    }
    return s;
  }

  // skip I-AUG,I-KEY: the --skip list, ids of `eevdf-check explain --list`.
  void directive_skip() {
    if (!directive_ok("skip", col(0)) || !note_directive("skip", col(0))) return;
    if (!need(1, "a comma-separated list of invariants not to check (e.g. I-AUG,I-KEY)")) return;
    const std::string_view list = tok(1);
    std::size_t pos = 0;
    for (;;) {
      std::size_t end = list.find(',', pos);
      if (end == std::string_view::npos) end = list.size();
      const std::string_view item = list.substr(pos, end - pos);
      const int c = col(1) + static_cast<int>(pos);
      if (item.empty() && end == list.size() && pos > 0 && has(2)) {
        fail(col(2), "expected the invariant list as one word (ids separated by commas, without spaces), found " +
                         q(tok(2)) + " after a space");
        return;
      }
      if (item.empty()) {
        fail(c, "expected an invariant id (e.g. I-AUG) in the skip list, found an empty name");
        return;
      }
      const auto id = inv::id_from_name(item);
      if (!valid_invariant_id(item) || !id) {  // the I- form only, as `expect violation` writes it
        fail(c, "expected an invariant id (" + invariant_list() + ") in the skip list, found " + q(item));
        return;
      }
      for (const std::string& seen : sc_.skip)
        if (seen == item) {
          fail(c, "expected each invariant at most once in the skip list, found a second " + q(item));
          return;
        }
      sc_.skip.emplace_back(item);
      if (end == list.size()) break;
      pos = end + 1;
    }
    if (has(2))
      fail(col(2), "expected end of line after the invariant list (ids are separated by commas, without "
                   "spaces), " + found(2));
  }

  // tolerate none: report the documented findings the checker tolerates by
  // default (inv::Tolerances: F1, F6, F7 and F9 are one switch), as --no-tolerance.
  void directive_tolerate() {
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
  void directive_keep_going() {
    if (!directive_ok("keep_going", col(0)) || !note_directive("keep_going", col(0))) return;
    sc_.keep_going = true;
    expect_end(1, "'keep_going'");
  }

  // backend model|kernel|lockstep: what the scenario runs on, as --backend. The
  // language is the same in every build: a build without the kernel backend
  // refuses the scenario when it runs it (apply_run_settings), not here.
  void directive_backend() {
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

  // ---- task names ----
  bool task_ref(std::size_t i, std::string& out, std::string_view after, bool allow_idle = false) {
    if (!has(i))
      return fail(col(i), "expected a task name after " + std::string(after) + ", found end of line");
    const std::string_view t = tok(i);
    if (allow_idle && t == "idle") {
      out = "idle";
      return true;
    }
    if (!valid_task_name(t)) {
      if (t == "idle")
        return fail(col(i), "expected the name of a task, found 'idle' (the idle task can only be named in "
                            "'expect curr idle')");
      return fail(col(i), "expected " + std::string(kTaskNameRule) + ", " + found(i));
    }
    if (!tasks_.count(std::string(t)))
      return fail(col(i), "expected the name of a task created earlier with 'task' or 'fork', found " + q(t) +
                              ", which does not exist");
    out = std::string(t);
    return true;
  }

  bool new_task(std::size_t i, std::string& out, std::string_view after) {
    if (!has(i))
      return fail(col(i), "expected a new task name after " + std::string(after) + ", found end of line");
    const std::string_view t = tok(i);
    if (t == "idle")
      return fail(col(i), "expected a new task name, found 'idle' (reserved for the idle task)");
    if (!valid_task_name(t)) return fail(col(i), "expected " + std::string(kTaskNameRule) + ", " + found(i));
    const auto it = tasks_.find(std::string(t));
    if (it != tasks_.end())
      return fail(col(i), "expected a new task name, found " + q(t) + ", which already exists (created on line " +
                              std::to_string(it->second) + ")");
    if (tasks_.size() >= kMaxScenarioTasks)
      return fail(col(i), "expected at most " + std::to_string(kMaxScenarioTasks) + " tasks, found task number " +
                              std::to_string(tasks_.size() + 1) + " " + q(t));
    tasks_.emplace(std::string(t), line_);
    out = std::string(t);
    return true;
  }

  // ---- group names ----
  // An existing group, or 'root' (-> empty) when allow_root.
  bool group_ref(std::string_view t, int c, std::string& out, std::string_view after, bool allow_root) {
    if (t.empty()) return fail(c, "expected a group name after " + std::string(after) + ", found nothing");
    if (t == "root") {
      if (!allow_root && after == "'group_destroy'")
        return fail(c, "expected a group created earlier with 'group', found 'root' (the root group cannot be "
                       "removed)");
      if (!allow_root)
        return fail(c, "expected a group created earlier with 'group', found 'root' (the root group has no "
                       "shares and cannot be idle)");
      out.clear();
      return true;
    }
    if (!valid_task_name(t)) return fail(c, "expected " + std::string(kGroupNameRule) + ", found " + q(t));
    if (!groups_.count(std::string(t))) {
      if (const auto it = destroyed_.find(std::string(t)); it != destroyed_.end())
        return fail(c, "expected the name of a group created earlier with 'group', found " + q(t) +
                           ", which was removed by 'group_destroy' on line " + std::to_string(it->second));
      return fail(c, "expected the name of a group created earlier with 'group', found " + q(t) +
                         ", which does not exist");
    }
    out = std::string(t);
    return true;
  }

  bool shares_value(std::string_view v, int c, s64& out, std::string_view after) {
    const auto n = parse_uint(v, u64{1} << 40);
    if (!n || *n < kMinGroupShares || *n > kMaxGroupShares)
      return fail(c, "expected cpu.shares between " + std::to_string(kMinGroupShares) + " and " +
                         std::to_string(kMaxGroupShares) + " after " + std::string(after) + ", found " +
                         (v.empty() ? std::string("nothing") : q(v)));
    out = static_cast<s64>(*n);
    return true;
  }

  // group NAME [shares=N] [parent=GROUP]
  bool group_create(Op& op) {
    op.kind = OpKind::group_create;
    op.value = kDefaultShares;
    if (!has(1)) return fail(col(1), "expected a new group name after 'group', found end of line");
    const std::string_view t = tok(1);
    if (t == "root") return fail(col(1), "expected a new group name, found 'root' (reserved for the root group)");
    if (!valid_task_name(t)) return fail(col(1), "expected " + std::string(kGroupNameRule) + ", " + found(1));
    if (const auto it = groups_.find(std::string(t)); it != groups_.end())
      return fail(col(1), "expected a new group name, found " + q(t) + ", which already exists (created on line " +
                              std::to_string(it->second) + ")");
    // a removed group keeps its slot (model/rq.hpp kMaxGroups): every `group` line counts
    if (groups_created_ >= kMaxScenarioGroups)
      return fail(col(1), "expected at most " + std::to_string(kMaxScenarioGroups) + " groups, found group number " +
                              std::to_string(groups_created_ + 1) + " " + q(t) +
                              (destroyed_.empty() ? "" : " (removed groups count too)"));
    op.group = std::string(t);
    bool seen_shares = false, seen_parent = false;
    for (std::size_t i = 2; i < toks_.size(); ++i) {
      const std::string_view a = tok(i);
      const std::size_t eq = a.find('=');
      const std::string_view key = a.substr(0, eq);
      const std::string_view val = eq == std::string_view::npos ? std::string_view{} : a.substr(eq + 1);
      const int vc = col(i) + static_cast<int>(key.size()) + 1;
      bool* seen = eq == std::string_view::npos ? nullptr : key == "shares" ? &seen_shares
                                                           : key == "parent" ? &seen_parent
                                                                             : nullptr;
      if (!seen) return fail(col(i), "expected shares=N or parent=GROUP, " + found(i));
      if (*seen)
        return fail(col(i), "expected each of shares= and parent= at most once, found a second '" +
                                std::string(key) + "='");
      *seen = true;
      if (key == "shares" && !shares_value(val, vc, op.value, "'shares='")) return false;
      if (key == "parent" && !group_ref(val, vc, op.parent, "'parent='", true)) return false;
    }
    groups_.emplace(op.group, line_);
    destroyed_.erase(op.group);  // a removed name may be created again: a new group (cgroup rmdir, then mkdir)
    ++groups_created_;
    return true;
  }

  // ---- values ----
  bool nice_value(std::string_view v, int c, s64& out, std::string_view after) {
    const auto n = parse_int(v);
    if (!n || *n < kMinNice || *n > kMaxNice)
      return fail(c, "expected a nice level between -20 and 19 after " + std::string(after) + ", found " +
                         (v.empty() ? std::string("nothing") : q(v)));
    out = *n;
    return true;
  }

  bool policy_value(std::string_view v, int c, Policy& out, std::string_view after) {
    const auto p = policy_from(v);
    const bool create = after == "'policy='";
    if (!p)
      return fail(c, std::string(create ? "expected a policy (normal, batch, idle or fifo)"
                                        : "expected a policy (normal, batch or idle)") +
                         " after " + std::string(after) + ", found " + (v.empty() ? std::string("nothing") : q(v)));
    if (*p == Policy::fifo && !create)
      return fail(c, "expected a fair policy (normal, batch or idle) after " + std::string(after) +
                         ", found 'fifo': a task does not change class here (switching to or from SCHED_FIFO is "
                         "not modelled); create an RT task with 'task NAME policy=fifo'");
    out = *p;
    return true;
  }

  bool slice_value(std::string_view v, int c, s64& out, std::string_view after) {
    if (v.empty())
      return fail(c, "expected a slice (0, or 0.1ms to 100ms) after " + std::string(after) + ", found nothing");
    std::string why;
    const auto d = parse_duration(v, &why);
    if (!d) return fail(c, why);
    if (*d != 0 && (*d < kMinSliceNs || *d > kMaxSliceNs))
      return fail(c, "expected a slice of 0 (the base slice) or between 0.1ms and 100ms, found " + q(v));
    out = *d;
    return true;
  }

  // ---- operations ----
  void push(Op op) {
    op.line = line_;
    sc_.ops.push_back(std::move(op));
  }

  // ---- positional arguments (the operation table's Arg kinds) ----
  // What is expected of a missing argument, and how the next one refers to it.
  static std::string arg_expected(Arg a) {
    switch (a) {
      case Arg::task: return "a task name";
      case Arg::duration: return "a duration";
      case Arg::nice: return "a nice level between -20 and 19";
      case Arg::policy: return "a policy (normal, batch or idle)";
      case Arg::slice: return "a slice (0, or 0.1ms to 100ms)";
      case Arg::cpu: return "a CPU";
      case Arg::group: return "a group name";
      case Arg::group_or_root: return "a group name (or root)";
      case Arg::shares:
        return "cpu.shares between " + std::to_string(kMinGroupShares) + " and " + std::to_string(kMaxGroupShares);
      case Arg::idle: return "0 or 1";
      case Arg::base_slice: return "a base slice between 0.1ms and 100ms";
    }
    return "an argument";
  }
  static std::string_view arg_noun(Arg a) {
    switch (a) {
      case Arg::task: return "the task name";
      case Arg::duration: return "the duration";
      case Arg::nice: return "the nice level";
      case Arg::policy: return "the policy";
      case Arg::slice: return "the slice";
      case Arg::cpu: return "the CPU";
      case Arg::group:
      case Arg::group_or_root: return "the group name";
      case Arg::shares: return "the shares";
      case Arg::idle: return "the idle value";
      case Arg::base_slice: return "the base slice";
    }
    return "the argument";
  }

  // Token i as argument `arg` of op; `after` names what precedes it.
  bool argument(const ArgSpec& arg, std::size_t i, Op& op, const std::string& after) {
    if (arg.kind == Arg::task) return task_ref(i, op.task, after);
    if (!need(i, arg_expected(arg.kind) + " after " + after + std::string(arg.hint))) return false;
    const std::string_view t = tok(i);
    const int c = col(i);
    switch (arg.kind) {
      case Arg::duration: {
        std::string why;
        const auto d = parse_duration(t, &why);
        if (!d) return fail(c, why);
        op.value = *d;
        return true;
      }
      case Arg::nice: return nice_value(t, c, op.value, after);
      case Arg::policy: return policy_value(t, c, op.policy, after);
      case Arg::slice: return slice_value(t, c, op.value, after);
      case Arg::cpu: return cpu_value(t, c, op.cpu, after);
      case Arg::group: return group_ref(t, c, op.group, after, false);
      case Arg::group_or_root: return group_ref(t, c, op.group, after, true);
      case Arg::shares: return shares_value(t, c, op.value, after);
      case Arg::idle:
        if (t != "0" && t != "1") return fail(c, "expected 0 or 1 (cpu.idle) after " + after + ", " + found(i));
        op.value = t == "1" ? 1 : 0;
        return true;
      case Arg::base_slice: {  // the range of the `base_slice` directive
        std::string why;
        const auto d = parse_duration(t, &why);
        if (!d) return fail(c, why);
        if (*d < kMinSliceNs || *d > kMaxSliceNs)
          return fail(c, "expected a base slice between 0.1ms and 100ms after " + after + ", " + found(i));
        op.value = *d;
        return true;
      }
      case Arg::task: break;
    }
    return false;
  }

  // KEYWORD ARG... as the table's row says, then end of line.
  bool positional(const OpSpec& spec, Op& op) {
    op.kind = spec.kind;
    std::string after = "'" + std::string(spec.keyword) + "'";
    for (std::size_t a = 0; a < spec.nargs; ++a) {
      if (!argument(spec.args[a], a + 1, op, after)) return false;
      after = std::string(arg_noun(spec.args[a].kind));
    }
    return expect_end(spec.nargs + 1, after);
  }

  void operation(const OpSpec& spec) {
    Op op;
    const std::string_view kw = spec.keyword;
    if (!spec.custom_syntax) {
      if (!positional(spec, op)) return;
      if (op.kind == OpKind::group_destroy) {  // the name is gone from here on (until created again)
        groups_.erase(op.group);
        destroyed_[op.group] = line_;
      }
      push(std::move(op));
      return;
    }
    if (kw == "task") {
      op.kind = OpKind::create;
      if (!new_task(1, op.task, "'task'")) return;
      bool seen_nice = false, seen_policy = false, seen_slice = false, seen_group = false;
      for (std::size_t i = 2; i < toks_.size(); ++i) {
        const std::string_view t = tok(i);
        const std::size_t eq = t.find('=');
        const std::string_view key = t.substr(0, eq);
        const std::string_view val = eq == std::string_view::npos ? std::string_view{} : t.substr(eq + 1);
        const int vc = col(i) + static_cast<int>(key.size()) + 1;
        bool* seen = nullptr;
        if (eq != std::string_view::npos) {
          if (key == "nice") seen = &seen_nice;
          if (key == "policy") seen = &seen_policy;
          if (key == "slice") seen = &seen_slice;
          if (key == "group") seen = &seen_group;
        }
        if (!seen) {
          fail(col(i), "expected nice=N, policy=normal|batch|idle or slice=DUR (or group=GROUP), " + found(i));
          return;
        }
        if (*seen) {
          fail(col(i), "expected each of nice=, policy=, slice= and group= at most once, found a second '" +
                           std::string(key) + "='");
          return;
        }
        *seen = true;
        if (key == "nice" && !nice_value(val, vc, op.value, "'nice='")) return;
        if (key == "policy" && !policy_value(val, vc, op.policy, "'policy='")) return;
        if (key == "slice" && !slice_value(val, vc, op.slice, "'slice='")) return;
        if (key == "group" && !group_ref(val, vc, op.group, "'group='", true)) return;
      }
      // an RT task (SCHED_FIFO, one priority) has no nice level, slice or task group of its own here
      if (op.policy == Policy::fifo && (seen_nice || seen_slice || seen_group)) {
        const char* key = seen_nice ? "nice=" : seen_slice ? "slice=" : "group=";
        std::size_t i = 2;
        while (i < toks_.size() && tok(i).substr(0, std::string_view(key).size()) != key) ++i;
        fail(col(i), std::string("expected no '") + key +
                         "' for a SCHED_FIFO task (policy=fifo): an RT task has no nice level, custom slice or "
                         "task group here");
        return;
      }
    } else if (kw == "fork") {
      op.kind = OpKind::fork;
      if (!task_ref(1, op.task, "'fork'")) return;
      if (tok(2) != "->") {
        fail(col(2), "expected '->' after the parent's name (fork PARENT -> CHILD), " + found(2));
        return;
      }
      if (!new_task(3, op.child, "'->'")) return;
      // fork PARENT -> CHILD [racing]
      if (has(4) && tok(4) != "racing") {
        fail(col(4), "expected 'racing' or end of line after the child's name, " + found(4));
        return;
      }
      op.racing = has(4);
      if (!expect_end(5, "'racing'")) return;
    } else if (kw == "wake") {
      op.kind = OpKind::wake;
      if (!task_ref(1, op.task, "'wake'")) return;
      // wake NAME [sync] [cpu=N | from=N], in this order
      std::size_t i = 2;
      if (tok(i) == "sync") {
        op.sync = true;
        ++i;
      }
      if (tok(i).substr(0, 4) == "cpu=") {
        if (!cpu_value(tok(i).substr(4), col(i) + 4, op.cpu, "'cpu='")) return;
        ++i;
      } else if (tok(i).substr(0, 5) == "from=") {
        if (!cpu_value(tok(i).substr(5), col(i) + 5, op.from, "'from='")) return;
        ++i;
      }
      if (has(i)) {
        const bool placed = op.cpu >= 0 || op.from >= 0;
        fail(col(i), std::string(placed    ? "expected end of line after '" + std::string(op.cpu >= 0 ? "cpu" : "from") +
                                                 "=N' (cpu= names the CPU, from= where the wake-up is made: one of them), "
                                 : op.sync ? "expected 'cpu=N', 'from=N' or end of line after 'sync', "
                                           : "expected 'sync', 'cpu=N', 'from=N' or end of line after the task name, ") +
                         found(i));
        return;
      }
    } else if (kw == "debug_read") {
      // debug_read [GROUP|root] [cpu=N] [racing], in this order; without a
      // queue the root queue. A first token that names a group (even one
      // called 'racing') is the queue.
      op.kind = OpKind::debug_read;
      std::size_t i = 1;
      const std::string_view first = tok(1);
      if (has(1) && (groups_.count(std::string(first)) || (first != "racing" && first.substr(0, 4) != "cpu="))) {
        if (!group_ref(first, col(1), op.group, "'debug_read'", true)) return;
        ++i;
      }
      if (tok(i).substr(0, 4) == "cpu=") {
        if (!cpu_value(tok(i).substr(4), col(i) + 4, op.cpu, "'cpu='")) return;
        ++i;
      }
      if (tok(i) == "racing") {
        op.racing = true;
        ++i;
      }
      if (has(i)) {
        fail(col(i), std::string(op.racing     ? "expected end of line after 'racing', "
                                 : op.cpu >= 0 ? "expected 'racing' or end of line after 'cpu=N', "
                                               : "expected 'cpu=N', 'racing' or end of line after the queue, ") +
                         found(i));
        return;
      }
    } else if (kw == "group") {
      if (!group_create(op)) return;
    } else if (spec.kind == OpKind::run_notick) {
      // run DUR notick
      op.kind = OpKind::run_notick;
      if (!argument(ArgSpec{Arg::duration, " (e.g. 3ms)"}, 1, op, "'run'")) return;
      if (!expect_end(3, "'notick'")) return;
    } else if (spec.kind == OpKind::tick) {
      // tick [nopreempt]
      op.kind = OpKind::tick;
      op.nopreempt = tok(1) == "nopreempt";
      if (!expect_end(op.nopreempt ? 2 : 1, op.nopreempt ? "'nopreempt'" : "'tick'")) return;
    } else if (spec.kind == OpKind::tick_after) {
      // tick DUR
      op.kind = OpKind::tick_after;
      if (!argument(ArgSpec{Arg::duration, " (e.g. 3ms)"}, 1, op, "'tick'")) return;
      if (!expect_end(2, "the duration")) return;
    }
    push(std::move(op));
  }

  // ---- expectations ----
  void expect() {
    const std::string_view what = tok(1);
    if (what == "violation") {
      if (no_violation_line_ != 0) {
        fail(col(1), "expected either 'expect violation' or 'expect no-violation', found both "
                     "('expect no-violation' is on line " + std::to_string(no_violation_line_) + ")");
        return;
      }
      Expectation e;
      e.kind = Expectation::Kind::violation;
      e.line = line_;
      if (!has(2) || !valid_invariant_id(tok(2))) {
        fail(col(2), "expected an invariant id (I- followed by uppercase letters or digits, e.g. I-DL), " +
                         found(2));
        return;
      }
      e.invariant = std::string(tok(2));
      for (const std::string& skipped : sc_.skip)
        if (skipped == e.invariant) {
          fail(col(2), "expected an invariant the scenario checks, found " + q(e.invariant) +
                           ", which the 'skip' directive on line " + std::to_string(directives_.find("skip")->second) +
                           " turns off (the violation could never be raised)");
          return;
        }
      if (has(3)) {
        if (tok(3) != "at") {
          fail(col(3), "expected 'at LINE' or end of line after the invariant id, " + found(3));
          return;
        }
        const auto n = parse_uint(tok(4), INT_MAX);
        if (!has(4) || !n || *n < 1) {
          fail(col(4), "expected a line number after 'at', " + found(4));
          return;
        }
        e.at_line = static_cast<int>(*n);
        at_refs_.push_back(AtRef{e.at_line, line_, col(4)});
        if (!expect_end(5, "the line number")) return;
      }
      if (violation_line_ == 0) violation_line_ = line_;
      sc_.expectations.push_back(std::move(e));
    } else if (what == "no-violation") {
      if (violation_line_ != 0) {
        fail(col(1), "expected either 'expect violation' or 'expect no-violation', found both "
                     "('expect violation' is on line " + std::to_string(violation_line_) + ")");
        return;
      }
      if (no_violation_line_ != 0) {
        fail(col(1), "expected 'expect no-violation' at most once, found a second one (the first is on line " +
                         std::to_string(no_violation_line_) + ")");
        return;
      }
      if (!expect_end(2, "'expect no-violation'")) return;
      no_violation_line_ = line_;
      Expectation e;
      e.kind = Expectation::Kind::no_violation;
      e.line = line_;
      sc_.expectations.push_back(std::move(e));
    } else if (what == "curr" || what == "pick") {
      Op op;
      op.kind = OpKind::expect_curr;
      if (!task_ref(2, op.task, "'expect " + std::string(what) + "'", true)) return;
      if (tok(3).substr(0, 4) == "cpu=") {
        if (!cpu_value(tok(3).substr(4), col(3) + 4, op.cpu, "'cpu='")) return;
        if (!expect_end(4, "'cpu=N'")) return;
      } else if (has(3)) {
        fail(col(3), "expected 'cpu=N' or end of line after the task name, " + found(3));
        return;
      }
      push(std::move(op));
    } else if (what == "field") {
      expect_field();
    } else if (what == "queue") {
      expect_queue();
    } else {
      fail(col(1), "expected violation, no-violation, curr, pick, field or queue after 'expect', " + found(1));
    }
  }

  // expect queue root|GROUP.FIELD OP VALUE [cpu=N]: a field of CPU N's (0
  // without cpu=) root queue or of GROUP's queue on it; `next` compares with
  // an entity, a task or group name or `none`.
  void expect_queue() {
    Op op;
    op.kind = OpKind::expect_queue;
    const std::string_view t = tok(2);
    const std::size_t dot = t.find('.');
    if (!has(2) || dot == std::string_view::npos) {
      fail(col(2), "expected QUEUE.FIELD (e.g. root.nr_queued, or GROUP.nr_queued for a group's queue) after "
                   "'expect queue', " + found(2));
      return;
    }
    if (!group_ref(t.substr(0, dot), col(2), op.group, "'expect queue'", true)) return;
    const std::string_view field = t.substr(dot + 1);
    const FieldSpec* spec = field_spec(FieldOwner::queue, field);
    if (!spec) {
      fail(col(2) + static_cast<int>(dot) + 1, "expected a queue field (" + field_names(FieldOwner::queue) +
                                                   "), found " + (field.empty() ? std::string("nothing") : q(field)));
      return;
    }
    op.field = std::string(field);
    if (!comparison(op.cmp)) return;
    if (spec->value == FieldValue::entity) {
      if (op.cmp != CmpOp::eq && op.cmp != CmpOp::ne) {
        fail(col(3), "expected == or != after " + q(t) + " (an entity is the buddy or not), " + found(3));
        return;
      }
      if (!need(4, "a task or group name, or 'none', after the comparison")) return;
      const std::string name(tok(4));
      const bool known = tasks_.count(name) || groups_.count(name);
      if (name == "none" && known) {
        fail(col(4), "expected a task or group name, or 'none' for no buddy, found 'none', which names an entity "
                     "too (rename it)");
        return;
      }
      if (name != "none" && !known) {
        fail(col(4), "expected the name of a task or group created earlier, or 'none', found " + q(name) +
                         ", which does not exist");
        return;
      }
      op.task = name == "none" ? std::string() : name;
    } else if (!number_value(op.value)) {
      return;
    }
    if (!cpu_then_end(true, op.cpu)) return;
    push(std::move(op));
  }

  void expect_field() {
    Op op;
    op.kind = OpKind::expect_field;
    const std::string_view t = tok(2);
    const std::size_t dot = t.find('.');
    if (!has(2) || dot == std::string_view::npos) {
      fail(col(2), "expected NAME.FIELD (e.g. A.vruntime) after 'expect field', " + found(2));
      return;
    }
    const std::string_view name = t.substr(0, dot);
    const std::string_view field = t.substr(dot + 1);
    if (!valid_task_name(name)) {
      fail(col(2), "expected " + std::string(kTaskNameRule) + " before '.', found " +
                       (name.empty() ? std::string("nothing") : q(name)));
      return;
    }
    if (!tasks_.count(std::string(name)) && !groups_.count(std::string(name))) {
      fail(col(2), "expected the name of a task created earlier with 'task' or 'fork' or of a group created with "
                   "'group', found " + q(name) + ", which does not exist");
      return;
    }
    if (!field_spec(FieldOwner::entity, field)) {
      fail(col(2) + static_cast<int>(dot) + 1, "expected a field (" + field_names(FieldOwner::entity) + "), found " +
                                                   (field.empty() ? std::string("nothing") : q(field)));
      return;
    }
    op.task = std::string(name);
    op.field = std::string(field);
    if (!comparison(op.cmp) || !number_value(op.value)) return;
    // a group has an entity on every CPU: cpu=N picks one (CPU 0 without)
    if (!cpu_then_end(groups_.count(op.task) != 0, op.cpu)) return;
    push(std::move(op));
  }

  // The shared tail of `expect queue` and `expect field`: the comparison (token
  // 3) after QUEUE.FIELD or NAME.FIELD (token 2), ...
  bool comparison(CmpOp& out) {
    const auto cmp = cmp_from(tok(3));
    if (!has(3) || !cmp)
      return fail(col(3), "expected a comparison (==, !=, <, <=, >, >=) after " + q(tok(2)) + ", " + found(3));
    out = *cmp;
    return true;
  }
  // ... a number or a duration (token 4) ...
  bool number_value(s64& out) {
    if (!need(4, "a value (an integer such as -5, or a duration such as 3ms) after the comparison")) return false;
    return field_value(tok(4), col(4), out);
  }
  // ... and, where the queue or entity exists on every CPU, `cpu=N` (CPU 0 without).
  bool cpu_then_end(bool cpu_allowed, int& cpu) {
    if (cpu_allowed && tok(5).substr(0, 4) == "cpu=")
      return cpu_value(tok(5).substr(4), col(5) + 4, cpu, "'cpu='") && expect_end(6, "'cpu=N'");
    return expect_end(5, "the value");
  }

  bool field_value(std::string_view v, int c, s64& out) {
    if (const auto n = parse_int(v)) {
      out = *n;
      return true;
    }
    std::string_view body = v;
    bool neg = false;
    if (!body.empty() && (body.front() == '-' || body.front() == '+')) {
      neg = body.front() == '-';
      body.remove_prefix(1);
    }
    if (all_digits(body))
      return fail(c, "expected an integer between -2^63 and 2^63-1, found " + q(v) + " (out of range)");
    if (body.empty() || !is_digit(body.front()))
      return fail(c, "expected a value (an integer such as -5, or a duration such as 3ms), found " + q(v));
    std::string why;
    const auto d = parse_duration(body, &why);
    if (!d) return fail(c, why);
    out = neg ? -*d : *d;
    return true;
  }

  void check_at_refs() {
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
};

}  // namespace

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
  return Parser(text, file_name).run();
}

std::string format_parse_error(const ParseError& e) {
  return e.file + ":" + std::to_string(e.line) + ":" + std::to_string(e.column) + ": error: " + e.message;
}

}  // namespace eevdf::scn
