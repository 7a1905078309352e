// I-SUM and I-CNT: the incremental sums and the counters, recomputed.
#include <fmt/format.h>

#include <algorithm>

#include "invariants/checker.hpp"
#include "model/fair.hpp"

namespace eevdf::inv {

std::string queue_prefix(const CheckScope& s) {
  if (&s.cfs == &s.rq.cfs) return {};
  std::string name = "group " + s.rq.task_groups[static_cast<std::size_t>(s.cfs.group_id)].name;
  if (s.rq.possible_cpus().size() > 1) name += " on CPU " + std::to_string(s.rq.cpu);
  return name + ": ";
}

// I-SUM: sum_w_vruntime == Σ key·w' and sum_weight == Σ w' over the tree,
// in the kernel's wrapping arithmetic (exact mod 2^64).
void check_sums(const CheckScope& s) {
  const CfsRq& cfs = s.cfs;
  // Σ key·w' and Σ w' over the tree, exact in 128 bits (exact_average()); the
  // kernel's u64 sums wrap mod 2^64, which is what the low 64 bits hold.
  const u64 sum = static_cast<u64>(static_cast<u128>(s.avg.tree_sum));
  const u64 weight = static_cast<u64>(static_cast<u128>(s.avg.tree_weight));
  if (sum != as_u64(cfs.sum_w_vruntime) || weight != cfs.sum_weight)
    s.report(Id::SUM, "__sum_w_vruntime_add / sum_w_vruntime_sub / update_zero_vruntime",
             fmt::format("{}sum_w_vruntime = {} and sum_weight = {}, but the tree sums to {} and {} "
                         "(zero_vruntime {}, sum_shift {})",
                         queue_prefix(s), cfs.sum_w_vruntime, cfs.sum_weight, as_s64(sum), weight, cfs.zero_vruntime,
                         cfs.sum_shift),
             {});
}

// I-CNT: every counter equals a count over the entities and tasks.
static void check_counters(const CheckScope& s) {
  const Rq& rq = s.rq;
  const CfsRq& cfs = s.cfs;
  const bool root = &cfs == &rq.cfs;
  if (root) {
    for (const Task& t : rq.tasks) {
      if (t.policy == Policy::fifo) {  // an RT task: never a fair entity; p->on_rq iff on this CPU's RT list
        const bool listed = std::find(rq.rt_queue.begin(), rq.rt_queue.end(), t.se.task_id) != rq.rt_queue.end();
        if (t.se.on_rq || (t.cpu == rq.cpu && t.on_rq != listed)) {
          s.report(Id::CNT, "enqueue_task_rt / dequeue_task_rt",
                   fmt::format("RT task {}: p->on_rq = {}, se->on_rq = {}, on the RT list: {}", t.name, t.on_rq,
                               t.se.on_rq, listed),
                   {&t.se});
          return;
        }
        continue;
      }
      // v6.18's task-based throttle: a limbo task is dequeued but stays TASK_ON_RQ_QUEUED (I-BW rule 6)
      if (t.on_rq != t.se.on_rq && !(t.throttled && t.on_rq)) {
        s.report(Id::CNT, "__block_task / activate_task",
                 fmt::format("{}: p->on_rq = {} but se->on_rq = {}", t.name, t.on_rq, t.se.on_rq), {&t.se});
        return;
      }
      // several CPUs: a task of this CPU hangs below this CPU's queues only (set_task_rq())
      if (t.cpu == rq.cpu && t.se.cfs_rq && t.se.cfs_rq->rq != &rq) {
        s.report(Id::CNT, "set_task_cpu / set_task_rq",
                 fmt::format("{} belongs to CPU {} but its queue is CPU {}'s", t.name, rq.cpu, t.se.cfs_rq->rq->cpu),
                 {&t.se});
        return;
      }
    }
    for (const TaskGroupCpu& g : rq.groups) {
      if (g.se.cfs_rq->rq != &rq || g.cfs_rq.rq != &rq) {
        s.report(Id::CNT, "init_tg_cfs_entry",
                 fmt::format("group {}'s entity of CPU {} hangs on CPU {}'s queue",
                             rq.task_groups[static_cast<std::size_t>(g.se.group_id)].name, rq.cpu,
                             g.se.cfs_rq->rq->cpu),
                 {&g.se});
        return;
      }
    }
  }
  // the entities on_rq and their load, counted while the queue's entities were listed
  const HierCounts& h = s.checker.queues().counts(cfs);
  const unsigned queued = h.on_rq;
  const u64 load = h.load;
  const unsigned tree = static_cast<unsigned>(s.avg.in_tree);
  const unsigned curr_on_rq = cfs.curr && cfs.curr->on_rq ? 1 : 0;
  // the queue's name, built only for a message (this runs after every operation)
  const auto q = [&s] { return queue_prefix(s); };
  std::string what;
  const bool flat = rq.profile().behaviour.flat_runqueue;
  // v7.3 flat runqueue: only rq->cfs has a tree, holding every queued task but
  // the running one (h_nr_queued counts them all); curr is the running task
  const Task* running = rq.task(rq.curr);
  if (flat && !root && (tree || cfs.curr || cfs.next))
    what = fmt::format("{}a group queue has an EEVDF tree ({} entities), a curr or a buddy on the flat runqueue", q(), tree);
  else if (flat && root && cfs.h_nr_queued != tree + curr_on_rq)
    what = fmt::format("h_nr_queued = {} but the tree holds {} and curr adds {}", cfs.h_nr_queued, tree, curr_on_rq);
  else if (flat && root && cfs.curr != (running ? &running->se : nullptr))
    what = fmt::format("rq->cfs.curr is {} but the running task is {}", entity_name(rq, cfs.curr),
                       running ? running->name : "idle");
  else if (!flat && cfs.nr_queued != tree + curr_on_rq)
    what = fmt::format("{}nr_queued = {} but the tree holds {} and curr adds {}", q(), cfs.nr_queued, tree, curr_on_rq);
  else if (cfs.nr_queued != queued)
    what = fmt::format("{}nr_queued = {} but {} {} on_rq", q(), cfs.nr_queued, queued,
                       rq.groups.empty() ? "tasks are" : "entities are");
  else if (cfs.load.weight != load)
    what = fmt::format("{}cfs_rq->load.weight = {} but the queued weights sum to {}", q(), cfs.load.weight, load);
  else if (h.broken)
    what = fmt::format("{} is queued below a group entity that is not queued", h.broken->name);
  else if (cfs.h_nr_queued != h.queued)
    what = fmt::format("{}h_nr_queued = {} but {} tasks are queued", q(), cfs.h_nr_queued, h.queued);
  else if (rq.profile().behaviour.delayed_count != DelayedCount::none && cfs.h_nr_runnable != h.runnable)
    what = fmt::format("{}h_nr_runnable = {} but {} queued tasks are not delayed", q(), cfs.h_nr_runnable, h.runnable);
  else if (cfs.h_nr_idle != h.idle)
    what = fmt::format("{}h_nr_idle = {} but {} queued tasks are SCHED_IDLE{}", q(), cfs.h_nr_idle, h.idle,
                       rq.groups.empty() ? "" : " or below an idle group");
  else if (root && rq.nr_running != h.queued + rq.rt_queue.size())
    what = fmt::format("rq->nr_running = {} but {} fair tasks and {} RT tasks are queued", rq.nr_running, h.queued,
                       rq.rt_queue.size());
  if (!what.empty()) s.report(Id::CNT, "account_entity_enqueue / dequeue_entities", what, {});
}

void check_accounting(const CheckScope& s) {
  if (s.on(Id::SUM)) check_sums(s);
  if (s.on(Id::CNT)) check_counters(s);
}

}  // namespace eevdf::inv
