// I-WAKECOUNT at the wake-up CPU choice (invariants/wake_cpu.cpp,
// check_wake_choice()): each property of the CPU a backend chose fires for a
// choice that breaks it and is silent for the choice the design makes, on
// states built by the model's operations (and by the kernel's own code); the
// model's and the tree's own choices reach the checker as they are made
// (Observer::on_wake_choice()). After every operation the kernel backend's
// own answer, the tree's sched_idle_rq(), is judged, not the model's formula.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "invariants/checker.hpp"
#include "kernelsrc/kernel_backend.hpp"
#include "model/profile.hpp"
#include "model/system.hpp"
#include "support/kernel_tree.hpp"
#include "scenario/executor.hpp"
#include "scenario/run_settings.hpp"
#include "scenario/scenario_parse.hpp"

namespace eevdf {
namespace {

Profile profile(const char* name, const char* features = "") {
  Profile p = *profile_by_name(name);
  if (*features) {
    EXPECT_EQ(apply_features(p, features), "");
  }
  return p;
}

// The site of the one I-WAKECOUNT report, "" for none.
std::string site(const std::vector<inv::Violation>& vs) {
  std::string out;
  for (const auto& v : vs)
    if (v.id == inv::Id::WAKECOUNT) out += (out.empty() ? "" : " + ") + v.where;
  return out;
}

// Several CPUs of the model, states made by its own operations.
struct Bench {
  System sys;
  Bench(const Profile& p, unsigned cpus, unsigned smt = 1) : sys(p, cpus) { EXPECT_TRUE(sys.set_smt(smt)); }
  int task(const char* name, Policy policy = Policy::normal) { return sys.rq(0).create_task(name, 0, policy, 0); }
  void wake_on(int t, int cpu) { EXPECT_EQ(sys.wake(t, false, cpu), Refusal::none); }
  void sleep(int t) { EXPECT_EQ(sys.rq_of(t).sleep(t), Refusal::none); }
  int running(int cpu) const { return sys.rq(static_cast<unsigned>(cpu)).running(); }
  // t runs alone on `cpu` and sleeps there: `cpu` is its prev CPU
  void slept_on(int t, int cpu) {
    wake_on(t, cpu);
    sys.run(1'000'000);
    EXPECT_EQ(running(cpu), t);
    sleep(t);
    EXPECT_FALSE(sys.rq(0).tasks[static_cast<std::size_t>(t)].se.on_rq);
  }
  // t runs on `cpu` from now on
  void busy(int t, int cpu) {
    wake_on(t, cpu);
    sys.run(1'000'000);
    EXPECT_EQ(running(cpu), t);
  }
  // The waking CPU's checker told of choice c, as the backends tell it.
  std::vector<inv::Violation> judge(const WakeCpuChoice& c, inv::Tolerances tolerances = {}) {
    inv::Checker checker(inv::Selection{}, tolerances);
    Rq& rq = sys.rq(static_cast<unsigned>(c.waker_cpu));
    checker.attach(rq);
    checker.begin_op(0, inv::OpClass::placement);
    checker.on_wake_choice(c);
    rq.set_observer(nullptr);
    return checker.violations();
  }
  // The model's own choice of t's wake-up from CPU 0, told to CPU 0's checker:
  // the CPU t went to, and the I-WAKECOUNT sites reported.
  std::pair<int, std::string> model_wake(int t, bool sync) {
    inv::Checker checker;
    checker.attach(sys.rq(0));
    checker.begin_op(0, inv::OpClass::placement);
    EXPECT_EQ(sys.wake(t, sync, -1, 0), Refusal::none);
    return {sys.rq(0).tasks[static_cast<std::size_t>(t)].cpu, site(checker.violations())};
  }
};

WakeCpuChoice choice(int task, int waker, int prev, int chosen, bool sync = false) {
  WakeCpuChoice c;
  c.task = task;
  c.waker_cpu = waker;
  c.prev_cpu = prev;
  c.chosen_cpu = chosen;
  c.sync = sync;
  return c;
}

// (a) B slept on CPU 1, where now only the SCHED_IDLE I runs: prev is free,
// and select_idle_sibling() takes it (or a free target) before anything else.
TEST(WakeChoiceProperty, FreePrevMustBeTaken) {
  Bench b(profile("mainline"), 2);
  const int a = b.task("A"), t = b.task("B"), i = b.task("I", Policy::idle);
  b.slept_on(t, 1);
  b.busy(i, 1);
  b.busy(a, 0);
  EXPECT_EQ(site(b.judge(choice(t, 0, 1, 0))), "select_task_rq_fair: prev free");
  EXPECT_EQ(site(b.judge(choice(t, 0, 1, 1))), "");
  // and the model's own choice, told to the checker of the waking CPU, is that
  EXPECT_EQ(b.model_wake(t, false), std::make_pair(1, std::string()));
}

// Out of the LLC's CPUs: no CPU at all.
TEST(WakeChoiceProperty, ChosenCpuOutsideTheLlc) {
  Bench b(profile("mainline"), 2);
  const int a = b.task("A"), t = b.task("B");
  b.slept_on(t, 0);
  b.busy(a, 0);
  EXPECT_EQ(site(b.judge(choice(t, 0, 0, 2))), "select_task_rq_fair");
  EXPECT_EQ(site(b.judge(choice(t, 0, 0, -1))), "select_task_rq_fair");
}

// (a') A wake-up made on the idle CPU 1 (an interrupt), B's prev CPU 0 busy:
// wake_affine_idle() makes CPU 1 the target, and it is kept.
TEST(WakeChoiceProperty, IdleWakingCpuIsTheTarget) {
  Bench b(profile("mainline"), 3);
  const int a = b.task("A"), t = b.task("B");
  b.slept_on(t, 0);
  b.busy(a, 0);
  EXPECT_EQ(site(b.judge(choice(t, 1, 0, 1))), "");
  EXPECT_EQ(site(b.judge(choice(t, 1, 0, 0))), "select_task_rq_fair: idle waking CPU");
  // free, but neither the target nor prev: select_idle_sibling() returns an idle target at once
  EXPECT_EQ(site(b.judge(choice(t, 1, 0, 2))), "select_task_rq_fair: idle waking CPU");
  // without WA_IDLE the target is WA_WEIGHT's (PELT loads): no property
  Bench nb(profile("mainline", "NO_WA_IDLE"), 3);
  const int na = nb.task("A"), nt = nb.task("B");
  nb.slept_on(nt, 0);
  nb.busy(na, 0);
  EXPECT_EQ(site(nb.judge(choice(nt, 1, 0, 0))), "");
}

// A waker that flips between sd_llc_size wakees or more, woken by one that does
// too, may be a wide wake-up (wake_wide()): the target is then prev.
TEST(WakeChoiceProperty, WideWakeUpIsNotJudgedAsAffine) {
  Bench b(profile("mainline"), 3);
  const int a = b.task("A"), t = b.task("B");
  b.slept_on(t, 0);
  b.busy(a, 0);
  const unsigned llc = b.sys.rq(0).profile().tunables.ncpus;
  b.sys.rq(1).idle_wakee.flips = llc;
  b.sys.rq(0).tasks[static_cast<std::size_t>(t)].wakee.flips = llc;
  EXPECT_EQ(site(b.judge(choice(t, 1, 0, 0))), "");
  b.sys.rq(0).tasks[static_cast<std::size_t>(t)].wakee.flips = llc - 1;  // one fewer: affine
  EXPECT_EQ(site(b.judge(choice(t, 1, 0, 0))), "select_task_rq_fair: idle waking CPU");
}

// (b) A WF_SYNC waker alone on CPU 0 (a delayed task beside it does not count):
// the sync clause makes CPU 0 the target; B's prev CPU 1 is busy.
TEST(WakeChoiceProperty, SyncWakerAloneGivesItsCpu) {
  Bench b(profile("mainline"), 2);
  const int a = b.task("A"), t = b.task("B"), c = b.task("C"), d = b.task("D");
  b.slept_on(t, 1);
  b.busy(c, 1);
  b.wake_on(d, 0);
  b.wake_on(a, 0);
  b.sys.run(1'000'000);
  ASSERT_EQ(b.running(0), d);
  b.sleep(d);  // ran ahead of A: negative lag, DELAY_DEQUEUE keeps it
  ASSERT_TRUE(b.sys.rq(0).tasks[static_cast<std::size_t>(d)].se.sched_delayed);
  ASSERT_EQ(b.running(0), a);
  EXPECT_EQ(site(b.judge(choice(t, 0, 1, 1, true))), "select_task_rq_fair: WF_SYNC waker alone");
  EXPECT_EQ(site(b.judge(choice(t, 0, 1, 0, true))), "");
  // not WF_SYNC: WA_WEIGHT decides between the two
  EXPECT_EQ(site(b.judge(choice(t, 0, 1, 1, false))), "");
  // and the model's own WF_SYNC choice: the waker's CPU
  EXPECT_EQ(b.model_wake(t, true), std::make_pair(0, std::string()));
}

// A waker that is not alone (another task can run on its CPU) gives nothing away.
TEST(WakeChoiceProperty, SyncWakerWithCompanyIsNoPremise) {
  Bench b(profile("mainline"), 2);
  const int a = b.task("A"), t = b.task("B"), c = b.task("C"), e = b.task("E");
  b.slept_on(t, 1);
  b.busy(c, 1);
  b.wake_on(a, 0);
  b.wake_on(e, 0);
  b.sys.run(1'000'000);
  EXPECT_EQ(site(b.judge(choice(t, 0, 1, 1, true))), "");
}

// (c) No scan budget (NO_SIS_UTIL): select_idle_cpu() visits every CPU, so a
// free CPU is not passed over for a busy one.
TEST(WakeChoiceProperty, ScanWithoutBudgetFindsTheFreeCpu) {
  for (const bool sis_util : {false, true}) {
    Bench b(profile("mainline", sis_util ? "" : "NO_SIS_UTIL"), 3);
    const int a = b.task("A"), t = b.task("B"), c = b.task("C");
    b.slept_on(t, 0);
    b.busy(a, 0);
    b.busy(c, 1);
    EXPECT_EQ(site(b.judge(choice(t, 0, 0, 2))), "") << sis_util;
    // under SIS_UTIL the budget is the load balancer's: not a property
    EXPECT_EQ(site(b.judge(choice(t, 0, 0, 1))), sis_util ? "" : "select_task_rq_fair: a free CPU in the LLC");
  }
}

// (d) SMT (cores 0-1, 2-3), NO_SIS_UTIL, has_idle_cores set: CPU 0 busy,
// CPU 1 idle, core 2-3 idle. The scan for an idle core gives a CPU of 2-3.
TEST(WakeChoiceProperty, IdleCoreBeforeAnIdleSibling) {
  Bench b(profile("mainline", "NO_SIS_UTIL"), 4, 2);
  const int a = b.task("A"), t = b.task("B");
  b.slept_on(t, 0);
  b.busy(a, 0);
  WakeCpuChoice c = choice(t, 0, 0, 1);
  c.had_idle_cores = true;
  EXPECT_EQ(site(b.judge(c)), "select_task_rq_fair: an idle core");
  c.chosen_cpu = 2;
  EXPECT_EQ(site(b.judge(c)), "");
  c.chosen_cpu = 3;
  EXPECT_EQ(site(b.judge(c)), "");
  // a free recent_used_cpu is an earlier answer of select_idle_sibling()
  c.chosen_cpu = 1;
  c.recent_used_cpu = 1;
  EXPECT_EQ(site(b.judge(c)), "");
  // has_idle_cores clear: select_idle_smt() may give prev's idle sibling
  c.recent_used_cpu = -1;
  c.had_idle_cores = false;
  EXPECT_EQ(site(b.judge(c)), "");
}

// F9: CPU 1 runs the SCHED_IDLE I beside the delayed normal D; B's prev is
// CPU 1. By the tasks prev is free; by sched_idle_rq()'s counters it is not.
// Tolerated by default exactly as F9 is (the counters' reading justifies the
// choice); reported with the tolerances off.
TEST(WakeChoiceProperty, F9AtTheChoiceIsToleratedAsF9) {
  Bench b(profile("v6.12.118"), 2);
  const int a = b.task("A"), t = b.task("B"), i = b.task("I", Policy::idle), d = b.task("D");
  b.slept_on(t, 1);
  b.wake_on(i, 1);
  b.wake_on(d, 1);
  b.sys.run(1'000'000);
  ASSERT_EQ(b.running(1), d);
  b.sleep(d);
  ASSERT_TRUE(b.sys.rq(0).tasks[static_cast<std::size_t>(d)].se.sched_delayed);
  b.busy(a, 0);
  EXPECT_EQ(site(b.judge(choice(t, 0, 1, 0))), "");
  inv::Tolerances none;
  none.f1_unscaled_vprot = false;
  EXPECT_EQ(site(b.judge(choice(t, 0, 1, 0), none)), "select_task_rq_fair: prev free");
  // prev taken: nothing to excuse in either reading
  EXPECT_EQ(site(b.judge(choice(t, 0, 1, 1), none)), "");
}

// A delayed task the load balancer moved to an idle CPU is counted there until
// that CPU's schedule() dequeues it: such a CPU is no premise.
TEST(WakeChoiceProperty, UnsettledIdleCpuIsNoPremise) {
  Bench b(profile("mainline", "NO_SIS_UTIL"), 2);
  const int a = b.task("A"), t = b.task("B"), d = b.task("D");
  b.slept_on(t, 1);
  b.wake_on(d, 0);
  b.wake_on(a, 0);
  b.sys.run(1'000'000);
  ASSERT_EQ(b.running(0), d);
  b.sleep(d);
  ASSERT_TRUE(b.sys.rq(0).tasks[static_cast<std::size_t>(d)].se.sched_delayed);
  ASSERT_EQ(b.sys.migrate(d, 1), Refusal::none);
  ASSERT_LT(b.running(1), 0);
  ASSERT_TRUE(b.sys.rq(1).need_resched);
  EXPECT_EQ(site(b.judge(choice(t, 0, 1, 0))), "");
  // once CPU 1 has scheduled (its pick dequeues D), it is idle and a premise
  b.sys.schedule();
  ASSERT_FALSE(b.sys.rq(0).tasks[static_cast<std::size_t>(d)].se.on_rq);
  EXPECT_EQ(site(b.judge(choice(t, 0, 1, 0))), "select_task_rq_fair: prev free");
}

// ---- corpus scenarios: the report of the choice, by its site ----

// The profile of this build's tree.
const char* tree_profile() {
  return test::kernel_tree_is("6.12.") ? "v6.12.118" : test::kernel_tree_is("6.18.") ? "v6.18" : "v7.0";
}

// The sites of the I-WAKECOUNT reports of the wake-up choice made on source
// line `line` of corpus/regressions/FILE, run as `eevdf-check run` runs it (its
// run settings applied); the state reports of the same operation come from
// the other CPUs' checkers and are left out ("select_task_rq_fair" sites only).
std::string site_at(const char* file, int line, scn::Backend backend, const char* profile = nullptr) {
  std::ifstream in(std::string(EEVDF_SOURCE_DIR) + "/corpus/regressions/" + file);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto parsed = scn::parse_scenario(text, file);
  if (!std::holds_alternative<scn::Scenario>(parsed)) return "parse error";
  const auto& s = std::get<scn::Scenario>(parsed);
  std::string error;
  scn::ProfileOverride o;
  if (profile) o.profile = profile;
  const auto p = scn::build_profile(s, o, error);
  if (!p) return error;
  scn::ExecOptions options;
  scn::RunFlags flags;
  flags.backend = backend;
  if (profile) flags.only = "I-WAKECOUNT";  // another tree's own findings do not stop the run
  if (std::string e = scn::apply_run_settings(s, flags, options); !e.empty()) return e;
  const scn::ExecResult r = scn::execute(s, *p, options);
  if (!r.error.empty()) return r.error;
  if (!r.expectation_failures.empty()) return r.expectation_failures.front();
  std::string out;
  for (const auto& v : r.violations)
    if (v.id == inv::Id::WAKECOUNT && v.op_index >= 0 && s.ops[static_cast<std::size_t>(v.op_index)].line == line &&
        v.where.rfind("select_task_rq_fair", 0) == 0)
      out += (out.empty() ? "" : " + ") + v.where;
  return out;
}

// aa3ee4f0b754 (v6.12's WF_SYNC clause counts a delayed task) at the choice it
// spoils: B stays on its busy prev (line 32).
TEST(WakeChoiceProperty, V612SyncClauseIsReportedAtTheChoice) {
  EXPECT_EQ(site_at("v6.12-sync-wakeup-lands-behind-busy-prev.scn", 32, scn::Backend::model),
            "select_task_rq_fair: WF_SYNC waker alone");
}

// The SMT_BUDDY_ASSIST RFC's rejected count hands W to an idle sibling while a
// whole core idles (line 37).
TEST(WakeChoiceProperty, RfcNrRunningFormIsReportedAtTheChoice) {
  EXPECT_EQ(site_at("rfc-smt-buddy-assist-nr-running-counts-delayed.scn", 37, scn::Backend::model),
            "select_task_rq_fair: an idle core");
}

// ---- the kernel backend: the tree's own choice and answers ----

struct ChoiceRecorder : Observer {
  std::vector<WakeCpuChoice> choices;
  bool wakee_asleep = true;
  const System* state = nullptr;
  void on_wake_choice(const WakeCpuChoice& c) override {
    choices.push_back(c);
    const Task& p = state->rq(0).tasks[static_cast<std::size_t>(c.task)];
    wakee_asleep = wakee_asleep && !p.se.on_rq && p.cpu == c.prev_cpu;
  }
};

// The tree's select_task_rq_fair() answer reaches the waking CPU's observer
// before the wake-up is performed, and is where the task then goes.
TEST(WakeChoiceProperty, TreesOwnChoiceIsToldBeforeTheWakeUp) {
  if (!kernelsrc::available() || !kernelsrc::smp()) GTEST_SKIP() << "no kernel backend with several CPUs";
  kernelsrc::KernelBackend kb(profile(tree_profile()), 2);
  ChoiceRecorder rec;
  rec.state = &kb.state();
  const int a = kb.create_task("A", 0, Policy::normal, 0, -1);
  const int t = kb.create_task("B", 0, Policy::normal, 0, -1);
  ASSERT_EQ(kb.wake(t, false, 1), Refusal::none);
  kb.run(1'000'000);
  ASSERT_EQ(kb.sleep(t), Refusal::none);
  ASSERT_EQ(kb.wake(a, false, 0), Refusal::none);
  kb.run(1'000'000);
  kb.state().rq(0).set_observer(&rec);
  // from CPU 0 (A runs there), B's prev CPU 1 idle: kept there
  ASSERT_EQ(kb.wake(t, false, -1, 0), Refusal::none);
  kb.state().rq(0).set_observer(nullptr);
  ASSERT_EQ(rec.choices.size(), 1u);
  EXPECT_EQ(rec.choices[0].task, t);
  EXPECT_EQ(rec.choices[0].waker_cpu, 0);
  EXPECT_EQ(rec.choices[0].prev_cpu, 1);
  EXPECT_EQ(rec.choices[0].chosen_cpu, 1);
  EXPECT_TRUE(rec.wakee_asleep);
  EXPECT_EQ(kb.state().rq(0).tasks[static_cast<std::size_t>(t)].cpu, 1);
  // a wake-up with cpu= is not chosen: nothing told
  kb.run(1'000'000);
  ASSERT_EQ(kb.state().rq(1).running(), t);
  ASSERT_EQ(kb.sleep(t), Refusal::none);
  rec.choices.clear();
  kb.state().rq(0).set_observer(&rec);
  ASSERT_EQ(kb.wake(t, false, 0), Refusal::none);
  kb.state().rq(0).set_observer(nullptr);
  EXPECT_TRUE(rec.choices.empty());
}

// F9 on the tree's own choice: the corpus scenario
// v6.12.118-F9-wakeup-choice-passes-over-sched-idle-cpu.scn reports the CPU the
// tree's select_task_rq_fair() returned at `wake B` (line 31), as the model's;
// run with the profile of this build's tree (each DELAY_DEQUEUE tree has F9).
TEST(WakeChoiceProperty, TreesOwnChoiceBreaksTheScanPropertyThroughF9) {
  if (!kernelsrc::available() || !kernelsrc::smp()) GTEST_SKIP() << "no kernel backend with several CPUs";
  for (const scn::Backend backend : {scn::Backend::model, scn::Backend::kernel})
    EXPECT_EQ(site_at("v6.12.118-F9-wakeup-choice-passes-over-sched-idle-cpu.scn", 31, backend, tree_profile()),
              "select_task_rq_fair: a free CPU in the LLC");
}

// After every operation the kernel backend's own sched_idle_rq() answer is
// judged, not the model's formula on the mirrored counters.
TEST(WakeChoiceProperty, KernelStateCheckJudgesTheTreesOwnAnswer) {
  if (!kernelsrc::available()) GTEST_SKIP() << "no kernel backend in this build";
  kernelsrc::KernelBackend kb(profile(tree_profile()));
  const int a = kb.create_task("A", 0, Policy::normal, 0, -1);
  ASSERT_EQ(kb.wake(a, false, -1), Refusal::none);
  kb.run(1'000'000);
  Rq& rq = kb.state().rq(0);
  ASSERT_EQ(rq.tree_sched_idle_rq, 0);
  const auto judged = [&] {
    inv::Checker checker;
    checker.attach(rq);
    checker.begin_op(0, inv::OpClass::running);
    checker.end_op();
    rq.set_observer(nullptr);
    return site(checker.violations());
  };
  EXPECT_EQ(judged(), "");
  // the model's WF_SYNC formula would read this counter (rq->nr_running 0: the
  // running A is not alone): the kernel backend does not recompute it
  const unsigned nr = rq.nr_running;
  rq.nr_running = 0;
  EXPECT_EQ(judged(), "");
  rq.nr_running = nr;
  // the tree's own answer says SCHED_IDLE-only while the normal A runs
  rq.tree_sched_idle_rq = 1;
  EXPECT_EQ(judged(), "sched_idle_rq");
}

}  // namespace
}  // namespace eevdf
