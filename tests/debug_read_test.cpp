// The sched debugfs reader, `debug_read [GROUP|root] [cpu=N] [racing]`
// (model/debug_read.cpp): its text and byte forms, what it does on each kind
// of kernel (6.12.118 races and loses updates, mainline reads under the lock,
// min_vruntime kernels only read), the minimizer keeping `racing`, and the
// kernel backend's reader through 6.12.118's own avg_vruntime().
#include <gtest/gtest.h>

#include <string>
#include <variant>

#include "scenario/bytes.hpp"
#include "scenario/executor.hpp"
#include "fuzz/minimize.hpp"
#include "scenario/scenario_parse.hpp"
#include "support/kernel_tree.hpp"
#include "support/scenario_text.hpp"
#include "scenario/scenario_print.hpp"
#include "kernelsrc/kernel_backend.hpp"
#include "model/fair.hpp"
#include "model/system.hpp"

namespace eevdf::scn {
namespace {

Scenario parse(const std::string& text) { return test::parse_ok(text, "test.scn"); }

ParseError parse_error(const std::string& text) {
  auto parsed = parse_scenario(text, "test.scn");
  if (!std::holds_alternative<ParseError>(parsed)) {
    ADD_FAILURE() << "parsed without an error: " << text;
    return {};
  }
  return std::get<ParseError>(parsed);
}

const Op& last_op(const Scenario& s) { return s.ops.back(); }

// ---------------------------------------------------------------- text

TEST(DebugReadText, FormsAndCanonicalPrinting) {
  struct Case {
    std::string text;      // after "profile v6.12.118\ngroup G\n"
    std::string group;     // the queue read
    int cpu;
    bool racing;
    std::string printed;   // print_op()
  };
  const Case cases[] = {
      {"debug_read", "", -1, false, "debug_read"},
      {"debug_read root", "", -1, false, "debug_read"},
      {"debug_read racing", "", -1, true, "debug_read root racing"},
      {"debug_read root racing", "", -1, true, "debug_read root racing"},
      {"debug_read G", "G", -1, false, "debug_read G"},
      {"debug_read G racing", "G", -1, true, "debug_read G racing"},
      {"debug_read cpu=0", "", 0, false, "debug_read root cpu=0"},
      {"debug_read G cpu=0 racing", "G", 0, true, "debug_read G cpu=0 racing"},
  };
  for (const Case& c : cases) {
    const Scenario s = parse("profile v6.12.118\ngroup G\n" + c.text + "\n");
    const Op& op = last_op(s);
    EXPECT_EQ(op.kind, OpKind::debug_read) << c.text;
    EXPECT_EQ(op.group, c.group) << c.text;
    EXPECT_EQ(op.cpu, c.cpu) << c.text;
    EXPECT_EQ(op.racing, c.racing) << c.text;
    EXPECT_EQ(print_op(op), c.printed) << c.text;
    EXPECT_TRUE(same_scenario(parse(print_scenario(s)), s)) << c.text;
  }
}

// A group may be called `racing`: the first token that names a group is the
// queue, and the printer writes `root` whenever something follows it.
TEST(DebugReadText, AGroupCalledRacing) {
  const Scenario s = parse("profile v6.12.118\ngroup racing\ndebug_read racing\ndebug_read racing racing\n"
                           "debug_read root racing\n");
  ASSERT_EQ(s.ops.size(), 4u);
  EXPECT_EQ(s.ops[1].group, "racing");
  EXPECT_FALSE(s.ops[1].racing);
  EXPECT_EQ(s.ops[2].group, "racing");
  EXPECT_TRUE(s.ops[2].racing);
  EXPECT_EQ(s.ops[3].group, "");
  EXPECT_TRUE(s.ops[3].racing);
  EXPECT_EQ(print_op(s.ops[3]), "debug_read root racing");
  EXPECT_TRUE(same_scenario(parse(print_scenario(s)), s));
  EXPECT_EQ(print_scenario(parse(print_scenario(s))), print_scenario(s));
}

TEST(DebugReadText, ErrorsNameLineAndColumn) {
  struct Case {
    std::string line3;
    int column;
    std::string message_part;
  };
  const Case cases[] = {
      {"debug_read nope", 12, "expected the name of a group created earlier with 'group', found 'nope'"},
      {"debug_read root sync", 17, "expected 'cpu=N', 'racing' or end of line after the queue, found 'sync'"},
      {"debug_read racing now", 19, "expected end of line after 'racing', found 'now'"},
      {"debug_read cpu=0 now", 18, "expected 'racing' or end of line after 'cpu=N', found 'now'"},
      {"debug_read cpu=1", 16, "expected a CPU between 0 and 0 after 'cpu=' (runqueues 1), found '1'"},
      {"debug_read 7up", 12, "expected a group name: a letter or '_'"},
  };
  for (const Case& c : cases) {
    const ParseError e = parse_error("profile v6.12.118\ngroup G\n" + c.line3 + "\n");
    EXPECT_EQ(e.line, 3) << c.line3;
    EXPECT_EQ(e.column, c.column) << c.line3 << ": " << e.message;
    EXPECT_NE(e.message.find(c.message_part), std::string::npos) << c.line3 << ": " << e.message;
  }
}

// ---------------------------------------------------------------- bytes

TEST(DebugReadBytes, Version5RoundTripAndOlderVersionsUnchanged) {
  const Scenario s = parse(
      "profile mainline\ntask T0\nwake T0\ngroup G0\ndebug_read racing\ntick\ndebug_read G0\n"
      "debug_read G0 cpu=0 racing\n");
  Scenario ops_only = s;
  const auto enc = encode_bytes(ops_only);
  ASSERT_TRUE(enc.has_value());
  EXPECT_EQ((*enc)[0], kBytesFormatVersion5);
  EXPECT_TRUE(bytes_version_supported(enc->data(), enc->size()));
  EXPECT_TRUE(same_scenario(decode_bytes(*enc), s)) << print_scenario(decode_bytes(*enc));

  // opcode 17 is migrate's neighbour: in versions 3 and 4 (17 opcodes) it is
  // create (17 % 17 = 0), in version 5 debug_read
  const std::vector<std::uint8_t> v4 = {kBytesFormatVersion4, 0, 17, 0, 0, 0};
  EXPECT_EQ(decode_bytes(v4).ops.at(0).kind, OpKind::create);
  const std::vector<std::uint8_t> v5 = {kBytesFormatVersion5, 0, 17, 0, 1};
  const Scenario d5 = decode_bytes(v5);
  ASSERT_EQ(d5.ops.size(), 1u);
  EXPECT_EQ(d5.ops[0].kind, OpKind::debug_read);
  EXPECT_TRUE(d5.ops[0].racing);
  EXPECT_EQ(d5.ops[0].group, "");

  // version 5 with the no-groups bit: the group opcodes decode as schedule
  const std::vector<std::uint8_t> groups = {kBytesFormatVersion5, 0, 12, 0, 0};
  EXPECT_EQ(decode_bytes(groups).ops.at(0).kind, OpKind::group_create);
  const std::vector<std::uint8_t> no_groups = {kBytesFormatVersion5, kBytesNoGroups, 12, 0, 0};
  EXPECT_EQ(decode_bytes(no_groups).ops.at(0).kind, OpKind::schedule);
  EXPECT_EQ(decode_bytes(no_groups).runqueues, 1u);
}

// ---------------------------------------------------------------- the model

struct Queue {
  s64 sum;
  u64 sum_weight;
  u64 zero;
};
Queue queue_of(const System& sys) { return {sys.rq(0).cfs.sum_w_vruntime, sys.rq(0).cfs.sum_weight, sys.rq(0).cfs.zero_vruntime}; }

// Applies the operations of `text` to sys, as the executor does.
void run_ops(System& sys, const std::string& text) {
  const Scenario s = parse(text);
  for (const Op& op : s.ops) {
    const int id = op.task.empty() ? -1 : sys.rq(0).find_task(op.task);
    ASSERT_EQ(apply_operation(sys, op, id), Refusal::none) << print_op(op);
  }
}

const char* kTwoTasks = "profile v6.12.118\ntask A\ntask B\nwake A\nwake B\ntick\n";

// On 6.12.118 the reader alone re-bases exactly as avg_vruntime() does: V is
// kept, zero_vruntime becomes V, and the sums still match the tree.
TEST(DebugReadModel, PlainReadRebasesAndKeepsV) {
  const Profile p = *profile_by_name("v6.12.118");
  System sys(p, 1);
  run_ops(sys, kTwoTasks);
  CfsRq& q = sys.rq(0).cfs;
  const u64 v_before = q.zero_vruntime + as_u64(avg_vruntime_offset(q, null_observer()));
  ASSERT_EQ(sys.debug_read(-1, -1, false), Refusal::none);
  EXPECT_EQ(q.zero_vruntime, v_before);
  EXPECT_EQ(q.zero_vruntime + as_u64(avg_vruntime_offset(q, null_observer())), v_before);
  EXPECT_EQ(sys.pending_debug_reads(), 0u);
}

// racing: nothing changes at the read; the next operation runs on the
// untouched queue; then the two fields hold what avg_vruntime() computed
// before it, whatever the operation wrote (avg_load is the operation's).
TEST(DebugReadModel, RacingReadStoresItsOldResultAfterTheNextOperation) {
  const Profile p = *profile_by_name("v6.12.118");
  ASSERT_TRUE(debug_read_races(p));
  System sys(p, 1), reference(p, 1);
  run_ops(sys, kTwoTasks);
  run_ops(reference, kTwoTasks);
  const Queue before = queue_of(sys);
  ASSERT_EQ(sys.debug_read(-1, -1, true), Refusal::none);
  EXPECT_EQ(sys.pending_debug_reads(), 1u);
  const Queue at_read = queue_of(sys);
  EXPECT_EQ(at_read.sum, before.sum);
  EXPECT_EQ(at_read.zero, before.zero);
  // what the reader computes: the plain read on the same state
  ASSERT_EQ(reference.debug_read(-1, -1, false), Refusal::none);
  const Queue computed = queue_of(reference);

  Op tick;
  tick.kind = OpKind::tick;
  ASSERT_EQ(apply_operation(sys, tick, -1), Refusal::none);
  EXPECT_EQ(sys.pending_debug_reads(), 0u);
  EXPECT_EQ(queue_of(sys).sum, computed.sum);
  EXPECT_EQ(queue_of(sys).zero, computed.zero);
}

// An expectation between the read and the operation is not the operation.
TEST(DebugReadModel, ExpectationsDoNotTakeTheStores) {
  const Profile p = *profile_by_name("v6.12.118");
  System sys(p, 1);
  run_ops(sys, kTwoTasks);
  ASSERT_EQ(sys.debug_read(-1, -1, true), Refusal::none);
  Op expect;
  expect.kind = OpKind::expect_curr;
  expect.task = "A";
  apply_operation(sys, expect, -1);
  EXPECT_EQ(sys.pending_debug_reads(), 1u);
}

// Mainline: `racing` is the reader before the operation (under the lock);
// v6.18: the reader only reads. Both leave the same state as the operation
// after a plain read, and no invariant moves.
TEST(DebugReadModel, MainlineAndMinVruntimeKernelsCannotRace) {
  for (const char* name : {"mainline", "v6.18", "v6.12", "v6.6", "v7.3"}) {
    const Profile p = *profile_by_name(name);
    EXPECT_FALSE(debug_read_races(p)) << name;
    const std::string head = std::string("profile ") + name + "\n";
    const Scenario racing = parse(head + "task A\ntask B\nwake A\nwake B\ntick\ndebug_read racing\ntick\nrun 20ms\n");
    const Scenario plain = parse(head + "task A\ntask B\nwake A\nwake B\ntick\ndebug_read\ntick\nrun 20ms\n");
    ExecOptions o;
    o.trace = true;
    const ExecResult a = execute(racing, p, o), b = execute(plain, p, o);
    EXPECT_TRUE(a.violations.empty()) << name;
    ASSERT_EQ(a.trace.size(), b.trace.size());
    EXPECT_EQ(a.trace.back().zero_vruntime, b.trace.back().zero_vruntime) << name;
    EXPECT_EQ(a.trace.back().sum_w_vruntime, b.trace.back().sum_w_vruntime) << name;
  }
  // v6.18's avg_vruntime() does not write: the read changes nothing
  const Profile v618 = *profile_by_name("v6.18");
  System sys(v618, 1);
  run_ops(sys, "profile v6.18\ntask A\ntask B\nwake A\nwake B\ntick\n");
  const Queue before = queue_of(sys);
  ASSERT_EQ(sys.debug_read(-1, -1, true), Refusal::none);
  EXPECT_EQ(queue_of(sys).sum, before.sum);
  EXPECT_EQ(queue_of(sys).zero, before.zero);
  EXPECT_EQ(sys.pending_debug_reads(), 0u);
}

TEST(DebugReadModel, Refusals) {
  const Profile p = *profile_by_name("v6.12.118");
  System sys(p, 1);
  EXPECT_EQ(sys.debug_read(1, -1, false), Refusal::bad_argument);
  EXPECT_EQ(sys.debug_read(0, 3, false), Refusal::no_such_group);
}

// The regression scenario: I-SUM at the tick inside the read, and the kernel
// crashes at a pick 2 ms later (pick_eevdf() returns NULL).
TEST(DebugReadModel, LostUpdateEndsInANullPick) {
  const Scenario s = parse(
      "profile v6.12.118\nkeep_going\ntask A\ntask B\nwake A\nwake B\ntick\ndebug_read racing\ntick\nrun 20ms\n");
  ExecOptions o;
  o.keep_going = true;
  const ExecResult r = execute(s, *profile_by_name("v6.12.118"), o);
  ASSERT_FALSE(r.violations.empty());
  EXPECT_EQ(inv::id_name(r.violations.front().id), std::string("I-SUM"));
  EXPECT_EQ(r.violations.front().op_index, 6);
  EXPECT_TRUE(r.oops);
}

// The minimizer keeps `racing` where the finding needs it, and drops the
// operations around it.
TEST(DebugReadMinimize, KeepsRacingWhereNeeded) {
  const Profile p = *profile_by_name("v6.12.118");
  const Scenario s = parse(
      "profile v6.12.118\ntask A\ntask B\ntask C nice=3\nwake A\nwake B\ntick\ndebug_read\n"
      "debug_read racing\ntick\nrun 1ms\n");
  const ExecResult r = execute(s, p, ExecOptions{});
  ASSERT_FALSE(r.violations.empty());
  ASSERT_EQ(inv::id_name(r.violations.front().id), std::string("I-SUM"));
  const fuzz::MinimizeResult m = fuzz::minimize(s, p, r.violations.front(), std::chrono::seconds(20));
  bool racing = false;
  for (const Op& op : m.scenario.ops) racing = racing || (op.kind == OpKind::debug_read && op.racing);
  EXPECT_TRUE(racing) << print_scenario(m.scenario);
  EXPECT_LE(m.scenario.ops.size(), 7u) << print_scenario(m.scenario);
  EXPECT_EQ(m.violation.id, r.violations.front().id);
}

// ---------------------------------------------------------------- the kernel backend

// 6.12.118's print_cfs_rq() calls avg_vruntime() after dropping the lock (read
// from the tree's debug.c at build time), and the backend's reader runs the
// tree's own avg_vruntime(): the model agrees field for field, and the NULL
// pick crashes both.
TEST(DebugReadKernel, LockstepAndTheCrash) {
  if (!kernelsrc::available()) GTEST_SKIP() << "no kernel backend in this build";
  if (!test::kernel_tree_is("6.12.")) GTEST_SKIP() << kernelsrc::kernel_version();
  EXPECT_TRUE(kernelsrc::debug_reader_unlocked());
  const Profile p = *profile_by_name("v6.12.118");
  const Scenario s = parse(
      "profile v6.12.118\nkeep_going\ntask A\ntask B\ngroup G\nmove B G\nwake A\nwake B\ntick\n"
      "debug_read G racing\nrun 1ms\ndebug_read racing\ntick\ndebug_read\nrun 20ms\n");
  ExecOptions o;
  o.keep_going = true;
  o.backend = Backend::lockstep;
  const ExecResult lock = execute(s, p, o);
  EXPECT_FALSE(lock.divergence.has_value()) << lock.divergence->field << ": model " << lock.divergence->model
                                            << ", kernel " << lock.divergence->kernel;
  const Scenario crash = parse(
      "profile v6.12.118\nkeep_going\ntask A\ntask B\nwake A\nwake B\ntick\ndebug_read racing\ntick\nrun 20ms\n");
  o.backend = Backend::kernel;
  const ExecResult k = execute(crash, p, o);
  EXPECT_TRUE(k.oops);
  bool null_pick = false;
  for (const auto& v : k.violations) null_pick = null_pick || (v.id == inv::Id::NULLPICK && v.op_index == 7);
  EXPECT_TRUE(null_pick);
  o.backend = Backend::lockstep;
  const ExecResult both = execute(crash, p, o);
  EXPECT_TRUE(both.oops);
  EXPECT_FALSE(both.divergence.has_value());
}

}  // namespace
}  // namespace eevdf::scn
