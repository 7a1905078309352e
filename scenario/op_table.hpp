// The operation table: for every operation kind, its text form (keyword,
// arguments, flags and key=value options, with their units), the verb of its
// refusal messages, how the checker sees it (I-MONO) and its place in the byte
// format. The parser (scenario/parse_operation.cpp), the printer and `same_op`
// (scenario/scenario_print.cpp), the byte format (scenario/bytes.cpp) and the
// executor read it; adding a kind starts with a row here (docs/contributing.md,
// "Adding an operation").
//
// An operation line is
//   KEYWORD ARG... [SUFFIX] WORD...
// ARG: the positional arguments (`args`), each perhaps after a literal word
// (fork's `->`) or optional (debug_read's queue); SUFFIX: a word that tells a
// row from the other row of its keyword (`run DUR notick`); WORD: the words
// after them (`words`), flags (`racing`) and `key=value` options (`cpu=N`),
// either in the row's order, each optional (wake, debug_read, fork, tick), or,
// for a row with `any_order`, in any order, each at most once (task, group).
//
// Written by hand, because their syntax is not the table's:
//  * the expectations (expect_curr, expect_field, expect_queue): a second
//    keyword (`curr`, its alias `pick`, `field`, `queue`), `idle` as a task,
//    `NAME.FIELD OP VALUE` with a comparison and a value whose form depends on
//    the field (scenario/expect_fields.hpp); `expect violation` and
//    `expect no-violation` are not operations at all;
//  * the checks across words that are not syntax: `task NAME policy=fifo` takes
//    no nice=, slice= or group=, and which words tell `run`/`run DUR notick`
//    and `tick`/`tick DUR` apart (op_variant() in the parser);
//  * in the byte format, the argument bytes of create, fork, wake, group and
//    debug_read, which pack their options and flags into bits, and the
//    fan-out of wake and sleep (format 8).
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

#include "invariants/checker.hpp"
#include "scenario/scenario.hpp"

namespace eevdf::scn {

// What an argument, a flag or an option's value is, and the Op field that holds it.
enum class Arg : std::uint8_t {
  none,           // no argument (the unused entries of a row)
  task,           // the name of an existing task          Op::task
  duration,       // a duration, 3ms                       Op::value (ns)
  nice,           // a nice level, -20..19                 Op::value
  policy,         // normal | batch | idle                 Op::policy
  slice,          // 0 (the base slice) or 0.1ms..100ms    Op::value (ns)
  cpu,            // a CPU number                          Op::cpu
  group,          // an existing group (not root)          Op::group
  group_or_root,  // an existing group, or root            Op::group ("" for root)
  shares,         // cpu.shares                            Op::value (kDefaultShares unless written)
  idle,           // cpu.idle, 0 or 1                      Op::value
  base_slice,     // a base slice, 0.1ms..100ms            Op::value (ns)
  new_task,       // a task name not taken yet             Op::task
  child,          // a task name not taken yet             Op::child
  new_group,      // a group name not taken yet            Op::group
  any_policy,     // normal | batch | idle | fifo          Op::policy
  task_slice,     // as slice                              Op::slice (ns)
  parent,         // an existing group, or root            Op::parent ("" for root)
  from_cpu,       // a CPU number                          Op::from
  bandwidth,      // cpu.max: QUOTA/PERIOD (whole us) or max Op::value (quota ns, -1 max), Op::period
  burst,          // cpu.max.burst, a whole number of us    Op::burst (-1 unless written)
  // flags: the word alone sets the field
  sync,           //                                       Op::sync
  racing,         //                                       Op::racing
  nopreempt,      //                                       Op::nopreempt
};

struct ArgSpec {
  Arg kind = Arg::none;
  std::string_view hint = {};    // added to the "expected ... after X" of a missing argument: " (e.g. 3ms)"
  std::string_view noun = {};    // how the next word's message names it, if not as its kind ("the queue")
  std::string_view before = {};  // a literal word written before it (fork's "->")
  bool optional = false;         // may be left out (its Op field keeps its default)
};

// A flag (`racing`: `kind` is a flag) or a `key=value` option (`cpu=N`).
struct WordSpec {
  std::string_view key = {};    // the flag, or the option's key
  Arg kind = Arg::none;
  std::string_view value = {};  // the option's value as the messages name it ("N"); empty for a flag
  std::string_view note = {};   // added to "expected end of line after 'cpu=N'"
  bool or_previous = false;     // an alternative of the word before it: at most one of them is written
};

struct OpSpec {
  OpKind kind;
  std::string_view keyword;  // the first word of its line
  std::string_view verb;     // "cannot VERB NAME: reason" (the executor's strict mode)
  // running: moves no vruntime other than by running; placement: may (I-MONO).
  inv::OpClass op_class;
  std::array<ArgSpec, 2> args{};
  std::string_view suffix = {};
  std::array<WordSpec, 4> words{};
  // Non-empty: the words are options in any order, and this names them in
  // "expected TEXT, found X" for a word that is none of them.
  std::string_view any_order = {};
  bool custom_syntax = false;  // parsed and printed by hand (the expectations, above)
  // Byte format (scenario/bytes.hpp): the opcode (-1: not encoded), the
  // argument bytes after it, whether it decodes as itself only once a task
  // exists, and whether it is a task-group operation (formats 2, 4, 5).
  // Opcodes are appended, never renumbered: old inputs decode as before.
  int opcode = -1;
  std::size_t byte_args = 0;
  bool byte_needs_task = false;
  bool group_op = false;

  constexpr std::size_t nargs() const {
    std::size_t n = 0;
    while (n < args.size() && args[n].kind != Arg::none) ++n;
    return n;
  }
  constexpr std::size_t nwords() const {
    std::size_t n = 0;
    while (n < words.size() && words[n].kind != Arg::none) ++n;
    return n;
  }
};

constexpr bool is_flag(Arg a) { return a == Arg::sync || a == Arg::racing || a == Arg::nopreempt; }

namespace op_table_detail {
using inv::OpClass;
inline constexpr ArgSpec kTask{Arg::task};
inline constexpr ArgSpec kDuration{Arg::duration, " (e.g. 3ms)"};
constexpr WordSpec flag(std::string_view key, Arg kind) { return {.key = key, .kind = kind}; }
constexpr WordSpec option(std::string_view key, Arg kind, std::string_view value) {
  return {.key = key, .kind = kind, .value = value};
}
inline constexpr std::string_view kWakeCpuNote = " (cpu= names the CPU, from= where the wake-up is made: one of them)";
}  // namespace op_table_detail

// One row per OpKind, in OpKind order.
// clang-format off
inline constexpr std::array<OpSpec, 27> kOpTable = [] {
  using namespace op_table_detail;
  return std::array<OpSpec, 27>{{
  // task NAME [nice=N] [policy=normal|batch|idle|fifo] [slice=DUR] [group=GROUP]
  {.kind = OpKind::create, .keyword = "task", .verb = "create task", .op_class = OpClass::placement,
   .args = {ArgSpec{Arg::new_task}},
   .words = {option("nice", Arg::nice, "N"), option("policy", Arg::any_policy, "normal|batch|idle"),
             option("slice", Arg::task_slice, "DUR"), option("group", Arg::group_or_root, "GROUP")},
   .any_order = "nice=N, policy=normal|batch|idle or slice=DUR (or group=GROUP)",
   .opcode = 0, .byte_args = 3},
  // fork PARENT -> CHILD [racing]
  {.kind = OpKind::fork, .keyword = "fork", .verb = "fork", .op_class = OpClass::placement,
   .args = {ArgSpec{Arg::task, {}, "the parent's name"}, ArgSpec{Arg::child, " (fork PARENT -> CHILD)", {}, "->"}},
   .words = {flag("racing", Arg::racing)},
   .opcode = 1, .byte_args = 1, .byte_needs_task = true},
  // wake NAME [sync] [cpu=N | from=N]
  {.kind = OpKind::wake, .keyword = "wake", .verb = "wake", .op_class = OpClass::placement,
   .args = {kTask},
   .words = {flag("sync", Arg::sync), WordSpec{.key = "cpu", .kind = Arg::cpu, .value = "N", .note = kWakeCpuNote},
             WordSpec{.key = "from", .kind = Arg::from_cpu, .value = "N", .note = kWakeCpuNote, .or_previous = true}},
   .opcode = 2, .byte_args = 2, .byte_needs_task = true},
  {.kind = OpKind::sleep, .keyword = "sleep", .verb = "sleep", .op_class = OpClass::running,
   .args = {kTask}, .opcode = 3, .byte_args = 1, .byte_needs_task = true},
  {.kind = OpKind::run, .keyword = "run", .verb = "run", .op_class = OpClass::running,
   .args = {kDuration}, .opcode = 4, .byte_args = 3},
  // tick [nopreempt]: not in the byte format
  {.kind = OpKind::tick, .keyword = "tick", .verb = "tick", .op_class = OpClass::running,
   .words = {flag("nopreempt", Arg::nopreempt)}, .opcode = 5},
  {.kind = OpKind::schedule, .keyword = "schedule", .verb = "schedule", .op_class = OpClass::running, .opcode = 6},
  {.kind = OpKind::yield, .keyword = "yield", .verb = "yield", .op_class = OpClass::placement,
   .args = {kTask}, .opcode = 7, .byte_args = 1, .byte_needs_task = true},
  {.kind = OpKind::nice, .keyword = "nice", .verb = "renice", .op_class = OpClass::placement,
   .args = {kTask, ArgSpec{Arg::nice}}, .opcode = 8, .byte_args = 2, .byte_needs_task = true},
  {.kind = OpKind::policy, .keyword = "policy", .verb = "change the policy of", .op_class = OpClass::placement,
   .args = {kTask, ArgSpec{Arg::policy}}, .opcode = 9, .byte_args = 2, .byte_needs_task = true},
  {.kind = OpKind::slice, .keyword = "slice", .verb = "change the slice of", .op_class = OpClass::placement,
   .args = {kTask, ArgSpec{Arg::slice}}, .opcode = 10, .byte_args = 2, .byte_needs_task = true},
  {.kind = OpKind::exit, .keyword = "exit", .verb = "exit", .op_class = OpClass::running,
   .args = {kTask}, .opcode = 11, .byte_args = 1, .byte_needs_task = true},
  {.kind = OpKind::expect_curr, .keyword = "expect", .verb = "check", .op_class = OpClass::running, .custom_syntax = true},
  {.kind = OpKind::expect_field, .keyword = "expect", .verb = "check", .op_class = OpClass::running, .custom_syntax = true},
  // group NAME [shares=N] [parent=GROUP]
  {.kind = OpKind::group_create, .keyword = "group", .verb = "create group", .op_class = OpClass::placement,
   .args = {ArgSpec{Arg::new_group}},
   .words = {option("shares", Arg::shares, "N"), option("parent", Arg::parent, "GROUP")},
   .any_order = "shares=N or parent=GROUP",
   .opcode = 12, .byte_args = 2, .group_op = true},
  {.kind = OpKind::move, .keyword = "move", .verb = "move", .op_class = OpClass::placement,
   .args = {kTask, ArgSpec{Arg::group_or_root}}, .opcode = 13, .byte_args = 2, .byte_needs_task = true, .group_op = true},
  {.kind = OpKind::shares, .keyword = "shares", .verb = "set cpu.shares of", .op_class = OpClass::placement,
   .args = {ArgSpec{Arg::group}, ArgSpec{Arg::shares}}, .opcode = 14, .byte_args = 2, .group_op = true},
  {.kind = OpKind::group_idle, .keyword = "group_idle", .verb = "set cpu.idle of", .op_class = OpClass::placement,
   .args = {ArgSpec{Arg::group}, ArgSpec{Arg::idle}}, .opcode = 15, .byte_args = 2, .group_op = true},
  {.kind = OpKind::migrate, .keyword = "migrate", .verb = "migrate", .op_class = OpClass::placement,
   .args = {kTask, ArgSpec{Arg::cpu, " (migrate NAME CPU)"}}, .opcode = 16, .byte_args = 2, .byte_needs_task = true},
  // debug_read [GROUP|root] [cpu=N] [racing]; without a queue the root queue. A
  // first word that names a group (even one called 'racing') is the queue.
  // running: a racing reader's stores land in the next operation
  {.kind = OpKind::debug_read, .keyword = "debug_read", .verb = "read the debugfs average of", .op_class = OpClass::running,
   .args = {ArgSpec{Arg::group_or_root, {}, "the queue", {}, true}},
   .words = {option("cpu", Arg::cpu, "N"), flag("racing", Arg::racing)},
   .opcode = 17, .byte_args = 2},
  {.kind = OpKind::expect_queue, .keyword = "expect", .verb = "check", .op_class = OpClass::running, .custom_syntax = true},
  // `run DUR notick` and `tick DUR`: the keywords of run and tick
  {.kind = OpKind::run_notick, .keyword = "run", .verb = "run", .op_class = OpClass::running,
   .args = {kDuration}, .suffix = "notick", .opcode = 18, .byte_args = 3},
  {.kind = OpKind::tick_after, .keyword = "tick", .verb = "tick", .op_class = OpClass::running,
   .args = {kDuration}, .opcode = 19, .byte_args = 3},
  // base_slice moves no vruntime: a new slice is taken at the next
  // update_deadline() or placement, which are themselves checked. The keyword
  // is the debugfs file's name: `base_slice` is the directive (the normalized
  // value, before the first operation), and an operation first in the list
  // could not be told from it
  {.kind = OpKind::base_slice, .keyword = "base_slice_ns", .verb = "write sched/base_slice_ns", .op_class = OpClass::running,
   .args = {ArgSpec{Arg::base_slice, " (e.g. 3ms)"}}, .opcode = 20, .byte_args = 1},
  // placement: the delayed group entity it dequeues leaves with its lag (dequeue_entities())
  {.kind = OpKind::group_destroy, .keyword = "group_destroy", .verb = "remove group", .op_class = OpClass::placement,
   .args = {ArgSpec{Arg::group}}, .opcode = 21, .byte_args = 1, .group_op = true},
  // quota GROUP QUOTA/PERIOD|max [burst=DUR]: placement (a throttle dequeues and
  // an unthrottle enqueues group entities; the period timer fires as time passes)
  {.kind = OpKind::quota, .keyword = "quota", .verb = "set cpu.max of", .op_class = OpClass::placement,
   .args = {ArgSpec{Arg::group}, ArgSpec{Arg::bandwidth, " (QUOTA/PERIOD, e.g. 20ms/100ms, or max)"}},
   .words = {option("burst", Arg::burst, "DUR")},
   .opcode = 22, .byte_args = 4, .group_op = true},
  // return_to_user NAME: the running task returns to user space and runs its
  // throttle work (v6.18's task-based throttle; nothing without one). placement:
  // the work dequeues the task to its queue's limbo list
  {.kind = OpKind::return_to_user, .keyword = "return_to_user", .verb = "return to user space", .op_class = OpClass::placement,
   .args = {kTask}, .opcode = 23, .byte_args = 1, .byte_needs_task = true},
  }};
}();
// clang-format on

constexpr const OpSpec& op_spec(OpKind kind) { return kOpTable[static_cast<std::size_t>(kind)]; }

// The operation whose line starts with `keyword`, or nullptr (`expect` is not
// an operation keyword: expectations are parsed apart). For `run` and `tick`,
// run and tick: the parser tells run_notick and tick_after by their words.
constexpr const OpSpec* op_spec_by_keyword(std::string_view keyword) {
  for (const OpSpec& s : kOpTable)
    if (s.keyword == keyword && s.keyword != "expect") return &s;
  return nullptr;
}

// The operation keywords in table order, "task, fork, ..., debug_read" (parse errors).
std::string_view operation_keywords();

// The field `a` sets, before the words are read and when a word is not
// written: Op's own default, kDefaultShares for shares (group NAME without shares=).
void set_unwritten(Arg a, Op& op);
bool is_unwritten(Arg a, const Op& op);

namespace op_table_detail {
constexpr bool rows_in_kind_order() {
  for (std::size_t i = 0; i < kOpTable.size(); ++i)
    if (static_cast<std::size_t>(kOpTable[i].kind) != i) return false;
  return true;
}
// Flags are words, not arguments; only the first word of a row has no alternative before it.
constexpr bool rows_well_formed() {
  for (const OpSpec& s : kOpTable) {
    for (const ArgSpec& a : s.args)
      if (is_flag(a.kind)) return false;
    if (s.nwords() > 0 && s.words[0].or_previous) return false;
    for (std::size_t w = 0; w < s.nwords(); ++w)
      if (is_flag(s.words[w].kind) != s.words[w].value.empty()) return false;
  }
  return true;
}
}  // namespace op_table_detail
static_assert(op_table_detail::rows_in_kind_order(), "the operation table has one row per OpKind, in order");
static_assert(op_table_detail::rows_well_formed(), "flags are words without a value, options words with one");
static_assert(static_cast<std::size_t>(OpKind::return_to_user) + 1 == kOpTable.size(), "a row for every OpKind");

// A positional expectation (expect curr, field, queue): read after the
// previous operation, not applied; not in the byte format.
constexpr bool is_expectation(OpKind kind) { return op_spec(kind).keyword == "expect"; }

}  // namespace eevdf::scn
