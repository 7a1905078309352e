// Operations, read as their row of the operation table (scenario/op_table.hpp)
// describes them, and the names and values of their arguments.
#include <array>
#include <string>
#include <tuple>

#include "scenario/duration.hpp"
#include "scenario/parser.hpp"

namespace eevdf::scn::parse_detail {

namespace {

constexpr std::string_view kGroupNameRule =
    "a group name: a letter or '_', then letters, digits or '_', at most 32 characters, not 'root'";

std::optional<Policy> policy_from(std::string_view s) {
  if (s == "normal") return Policy::normal;
  if (s == "batch") return Policy::batch;
  if (s == "idle") return Policy::idle;
  if (s == "fifo") return Policy::fifo;  // SCHED_FIFO: only `task NAME policy=fifo`
  return std::nullopt;
}

std::string nothing_or(std::string_view v) { return v.empty() ? std::string("nothing") : q(v); }

// What is expected of a missing argument ...
std::string arg_expected(Arg a) {
  switch (a) {
    case Arg::task: return "a task name";
    case Arg::duration: return "a duration";
    case Arg::nice: return "a nice level between -20 and 19";
    case Arg::policy: return "a policy (normal, batch or idle)";
    case Arg::any_policy: return "a policy (normal, batch, idle or fifo)";
    case Arg::slice:
    case Arg::task_slice: return "a slice (0, or 0.1ms to 100ms)";
    case Arg::cpu:
    case Arg::from_cpu: return "a CPU";
    case Arg::group: return "a group name";
    case Arg::group_or_root:
    case Arg::parent: return "a group name (or root)";
    case Arg::shares:
      return "cpu.shares between " + std::to_string(kMinGroupShares) + " and " + std::to_string(kMaxGroupShares);
    case Arg::idle: return "0 or 1";
    case Arg::base_slice: return "a base slice between 0.1ms and 100ms";
    case Arg::new_task:
    case Arg::child: return "a new task name";
    case Arg::new_group: return "a new group name";
    case Arg::bandwidth: return "cpu.max: QUOTA/PERIOD (e.g. 20ms/100ms) or max";
    case Arg::burst: return "a burst (a whole number of microseconds)";
    case Arg::none:
    case Arg::sync:
    case Arg::racing:
    case Arg::nopreempt: break;
  }
  return "an argument";
}

// ... and how the message of the word after it names it.
std::string arg_noun(const ArgSpec& arg) {
  if (!arg.noun.empty()) return std::string(arg.noun);
  switch (arg.kind) {
    case Arg::task:
    case Arg::new_task: return "the task name";
    case Arg::child: return "the child's name";
    case Arg::duration: return "the duration";
    case Arg::nice: return "the nice level";
    case Arg::policy:
    case Arg::any_policy: return "the policy";
    case Arg::slice:
    case Arg::task_slice: return "the slice";
    case Arg::cpu:
    case Arg::from_cpu: return "the CPU";
    case Arg::group:
    case Arg::group_or_root:
    case Arg::new_group:
    case Arg::parent: return "the group name";
    case Arg::shares: return "the shares";
    case Arg::idle: return "the idle value";
    case Arg::base_slice: return "the base slice";
    case Arg::bandwidth: return "the quota";
    case Arg::burst: return "the burst";
    case Arg::none:
    case Arg::sync:
    case Arg::racing:
    case Arg::nopreempt: break;
  }
  return "the argument";
}

// Whether token t is word w: the flag itself, or KEY=... for an option.
bool is_word(const WordSpec& w, std::string_view t) {
  if (is_flag(w.kind)) return t == w.key;
  return t.size() > w.key.size() && t.substr(0, w.key.size()) == w.key && t[w.key.size()] == '=';
}

bool is_word_of(const OpSpec& spec, std::string_view t) {
  for (std::size_t w = 0; w < spec.nwords(); ++w)
    if (is_word(spec.words[w], t)) return true;
  return false;
}

// 'racing', 'cpu=N'
std::string word_usage(const WordSpec& w) {
  return "'" + std::string(w.key) + (is_flag(w.kind) ? "" : "=" + std::string(w.value)) + "'";
}

}  // namespace

// ---- task names ----
bool Parser::task_ref(std::string_view t, int c, std::string& out, bool allow_idle) {
  if (allow_idle && t == "idle") {
    out = "idle";
    return true;
  }
  if (!valid_task_name(t)) {
    if (t == "idle")
      return fail(c, "expected the name of a task, found 'idle' (the idle task can only be named in "
                     "'expect curr idle')");
    return fail(c, "expected " + std::string(kTaskNameRule) + ", found " + q(t));
  }
  if (!tasks_.count(std::string(t)))
    return fail(c, "expected the name of a task created earlier with 'task' or 'fork', found " + q(t) +
                       ", which does not exist");
  out = std::string(t);
  return true;
}

bool Parser::task_ref(std::size_t i, std::string& out, std::string_view after, bool allow_idle) {
  return need(i, "a task name after " + std::string(after)) && task_ref(tok(i), col(i), out, allow_idle);
}

bool Parser::new_task(std::string_view t, int c, std::string& out) {
  if (t == "idle") return fail(c, "expected a new task name, found 'idle' (reserved for the idle task)");
  if (!valid_task_name(t)) return fail(c, "expected " + std::string(kTaskNameRule) + ", found " + q(t));
  const auto it = tasks_.find(std::string(t));
  if (it != tasks_.end())
    return fail(c, "expected a new task name, found " + q(t) + ", which already exists (created on line " +
                       std::to_string(it->second) + ")");
  if (tasks_.size() >= kMaxScenarioTasks)
    return fail(c, "expected at most " + std::to_string(kMaxScenarioTasks) + " tasks, found task number " +
                       std::to_string(tasks_.size() + 1) + " " + q(t));
  tasks_.emplace(std::string(t), line_);
  out = std::string(t);
  return true;
}

// ---- group names ----
// An existing group, or 'root' (-> empty) when allow_root.
bool Parser::group_ref(std::string_view t, int c, std::string& out, std::string_view after, bool allow_root) {
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

// A new group's name; the group exists once its line is read (parent= cannot name it).
bool Parser::new_group(std::string_view t, int c, std::string& out) {
  if (t == "root") return fail(c, "expected a new group name, found 'root' (reserved for the root group)");
  if (!valid_task_name(t)) return fail(c, "expected " + std::string(kGroupNameRule) + ", found " + q(t));
  if (const auto it = groups_.find(std::string(t)); it != groups_.end())
    return fail(c, "expected a new group name, found " + q(t) + ", which already exists (created on line " +
                       std::to_string(it->second) + ")");
  // a removed group keeps its slot (model/rq.hpp kMaxGroups): every `group` line counts
  if (groups_created_ >= kMaxScenarioGroups)
    return fail(c, "expected at most " + std::to_string(kMaxScenarioGroups) + " groups, found group number " +
                       std::to_string(groups_created_ + 1) + " " + q(t) +
                       (destroyed_.empty() ? "" : " (removed groups count too)"));
  out = std::string(t);
  return true;
}

// ---- values ----
// cpu=N with N below the runqueue count.
bool Parser::cpu_value(std::string_view v, int c, int& out, std::string_view after) {
  const auto n = parse_uint(v, 64);
  if (!n || *n >= sc_.runqueues)
    return fail(c, "expected a CPU between 0 and " + std::to_string(sc_.runqueues - 1) + " after " +
                       std::string(after) + " (runqueues " + std::to_string(sc_.runqueues) + "), found " +
                       nothing_or(v));
  out = static_cast<int>(*n);
  return true;
}

bool Parser::shares_value(std::string_view v, int c, s64& out, std::string_view after) {
  const auto n = parse_uint(v, u64{1} << 40);
  if (!n || *n < kMinGroupShares || *n > kMaxGroupShares)
    return fail(c, "expected cpu.shares between " + std::to_string(kMinGroupShares) + " and " +
                       std::to_string(kMaxGroupShares) + " after " + std::string(after) + ", found " + nothing_or(v));
  out = static_cast<s64>(*n);
  return true;
}

bool Parser::nice_value(std::string_view v, int c, s64& out, std::string_view after) {
  const auto n = parse_int(v);
  if (!n || *n < kMinNice || *n > kMaxNice)
    return fail(c, "expected a nice level between -20 and 19 after " + std::string(after) + ", found " +
                       nothing_or(v));
  out = *n;
  return true;
}

bool Parser::policy_value(std::string_view v, int c, Policy& out, std::string_view after, bool fifo_allowed) {
  const auto p = policy_from(v);
  if (!p)
    return fail(c, std::string(fifo_allowed ? "expected a policy (normal, batch, idle or fifo)"
                                            : "expected a policy (normal, batch or idle)") +
                       " after " + std::string(after) + ", found " + nothing_or(v));
  if (*p == Policy::fifo && !fifo_allowed)
    return fail(c, "expected a fair policy (normal, batch or idle) after " + std::string(after) +
                       ", found 'fifo': a task does not change class here (switching to or from SCHED_FIFO is "
                       "not modelled); create an RT task with 'task NAME policy=fifo'");
  out = *p;
  return true;
}

bool Parser::slice_value(std::string_view v, int c, s64& out, std::string_view after) {
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

bool Parser::duration_value(std::string_view v, int c, s64& out) {
  std::string why;
  const auto d = parse_duration(v, &why);
  if (!d) return fail(c, why);
  out = *d;
  return true;
}

// A duration in whole microseconds (cpu.max and cpu.max.burst are written in us).
bool Parser::us_duration(std::string_view v, int c, s64& out, std::string_view after) {
  s64 d = 0;
  if (!duration_value(v, c, d)) return false;
  if (d % 1000 != 0)
    return fail(c, "expected a whole number of microseconds after " + std::string(after) +
                       " (cpu.max is written in us), found " + q(v));
  out = d;
  return true;
}

// cpu.max: QUOTA/PERIOD, or max (the group's period kept).
bool Parser::bandwidth_value(std::string_view v, int c, Op& op, std::string_view after) {
  if (v == "max") {
    op.value = -1;
    op.period = 0;
    return true;
  }
  const auto slash = v.find('/');
  if (slash == std::string_view::npos)
    return fail(c, "expected QUOTA/PERIOD (e.g. 20ms/100ms) or max after " + std::string(after) + ", found " +
                       nothing_or(v));
  return us_duration(v.substr(0, slash), c, op.value, after) &&
         us_duration(v.substr(slash + 1), c + static_cast<int>(slash) + 1, op.period, after);
}

bool Parser::value(Arg a, std::string_view t, int c, Op& op, const std::string& after) {
  switch (a) {
    case Arg::task: return task_ref(t, c, op.task);
    case Arg::new_task: return new_task(t, c, op.task);
    case Arg::child: return new_task(t, c, op.child);
    case Arg::duration: return duration_value(t, c, op.value);
    case Arg::nice: return nice_value(t, c, op.value, after);
    case Arg::policy: return policy_value(t, c, op.policy, after, false);
    case Arg::any_policy: return policy_value(t, c, op.policy, after, true);
    case Arg::slice: return slice_value(t, c, op.value, after);
    case Arg::task_slice: return slice_value(t, c, op.slice, after);
    case Arg::cpu: return cpu_value(t, c, op.cpu, after);
    case Arg::from_cpu: return cpu_value(t, c, op.from, after);
    case Arg::group: return group_ref(t, c, op.group, after, false);
    case Arg::group_or_root: return group_ref(t, c, op.group, after, true);
    case Arg::parent: return group_ref(t, c, op.parent, after, true);
    case Arg::new_group: return new_group(t, c, op.group);
    case Arg::shares: return shares_value(t, c, op.value, after);
    case Arg::idle:
      if (t != "0" && t != "1") return fail(c, "expected 0 or 1 (cpu.idle) after " + after + ", found " + q(t));
      op.value = t == "1" ? 1 : 0;
      return true;
    case Arg::base_slice: {  // the range of the `base_slice` directive
      s64 d = 0;
      if (!duration_value(t, c, d)) return false;
      if (d < kMinSliceNs || d > kMaxSliceNs)
        return fail(c, "expected a base slice between 0.1ms and 100ms after " + after + ", found " + q(t));
      op.value = d;
      return true;
    }
    case Arg::bandwidth: return bandwidth_value(t, c, op, after);
    case Arg::burst: return us_duration(t, c, op.burst, after);
    case Arg::sync: op.sync = true; return true;
    case Arg::racing: op.racing = true; return true;
    case Arg::nopreempt: op.nopreempt = true; return true;
    case Arg::none: break;
  }
  return false;
}

// ---- operations ----
void Parser::push(Op op) {
  op.line = line_;
  sc_.ops.push_back(std::move(op));
}

// Rows that share a keyword are told apart by their words: a row with a
// suffix when the suffix follows its arguments (`run DUR notick`); a row
// without arguments when nothing or one of its words follows (`tick`,
// `tick nopreempt`), the other row otherwise (`tick DUR`).
const OpSpec& Parser::op_variant(const OpSpec& first) const {
  for (const OpSpec& s : kOpTable) {
    if (&s == &first || s.keyword != first.keyword) continue;
    if (!s.suffix.empty() ? tok(s.nargs() + 1) == s.suffix
                          : first.nargs() == 0 && has(1) && !is_word_of(first, tok(1)))
      return s;
  }
  return first;
}

// An optional argument is left out when nothing follows or the word is one
// of the row's words, unless it names a group (a group may be called 'racing').
bool Parser::optional_left_out(const OpSpec& spec, const ArgSpec& arg, std::size_t i) const {
  if (!arg.optional) return false;
  if (!has(i)) return true;
  const bool a_group = arg.kind == Arg::group_or_root && groups_.count(std::string(tok(i)));
  return is_word_of(spec, tok(i)) && !a_group;
}

// The words in the row's order, each optional; an alternative (or_previous)
// only if the word before it was not written.
bool Parser::ordered_words(const OpSpec& spec, std::size_t i, std::string after, Op& op) {
  const std::size_t n = spec.nwords();
  std::size_t next = 0;  // the first word that may still come
  for (; has(i); ++i) {
    std::size_t w = next;
    while (w < n && !is_word(spec.words[w], tok(i))) ++w;
    if (w == n) break;
    const WordSpec& word = spec.words[w];
    const std::string_view v = is_flag(word.kind) ? std::string_view{} : tok(i).substr(word.key.size() + 1);
    if (!value(word.kind, v, col(i) + static_cast<int>(word.key.size()) + 1, op, "'" + std::string(word.key) + "='"))
      return false;
    after = word_usage(word) + std::string(word.note);
    for (next = w + 1; next < n && spec.words[next].or_previous;) ++next;
  }
  if (!has(i)) return true;
  std::string expected;
  for (std::size_t w = next; w < n; ++w) expected += word_usage(spec.words[w]) + ", ";
  if (!expected.empty()) expected.replace(expected.size() - 2, 2, " or ");
  return fail(col(i), "expected " + expected + "end of line after " + after + ", " + found(i));
}

// key=value options in any order, each at most once.
bool Parser::any_order_words(const OpSpec& spec, std::size_t i, Op& op) {
  const std::size_t n = spec.nwords();
  std::array<bool, std::tuple_size_v<decltype(spec.words)>> seen{};
  for (; i < toks_.size(); ++i) {
    const std::string_view t = tok(i);
    const std::size_t eq = t.find('=');
    const std::string_view key = t.substr(0, eq);
    const std::string_view val = eq == std::string_view::npos ? std::string_view{} : t.substr(eq + 1);
    std::size_t w = eq == std::string_view::npos ? n : 0;
    while (w < n && spec.words[w].key != key) ++w;
    if (w == n) return fail(col(i), "expected " + std::string(spec.any_order) + ", " + found(i));
    if (seen[w]) {
      std::string keys;
      for (std::size_t k = 0; k < n; ++k)
        keys += (k == 0 ? "" : k + 1 == n ? " and " : ", ") + std::string(spec.words[k].key) + "=";
      return fail(col(i), "expected each of " + keys + " at most once, found a second '" + std::string(key) + "='");
    }
    seen[w] = true;
    if (!value(spec.words[w].kind, val, col(i) + static_cast<int>(key.size()) + 1, op, "'" + std::string(key) + "='"))
      return false;
  }
  return true;
}

// An RT task (SCHED_FIFO, one priority) has no nice level, slice or task group of its own here.
bool Parser::fifo_alone(const Op& op) {
  if (op.kind != OpKind::create || op.policy != Policy::fifo) return true;
  for (std::string_view key : {"nice=", "slice=", "group="})
    for (std::size_t i = 2; i < toks_.size(); ++i)
      if (tok(i).substr(0, key.size()) == key)
        return fail(col(i), "expected no '" + std::string(key) +
                                "' for a SCHED_FIFO task (policy=fifo): an RT task has no nice level, custom slice or "
                                "task group here");
  return true;
}

// KEYWORD ARG... [SUFFIX] WORD... as the row says (scenario/op_table.hpp).
bool Parser::read_operation(const OpSpec& spec, Op& op) {
  op.kind = spec.kind;
  for (std::size_t w = 0; w < spec.nwords(); ++w) set_unwritten(spec.words[w].kind, op);
  std::string after = "'" + std::string(spec.keyword) + "'";
  std::size_t i = 1;
  for (std::size_t a = 0; a < spec.nargs(); ++a) {
    const ArgSpec& arg = spec.args[a];
    if (optional_left_out(spec, arg, i)) continue;
    if (!arg.before.empty()) {  // the hint is the literal's
      if (tok(i) != arg.before)
        return fail(col(i), "expected '" + std::string(arg.before) + "' after " + after + std::string(arg.hint) +
                                ", " + found(i));
      after = "'" + std::string(arg.before) + "'";
      ++i;
      if (!need(i, arg_expected(arg.kind) + " after " + after)) return false;
    } else if (!need(i, arg_expected(arg.kind) + " after " + after + std::string(arg.hint))) {
      return false;
    }
    if (!value(arg.kind, tok(i), col(i), op, after)) return false;
    after = arg_noun(arg);
    ++i;
  }
  if (!spec.suffix.empty()) {  // op_variant() chose the row by it
    after = "'" + std::string(spec.suffix) + "'";
    ++i;
  }
  return (spec.any_order.empty() ? ordered_words(spec, i, after, op) : any_order_words(spec, i, op)) &&
         fifo_alone(op);
}

void Parser::operation(const OpSpec& spec) {
  Op op;
  if (!read_operation(spec, op)) return;
  if (op.kind == OpKind::group_create) {
    groups_.emplace(op.group, line_);
    destroyed_.erase(op.group);  // a removed name may be created again: a new group (cgroup rmdir, then mkdir)
    ++groups_created_;
  }
  if (op.kind == OpKind::group_destroy) {  // the name is gone from here on (until created again)
    groups_.erase(op.group);
    destroyed_[op.group] = line_;
  }
  push(std::move(op));
}

}  // namespace eevdf::scn::parse_detail
