// Lockstep: the model's state against the kernel backend's, field by field
// (scenario/executor.hpp). Every entity (task or group) by name, every queue,
// the trees' shape, the runqueue's current task, clock and resched flag.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "scenario/executor.hpp"
#include "model/fair.hpp"
#include "model/wake_cpu.hpp"

namespace eevdf::scn {

const char* backend_name(Backend b) {
  switch (b) {
    case Backend::model: return "model";
    case Backend::kernel: return "kernel";
    case Backend::lockstep: return "lockstep";
  }
  return "?";
}

std::optional<Backend> backend_from_name(const std::string& name) {
  for (Backend b : {Backend::model, Backend::kernel, Backend::lockstep})
    if (name == backend_name(b)) return b;
  return std::nullopt;
}

namespace {

std::string entity_name(const Rq& rq, const SchedEntity* se) {
  if (!se) return "none";
  if (se->task_id >= 0) return rq.tasks[static_cast<std::size_t>(se->task_id)].name;
  if (se->group_id >= 0) return "group " + rq.task_groups[static_cast<std::size_t>(se->group_id)].name;
  return "?";
}

struct Cmp {
  const Rq& m;
  const Rq& k;
  std::optional<Divergence> d;
  bool pelt = false;  // both sides keep PELT (System::pelt_kept())
  inline static const std::string root_name = "root";
  // Where a field lives ("task A", "queue G"); the text is built only for a difference,
  // so a lockstep run allocates nothing per compared field.
  struct Where {
    const char* kind;
    const std::string& name;
    std::string text(const char* field) const {
      return name.empty() ? fmt::format("{}: {}", kind, field) : fmt::format("{} {}: {}", kind, name, field);
    }
  };
  template <class T>
  void num(const Where& where, const char* field, T a, T b) {
    if (!d && a != b) d = Divergence{-1, where.text(field), fmt::format("{}", a), fmt::format("{}", b)};
  }
  // the same entity on both sides: same owner (task or group id), or both none
  static bool same_entity(const SchedEntity* a, const SchedEntity* b) {
    if (!a || !b) return a == b;
    return a->task_id == b->task_id && a->group_id == b->group_id;
  }
  // record_wakee()'s memory of a waker (model/wake_cpu.hpp)
  void wakee(const Where& where, const WakeeState& a, const WakeeState& b) {
    if (!d && a.last != b.last) {
      // the task table is CPU 0's; another CPU's Rq may not hold it
      const auto who = [](const Rq& r, int t) {
        return t < 0 ? std::string("none")
               : static_cast<std::size_t>(t) < r.tasks.size() ? r.tasks[static_cast<std::size_t>(t)].name
                                                               : fmt::format("task #{}", t);
      };
      d = Divergence{-1, where.text("last_wakee"), who(m, a.last), who(k, b.last)};
    }
    num(where, "wakee_flips", a.flips, b.flips);
    num(where, "wakee_flip_decay_ts", a.decay_ts, b.decay_ts);
  }
  void ptr(const Where& where, const char* field, const SchedEntity* a, const SchedEntity* b) {
    if (!d && !same_entity(a, b)) d = Divergence{-1, where.text(field), entity_name(m, a), entity_name(k, b)};
  }
  // struct sched_avg without util_est (not modelled)
  void avg(const Where& where, const SchedAvg& a, const SchedAvg& b) {
    num(where, "avg.last_update_time", a.last_update_time, b.last_update_time);
    num(where, "avg.load_sum", a.load_sum, b.load_sum);
    num(where, "avg.runnable_sum", a.runnable_sum, b.runnable_sum);
    num(where, "avg.util_sum", a.util_sum, b.util_sum);
    num(where, "avg.period_contrib", a.period_contrib, b.period_contrib);
    num(where, "avg.load_avg", a.load_avg, b.load_avg);
    num(where, "avg.runnable_avg", a.runnable_avg, b.runnable_avg);
    num(where, "avg.util_avg", a.util_avg, b.util_avg);
  }
  void entity(const Where& where, const SchedEntity& a, const SchedEntity& b) {
    if (pelt) {
      avg(where, a.avg, b.avg);
      if (a.my_q) num(where, "runnable_weight", a.runnable_weight, b.runnable_weight);
    }
    num(where, "vruntime", a.vruntime, b.vruntime);
    num(where, "deadline", a.deadline, b.deadline);
    num(where, "vlag", a.vlag, b.vlag);
    // vprot apart from vlag (v7.0 on, 80390ead2080): compared while the entity is its queue's curr,
    // where protect_slice() reads it (in v6.18 it is vlag's storage, compared above; v6.12 has none,
    // its parity stash is vlag)
    if (!a.vprot_aliases_vlag && !m.profile().behaviour.parity_in_vlag && a.cfs_rq && a.cfs_rq->curr == &a)
      num(where, "vprot", a.vprot, b.vprot);
    num(where, "slice", a.slice, b.slice);
    num(where, "weight", a.load.weight, b.load.weight);
    num(where, "on_rq", a.on_rq, b.on_rq);
    num(where, "sched_delayed", a.sched_delayed, b.sched_delayed);
    num(where, "rel_deadline", a.rel_deadline, b.rel_deadline);
    num(where, "custom_slice", a.custom_slice, b.custom_slice);
    num(where, "exec_start", a.exec_start, b.exec_start);
    num(where, "sum_exec_runtime", a.sum_exec_runtime, b.sum_exec_runtime);
    // the tree's shape and augments are defined for entities in a tree (queued, not their queue's curr)
    const bool in_tree = a.on_rq && !(a.cfs_rq && a.cfs_rq->curr == &a);
    num(where, "in the tree", in_tree, b.on_rq && !(b.cfs_rq && b.cfs_rq->curr == &b));
    if (in_tree) {
      if (tree_by_vruntime(m.profile())) {
        // v6.6: the tree by vruntime keeps the subtree's earliest deadline instead
        num(where, "min_deadline (augment)", a.min_deadline, b.min_deadline);
      } else {
        num(where, "min_vruntime (augment)", a.min_vruntime, b.min_vruntime);
        num(where, "min_slice (augment)", a.min_slice, b.min_slice);
      }
      // the max_slice augment (v7.0 on, 6e3c0a4e1ad1; a tree without it hands back 0)
      if (m.profile().behaviour.augment_has_max_slice) num(where, "max_slice (augment)", a.max_slice, b.max_slice);
      ptr(where, "rb_parent", a.rb_parent, b.rb_parent);
      ptr(where, "rb_left", a.rb_left, b.rb_left);
      ptr(where, "rb_right", a.rb_right, b.rb_right);
      num(where, "rb_red", a.rb_red, b.rb_red);
    }
  }
  void queue(const CfsRq& a, const CfsRq& b) {
    const std::string& name =
        a.group_id < 0 ? root_name : m.task_groups[static_cast<std::size_t>(a.group_id)].name;
    const Where where{"queue", name};
    num(where, "load.weight", a.load.weight, b.load.weight);
    num(where, "nr_queued", a.nr_queued, b.nr_queued);
    num(where, "h_nr_queued", a.h_nr_queued, b.h_nr_queued);
    // v6.12.0 keeps no delayed count (the glue hands back h_nr_running)
    if (m.profile().behaviour.delayed_count != DelayedCount::none)
      num(where, "h_nr_runnable", a.h_nr_runnable, b.h_nr_runnable);
    num(where, "h_nr_idle", a.h_nr_idle, b.h_nr_idle);
    num(where, "sum_w_vruntime", a.sum_w_vruntime, b.sum_w_vruntime);
    num(where, "sum_weight", a.sum_weight, b.sum_weight);
    num(where, "zero_vruntime", a.zero_vruntime, b.zero_vruntime);
    ptr(where, "curr", a.curr, b.curr);
    ptr(where, "next", a.next, b.next);
    ptr(where, "tree root", a.tasks_timeline.root(), b.tasks_timeline.root());
    ptr(where, "leftmost", a.tasks_timeline.leftmost(), b.tasks_timeline.leftmost());
    if (pelt) {
      avg(where, a.avg, b.avg);
      num(where, "removed.nr", a.removed.nr, b.removed.nr);
      num(where, "removed.load_avg", a.removed.load_avg, b.removed.load_avg);
      num(where, "removed.util_avg", a.removed.util_avg, b.removed.util_avg);
      num(where, "removed.runnable_avg", a.removed.runnable_avg, b.removed.runnable_avg);
      num(where, "h_load", a.h_load, b.h_load);
      num(where, "last_h_load_update", a.last_h_load_update, b.last_h_load_update);
      if (a.group_id >= 0) {
        num(where, "tg_load_avg_contrib", a.tg_load_avg_contrib, b.tg_load_avg_contrib);
        num(where, "last_update_tg_load_avg", a.last_update_tg_load_avg, b.last_update_tg_load_avg);
        num(where, "propagate", a.propagate, b.propagate);
        num(where, "prop_runnable_sum", a.prop_runnable_sum, b.prop_runnable_sum);
      }
    }
    if (a.group_id >= 0) {  // CPU bandwidth control: the queue's runtime and throttle state
      num(where, "runtime_enabled", a.runtime_enabled, b.runtime_enabled);
      num(where, "runtime_remaining", a.runtime_remaining, b.runtime_remaining);
      num(where, "throttled", a.throttled, b.throttled);
      num(where, "throttle_count", a.throttle_count, b.throttle_count);
      num(where, "throttled_clock", a.throttled_clock, b.throttled_clock);
      num(where, "throttled_clock_pelt", a.throttled_clock_pelt, b.throttled_clock_pelt);
      num(where, "throttled_clock_pelt_time", a.throttled_clock_pelt_time, b.throttled_clock_pelt_time);
      num(where, "throttled_clock_self", a.throttled_clock_self, b.throttled_clock_self);
      num(where, "throttled_clock_self_time", a.throttled_clock_self_time, b.throttled_clock_self_time);
      num(where, "throttled_csd_list queued", a.csd_queued, b.csd_queued);
    }
  }
  void timer(const Where& where, const char* field, const HrTimer& a, const HrTimer& b) {
    const auto text = [](const HrTimer& t) {
      return fmt::format("{}expires {} on cpu {}", t.queued ? "" : "not armed, ", t.expires, t.cpu);
    };
    if (!d && a != b) d = Divergence{-1, where.text(field), text(a), text(b)};
  }
  // a group's struct cfs_bandwidth (cpu.max), shared by its CPUs
  void bandwidth(const Where& where, const CfsBandwidth& a, const CfsBandwidth& b) {
    num(where, "cfs_b->period", a.period, b.period);
    num(where, "cfs_b->quota", a.quota, b.quota);
    num(where, "cfs_b->burst", a.burst, b.burst);
    num(where, "cfs_b->runtime", a.runtime, b.runtime);
    num(where, "cfs_b->runtime_snap", a.runtime_snap, b.runtime_snap);
    num(where, "cfs_b->hierarchical_quota", a.hierarchical_quota, b.hierarchical_quota);
    num(where, "cfs_b->idle", a.idle, b.idle);
    num(where, "cfs_b->period_active", a.period_active, b.period_active);
    num(where, "cfs_b->slack_started", a.slack_started, b.slack_started);
    timer(where, "cfs_b->period_timer", a.period_timer, b.period_timer);
    timer(where, "cfs_b->slack_timer", a.slack_timer, b.slack_timer);
    if (!d && a.throttled_cfs_rq != b.throttled_cfs_rq)
      d = Divergence{-1, where.text("cfs_b->throttled_cfs_rq (CPUs)"),
                     fmt::format("[{}]", fmt::join(a.throttled_cfs_rq, " ")),
                     fmt::format("[{}]", fmt::join(b.throttled_cfs_rq, " "))};
    num(where, "cfs_b->nr_periods", a.nr_periods, b.nr_periods);
    num(where, "cfs_b->nr_throttled", a.nr_throttled, b.nr_throttled);
    num(where, "cfs_b->nr_burst", a.nr_burst, b.nr_burst);
    num(where, "cfs_b->throttled_time", a.throttled_time, b.throttled_time);
    num(where, "cfs_b->burst_time", a.burst_time, b.burst_time);
  }
};

}  // namespace

// With several runqueues every CPU is compared (tasks first: they are shared,
// with their CPU; then each CPU's runqueue, its group entities and queues),
// and a field of a CPU is named with it ("cpu 1: runqueue: curr (the pick)").
std::optional<Divergence> first_difference(const System& model, const System& kernel) {
  const Rq& m0 = model.rq(0);
  const Rq& k0 = kernel.rq(0);
  static const std::string none;
  {
    Cmp c{m0, k0, std::nullopt};
    const Cmp::Where runqueue{"runqueue", none};
    c.num(runqueue, "CPUs", model.size(), kernel.size());
    c.num(runqueue, "tasks", m0.tasks.size(), k0.tasks.size());
    c.num(runqueue, "groups", m0.task_groups.size(), k0.task_groups.size());
    // the last-level cache's sd_llc_shared->has_idle_cores (SMT: model/wake_cpu.hpp)
    c.num(Cmp::Where{"LLC", none}, "has_idle_cores", model.llc_shared().has_idle_cores,
          kernel.llc_shared().has_idle_cores);
    // the cfs_bandwidth_used() static key, and each group's cpu.max state
    c.num(runqueue, "cfs_bandwidth_used() count", *m0.bandwidth_users, *k0.bandwidth_users);
    for (std::size_t g = 0; g < m0.task_groups.size() && !c.d; ++g)
      c.bandwidth(Cmp::Where{"group", m0.task_groups[g].name}, m0.task_groups[g].cfs_bandwidth,
                  k0.task_groups[g].cfs_bandwidth);
    if (c.d) return c.d;
  }
  const bool several = model.size() > 1;
  auto on_cpu = [&](unsigned cpu, std::optional<Divergence> d) {
    if (d && several) d->field = fmt::format("cpu {}: {}", cpu, d->field);
    return d;
  };
  for (unsigned cpu = 0; cpu < model.size(); ++cpu) {
    const Rq& m = model.rq(cpu);
    const Rq& k = kernel.rq(cpu);
    Cmp c{m, k, std::nullopt};
    const Cmp::Where runqueue{"runqueue", none};
    // the task tables agree (compared above): a task is the same index on both sides
    const auto name = [](const Rq& r, int t, const char* nobody) {
      return t >= 0 ? r.tasks[static_cast<std::size_t>(t)].name : std::string(nobody);
    };
    if (m.curr != k.curr)
      return on_cpu(cpu, Divergence{-1, "runqueue: curr (the pick)", name(m, m.curr, "idle"), name(k, k.curr, "idle")});
    // another class on the CPU: the RT task running and the RT list (FIFO order)
    if (m.rt_curr != k.rt_curr)
      return on_cpu(cpu, Divergence{-1, "runqueue: the RT task on the CPU", name(m, m.rt_curr, "none"),
                                    name(k, k.rt_curr, "none")});
    if (m.rt_queue != k.rt_queue)
      return on_cpu(cpu, Divergence{-1, "runqueue: the RT list", std::to_string(m.rt_queue.size()),
                                    std::to_string(k.rt_queue.size())});
    c.num(runqueue, "clock_task", m.clock_task, k.clock_task);
    c.num(runqueue, "need_resched", m.need_resched, k.need_resched);
    c.num(runqueue, "nr_running", m.nr_running, k.nr_running);
    c.num(runqueue, "fair ticks that rescheduled", m.fair_tick_rescheds, k.fair_tick_rescheds);
    if (several) c.wakee(Cmp::Where{"idle task", none}, m.idle_wakee, k.idle_wakee);
    if (c.d) return on_cpu(cpu, c.d);
  }
  const bool pelt = model.pelt_kept() && kernel.pelt_kept();
  {
    Cmp c{m0, k0, std::nullopt, pelt};
    for (std::size_t g = 0; pelt && g < m0.task_groups.size() && !c.d; ++g)
      c.num(Cmp::Where{"group", m0.task_groups[g].name}, "tg->load_avg", m0.task_groups[g].load_avg,
            k0.task_groups[g].load_avg);
    for (std::size_t i = 0; i < m0.tasks.size() && !c.d; ++i) {
      const Task& a = m0.tasks[i];
      const Task& b = k0.tasks[i];
      const Cmp::Where where{"task", a.name};
      if (several) {  // and select_task_rq_fair()'s memory of the task
        c.num(where, "cpu", a.cpu, b.cpu);
        c.wakee(where, a.wakee, b.wakee);
        c.num(where, "recent_used_cpu", a.recent_used_cpu, b.recent_used_cpu);
      }
      c.num(where, "p->on_rq", a.on_rq, b.on_rq);
      c.num(where, "group", a.group, b.group);
      c.entity(where, a.se, b.se);
    }
    if (c.d) return c.d;
  }
  for (unsigned cpu = 0; cpu < model.size(); ++cpu) {
    const Rq& m = model.rq(cpu);
    const Rq& k = kernel.rq(cpu);
    Cmp c{m, k, std::nullopt, pelt};
    for (std::size_t g = 0; g < m.groups.size() && !c.d; ++g) {
      c.entity(Cmp::Where{"group", m.task_groups[g].name}, m.groups[g].se, k.groups[g].se);
      c.queue(m.groups[g].cfs_rq, k.groups[g].cfs_rq);
    }
    if (!c.d) c.queue(m.cfs, k.cfs);
    if (c.d) return on_cpu(cpu, c.d);
  }
  return std::nullopt;
}

std::optional<Divergence> first_difference(const System& model, kernelsrc::KernelBackend& kernel) {
  if (const auto choice = kernel.take_wake_choice(); choice && choice->cpu >= 0) {
    const Task* t = model.rq(0).task(choice->task);
    if (t && t->cpu != choice->cpu)
      return Divergence{-1, fmt::format("wake {}: cpu", t->name), std::to_string(t->cpu), std::to_string(choice->cpu)};
  }
  if (auto d = first_difference(model, kernel.state())) return d;
  for (unsigned cpu = 0; cpu < model.size(); ++cpu) {
    const bool m = sched_idle_rq(model.rq(cpu));
    const bool k = kernel.sched_idle_rq(cpu);
    if (m != k)
      return Divergence{-1, model.size() > 1 ? fmt::format("cpu {}: runqueue: sched_idle_rq()", cpu)
                                             : std::string("runqueue: sched_idle_rq()"),
                        m ? "true" : "false", k ? "true" : "false"};
  }
  return std::nullopt;
}

}  // namespace eevdf::scn
