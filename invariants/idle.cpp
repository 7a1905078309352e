// I-IDLE: a CPU runs its idle task only while nothing runnable is queued on it,
// or with a reschedule pending.
//
// The idle loop leaves only on need_resched (do_idle()): a runnable task put on
// an idle CPU's queue without resched_curr() waits there, CPU idle, until some
// later event reschedules that CPU. Every path that makes a task runnable on a
// CPU asks for that reschedule (the wake-up preemption of the idle task, the
// unthrottle that finds the CPU idle); the state after an operation shows a
// path that did not. Counted: the fair tasks that can run (the root queue's
// h_nr_runnable: a delayed task is not runnable, a task below a throttled queue
// is not counted there) and the queued RT tasks.
//
// The model and the kernel backend pick on such a CPU at the start of the next
// operation (Rq::schedule_pending()); the kernel does not: the wait lasts until
// the next reschedule of that CPU (docs/findings/F13.md).
#include <fmt/format.h>

#include "invariants/checker.hpp"

namespace eevdf::inv {

void check_idle(const CheckScope& s) {  // s.cfs is the root queue
  if (!s.on(Id::IDLE)) return;
  const Rq& rq = s.rq;
  if (rq.oops || rq.running() >= 0 || rq.need_resched) return;
  const unsigned runnable = rq.cfs.h_nr_runnable + static_cast<unsigned>(rq.rt_queue.size());
  if (runnable == 0) return;
  s.report(Id::IDLE, "resched_curr / wakeup_preempt",
           fmt::format("CPU {} runs its idle task with {} runnable task(s) queued ({} fair, {} RT) and no "
                       "reschedule pending",
                       rq.cpu, runnable, rq.cfs.h_nr_runnable, rq.rt_queue.size()),
           {});
}

}  // namespace eevdf::inv
