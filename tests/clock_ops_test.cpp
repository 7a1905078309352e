// Time off the tick grid: `run DUR notick` (the clock advances with no tick,
// as on a nohz_full CPU: curr's runtime is charged at the next update_curr())
// and `tick DUR` (the clock advances by DUR, then one sched_tick()). Their
// text and byte forms (format 6; older formats decode as before), values
// derived by hand on the model, and the kernel backend running 6.12.118's own
// task_tick_fair() in lockstep with the model.
#include <gtest/gtest.h>

#include <string>
#include <variant>
#include <vector>

#include "kernelsrc/kernel_backend.hpp"
#include "model/profile.hpp"
#include "scenario/bytes.hpp"
#include "scenario/executor.hpp"
#include "scenario/scenario_parse.hpp"
#include "scenario/scenario_print.hpp"
#include "support/kernel_tree.hpp"
#include "support/run_scenario.hpp"
#include "support/scenario_text.hpp"

namespace eevdf::scn {
namespace {

Scenario parse(const std::string& text) { return test::parse_ok(text, "test.scn"); }

std::string parse_error(const std::string& text) { return test::parse_error_text(text, "test.scn"); }

// As `eevdf-check run` does: the scenario's profile, strictly.
ExecResult run(const std::string& text, Backend b = Backend::model) {
  return test::run_scenario_text(text, "test.scn", false, b);
}

std::string first_failure(const ExecResult& r) {
  return r.expectation_failures.empty() ? r.error : r.expectation_failures.front();
}

TEST(ClockOpsText, FormsRoundTripAndErrors) {
  const std::string text = "profile mainline\ntask A\nwake A\nrun 3ms notick\ntick 1500us\ntick\nrun 1ms\n";
  const Scenario s = parse(text);
  ASSERT_EQ(s.ops.size(), 6u);
  EXPECT_EQ(s.ops[2].kind, OpKind::run_notick);
  EXPECT_EQ(s.ops[2].value, 3'000'000);
  EXPECT_EQ(s.ops[3].kind, OpKind::tick_after);
  EXPECT_EQ(s.ops[3].value, 1'500'000);
  EXPECT_EQ(s.ops[4].kind, OpKind::tick);
  EXPECT_EQ(s.ops[5].kind, OpKind::run);
  EXPECT_EQ(print_scenario(s), text);
  EXPECT_TRUE(same_scenario(parse(print_scenario(s)), s));
  Scenario t = s;
  t.ops[3].value = 1'500'001;
  EXPECT_FALSE(same_scenario(t, s));

  EXPECT_EQ(parse_error("profile mainline\nrun 3ms notick now\n"),
            "test.scn:2:16: error: expected end of line after 'notick', found 'now'");
  EXPECT_EQ(parse_error("profile mainline\nrun 3ms later\n"),
            "test.scn:2:9: error: expected end of line after the duration, found 'later'");
  EXPECT_EQ(parse_error("profile mainline\ntick 3ms 4ms\n"),
            "test.scn:2:10: error: expected end of line after the duration, found '4ms'");
  EXPECT_NE(parse_error("profile mainline\ntick soon\n").find("test.scn:2:6: error:"), std::string::npos);
  // each keyword once in the list of operations
  const std::string e = parse_error("profile mainline\nwalk\n");
  EXPECT_EQ(e.find("run, tick"), e.rfind("run, tick")) << e;
  EXPECT_EQ(e.find(", run,"), e.rfind(", run,")) << e;
}

TEST(ClockOpsBytes, Version6RoundTripAndOlderVersionsUnchanged) {
  const Scenario s = parse("profile mainline\ntask T0\nwake T0\nrun 3ms notick\ntick 1500us\ntick\nrun 1ms\n");
  const auto enc = encode_bytes(s);
  ASSERT_TRUE(enc.has_value());
  EXPECT_EQ((*enc)[0], kBytesFormatVersion6);
  EXPECT_TRUE(bytes_version_supported(enc->data(), enc->size()));
  EXPECT_TRUE(same_scenario(decode_bytes(*enc), s)) << print_scenario(decode_bytes(*enc));

  // opcodes 18 and 19: create (18 % 18) and fork (19 % 18) in version 5,
  // run_notick and tick_after in version 6
  const std::vector<std::uint8_t> v5 = {kBytesFormatVersion5, 0, 18, 0, 0, 0};
  EXPECT_EQ(decode_bytes(v5).ops.at(0).kind, OpKind::create);
  const std::vector<std::uint8_t> v6 = {kBytesFormatVersion6, 0, 18, 7, 0, 0, 19, 12, 1, 2};
  const Scenario d6 = decode_bytes(v6);
  ASSERT_EQ(d6.ops.size(), 2u);
  EXPECT_EQ(d6.ops[0].kind, OpKind::run_notick);
  EXPECT_EQ(d6.ops[0].value, kBytesDurations[7]);
  EXPECT_EQ(d6.ops[1].kind, OpKind::tick_after);
  EXPECT_EQ(d6.ops[1].value, 258'000);  // (1 << 8 | 2) us
  // version 6 without the reader: debug_read decodes as schedule; with it, as itself
  const std::vector<std::uint8_t> reader = {kBytesFormatVersion6, 0, 17, 0, 0};
  EXPECT_EQ(decode_bytes(reader).ops.at(0).kind, OpKind::debug_read);
  const std::vector<std::uint8_t> no_reader = {kBytesFormatVersion6, kBytesNoDebugRead, 17, 0, 0};
  EXPECT_EQ(decode_bytes(no_reader).ops.at(0).kind, OpKind::schedule);
  EXPECT_EQ(decode_bytes(no_reader).runqueues, 1u);
  // the early-ticks bit (the campaign without --late-ticks): tick DUR within 1ms, run unchanged
  const std::vector<std::uint8_t> late = {kBytesFormatVersion6, 0, 19, 11, 0, 0, 18, 11, 0, 0};
  EXPECT_EQ(decode_bytes(late).ops.at(0).value, 100'000'000);
  const std::vector<std::uint8_t> early = {kBytesFormatVersion6, kBytesEarlyTicks, 19, 11, 0, 0, 19, 15, 9, 9,
                                           18, 11, 0, 0};
  const Scenario e = decode_bytes(early);
  ASSERT_EQ(e.ops.size(), 3u);
  EXPECT_EQ(e.ops[0].value, 1'000'000);  // kBytesDurations[11 % 6]
  EXPECT_EQ(e.ops[1].value, 700'000);    // [15 % 6], not the raw 0x0909 us
  EXPECT_EQ(e.ops[2].value, 100'000'000);  // run notick keeps every duration
  // the no-tickless bit (the campaign without --nohz-full): run notick decodes as run
  const std::vector<std::uint8_t> ticking = {kBytesFormatVersion6, kBytesNoTickless, 18, 11, 0, 0, 19, 5, 0, 0};
  const Scenario t = decode_bytes(ticking);
  ASSERT_EQ(t.ops.size(), 2u);
  EXPECT_EQ(t.ops[0].kind, OpKind::run);
  EXPECT_EQ(t.ops[0].value, 100'000'000);
  EXPECT_EQ(t.ops[1].kind, OpKind::tick_after);
}

// A alone, nice 0: `run 1ms notick` picks A and moves the clock, charging
// nothing; `tick 500us` charges the whole 1.5ms at once (update_curr() from
// exec_start 0). vruntime starts at the zero point -1048576ns.
TEST(ClockOpsModel, NotickChargesAtTheNextUpdate) {
  const ExecResult ok = run(
      "profile mainline\ntask A\nwake A\nrun 1ms notick\n"
      "expect curr A\nexpect field A.sum_exec_runtime == 0\nexpect field A.vruntime == -1048576\n"
      "tick 500us\n"
      "expect field A.sum_exec_runtime == 1500us\nexpect field A.vruntime == 451424\n"
      "expect field A.exec_start == 1500us\n");
  EXPECT_TRUE(ok.ok()) << first_failure(ok);
}

// nohz_full stops the tick only for a lone task (sched_can_stop_tick():
// h_nr_queued <= 1). A runs 20ms with no tick, far past its deadline (slice
// 2.8ms: 0.7ms x (1 + ilog2(8 CPUs))); B's wake-up charges the 20ms
// (update_curr() in enqueue, which also gives A its next deadline) and B, with
// the earlier deadline, runs at the next schedule; now two are queued, and a
// tickless run is refused with the kernel's reason.
TEST(ClockOpsModel, NotickOnlyForALoneTask) {
  const std::string text =
      "profile mainline\ntask A\ntask B\nwake A\nrun 20ms notick\n"
      "expect curr A\nexpect field A.sum_exec_runtime == 0\nexpect queue root.need_resched == 0\n"
      "wake B\n"
      "expect field A.sum_exec_runtime == 20ms\nschedule\nexpect curr B\n";
  const ExecResult r = run(text);
  EXPECT_TRUE(r.ok()) << first_failure(r);
  const ExecResult refused = run(text + "run 1ms notick\n");
  EXPECT_EQ(refused.error,
            "line 13: cannot run: the CPU cannot stop its tick: more than one task queued (sched_can_stop_tick(): "
            "h_nr_queued > 1)");
  // a delayed (sleeping, still queued) task counts as the kernel counts it
  const ExecResult idle = run("profile mainline\ntask A\nwake A\nrun 1ms notick\nrun 1ms notick\n");
  EXPECT_TRUE(idle.ok()) << first_failure(idle);
  // with a tick of any length instead, the tick finds A past its deadline and B runs
  const ExecResult ticked = run(
      "profile mainline\ntask A\ntask B\nwake A\nwake B\ntick 20ms\nexpect curr B\n"
      "expect field A.sum_exec_runtime == 20ms\n");
  EXPECT_TRUE(ticked.ok()) << first_failure(ticked);
}

// Several CPUs: every CPU must be able to stop its tick.
TEST(ClockOpsModel, NotickOnSeveralCpus) {
  const ExecResult r = run(
      "profile mainline\nrunqueues 2\ntask A\ntask B\nwake A\nwake B cpu=1\nrun 5ms notick\n"
      "expect curr A\nexpect curr B cpu=1\nexpect field A.sum_exec_runtime == 0\ntick 1ms\n"
      "expect field A.sum_exec_runtime == 6ms\nexpect field B.sum_exec_runtime == 6ms\n");
  EXPECT_TRUE(r.ok()) << first_failure(r);
  const ExecResult refused =
      run("profile mainline\nrunqueues 2\ntask A\ntask B\nwake A cpu=1\nwake B cpu=1\nrun 5ms notick\n");
  EXPECT_NE(refused.error.find("cannot stop its tick"), std::string::npos) << refused.error;
}

// The kernel's own code (6.12.118) and the model agree, operation by operation.
TEST(ClockOpsKernel, LockstepOn612) {
  if (!kernelsrc::available()) GTEST_SKIP() << "no kernel backend in this build";
  if (!test::kernel_tree_is("6.12.")) GTEST_SKIP() << "a v6.12.118 scenario; this build: Linux " << kernelsrc::kernel_version();
  const std::string text =
      "profile v6.12.118\ntask A\ntask B nice=5\ngroup G\ntask C group=G\nwake C\nrun 3ms notick\n"
      "tick 1500us\nwake A\nrun 700us\ntick 3ms\nnice A 2\nwake B\nrun 2ms\ntick 1ns\ntick 2500us\n"
      "schedule\ntick 10ms\n";
  const ExecResult r = run(text, Backend::lockstep);
  EXPECT_TRUE(r.error.empty()) << r.error;
  EXPECT_FALSE(r.divergence.has_value()) << r.divergence->field << ": model " << r.divergence->model << ", kernel "
                                         << r.divergence->kernel;
  EXPECT_EQ(r.executed, 17u);
  // the kernel backend refuses a tickless run with two tasks queued, as the model does
  const ExecResult refused = run(text + "run 1ms notick\n", Backend::lockstep);
  EXPECT_NE(refused.error.find("cannot stop its tick"), std::string::npos) << refused.error;
}

}  // namespace
}  // namespace eevdf::scn
