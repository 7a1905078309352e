// Another class on the CPU: an RT task (SCHED_FIFO) takes the
// CPU from the fair class and gives it back. Hand-derived from core.c's
// wakeup_preempt(), __pick_next_task() and put_prev_set_next_task() (6.12.118,
// v7.2), on the model, on the kernel's own fair.c and in lockstep.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "kernelsrc/kernel_backend.hpp"
#include "model/fair.hpp"
#include "model/profile.hpp"
#include "model/rq.hpp"
#include "model/system.hpp"
#include "scenario/executor.hpp"
#include "support/kernel_tree.hpp"
#include "support/run_scenario.hpp"

namespace eevdf {
namespace {

Profile profile(const char* name) { return *profile_by_name(name); }

TEST(ModelRt, WakeReschedulesTheFairCurrAndThePickPutsItBack) {
  Rq rq(profile("v6.12.118"));
  const int a = rq.create_task("A", 0, Policy::normal, 0);
  const int r = rq.create_task("R", 0, Policy::fifo, 0);
  ASSERT_GE(r, 0);
  EXPECT_EQ(rq.wake(a, false), Refusal::none);
  rq.run(2'000'000);
  ASSERT_EQ(rq.curr, a);
  EXPECT_EQ(rq.nr_running, 1u);
  const u64 resched_before = rq.resched_calls;
  EXPECT_EQ(rq.wake(r, false), Refusal::none);
  EXPECT_TRUE(rq.need_resched);                    // wakeup_preempt(): a higher class
  EXPECT_EQ(rq.resched_calls, resched_before + 1);  // resched_curr() once, no fair wakeup_preempt
  EXPECT_EQ(rq.nr_running, 2u);                    // add_nr_running()
  EXPECT_EQ(rq.curr, a);                           // no preemption point yet
  EXPECT_EQ(rq.cfs.curr, &rq.tasks[a].se);
  rq.schedule();
  EXPECT_EQ(rq.running(), r);
  EXPECT_EQ(rq.curr, -1);
  EXPECT_EQ(rq.cfs.curr, nullptr);  // put_prev_task_fair(): curr back into the tree
  EXPECT_TRUE(rq.tasks[a].se.on_rq);
  EXPECT_EQ(rq.cfs.tasks_timeline.leftmost(), &rq.tasks[a].se);
  EXPECT_FALSE(rq.need_resched);
  const u64 ran = rq.tasks[a].se.sum_exec_runtime;
  rq.run(5'000'000);  // the ticks are the RT class's
  EXPECT_EQ(rq.running(), r);
  EXPECT_EQ(rq.tasks[a].se.sum_exec_runtime, ran);
  EXPECT_EQ(rq.fair_tick_rescheds, 0u);
  EXPECT_EQ(rq.sleep(r), Refusal::none);  // the fair class picks again
  EXPECT_EQ(rq.curr, a);
  EXPECT_EQ(rq.running(), a);
  EXPECT_EQ(rq.nr_running, 1u);
  EXPECT_EQ(rq.tasks[a].se.exec_start, rq.clock_task);  // set_next_entity()
}

TEST(ModelRt, FairWakeupBelowAnRtCurrOnlyEnqueues) {
  Rq rq(profile("mainline"));
  const int r = rq.create_task("R", 0, Policy::fifo, 0);
  const int b = rq.create_task("B", 0, Policy::normal, 0);
  EXPECT_EQ(rq.wake(r, false), Refusal::none);
  rq.schedule();
  ASSERT_EQ(rq.running(), r);
  EXPECT_EQ(rq.wake(b, false), Refusal::none);
  EXPECT_FALSE(rq.need_resched);
  EXPECT_TRUE(rq.tasks[b].se.on_rq);
  EXPECT_EQ(rq.nr_running, 2u);
  EXPECT_TRUE(rq.tick_stoppable());  // a FIFO task queued: sched_can_stop_tick()
  const int c = rq.create_task("C", 0, Policy::normal, 0);
  EXPECT_EQ(rq.wake(c, false), Refusal::none);
  EXPECT_EQ(rq.cfs.h_nr_queued, 2u);
  EXPECT_EQ(rq.run_notick(1'000'000), Refusal::none);
  EXPECT_EQ(rq.exit_task(r), Refusal::none);
  EXPECT_FALSE(rq.tick_stoppable());
  EXPECT_EQ(rq.run_notick(1'000'000), Refusal::tick_needed);
}

TEST(ModelRt, SeveralRtTasksRunInFifoOrder) {
  Rq rq(profile("mainline"));
  const int r = rq.create_task("R", 0, Policy::fifo, 0);
  const int q = rq.create_task("Q", 0, Policy::fifo, 0);
  EXPECT_EQ(rq.wake(r, false), Refusal::none);
  rq.run(1'000'000);
  EXPECT_EQ(rq.wake(q, false), Refusal::none);
  EXPECT_FALSE(rq.need_resched);  // same priority: wakeup_preempt_rt() does nothing
  rq.run(1'000'000);
  EXPECT_EQ(rq.running(), r);
  EXPECT_EQ(rq.sleep(r), Refusal::none);
  EXPECT_EQ(rq.running(), q);
  EXPECT_EQ(rq.wake(r, false), Refusal::none);
  EXPECT_EQ(rq.exit_task(q), Refusal::none);
  EXPECT_EQ(rq.running(), r);
}

TEST(ModelRt, FairOperationsOnAnRtTaskAreRefused) {
  Rq rq(profile("mainline"));
  const int r = rq.create_task("R", 0, Policy::fifo, 0);
  const int a = rq.create_task("A", 0, Policy::normal, 0);
  EXPECT_EQ(rq.create_task("S", 3, Policy::fifo, 0), -1);  // no nice level of its own
  EXPECT_EQ(rq.create_task("S", 0, Policy::fifo, 1'000'000), -1);
  EXPECT_EQ(rq.wake(r, false), Refusal::none);
  rq.schedule();
  EXPECT_EQ(rq.set_nice(r, 5), Refusal::rt_task);
  EXPECT_EQ(rq.set_slice(r, 1'000'000), Refusal::rt_task);
  EXPECT_EQ(rq.set_policy(r, Policy::normal), Refusal::rt_policy_change);
  EXPECT_EQ(rq.set_policy(a, Policy::fifo), Refusal::rt_policy_change);
  EXPECT_EQ(rq.yield(r), Refusal::rt_task);
  EXPECT_EQ(rq.fork_task(r, "C"), -1);
  EXPECT_EQ(rq.move_task(r, -1), Refusal::rt_task);
  EXPECT_EQ(rq.sleep(a), Refusal::task_not_running_on_cpu);
}

// The fair class's read of rq->nr_running: yield_task_fair() of a lone fair curr
// returns at once unless an RT task is queued (then the pick takes it).
TEST(ModelRt, YieldBesideAQueuedRtTaskPushesTheDeadline) {
  Rq rq(profile("v6.12.118"));
  const int a = rq.create_task("A", 0, Policy::normal, 0);
  const int r = rq.create_task("R", 0, Policy::fifo, 0);
  EXPECT_EQ(rq.wake(a, false), Refusal::none);
  rq.run(1'000'000);
  const u64 deadline = rq.tasks[a].se.deadline;
  EXPECT_EQ(rq.yield(a), Refusal::none);  // nr_running 1: nothing
  EXPECT_EQ(rq.tasks[a].se.deadline, deadline);
  EXPECT_EQ(rq.wake(r, false), Refusal::none);
  EXPECT_EQ(rq.yield(a), Refusal::none);  // nr_running 2: 6.12.118 pushes the deadline, then R runs
  EXPECT_NE(rq.tasks[a].se.deadline, deadline);
  EXPECT_EQ(rq.running(), r);
}

// `tick nopreempt`: the fair class ticks although a reschedule is pending.
TEST(ModelRt, TickWithoutAPreemptionPointKeepsTheFairCurr) {
  Rq rq(profile("v6.12.118"));
  const int a = rq.create_task("A", 0, Policy::normal, 0);
  const int r = rq.create_task("R", 0, Policy::fifo, 0);
  EXPECT_EQ(rq.wake(a, false), Refusal::none);
  rq.run(1'000'000);
  EXPECT_EQ(rq.wake(r, false), Refusal::none);
  for (int i = 0; i < 6; ++i) rq.tick_nopreempt();
  EXPECT_EQ(rq.curr, a);
  EXPECT_EQ(rq.tasks[a].se.sum_exec_runtime, 7'000'000u);
  EXPECT_EQ(rq.fair_tick_rescheds, 0u);  // a lone fair entity: update_curr() returns before the resched
  Profile bug = profile("v6.12.118");
  bug.behaviour.lone_test_rq_nr_running = true;  // B25
  Rq rq2(bug);
  const int a2 = rq2.create_task("A", 0, Policy::normal, 0);
  const int r2 = rq2.create_task("R", 0, Policy::fifo, 0);
  EXPECT_EQ(rq2.wake(a2, false), Refusal::none);
  rq2.run(1'000'000);
  EXPECT_EQ(rq2.wake(r2, false), Refusal::none);
  for (int i = 0; i < 6; ++i) rq2.tick_nopreempt();
  EXPECT_GE(rq2.fair_tick_rescheds, 1u);  // rq->nr_running == 2: rescheduled at slice expiry
}

// Several CPUs: wake R cpu=1 moves it there; CPU 0's fair task keeps running.
TEST(ModelRt, WakeOnAnotherCpu) {
  System sys(profile("mainline"), 2);
  Rq& rq0 = sys.rq(0);
  const int a = rq0.create_task("A", 0, Policy::normal, 0);
  const int r = rq0.create_task("R", 0, Policy::fifo, 0);
  EXPECT_EQ(sys.wake(a, false, -1), Refusal::none);
  sys.run(1'000'000);
  EXPECT_EQ(sys.wake(r, false, 1), Refusal::none);
  sys.run(1'000'000);
  EXPECT_EQ(sys.rq(0).running(), a);
  EXPECT_EQ(sys.rq(1).running(), r);
  EXPECT_EQ(sys.rq(1).nr_running, 1u);
  EXPECT_EQ(sys.migrate(r, 0), Refusal::rt_task);
}

const char* kRtScenario =
    "profile v6.12.118\n"
    "task A\ntask B\ntask R policy=fifo\n"
    "wake A\nrun 2ms\nwake R\ntick nopreempt\nexpect curr A\nrun 3ms\nexpect curr R\n"
    "wake B\nrun 2ms notick\nsleep R\nexpect curr B\nwake R\nyield B\nexpect curr R\nexit R\n"
    "run 4ms\nexpect no-violation\n";

TEST(KernelRt, SameOnTheKernelsOwnCodeAndInLockstep) {
  if (!kernelsrc::available()) GTEST_SKIP() << "no kernel backend in this build";
  if (!test::kernel_tree_is("6.12.")) GTEST_SKIP() << "a v6.12.118 scenario; this build: Linux " << kernelsrc::kernel_version();
  for (scn::Backend b : {scn::Backend::model, scn::Backend::kernel, scn::Backend::lockstep}) {
    const scn::ExecResult r = test::run_scenario_text(kRtScenario, "rt.scn", false, b);
    test::expect_ok(r);
    EXPECT_FALSE(r.divergence.has_value()) << r.divergence->field << ": model " << r.divergence->model
                                           << ", kernel " << r.divergence->kernel;
  }
}

// Random sequences with RT tasks and ticks without a preemption point (which
// no byte format has): on the tree's profile (v6.12.118 on 6.12.y, v6.18 on
// 6.18.0, v7.0 on 7.0.0) the model and the kernel's own code agree in lockstep, and no profile reschedules a lone fair entity at a tick (rule 5).
scn::Scenario random_rt_scenario(std::mt19937& rng, const char* profile) {
  scn::Scenario s;
  s.profile = profile;
  int ntasks = 0;
  auto name = [](int i) { return "T" + std::to_string(i); };
  const int nops = 20 + static_cast<int>(rng() % 60);
  for (int i = 0; i < nops; ++i) {
    scn::Op op;
    const unsigned k = rng() % 12;
    if (ntasks == 0 || (k == 0 && ntasks < 8)) {
      op.kind = scn::OpKind::create;
      op.task = name(ntasks++);
      if (rng() % 3 == 0) op.policy = Policy::fifo;
      else op.value = static_cast<s64>(rng() % 11) - 5;
    } else {
      op.task = name(static_cast<int>(rng() % static_cast<unsigned>(ntasks)));
      switch (k) {
        case 1: case 2: op.kind = scn::OpKind::wake; break;
        case 3: op.kind = scn::OpKind::sleep; break;
        case 4: op.kind = scn::OpKind::run; op.value = static_cast<s64>(1 + rng() % 5000) * 1000; break;
        case 5: case 6: op.kind = scn::OpKind::tick; op.nopreempt = true; break;
        case 7: op.kind = scn::OpKind::tick; break;
        case 8: op.kind = scn::OpKind::schedule; break;
        case 9: op.kind = scn::OpKind::yield; break;
        case 10: op.kind = scn::OpKind::nice; op.value = static_cast<s64>(rng() % 11) - 5; break;
        default: op.kind = scn::OpKind::exit; break;
      }
      if (op.kind == scn::OpKind::run || op.kind == scn::OpKind::tick || op.kind == scn::OpKind::schedule)
        op.task.clear();
    }
    s.ops.push_back(op);
  }
  return s;
}

TEST(KernelRt, RandomSequencesAgreeInLockstepAndKeepRule5) {
  std::mt19937 rng(21);
  for (const char* p : {"v6.6", "v6.12", "v6.12.118", "v6.18", "v7.0", "v7.1", "v7.2", "v7.3", "mainline"}) {
    const Profile prof = profile(p);
    for (int run = 0; run < 150; ++run) {
      const scn::Scenario s = random_rt_scenario(rng, p);
      scn::ExecOptions o;
      o.strict = false;
      o.keep_going = true;
      const scn::ExecResult r = scn::execute(s, prof, o);
      for (const auto& v : r.violations)
        EXPECT_NE(v.where, "entity_tick / update_curr (lone entity)") << p << ": " << v.what;
      // lockstep with the profile of the tree this build has: v6.12.118 on 6.12.y, v6.18 on 6.18.0, v7.0 on 7.0.0
      if (!(std::string(p) == "v6.12.118" && test::kernel_tree_is("6.12.")) &&
          !(std::string(p) == "v6.18" && test::kernel_tree_is("6.18.0")) &&
          !(std::string(p) == "v7.0" && test::kernel_tree_is("7.0.0")))
        continue;
      o.backend = scn::Backend::lockstep;
      const scn::ExecResult l = scn::execute(s, prof, o);
      EXPECT_FALSE(l.divergence.has_value()) << l.divergence->field << ": model " << l.divergence->model
                                             << ", kernel " << l.divergence->kernel;
    }
  }
}

// The same generator reaches rule 5: with B25 (v6.12-rc1's rq->nr_running test)
// some sequences reschedule a lone fair task beside a queued RT task.
TEST(KernelRt, RandomSequencesReachRule5WithB25) {
  std::mt19937 rng(21);
  Profile prof = profile("v6.12.118");
  prof.behaviour.lone_test_rq_nr_running = true;
  int found = 0;
  for (int run = 0; run < 150; ++run) {
    scn::ExecOptions o;
    o.strict = false;
    o.keep_going = true;
    const scn::ExecResult r = scn::execute(random_rt_scenario(rng, "v6.12.118"), prof, o);
    for (const auto& v : r.violations)
      if (v.where == "entity_tick / update_curr (lone entity)") ++found;
  }
  EXPECT_GT(found, 0);
}

}  // namespace
}  // namespace eevdf
