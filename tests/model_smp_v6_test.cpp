// Several CPUs on the older profiles (v7.0, v6.18, v6.12, v6.6): a queued
// task moved by the load balancer (detach_task/attach_task), a sleeping task
// woken on another CPU, and a delayed task migrated while delayed, each
// checked against the formula of that version (docs/profiles.md, "Several
// CPUs"), and the configurations runqueues_refusal() still refuses.
//
// Expected values are computed here from the state before the operation, with
// the version's own rules, independently of the model's sums:
//   V           = floor(sum (v_i - base) * w_i / sum w_i) + base over the
//                 entities queued on that CPU (curr included), w = weight >> 10
//                 (scale_load_down: every one of these versions)
//   saved lag   = clamp(V_src - v, +-limit); limit = max(2 * slice, TICK) up to
//                 v6.18, max_slice + TICK from v7.0 (6e3c0a4e1ad1)
//   placed v    = V_dst - lag * (W_dst + w) / W_dst (C division: div_s64)
//   deadline    = v + (d - v before) where the relative deadline is kept
//                 (82e9d0456e06, v6.12 on), v + one virtual slice on v6.6
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <ostream>
#include <string>
#include <variant>

#include "scenario/executor.hpp"
#include "scenario/scenario_parse.hpp"
#include "model/system.hpp"

namespace eevdf {
namespace {

constexpr u64 kMs = 1'000'000;
constexpr u64 kTick = 1'000'000;  // HZ=1000

struct Version {
  const char* profile;
  u64 slice;           // the base slice at 8 CPUs: 0.7 ms x 4 (v6.15 on), 0.75 ms x 4 before
  bool initial_half;   // a new task's first deadline is half a slice (c40dd90ac045, v6.12)
  bool keeps_rel;      // a non-sleep dequeue keeps the deadline relative (82e9d0456e06, v6.12)
  bool delayed;        // DELAY_DEQUEUE exists (152e11f6df29, v6.12)
  bool max_slice_limit;  // lag limit from max_slice + TICK (6e3c0a4e1ad1, v7.0)
};

std::ostream& operator<<(std::ostream& os, const Version& v) { return os << v.profile; }

const Version kVersions[] = {
    {"v7.0", 2'800'000, true, true, true, true},
    {"v6.18", 2'800'000, true, true, true, false},
    {"v6.12.118", 2'800'000, true, true, true, false},
    {"v6.12", 3'000'000, true, true, true, false},
    {"v6.6", 3'000'000, false, false, false, false},
};

// V of one CPU, from the tasks queued there (curr included).
u64 expected_v(System& sys, unsigned cpu) {
  const CfsRq& cfs = sys.rq(cpu).cfs;
  const u64 base = cfs.zero_vruntime;
  s64 sum = 0, load = 0;
  for (const Task& t : sys.tasks) {
    if (t.cpu != static_cast<int>(cpu) || !t.se.on_rq) continue;
    const s64 w = static_cast<s64>(t.se.load.weight >> 10);
    sum += static_cast<s64>(t.se.vruntime - base) * w;
    load += w;
  }
  if (load == 0) return base;
  s64 q = sum / load;
  if (sum % load != 0 && sum < 0) --q;  // floor
  return base + static_cast<u64>(q);
}

s64 load_of(System& sys, unsigned cpu) {
  s64 load = 0;
  for (const Task& t : sys.tasks)
    if (t.cpu == static_cast<int>(cpu) && t.se.on_rq) load += static_cast<s64>(t.se.load.weight >> 10);
  return load;
}

s64 lag_limit(const Version& ver, const Task& t, System& sys, unsigned cpu) {
  if (!ver.max_slice_limit) return static_cast<s64>(std::max(2 * t.se.slice, kTick));
  u64 max_slice = 0;
  for (const Task& o : sys.tasks)
    if (o.cpu == static_cast<int>(cpu) && o.se.on_rq) max_slice = std::max(max_slice, o.se.slice);
  return static_cast<s64>(max_slice + kTick);
}

// place_entity()'s lag inflation for a nice-0 task joining `load` on the destination.
s64 inflated(s64 lag, s64 load) { return load == 0 ? 0 : lag * (load + 1024) / load; }

class SmpV6 : public ::testing::TestWithParam<Version> {
 protected:
  SmpV6() : sys(*profile_by_name(GetParam().profile), 2) {}
  int task(const char* name) { return sys.rq(0).create_task(name, 0, Policy::normal, 0); }
  Task& t(int id) { return sys.tasks[static_cast<std::size_t>(id)]; }
  System sys;
};

// A queued task moved by the load balancer keeps its lag; from v6.12 its
// deadline stays relative to its vruntime, on v6.6 it gets a fresh slice.
//   CPU 0: A, B, C woken at t = 0; CPU 1: D. After 1 ms A runs on CPU 0.
//   v6.6: A yields (deadline += one slice, so d - v = 5 ms), B runs; A is
//         migrated: its deadline is re-set to v' + 3 ms.
//   v6.12 on: C (never ran, d - v = half a slice from ENQUEUE_INITIAL) is
//         migrated: d' - v' stays half a slice.
TEST_P(SmpV6, QueuedMigrationKeepsLagAndItsDeadlineRule) {
  const Version& ver = GetParam();
  const int a = task("A"), b = task("B"), c = task("C"), d = task("D");
  for (int id : {a, b, c}) ASSERT_EQ(sys.wake(id, false, -1), Refusal::none);
  ASSERT_EQ(sys.wake(d, false, 1), Refusal::none);
  sys.run(1 * kMs);
  ASSERT_EQ(sys.rq(0).curr, a);
  if (!ver.keeps_rel) {
    ASSERT_EQ(sys.rq(0).yield(a), Refusal::none);
  }
  const int x = ver.keeps_rel ? c : a;
  ASSERT_TRUE(t(x).on_rq);
  ASSERT_NE(sys.rq(0).curr, x);
  const u64 rel = t(x).se.deadline - t(x).se.vruntime;
  ASSERT_NE(rel, ver.slice) << "the two deadline rules would agree";
  EXPECT_EQ(rel, ver.keeps_rel ? ver.slice / 2 : 5 * kMs);

  const s64 lag = static_cast<s64>(expected_v(sys, 0) - t(x).se.vruntime);
  ASSERT_LT(std::abs(lag), lag_limit(ver, t(x), sys, 0)) << "not clamped";
  const u64 v_dst = expected_v(sys, 1);
  const s64 w_dst = load_of(sys, 1);
  ASSERT_EQ(w_dst, 1024);

  ASSERT_EQ(sys.migrate(x, 1), Refusal::none);
  const SchedEntity& se = t(x).se;
  EXPECT_EQ(t(x).cpu, 1);
  EXPECT_TRUE(t(x).on_rq);
  EXPECT_TRUE(se.on_rq);
  EXPECT_EQ(se.vlag, lag);
  EXPECT_EQ(se.vruntime, v_dst - static_cast<u64>(inflated(lag, w_dst)));
  EXPECT_EQ(se.deadline, se.vruntime + (ver.keeps_rel ? rel : ver.slice));
  EXPECT_FALSE(se.rel_deadline);
  EXPECT_EQ(se.slice, ver.slice);
  EXPECT_EQ(se.exec_start, 0u);  // ENQUEUE_MIGRATED
  EXPECT_EQ(sys.rq(0).nr_running, 2u);
  EXPECT_EQ(sys.rq(1).nr_running, 2u);
}

// A sleeping task woken on another CPU carries only its saved lag: its
// deadline is a fresh slice on every version, exec_start is cleared.
//   CPU 0: A and B at t = 0; A runs to its first deadline, then B is picked
//   with positive lag and sleeps at once (eligible: not delayed). 1 ms later
//   B is woken on CPU 1, where D runs alone.
TEST_P(SmpV6, SleepingTaskWokenElsewhereCarriesOnlyItsLag) {
  const Version& ver = GetParam();
  const int a = task("A"), b = task("B"), d = task("D");
  ASSERT_EQ(sys.wake(a, false, -1), Refusal::none);
  ASSERT_EQ(sys.wake(b, false, -1), Refusal::none);
  ASSERT_EQ(sys.wake(d, false, 1), Refusal::none);
  for (int i = 0; i < 5 && sys.rq(0).curr != b; ++i) {
    sys.run(1 * kMs);
    if (sys.rq(0).need_resched) sys.rq(0).schedule();
  }
  ASSERT_EQ(sys.rq(0).curr, b);
  const u64 rel_before = t(b).se.deadline - t(b).se.vruntime;
  const s64 lag = static_cast<s64>(expected_v(sys, 0) - t(b).se.vruntime);
  ASSERT_GT(lag, 0);
  ASSERT_LT(lag, lag_limit(ver, t(b), sys, 0));
  ASSERT_EQ(sys.rq(0).sleep(b), Refusal::none);
  EXPECT_FALSE(t(b).on_rq);
  EXPECT_FALSE(t(b).se.sched_delayed);
  EXPECT_EQ(t(b).se.vlag, lag);

  sys.run(1 * kMs);
  ASSERT_EQ(sys.rq(1).curr, d);
  const u64 v_dst = expected_v(sys, 1);
  const s64 w_dst = load_of(sys, 1);
  ASSERT_EQ(sys.wake(b, false, 1), Refusal::none);
  const SchedEntity& se = t(b).se;
  EXPECT_EQ(t(b).cpu, 1);
  EXPECT_TRUE(se.on_rq);
  EXPECT_EQ(se.vruntime, v_dst - static_cast<u64>(inflated(lag, w_dst)));
  EXPECT_EQ(se.deadline, se.vruntime + ver.slice);  // not rel_before
  if (ver.initial_half) {
    EXPECT_NE(rel_before, ver.slice);
  }
  EXPECT_FALSE(se.rel_deadline);
  EXPECT_EQ(se.exec_start, 0u);
}

// A new task woken on another CPU is placed there at zero lag: from v6.12
// with ENQUEUE_INITIAL (half a slice); on v6.6 the placement task_fork_fair()
// made on CPU 0 is redone by wake_up_new_task() without it (one full slice).
//   CPU 0: A and B share 3 ms (V = V0 + 1.5 ms); CPU 1: D runs 3 ms alone
//   (V = V0 + 3 ms; 3 ms is a tick boundary: curr is charged).
TEST_P(SmpV6, NewTaskWokenElsewhereIsPlacedThere) {
  const Version& ver = GetParam();
  const int a = task("A"), b = task("B"), d = task("D");
  ASSERT_EQ(sys.wake(a, false, -1), Refusal::none);
  ASSERT_EQ(sys.wake(b, false, -1), Refusal::none);
  ASSERT_EQ(sys.wake(d, false, 1), Refusal::none);
  sys.run(3 * kMs);
  const int e = task("E");  // sched_fork() (v6.6: task_fork_fair() on CPU 0)
  if (!ver.initial_half) {
    EXPECT_EQ(t(e).se.vruntime, expected_v(sys, 0));
  }
  const u64 v_dst = expected_v(sys, 1);
  ASSERT_NE(v_dst, expected_v(sys, 0));
  ASSERT_EQ(sys.wake(e, false, 1), Refusal::none);
  const SchedEntity& se = t(e).se;
  EXPECT_EQ(t(e).cpu, 1);
  EXPECT_EQ(se.vruntime, v_dst);
  EXPECT_EQ(se.deadline, se.vruntime + (ver.initial_half ? ver.slice / 2 : ver.slice));
  EXPECT_FALSE(se.rel_deadline);
}

// A delayed task (v6.12 on) moved by a load migration is fully dequeued on the
// source (lag saved, deadline relative), placed on the destination and stays
// delayed there; its wake-up is ttwu_runnable() on the destination
// (select_task_rq() is not asked), where requeue_delayed_entity() applies
// DELAY_ZERO: the lag is taken again and the task stays put unless positive.
//   CPU 0: A and B at t = 0, A runs 1 ms (lag -0.5 ms) and sleeps: delayed.
class SmpV6Delayed : public SmpV6 {};

TEST_P(SmpV6Delayed, DelayedTaskMigratesDelayed) {
  const Version& ver = GetParam();
  ASSERT_TRUE(ver.delayed);
  const int a = task("A"), b = task("B"), d = task("D");
  ASSERT_EQ(sys.wake(a, false, -1), Refusal::none);
  ASSERT_EQ(sys.wake(b, false, -1), Refusal::none);
  ASSERT_EQ(sys.wake(d, false, 1), Refusal::none);
  sys.run(1 * kMs);
  ASSERT_EQ(sys.rq(0).curr, a);
  ASSERT_EQ(sys.rq(0).sleep(a), Refusal::none);
  ASSERT_TRUE(t(a).se.sched_delayed);
  ASSERT_TRUE(t(a).on_rq);
  ASSERT_EQ(sys.rq(0).curr, b);

  const u64 rel = t(a).se.deadline - t(a).se.vruntime;
  const s64 lag = static_cast<s64>(expected_v(sys, 0) - t(a).se.vruntime);
  EXPECT_EQ(lag, -500'000);
  ASSERT_LT(std::abs(lag), lag_limit(ver, t(a), sys, 0));
  const u64 v_dst = expected_v(sys, 1);
  const s64 w_dst = load_of(sys, 1);
  ASSERT_EQ(sys.migrate(a, 1), Refusal::none);
  const SchedEntity& se = t(a).se;
  EXPECT_EQ(t(a).cpu, 1);
  EXPECT_TRUE(t(a).on_rq);
  EXPECT_TRUE(se.sched_delayed);
  EXPECT_EQ(se.vlag, lag);
  EXPECT_EQ(se.vruntime, v_dst - static_cast<u64>(inflated(lag, w_dst)));
  EXPECT_EQ(se.deadline, se.vruntime + rel);
  EXPECT_FALSE(se.rel_deadline);
  EXPECT_EQ(sys.rq(0).nr_running, 1u);
  EXPECT_EQ(sys.rq(1).nr_running, 2u);  // delayed tasks count in nr_running

  const u64 v_before = se.vruntime, d_before = se.deadline;
  const s64 lag2 = static_cast<s64>(expected_v(sys, 1) - se.vruntime);
  ASSERT_LE(lag2, 0) << "DELAY_ZERO would re-place it";
  ASSERT_EQ(sys.wake(a, false, 0), Refusal::none);  // cpu=0 is not consulted
  EXPECT_EQ(t(a).cpu, 1);
  EXPECT_FALSE(se.sched_delayed);
  EXPECT_EQ(se.vlag, lag2);
  EXPECT_EQ(se.vruntime, v_before);
  EXPECT_EQ(se.deadline, d_before);
}

std::string version_name(const ::testing::TestParamInfo<Version>& i) {
  std::string n = i.param.profile;
  for (char& ch : n)
    if (ch == '.') ch = '_';
  return n;
}

INSTANTIATE_TEST_SUITE_P(Profiles, SmpV6, ::testing::ValuesIn(kVersions), version_name);
// v6.6 has no delayed dequeue (152e11f6df29 came in v6.12)
INSTANTIATE_TEST_SUITE_P(Profiles, SmpV6Delayed,
                         ::testing::Values(kVersions[0], kVersions[1], kVersions[2], kVersions[3]), version_name);

// Every profile whose migration path was read is accepted; anything else, and
// a runqueue count outside 1 .. 8, is refused with a reason.
TEST(SmpV6Refusal, RefusedConfigurationsStayRefused) {
  for (std::string_view name : profile_names()) {
    for (unsigned nr = 1; nr <= kMaxRunqueues; ++nr)
      EXPECT_EQ(runqueues_refusal(std::string(name), nr), "") << name << " " << nr;
    EXPECT_EQ(runqueues_refusal(std::string(name), 0), "runqueues must be 1 .. 8");
    EXPECT_EQ(runqueues_refusal(std::string(name), kMaxRunqueues + 1), "runqueues must be 1 .. 8");
  }
  // a profile nobody checked (one added later) is refused until it is
  const std::string why = runqueues_refusal("v7.4", 2);
  EXPECT_NE(why.find("the migration path of 'v7.4' was not checked"), std::string::npos) << why;
  EXPECT_EQ(runqueues_refusal("v7.4", 1), "");
}

// The scenario language runs the older profiles on several CPUs, with every
// invariant checked but the profile's documented expected findings that this
// scenario reaches (docs/profiles.md): v7.0's stale max_slice (I-AUG).
TEST(SmpV6Refusal, ScenariosRunOnTheOlderProfiles) {
  struct Run {
    const char* profile;
    const char* skip;
  };
  for (const Run& run : {Run{"v7.0", "I-AUG"}, Run{"v6.18", ""}, Run{"v6.12.118", ""}, Run{"v6.12", ""},
                        Run{"v6.6", ""}}) {
    const std::string p = run.profile;
    const std::string text = "profile " + p +
                             "\nrunqueues 3\ntask A\ntask B\ntask C\nwake A\nwake B\nwake C cpu=2\nrun 1ms\n"
                             "migrate B 1\nsleep A\nmigrate A 2\nwake A\nrun 5ms\nexpect no-violation\n";
    auto parsed = scn::parse_scenario(text, "t.scn");
    const auto* s = std::get_if<scn::Scenario>(&parsed);
    ASSERT_NE(s, nullptr) << p << ": " << scn::format_parse_error(std::get<scn::ParseError>(parsed));
    EXPECT_EQ(s->runqueues, 3u);
    scn::ExecOptions options;
    ASSERT_EQ(inv::parse_selection("", run.skip, options.selection), "");
    const auto r = scn::execute(*s, *profile_by_name(p), options);
    EXPECT_TRUE(r.error.empty()) << p << ": " << r.error;
    EXPECT_TRUE(r.expectation_failures.empty()) << p;
    for (const auto& v : r.violations) ADD_FAILURE() << p << ": " << inv::id_name(v.id) << " " << v.what;
  }
}

}  // namespace
}  // namespace eevdf
