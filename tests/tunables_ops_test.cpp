// `base_slice_ns DUR` (the debugfs write of
// sched/base_slice_ns mid-run: sysctl_sched_base_slice, read by
// update_deadline(), place_entity(), __sched_fork() and __setparam_fair()
// from then on) and `group_destroy G` (cgroup rmdir:
// unregister_fair_sched_group(), which dequeues a still-delayed group
// entity). Their text and byte forms (format 7; older formats decode as
// before), the refusals, values derived by hand on the model, and the kernel
// backend running 6.12.118's own code, alone and in lockstep.
#include <gtest/gtest.h>

#include <string>
#include <variant>
#include <vector>

#include "kernelsrc/kernel_backend.hpp"
#include "model/profile.hpp"
#include "model/system.hpp"
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
ExecResult run(const std::string& text, Backend b = Backend::model) {
  return test::run_scenario_text(text, "test.scn", false, b);
}
bool kernel_612() { return test::kernel_tree_is("6.12."); }

// ---- base_slice_ns ----

TEST(BaseSliceText, RoundTripRangeAndTheDirective) {
  const Scenario s = parse("profile mainline\nbase_slice 1ms\ntask A\nbase_slice_ns 5ms\nbase_slice_ns 100us\n");
  ASSERT_EQ(s.ops.size(), 3u);
  EXPECT_EQ(s.base_slice, 1'000'000);  // the directive: the normalized value
  EXPECT_EQ(s.ops[1].kind, OpKind::base_slice);
  EXPECT_EQ(s.ops[1].base_slice_ns(), 5'000'000u);
  EXPECT_EQ(print_scenario(s), "profile mainline\nbase_slice 1ms\ntask A\nbase_slice_ns 5ms\nbase_slice_ns 100us\n");
  // first in the operation list: still the operation (its own keyword)
  const Scenario first = parse("base_slice_ns 3ms\ntask A\n");
  EXPECT_TRUE(same_scenario(parse(print_scenario(first)), first));
  EXPECT_EQ(parse_error("task A\nbase_slice_ns 99us\n"),
            "test.scn:2:15: error: expected a base slice between 0.1ms and 100ms after 'base_slice_ns', found '99us'");
  EXPECT_EQ(parse_error("task A\nbase_slice_ns 101ms\n"),
            "test.scn:2:15: error: expected a base slice between 0.1ms and 100ms after 'base_slice_ns', found '101ms'");
  EXPECT_EQ(parse_error("task A\nbase_slice_ns 0\n"),
            "test.scn:2:15: error: expected a base slice between 0.1ms and 100ms after 'base_slice_ns', found '0'");
  EXPECT_EQ(parse_error("task A\nbase_slice_ns\n"),
            "test.scn:2:14: error: expected a base slice between 0.1ms and 100ms after 'base_slice_ns' (e.g. 3ms), "
            "found end of line");
  EXPECT_EQ(parse_error("task A\nbase_slice_ns 1ms 2ms\n"),
            "test.scn:2:19: error: expected end of line after the base slice, found '2ms'");
}

// The write stores sysctl_sched_base_slice on every CPU; the normalized value
// (which set_protect_slice() reads on mainline) stays.
TEST(BaseSliceModel, StoresTheSysctlOnEveryCpuAndKeepsTheNormalizedValue) {
  System sys(*profile_by_name("mainline"), 2);
  EXPECT_EQ(sys.rq(0).profile().sysctl_sched_base_slice(), 2'800'000u);  // 700 us x (1 + ilog2(8))
  EXPECT_EQ(sys.write_base_slice_ns(5'000'000), Refusal::none);
  for (unsigned c = 0; c < 2; ++c) {
    EXPECT_EQ(sys.rq(c).profile().sysctl_sched_base_slice(), 5'000'000u);
    EXPECT_EQ(sys.rq(c).profile().tunables.normalized_base_slice, 700'000u);
    EXPECT_EQ(sys.rq(c).earlier_base_slices, std::vector<u64>{2'800'000});
  }
  EXPECT_EQ(sys.write_base_slice_ns(99'999), Refusal::bad_argument);
  EXPECT_EQ(sys.write_base_slice_ns(100'000'001), Refusal::bad_argument);
  EXPECT_EQ(sys.rq(1).profile().sysctl_sched_base_slice(), 5'000'000u);
}

// A task placed after the write takes the new slice at once; one queued before
// keeps its slice until update_deadline() renews it at its next deadline.
constexpr const char* kNewTaskTakesNewSlice =
    "task A\ntask B\nwake A\nwake B\nrun 3ms\n"
    "base_slice_ns 5ms\n"
    "expect field B.slice == 2800us\n"  // queued before: not renewed yet
    "task C\n"
    "expect field C.slice == 5ms\n"     // __sched_fork()
    "wake C\n"
    "expect field C.slice == 5ms\n"     // place_entity()
    "run 30ms\n"
    "expect field A.slice == 5ms\n"     // update_deadline()
    "expect field B.slice == 5ms\n"
    "expect no-violation\n";

TEST(BaseSliceModel, ATaskPlacedAfterTheWriteTakesTheNewSlice) {
  // (v7.0 .. v7.2 raise their expected I-AUG at the first wake-up: docs/profiles.md)
  for (const char* profile : {"mainline", "v6.18", "v6.12.118"}) {
    SCOPED_TRACE(profile);
    test::expect_ok(run(std::string("profile ") + profile + "\n" + kNewTaskTakesNewSlice));
  }
  // v6.6: base 750 us x 4
  test::expect_ok(run("profile v6.6\ntask A\nwake A\nrun 2ms\nbase_slice_ns 1ms\ntask C\nwake C\n"
                      "expect field C.slice == 1ms\nexpect field A.slice == 3ms\nrun 20ms\n"
                      "expect field A.slice == 1ms\n"));
}

TEST(BaseSliceKernel, ATaskPlacedAfterTheWriteTakesTheNewSliceOnTheKernelsCode) {
  if (!kernel_612()) GTEST_SKIP() << "no 6.12 kernel backend in this build";
  const std::string text = std::string("profile v6.12.118\n") + kNewTaskTakesNewSlice;
  test::expect_ok(run(text, Backend::kernel));
  const ExecResult r = run(text, Backend::lockstep);
  test::expect_ok(r);
  EXPECT_FALSE(r.divergence.has_value());
}

// ---- group_destroy ----

// G's last task sleeps while G's entity is ineligible: the entity stays queued
// as sched_delayed; the rmdir's unregister_fair_sched_group() dequeues it.
constexpr const char* kDelayedGroupEntity =
    "group G\ntask A group=G\ntask B\nwake A\nrun 2ms\nwake B\nrun 500us\n"
    "expect curr A\n"
    "sleep A\n"
    "expect field G.sched_delayed == 1\n"
    "expect queue root.nr_queued == 2\n"
    "move A root\n"
    "group_destroy G\n"
    "expect queue root.nr_queued == 1\n"
    "expect queue root.h_nr_queued == 1\n"
    "expect curr B\n"
    "run 5ms\n"
    "expect no-violation\n";

TEST(GroupDestroyModel, DequeuesTheDelayedGroupEntity) {
  for (const char* profile : {"mainline", "v6.18", "v6.12.118"}) {
    SCOPED_TRACE(profile);
    test::expect_ok(run(std::string("profile ") + profile + "\n" + kDelayedGroupEntity));
  }
  // v7.3's single runqueue queues no group entity in a tree: nothing is delayed, nothing to dequeue
  test::expect_ok(run("profile v7.3\ngroup G\ntask A group=G\ntask B\nwake A\nrun 2ms\nwake B\nrun 500us\n"
                      "sleep A\nmove A root\ngroup_destroy G\nrun 5ms\n"
                      "expect no-violation\n"));
  // v6.6 has no delayed dequeue: the group entity left with its task
  test::expect_ok(run("profile v6.6\ngroup G\ntask A group=G\ntask B\nwake A\nrun 2ms\nwake B\nrun 500us\n"
                      "sleep A\nexpect queue root.nr_queued == 1\nmove A root\ngroup_destroy G\n"
                      "expect queue root.nr_queued == 1\nrun 5ms\nexpect no-violation\n"));
}

// Two CPUs: the group has an entity on each (tg->se[cpu]); only CPU 1's is
// delayed, and unregister_fair_sched_group()'s loop dequeues it there. The
// base slice write reaches CPU 1's placement too (one global sysctl).
TEST(GroupDestroyModel, SeveralCpus) {
  test::expect_ok(run("profile mainline\nrunqueues 2\ngroup G\ntask A group=G\ntask B\ntask C\nwake C\n"
                      "wake A cpu=1\nrun 2ms\nwake B cpu=1\nrun 500us\nexpect curr A cpu=1\nsleep A\n"
                      "expect field G.sched_delayed == 1 cpu=1\nexpect field G.sched_delayed == 0\n"
                      "expect queue root.nr_queued == 2 cpu=1\nmove A root\ngroup_destroy G\n"
                      "expect queue root.nr_queued == 1 cpu=1\nbase_slice_ns 1ms\ntask D\nwake D cpu=1\n"
                      "expect field D.slice == 1ms\nrun 10ms\nexpect no-violation\n"));
}

TEST(GroupDestroyKernel, DequeuesTheDelayedGroupEntityOnTheKernelsCode) {
  if (!kernel_612()) GTEST_SKIP() << "no 6.12 kernel backend in this build";
  const std::string text = std::string("profile v6.12.118\n") + kDelayedGroupEntity;
  test::expect_ok(run(text, Backend::kernel));
  const ExecResult r = run(text, Backend::lockstep);
  test::expect_ok(r);
  EXPECT_FALSE(r.divergence.has_value());
}

TEST(GroupDestroyModel, RefusesAGroupInUse) {
  // a task in it (sleeping, or never woken, counts; an exited one does not)
  EXPECT_EQ(run("group G\ntask A group=G\ngroup_destroy G\n").error,
            "line 3: cannot remove group G: a task that has not exited is in the group (cgroup rmdir: "
            "-EBUSY; move it out or let it exit first)");
  test::expect_ok(run("group G\ntask A group=G\nwake A\nrun 1ms\nexit A\ngroup_destroy G\nrun 1ms\n"));
  // a child group
  EXPECT_EQ(run("group G\ngroup H parent=G\ngroup_destroy G\n").error,
            "line 3: cannot remove group G: the group has a child group (cgroup rmdir: -EBUSY; remove the "
            "child first)");
  test::expect_ok(run("group G\ngroup H parent=G\ngroup_destroy H\ngroup_destroy G\n"));
  // a refused rmdir changes nothing: the group keeps running its task (not strict: skipped)
  ExecOptions lax;
  lax.strict = false;
  const Scenario s = parse("group G\ntask A group=G\nwake A\ngroup_destroy G\nrun 2ms\nexpect curr A\n");
  const ExecResult r = execute(s, *profile_by_name("mainline"), lax);
  EXPECT_EQ(r.skipped, 1);
  EXPECT_TRUE(r.expectation_failures.empty());
}

TEST(GroupDestroyText, TheNameIsGoneAndMayBeCreatedAgain) {
  EXPECT_EQ(parse_error("group G\ngroup_destroy G\nshares G 100\n"),
            "test.scn:3:8: error: expected the name of a group created earlier with 'group', found 'G', which was "
            "removed by 'group_destroy' on line 2");
  EXPECT_EQ(parse_error("group G\ngroup_destroy G\ntask A group=G\n"),
            "test.scn:3:14: error: expected the name of a group created earlier with 'group', found 'G', which was "
            "removed by 'group_destroy' on line 2");
  EXPECT_EQ(parse_error("group G\ngroup_destroy G\ngroup_destroy G\n"),
            "test.scn:3:15: error: expected the name of a group created earlier with 'group', found 'G', which was "
            "removed by 'group_destroy' on line 2");
  EXPECT_EQ(parse_error("group G\ngroup_destroy root\n"),
            "test.scn:2:15: error: expected a group created earlier with 'group', found 'root' (the root group "
            "cannot be removed)");
  EXPECT_EQ(parse_error("group_destroy H\n"),
            "test.scn:1:15: error: expected the name of a group created earlier with 'group', found 'H', which does "
            "not exist");
  // rmdir, then mkdir of the same name: a new group (new entity, default shares)
  const std::string again = "group G shares=100\ngroup_destroy G\ngroup G\ntask A group=G\nwake A\nrun 2ms\n"
                            "expect field G.weight == 1048576\n";
  const Scenario s = parse(again);
  EXPECT_EQ(print_scenario(s), "profile mainline\n" + again);
  test::expect_ok(run(again));
  // a removed group keeps its slot: 32 `group` lines at most, removed ones included
  std::string many;
  for (int i = 0; i < 32; ++i) many += "group G" + std::to_string(i) + "\ngroup_destroy G" + std::to_string(i) + "\n";
  EXPECT_EQ(parse_error(many + "group X\n"),
            "test.scn:65:7: error: expected at most 32 groups, found group number 33 'X' (removed groups count too)");
}

// ---- byte format 7 ----

TEST(TunablesBytes, Version7DecodesBothOperationsAndOlderVersionsDecodeAsBefore) {
  // create T0; base_slice_ns table[3]; group G0; group G1 (parent byte 1 of 2: root); group_destroy (byte 0: G0);
  // shares (byte 0: the first live group, G1); move T0 (byte 1: root, one live group)
  const std::vector<std::uint8_t> v7 = {kBytesFormatVersion7, 0, 0, 20, 0, 0, 20, 3, 12, 0, 0, 12, 1, 0,
                                        21, 0, 14, 0, 1, 13, 0, 1};
  EXPECT_EQ(print_scenario(decode_bytes(v7)),
            "profile mainline\ntask T0\nbase_slice_ns 2800us\ngroup G0\ngroup G1\ngroup_destroy G0\n"
            "shares G1 2\nmove T0 root\n");
  const auto enc = encode_bytes(decode_bytes(v7));
  ASSERT_TRUE(enc.has_value());
  EXPECT_EQ(*enc, v7);
  // version 6: opcodes mod 20, so 20 and 21 are create and fork as always
  const std::vector<std::uint8_t> v6 = {kBytesFormatVersion6, 0, 20, 20, 0, 0, 21, 0};
  EXPECT_EQ(print_scenario(decode_bytes(v6)), "profile mainline\ntask T0\nfork T0 -> T1\n");
  // group_destroy with no live group creates one, as shares does; with every slot used, schedule
  const std::vector<std::uint8_t> none = {kBytesFormatVersion7, 0, 21, 5};
  EXPECT_EQ(print_scenario(decode_bytes(none)), "profile mainline\ngroup G0\n");
  std::vector<std::uint8_t> full = {kBytesFormatVersion7, 0};
  for (int i = 0; i < 8; ++i) full.insert(full.end(), {12, 0, 0, 21, 0});
  full.insert(full.end(), {21, 0});
  const Scenario s = decode_bytes(full);
  EXPECT_EQ(s.ops.back().kind, OpKind::schedule);
  // no groups in the campaign: group_destroy decodes as schedule
  const std::vector<std::uint8_t> no_groups = {kBytesFormatVersion7, kBytesNoGroups, 21, 0, 20, 6};
  EXPECT_EQ(print_scenario(decode_bytes(no_groups)), "profile mainline\nschedule\nbase_slice_ns 100ms\n");
  // not representable: a value off the table, a name created again
  EXPECT_FALSE(encode_bytes(parse("base_slice_ns 1ms\n")).has_value());
  EXPECT_FALSE(encode_bytes(parse("group G0\ngroup_destroy G0\ngroup G0\n")).has_value());
  EXPECT_TRUE(encode_bytes(parse("group G0\ngroup_destroy G0\ngroup G1\nshares G1 2\n")).has_value());
}

}  // namespace
}  // namespace eevdf::scn
