// I-WAKECOUNT: the wake-up CPU choice counts only the tasks that can run.
//
// select_task_rq_fair() decides from counters: idle_cpu() (rq->nr_running),
// sched_idle_cpu() (rq->nr_running against h_nr_idle) and wake_affine_idle()'s
// WF_SYNC clause. A delayed task (DELAY_DEQUEUE) is asleep but stays queued,
// so it is in rq->nr_running. The property, from the tasks themselves: a CPU
// is idle when nothing can run there; SCHED_IDLE-only when something can and
// all of it is SCHED_IDLE (or below an idle group); a waker's CPU runs only
// the waker when the waker is the one task that can run there; and with the
// SMT_BUDDY_ASSIST RFC on, the count it reads is the fair tasks that can run.
#include <fmt/format.h>

#include <string>
#include <utility>
#include <vector>

#include "invariants/checker.hpp"
#include "model/wake_cpu.hpp"

namespace eevdf::inv {

namespace {

// The task is SCHED_IDLE for the choice: its policy, or an idle group above it
// (h_nr_idle's rule: sched_group_set_idle()).
bool idle_for_choice(const Rq& rq, const Task& t) {
  if (t.policy == Policy::idle) return true;
  for (int g = t.group; g >= 0;) {
    const TaskGroup& tg = rq.task_groups[static_cast<std::size_t>(g)];
    if (tg.idle) return true;
    g = tg.parent;
  }
  return false;
}

}  // namespace

void check_wake_cpu(const CheckScope& s) {
  if (!s.on(Id::WAKECOUNT)) return;
  const Rq& rq = s.rq;
  // what can run on this CPU: its queued RT tasks and its queued fair tasks that are not delayed
  unsigned runnable = static_cast<unsigned>(rq.rt_queue.size());
  unsigned runnable_idle = 0, delayed = 0, delayed_idle = 0;
  const Task* a_delayed = nullptr;
  for (const Task& t : rq.tasks) {
    if (t.cpu != rq.cpu || t.policy == Policy::fifo || !t.se.on_rq) continue;
    if (t.se.sched_delayed) {
      ++delayed;
      if (idle_for_choice(rq, t)) ++delayed_idle;
      if (!a_delayed) a_delayed = &t;
      continue;
    }
    ++runnable;
    if (idle_for_choice(rq, t)) ++runnable_idle;
  }
  const bool nothing_runs = rq.running() < 0;
  const auto counts = [&] {
    return fmt::format("rq->nr_running = {}, h_nr_idle = {}; {} task(s) can run ({} SCHED_IDLE), {} delayed{}",
                       rq.nr_running, rq.cfs.h_nr_idle, runnable, runnable_idle, delayed,
                       a_delayed ? " (" + a_delayed->name + ")" : std::string{});
  };
  // the report names the first delayed task; built only when there is one to make
  const auto report = [&](const char* where, std::string what) {
    std::vector<const SchedEntity*> who;
    if (a_delayed) who.push_back(&a_delayed->se);
    s.report(Id::WAKECOUNT, where, std::move(what), std::move(who));
  };
  const bool idle = nothing_runs && runnable == 0;
  // An idle CPU with a reschedule pending is between an enqueue and its
  // schedule(), whose pick dequeues every delayed entity (a delayed task moved
  // here by the load balancer: `migrate`); idle_cpu() is judged once it has
  // scheduled. Kept for a settled CPU: one that goes idle with a delayed task
  // still counted is caught.
  const bool about_to_pick = nothing_runs && rq.need_resched;
  if (idle_cpu(rq) != idle && !about_to_pick) {
    report("idle_cpu", fmt::format("CPU {} is {}idle for the wake-up choice but {}: {}", rq.cpu,
                                   idle_cpu(rq) ? "" : "not ", idle ? "nothing can run there" : "a task can run there",
                                   counts()));
    return;
  }
  const bool only_idle = runnable > 0 && runnable == runnable_idle;
  // F9 (tolerated by default): the answer the tasks give when the delayed ones count as work
  const bool f9 = s.checker.tolerates_f9() && delayed > 0 &&
                  sched_idle_rq(rq) == (runnable + delayed == runnable_idle + delayed_idle);
  if (sched_idle_rq(rq) != only_idle && !f9) {
    report("sched_idle_rq", fmt::format("sched_idle_cpu({}) = {}, but {}: {}", rq.cpu, sched_idle_rq(rq),
                                        only_idle ? "every task that can run there is SCHED_IDLE"
                                                  : "not every task that can run there is SCHED_IDLE",
                                        counts()));
    return;
  }
  // the SMT_BUDDY_ASSIST RFC (model/wake_cpu.hpp) reads a target's pending work
  // from a count: it must be the fair tasks that can run there, the running one included
  if (smt_buddy_assist(rq.profile()) && !about_to_pick) {
    const unsigned fair_runnable = runnable - static_cast<unsigned>(rq.rt_queue.size());
    if (smt_buddy_assist_count(rq) != fair_runnable) {
      report("smt_buddy_assist",
             fmt::format("SMT_BUDDY_ASSIST counts {} task(s) on CPU {}, but {} fair task(s) can run there: {}",
                         smt_buddy_assist_count(rq), rq.cpu, fair_runnable, counts()));
      return;
    }
  }
  // the WF_SYNC clause is asked of a busy waker's CPU: the running task wakes another
  if (nothing_runs) return;
  const bool only_waker = runnable == 1;
  if (wake_affine_idle_sync(rq) != only_waker) {
    const Task* waker = rq.task(rq.running());
    report("wake_affine_idle",
           fmt::format("a WF_SYNC wake-up by {} on CPU {} {} the waker's CPU, but {}: {}", waker ? waker->name : "?",
                       rq.cpu, wake_affine_idle_sync(rq) ? "takes" : "does not take",
                       only_waker ? "the waker is the only task that can run there" : "other tasks can run there",
                       counts()));
  }
}

}  // namespace eevdf::inv
