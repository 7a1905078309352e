// I-SUM and I-CNT: the incremental sums and the counters, recomputed.
#include <fmt/format.h>

#include "invariants/checker.hpp"
#include "model/fair.hpp"

namespace eevdf::inv {

// I-SUM: sum_w_vruntime == Σ key·w' and sum_weight == Σ w' over the tree,
// in the kernel's wrapping arithmetic (exact mod 2^64).
static void check_sums(const CheckScope& s) {
  const CfsRq& cfs = s.rq.cfs;
  u64 sum = 0, weight = 0;
  for_each_in_tree(s.avg, [&](const SchedEntity& se) {
    const u64 w = avg_vruntime_weight(cfs, se.load.weight);
    sum += as_u64(entity_key(cfs, se)) * w;
    weight += w;
  });
  if (sum != as_u64(cfs.sum_w_vruntime) || weight != cfs.sum_weight)
    s.report(Id::SUM, "__sum_w_vruntime_add / sum_w_vruntime_sub / update_zero_vruntime",
             fmt::format("sum_w_vruntime = {} and sum_weight = {}, but the tree sums to {} and {} "
                         "(zero_vruntime {}, sum_shift {})",
                         cfs.sum_w_vruntime, cfs.sum_weight, as_s64(sum), weight, cfs.zero_vruntime, cfs.sum_shift),
             {});
}

// I-CNT: every counter equals a count over the tasks.
static void check_counters(const CheckScope& s) {
  const Rq& rq = s.rq;
  const CfsRq& cfs = rq.cfs;
  unsigned tree = 0, queued = 0, runnable = 0, idle = 0;
  u64 load = 0;
  tree = static_cast<unsigned>(s.avg.in_tree);
  for (const Task& t : rq.tasks) {
    if (t.on_rq != t.se.on_rq) {
      s.report(Id::CNT, "__block_task / activate_task",
               fmt::format("{}: p->on_rq = {} but se->on_rq = {}", t.name, t.on_rq, t.se.on_rq), {&t.se});
      return;
    }
    if (!t.se.on_rq) continue;
    ++queued;
    load += t.se.load.weight;
    if (!t.se.sched_delayed) ++runnable;
    if (t.policy == Policy::idle) ++idle;
  }
  const unsigned curr_on_rq = cfs.curr && cfs.curr->on_rq ? 1 : 0;
  std::string what;
  if (cfs.nr_queued != tree + curr_on_rq)
    what = fmt::format("nr_queued = {} but the tree holds {} and curr adds {}", cfs.nr_queued, tree, curr_on_rq);
  else if (cfs.nr_queued != queued)
    what = fmt::format("nr_queued = {} but {} tasks are on_rq", cfs.nr_queued, queued);
  else if (cfs.load.weight != load)
    what = fmt::format("cfs_rq->load.weight = {} but the queued weights sum to {}", cfs.load.weight, load);
  else if (cfs.h_nr_queued != queued)
    what = fmt::format("h_nr_queued = {} but {} tasks are queued", cfs.h_nr_queued, queued);
  else if (cfs.h_nr_runnable != runnable)
    what = fmt::format("h_nr_runnable = {} but {} queued tasks are not delayed", cfs.h_nr_runnable, runnable);
  else if (cfs.h_nr_idle != idle)
    what = fmt::format("h_nr_idle = {} but {} queued tasks are SCHED_IDLE", cfs.h_nr_idle, idle);
  else if (rq.nr_running != queued)
    what = fmt::format("rq->nr_running = {} but {} fair tasks are queued", rq.nr_running, queued);
  if (!what.empty()) s.report(Id::CNT, "account_entity_enqueue / dequeue_entities", what, {});
}

void check_accounting(const CheckScope& s) {
  if (s.on(Id::SUM)) check_sums(s);
  if (s.on(Id::CNT)) check_counters(s);
}

}  // namespace eevdf::inv
