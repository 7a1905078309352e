// The operation table: for every operation kind, its keyword, its arguments,
// the verb of its refusal messages, how the checker sees it (I-MONO) and its
// place in the byte format. The parser, the printer, the equality, the byte
// format and the executor read it; adding a kind starts with a row here
// (docs/contributing.md, "Adding an operation").
//
// A kind whose arguments are all positional (`nice NAME N`) is parsed,
// printed and compared from its row alone. A kind with flags, `key=value`
// options or `->` (task, fork, wake, group, debug_read, the expectations)
// says so with `custom_syntax`; its syntax is written out in
// scenario/scenario_parse.cpp and scenario/scenario_print.cpp.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

#include "invariants/checker.hpp"
#include "scenario/scenario.hpp"

namespace eevdf::scn {

// What a positional argument is, and the Op field that holds it.
enum class Arg : std::uint8_t {
  task,           // the name of an existing task          Op::task
  duration,       // a duration, 3ms                       Op::value (ns)
  nice,           // a nice level, -20..19                 Op::value
  policy,         // normal | batch | idle                 Op::policy
  slice,          // 0 (the base slice) or 0.1ms..100ms    Op::value (ns)
  cpu,            // a CPU number                          Op::cpu
  group,          // an existing group (not root)          Op::group
  group_or_root,  // an existing group, or root            Op::group ("" for root)
  shares,         // cpu.shares                            Op::value
  idle,           // cpu.idle, 0 or 1                      Op::value
  base_slice,     // a base slice, 0.1ms..100ms            Op::value (ns)
};

struct ArgSpec {
  Arg kind = Arg::task;
  std::string_view hint;  // added to the "expected ... after X" of a missing argument: " (e.g. 3ms)"
};

struct OpSpec {
  OpKind kind;
  std::string_view keyword;  // the first word of its line
  std::string_view verb;     // "cannot VERB NAME: reason" (the executor's strict mode)
  // running: moves no vruntime other than by running; placement: may (I-MONO).
  inv::OpClass op_class;
  bool custom_syntax;        // flags, key=value or '->': parsed and printed by hand
  std::size_t nargs;         // positional arguments (none with custom_syntax)
  std::array<ArgSpec, 2> args;
  // Byte format (scenario/bytes.hpp): the opcode (-1: not encoded), the
  // argument bytes after it, whether it decodes as itself only once a task
  // exists, and whether it is a task-group operation (formats 2, 4, 5).
  // Opcodes are appended, never renumbered: old inputs decode as before.
  int opcode;
  std::size_t byte_args;
  bool byte_needs_task;
  bool group_op;
};

namespace op_table_detail {
using inv::OpClass;
inline constexpr ArgSpec kTask{Arg::task, ""};
inline constexpr std::array<ArgSpec, 2> kNone{};
}  // namespace op_table_detail

// One row per OpKind, in OpKind order.
// clang-format off
inline constexpr std::array<OpSpec, 25> kOpTable = [] {
  using namespace op_table_detail;
  return std::array<OpSpec, 25>{{
  // kind                keyword       verb                           class               custom nargs args                                               opcode bytes needs_task group
  {OpKind::create,       "task",       "create task",                 OpClass::placement, true,  0, kNone,                                                 0,  3, false, false},
  {OpKind::fork,         "fork",       "fork",                        OpClass::placement, true,  0, kNone,                                                 1,  1, true,  false},
  {OpKind::wake,         "wake",       "wake",                        OpClass::placement, true,  0, kNone,                                                 2,  2, true,  false},
  {OpKind::sleep,        "sleep",      "sleep",                       OpClass::running,   false, 1, {kTask},                                               3,  1, true,  false},
  {OpKind::run,          "run",        "run",                         OpClass::running,   false, 1, {ArgSpec{Arg::duration, " (e.g. 3ms)"}},               4,  3, false, false},
  // `tick nopreempt` (issue 21 part 4) is a flag of tick: custom syntax, not in the byte format
  {OpKind::tick,         "tick",       "tick",                        OpClass::running,   true,  0, kNone,                                                 5,  0, false, false},
  {OpKind::schedule,     "schedule",   "schedule",                    OpClass::running,   false, 0, kNone,                                                 6,  0, false, false},
  {OpKind::yield,        "yield",      "yield",                       OpClass::placement, false, 1, {kTask},                                               7,  1, true,  false},
  {OpKind::nice,         "nice",       "renice",                      OpClass::placement, false, 2, {kTask, ArgSpec{Arg::nice, ""}},                       8,  2, true,  false},
  {OpKind::policy,       "policy",     "change the policy of",        OpClass::placement, false, 2, {kTask, ArgSpec{Arg::policy, ""}},                     9,  2, true,  false},
  {OpKind::slice,        "slice",      "change the slice of",         OpClass::placement, false, 2, {kTask, ArgSpec{Arg::slice, ""}},                     10,  2, true,  false},
  {OpKind::exit,         "exit",       "exit",                        OpClass::running,   false, 1, {kTask},                                              11,  1, true,  false},
  {OpKind::expect_curr,  "expect",     "check",                       OpClass::running,   true,  0, kNone,                                                -1,  0, false, false},
  {OpKind::expect_field, "expect",     "check",                       OpClass::running,   true,  0, kNone,                                                -1,  0, false, false},
  {OpKind::group_create, "group",      "create group",                OpClass::placement, true,  0, kNone,                                                12,  2, false, true},
  {OpKind::move,         "move",       "move",                        OpClass::placement, false, 2, {kTask, ArgSpec{Arg::group_or_root, ""}},             13,  2, true,  true},
  {OpKind::shares,       "shares",     "set cpu.shares of",           OpClass::placement, false, 2, {ArgSpec{Arg::group, ""}, ArgSpec{Arg::shares, ""}},  14,  2, false, true},
  {OpKind::group_idle,   "group_idle", "set cpu.idle of",             OpClass::placement, false, 2, {ArgSpec{Arg::group, ""}, ArgSpec{Arg::idle, ""}},    15,  2, false, true},
  {OpKind::migrate,      "migrate",    "migrate",                     OpClass::placement, false, 2, {kTask, ArgSpec{Arg::cpu, " (migrate NAME CPU)"}},    16,  2, true,  false},
  // running: a racing reader's stores land in the next operation
  {OpKind::debug_read,   "debug_read", "read the debugfs average of", OpClass::running,   true,  0, kNone,                                                17,  2, false, false},
  {OpKind::expect_queue, "expect",     "check",                       OpClass::running,   true,  0, kNone,                                                -1,  0, false, false},
  // `run DUR notick` and `tick DUR`: the keywords of run and tick, told apart by their arguments
  {OpKind::run_notick,   "run",        "run",                         OpClass::running,   true,  0, kNone,                                                18,  3, false, false},
  {OpKind::tick_after,   "tick",       "tick",                        OpClass::running,   true,  0, kNone,                                                19,  3, false, false},
  // byte format 7 (issue 21 part 4). base_slice moves no vruntime: a new slice is taken at the
  // next update_deadline() or placement, which are themselves checked
  // The keyword is the debugfs file's name: `base_slice` is the directive (the normalized value, before
  // the first operation), and an operation first in the list could not be told from it
  {OpKind::base_slice,   "base_slice_ns","write sched/base_slice_ns",  OpClass::running,   false, 1, {ArgSpec{Arg::base_slice, " (e.g. 3ms)"}},            20,  1, false, false},
  // placement: the delayed group entity it dequeues leaves with its lag (dequeue_entities())
  {OpKind::group_destroy,"group_destroy","remove group",              OpClass::placement, false, 1, {ArgSpec{Arg::group, ""}},                            21,  1, false, true},
  }};
}();
// clang-format on

constexpr const OpSpec& op_spec(OpKind kind) { return kOpTable[static_cast<std::size_t>(kind)]; }

// The operation whose line starts with `keyword`, or nullptr (`expect` is not
// an operation keyword: expectations are parsed apart). For `run` and `tick`,
// run and tick: the parser tells run_notick and tick_after by their arguments.
constexpr const OpSpec* op_spec_by_keyword(std::string_view keyword) {
  for (const OpSpec& s : kOpTable)
    if (s.keyword == keyword && s.keyword != "expect") return &s;
  return nullptr;
}

// The operation keywords in table order, "task, fork, ..., debug_read" (parse errors).
std::string_view operation_keywords();

namespace op_table_detail {
constexpr bool rows_in_kind_order() {
  for (std::size_t i = 0; i < kOpTable.size(); ++i)
    if (static_cast<std::size_t>(kOpTable[i].kind) != i) return false;
  return true;
}
}  // namespace op_table_detail
static_assert(op_table_detail::rows_in_kind_order(), "the operation table has one row per OpKind, in order");
static_assert(static_cast<std::size_t>(OpKind::group_destroy) + 1 == kOpTable.size(), "a row for every OpKind");

// A positional expectation (expect curr, field, queue): read after the
// previous operation, not applied; not in the byte format.
constexpr bool is_expectation(OpKind kind) { return op_spec(kind).keyword == "expect"; }

}  // namespace eevdf::scn
