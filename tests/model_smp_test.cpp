// Several CPUs (model/system.hpp): migration of a queued task (detach_task /
// attach_task), of a delayed one, a wake-up on another CPU, the shared wall
// clock, the scenario language's runqueues / wake cpu= / migrate / expect curr
// cpu=, and byte format version 3.
//
// Hand-computed values: the base slice is 0.7 ms x (1 + ilog2(8)) = 2.8 ms
// (8 online CPUs), a new task's first deadline is v + 1.4 ms (ENQUEUE_INITIAL
// halves it), nice-0 weights make virtual time equal real time, and every
// queue starts at V0 = zero_vruntime = -2^20 (as s64: -1048576).
#include <gtest/gtest.h>

#include <string>
#include <variant>
#include <vector>

#include "scenario/bytes.hpp"
#include "scenario/executor.hpp"
#include "fuzz/op_mutator.hpp"
#include "fuzz/rc_commands.hpp"
#include "scenario/scenario_parse.hpp"
#include "support/run_scenario.hpp"
#include "support/scenario_text.hpp"
#include "scenario/scenario_print.hpp"
#include "model/system.hpp"

namespace eevdf {
namespace {

constexpr s64 kV0 = -1048576;

// The scenario's own directives (profile, cpus, hz, runqueues) count, as in `eevdf-check run`.
scn::ExecResult run_text(const std::string& text) { return test::run_scenario_text(text); }
using test::expect_ok;

// The counterexample as `eevdf-check check` prints it ("" when the check passed).
std::string counterexample_text(const fuzz::CheckOutcome& o) {
  return o.counterexample ? scn::print_scenario(*o.counterexample) : std::string();
}
std::string parse_error(const std::string& text) { return test::parse_error_text(text); }

// A queued task moved by the load balancer keeps its lag (re-inflated for the
// destination's load by place_entity()) and its deadline relative to its
// vruntime (DEQUEUE without SLEEP sets rel_deadline; place_entity() clears it).
//   CPU 0: A and B woken at V0 (deadlines V0 + 1.4 ms), A runs 1 ms:
//          V = V0 + 0.5 ms, B's lag = +0.5 ms, B's d - v = 1.4 ms.
//   CPU 1: C and D likewise, C runs 1 ms: V1 = V0 + 0.5 ms, load 2w.
//   B placed on CPU 1: lag 0.5 ms x (2w + w) / 2w = 0.75 ms,
//          v = V1 - 0.75 ms = V0 - 0.25 ms = -1298576, d = v + 1.4 ms = 101424.
//   Then V1' = (V0 + 1 ms + V0 + V0 - 0.25 ms) / 3 = V0 + 0.25 ms: B's lag is 0.5 ms again.
TEST(Smp, QueuedMigrationCarriesLagAndRelativeDeadline) {
  expect_ok(run_text(
      "runqueues 2\n"
      "task A\ntask B\ntask C\ntask D\n"
      "wake A\nwake B\nwake C cpu=1\nwake D cpu=1\n"
      "run 1ms\n"
      "expect curr A cpu=0\nexpect curr C cpu=1\n"
      "expect field B.deadline == 351424\n"       // V0 + 1.4 ms
      "migrate B 1\n"
      "expect field B.cpu == 1\n"
      "expect field B.on_rq == 1\n"
      "expect field B.rel_deadline == 0\n"
      "expect field B.vlag == 500000\n"           // saved on CPU 0 by update_entity_lag()
      "expect field B.vruntime == -1298576\n"
      "expect field B.deadline == 101424\n"
      "expect curr C cpu=1\n"                     // C still protected (RUN_TO_PARITY): no preemption
      "expect field A.cpu == 0\n"
      "run 10ms\n"
      "expect no-violation\n"));
}

// A sleeping task woken on another CPU carries only its saved lag: the
// deadline is a fresh slice (no rel_deadline), exec_start is cleared
// (ENQUEUE_MIGRATED).
//   CPU 1: C runs from 0; at the 2 ms tick its deadline (V0 + 1.4 ms) has
//          passed: D (v = V0) is picked with lag V - v = (2 ms + 0) / 2 = 1 ms.
//   sleep D: eligible, so dequeued at once with vlag = 1 ms.
//   CPU 0: A alone ran 2 ms: V = V0 + 2 ms. D placed with lag 1 ms x 2w / w
//          = 2 ms: v = V0, deadline = V0 + 2.8 ms = 1751424.
TEST(Smp, SleepingTaskWokenElsewhereCarriesOnlyItsLag) {
  expect_ok(run_text(
      "runqueues 2\n"
      "task A\ntask C\ntask D\n"
      "wake A\nwake C cpu=1\nwake D cpu=1\n"
      "run 2ms\n"
      "expect curr A cpu=0\nexpect curr D cpu=1\n"
      "expect field A.sum_exec_runtime == 2ms\n"  // every CPU ran the 2 ms of wall clock
      "expect field C.sum_exec_runtime == 2ms\n"
      "sleep D\n"
      "expect field D.on_rq == 0\n"
      "expect field D.sched_delayed == 0\n"
      "expect field D.vlag == 1000000\n"
      "expect curr C cpu=1\n"
      "wake D cpu=0\n"
      "expect field D.cpu == 0\n"
      "expect field D.vruntime == -1048576\n"
      "expect field D.deadline == 1751424\n"
      "expect field D.rel_deadline == 0\n"
      "expect field D.exec_start == 0\n"
      "run 5ms\n"
      "expect no-violation\n"));
}

// A delayed task (DELAY_DEQUEUE) may be moved by a load migration: it is fully
// dequeued (lag saved, deadline relative), placed on the destination and stays
// delayed there; wakeup_preempt_fair() returns for a delayed wakee.
//   CPU 0: A runs 1 ms (v = V0 + 1 ms, d = V0 + 1.4 ms), B waits at V0:
//          V = V0 + 0.5 ms; sleep A: not eligible, so delayed; B runs.
//   migrate A 1: lag -0.5 ms, d - v = 0.4 ms. CPU 1: C alone ran 1 ms (V1 = V0 + 1 ms):
//          lag -0.5 ms x 2w / w = -1 ms: v = V0 + 2 ms = 951424, d = 1351424.
//   wake A (cpu=0 is not consulted: the task is still queued, ttwu_runnable()
//          requeues it on CPU 1): lag V1' - v = -0.5 ms is within the clamp, so
//          it stays where it is and is no longer delayed.
TEST(Smp, DelayedTaskMigratesDelayed) {
  expect_ok(run_text(
      "runqueues 2\n"
      "task A\ntask B\ntask C\n"
      "wake A\nwake B\nwake C cpu=1\n"
      "run 1ms\n"
      "sleep A\n"
      "expect field A.sched_delayed == 1\n"
      "expect curr B cpu=0\n"
      "migrate A 1\n"
      "expect field A.cpu == 1\n"
      "expect field A.sched_delayed == 1\n"
      "expect field A.on_rq == 1\n"
      "expect field A.rel_deadline == 0\n"
      "expect field A.vruntime == 951424\n"
      "expect field A.deadline == 1351424\n"
      "expect curr C cpu=1\n"
      "wake A cpu=0\n"
      "expect field A.cpu == 1\n"
      "expect field A.sched_delayed == 0\n"
      "expect field A.vruntime == 951424\n"
      "run 10ms\n"
      "expect no-violation\n"));
}

TEST(Smp, RefusalsAndNoOps) {
  // the load balancer does not move the running task (strict text scenarios stop)
  const auto r = run_text("runqueues 2\ntask A\nwake A\nrun 1ms\nmigrate A 1\n");
  EXPECT_NE(r.error.find("line 5: cannot migrate A: the task is running on its CPU"), std::string::npos) << r.error;
  // a new task migrated only changes CPU; its first wake-up is there
  expect_ok(run_text("runqueues 3\ntask A\nmigrate A 2\nexpect field A.cpu == 2\nwake A\nrun 1ms\n"
                     "expect curr A cpu=2\nexpect curr idle cpu=0\nexpect field A.exec_start == 1ms\n"));
  // migrate to the task's own CPU changes nothing
  expect_ok(run_text("runqueues 2\ntask A\ntask B\nwake A\nwake B\nrun 1ms\nmigrate B 0\n"
                     "expect field B.deadline == 351424\nexpect field B.rel_deadline == 0\n"));
}

// The System with one runqueue is the lone runqueue: same clock, same ticks.
TEST(Smp, WallClockAndTicksOnEveryCpu) {
  System sys(*profile_by_name("mainline"), 3);
  ASSERT_EQ(sys.size(), 3u);
  sys.run(2'500'000);
  for (unsigned c = 0; c < 3; ++c) EXPECT_EQ(sys.rq(c).clock_task, 2'500'000u);
  sys.tick();  // to the next boundary at HZ=1000
  for (unsigned c = 0; c < 3; ++c) EXPECT_EQ(sys.rq(c).clock_task, 3'000'000u);
}

TEST(Smp, ParseErrors) {
  EXPECT_EQ(parse_error("runqueues 9\n"), "t.scn:1:11: error: expected a runqueue count between 1 and 8, found '9'");
  EXPECT_EQ(parse_error("runqueues 0\n"), "t.scn:1:11: error: expected a runqueue count between 1 and 8, found '0'");
  EXPECT_EQ(parse_error("task A\nwake A cpu=1\n"),
            "t.scn:2:12: error: expected a CPU between 0 and 0 after 'cpu=' (runqueues 1), found '1'");
  EXPECT_EQ(parse_error("runqueues 2\ntask A\nwake A cpu=x\n"),
            "t.scn:3:12: error: expected a CPU between 0 and 1 after 'cpu=' (runqueues 2), found 'x'");
  EXPECT_EQ(parse_error("runqueues 2\ntask A\nwake A cpu=1 sync\n"),
            "t.scn:3:14: error: expected end of line after 'cpu=N' (cpu= names the CPU, from= where the wake-up is "
            "made: one of them), found 'sync'");
  EXPECT_EQ(parse_error("runqueues 2\ntask A\nwake A cpu=1 from=0\n"),
            "t.scn:3:14: error: expected end of line after 'cpu=N' (cpu= names the CPU, from= where the wake-up is "
            "made: one of them), found 'from=0'");
  EXPECT_EQ(parse_error("runqueues 2\ntask A\nwake A sync from=2\n"),
            "t.scn:3:18: error: expected a CPU between 0 and 1 after 'from=' (runqueues 2), found '2'");
  EXPECT_EQ(parse_error("runqueues 2\ntask A\nwake A sync now\n"),
            "t.scn:3:13: error: expected 'cpu=N', 'from=N' or end of line after 'sync', found 'now'");
  EXPECT_EQ(parse_error("runqueues 2\ntask A\nmigrate A\n"),
            "t.scn:3:10: error: expected a CPU after the task name (migrate NAME CPU), found end of line");
  EXPECT_EQ(parse_error("runqueues 2\ntask A\nmigrate A 2\n"),
            "t.scn:3:11: error: expected a CPU between 0 and 1 after the task name (runqueues 2), found '2'");
  EXPECT_EQ(parse_error("runqueues 2\nmigrate B 1\n"),
            "t.scn:2:9: error: expected the name of a task created earlier with 'task' or 'fork', found 'B', which "
            "does not exist");
  EXPECT_EQ(parse_error("runqueues 2\ntask A\nexpect curr A cpu=3\n"),
            "t.scn:3:19: error: expected a CPU between 0 and 1 after 'cpu=' (runqueues 2), found '3'");
  // task groups have an entity on every CPU: `expect field` of a group takes cpu=, of a task not
  EXPECT_EQ(parse_error("runqueues 2\ngroup g\nexpect field g.weight == 1024 cpu=2\n"),
            "t.scn:3:35: error: expected a CPU between 0 and 1 after 'cpu=' (runqueues 2), found '2'");
  EXPECT_EQ(parse_error("runqueues 2\ntask A\nexpect field A.weight == 1024 cpu=1\n"),
            "t.scn:3:31: error: expected end of line after the value, found 'cpu=1'");
  EXPECT_EQ(parse_error("task A\nrunqueues 2\n"),
            "t.scn:2:1: error: expected an operation or 'expect', found the directive 'runqueues' (directives must "
            "come before the first operation, which is on line 1)");
}

TEST(Smp, PrintRoundTrip) {
  const std::string text =
      "profile v7.2\nrunqueues 4\ntask A\nwake A sync cpu=3\nmigrate A 1\nexpect curr A cpu=2\nexpect curr idle\n";
  auto parsed = scn::parse_scenario(text, "t.scn");
  ASSERT_TRUE(std::holds_alternative<scn::Scenario>(parsed));
  const auto& s = std::get<scn::Scenario>(parsed);
  EXPECT_EQ(s.runqueues, 4u);
  EXPECT_EQ(s.ops[1].cpu, 3);
  EXPECT_TRUE(s.ops[1].sync);
  EXPECT_EQ(s.ops[4].cpu, -1);
  EXPECT_EQ(scn::print_scenario(s), text);
}

// Version 3: a runqueue byte, migrate = opcode 16, wake flags bit 1 = cpu=(flags >> 2) % runqueues;
// group opcodes become schedule with several runqueues.
TEST(Smp, BytesVersion3) {
  const std::vector<std::uint8_t> v3 = {3, 1,           // 2 runqueues
                                        0, 20, 0, 0,    // task T0
                                        2, 0, 1 | 2 | (5 << 2),  // wake T0 sync cpu=5 % 2 = 1
                                        2, 0, 0,        // wake T0 (on its CPU)
                                        16, 0, 7,       // migrate T0 7 % 2 = 1
                                        12, 0, 0,       // group: schedule (2 runqueues)
                                        33, 0, 9};      // 33 % 17 = 16: migrate T0 1
  const scn::Scenario s = scn::decode_bytes(v3);
  EXPECT_EQ(s.runqueues, 2u);
  ASSERT_EQ(s.ops.size(), 6u);
  EXPECT_EQ(s.ops[1].kind, scn::OpKind::wake);
  EXPECT_TRUE(s.ops[1].sync);
  EXPECT_EQ(s.ops[1].cpu, 1);
  EXPECT_EQ(s.ops[2].cpu, -1);
  EXPECT_EQ(s.ops[3].kind, scn::OpKind::migrate);
  EXPECT_EQ(s.ops[3].cpu, 1);
  EXPECT_EQ(s.ops[4].kind, scn::OpKind::schedule);
  EXPECT_EQ(s.ops[5].kind, scn::OpKind::migrate);
  EXPECT_EQ(s.ops[5].cpu, 1);
  const auto enc = scn::encode_bytes(s);
  ASSERT_TRUE(enc);
  EXPECT_EQ((*enc)[0], 3);
  EXPECT_EQ((*enc)[1], 1);
  EXPECT_TRUE(scn::same_scenario(scn::decode_bytes(*enc), s));
  // the decoded text parses back to the same scenario
  auto parsed = scn::parse_scenario(scn::print_scenario(s), "t.scn");
  ASSERT_TRUE(std::holds_alternative<scn::Scenario>(parsed));
  EXPECT_TRUE(scn::same_scenario(std::get<scn::Scenario>(parsed), s));

  // one runqueue in version 3: group opcodes stay groups, cpu= is 0
  const scn::Scenario one = scn::decode_bytes(std::vector<std::uint8_t>{3, 8, 12, 0, 0, 0, 20, 0, 0, 16, 0, 1});
  EXPECT_EQ(one.runqueues, 1u);  // 8 % 8 + 1
  ASSERT_EQ(one.ops.size(), 3u);
  EXPECT_EQ(one.ops[0].kind, scn::OpKind::group_create);
  EXPECT_EQ(one.ops[2].kind, scn::OpKind::migrate);
  EXPECT_EQ(one.ops[2].cpu, 0);

  // versions 1 and 2 read opcode 16 as before (16 % 12 = run; 16 % 16 = create), no runqueue byte
  const scn::Scenario a = scn::decode_bytes(std::vector<std::uint8_t>{1, 16, 5, 0, 0});
  ASSERT_EQ(a.ops.size(), 1u);
  EXPECT_EQ(a.ops[0].kind, scn::OpKind::run);
  EXPECT_EQ(a.ops[0].value, 1'000'000);
  EXPECT_EQ(a.runqueues, 1u);
  const scn::Scenario b = scn::decode_bytes(std::vector<std::uint8_t>{2, 16, 20, 0, 0, 2, 0, 3});
  ASSERT_EQ(b.ops.size(), 2u);
  EXPECT_EQ(b.ops[0].kind, scn::OpKind::create);
  EXPECT_EQ(b.ops[1].cpu, -1);  // flags bit 1 means nothing before version 3
  EXPECT_TRUE(b.ops[1].sync);
  // a scenario without CPU operations still encodes as version 1
  const auto enc1 = scn::encode_bytes(a);
  ASSERT_TRUE(enc1);
  EXPECT_EQ((*enc1)[0], 1);
}

// The operation-level mutator keeps version 3's two header bytes and reads
// the records after them.
TEST(Smp, OpMutatorKeepsTheVersion3Header) {
  const std::vector<std::uint8_t> in = {3, 3, 0, 20, 0, 0, 2, 0, 6, 16, 0, 1, 4, 5, 0, 0};
  for (unsigned seed = 1; seed < 200; ++seed) {
    std::vector<std::uint8_t> b = in;
    b.resize(64);
    const std::size_t n = fuzz::mutate_ops(b.data(), in.size(), b.size(), seed);
    ASSERT_GE(n, 2u);
    EXPECT_EQ(b[0], 3);
    EXPECT_EQ(b[1], 3);
    EXPECT_EQ(scn::decode_bytes(b.data(), n).runqueues, 4u);
  }
}

// RapidCheck on three CPUs (wake cpu=, migrate, the running task of any CPU):
// mainline passes (the older profiles: tests/model_smp_v6_test.cpp).
TEST(Smp, StatefulCheckOnThreeCpus) {
  fuzz::CheckConfig config;
  config.profile = *profile_by_name("mainline");
  config.runqueues = 3;
  config.cases = 300;
  config.max_ops = 60;
  config.seed = 11;
  const auto out = fuzz::run_stateful_check(config);
  EXPECT_TRUE(out.passed) << out.message << "\n" << counterexample_text(out);
  EXPECT_GT(out.ops_executed, 1000);

  // the system's scenario records the runqueues and replays through the executor
  std::string err;
  const auto base = fuzz::make_rc_setup(*profile_by_name("mainline"), err);
  ASSERT_TRUE(base) << err;
  auto setup = std::make_shared<fuzz::RcSetup>(*base);
  setup->runqueues = 2;
  setup->header.runqueues = 2;
  fuzz::RcSystem sut(setup);
  EXPECT_EQ(sut.sys.size(), 2u);
  EXPECT_NE(scn::print_scenario(sut.scenario()).find("runqueues 2"), std::string::npos);
}

}  // namespace
}  // namespace eevdf
