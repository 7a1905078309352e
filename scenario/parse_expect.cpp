// The expectations: `expect violation|no-violation` (whole-run) and the
// positional `expect curr|pick`, `expect field` and `expect queue`. Their
// syntax is not the operation table's (scenario/op_table.hpp says why).
#include <climits>
#include <string>

#include "scenario/duration.hpp"
#include "scenario/expect_fields.hpp"
#include "scenario/parser.hpp"

namespace eevdf::scn::parse_detail {

namespace {

std::optional<CmpOp> cmp_from(std::string_view s) {
  if (s == "==") return CmpOp::eq;
  if (s == "!=") return CmpOp::ne;
  if (s == "<") return CmpOp::lt;
  if (s == "<=") return CmpOp::le;
  if (s == ">") return CmpOp::gt;
  if (s == ">=") return CmpOp::ge;
  return std::nullopt;
}

}  // namespace

void Parser::expect() {
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
void Parser::expect_queue() {
  Op op;
  op.kind = OpKind::expect_queue;
  const std::string_view t = tok(2);
  const std::size_t dot = dotted("QUEUE.FIELD (e.g. root.nr_queued, or GROUP.nr_queued for a group's queue) after "
                                 "'expect queue'");
  if (dot == std::string_view::npos || !group_ref(t.substr(0, dot), col(2), op.group, "'expect queue'", true)) return;
  const FieldSpec* spec = dotted_field(FieldOwner::queue, dot, "a queue field", op.field);
  if (!spec) return;
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

void Parser::expect_field() {
  Op op;
  op.kind = OpKind::expect_field;
  const std::size_t dot = dotted("NAME.FIELD (e.g. A.vruntime) after 'expect field'");
  if (dot == std::string_view::npos) return;
  const std::string_view name = tok(2).substr(0, dot);
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
  if (!dotted_field(FieldOwner::entity, dot, "a field", op.field)) return;
  op.task = std::string(name);
  if (!comparison(op.cmp) || !number_value(op.value)) return;
  // a group has an entity on every CPU: cpu=N picks one (CPU 0 without)
  if (!cpu_then_end(groups_.count(op.task) != 0, op.cpu)) return;
  push(std::move(op));
}

// The shared parts of `expect queue` and `expect field`: QUEUE.FIELD or
// NAME.FIELD (token 2), the position of its dot (npos after an error) ...
std::size_t Parser::dotted(std::string_view what) {
  const std::size_t dot = tok(2).find('.');  // npos without token 2 too
  if (dot == std::string_view::npos) fail(col(2), "expected " + std::string(what) + ", " + found(2));
  return dot;
}
// ... the field after the dot, one of `owner`'s (nullptr after an error) ...
const FieldSpec* Parser::dotted_field(FieldOwner owner, std::size_t dot, std::string_view what, std::string& out) {
  const std::string_view field = tok(2).substr(dot + 1);
  const FieldSpec* spec = field_spec(owner, field);
  if (!spec)
    fail(col(2) + static_cast<int>(dot) + 1, "expected " + std::string(what) + " (" + field_names(owner) +
                                                 "), found " + (field.empty() ? std::string("nothing") : q(field)));
  else
    out = std::string(field);
  return spec;
}
// ... the comparison (token 3) after it, ...
bool Parser::comparison(CmpOp& out) {
  const auto cmp = cmp_from(tok(3));
  if (!has(3) || !cmp)
    return fail(col(3), "expected a comparison (==, !=, <, <=, >, >=) after " + q(tok(2)) + ", " + found(3));
  out = *cmp;
  return true;
}
// ... a number or a duration (token 4) ...
bool Parser::number_value(s64& out) {
  if (!need(4, "a value (an integer such as -5, or a duration such as 3ms) after the comparison")) return false;
  return field_value(tok(4), col(4), out);
}
// ... and, where the queue or entity exists on every CPU, `cpu=N` (CPU 0 without).
bool Parser::cpu_then_end(bool cpu_allowed, int& cpu) {
  if (cpu_allowed && tok(5).substr(0, 4) == "cpu=")
    return cpu_value(tok(5).substr(4), col(5) + 4, cpu, "'cpu='") && expect_end(6, "'cpu=N'");
  return expect_end(5, "the value");
}

bool Parser::field_value(std::string_view v, int c, s64& out) {
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

}  // namespace eevdf::scn::parse_detail
