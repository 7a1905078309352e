// I-BW: CPU bandwidth control's state is consistent and a throttled queue does
// not run (the hierarchical throttle of 6.12.118, model/fair_bandwidth.cpp).
//
// Checked on every group queue after every operation while some group has a
// quota (cfs_bandwidth_used()), from the design:
//  1. throttle_count is the number of throttled queues on the path to the root,
//     this one included (tg_throttle_down(), tg_unthrottle_up(), sync_throttle());
//  2. a throttled queue's group entity is off its parent queue (throttle_cfs_rq());
//  3. a queue is throttled exactly when it is on its group's throttled list,
//     once; only a queue with a quota is throttled, and every queue of a group
//     has a quota exactly when the group has one (tg_set_cfs_bandwidth());
//  4. a throttled queue that no CSD is about to unthrottle has no runtime left
//     (distribute_cfs_runtime() unthrottles a queue as soon as it has some);
//  5. (once per CPU) the running task is not below a throttled queue, unless a
//     reschedule is pending: the throttle happens when it is put back
//     (put_prev_entity()), or while a sched_change has it off the CPU, and the
//     reschedule takes it off. The report says whether the throttled queue
//     overdrew its runtime: one that did not was throttled at exactly 0, which
//     only a put-back in the same instant as the cpu.max write (which zeroes
//     runtime_remaining) gives; the known entry zero-time-throttle of
//     corpus/known/v6.12.118.known labels it (docs/model.md, "CPU bandwidth
//     control").
//
// v6.18's task-based throttle (Behaviour::task_based_throttle) keeps a
// throttled queue's group entity queued and its tasks running until they
// return to user space; it is judged by its own rules, which differ on purpose:
//  2. a queue's limbo list is empty unless the queue is in a throttled
//     hierarchy (throttle_count > 0: tg_unthrottle_up() empties it when the
//     count drops to 0), instead of "the group entity is off its parent queue";
//  5. the running task may be below a throttled queue while its throttle work
//     is pending (the pick gave it: pick_task_fair()), or a reschedule;
//  6. (once per CPU) a task is throttled (p->throttled) exactly when it is on
//     its queue's limbo list, once and on no other; a limbo task is off the
//     tree (se.on_rq clear), still TASK_ON_RQ_QUEUED, awake, and not running.
#include <fmt/format.h>

#include <algorithm>

#include "invariants/checker.hpp"
#include "model/fair.hpp"

namespace eevdf::inv {

void check_bandwidth(const CheckScope& s) {
  if (!s.on(Id::BW)) return;
  const Rq& rq = s.rq;
  if (!rq.cfs_bandwidth_used()) return;
  const CfsRq& q = s.cfs;
  const bool task_based = rq.profile().behaviour.task_based_throttle;
  if (&q == &rq.cfs && task_based) {  // rule 6, once per CPU
    for (const Task& t : rq.tasks) {
      if (t.cpu != rq.cpu || !t.se.cfs_rq) continue;
      std::size_t listed = 0;
      const CfsRq* other = nullptr;
      for (std::size_t g = 0; g < rq.groups.size(); ++g) {  // every group queue of this CPU
        const CfsRq& gq = rq.group_queue(static_cast<int>(g));
        const auto n = static_cast<std::size_t>(
            std::count(gq.throttled_limbo_list.begin(), gq.throttled_limbo_list.end(), t.se.task_id));
        if (&gq == t.se.cfs_rq)
          listed = n;
        else if (n)
          other = &gq;
      }
      std::string what;
      if (t.throttled != (listed == 1) || listed > 1)
        what = fmt::format("is {}throttled but {} time(s) on its queue's limbo list", t.throttled ? "" : "not ", listed);
      else if (other)
        what = "is on the limbo list of a queue other than its own";
      else if (t.throttled && (t.se.on_rq || !t.on_rq || t.state != TaskState::running || rq.curr == t.se.task_id))
        what = fmt::format("is on a limbo list but se.on_rq = {}, on_rq = {}, {}{}", t.se.on_rq, t.on_rq,
                           t.state == TaskState::running ? "awake" : "not awake",
                           rq.curr == t.se.task_id ? ", running" : "");
      if (!what.empty()) {
        s.report(Id::BW, "throttle_cfs_rq_work / tg_unthrottle_up", fmt::format("{} {}", t.name, what), {&t.se});
        return;
      }
    }
  }
  if (&q == &rq.cfs) {  // rule 5, once per CPU
    const Task* p = rq.task(rq.curr);
    if (!p || rq.need_resched || !p->se.cfs_rq || !throttled_hierarchy(*p->se.cfs_rq)) return;
    if (task_based && p->throttle_work) return;  // v6.18: it runs until it returns to user space
    // the throttled queue nearest the task, up its entities (for_each_sched_entity()):
    // whether it overdrew its runtime
    const SchedEntity* se = &p->se;
    while (!se->cfs_rq->throttled && se->parent) se = se->parent;
    const CfsRq* throttled = se->cfs_rq;
    s.report(Id::BW, "throttle_cfs_rq / pick_task_fair",
             fmt::format("{} runs on CPU {} below a throttled queue (its queue's throttle_count {}) with no "
                         "reschedule{} pending; the throttled queue {}",
                         p->name, rq.cpu, p->se.cfs_rq->throttle_count, task_based ? " and no throttle work" : "",
                         throttled->runtime_remaining < 0
                             ? fmt::format("overdrew its runtime by {} ns", -throttled->runtime_remaining)
                             : std::string("has not overdrawn its runtime")),
             {&p->se});
    return;
  }
  const TaskGroup& tg = rq.task_groups[static_cast<std::size_t>(q.group_id)];
  if (tg.destroyed) return;  // off the task-group tree: no throttle walk reaches it any more
  const CfsBandwidth& b = tg.cfs_bandwidth;
  const int parent_count = tg.parent < 0 ? 0 : rq.group_queue(tg.parent).throttle_count;
  const SchedEntity& gse = rq.groups[static_cast<std::size_t>(q.group_id)].se;
  const auto listed = std::count(b.throttled_cfs_rq.begin(), b.throttled_cfs_rq.end(), rq.cpu);
  std::string what;
  if (q.throttle_count != (q.throttled ? 1 : 0) + parent_count)
    what = fmt::format("throttle_count = {}, but the queue is {}throttled and its parent's count is {}",
                       q.throttle_count, q.throttled ? "" : "not ", parent_count);
  else if (!task_based && q.throttled && gse.on_rq)
    what = "the queue is throttled but its group entity is still queued above";
  else if (task_based && !q.throttled_limbo_list.empty() && !q.throttle_count)
    what = fmt::format("{} task(s) on the limbo list of a queue that is not in a throttled hierarchy",
                       q.throttled_limbo_list.size());
  else if (listed != (q.throttled ? 1 : 0))
    what = fmt::format("the queue is {}throttled but is {} time(s) on the group's throttled list", q.throttled ? "" : "not ",
                       listed);
  else if (q.runtime_enabled != (b.quota != kRuntimeInf))
    what = fmt::format("runtime_enabled = {} but the group's quota is {}", q.runtime_enabled,
                       b.quota == kRuntimeInf ? std::string("max") : std::to_string(b.quota));
  else if (q.throttled && !q.csd_queued && q.runtime_remaining > 0)
    what = fmt::format("the queue is throttled with {} ns of runtime left and no unthrottle queued",
                       q.runtime_remaining);
  if (!what.empty())
    s.report(Id::BW, "throttle_cfs_rq / unthrottle_cfs_rq", queue_prefix(s) + what, {&gse});
}

}  // namespace eevdf::inv
