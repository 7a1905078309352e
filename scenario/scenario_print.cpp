#include "scenario/scenario_print.hpp"

#include <cstddef>
#include <unordered_map>

#include "scenario/duration.hpp"

namespace eevdf::scn {

namespace {

bool is_expect(OpKind k) { return k == OpKind::expect_curr || k == OpKind::expect_field; }

// Fields measured in (virtual) nanoseconds print as durations when that is
// shorter; counters and flags print as integers.
bool time_field(std::string_view f) {
  return f == "vruntime" || f == "deadline" || f == "vlag" || f == "vprot" || f == "slice" ||
         f == "min_vruntime" || f == "min_slice" || f == "max_slice" || f == "sum_exec_runtime" ||
         f == "exec_start";
}

std::string field_value_text(std::string_view field, s64 v) {
  if (time_field(field) && v != 0 && v % 1000 == 0 && v >= -kMaxDurationNs && v <= kMaxDurationNs)
    return format_duration(v);
  return std::to_string(v);
}

// Index of the first task operation on each line (line 0 excluded).
class LineIndex {
 public:
  explicit LineIndex(const Scenario& s) {
    for (std::size_t i = 0; i < s.ops.size(); ++i)
      if (!is_expect(s.ops[i].kind) && s.ops[i].line != 0) first_.emplace(s.ops[i].line, static_cast<long>(i));
  }
  // The op index for `line`, or -1.
  long operator()(int line) const {
    const auto it = first_.find(line);
    return it == first_.end() ? -1 : it->second;
  }

 private:
  std::unordered_map<int, long> first_;  // emplace keeps the first
};

std::string one_line(std::string_view t) {
  std::string out(t);
  for (char& c : out)
    if (c == '\n') c = ' ';
  return out;
}

}  // namespace

std::string_view policy_keyword(Policy p) {
  switch (p) {
    case Policy::normal: return "normal";
    case Policy::batch: return "batch";
    case Policy::idle: return "idle";
  }
  return "invalid-policy";
}

std::string_view cmp_keyword(CmpOp c) {
  switch (c) {
    case CmpOp::eq: return "==";
    case CmpOp::ne: return "!=";
    case CmpOp::lt: return "<";
    case CmpOp::le: return "<=";
    case CmpOp::gt: return ">";
    case CmpOp::ge: return ">=";
  }
  return "invalid-cmp";
}

std::string print_op(const Op& op) {
  switch (op.kind) {
    case OpKind::create: {
      std::string s = "task " + op.task;
      if (op.value != 0) s += " nice=" + std::to_string(op.value);
      if (op.policy != Policy::normal) s += " policy=" + std::string(policy_keyword(op.policy));
      if (op.slice != 0) s += " slice=" + format_duration(op.slice);
      if (!op.group.empty()) s += " group=" + op.group;
      return s;
    }
    case OpKind::group_create: {
      std::string s = "group " + op.group;
      if (op.value != kDefaultShares) s += " shares=" + std::to_string(op.value);
      if (!op.parent.empty()) s += " parent=" + op.parent;
      return s;
    }
    case OpKind::move: return "move " + op.task + " " + (op.group.empty() ? std::string("root") : op.group);
    case OpKind::shares: return "shares " + op.group + " " + std::to_string(op.value);
    case OpKind::group_idle: return "group_idle " + op.group + " " + std::to_string(op.value);
    case OpKind::fork: return "fork " + op.task + " -> " + op.child + (op.racing ? " racing" : "");
    case OpKind::wake:
      return "wake " + op.task + (op.sync ? " sync" : "") + (op.cpu >= 0 ? " cpu=" + std::to_string(op.cpu) : "");
    case OpKind::migrate: return "migrate " + op.task + " " + std::to_string(op.cpu);
    case OpKind::debug_read: {
      // the root queue is written out when something follows (a group may be called 'racing')
      const std::string rest = (op.cpu >= 0 ? " cpu=" + std::to_string(op.cpu) : "") + (op.racing ? " racing" : "");
      return "debug_read" + (op.group.empty() ? (rest.empty() ? "" : " root") : " " + op.group) + rest;
    }
    case OpKind::sleep: return "sleep " + op.task;
    case OpKind::run: return "run " + format_duration(op.value);
    case OpKind::tick: return "tick";
    case OpKind::schedule: return "schedule";
    case OpKind::yield: return "yield " + op.task;
    case OpKind::nice: return "nice " + op.task + " " + std::to_string(op.value);
    case OpKind::policy: return "policy " + op.task + " " + std::string(policy_keyword(op.policy));
    case OpKind::slice: return "slice " + op.task + " " + format_duration(op.value);
    case OpKind::exit: return "exit " + op.task;
    case OpKind::expect_curr:
      return "expect curr " + op.task + (op.cpu >= 0 ? " cpu=" + std::to_string(op.cpu) : "");
    case OpKind::expect_field:
      return "expect field " + op.task + "." + op.field + " " + std::string(cmp_keyword(op.cmp)) + " " +
             field_value_text(op.field, op.value) + (op.cpu >= 0 ? " cpu=" + std::to_string(op.cpu) : "");
  }
  return "# invalid operation kind " + std::to_string(static_cast<int>(op.kind));
}

std::string print_expectation(const Expectation& e) {
  if (e.kind == Expectation::Kind::no_violation) return "expect no-violation";
  std::string s = "expect violation " + e.invariant;
  if (e.at_line != 0) s += " at " + std::to_string(e.at_line);
  return s;
}

std::string print_scenario(const Scenario& s) {
  std::string out;
  int lines = 0;
  auto emit = [&](const std::string& l) {
    out += l;
    out += '\n';
    ++lines;
  };
  if (!s.title.empty()) emit("# " + one_line(s.title));
  emit("profile " + s.profile + (s.bug.empty() ? "" : " bug=" + s.bug));
  if (!s.features.empty()) emit("features " + s.features);
  if (s.cpus != 8) emit("cpus " + std::to_string(s.cpus));
  if (s.hz != 1000) emit("hz " + std::to_string(s.hz));
  if (s.base_slice) emit("base_slice " + format_duration(*s.base_slice));
  if (s.runqueues != 1) emit("runqueues " + std::to_string(s.runqueues));
  if (!s.skip.empty()) {
    std::string list;
    for (const std::string& id : s.skip) list += (list.empty() ? "" : ",") + id;
    emit("skip " + list);
  }
  if (!s.tolerate) emit("tolerate none");
  if (s.keep_going) emit("keep_going");
  if (s.backend != Backend::model) emit(std::string("backend ") + backend_name(s.backend));
  const int first_op_line = lines + 1;
  for (const Op& op : s.ops) emit(print_op(op));
  const LineIndex index(s);
  for (const Expectation& e : s.expectations) {
    Expectation p = e;
    if (e.kind == Expectation::Kind::violation && e.at_line != 0) {
      const long i = index(e.at_line);
      if (i >= 0) p.at_line = first_op_line + static_cast<int>(i);
    }
    emit(print_expectation(p));
  }
  return out;
}

bool same_op(const Op& a, const Op& b) {
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case OpKind::create:
      return a.task == b.task && a.value == b.value && a.policy == b.policy && a.slice == b.slice &&
             a.group == b.group;
    case OpKind::group_create: return a.group == b.group && a.value == b.value && a.parent == b.parent;
    case OpKind::move: return a.task == b.task && a.group == b.group;
    case OpKind::shares:
    case OpKind::group_idle: return a.group == b.group && a.value == b.value;
    case OpKind::fork: return a.task == b.task && a.child == b.child && a.racing == b.racing;
    case OpKind::wake: return a.task == b.task && a.sync == b.sync && a.cpu == b.cpu;
    case OpKind::migrate:
    case OpKind::expect_curr: return a.task == b.task && a.cpu == b.cpu;
    case OpKind::debug_read: return a.group == b.group && a.cpu == b.cpu && a.racing == b.racing;
    case OpKind::sleep:
    case OpKind::yield:
    case OpKind::exit: return a.task == b.task;
    case OpKind::run: return a.value == b.value;
    case OpKind::tick:
    case OpKind::schedule: return true;
    case OpKind::nice:
    case OpKind::slice: return a.task == b.task && a.value == b.value;
    case OpKind::policy: return a.task == b.task && a.policy == b.policy;
    case OpKind::expect_field:
      return a.task == b.task && a.field == b.field && a.cmp == b.cmp && a.value == b.value && a.cpu == b.cpu;
  }
  return false;
}

bool same_scenario(const Scenario& a, const Scenario& b) {
  if (a.title != b.title || a.profile != b.profile || a.features != b.features || a.bug != b.bug ||
      a.cpus != b.cpus || a.hz != b.hz || a.base_slice != b.base_slice || a.runqueues != b.runqueues ||
      a.skip != b.skip || a.tolerate != b.tolerate || a.keep_going != b.keep_going ||
      a.backend != b.backend)
    return false;
  if (a.ops.size() != b.ops.size() || a.expectations.size() != b.expectations.size()) return false;
  for (std::size_t i = 0; i < a.ops.size(); ++i)
    if (!same_op(a.ops[i], b.ops[i])) return false;
  const LineIndex index_a(a);
  const LineIndex index_b(b);
  for (std::size_t i = 0; i < a.expectations.size(); ++i) {
    const Expectation& x = a.expectations[i];
    const Expectation& y = b.expectations[i];
    if (x.kind != y.kind) return false;
    if (x.kind == Expectation::Kind::no_violation) continue;
    if (x.invariant != y.invariant) return false;
    if ((x.at_line == 0) != (y.at_line == 0)) return false;
    if (x.at_line == 0) continue;
    const long ix = index_a(x.at_line);
    const long iy = index_b(y.at_line);
    if (ix != iy) return false;
    if (ix < 0 && x.at_line != y.at_line) return false;
  }
  return true;
}

}  // namespace eevdf::scn
