// The bridges (bridge/): the fine-grained simulator against the executor,
// the metrics, the RFC switch, rt-app import and export, kSTEP export and
// the HTML report. Small inputs; seconds in all.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <variant>

#include "bridge/compare.hpp"
#include "bridge/html_report.hpp"
#include "bridge/kernel_version.hpp"
#include "bridge/kstep_export.hpp"
#include "bridge/rtapp_export.hpp"
#include "bridge/rtapp_import.hpp"
#include "bridge/sim.hpp"
#include "scenario/executor.hpp"
#include "scenario/scenario_parse.hpp"
#include "support/scenario_text.hpp"
#include "scenario/scenario_print.hpp"
#include "invariants/ids.hpp"

namespace eevdf::bridge {
namespace {

const std::string kSource = EEVDF_SOURCE_DIR;

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

scn::Scenario parse(const std::string& text) { return test::parse_ok(text, "<test>"); }

Profile profile_of(const scn::Scenario& s, const std::string& features = "") {
  std::string error;
  auto p = scn::build_profile(s, scn::ProfileOverride{"", features, ""}, error);
  EXPECT_TRUE(p) << error;
  return *p;
}

RtWorkload rtapp_file(const std::string& name) {
  const std::string path = kSource + "/tests/data/rtapp/" + name;
  auto r = parse_rtapp(slurp(path), path);
  if (auto* e = std::get_if<std::string>(&r)) ADD_FAILURE() << *e;
  return std::get<RtWorkload>(std::move(r));
}

std::string rtapp_error(const std::string& text) {
  auto r = parse_rtapp(text, "t.json");
  if (auto* e = std::get_if<std::string>(&r)) return *e;
  return "";
}

// ---- the simulator is the executor, cut finer ----

TEST(BridgeSim, SameViolationsAndFinalStateAsTheExecutorOnEveryRegression) {
  int files = 0, smp_files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kSource + "/corpus/regressions")) {
    if (entry.path().extension() != ".scn") continue;
    const auto s = parse(slurp(entry.path().string()));
    ++files;
    if (s.runqueues > 1) ++smp_files;
    const Profile p = profile_of(s);
    for (bool tolerate : {true, false}) {
      scn::ExecOptions o;
      o.trace = true;
      o.tolerances = inv::Tolerances{tolerate};
      const auto e = scn::execute(s, p, o);
      const auto r = simulate(s, p, false, true, inv::Tolerances{tolerate});
      ASSERT_EQ(e.error, "") << entry.path();
      ASSERT_EQ(r.error, "") << entry.path();
      ASSERT_EQ(r.violations.size(), e.violations.size()) << entry.path() << (r.violations.empty() ? "" : std::string(inv::id_name(r.violations[0].id)) + " " + r.violations[0].where + " " + r.violations[0].what + " op " + std::to_string(r.violations[0].op_index));
      for (std::size_t i = 0; i < r.violations.size(); ++i) {
        EXPECT_EQ(r.violations[i].id, e.violations[i].id) << entry.path();
        EXPECT_EQ(r.violations[i].op_index, e.violations[i].op_index) << entry.path();
      }
      const auto& last = e.trace.back();
      const auto& mine = r.samples.back();
      EXPECT_EQ(mine.clock, last.clock) << entry.path();
      // CPU 0's task (the trace lists every CPU's, "A|idle")
      EXPECT_EQ(mine.curr >= 0 ? r.tasks[static_cast<std::size_t>(mine.curr)].name : "idle",
                last.curr.substr(0, last.curr.find('|')));
      ASSERT_EQ(mine.tasks.size(), last.tasks.size());
      for (std::size_t t = 0; t < mine.tasks.size(); ++t) {
        if (s.runqueues > 1) {
          EXPECT_EQ(mine.tasks[t].cpu, last.task_cpu[t]) << entry.path() << " task " << t;
        }
        EXPECT_EQ(mine.tasks[t].vruntime, as_s64(last.tasks[t].vruntime)) << entry.path() << " task " << t;
        EXPECT_EQ(mine.tasks[t].deadline, as_s64(last.tasks[t].deadline)) << entry.path() << " task " << t;
      }
    }
  }
  EXPECT_GE(files, 3);
  EXPECT_GE(smp_files, 3);
}

// A long run cut at every tick ends where the executor's single run ends.
TEST(BridgeSim, RunsCutAtTicksEndInTheSameState) {
  const auto s = parse(
      "profile mainline\ntask A nice=3\ntask B slice=0.3ms\ntask C policy=batch\nwake A\nwake B\nwake C\n"
      "run 37500us\ntask D nice=-3\nwake D\nrun 2ms\nslice B 2ms\nrun 12345us\nnice A -4\nrun 9ms\n");
  const Profile p = profile_of(s);
  scn::ExecOptions o;
  o.trace = true;
  const auto e = scn::execute(s, p, o);
  ASSERT_TRUE(e.ok()) << e.error;
  const auto r = simulate(s, p, false);
  ASSERT_EQ(r.error, "");
  EXPECT_TRUE(r.violations.empty());
  EXPECT_GT(r.samples.size(), e.trace.size() + 50);  // cut at every tick
  const auto& last = e.trace.back();
  for (std::size_t t = 0; t < 4; ++t) {
    EXPECT_EQ(r.samples.back().tasks[t].vruntime, as_s64(last.tasks[t].vruntime));
    EXPECT_EQ(r.samples.back().tasks[t].deadline, as_s64(last.tasks[t].deadline));
  }
  // every nanosecond is someone's: runtime adds up to the elapsed time, and so does the ideal share
  u64 runtime = 0;
  double ideal = 0;
  for (const auto& t : r.tasks) {
    runtime += t.runtime;
    ideal += t.ideal_runtime;
  }
  EXPECT_EQ(runtime, r.end_clock);
  EXPECT_NEAR(ideal, static_cast<double>(r.end_clock), 1.0);
}

TEST(BridgeSim, CountsAndLatencies) {
  // A runs alone; B wakes with a shorter slice and preempts (PREEMPT_SHORT) at once.
  const auto s = parse(
      "profile mainline\ntask A\ntask B slice=0.1ms\nwake A\nschedule\nrun 1500us\nwake B\nschedule\n"
      "run 100us\nsleep B\nrun 3ms\n");
  const auto r = simulate(s, profile_of(s), false);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.counters.wakeup_preemptions, 1u);
  // switches: idle->A, A->B, B->A
  EXPECT_EQ(r.counters.context_switches, 3u);
  ASSERT_EQ(r.tasks.size(), 2u);
  ASSERT_EQ(r.tasks[1].wake_latency.size(), 1u);
  EXPECT_EQ(r.tasks[1].wake_latency[0], 0u);  // the schedule right after the wake-up
  ASSERT_EQ(r.tasks[0].wake_latency.size(), 1u);
  EXPECT_EQ(r.tasks[0].wake_latency[0], 0u);
  EXPECT_EQ(r.tasks[1].runtime, 100000u);
  EXPECT_EQ(r.tasks[0].runtime, 4500000u);
}

TEST(BridgeSim, PercentileIsNearestRank) {
  EXPECT_EQ(percentile({}, 50), 0u);
  EXPECT_EQ(percentile({5}, 99), 5u);
  EXPECT_EQ(percentile({4, 1, 3, 2}, 50), 2u);
  EXPECT_EQ(percentile({4, 1, 3, 2}, 99), 4u);
  std::vector<u64> v;
  for (u64 i = 1; i <= 100; ++i) v.push_back(i);
  EXPECT_EQ(percentile(v, 99), 99u);
  EXPECT_EQ(percentile(v, 100), 100u);
}

// ---- the RFC switch ----

bool resched_after_last_wake(const std::string& text, const std::string& features) {
  const auto s = parse(text);
  scn::ExecOptions o;
  o.trace = true;
  const auto e = scn::execute(s, profile_of(s, features), o);
  EXPECT_EQ(e.error, "");
  return e.trace.back().need_resched;
}

TEST(BridgeRfc, SamePriorityWakeeDoesNotPreemptWithTheSwitchOnly) {
  const std::string same = "profile mainline\ntask A\ntask B slice=0.1ms\nwake A\nschedule\nrun 1500us\nwake B\n";
  const std::string other = "profile mainline\ntask A\ntask B nice=-1 slice=0.1ms\nwake A\nschedule\nrun 1500us\nwake B\n";
  EXPECT_TRUE(resched_after_last_wake(same, ""));
  EXPECT_FALSE(resched_after_last_wake(same, "RFC_SAME_PRIO_NO_WAKEUP_PREEMPT"));
  EXPECT_TRUE(resched_after_last_wake(other, "RFC_SAME_PRIO_NO_WAKEUP_PREEMPT"));
}

TEST(BridgeRfc, OffInEveryProfile) {
  for (const auto name : profile_names())
    EXPECT_FALSE(profile_by_name(name)->feat(Feature::RFC_SAME_PRIO_NO_WAKEUP_PREEMPT)) << name;
  FeatureSet f;
  EXPECT_EQ(apply_features(f, "RFC_SAME_PRIO_NO_WAKEUP_PREEMPT"), "");
  EXPECT_TRUE(f[Feature::RFC_SAME_PRIO_NO_WAKEUP_PREEMPT]);
}

TEST(BridgeCompare, SidesParse) {
  std::string error;
  auto a = parse_side("v7.1", error);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->profile, "v7.1");
  EXPECT_EQ(a->features, "");
  auto b = parse_side("NO_RUN_TO_PARITY,RFC_SAME_PRIO_NO_WAKEUP_PREEMPT", error);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->profile, "");
  auto c = parse_side("v7.1:NEXT_BUDDY", error);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->profile, "v7.1");
  EXPECT_EQ(c->features, "NEXT_BUDDY");
  EXPECT_FALSE(parse_side("NO_SUCH_FEATURE", error));
  EXPECT_NE(error.find("NO_SUCH_FEATURE"), std::string::npos);
  EXPECT_FALSE(parse_side("v9.9:NEXT_BUDDY", error));
}

// ---- rt-app import ----

TEST(BridgeRtApp, EverySupportedEventParses) {
  const auto w = rtapp_file("run_sleep.json");
  ASSERT_EQ(w.threads.size(), 3u);  // "instance": 2
  EXPECT_EQ(w.threads[0].name, "light_0");
  EXPECT_EQ(w.threads[1].name, "light_1");
  EXPECT_EQ(w.threads[2].nice, 5);
  EXPECT_EQ(w.threads[2].loop, -1);
  ASSERT_TRUE(w.duration_ns);
  EXPECT_EQ(*w.duration_ns, 1'000'000'000u);

  const auto t = rtapp_file("timer.json");
  EXPECT_EQ(t.threads[0].phases[0].events[1].kind, RtEvent::Kind::timer);
  EXPECT_FALSE(t.threads[0].phases[0].events[1].absolute);  // rt-app's default: relative
  EXPECT_TRUE(t.threads[1].phases[0].events[1].absolute);
  EXPECT_EQ(t.threads[2].policy, Policy::batch);
  EXPECT_EQ(t.threads[2].phases[0].events[0].kind, RtEvent::Kind::runtime);

  const auto p = rtapp_file("phases_yield.json");
  ASSERT_EQ(p.threads[0].phases.size(), 2u);
  EXPECT_EQ(p.threads[0].delay_ns, 500000u);
  EXPECT_EQ(p.threads[0].phases[0].loop, 3);
  EXPECT_EQ(*p.threads[0].phases[0].sched.nice, -5);
  EXPECT_EQ(*p.threads[0].phases[0].sched.slice_ns, 300000u);
  EXPECT_EQ(p.threads[0].phases[0].events[1].kind, RtEvent::Kind::yield);
  EXPECT_EQ(p.threads[1].policy, Policy::idle);

  const auto s = rtapp_file("suspend_resume.json");
  EXPECT_EQ(s.threads[0].phases[0].events[0].kind, RtEvent::Kind::suspend);
  EXPECT_EQ(s.threads[1].phases[0].events[1].kind, RtEvent::Kind::resume);
}

TEST(BridgeRtApp, UnsupportedInputIsAnErrorNamingIt) {
  const auto lock = rtapp_error(slurp(kSource + "/tests/data/rtapp/unsupported_lock.json"));
  EXPECT_NE(lock.find("task 't1'"), std::string::npos) << lock;
  EXPECT_NE(lock.find("unsupported rt-app event 'lock'"), std::string::npos) << lock;
  const auto fifo = rtapp_error(slurp(kSource + "/tests/data/rtapp/unsupported_policy.json"));
  EXPECT_NE(fifo.find("SCHED_FIFO"), std::string::npos) << fifo;
  EXPECT_NE(rtapp_error(R"({"tasks": {"a": {"run": 10, "barrier": "x"}}})").find("'barrier'"), std::string::npos);
  EXPECT_NE(rtapp_error(R"({"tasks": {"a": {"run": 10, "taskgroup": "g"}}})").find("path from the root"),
            std::string::npos);
  EXPECT_NE(rtapp_error(R"({"tasks": {"a": {"run": 10, "taskgroup": "/g//h"}}})").find("empty component"),
            std::string::npos);
  EXPECT_NE(rtapp_error(R"({"tasks": {"a": {"phases": {"p": {"run": 10, "taskgroup": "/g"}}}}})")
                .find("\"taskgroup\" of a phase"),
            std::string::npos);
  EXPECT_NE(rtapp_error(R"({"tasks": {"a": {"run": -3}}})").find(">= 0"), std::string::npos);
  EXPECT_NE(rtapp_error(R"({"tasks": {"a": {"run": 10, "colour": 1}}})").find("unsupported key 'colour'"),
            std::string::npos);
  EXPECT_NE(rtapp_error(R"({"tasks": {"a": {"run": 10, "resume": "nobody"}}})").find("'nobody'"), std::string::npos);
  const auto syntax = rtapp_error("{\n \"tasks\": {\n  \"a\": { \"run\": 10, }\n }\n}\n");
  EXPECT_NE(syntax.find("line 3"), std::string::npos) << syntax;
  EXPECT_EQ(rtapp_error(R"({"tasks": {"a": {"run": 10}}, "_comment": ["x"]})"), "");
}

RtRun run_file(const std::string& name, u64 ms) {
  const auto w = rtapp_file(name);
  return simulate_rtapp(w, *profile_by_name("mainline"), ms * 1'000'000, false);
}

std::size_t count_ops(const scn::Scenario& s, scn::OpKind k, const std::string& task = "") {
  std::size_t n = 0;
  for (const auto& op : s.ops)
    if (op.kind == k && (task.empty() || op.task == task)) ++n;
  return n;
}

TEST(BridgeRtApp, RunAndSleepShareTheCpu) {
  const auto r = run_file("run_sleep.json", 200);
  ASSERT_EQ(r.result.error, "");
  EXPECT_TRUE(r.result.violations.empty());
  EXPECT_EQ(r.result.end_clock, 200'000'000u);
  u64 total = 0;
  for (const auto& t : r.result.tasks) total += t.runtime;
  EXPECT_EQ(total, 200'000'000u);  // the hog keeps the CPU busy
  // a light thread runs 1 ms per period of at least 5 ms
  EXPECT_LE(r.result.tasks[0].runtime, 40'000'000u + 1'000'000u);
  EXPECT_GE(r.result.tasks[0].wakeups, 30u);
  EXPECT_EQ(r.result.tasks[2].wakeups, 1u);
}

TEST(BridgeRtApp, TimersRuntimeAndBatch) {
  const auto r = run_file("timer.json", 200);
  ASSERT_EQ(r.result.error, "");
  EXPECT_TRUE(r.result.violations.empty());
  // the absolute timer fires every 20 ms: 10 periods in 200 ms, within one
  EXPECT_NEAR(static_cast<double>(r.result.tasks[1].wakeups), 10.0, 1.0);
  EXPECT_NEAR(static_cast<double>(r.result.tasks[0].wakeups), 20.0, 1.0);
  EXPECT_GT(count_ops(r.scenario, scn::OpKind::sleep, "batch"), 0u);
}

TEST(BridgeRtApp, PhasesYieldSliceAndNice) {
  const auto r = run_file("phases_yield.json", 200);
  ASSERT_EQ(r.result.error, "");
  EXPECT_TRUE(r.result.violations.empty());
  EXPECT_EQ(count_ops(r.scenario, scn::OpKind::yield, "worker"), 6u);  // 3 loops of phase "short", task loop 2
  EXPECT_EQ(count_ops(r.scenario, scn::OpKind::exit, "worker"), 1u);   // then the thread ends
  EXPECT_GE(count_ops(r.scenario, scn::OpKind::nice, "worker"), 2u);
  EXPECT_GE(count_ops(r.scenario, scn::OpKind::slice, "worker"), 2u);
  // the worker starts after its delay: its first wake-up is the first operation after 500 us
  u64 clock = 0;
  for (const auto& op : r.scenario.ops) {
    if (op.kind == scn::OpKind::wake && op.task == "worker") break;
    if (op.kind == scn::OpKind::run) clock += static_cast<u64>(op.value);
  }
  EXPECT_EQ(clock, 500000u);
}

TEST(BridgeRtApp, SuspendAndResume) {
  const auto r = run_file("suspend_resume.json", 200);
  ASSERT_EQ(r.result.error, "");
  // every resume of a suspended server is a wake-up of it
  const auto resumes = count_ops(r.scenario, scn::OpKind::wake, "server");
  EXPECT_EQ(resumes, r.result.tasks[0].wakeups);
  EXPECT_NEAR(static_cast<double>(resumes), static_cast<double>(r.result.tasks[1].wakeups), 1.0);
}

TEST(BridgeRtApp, TheOperationsReplayAsAScenario) {
  const auto r = run_file("suspend_resume.json", 50);
  const std::string text = scn::print_scenario(r.scenario);
  const auto s = parse(text);
  scn::ExecOptions o;
  const auto e = scn::execute(s, *profile_by_name("mainline"), o);
  EXPECT_EQ(e.error, "");
  EXPECT_TRUE(e.violations.empty());
  EXPECT_EQ(static_cast<std::size_t>(e.executed), r.scenario.ops.size());
}

TEST(BridgeRtApp, Deterministic) {
  const auto a = run_file("timer.json", 100), b = run_file("timer.json", 100);
  EXPECT_EQ(scn::print_scenario(a.scenario), scn::print_scenario(b.scenario));
  EXPECT_EQ(format_metrics(a.result, "x"), format_metrics(b.result, "x"));
}

TEST(BridgeRtApp, TaskgroupCreatesItsCgroupPath) {
  auto parsed = parse_rtapp(R"({"tasks": {"a": {"taskgroup": "/top/sub", "run": 100, "sleep": 900},
                                          "b": {"taskgroup": "/top", "run": 300, "sleep": 700},
                                          "c": {"taskgroup": "/", "run": 500}}})",
                            "t.json");
  ASSERT_TRUE(std::holds_alternative<RtWorkload>(parsed)) << std::get<std::string>(parsed);
  const auto& w = std::get<RtWorkload>(parsed);
  EXPECT_EQ(w.threads[0].groups, (std::vector<std::string>{"top", "top_sub"}));
  EXPECT_EQ(w.threads[1].groups, (std::vector<std::string>{"top"}));
  EXPECT_TRUE(w.threads[2].groups.empty());
  const auto r = simulate_rtapp(w, *profile_by_name("mainline"), 20'000'000, false);
  ASSERT_EQ(r.result.error, "");
  EXPECT_TRUE(r.result.violations.empty());
  // each group created once, the child below its parent, before the tasks in it
  std::vector<std::pair<std::string, std::string>> groups;
  for (const auto& op : r.scenario.ops)
    if (op.kind == scn::OpKind::group_create) groups.emplace_back(op.group, op.parent);
  EXPECT_EQ(groups, (std::vector<std::pair<std::string, std::string>>{{"top", ""}, {"top_sub", "top"}}));
  for (const auto& op : r.scenario.ops)
    if (op.kind == scn::OpKind::create) {
      EXPECT_EQ(op.group, op.task == "a" ? "top_sub" : op.task == "b" ? "top" : "");
    }
  EXPECT_GT(r.result.tasks[0].runtime, 0u);
}

// The schbench-like workload on four CPUs: every CPU works, and the
// operations the run performed replay as a scenario (runqueues 4) to the
// same state with the executor.
TEST(BridgeRtApp, SeveralCpusReplayAsAScenario) {
  const auto w = rtapp_file("schbench_like.json");
  Profile p = *profile_by_name("mainline");
  ASSERT_EQ(apply_features(p, "NO_SIS_UTIL"), "");
  const auto r = simulate_rtapp(w, p, 100'000'000, false, {}, 4, 1);
  ASSERT_EQ(r.result.error, "");
  EXPECT_TRUE(r.result.violations.empty());
  EXPECT_EQ(r.scenario.runqueues, 4u);
  ASSERT_EQ(r.result.placement.per_cpu.size(), 4u);
  for (u64 n : r.result.placement.per_cpu) EXPECT_GT(n, 0u);
  u64 total = 0;
  for (const auto& t : r.result.tasks) total += t.runtime;
  EXPECT_GT(total, 100'000'000u);   // more than one CPU's time
  EXPECT_LE(total, 400'000'000u);   // at most four
  const u64 placed = r.result.placement.on_waker_cpu + r.result.placement.on_prev_cpu + r.result.placement.on_other_cpu;
  EXPECT_GT(placed, 100u);  // chosen by select_task_rq_fair()
  scn::Scenario sc = r.scenario;
  sc.features = "NO_SIS_UTIL";
  const auto s = parse(scn::print_scenario(sc));
  scn::ExecOptions o;
  o.trace = true;
  const auto e = scn::execute(s, p, o);
  ASSERT_EQ(e.error, "");
  EXPECT_TRUE(e.violations.empty());
  EXPECT_EQ(static_cast<std::size_t>(e.executed), r.scenario.ops.size());
  EXPECT_EQ(e.trace.back().clock, r.result.end_clock);
  // where every task ended up
  const auto again = simulate(s, p, true, false);
  for (std::size_t t = 0; t < e.trace.back().task_cpu.size(); ++t)
    EXPECT_EQ(again.samples.back().tasks[t].cpu, e.trace.back().task_cpu[t]) << "task " << t;
  EXPECT_EQ(format_metrics(again, "x"), format_metrics(r.result, "x"));
}

TEST(BridgeRtApp, AffinityIsRefusedOnSeveralCpus) {
  auto parsed = parse_rtapp(R"({"tasks": {"a": {"cpus": [1], "run": 100}}})", "t.json");
  const auto& w = std::get<RtWorkload>(parsed);
  EXPECT_EQ(simulate_rtapp(w, *profile_by_name("mainline"), 1'000'000, false).result.error, "");
  const auto r = simulate_rtapp(w, *profile_by_name("mainline"), 1'000'000, false, {}, 2, 1);
  EXPECT_NE(r.result.error.find("affinity is not modelled"), std::string::npos) << r.result.error;
  // a phase's "cpus" too
  auto in_phase = parse_rtapp(R"({"tasks": {"a": {"phases": {"p": {"cpus": [1], "run": 100}}}}})", "t.json");
  const auto& wp = std::get<RtWorkload>(in_phase);
  EXPECT_NE(simulate_rtapp(wp, *profile_by_name("mainline"), 1'000'000, false, {}, 2, 1).result.error.find(
                "affinity is not modelled"),
            std::string::npos);
}

TEST(BridgeCompare, SeveralSidesAndWhereWakeupsLand) {
  const auto w = rtapp_file("schbench_like.json");
  std::vector<CompareSide> sides;
  for (const char* f : {"NO_SIS_UTIL", "NO_SIS_UTIL,NO_WA_IDLE", "NO_SIS_UTIL,NO_WA_WEIGHT"}) {
    Profile p = *profile_by_name("mainline");
    ASSERT_EQ(apply_features(p, f), "");
    sides.push_back({f, simulate_rtapp(w, p, 50'000'000, false, {}, 4, 1).result});
  }
  const std::string t = format_compare(sides);
  for (const auto& s : sides) EXPECT_NE(t.find(s.label), std::string::npos);
  EXPECT_NE(t.find("wake-ups: waker's/prev/other CPU"), std::string::npos) << t;
  EXPECT_NE(t.find("18 tasks: no per-task rows"), std::string::npos) << t;
  const auto& p = sides[0].result.placement;
  EXPECT_NE(t.find(std::to_string(p.on_waker_cpu) + "/" + std::to_string(p.on_prev_cpu) + "/" + std::to_string(p.on_other_cpu)), std::string::npos);
}

// ---- exports ----

const std::string kF1 = "/corpus/regressions/F1-vprot-not-rescaled-by-renice.scn";

TEST(BridgeKstep, F1DriverUsesTheApiAndTheGuard) {
  const auto s = parse(slurp(kSource + kF1));
  std::string error;
  const auto c = export_kstep(s, profile_of(s), "F1.scn", error);
  ASSERT_TRUE(c) << error;
  for (const char* want :
       {"#include \"driver.h\"", "#if LINUX_VERSION_CODE >= KERNEL_VERSION(7, 2, 0)", "t_A = kstep_task_create();",
        "kstep_task_set_affinity(t_A, \"1\");", "set_fair_attr(t_A, SCHED_NORMAL, 19, 0ULL);",
        "kstep_task_wakeup(t_A);", "set_user_nice(t_A, -20);", "expect_curr(t_A, \"A\"", "report(\"I-PROT\"",
        "KSTEP_DRIVER_DEFINE{", ".tick_interval_ns = 1000000,", "The model predicts I-PROT", "line 12 `schedule`",
        "Not modelled yet"})
    EXPECT_NE(c->find(want), std::string::npos) << want;
  std::string again_error;
  EXPECT_EQ(*c, *export_kstep(s, profile_of(s), "F1.scn", again_error));
}

TEST(BridgeKstep, VersionGuardsAndRefusals) {
  // mainline: the release kMainlineRelease names, or later
  EXPECT_EQ(kernel_version_of("mainline")->text(), std::string(kMainlineRelease) + " or later");
  EXPECT_EQ(kernel_version_of("v7.1")->c_condition(),
            "LINUX_VERSION_CODE >= KERNEL_VERSION(7, 1, 0) && LINUX_VERSION_CODE < KERNEL_VERSION(7, 2, 0)");
  EXPECT_EQ(kernel_version_of("v6.12")->text(), "v6.12");
  // a stable point release: exactly the SUBLEVEL the profile was read from
  EXPECT_EQ(kernel_version_of("v6.12.118")->text(), "v6.12.118");
  EXPECT_EQ(kernel_version_of("v6.12.118")->c_condition(),
            "LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 118) && LINUX_VERSION_CODE < KERNEL_VERSION(6, 12, 119)");
  EXPECT_FALSE(kernel_version_of("v6.12.300"));
  EXPECT_FALSE(kernel_version_of("experimental"));
  auto s = parse("profile mainline\ntask A\nwake A\nsleep A\n");  // A is not on the CPU yet
  std::string error;
  EXPECT_FALSE(export_kstep(s, profile_of(s), "x.scn", error));
  EXPECT_NE(error.find("line 4"), std::string::npos) << error;
  Profile custom = profile_of(s);
  custom.name = "experimental";
  EXPECT_FALSE(export_kstep(parse("profile mainline\ntask A\n"), custom, "x.scn", error));
}

TEST(BridgeKstep, AugmentCheckAndPendingReschedule) {
  const auto s = parse(slurp(kSource + "/corpus/regressions/v7.1-max-slice-not-initialised.scn"));
  std::string error;
  const auto c = export_kstep(s, profile_of(s), "v71.scn", error);
  ASSERT_TRUE(c) << error;
  EXPECT_NE(c->find("KERNEL_VERSION(7, 1, 0) && LINUX_VERSION_CODE < KERNEL_VERSION(7, 2, 0)"), std::string::npos);
  EXPECT_NE(c->find("static struct aug check_aug(struct rb_node *node"), std::string::npos);
  EXPECT_NE(c->find("report(\"I-AUG\""), std::string::npos);
  EXPECT_NE(c->find("The model predicts I-AUG: kstep_fail naming it"), std::string::npos);
  // the wake-up leaves need_resched pending with nothing after it: a real CPU switches at once
  EXPECT_NE(c->find("line 7 `wake T0`: leaves need_resched set"), std::string::npos);
}

TEST(BridgeKstep, SyncWakeupUsesTheChannel) {
  const auto s = parse(
      "profile mainline\nfeatures NEXT_BUDDY\ntask C nice=-10\nwake C\nschedule\nsleep C\ntask A\nwake A\n"
      "schedule\nrun 900us\nwake C sync\nrun 1us\nexpect curr A\n");
  std::string error;
  const auto c = export_kstep(s, profile_of(s), "F2.scn", error);
  ASSERT_TRUE(c) << error;
  EXPECT_NE(c->find("kstep_task_chan_read(t_C);"), std::string::npos);
  EXPECT_NE(c->find("kstep_task_chan_write(t_A);"), std::string::npos);
  EXPECT_NE(c->find("kstep_sched_feat_enable(\"NEXT_BUDDY\");"), std::string::npos);
}

TEST(BridgeRtAppExport, RoundTripsThroughTheImporter) {
  const auto s = parse(slurp(kSource + kF1));
  std::string error;
  const auto j = export_rtapp(s, profile_of(s), "F1.scn", error);
  ASSERT_TRUE(j) << error;
  auto back = parse_rtapp(*j, "F1.json");
  ASSERT_TRUE(std::holds_alternative<RtWorkload>(back)) << std::get<std::string>(back);
  const auto& w = std::get<RtWorkload>(back);
  ASSERT_EQ(w.threads.size(), 2u);
  EXPECT_EQ(w.threads[0].name, "A");
  EXPECT_EQ(w.threads[0].nice, 19);
  ASSERT_EQ(w.threads[0].phases.size(), 2u);  // the renice starts a phase
  EXPECT_EQ(*w.threads[0].phases[1].sched.nice, -20);
  EXPECT_NE(j->find("_eevdf_check"), std::string::npos);
  const auto r = simulate_rtapp(w, *profile_by_name("mainline"), 10'000'000, false);
  EXPECT_EQ(r.result.error, "");
}

TEST(BridgeRtAppExport, RunSleepAndCustomSlice) {
  const auto s = parse(
      "profile mainline\ntask A slice=0.3ms\ntask B nice=2\nwake A\nrun 3ms\nexpect curr A\nsleep A\nwake B\n"
      "run 5ms\nwake A\nrun 2ms\n");
  std::string error;
  const auto j = export_rtapp(s, profile_of(s), "x.scn", error);
  ASSERT_TRUE(j) << error;
  EXPECT_NE(j->find("\"dl-runtime\": 300"), std::string::npos) << *j;
  EXPECT_NE(j->find("\"sleep1\""), std::string::npos) << *j;
  EXPECT_NE(j->find("\"priority\": 2"), std::string::npos) << *j;
}

// ---- the report ----

TEST(BridgeReport, F1PageHasLanesChartsAndTheMarker) {
  const std::string text = slurp(kSource + kF1);
  const auto s = parse(text);
  const Profile p = profile_of(s);
  const auto r = simulate(s, p, false, true, inv::Tolerances{false});
  ASSERT_EQ(r.violations.size(), 1u);
  const std::string html = html_report(s, "F1.scn", text, p, r);
  for (const char* want : {"<svg id=\"timeline\"", "id=\"lane-A\"", "id=\"lane-B\"", "id=\"violation-marker\"",
                           "id=\"chart-vruntime\"", "id=\"chart-deadline\"", "id=\"chart-lag\"", "id=\"chart-V\"",
                           "class=\"violating-line\" id=\"line-15\"", "<table id=\"violations\">", "I-PROT"})
    EXPECT_NE(html.find(want), std::string::npos) << want;
  EXPECT_EQ(html.find("http://"), html.find("http://www.w3.org/2000/svg"));  // no network but the SVG namespace
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html, html_report(s, "F1.scn", text, p, simulate(s, p, false, true, inv::Tolerances{false})));
}

// On several CPUs: a running bar says its CPU, V is drawn for each CPU, and
// each task sample has its CPU (T0 ends on CPU 1, where `migrate` moved it).
TEST(BridgeReport, SeveralCpus) {
  const std::string path = "/corpus/regressions/v7.3-smp-delayed-task-migrates-at-h-load.scn";
  const std::string text = slurp(kSource + path);
  const auto s = parse(text);
  ASSERT_EQ(s.runqueues, 2u);
  const Profile p = profile_of(s);
  const auto r = simulate(s, p, false, true, {});
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.cpus, 2u);
  ASSERT_EQ(r.samples.back().cpu_avg_vruntime.size(), 2u);
  EXPECT_EQ(r.samples.back().tasks[0].cpu, 1);  // T0, moved by `migrate T0 1`
  const std::string html = html_report(s, "smp.scn", text, p, r);
  // over its 15 ns of simulated time T0 has CPU 0, T3 waits there (T0 sleeps as the run ends)
  for (const char* want : {"2 CPUs", "data-task=\"V CPU 0\"", "data-task=\"V CPU 1\"",
                           "T0 runs on CPU 0 from 0 ns to 15 ns", "T3 waits, queued from 0 ns to 15 ns",
                           "class=\"cpu-label\""})
    EXPECT_NE(html.find(want), std::string::npos) << want;
  EXPECT_EQ(html, html_report(s, "smp.scn", text, p, simulate(s, p, false, true, {})));
}

}  // namespace
}  // namespace eevdf::bridge
