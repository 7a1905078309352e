#include "scenario/scenario_print.hpp"

#include <cstddef>
#include <unordered_map>

#include "scenario/duration.hpp"
#include "scenario/expect_fields.hpp"
#include "scenario/op_table.hpp"

namespace eevdf::scn {

namespace {

// A field's value as written: an entity by name (`none`), a time as a
// duration when that is shorter, the rest as integers (scenario/expect_fields.hpp).
std::string field_value_text(const Op& op, FieldOwner owner) {
  const FieldSpec* spec = field_spec(owner, op.field);
  if (spec && spec->value == FieldValue::entity) return op.task.empty() ? "none" : op.task;
  const s64 v = op.value;
  if (spec && spec->value == FieldValue::time && v != 0 && v % 1000 == 0 && v >= -kMaxDurationNs &&
      v <= kMaxDurationNs)
    return format_duration(v);
  return std::to_string(v);
}

// Index of the first task operation on each line (line 0 excluded).
class LineIndex {
 public:
  explicit LineIndex(const Scenario& s) {
    for (std::size_t i = 0; i < s.ops.size(); ++i)
      if (!is_expectation(s.ops[i].kind) && s.ops[i].line != 0) first_.emplace(s.ops[i].line, static_cast<long>(i));
  }
  // The op index for `line`, or -1.
  long operator()(int line) const {
    const auto it = first_.find(line);
    return it == first_.end() ? -1 : it->second;
  }

 private:
  std::unordered_map<int, long> first_;  // emplace keeps the first
};

// Whether a and b hold the same value of kind `arg`.
bool same_arg(Arg arg, const Op& a, const Op& b) {
  switch (arg) {
    case Arg::none: return true;
    case Arg::task:
    case Arg::new_task: return a.task == b.task;
    case Arg::child: return a.child == b.child;
    case Arg::duration:
    case Arg::nice:
    case Arg::slice:
    case Arg::shares:
    case Arg::idle:
    case Arg::base_slice: return a.value == b.value;
    case Arg::policy:
    case Arg::any_policy: return a.policy == b.policy;
    case Arg::task_slice: return a.slice == b.slice;
    case Arg::cpu: return a.cpu == b.cpu;
    case Arg::from_cpu: return a.from == b.from;
    case Arg::group:
    case Arg::group_or_root:
    case Arg::new_group: return a.group == b.group;
    case Arg::parent: return a.parent == b.parent;
    case Arg::sync: return a.sync == b.sync;
    case Arg::racing: return a.racing == b.racing;
    case Arg::nopreempt: return a.nopreempt == b.nopreempt;
    case Arg::bandwidth: return a.value == b.value && a.period == b.period;
    case Arg::burst: return a.burst == b.burst;
  }
  return false;
}

bool valid_kind(OpKind k) { return static_cast<std::size_t>(k) < kOpTable.size(); }

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
    case Policy::fifo: return "fifo";
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

namespace {
// A value of kind `a` as text (the operation table's Arg kinds).
std::string arg_text(Arg a, const Op& op) {
  switch (a) {
    case Arg::task:
    case Arg::new_task: return op.task;
    case Arg::child: return op.child;
    case Arg::duration:
    case Arg::slice:
    case Arg::base_slice: return format_duration(op.value);
    case Arg::task_slice: return format_duration(op.slice);
    case Arg::nice:
    case Arg::shares:
    case Arg::idle: return std::to_string(op.value);
    case Arg::policy:
    case Arg::any_policy: return std::string(policy_keyword(op.policy));
    case Arg::cpu: return std::to_string(op.cpu);
    case Arg::from_cpu: return std::to_string(op.from);
    case Arg::group:
    case Arg::new_group: return op.group;
    case Arg::group_or_root: return op.group.empty() ? std::string("root") : op.group;
    case Arg::parent: return op.parent.empty() ? std::string("root") : op.parent;
    case Arg::bandwidth: return op.quota_max() ? std::string("max") : format_duration(op.value) + "/" + format_duration(op.period);
    case Arg::burst: return format_duration(op.burst);
    case Arg::none:
    case Arg::sync:
    case Arg::racing:
    case Arg::nopreempt: break;
  }
  return {};
}

// Whether word w of a row is written: it is set, and no alternative before it is.
// `alternative_written` carries the answer for the words before.
bool word_written(const WordSpec& w, const Op& op, bool& alternative_written) {
  if (!w.or_previous) alternative_written = false;
  if (alternative_written || is_unwritten(w.kind, op)) return false;
  alternative_written = true;
  return true;
}

// KEYWORD ARG... [SUFFIX] WORD... as the row says (scenario/op_table.hpp); an
// optional argument left at its default is written when something follows it.
std::string print_row(const OpSpec& spec, const Op& op) {
  std::string words;
  if (!spec.suffix.empty()) words += " " + std::string(spec.suffix);
  bool alternative_written = false;
  for (std::size_t w = 0; w < spec.nwords(); ++w) {
    const WordSpec& word = spec.words[w];
    if (!word_written(word, op, alternative_written)) continue;
    words += " " + std::string(word.key);
    if (!is_flag(word.kind)) words += "=" + arg_text(word.kind, op);
  }
  std::string s(spec.keyword);
  for (std::size_t a = 0; a < spec.nargs(); ++a) {
    const ArgSpec& arg = spec.args[a];
    if (arg.optional && is_unwritten(arg.kind, op) && a + 1 == spec.nargs() && words.empty()) continue;
    if (!arg.before.empty()) s += " " + std::string(arg.before);
    s += " " + arg_text(arg.kind, op);
  }
  return s + words;
}
}  // namespace

std::string print_op(const Op& op) {
  if (valid_kind(op.kind) && !op_spec(op.kind).custom_syntax) return print_row(op_spec(op.kind), op);
  switch (op.kind) {
    case OpKind::expect_curr:
      return "expect curr " + op.task + (op.cpu >= 0 ? " cpu=" + std::to_string(op.cpu) : "");
    case OpKind::expect_field:
      return "expect field " + op.task + "." + op.field + " " + std::string(cmp_keyword(op.cmp)) + " " +
             field_value_text(op, FieldOwner::entity) + (op.cpu >= 0 ? " cpu=" + std::to_string(op.cpu) : "");
    case OpKind::expect_queue:
      return "expect queue " + (op.group.empty() ? std::string("root") : op.group) + "." + op.field + " " +
             std::string(cmp_keyword(op.cmp)) + " " + field_value_text(op, FieldOwner::queue) +
             (op.cpu >= 0 ? " cpu=" + std::to_string(op.cpu) : "");
    default: break;  // the table's: above
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
  if (s.smt != 1) emit("smt " + std::to_string(s.smt));
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
  if (valid_kind(a.kind) && !op_spec(a.kind).custom_syntax) {
    const OpSpec& spec = op_spec(a.kind);
    for (std::size_t i = 0; i < spec.nargs(); ++i)
      if (!same_arg(spec.args[i].kind, a, b)) return false;
    // the words as written: an alternative after a written one is not (wake cpu= | from=)
    bool alternative_written = false;
    for (std::size_t w = 0; w < spec.nwords(); ++w) {
      const WordSpec& word = spec.words[w];
      if (!word.or_previous) alternative_written = false;
      if (alternative_written) continue;
      if (!same_arg(word.kind, a, b)) return false;
      alternative_written = !is_unwritten(word.kind, a);
    }
    return true;
  }
  switch (a.kind) {
    case OpKind::expect_curr: return a.task == b.task && a.cpu == b.cpu;
    case OpKind::expect_field:
      return a.task == b.task && a.field == b.field && a.cmp == b.cmp && a.value == b.value && a.cpu == b.cpu;
    case OpKind::expect_queue: {
      // `next` compares a name, the other fields a value
      const FieldSpec* spec = field_spec(FieldOwner::queue, a.field);
      const bool entity = spec && spec->value == FieldValue::entity;
      return a.group == b.group && a.field == b.field && a.cmp == b.cmp && a.cpu == b.cpu &&
             (entity ? a.task == b.task : a.value == b.value);
    }
    default: break;  // the table's: above
  }
  return false;
}

bool same_scenario(const Scenario& a, const Scenario& b) {
  if (a.title != b.title || a.profile != b.profile || a.features != b.features || a.bug != b.bug ||
      a.cpus != b.cpus || a.hz != b.hz || a.base_slice != b.base_slice || a.runqueues != b.runqueues ||
      a.smt != b.smt || a.skip != b.skip || a.tolerate != b.tolerate || a.keep_going != b.keep_going ||
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
