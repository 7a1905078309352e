// I-WAKECOUNT: the wake-up CPU choice counts only the tasks that can run.
//
// A delayed task (DELAY_DEQUEUE) is asleep but stays queued, so it is in
// rq->nr_running. What can run on a CPU is judged from the tasks themselves:
// a CPU is idle when nothing can run there; SCHED_IDLE-only when something
// can and all of it is SCHED_IDLE (or below an idle group); "free for a
// wake-up" when either (what select_idle_sibling() looks for).
//
// Two parts (ids.cpp has the statement):
// - at every wake-up CPU choice (Observer::on_wake_choice(), from the model's
//   select_task_rq_fair() or from the tree's own, kernelsrc/glue.c), the CPU
//   the backend chose is judged by properties of the design of
//   select_task_rq_fair(), on the state the choice read (check_wake_choice());
// - after every operation, on every CPU, the backend's own answers of the
//   counter tests against the tasks (check_wake_cpu()): on the model its
//   functions of model/wake_cpu.hpp, on the kernel backend the tree's own
//   sched_idle_rq() (Rq::tree_sched_idle_rq) and wake_affine_idle()'s WF_SYNC
//   clause (Rq::tree_sync_affine), the tests the tree answers as functions.
#include <fmt/format.h>

#include <array>
#include <string>
#include <utility>
#include <vector>

#include "invariants/checker.hpp"
#include "model/fair.hpp"
#include "model/system.hpp"
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

// What can run on one CPU, counted from its tasks.
struct CpuWork {
  unsigned runnable = 0;       // queued RT tasks and queued fair tasks that are not delayed (the running one included)
  unsigned runnable_idle = 0;  // ... of them SCHED_IDLE or below an idle group
  unsigned rt = 0;             // queued RT tasks
  unsigned delayed = 0, delayed_idle = 0;
  const Task* a_delayed = nullptr;  // the first delayed task, for the report
  bool nothing_runs = true;         // the idle task is current
  bool need_resched = false;
};

// (Inlined: called for every task after every operation.)
[[gnu::always_inline]] inline void count_task(CpuWork& w, const Rq& rq, const Task& t) {
  if (t.policy == Policy::fifo || !t.se.on_rq) return;  // RT tasks: counted from the RT list
  // CPU bandwidth control: a task below a throttled queue cannot be picked
  // (its group entity is off the queue above); a running one with a
  // reschedule pending is on its way out (throttled while it was put back in
  // a sched_change, or by the pick that follows). v6.18's task-based
  // throttle picks and runs them until they return to user space: work.
  if (t.se.cfs_rq && !task_based_throttle(*t.se.cfs_rq) && throttled_hierarchy(*t.se.cfs_rq) &&
      (rq.curr != t.se.task_id || rq.need_resched))
    return;
  const bool idle = idle_for_choice(rq, t);
  if (t.se.sched_delayed) {
    ++w.delayed;
    if (idle) ++w.delayed_idle;
    if (!w.a_delayed) w.a_delayed = &t;
    return;
  }
  ++w.runnable;
  if (idle) ++w.runnable_idle;
}

CpuWork start_work(const Rq& rq) {
  CpuWork w;
  w.rt = static_cast<unsigned>(rq.rt_queue.size());
  w.runnable = w.rt;
  w.nothing_runs = rq.running() < 0;
  w.need_resched = rq.need_resched;
  return w;
}

CpuWork work_of(const Rq& rq) {
  CpuWork w = start_work(rq);
  for (const Task& t : rq.tasks)
    if (t.cpu == rq.cpu) count_task(w, rq, t);
  return w;
}

// Nothing can run there.
bool idle(const CpuWork& w) { return w.nothing_runs && w.runnable == 0; }
// Something can run and all of it is SCHED_IDLE. `f9`: F9's reading
// (docs/findings/F9.md), the delayed tasks counted as work, as sched_idle_rq()'s
// counters count them.
bool sched_idle_only(const CpuWork& w, bool f9) {
  const unsigned n = w.runnable + (f9 ? w.delayed : 0u);
  const unsigned i = w.runnable_idle + (f9 ? w.delayed_idle : 0u);
  return n > 0 && n == i;
}
// `idle_wakee`: a SCHED_IDLE wakee on a kernel with fd54d81c2c0e (v7.1), which
// would share a SCHED_IDLE-only CPU with its tasks: only an idle CPU is free for it.
bool free_for_wakeup(const CpuWork& w, bool f9, bool idle_wakee) {
  return idle(w) || (!idle_wakee && sched_idle_only(w, f9));
}
// The idle task is current with a reschedule pending and delayed tasks queued:
// the load balancer brought them (`migrate`), and rq->nr_running counts them
// until this CPU's schedule(), whose pick dequeues them. Such a CPU is judged
// once it has scheduled: it is no premise of the choice's properties.
bool unsettled(const CpuWork& w) { return w.nothing_runs && w.need_resched && w.delayed > 0; }

std::string counts_text(const Rq& rq, const CpuWork& w) {
  return fmt::format("rq->nr_running = {}, h_nr_idle = {}; {} task(s) can run ({} SCHED_IDLE), {} delayed{}",
                     rq.nr_running, rq.cfs.h_nr_idle, w.runnable, w.runnable_idle, w.delayed,
                     w.a_delayed ? " (" + w.a_delayed->name + ")" : std::string{});
}

// ---- at the choice ----

// The properties of the choice, in the order they are judged (ids.cpp).
enum class Rule : std::uint8_t { none, prev, idle_waker, sync, scan, idle_core };

const char* rule_site(Rule r) {
  switch (r) {
    case Rule::prev: return "select_task_rq_fair: prev free";
    case Rule::idle_waker: return "select_task_rq_fair: idle waking CPU";
    case Rule::sync: return "select_task_rq_fair: WF_SYNC waker alone";
    case Rule::scan: return "select_task_rq_fair: a free CPU in the LLC";
    case Rule::idle_core: return "select_task_rq_fair: an idle core";
    case Rule::none: break;
  }
  return "select_task_rq_fair";
}

struct ChoiceView {
  const WakeCpuChoice& c;
  unsigned n = 0;    // the CPUs, all in one LLC, all allowed to the task
  unsigned smt = 1;  // siblings a core
  std::array<CpuWork, kMaxRunqueues> work{};
  bool wa_idle = false, sis_util = false, rfc = false;
  bool idle_wakee = false;  // free_for_wakeup()
  // the wake-up is affine: wake_wide() cannot find it wide (below), or the
  // waking CPU is prev (the target is prev either way)
  bool affine = false;
};

bool siblings(const ChoiceView& v, int a, int b) {
  return v.smt > 1 && static_cast<unsigned>(a) / v.smt == static_cast<unsigned>(b) / v.smt;
}

// Every sibling of CPU `cpu`'s core is idle (`settled`: and none is unsettled).
bool core_idle(const ChoiceView& v, int cpu, bool settled) {
  const unsigned first = static_cast<unsigned>(cpu) / v.smt * v.smt;
  for (unsigned s = first; s < first + v.smt; ++s) {
    const CpuWork& w = v.work[s];
    if (!idle(w) || (settled && unsettled(w))) return false;
  }
  return true;
}

// The first property the choice breaks in the reading `f9` (F9's reading for
// SCHED_IDLE-only, or the tasks' own), or Rule::none.
Rule broken_rule(const ChoiceView& v, bool f9) {
  const WakeCpuChoice& c = v.c;
  const int w = c.waker_cpu, p = c.prev_cpu, chosen = c.chosen_cpu;
  const auto& work = v.work;
  const CpuWork& at = work[static_cast<std::size_t>(chosen)];
  const CpuWork& waker = work[static_cast<std::size_t>(w)];
  const CpuWork& prev = work[static_cast<std::size_t>(p)];
  const bool chosen_free = free_for_wakeup(at, f9, v.idle_wakee);
  const bool target_or_prev = chosen == w || chosen == p;  // the target is one of the two
  // (a) select_idle_sibling() takes the target if it is free, else prev if it is
  if (!unsettled(prev) && free_for_wakeup(prev, f9, v.idle_wakee) && !(target_or_prev && chosen_free)) return Rule::prev;
  // (a') an affine wake-up made on an idle CPU (from an interrupt): wake_affine_idle()
  // takes that CPU, or prev if prev is idle too; the idle target is kept
  if (v.wa_idle && v.affine && w != p && !unsettled(waker) && idle(waker) && !(target_or_prev && chosen_free))
    return Rule::idle_waker;
  // (b) a WF_SYNC waker that is the one task that can run on its CPU gives that
  // CPU away (wake_affine_idle()): the target is the waker's CPU, kept unless a
  // free CPU is found first
  if (c.sync && v.wa_idle && v.affine && !waker.nothing_runs && waker.runnable == 1 && chosen != w && !chosen_free)
    return Rule::sync;
  // (c) with no scan budget, select_idle_cpu() visits every CPU of the LLC
  if (!v.sis_util && !chosen_free)
    for (unsigned x = 0; x < v.n; ++x)
      if (!unsettled(work[x]) && free_for_wakeup(work[x], f9, v.idle_wakee)) return Rule::scan;
  // (d) SMT: with has_idle_cores set, the scan looks for a whole idle core first
  if (v.smt > 1 && !v.sis_util && c.had_idle_cores) {
    bool an_idle_core = false;
    for (unsigned k = 0; k < v.n && !an_idle_core; k += v.smt) an_idle_core = core_idle(v, static_cast<int>(k), true);
    if (an_idle_core && !core_idle(v, chosen, false)) {
      // the fast path's earlier answers: the target (waking CPU or prev), prev, the recent CPU, if free
      const bool early = (target_or_prev || chosen == c.recent_used_cpu) && chosen_free;
      // the SMT_BUDDY_ASSIST RFC: an idle sibling of a target with fair work pending
      const auto pending = [&](int t) {
        const CpuWork& tw = work[static_cast<std::size_t>(t)];
        return chosen != t && siblings(v, chosen, t) && tw.runnable - tw.rt > 1;
      };
      const bool assist = v.rfc && idle(at) && (pending(w) || pending(p));
      if (!early && !assist) return Rule::idle_core;
    }
  }
  return Rule::none;
}

std::string rule_text(const ChoiceView& v, Rule r, const std::string& wakee) {
  const WakeCpuChoice& c = v.c;
  switch (r) {
    case Rule::prev:
      return fmt::format("{}'s previous CPU {} is free for a wake-up ({}), "
                         "but {} was put on CPU {}, which is {}",
                         wakee, c.prev_cpu,
                         v.idle_wakee ? "idle; the wakee is SCHED_IDLE, fd54d81c2c0e"
                                      : "idle or only SCHED_IDLE work can run there",
                         wakee, c.chosen_cpu,
                         c.chosen_cpu == c.prev_cpu || c.chosen_cpu == c.waker_cpu ? "not free" : "neither the target nor prev");
    case Rule::idle_waker:
      return fmt::format("the wake-up of {} was made on the idle CPU {} (affine, WA_IDLE), but {} was put on CPU {}, "
                         "which is {}",
                         wakee, c.waker_cpu, wakee, c.chosen_cpu,
                         c.chosen_cpu == c.prev_cpu || c.chosen_cpu == c.waker_cpu ? "not free"
                                                                                    : "neither that CPU nor prev");
    case Rule::sync:
      return fmt::format("a WF_SYNC wake-up of {} by the only task that can run on CPU {} (affine, WA_IDLE) put {} on "
                         "CPU {}, which is neither the waker's CPU nor free for a wake-up",
                         wakee, c.waker_cpu, wakee, c.chosen_cpu);
    case Rule::scan:
      return fmt::format("{} was put on CPU {}, which is not free for a wake-up, while another CPU of the LLC is and "
                         "the scan has no budget (NO_SIS_UTIL)",
                         wakee, c.chosen_cpu);
    case Rule::idle_core:
      return fmt::format("{} was put on CPU {}, not on a whole idle core, while has_idle_cores was set, a core is idle "
                         "and the scan has no budget (NO_SIS_UTIL)",
                         wakee, c.chosen_cpu);
    case Rule::none: break;
  }
  return {};
}

}  // namespace

void check_wake_choice(Checker& checker, const Rq& rq, const WakeCpuChoice& c) {
  const auto& cpus = rq.possible_cpus();
  const unsigned n = static_cast<unsigned>(cpus.size());
  const Task* p = rq.task(c.task);
  if (!p || n > kMaxRunqueues || c.waker_cpu < 0 || static_cast<unsigned>(c.waker_cpu) >= n || c.prev_cpu < 0 ||
      static_cast<unsigned>(c.prev_cpu) >= n)
    return;  // not a choice the backends make (a bad waking CPU is refused before it)
  const auto report = [&](const char* where, std::string what) {
    Violation v;
    v.id = Id::WAKECOUNT;
    v.where = where;
    v.what = std::move(what);
    v.entities.push_back(snapshot(*cpus[static_cast<std::size_t>(c.prev_cpu)], p->se));
    checker.add(std::move(v));
  };
  if (c.chosen_cpu < 0 || static_cast<unsigned>(c.chosen_cpu) >= n) {
    report("select_task_rq_fair", fmt::format("the wake-up of {} was put on CPU {}, outside the LLC's {} CPUs",
                                              p->name, c.chosen_cpu, n));
    return;
  }
  ChoiceView v{c};
  v.n = n;
  v.smt = rq.llc_shared && rq.llc_shared->smt > 1 ? rq.llc_shared->smt : 1;
  for (unsigned x = 0; x < n; ++x) v.work[x] = start_work(*cpus[x]);
  for (const Task& t : rq.tasks)  // the task table is shared by every CPU
    if (t.cpu >= 0 && static_cast<unsigned>(t.cpu) < n) count_task(v.work[static_cast<std::size_t>(t.cpu)], rq, t);
  const Profile& profile = rq.profile();
  v.wa_idle = profile.feat(Feature::WA_IDLE);
  v.sis_util = profile.feat(Feature::SIS_UTIL);
  v.rfc = smt_buddy_assist(profile);
  v.idle_wakee = profile.behaviour.wake_idle_wakee_skips_sched_idle && p->policy == Policy::idle;
  // wake_wide() finds a wake-up wide only when the smaller of the two
  // record_wakee() flip counts (the waker's as this choice left it: the
  // running task's, or the idle task's on an idle CPU) reaches sd_llc_size
  const Rq& wrq = *cpus[static_cast<std::size_t>(c.waker_cpu)];
  const int waker = wrq.running();
  const Task* waker_task = waker >= 0 ? wrq.task(waker) : nullptr;
  const WakeeState& waker_memory = waker_task ? waker_task->wakee : wrq.idle_wakee;
  const std::uint32_t fewer = waker_memory.flips < p->wakee.flips ? waker_memory.flips : p->wakee.flips;
  v.affine = c.waker_cpu == c.prev_cpu || fewer < profile.tunables.ncpus;
  const Rule r = broken_rule(v, false);
  if (r == Rule::none) return;
  // F9: the choice is the one the counters justify when the delayed tasks
  // count as work for SCHED_IDLE-only
  const Rule counters = broken_rule(v, true);
  if (checker.known(Finding::F9, counters == Rule::none)) return;
  std::string what = rule_text(v, r, p->name);
  if (counters == Rule::none)
    what += " (F9: with the delayed tasks counted as work, as sched_idle_rq() counts them, the choice holds)";
  else if (counters != r)
    what += fmt::format(" (with the delayed tasks counted as work, as sched_idle_rq() counts them (F9), it breaks "
                        "'{}' still)",
                        rule_site(counters));
  for (unsigned x = 0; x < n; ++x) {
    const Rq& crq = *cpus[x];
    const int run = crq.running();
    const Task* t = run >= 0 ? crq.task(run) : nullptr;
    what += fmt::format("; CPU {}{}: {} runs, {}", x,
                        static_cast<int>(x) == c.waker_cpu   ? " (waking)"
                        : static_cast<int>(x) == c.prev_cpu  ? " (prev)"
                                                             : "",
                        t ? t->name : std::string("idle"), counts_text(crq, v.work[x]));
  }
  report(rule_site(r), std::move(what));
}

// ---- after every operation: the backend's own answers ----

void check_wake_cpu(const CheckScope& s) {
  if (!s.on(Id::WAKECOUNT)) return;
  const Rq& rq = s.rq;
  const CpuWork w = work_of(rq);
  const auto counts = [&] { return counts_text(rq, w); };
  // the report names the first delayed task; built only when there is one to make
  const auto report = [&](const char* where, std::string what) {
    std::vector<const SchedEntity*> who;
    if (w.a_delayed) who.push_back(&w.a_delayed->se);
    s.report(Id::WAKECOUNT, where, std::move(what), std::move(who));
  };
  const bool only_idle = sched_idle_only(w, false);
  // F9: the answer the tasks give when the delayed ones count as work
  const auto f9 = [&](bool answer) {
    return s.known(Finding::F9, w.delayed > 0 && answer == sched_idle_only(w, true));
  };
  const auto sync_report = [&](bool takes) {
    const Task* waker = rq.task(rq.running());
    const bool only_waker = w.runnable == 1;
    report("wake_affine_idle",
           fmt::format("a WF_SYNC wake-up by {} on CPU {} {} the waker's CPU, but {}: {}", waker ? waker->name : "?",
                       rq.cpu, takes ? "takes" : "does not take",
                       only_waker ? "the waker is the only task that can run there" : "other tasks can run there",
                       counts()));
  };
  // idle_cpu() is core.c's (model/wake_cpu.hpp; the glue's stand-in on the
  // kernel backend is the same test): judged on the counts the backend left,
  // the tree's own on the kernel backend.
  const bool is_idle = idle(w);
  // An idle CPU with a reschedule pending is between an enqueue and its
  // schedule(), whose pick dequeues every delayed entity (a delayed task moved
  // here by the load balancer: `migrate`); idle_cpu() is judged once it has
  // scheduled. Kept for a settled CPU: one that goes idle with a delayed task
  // still counted is caught.
  const bool about_to_pick = w.nothing_runs && w.need_resched;
  if (idle_cpu(rq) != is_idle && !about_to_pick) {
    report("idle_cpu", fmt::format("CPU {} is {}idle for the wake-up choice but {}: {}", rq.cpu,
                                   idle_cpu(rq) ? "" : "not ",
                                   is_idle ? "nothing can run there" : "a task can run there", counts()));
    return;
  }
  if (rq.tree_sched_idle_rq >= 0) {
    // The kernel backend: the tree's own sched_idle_rq() (fair.c; the choice's
    // SCHED_IDLE-only test, extracted by name) and its own wake_affine_idle()
    // asked of this CPU's running task as the waker of a task last here (the
    // glue's kb_export(): the WF_SYNC clause answers this CPU, no other branch
    // does for a busy CPU).
    const bool answer = rq.tree_sched_idle_rq != 0;
    if (answer != only_idle && !f9(answer)) {
      report("sched_idle_rq", fmt::format("the tree's sched_idle_rq() of CPU {} = {}, but {}: {}", rq.cpu, answer,
                                          only_idle ? "every task that can run there is SCHED_IDLE"
                                                    : "not every task that can run there is SCHED_IDLE",
                                          counts()));
      return;
    }
    if (rq.tree_sync_affine >= 0 && !w.nothing_runs && (rq.tree_sync_affine != 0) != (w.runnable == 1))
      sync_report(rq.tree_sync_affine != 0);
    return;
  }
  // The model: its own functions (model/wake_cpu.hpp), each the answer its choice reads.
  if (sched_idle_rq(rq) != only_idle && !f9(sched_idle_rq(rq))) {
    report("sched_idle_rq", fmt::format("sched_idle_cpu({}) = {}, but {}: {}", rq.cpu, sched_idle_rq(rq),
                                        only_idle ? "every task that can run there is SCHED_IDLE"
                                                  : "not every task that can run there is SCHED_IDLE",
                                        counts()));
    return;
  }
  // the SMT_BUDDY_ASSIST RFC (model/wake_cpu.hpp) reads a target's pending work
  // from a count: it must be the fair tasks that can run there, the running one included
  if (smt_buddy_assist(rq.profile()) && !about_to_pick) {
    const unsigned fair_runnable = w.runnable - w.rt;
    if (smt_buddy_assist_count(rq) != fair_runnable) {
      report("smt_buddy_assist",
             fmt::format("SMT_BUDDY_ASSIST counts {} task(s) on CPU {}, but {} fair task(s) can run there: {}",
                         smt_buddy_assist_count(rq), rq.cpu, fair_runnable, counts()));
      return;
    }
  }
  // the WF_SYNC clause is asked of a busy waker's CPU: the running task wakes another
  if (w.nothing_runs) return;
  if (const bool takes = wake_affine_idle_sync(rq); takes != (w.runnable == 1)) sync_report(takes);
}

}  // namespace eevdf::inv
