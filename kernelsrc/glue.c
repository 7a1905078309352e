/* eevdf-check kernel backend: our core.c side around the kernel's own fair
 * class.  This file is compiled in the same translation unit as the code
 * kernelsrc/extract.py takes from a kernel tree (fair_extract.c includes
 * it last), so it calls the fair class's static hooks directly, in the order
 * kernel/sched/core.c calls them (6.12, and 6.18 where it differs under
 * EEVDF_KERNEL_VERSION_CODE or a fact of version.h: wake_up_new_task, ttwu_runnable /
 * ttwu_do_activate, __schedule with try_to_block_task, sched_tick,
 * set_user_nice, __sched_setscheduler, sched_move_task), with the clock the
 * scenario sets.  One CPU, or several (runqueues N) on a tree with the SMP
 * code (6.18 on): set_task_cpu() with the tree's migrate_task_rq_fair(), a
 * wake-up on another CPU (WF_MIGRATED), the load balancer's detach_task() +
 * attach_task().  Every identifier of the tree that this file uses is a root
 * of the extraction.
 */
#include <setjmp.h>

#include "kb_api.h"

/* Field names that changed between the versions the extractor handles:
 * 6.12's cfs_rq->nr_running is 6.18's nr_queued, idle_h_nr_running is
 * h_nr_idle, and the key base zero_vruntime (6.12.118) is min_vruntime in 6.18
 * (and in 6.12.0 - 6.12.y before the backport). */
/* 7.0 renamed the fair class's wakeup_preempt hook (704069649b5b): it returns
 * at once for a wakee of another class, so core.c's call of it for a higher
 * class's wakee changes nothing and is left out, as before. */
#if EEVDF_KERNEL_VERSION_CODE >= EEVDF_KV(7, 0)
#define KB_WAKEUP_PREEMPT_FAIR wakeup_preempt_fair
#elif EEVDF_TREE_CHECK_PREEMPT_CURR
#define KB_WAKEUP_PREEMPT_FAIR check_preempt_wakeup  /* 6.6: its name before v6.7 */
#else
#define KB_WAKEUP_PREEMPT_FAIR check_preempt_wakeup_fair
#endif
/* 6.6's put_prev_task_fair() has no next task (the tree says which) */
#if EEVDF_TREE_PUT_PREV_NEXT
#define KB_PUT_PREV_TASK_FAIR(rq, p, next) put_prev_task_fair((rq), (p), (next))
#else
#define KB_PUT_PREV_TASK_FAIR(rq, p, next) put_prev_task_fair((rq), (p))
#endif
/* 7.0's pick_task_fair() takes the rq_flags (for the newidle balance of
 * pick_next_task_fair() only; core.c's class loop passes them, the pick
 * itself does not read them) */
#if EEVDF_KERNEL_VERSION_CODE >= EEVDF_KV(7, 0)
#define KB_PICK_TASK_FAIR(rq) pick_task_fair((rq), NULL)
#elif EEVDF_TREE_PUT_PREV_NEXT
#define KB_PICK_TASK_FAIR(rq) pick_task_fair(rq)
#endif  /* 6.6 picks through pick_next_task_fair() (kb_switch_to_next()); its pick_task_fair() is SMP-only */
#if EEVDF_KERNEL_VERSION_CODE >= EEVDF_KV(7, 0)
#define KB_NR_QUEUED(q) ((q)->nr_queued)
#define KB_H_NR_IDLE(q) ((q)->h_nr_idle)
#define KB_KEY_BASE(q) ((q)->zero_vruntime)
#elif EEVDF_KERNEL_VERSION_CODE >= EEVDF_KV(6, 18)
#define KB_NR_QUEUED(q) ((q)->nr_queued)
#define KB_H_NR_IDLE(q) ((q)->h_nr_idle)
#define KB_KEY_BASE(q) ((q)->min_vruntime)
#else
#define KB_NR_QUEUED(q) ((q)->nr_running)
#define KB_H_NR_IDLE(q) ((q)->idle_h_nr_running)
#if EEVDF_TREE_ZERO_VRUNTIME
#define KB_KEY_BASE(q) ((q)->zero_vruntime)
#else
#define KB_KEY_BASE(q) ((q)->min_vruntime)
#endif
#endif
/* h_nr_running became h_nr_queued, and h_nr_runnable (h_nr_queued less the
 * delayed ones) was added, in v6.14 and later 6.12.y: the tree says which */
#if EEVDF_TREE_H_NR_QUEUED
#define KB_H_NR_QUEUED(q) ((q)->h_nr_queued)
#else
#define KB_H_NR_QUEUED(q) ((q)->h_nr_running)
#endif
#if EEVDF_TREE_H_NR_RUNNABLE
#define KB_H_NR_RUNNABLE(q) ((q)->h_nr_runnable)
#else
#define KB_H_NR_RUNNABLE(q) (KB_H_NR_QUEUED(q) - (q)->h_nr_delayed)
#endif
/* 7.0 renamed the queue's sums: avg_vruntime is sum_w_vruntime, avg_load is
 * sum_weight (dcbc9d3f0e59, 4ff674fa986c) */
#if EEVDF_KERNEL_VERSION_CODE >= EEVDF_KV(7, 0)
#define KB_SUM_W_VRUNTIME(q) ((q)->sum_w_vruntime)
#define KB_SUM_WEIGHT(q) ((q)->sum_weight)
#else
#define KB_SUM_W_VRUNTIME(q) ((q)->avg_vruntime)
#define KB_SUM_WEIGHT(q) ((q)->avg_load)
#endif

unsigned int sysctl_sched_features;
struct task_group root_task_group;

/* One struct rq, idle task and set of counters a CPU (runqueues N: CPUs 0 ..
 * N-1; a tree built !CONFIG_SMP has one).  Task groups have one entity and
 * one queue a CPU: tg->se[cpu], tg->cfs_rq[cpu]. */
static struct rq kb_rqs[KB_MAX_CPUS];
static struct task_struct kb_idle_tasks[KB_MAX_CPUS];
unsigned int eevdf_nr_possible_cpus = 1;  /* for_each_possible_cpu() (kernelsrc/shim.h) */
#define kb_nr_cpus eevdf_nr_possible_cpus
static struct task_struct kb_tasks[KB_MAX_TASKS];
static int kb_nr_tasks;
#if EEVDF_SHIM_SMP
static struct root_domain kb_rd;  /* add_nr_running()'s overload flag; read by no code the backend runs */
#endif
static struct task_group kb_groups[KB_MAX_GROUPS];
static struct sched_entity kb_group_se[KB_MAX_GROUPS][KB_MAX_CPUS];
static struct cfs_rq kb_group_cfs_rq[KB_MAX_GROUPS][KB_MAX_CPUS];
static struct sched_entity *kb_group_se_ptr[KB_MAX_GROUPS][KB_MAX_CPUS];
static struct cfs_rq *kb_group_cfs_rq_ptr[KB_MAX_GROUPS][KB_MAX_CPUS];
static struct sched_entity *kb_root_se_ptr[KB_MAX_CPUS];
static struct cfs_rq *kb_root_cfs_rq_ptr[KB_MAX_CPUS];
static int kb_nr_groups;
static unsigned int kb_online_cpus = 1;
u64 eevdf_tick_nsec;
unsigned long jiffies;
#define kb_tick_nsec eevdf_tick_nsec
static kb_warn_fn kb_warn_cb;
static void *kb_warn_ctx;
/* events of the tree's own functions (kb_api.h), and what enqueue_entity()'s
 * wrapper notes of the place_entity() inside it */
static kb_event_fn kb_event_cb;
static void *kb_event_ctx;
static struct sched_entity *kb_enqueuing;
static int kb_lag_placed;
static long long kb_placed_lag;
/* A NULL from pick_eevdf() during a pick is the kernel's NULL dereference in
 * pick_next_entity(): the pick is abandoned (longjmp back to kb_switch_to_next())
 * and the backend stays crashed (every CPU: the kernel is dead). */
static int kb_picking, kb_crashed;
static jmp_buf kb_pick_env;
/* The wake-up preemption decision (the fair class's wakeup_preempt hook, which
 * wakeup_preempt() below calls) as the tree's own calls inside it tell it:
 * the wakee while it runs, the resched_curr() calls it makes itself (not from
 * inside update_curr(), whose own reschedule for curr's slice is not a
 * preemption), its pick's answer and protection, and the two answers that
 * name a reason the pick does not (6.12's do_preempt_short(), 7.0's
 * preempt_sync()).  kb_wakeup_preempt_fair() sends the event from them. */
static struct task_struct *kb_deciding;
static int kb_in_update_curr;
static int kb_reweighting;  /* inside reweight_entity() (its wrapper): no PLACING event for its re-placement */
static int kb_decision_rescheds, kb_decision_picked, kb_decision_protect, kb_decision_short, kb_decision_sync;

/* rq->clock_pelt: clock_task (capacity 1024, no IRQ or steal time: the two
 * never part) on a kernel whose clock was already KB_PELT_CLOCK_BASE ns (2^30,
 * about a second) into its boot when the scenario's clock starts at 0.  PELT
 * reads a last_update_time of 0 as "not attached": with the scenario's clock
 * itself, a task woken at time 0 would keep 0 and be attached to its queue's
 * sums again at every enqueue, which a booted kernel never sees.  The model's
 * cfs_rq_clock_pelt() adds the same (model/pelt.hpp, kPeltClockBase); a whole
 * number of periods, so every 1024 ns unit and 1024 us period falls where it
 * did. */
#define KB_PELT_CLOCK_BASE (1ull << 30)
static void kb_sync_clock_pelt(struct rq *rq) { rq->clock_pelt = rq->clock_task + KB_PELT_CLOCK_BASE; }

#if EEVDF_SHIM_SMP
/* update_tg_load_avg()'s clock (kernelsrc/shim_smp.h): the CPU's clock from
 * the PELT clock's base, as the model's sched_clock_cpu() (model/fair_pelt.cpp) */
u64 sched_clock_cpu(int cpu) { return kb_rqs[cpu].clock + KB_PELT_CLOCK_BASE; }
#endif

/* Per CPU, not kernel state: the counts the checker reads (as the model's Rq)
 * and the RT class's one list of that CPU (below). */
struct kb_cpu {
  unsigned long long charged_ticks;  /* Rq::charged_ticks */
  unsigned long long last_tick, longest_tick_gap;  /* Rq::last_tick, Rq::longest_tick_gap */
  unsigned long long resched_calls, fair_tick_rescheds;  /* Rq::resched_calls, fair_tick_rescheds (I-PROT rule 5) */
  int rt_queue[KB_MAX_TASKS];
  int rt_nr;
};
static struct kb_cpu kb_cpus[KB_MAX_CPUS];
/* smp_processor_id(): the CPU whose code the glue runs now */
static int kb_this_cpu;

static int kb_cpu_of(const struct rq *rq) { return (int)(rq - kb_rqs); }
static struct rq *kb_rq_at(int cpu) { kb_this_cpu = cpu; return &kb_rqs[cpu]; }
static struct task_struct *kb_idle_of(const struct rq *rq) { return &kb_idle_tasks[kb_cpu_of(rq)]; }

const struct sched_class fair_sched_class = {
  .put_prev_task = put_prev_task_fair,
  .set_next_task = set_next_task_fair,
};

void eevdf_kernel_warn(const char *file, int line, const char *cond) {
  if (kb_warn_cb) kb_warn_cb(kb_warn_ctx, file, line, cond);
}

/* pick_eevdf(), interposed (kernelsrc/extract.py renames the tree's definition
 * to kb_tree_pick_eevdf): the tree's function, and a crash where the kernel
 * crashes.  A NULL answer is harmless in check_preempt_wakeup_fair() (compared
 * with the wakee) and fatal in pick_next_entity() (se->sched_delayed). */
static void kb_emit(int kind, const struct cfs_rq *cfs_rq, const struct sched_entity *se, long long saved_lag);
static void kb_send(struct kb_event e, const struct cfs_rq *cfs_rq, const struct sched_entity *se);
static void kb_read_avg(const struct cfs_rq *cfs_rq, int reader);
static void kb_decision_pick(const struct cfs_rq *cfs_rq, const struct sched_entity *se, int protect);
static struct sched_entity *kb_pick_answer(struct cfs_rq *cfs_rq, struct sched_entity *se);
#if EEVDF_TREE_PICK_PROTECT
/* pick_eevdf(cfs_rq, protect), interposed (7.1 folded __pick_eevdf() into it):
 * the pick's reading of V, the decision's answer outside a schedule's pick, as
 * __pick_eevdf() below.  Both callers go through pick_next_entity(), which
 * dereferences the answer: a NULL is the kernel's crash in the wake-up
 * decision too (kb_wakeup_preempt_fair() sets the return point there). */
static struct sched_entity *pick_eevdf(struct cfs_rq *cfs_rq, bool protect) {
  kb_read_avg(cfs_rq, KB_READER_PICK_EEVDF);
  struct sched_entity *se = kb_tree_pick_eevdf(cfs_rq, protect);
  if (!kb_picking) kb_decision_pick(cfs_rq, se, protect);
  if (!se && !kb_picking && kb_deciding) {
    kb_crashed = 1;
    kb_emit(KB_EVENT_PICK, cfs_rq, NULL, 0);
    longjmp(kb_pick_env, 1);
  }
  return kb_pick_answer(cfs_rq, se);
}
#else
#if EEVDF_KERNEL_VERSION_CODE >= EEVDF_KV(6, 18)
/* __pick_eevdf(), interposed: the pick's reading of V, for pick_eevdf() and
 * the wake-up decision's direct call alike, and the decision's answer (outside
 * a schedule's pick).  Before 6.18 pick_eevdf() is the one, and the decision
 * cancels curr's protection before it asks (cancel_protect_slice()): the pick
 * honours what is left. */
static struct sched_entity *__pick_eevdf(struct cfs_rq *cfs_rq, bool protect) {
  kb_read_avg(cfs_rq, KB_READER_PICK_EEVDF);
  struct sched_entity *se = kb_tree___pick_eevdf(cfs_rq, protect);
  if (!kb_picking) kb_decision_pick(cfs_rq, se, protect);
  return se;
}
#elif EEVDF_TREE_MIN_DEADLINE
/* 6.6's __pick_eevdf(cfs_rq), the search pick_eevdf() calls (interposed by
 * name): passed through; pick_eevdf() below sends the events */
static struct sched_entity *__pick_eevdf(struct cfs_rq *cfs_rq) { return kb_tree___pick_eevdf(cfs_rq); }
#endif
static struct sched_entity *pick_eevdf(struct cfs_rq *cfs_rq) {
#if EEVDF_KERNEL_VERSION_CODE < EEVDF_KV(6, 18)
  kb_read_avg(cfs_rq, KB_READER_PICK_EEVDF);
#endif
  struct sched_entity *se = kb_tree_pick_eevdf(cfs_rq);
#if EEVDF_KERNEL_VERSION_CODE < EEVDF_KV(6, 18)
  if (!kb_picking) kb_decision_pick(cfs_rq, se, 1);
#endif
  return kb_pick_answer(cfs_rq, se);
}
#endif
static struct sched_entity *kb_pick_answer(struct cfs_rq *cfs_rq, struct sched_entity *se) {
  if (!se && kb_picking) {
    kb_crashed = 1;
    /* the empty pick, as the model's on_pick(NULL) and its crash report */
    kb_emit(KB_EVENT_PICK, cfs_rq, NULL, 0);
    longjmp(kb_pick_env, 1);
  }
  /* a schedule's pick (kb_picking): the answer with slice protection, as the
   * model's on_pick(protect = true, PickCaller::schedule); 6.12's wake-up
   * decision also calls pick_eevdf() and sends nothing */
  if (se && kb_picking) kb_emit(KB_EVENT_PICK, cfs_rq, se, 0);
  return se;
}

int kb_oopsed(void) { return kb_crashed; }

#if EEVDF_SHIM_SMP
/* ---- the wake-up CPU choice: topology.c's side (kernelsrc/shim_smp.h) ----
 * The model's topology (model/wake_cpu.hpp): one last-level cache spanning
 * the profile's online CPUs (`cpus`; at least the runqueues), one domain a
 * CPU with the flags sd_init() gives an LLC domain that is not an SMT level
 * (the balance flags of newidle, exec and fork, SD_WAKE_AFFINE, and the
 * topology flag SD_SHARE_LLC; no SD_BALANCE_WAKE), imbalance_pct 117 (an
 * SD_SHARE_LLC domain's); sd_llc_size the profile's `cpus` (the span's
 * weight, wake_wide()'s factor), sd_llc_id and sd_share_id the span's first
 * CPU; one sched_domain_shared for the LLC, allocated zeroed
 * (has_idle_cores 0; SMT siblings: kb_init_smt()) with nr_idle_scan set to the number of
 * runqueues: SIS_UTIL's scan then visits every CPU the task may run on, so
 * where the model answers (no CPU of the scan is idle for a wake-up, the
 * same for every budget) the kernel's scan finds none either, and where one
 * would be found the comparison shows it. */
DEFINE_PER_CPU(struct sched_domain *, sd_llc);
DEFINE_PER_CPU(int, sd_llc_size);
DEFINE_PER_CPU(int, sd_llc_id);
DEFINE_PER_CPU(int, sd_share_id);
DEFINE_PER_CPU(struct sched_domain_shared *, sd_llc_shared);
DEFINE_PER_CPU(struct sched_domain *, sd_asym_cpucapacity);
DEFINE_PER_CPU(cpumask_var_t, select_rq_mask);
typedef char kb_pcpu_slot_for_every_runqueue[KB_PCPU_NR == KB_MAX_CPUS ? 1 : -1];
unsigned int kb_nr_cpumask_bits = 1;
unsigned int kb_hz = 1000;
static struct sched_domain kb_sd[KB_MAX_CPUS];
static struct sched_domain_shared kb_sd_shared;
static struct cpumask kb_cpus_allowed;  /* p->cpus_ptr of every task: the runqueues */
static struct cpumask kb_idle_allowed[KB_MAX_CPUS];  /* an idle task's: its CPU */
/* SMT (shim_smp.h): each CPU's siblings, itself included, and sched_smt_present */
struct cpumask kb_cpu_sibling_map[KB_PCPU_NR];
int kb_sched_smt_present;

/* The scenario's `smt N` (model/wake_cpu.hpp): CPUs kN .. kN+N-1 of the
 * runqueues are one core (N divides the runqueues: the model checks it; a
 * bad N here leaves each CPU its own core).  sched_cpu_activate() counts
 * sched_smt_present up once a core for the CPU whose activation makes its
 * SMT mask two CPUs wide: any core of two or more CPUs turns it on. */
static void kb_init_smt(unsigned int smt) {
  memset(kb_cpu_sibling_map, 0, sizeof kb_cpu_sibling_map);
  kb_sched_smt_present = 0;
  if (smt < 2 || kb_nr_cpus % smt != 0) smt = 1;
  for (unsigned int c = 0; c < kb_nr_cpus; c++) {
    unsigned int first = c - c % smt;
    for (unsigned int s = first; s < first + smt; s++) kb_cpumask_set_cpu(s, &kb_cpu_sibling_map[c]);
  }
  if (smt >= 2) kb_sched_smt_present = (int)(kb_nr_cpus / smt);
}

/* set_next_task_idle() (idle.c) of a CPU switching to its idle task: its
 * update_idle_core() (sched.h): with sched_smt_present, the tree's
 * __update_idle_core() */
static void kb_set_next_task_idle(struct rq *rq) {
  if (kb_sched_smt_present) __update_idle_core(rq);
}

static void kb_init_topology(unsigned int online) {
  unsigned int span = online > kb_nr_cpus ? online : kb_nr_cpus;
  if (span > NR_CPUS) span = NR_CPUS;
  kb_nr_cpumask_bits = span;
  memset(&kb_cpus_allowed, 0, sizeof kb_cpus_allowed);
  memset(kb_idle_allowed, 0, sizeof kb_idle_allowed);
  memset(kb_sd, 0, sizeof kb_sd);
  memset(&kb_sd_shared, 0, sizeof kb_sd_shared);
  memset(select_rq_mask, 0, sizeof select_rq_mask);
  kb_sd_shared.nr_idle_scan = (int)kb_nr_cpus;
  for (unsigned int c = 0; c < kb_nr_cpus; c++) kb_cpumask_set_cpu(c, &kb_cpus_allowed);
  for (unsigned int c = 0; c < KB_MAX_CPUS; c++) {
    per_cpu(sd_llc, c) = 0;
    per_cpu(sd_llc_shared, c) = 0;
    per_cpu(sd_asym_cpucapacity, c) = 0;
    per_cpu(sd_llc_size, c) = 1;
    per_cpu(sd_llc_id, c) = (int)c;
    per_cpu(sd_share_id, c) = (int)c;
  }
  for (unsigned int c = 0; c < kb_nr_cpus; c++) {
    struct sched_domain *sd = &kb_sd[c];
    for (unsigned int i = 0; i < span; i++) kb_cpumask_set_cpu(i, &sd->span);
    sd->span_weight = span;
    sd->flags = SD_BALANCE_NEWIDLE | SD_BALANCE_EXEC | SD_BALANCE_FORK | SD_WAKE_AFFINE | SD_SHARE_LLC;
    sd->imbalance_pct = 117;
    sd->shared = &kb_sd_shared;
    kb_rqs[c].sd = sd;
    kb_rqs[c].cpu_capacity = SCHED_CAPACITY_SCALE;
    per_cpu(sd_llc, c) = sd;
    per_cpu(sd_llc_size, c) = (int)online;
    per_cpu(sd_llc_id, c) = 0;
    per_cpu(sd_share_id, c) = 0;
    per_cpu(sd_llc_shared, c) = &kb_sd_shared;
    /* init_idle(): a per-CPU kernel thread bound to its CPU */
    kb_cpumask_set_cpu(c, &kb_idle_allowed[c]);
    kb_idle_tasks[c].flags = PF_IDLE | PF_KTHREAD;
    kb_idle_tasks[c].nr_cpus_allowed = 1;
    kb_idle_tasks[c].cpus_ptr = &kb_idle_allowed[c];
  }
}

/* a task the scenario creates: it may run on every runqueue; no wake-up memory yet */
static void kb_init_task_affinity(struct task_struct *p) {
  p->flags = 0;
  p->nr_cpus_allowed = (int)kb_nr_cpus;
  p->cpus_ptr = &kb_cpus_allowed;
  p->last_wakee = 0;
  p->wakee_flips = 0;
  p->wakee_flip_decay_ts = 0;
  p->recent_used_cpu = -1;
}

/* core.c's side of the choice */
int smp_processor_id(void) { return kb_this_cpu; }
struct task_struct *kb_current(void) { return kb_rqs[kb_this_cpu].curr; }
bool in_task(void) { return kb_current() != kb_rqs[kb_this_cpu].idle; }
#if EEVDF_KERNEL_VERSION_CODE < EEVDF_KV(7, 0)
/* syscalls.c idle_cpu() (6.18): the idle task runs, nothing is queued, no
 * wake-up is pending (one thread: rq->ttwu_pending is never set) */
int idle_cpu(int cpu) {
  const struct rq *rq = cpu_rq(cpu);
  if (rq->curr != rq->idle) return 0;
  if (rq->nr_running) return 0;
  if (rq->ttwu_pending) return 0;
  return 1;
}
/* syscalls.c available_idle_cpu() (6.18): idle_cpu() and not a preempted
 * vCPU (bare metal); 7.0 has it in sched.h, the tree's */
int available_idle_cpu(int cpu) { return idle_cpu(cpu); }
#endif
bool cpus_share_cache(int this_cpu, int that_cpu) {
  if (this_cpu == that_cpu) return true;
  return per_cpu(sd_llc_id, this_cpu) == per_cpu(sd_llc_id, that_cpu);
}
bool cpus_share_resources(int this_cpu, int that_cpu) {
  if (this_cpu == that_cpu) return true;
  return per_cpu(sd_share_id, this_cpu) == per_cpu(sd_share_id, that_cpu);
}

#endif

/* ---- another class on the CPU (issue 21 part 4) ----
 * SCHED_FIFO tasks of one priority: a struct task_struct whose sched_class is
 * not the fair class, on a FIFO list per CPU (rq->rt's one priority list; the
 * head runs), counted in rq->nr_running with add_nr_running()/sub_nr_running() as
 * enqueue_task_rt()/dequeue_task_rt() do. Not the kernel's rt.c: its two hooks
 * that put_prev_set_next_task() calls are ours and do nothing (the RT class's
 * own accounting, update_curr_rt(), is not modelled, as in the model). */
#if EEVDF_TREE_PUT_PREV_NEXT
static void kb_put_prev_task_rt(struct rq *rq, struct task_struct *p, struct task_struct *next) {
  (void)rq; (void)p; (void)next;
}
#else
static void kb_put_prev_task_rt(struct rq *rq, struct task_struct *p) { (void)rq; (void)p; }
/* 6.6's pick_next_task_fair() from the idle task puts it first (put_prev_task()):
 * the idle class's hooks, which change nothing the backend keeps (the idle
 * task's own set_next_task_idle() is kb_set_next_task_idle()) */
static void kb_put_prev_task_idle(struct rq *rq, struct task_struct *p) { (void)rq; (void)p; }
static void kb_set_next_task_idle_hook(struct rq *rq, struct task_struct *p, bool first) {
  (void)rq; (void)p; (void)first;
}
static const struct sched_class kb_idle_sched_class = {
  .put_prev_task = kb_put_prev_task_idle,
  .set_next_task = kb_set_next_task_idle_hook,
};
#endif
static void kb_set_next_task_rt(struct rq *rq, struct task_struct *p, bool first) {
  (void)rq; (void)p; (void)first;
}
static const struct sched_class kb_rt_sched_class = {
  .put_prev_task = kb_put_prev_task_rt,
  .set_next_task = kb_set_next_task_rt,
};
static int kb_is_rt(const struct task_struct *p) { return p->sched_class == &kb_rt_sched_class; }

/* ---- core.c services the fair class calls ---- */
void resched_curr(struct rq *rq) {
  rq->curr->need_resched = 1;
  ++kb_cpus[kb_cpu_of(rq)].resched_calls;
  if (kb_deciding && !kb_in_update_curr) ++kb_decision_rescheds;
}
#if EEVDF_KERNEL_VERSION_CODE >= EEVDF_KV(6, 18)
void resched_curr_lazy(struct rq *rq) { resched_curr(rq); }  /* preemption model "full" */
#endif
#if EEVDF_KERNEL_VERSION_CODE >= EEVDF_KV(7, 0)
/* need_resched() of current (7.0's task_tick_fair() asks it for a queued,
 * hrtick, tick: the glue's ticks are never queued) */
bool need_resched(void) { return kb_rqs[kb_this_cpu].curr->need_resched; }
void __BUILD_BUG_vruntime_cmp(void) { eevdf_kernel_warn(__FILE__, __LINE__, "BUG: vruntime_cmp() operator"); }
void __BUILD_BUG_vruntime_op(void) { eevdf_kernel_warn(__FILE__, __LINE__, "BUG: vruntime_op() operator"); }
#endif
void update_rq_clock(struct rq *rq) { rq->clock_update_flags |= RQCF_UPDATED; /* the scenario sets the clock */ }
void rq_clock_skip_update(struct rq *rq) { (void)rq; }
struct rq *cpu_rq(int cpu) { return &kb_rqs[cpu]; }
int task_cpu(const struct task_struct *p) { return p->cpu; }
int test_tsk_need_resched(struct task_struct *p) { return p->need_resched; }
unsigned int num_online_cpus(void) { return kb_online_cpus; }

/* core.c wakeup_preempt() of a fair task: the fair class above idle, below an RT curr.
 * 7.0 tests rq->next_class instead of the donor's class; the two differ only
 * from a higher class's wake-up (which set need_resched) to the next
 * __schedule(), where the fair hook returns before it changes anything. */
static void kb_wakeup_preempt_fair(struct rq *rq, struct task_struct *p, int flags);
void wakeup_preempt(struct rq *rq, struct task_struct *p, int flags) {
  if (rq->curr == kb_idle_of(rq))
    resched_curr(rq);
  else if (!kb_is_rt(rq->curr))
    kb_wakeup_preempt_fair(rq, p, flags);
}

#if EEVDF_TREE_CHECK_PREEMPT_CURR
/* 6.6's core.c check_preempt_curr(), which fair.c calls (prio_changed_fair(),
 * switched_to_fair(), attach_task()): wakeup_preempt()'s code under its old name */
void check_preempt_curr(struct rq *rq, struct task_struct *p, int flags) { wakeup_preempt(rq, p, flags); }
#endif

static struct task_struct *kb_task(int id) { return id >= 0 && id < kb_nr_tasks ? &kb_tasks[id] : 0; }
/* task_rq(p), and the CPU's code runs from now on */
static struct rq *kb_rq_of(const struct task_struct *p) { return kb_rq_at(p->cpu); }
static int kb_is_curr(struct task_struct *p) { return kb_rqs[p->cpu].curr == p; }

/* __set_task_cpu(): set_task_rq() against the CPU's queues, then task_cpu(p) */
static void kb_set_task_cpu_only(struct task_struct *p, int cpu) {
  set_task_rq(p, (unsigned int)cpu);
  p->cpu = cpu;
}

#if EEVDF_SHIM_SMP
/* core.c set_task_cpu(): the class's migrate_task_rq() hook for a task that
 * changes CPU (the fair class's migrate_task_rq_fair(): PELT only, and
 * se->avg), nr_migrations, then __set_task_cpu().  The RT class has no
 * migrate_task_rq hook. */
static void kb_set_task_cpu(struct task_struct *p, int cpu) {
  if (p->cpu != cpu) {
    if (!kb_is_rt(p)) migrate_task_rq_fair(p, cpu);
    p->se.nr_migrations++;
  }
  kb_set_task_cpu_only(p, cpu);
}
#endif

/* core.c set_load_weight() */
static void kb_set_load_weight(struct task_struct *p, bool update_load) {
  int prio = p->static_prio - MAX_RT_PRIO;
  struct load_weight lw;
  if (task_has_idle_policy(p)) {
    lw.weight = scale_load(WEIGHT_IDLEPRIO);
    lw.inv_weight = WMULT_IDLEPRIO;
#if EEVDF_TREE_IDLE_WEIGHT_RETURNS
    /* before d32960528702 (6.6.9): written in place, no reweight, the saved lag not
     * rescaled; a change is told as the model's on_load_set() */
    const unsigned long old_weight = p->se.load.weight;
    p->se.load = lw;
    if (old_weight != lw.weight && p->se.cfs_rq) {
      struct kb_event e = {0};
      e.kind = KB_EVENT_LOAD_SET;
      e.old_weight = old_weight;
      kb_send(e, p->se.cfs_rq, &p->se);
    }
    return;
#endif
  } else {
    lw.weight = scale_load(sched_prio_to_weight[prio]);
    lw.inv_weight = sched_prio_to_wmult[prio];
  }
#if EEVDF_TREE_REWEIGHT_TASK_HOOK
  if (update_load)
    reweight_task_fair(kb_rq_of(p), p, &lw);
  else
    p->se.load = lw;
#else
  /* 6.6: fair.c's reweight_task(p, prio) (the weight table's entry) */
  if (update_load) {
    kb_rq_of(p);
    reweight_task(p, prio);
  } else {
    p->se.load = lw;
  }
#endif
}

/* syscalls.c __setparam_fair() (6.12): policy, custom slice */
static void kb_setparam_fair(struct task_struct *p, unsigned int policy, u64 runtime) {
  p->policy = policy;
#if !EEVDF_TREE_CUSTOM_SLICE
  /* 6.6: a fair task's sched_runtime is not read (no custom slices before 857b158dc5e8) */
  (void)runtime;
  return;
#endif
  if (runtime) {
    p->se.custom_slice = 1;
    p->se.slice = clamp_t(u64, runtime, NSEC_PER_MSEC / 10, NSEC_PER_MSEC * 100);
  } else {
    p->se.custom_slice = 0;
    p->se.slice = sysctl_sched_base_slice;
  }
}

/* ---- set-up ---- */
int kb_smp(void) { return EEVDF_SHIM_SMP; }

void kb_init(const struct kb_config *cfg, kb_warn_fn warn, void *ctx) {
  memset(kb_rqs, 0, sizeof kb_rqs);
  memset(kb_cpus, 0, sizeof kb_cpus);
  memset(kb_tasks, 0, sizeof kb_tasks);
  memset(kb_idle_tasks, 0, sizeof kb_idle_tasks);
  memset(kb_groups, 0, sizeof kb_groups);
  memset(kb_group_se, 0, sizeof kb_group_se);
  memset(kb_group_cfs_rq, 0, sizeof kb_group_cfs_rq);
  memset(&root_task_group, 0, sizeof root_task_group);
  kb_nr_tasks = 0;
  kb_nr_groups = 0;
  kb_picking = kb_crashed = 0;
  kb_this_cpu = 0;
  kb_warn_cb = warn;
  kb_warn_ctx = ctx;
  kb_event_cb = NULL;
  kb_event_ctx = NULL;
  kb_enqueuing = NULL;
  kb_lag_placed = 0;
  kb_reweighting = 0;
  kb_deciding = NULL;
  kb_in_update_curr = 0;
  kb_nr_cpus = cfg->nr_cpus >= 1 && cfg->nr_cpus <= KB_MAX_CPUS && EEVDF_SHIM_SMP ? cfg->nr_cpus : 1;
  sysctl_sched_features = cfg->features;
  kb_online_cpus = cfg->ncpus;
  kb_tick_nsec = cfg->tick_nsec;
  normalized_sysctl_sched_base_slice = cfg->normalized_base_slice;
  update_sysctl();
  root_task_group.se = kb_root_se_ptr;
  root_task_group.cfs_rq = kb_root_cfs_rq_ptr;
  root_task_group.shares = ROOT_TASK_GROUP_LOAD;
#if EEVDF_SHIM_SMP
  memset(&kb_rd, 0, sizeof kb_rd);
#endif
  for (unsigned int c = 0; c < kb_nr_cpus; c++) {
    struct rq *rq = &kb_rqs[c];
    kb_root_se_ptr[c] = 0;
    kb_root_cfs_rq_ptr[c] = &rq->cfs;
    rq->cpu = (int)c;
    init_cfs_rq(&rq->cfs);
    rq->cfs.rq = rq;
    rq->cfs.tg = &root_task_group;
    INIT_LIST_HEAD(&rq->leaf_cfs_rq_list);
#if EEVDF_SHIM_SMP
    rq->rd = &kb_rd;
    INIT_LIST_HEAD(&rq->cfs_tasks);
#endif
    rq->tmp_alone_branch = &rq->leaf_cfs_rq_list;
#if EEVDF_TREE_PUT_PREV_NEXT
    kb_idle_tasks[c].sched_class = 0;
#else
    kb_idle_tasks[c].sched_class = &kb_idle_sched_class;  /* 6.6: put by pick_next_task_fair() */
#endif
    kb_idle_tasks[c].cpu = (int)c;
    /* init_idle(): __set_task_cpu(), so the idle task's entity belongs to the
     * CPU's root queue (task_h_load(current) of a sync wake-up from idle) */
    kb_idle_tasks[c].sched_task_group = &root_task_group;
    kb_idle_tasks[c].se.cfs_rq = &rq->cfs;
    rq->curr = rq->donor = rq->idle = &kb_idle_tasks[c];
    rq->clock_update_flags = RQCF_UPDATED;  /* update_rq_clock() at every entry: the clock is the scenario's */
    kb_sync_clock_pelt(rq);
  }
#if EEVDF_SHIM_SMP
  kb_hz = cfg->hz;
  kb_init_topology(cfg->ncpus);
  kb_init_smt(cfg->smt);
#endif
}

unsigned long long kb_base_slice(void) { return sysctl_sched_base_slice; }

/* core.c __sched_fork() + sched_fork() for a fresh task (no parent to copy), on CPU 0 */
int kb_create_task(int nice, int policy, unsigned long long slice, int group) {
  if (kb_nr_tasks >= KB_MAX_TASKS || group >= kb_nr_groups) return -1;
  struct task_struct *p = &kb_tasks[kb_nr_tasks];
  memset(p, 0, sizeof *p);
#if EEVDF_SHIM_SMP
  kb_init_task_affinity(p);
#endif
  kb_rq_at(0);
  if (policy == SCHED_FIFO) {  /* an RT task: nice 0, no fair hook (sched_fork(): no task_fork) */
    if (nice != 0 || slice != 0 || group >= 0) return -1;
    p->sched_class = &kb_rt_sched_class;
    p->policy = SCHED_FIFO;
    p->static_prio = NICE_TO_PRIO(0);
    p->prio = p->normal_prio = MAX_RT_PRIO - 2;  /* sched_priority 1: every RT task of the scenario alike */
    p->sched_task_group = &root_task_group;
    p->se.slice = sysctl_sched_base_slice;  /* __sched_fork() */
    INIT_LIST_HEAD(&p->se.group_node);
    kb_set_task_cpu_only(p, 0);
    kb_set_load_weight(p, false);
    init_entity_runnable_average(&p->se);  /* sched_fork(), every class */
    p->__state = KB_TASK_NEW;
    return kb_nr_tasks++;
  }
  p->sched_class = &fair_sched_class;
  p->static_prio = NICE_TO_PRIO(nice);
  p->prio = p->normal_prio = p->static_prio;
  p->sched_task_group = group < 0 ? &root_task_group : &kb_groups[group];
  p->se.slice = sysctl_sched_base_slice;
  INIT_LIST_HEAD(&p->se.group_node);
  kb_set_task_cpu_only(p, 0);
  p->policy = (unsigned)policy;  /* the policy a new task starts with: its weight depends on it */
  kb_set_load_weight(p, false);
  kb_setparam_fair(p, (unsigned)policy, slice);
  init_entity_runnable_average(&p->se);
  p->__state = KB_TASK_NEW;
  task_fork_fair(p);
  return kb_nr_tasks++;
}

/* copy_process() by the running task: dup_task_struct(), then sched_fork()
 * (the child's CPU is the parent's: __set_task_cpu(p, smp_processor_id())) */
int kb_fork_task(int parent, int copy_races_sched_change) {
  struct task_struct *pp = kb_task(parent);
  if (!pp || !kb_is_curr(pp) || kb_nr_tasks >= KB_MAX_TASKS) return -1;
  kb_rq_of(pp);
  struct task_struct *p = &kb_tasks[kb_nr_tasks];
  *p = *pp;
#if EEVDF_TREE_REL_DEADLINE
  if (copy_races_sched_change && sched_feat(PLACE_REL_DEADLINE)) p->se.rel_deadline = 1;
#else
  (void)copy_races_sched_change;  /* 6.6: no relative deadline to copy */
#endif
  p->on_rq = 0;
  p->need_resched = 0;
  p->se.on_rq = 0;
  p->se.exec_start = 0;
  p->se.sum_exec_runtime = 0;
  p->se.prev_sum_exec_runtime = 0;
  p->se.nr_migrations = 0;
  p->se.vruntime = 0;
  p->se.vlag = 0;
#if EEVDF_FORK_CLEARS_REL_DEADLINE
  p->se.rel_deadline = 0;  /* __sched_fork() (6.12.118: 3da56dc063cd; not in 6.18.0) */
#endif
  SCHED_WARN_ON(p->se.sched_delayed);
  memset(&p->se.run_node, 0, sizeof p->se.run_node);
  INIT_LIST_HEAD(&p->se.group_node);
  p->__state = KB_TASK_NEW;
  if (p->sched_reset_on_fork) {
    if (p->static_prio < NICE_TO_PRIO(0)) p->static_prio = NICE_TO_PRIO(0);
    p->prio = p->normal_prio = p->static_prio;
    kb_set_load_weight(p, false);
    p->se.custom_slice = 0;
    p->se.slice = sysctl_sched_base_slice;
    p->sched_reset_on_fork = 0;
  }
  kb_set_task_cpu_only(p, pp->cpu);
  init_entity_runnable_average(&p->se);
  task_fork_fair(p);
  return kb_nr_tasks++;
}

/* core.c __schedule() on a CPU: pick_next_task() and the switch */
static void kb_switch_to_next(struct rq *rq) {
  struct task_struct *idle = kb_idle_of(rq);
  struct task_struct *prev = rq->curr;
  struct task_struct *next;
  struct kb_cpu *cpu = &kb_cpus[kb_cpu_of(rq)];
  struct rq_flags rf;
  if (kb_crashed) return;
  kb_this_cpu = kb_cpu_of(rq);
  kb_picking = 1;
  if (setjmp(kb_pick_env)) {  /* pick_eevdf() returned NULL: the kernel crashed here */
    kb_picking = 0;
    return;
  }
  if (cpu->rt_nr) {
    /* __pick_next_task(): rq->nr_running != rq->cfs.h_nr_queued, the class loop;
     * pick_task_rt() gives the head of the list, then put_prev_set_next_task():
     * put_prev_task_fair() for a fair prev */
    next = &kb_tasks[cpu->rt_queue[0]];
#if EEVDF_TREE_PUT_PREV_NEXT
    if (prev != idle)
      put_prev_set_next_task(rq, prev, next);
    else
      kb_set_next_task_rt(rq, next, true);
#else
    /* 6.6: put_prev_task_balance() puts prev, pick_next_task_rt() sets next */
    if (prev != idle) prev->sched_class->put_prev_task(rq, prev);
    kb_set_next_task_rt(rq, next, true);
#endif
  } else if (prev != idle) {
    /* a fair prev: the fast path; an RT prev (blocked): the class loop reaches
     * pick_next_task_fair(), whose `simple` path calls put_prev_set_next_task() */
    next = pick_next_task_fair(rq, prev, &rf);
    if (!next && !kb_is_rt(prev)) KB_PUT_PREV_TASK_FAIR(rq, prev, idle);
#if EEVDF_SHIM_SMP
    /* no fair task: pick_task_idle(), put_prev_set_next_task() to the idle task */
    if (!next) kb_set_next_task_idle(rq);
#endif
  } else {
#if EEVDF_TREE_PUT_PREV_NEXT
    next = KB_PICK_TASK_FAIR(rq);
    if (next) set_next_task_fair(rq, next, true);
#else
    /* 6.6: __pick_next_task()'s fast path calls pick_next_task_fair() from the
     * idle task too (its `simple` path puts the idle task, then
     * pick_next_entity() and set_next_entity() level by level) */
    next = pick_next_task_fair(rq, prev, &rf);
#endif
  }
  kb_picking = 0;
  /* 6.12 __schedule(): clear_tsk_need_resched(prev) after the pick, so a
   * resched_curr() inside the pick (update_curr() reaching the deadline) is
   * cleared with it */
  prev->need_resched = 0;
  rq->curr = rq->donor = next ? next : idle;
}

void kb_schedule(int cpu) { kb_switch_to_next(kb_rq_at(cpu)); }

/* An RT task becomes runnable on its CPU: activate_task(): enqueue_task_rt()
 * at the tail, add_nr_running(); then wakeup_preempt(): the RT class is above
 * fair and idle (no fair wakeup_preempt call), and wakeup_preempt_rt() leaves
 * an RT curr of the same priority alone */
static void kb_wake_rt(struct task_struct *p, int id) {
  struct rq *rq = kb_rq_of(p);
  struct kb_cpu *cpu = &kb_cpus[p->cpu];
  p->__state = KB_TASK_RUNNING;
  cpu->rt_queue[cpu->rt_nr++] = id;
  p->on_rq = TASK_ON_RQ_QUEUED;
  add_nr_running(rq, 1);
  if (!kb_is_rt(rq->curr)) resched_curr(rq);
}

/* wake_up_new_task() (new) or try_to_wake_up() (ttwu_runnable / ttwu_do_activate).
 * cpu: select_task_rq()'s answer (-1: the task's own CPU); a task still
 * queued (delayed) is woken by ttwu_runnable() where it is, before
 * select_task_rq() runs. */
int kb_wake(int id, int sync, int initial_flag, int cpu) {
  struct task_struct *p = kb_task(id);
  if (!p) return -1;
  if (cpu < 0 || (unsigned int)cpu >= kb_nr_cpus || p->on_rq) cpu = p->cpu;
#if EEVDF_SHIM_SMP
  if (p->__state == KB_TASK_NEW) p->recent_used_cpu = p->cpu;  /* wake_up_new_task(), before select_task_rq() */
#endif
  int migrated = 0;
  if (cpu != p->cpu) {
#if EEVDF_SHIM_SMP
    if (p->__state == KB_TASK_NEW) {
      kb_set_task_cpu_only(p, cpu);  /* wake_up_new_task(): __set_task_cpu() */
    } else {
      kb_set_task_cpu(p, cpu);  /* try_to_wake_up(): WF_MIGRATED, set_task_cpu() */
      migrated = 1;
    }
#else
    return -1;  /* one CPU: kb_nr_cpus is 1 */
#endif
  }
  struct rq *rq = kb_rq_of(p);
  if (p->__state == KB_TASK_NEW) post_init_entity_util_avg(p);  /* wake_up_new_task(), before the enqueue */
  if (kb_is_rt(p)) {
    kb_wake_rt(p, id);
    return 0;
  }
  if (p->__state == KB_TASK_NEW) {
    p->__state = KB_TASK_RUNNING;
    enqueue_task_fair(rq, p, ENQUEUE_NOCLOCK | (initial_flag ? ENQUEUE_INITIAL : 0));
    p->on_rq = TASK_ON_RQ_QUEUED;
    wakeup_preempt(rq, p, WF_FORK);
    return 0;
  }
  int wake_flags = WF_TTWU | (sync ? WF_SYNC : 0);
  if (p->on_rq) {
#if EEVDF_TREE_DELAY_DEQUEUE
    if (p->se.sched_delayed) enqueue_task_fair(rq, p, ENQUEUE_NOCLOCK | ENQUEUE_DELAYED);
#endif
    if (!kb_is_curr(p)) wakeup_preempt(rq, p, wake_flags);
  } else {
    int en_flags = ENQUEUE_WAKEUP | ENQUEUE_NOCLOCK;
#if EEVDF_TREE_WF_RQ_SELECTED
    if (kb_online_cpus > 1) wake_flags |= WF_RQ_SELECTED;
#endif
#if EEVDF_SHIM_SMP
    if (migrated) {  /* ttwu_do_activate(): WF_MIGRATED adds ENQUEUE_MIGRATED */
      wake_flags |= WF_MIGRATED;
      en_flags |= ENQUEUE_MIGRATED;
    }
#endif
    enqueue_task_fair(rq, p, en_flags);
    p->on_rq = TASK_ON_RQ_QUEUED;
    wakeup_preempt(rq, p, wake_flags);
  }
  p->__state = KB_TASK_RUNNING;
  return 0;
}

#if EEVDF_SHIM_SMP
/* try_to_wake_up()'s select_task_rq() for sleeping fair task `id`, made on
 * CPU `from` (smp_processor_id(); current is the task running there, or its
 * idle task): WF_TTWU, with WF_SYNC for a sync wake-up; the class's
 * select_task_rq_fair() (the tree's) when the task may run on more than one
 * CPU, as core.c asks it (prev_cpu: p->wake_cpu, the task's CPU).  jiffies is
 * the model's: INITIAL_JIFFIES plus the ticks elapsed on the waking CPU.
 * Returns the CPU, or -1 for a task that is not chosen for (queued, new,
 * running, dead, an RT task) or a bad `from`.  Changes record_wakee()'s and
 * select_idle_sibling()'s memory, nothing else: kb_wake() performs it.  The
 * answer is sent as KB_EVENT_WAKE_CHOICE first. */
/* select_idle_cpu(), interposed: whether the choice
 * being made read what the backend does not keep (kb_select_task_rq_wake()) */
static int kb_choice_unknown;
/* update_cfs_rq_h_load()'s caches of every queue (each CPU's root queue, then
 * each group's), kept across a choice that is undone: kb_h_load_keep(0) saves
 * them, kb_h_load_keep(1) puts them back */
static struct kb_h_load_cache {
  unsigned long h_load;
  u64 last_h_load_update;
  struct sched_entity *h_load_next;
} kb_h_load_saved[KB_MAX_GROUPS + 1][KB_MAX_CPUS];
static void kb_h_load_keep(int restore) {
  for (int g = -1; g < kb_nr_groups; g++) {
    for (unsigned int c = 0; c < kb_nr_cpus; c++) {
      struct cfs_rq *q = g < 0 ? &kb_rqs[c].cfs : &kb_group_cfs_rq[g][c];
      struct kb_h_load_cache *k = &kb_h_load_saved[g + 1][c];
      if (!restore) {
        *k = (struct kb_h_load_cache){q->h_load, q->last_h_load_update, q->h_load_next};
        continue;
      }
      q->h_load = k->h_load;
      q->last_h_load_update = k->last_h_load_update;
      q->h_load_next = k->h_load_next;
    }
  }
}
static int select_idle_cpu(struct task_struct *p, struct sched_domain *sd, bool has_idle_core, int target) {
  const int i = kb_tree_select_idle_cpu(p, sd, has_idle_core, target);
  /* under SIS_UTIL the budget decides an idle-core scan (SMT) whatever it
   * finds, and a CPU scan once it meets an idle CPU (model/wake_cpu.cpp) */
  const int found = i >= 0 && (unsigned int)i < kb_nr_cpus;
  if (sched_feat(SIS_UTIL) && (has_idle_core || found) && !kb_choice_unknown) kb_choice_unknown = KB_CHOICE_SIS_UTIL;
  return i;
}
int kb_select_task_rq_wake(int id, int sync, int from) {
  struct task_struct *p = kb_task(id);
  if (!p || kb_crashed || from < 0 || (unsigned int)from >= kb_nr_cpus) return -1;
  if (kb_is_rt(p) || p->on_rq || p->__state != KB_TASK_SLEEPING) return -1;
  kb_this_cpu = from;
  jiffies = (unsigned long)(unsigned int)(0u - 300u * kb_hz) + kb_rqs[from].clock_task / kb_tick_nsec;
  int wake_flags = WF_TTWU | (sync ? WF_SYNC : 0);
  if (p->nr_cpus_allowed <= 1) return p->cpu;
  struct task_struct *waker = kb_current();
  struct task_struct *const last_wakee = waker->last_wakee;
  const unsigned int flips = waker->wakee_flips;
  const unsigned long decay_ts = waker->wakee_flip_decay_ts;
  const int recent_used_cpu = p->recent_used_cpu;
  const int has_idle_cores = kb_sd_shared.has_idle_cores;
  kb_h_load_keep(0);  /* task_h_load()'s caches, which wake_affine_weight() refreshes */
  kb_choice_unknown = 0;
  const int cpu = select_task_rq_fair(p, p->cpu, wake_flags);
  if (!kb_choice_unknown) {
    /* the answer, told before kb_wake() performs it (I-WAKECOUNT judges it on
     * the state the choice read) */
    struct kb_event e = {0};
    e.kind = KB_EVENT_WAKE_CHOICE;
    e.cpu = from;
    e.queue = -1;
    e.entity = id;
    e.prev_cpu = p->cpu;
    e.chosen_cpu = cpu;
    e.sync = sync ? 1 : 0;
    e.recent_used_cpu = recent_used_cpu;
    e.had_idle_cores = has_idle_cores;
    if (kb_event_cb) kb_event_cb(kb_event_ctx, &e);
    return cpu;
  }
  kb_h_load_keep(1);
  waker->last_wakee = last_wakee;
  waker->wakee_flips = flips;
  waker->wakee_flip_decay_ts = decay_ts;
  p->recent_used_cpu = recent_used_cpu;
  kb_sd_shared.has_idle_cores = has_idle_cores;
  return kb_choice_unknown;
}
#endif

#if EEVDF_SHIM_SMP
/* The load balancer moving a queued task (fair.c detach_task() + attach_task(),
 * core.c deactivate_task()/activate_task()): dequeue on the source with
 * DEQUEUE_NOCLOCK while p->on_rq is TASK_ON_RQ_MIGRATING, set_task_cpu(),
 * enqueue on the destination with ENQUEUE_NOCLOCK | ENQUEUE_MIGRATED
 * (task_on_rq_migrating()), p->on_rq back to TASK_ON_RQ_QUEUED, then
 * wakeup_preempt(rq, p, 0).  A task that is not queued only changes CPU
 * (set_task_cpu(); __set_task_cpu() for a new one). */
int kb_migrate(int id, int cpu) {
  struct task_struct *p = kb_task(id);
  if (!p || cpu < 0 || (unsigned int)cpu >= kb_nr_cpus || kb_crashed) return -1;
  if (p->cpu == cpu) return 0;
  if (!p->on_rq) {
    if (p->__state == KB_TASK_NEW)
      kb_set_task_cpu_only(p, cpu);
    else
      kb_set_task_cpu(p, cpu);
    return 0;
  }
  struct rq *src = kb_rq_of(p);
  p->on_rq = TASK_ON_RQ_MIGRATING;
  dequeue_task_fair(src, p, DEQUEUE_NOCLOCK);
  kb_set_task_cpu(p, cpu);
  struct rq *dst = kb_rq_of(p);
  enqueue_task_fair(dst, p, ENQUEUE_NOCLOCK | ENQUEUE_MIGRATED);
  p->on_rq = TASK_ON_RQ_QUEUED;
  wakeup_preempt(dst, p, 0);
  return 0;
}
#else
int kb_migrate(int id, int cpu) { (void)id; (void)cpu; return -1; }
int kb_select_task_rq_wake(int id, int sync, int from) { (void)id; (void)sync; (void)from; return -1; }
#endif

/* __schedule() of a blocking current task: try_to_block_task() */
void kb_sleep(int id, int special) {
  struct task_struct *p = kb_task(id);
  struct rq *rq = kb_rq_of(p);
  struct kb_cpu *cpu = &kb_cpus[p->cpu];
  p->__state = special ? KB_TASK_DEAD : KB_TASK_SLEEPING;
  if (kb_is_rt(p)) {  /* dequeue_task_rt(), sub_nr_running() */
    for (int i = 0; i < cpu->rt_nr; i++)
      if (cpu->rt_queue[i] == id) {
        for (int j = i + 1; j < cpu->rt_nr; j++) cpu->rt_queue[j - 1] = cpu->rt_queue[j];
        cpu->rt_nr--;
        sub_nr_running(rq, 1);
        break;
      }
    p->on_rq = 0;
    kb_switch_to_next(rq);
    return;
  }
#if EEVDF_TREE_DEQUEUE_SPECIAL
  int flags = DEQUEUE_SLEEP | DEQUEUE_NOCLOCK | (special ? DEQUEUE_SPECIAL : 0);
#else
  int flags = DEQUEUE_SLEEP | DEQUEUE_NOCLOCK;
#endif
#if EEVDF_TREE_DEQUEUE_TASK_BOOL
  if (dequeue_task_fair(rq, p, flags)) __block_task(rq, p);
#else
  /* 6.6 deactivate_task(): p->on_rq cleared, then the class's dequeue */
  p->on_rq = 0;
  dequeue_task_fair(rq, p, flags);
#endif
  kb_switch_to_next(rq);
}

/* do_task_dead() is kb_sleep(id, 1); then finish_task_switch()'s task_dead_fair()
 * of a dead fair task: a still delayed one is dequeued, and its load leaves the queue */
void kb_exit_delayed(int id) {
  struct task_struct *p = kb_task(id);
  if (kb_is_rt(p)) return;  /* the RT class has no task_dead hook */
#if EEVDF_TREE_DELAY_DEQUEUE
  if (p->se.sched_delayed) dequeue_entities(kb_rq_of(p), &p->se, DEQUEUE_SLEEP | DEQUEUE_DELAYED);
#endif
#if EEVDF_SHIM_SMP
  if (!kb_crashed) remove_entity_load_avg(&p->se);
#endif
}

/* sys_sched_yield() by the running task id, on its CPU */
void kb_yield(int id) {
  struct rq *rq = kb_rq_of(kb_task(id));
  yield_task_fair(rq);
  kb_switch_to_next(rq);
}

/* sched_tick(): the class's task_tick, then a pending reschedule at the tick's return */
static void kb_do_tick(struct rq *rq) {
  struct kb_cpu *cpu = &kb_cpus[kb_cpu_of(rq)];
  int fair = rq->curr != kb_idle_of(rq) && !kb_is_rt(rq->curr);  /* task_tick_rt(): nothing modelled */
  if (fair && rq->clock_task > rq->curr->se.exec_start) ++cpu->charged_ticks;
  if (rq->clock_task - cpu->last_tick > cpu->longest_tick_gap) cpu->longest_tick_gap = rq->clock_task - cpu->last_tick;
  cpu->last_tick = rq->clock_task;
  if (fair) {
    unsigned long long before = cpu->resched_calls;
    task_tick_fair(rq, rq->curr, 0);
    if (cpu->resched_calls != before) ++cpu->fair_tick_rescheds;
  }
}

static int kb_need_resched(const struct rq *rq) { return rq->curr->need_resched; }

/* what a CPU does first when time passes: a pending reschedule, or an idle CPU with work */
static void kb_schedule_pending(struct rq *rq) {
  if (kb_need_resched(rq) || (rq->curr == kb_idle_of(rq) && (KB_NR_QUEUED(&rq->cfs) || kb_cpus[kb_cpu_of(rq)].rt_nr)))
    kb_switch_to_next(rq);
}

/* One CPU's time: its clock advances by ns, with a sched_tick() at every
 * TICK_NSEC boundary (several CPUs: the C++ side steps them, CPU 0 first,
 * one tick period at a time, as the model's System::run) */
void kb_run(int c, unsigned long long ns) {
  struct rq *rq = kb_rq_at(c);
  if (kb_crashed) return;
  kb_schedule_pending(rq);
  u64 end = rq->clock_task + ns;
  while (!kb_crashed) {
    u64 next_tick = (rq->clock_task / kb_tick_nsec + 1) * kb_tick_nsec;
    if (next_tick > end) {
      rq->clock = rq->clock_task = end;
      kb_sync_clock_pelt(rq);
      break;
    }
    rq->clock = rq->clock_task = next_tick;
    kb_sync_clock_pelt(rq);
    kb_do_tick(rq);
    if (kb_need_resched(rq)) kb_switch_to_next(rq);
  }
}

/* sched_tick() at the next boundary with preemption disabled: nothing honoured */
void kb_tick_nopreempt(int c) {
  struct rq *rq = kb_rq_at(c);
  if (kb_crashed) return;
  rq->clock = rq->clock_task = (rq->clock_task / kb_tick_nsec + 1) * kb_tick_nsec;
  kb_sync_clock_pelt(rq);
  kb_do_tick(rq);
}

/* Off the tick grid: the clock advances by ns with no tick (a nohz_full CPU),
 * or by ns and then one sched_tick(); a pending reschedule first, as kb_run(). */
void kb_run_notick(int c, unsigned long long ns) {
  struct rq *rq = kb_rq_at(c);
  if (kb_crashed) return;
  kb_schedule_pending(rq);
  if (kb_crashed) return;
  rq->clock = rq->clock_task = rq->clock_task + ns;
  kb_sync_clock_pelt(rq);
}

void kb_tick_after(int c, unsigned long long ns) {
  struct rq *rq = kb_rq_at(c);
  kb_run_notick(c, ns);
  if (kb_crashed) return;
  kb_do_tick(rq);
  if (!kb_crashed && kb_need_resched(rq)) kb_switch_to_next(rq);
}

/* The sched_change pattern of set_user_nice(), __sched_setscheduler() and sched_move_task().
 * 7.0 wraps it in sched_change_begin()/sched_change_end(), the same calls in
 * the same order; its end calls prio_changed() for all three with the prio
 * the task had, and prio_changed_fair() returns for an unchanged prio, so only
 * set_user_nice() calls it here. */
struct kb_change { int queued, running; };
static struct kb_change kb_change_begin(struct task_struct *p, int flags) {
  struct rq *rq = kb_rq_of(p);
  struct kb_change c = { task_on_rq_queued(p), kb_is_curr(p) };
  if (c.queued) dequeue_task_fair(rq, p, flags);
  if (c.running) KB_PUT_PREV_TASK_FAIR(rq, p, p);
  return c;
}
static void kb_change_end(struct task_struct *p, struct kb_change c, int flags) {
  struct rq *rq = kb_rq_of(p);
  if (c.queued) enqueue_task_fair(rq, p, flags);
  if (c.running) set_next_task_fair(rq, p, false);
}

/* set_user_nice() */
void kb_set_nice(int id, int nice) {
  struct task_struct *p = kb_task(id);
  struct kb_change c = kb_change_begin(p, DEQUEUE_SAVE | DEQUEUE_NOCLOCK);
  p->static_prio = NICE_TO_PRIO(nice);
  kb_set_load_weight(p, true);
  int old_prio = p->prio;
  p->prio = p->normal_prio = p->static_prio;
  kb_change_end(p, c, ENQUEUE_RESTORE | ENQUEUE_NOCLOCK);
  prio_changed_fair(kb_rq_of(p), p, old_prio);
}

/* __sched_setscheduler() between fair policies, sched_setattr() runtime */
void kb_set_params(int id, int policy, unsigned long long runtime) {
  struct task_struct *p = kb_task(id);
  int flags = DEQUEUE_SAVE | DEQUEUE_MOVE | DEQUEUE_NOCLOCK;
  struct kb_change c = kb_change_begin(p, flags);
  kb_setparam_fair(p, (unsigned)policy, runtime);
  kb_set_load_weight(p, true);
  kb_change_end(p, c, flags);
}

/* ---- task groups: sched_create_group() + sched_online_group(), cpu.shares, cpu.idle, moves ---- */
/* alloc_fair_sched_group(): init_tg_cfs_entry() and init_entity_runnable_average()
 * on every possible CPU, below the parent's entity of that CPU; the online
 * step; then the cpu.shares write (every CPU) */
int kb_create_group(int parent, unsigned long long shares) {
  if (kb_nr_groups >= KB_MAX_GROUPS || parent >= kb_nr_groups) return -1;
  int g = kb_nr_groups++;
  struct task_group *tg = &kb_groups[g];
  struct task_group *ptg = parent < 0 ? &root_task_group : &kb_groups[parent];
  tg->parent = ptg;
  tg->shares = NICE_0_LOAD;  /* alloc_fair_sched_group() */
  tg->se = kb_group_se_ptr[g];
  tg->cfs_rq = kb_group_cfs_rq_ptr[g];
  for (unsigned int c = 0; c < kb_nr_cpus; c++) {
    kb_rq_at((int)c);
    init_cfs_rq(&kb_group_cfs_rq[g][c]);
    init_tg_cfs_entry(tg, &kb_group_cfs_rq[g][c], &kb_group_se[g][c], (int)c, ptg->se[c]);
    INIT_LIST_HEAD(&kb_group_se[g][c].group_node);
#if EEVDF_SHIM_SMP
    init_entity_runnable_average(&kb_group_se[g][c]);
#endif
  }
#if EEVDF_SHIM_SMP
  /* sched_online_group() → online_fair_sched_group(): on every possible CPU,
   * under its rq lock, the group entity joins its parent queue's sums
   * (sync_throttle(): no bandwidth) */
  for (unsigned int c = 0; c < kb_nr_cpus; c++) {
    kb_rq_at((int)c);
    attach_entity_cfs_rq(&kb_group_se[g][c]);
  }
#endif
  return sched_group_set_shares(tg, scale_load(shares)) == 0 ? g : -1;
}

int kb_set_group_shares(int g, unsigned long long shares) {
  return sched_group_set_shares(&kb_groups[g], scale_load(shares));
}

int kb_set_group_idle(int g, int idle) { return sched_group_set_idle(&kb_groups[g], idle); }

/* cgroup rmdir (core.c, 6.12): cpu_cgroup_css_released() → sched_release_group()
 * unlinks tg from the task-group lists (ours are not kept), and
 * cpu_cgroup_css_free() → sched_destroy_group() → (RCU) sched_unregister_group()
 * → the tree's unregister_fair_sched_group(): a delayed group entity is dequeued
 * (DEQUEUE_SLEEP | DEQUEUE_DELAYED) on every possible CPU, the leaf list let go.
 * The grace periods in between: one thread, nothing runs.  The slot is not reused. */
void kb_destroy_group(int g) {
  if (kb_crashed || g < 0 || g >= kb_nr_groups) return;
  unregister_fair_sched_group(&kb_groups[g]);
}

/* debug.c, 6.12: base_slice_ns is debugfs_create_u32() on sysctl_sched_base_slice,
 * a plain store (normalized_sysctl_sched_base_slice is not touched) */
void kb_write_base_slice_ns(unsigned long long ns) {
  if (kb_crashed) return;
  sysctl_sched_base_slice = (unsigned int)ns;
}

/* sched_move_task(), on the task's CPU */
void kb_move_task(int id, int group) {
  struct task_struct *p = kb_task(id);
  int flags = DEQUEUE_SAVE | DEQUEUE_MOVE | DEQUEUE_NOCLOCK;
  if (p->__state == KB_TASK_NEW) {  /* not yet on a queue: only its group changes */
    p->sched_task_group = group < 0 ? &root_task_group : &kb_groups[group];
    set_task_rq(p, (unsigned int)p->cpu);
    return;
  }
  struct rq *rq = kb_rq_of(p);
  struct kb_change c = kb_change_begin(p, flags);
  p->sched_task_group = group < 0 ? &root_task_group : &kb_groups[group];
  task_change_group_fair(p);
  kb_change_end(p, c, flags);
  if (c.running) resched_curr(rq);
#if EEVDF_KERNEL_VERSION_CODE >= EEVDF_KV(7, 0)
  /* 7.0's sched_move_task() asks the wake-up preemption for a task that is
   * queued but not running (6.18's does not) */
  else if (c.queued) wakeup_preempt(rq, p, 0);
#endif
}

/* ---- the state, for the C++ side ---- */
static int kb_entity_id(const struct sched_entity *se) {
  if (!se) return -1;
  const struct sched_entity *first = &kb_group_se[0][0];
  if (se >= first && se < first + (size_t)kb_nr_groups * KB_MAX_CPUS)
    return KB_MAX_TASKS + (int)((se - first) / KB_MAX_CPUS);
  const struct task_struct *p = container_of(se, struct task_struct, se);
  if (p >= kb_tasks && p < kb_tasks + kb_nr_tasks) return (int)(p - kb_tasks);
  return -2;
}

static int kb_node_id(const struct rb_node *n) {
  return n ? kb_entity_id(rb_entry(n, struct sched_entity, run_node)) : -1;
}

/* -1: a CPU's root queue; g: group g's queue (of whichever CPU) */
static int kb_queue_id(const struct cfs_rq *q) {
  if (!q) return -2;
  if (q == &q->rq->cfs) return -1;
  const struct cfs_rq *first = &kb_group_cfs_rq[0][0];
  if (q >= first && q < first + (size_t)kb_nr_groups * KB_MAX_CPUS) return (int)((q - first) / KB_MAX_CPUS);
  return -3;
}

/* ---- events of the tree's own functions (kb_api.h) ---- */
void kb_set_event_handler(kb_event_fn fn, void *ctx) {
  kb_event_cb = fn;
  kb_event_ctx = ctx;
}
/* e's kind and arguments set, the where filled in here */
static void kb_send(struct kb_event e, const struct cfs_rq *cfs_rq, const struct sched_entity *se) {
  e.cpu = kb_cpu_of(cfs_rq->rq);
  e.queue = kb_queue_id(cfs_rq);
  e.entity = kb_entity_id(se);
  if (kb_event_cb) kb_event_cb(kb_event_ctx, &e);
}
static void kb_emit(int kind, const struct cfs_rq *cfs_rq, const struct sched_entity *se, long long saved_lag) {
  struct kb_event e = {0};
  e.kind = kind;
  e.saved_lag = saved_lag;
  kb_send(e, cfs_rq, se);
}
static void kb_decision_pick(const struct cfs_rq *cfs_rq, const struct sched_entity *se, int protect) {
  if (kb_deciding) {
    kb_decision_picked = 1;
    kb_decision_protect = protect;
  }
  struct kb_event e = {0};
  e.kind = KB_EVENT_DECISION_PICK;
  e.protect = protect;
  e.via_pick_next = EEVDF_TREE_PICK_PROTECT;  /* 7.1: the decision's pick is pick_next_entity()'s */
  e.cpu = kb_cpu_of(cfs_rq->rq);
  e.queue = kb_queue_id(cfs_rq);
  e.entity = se ? kb_entity_id(se) : -1;
  if (kb_event_cb) kb_event_cb(kb_event_ctx, &e);
}
/* entry of a function that reads V (the model's on_read_avg(), I-FRESH) */
static void kb_read_avg(const struct cfs_rq *cfs_rq, int reader) {
  struct kb_event e = {0};
  e.kind = KB_EVENT_READ_AVG;
  e.reader = reader;
  e.cpu = kb_cpu_of(cfs_rq->rq);
  e.queue = kb_queue_id(cfs_rq);
  e.entity = -1;
  if (kb_event_cb) kb_event_cb(kb_event_ctx, &e);
}

/* update_curr(), interposed: a resched_curr() inside it (curr's request
 * renewed, or its protection over) is not the decision's own */
static void update_curr(struct cfs_rq *cfs_rq) {
  ++kb_in_update_curr;
  kb_tree_update_curr(cfs_rq);
  --kb_in_update_curr;
}
#if EEVDF_KERNEL_VERSION_CODE < EEVDF_KV(6, 18) && EEVDF_TREE_PREEMPT_SHORT
/* do_preempt_short(), interposed (6.12): its answer inside the decision, after
 * which the decision cancels curr's protection and asks pick_eevdf() */
static bool do_preempt_short(struct cfs_rq *cfs_rq, struct sched_entity *pse, struct sched_entity *se) {
  const bool answer = kb_tree_do_preempt_short(cfs_rq, pse, se);
  if (kb_deciding && !kb_in_update_curr) kb_decision_short = answer;
  return answer;
}
#endif
#if EEVDF_KERNEL_VERSION_CODE >= EEVDF_KV(7, 0)
/* preempt_sync(), interposed (7.0): PREEMPT_WAKEUP_RESCHED sends the decision
 * to its reschedule without a pick */
static enum preempt_wakeup_action preempt_sync(struct rq *rq, int wake_flags, struct sched_entity *pse,
                                               struct sched_entity *se) {
  const enum preempt_wakeup_action answer = kb_tree_preempt_sync(rq, wake_flags, pse, se);
  if (kb_deciding) kb_decision_sync = answer == PREEMPT_WAKEUP_RESCHED;
  return answer;
}
#endif

/* The fair class's wakeup_preempt hook (check_preempt_wakeup_fair(), 7.0's
 * wakeup_preempt_fair()), the tree's, and why it preempted: the model's
 * on_wakeup_preempt().  In all three trees the decision's reschedule is its
 * last statement (after cancel_protect_slice() where it cancels), so the state
 * at its return is the state at that call.  The reason is read from the
 * tree's calls in between, not recomputed: a pick asked (6.18 on: without
 * protection for a shorter wakee; 6.12: do_preempt_short() said so), 7.0's
 * preempt_sync() said RESCHED, or neither, which leaves the idle-curr rule
 * (a non-idle wakee against an idle curr where they meet), and I-WAKEPICK
 * checks that claim at that level itself.  The wakee's entity and the queue
 * are those the tree's find_matching_se() gives. */
static void kb_wakeup_preempt_fair(struct rq *rq, struct task_struct *p, int flags) {
  struct task_struct *outer = kb_deciding;
  kb_deciding = p;
  kb_decision_rescheds = kb_decision_picked = kb_decision_protect = kb_decision_short = kb_decision_sync = 0;
#if EEVDF_TREE_PICK_PROTECT
  /* the decision's pick_next_entity() dereferences a NULL pick (pick_eevdf() above) */
  jmp_buf outer_env;
  memcpy(outer_env, kb_pick_env, sizeof outer_env);
  if (setjmp(kb_pick_env)) {
    memcpy(kb_pick_env, outer_env, sizeof outer_env);
    kb_deciding = outer;
    return;
  }
#endif
  KB_WAKEUP_PREEMPT_FAIR(rq, p, flags);
#if EEVDF_TREE_PICK_PROTECT
  memcpy(kb_pick_env, outer_env, sizeof outer_env);
#endif
  kb_deciding = outer;
  if (!kb_decision_rescheds || kb_crashed) return;
  struct sched_entity *se = &rq->curr->se, *pse = &p->se;
#if EEVDF_TREE_CHECK_PREEMPT_CURR
  /* 6.6's check_preempt_wakeup() preempts an idle-policy curr for a wakee that
   * is not before it matches the entities (faa42d29419d, v6.11, moved that test
   * after find_matching_se()): told, as the model tells it, on the wakee's own
   * queue */
  const int before_matching = !kb_decision_picked && task_has_idle_policy(rq->curr) && !task_has_idle_policy(p);
  if (before_matching)
    se = pse;  /* the queue told is the wakee's */
  else
    find_matching_se(&se, &pse);
#else
  find_matching_se(&se, &pse);
#endif
  struct kb_event e = {0};
  e.kind = KB_EVENT_WAKEUP_PREEMPT;
  if (kb_decision_sync)
    e.reason = KB_PREEMPT_SYNC;
  else if (kb_decision_picked)
    e.reason = kb_decision_short || !kb_decision_protect ? KB_PREEMPT_SHORT_PICK : KB_PREEMPT_PICK;
  else
    e.reason = KB_PREEMPT_IDLE_CURR;
  kb_send(e, cfs_rq_of(se), pse);
}

/* place_entity() and enqueue_entity(), interposed (kernelsrc/extract.py renames
 * the tree's definitions to kb_tree_*): the tree's functions. place_entity()
 * uses the saved lag when PLACE_LAG is on and the queue holds other entities
 * (the tree's own condition, read at its entry; with se->vlag = 0 the
 * placement is V, the same statement); the event is sent when
 * enqueue_entity() returns, the entity then counted in V, as the model's
 * on_placed(). A placement outside an enqueue (7.0's reweight_entity()
 * re-places with place_entity()) sends none, as in the model. */
static void place_entity(struct cfs_rq *cfs_rq, struct sched_entity *se, int flags) {
  const int lag_placed = sched_feat(PLACE_LAG) && KB_NR_QUEUED(cfs_rq);
  const long long lag = se->vlag;
  kb_read_avg(cfs_rq, KB_READER_PLACE_ENTITY);
  if (!kb_reweighting) {
    struct kb_event e = {0};
    e.kind = KB_EVENT_PLACING;
    e.initial = (flags & ENQUEUE_INITIAL) != 0;
    kb_send(e, cfs_rq, se);
  }
  kb_tree_place_entity(cfs_rq, se, flags);
  if (se == kb_enqueuing) {
    kb_lag_placed = lag_placed;
    kb_placed_lag = lag;
  }
}
static void enqueue_entity(struct cfs_rq *cfs_rq, struct sched_entity *se, int flags) {
  struct sched_entity *outer = kb_enqueuing;
  kb_enqueuing = se;
  kb_lag_placed = 0;
  kb_tree_enqueue_entity(cfs_rq, se, flags);
  kb_enqueuing = outer;
  if (kb_lag_placed) kb_emit(KB_EVENT_PLACED, cfs_rq, se, kb_placed_lag);
  kb_lag_placed = 0;
}

/* set_next_entity(), interposed: the event once it returned (the model's
 * on_set_next() at the end of its set_next_entity()).  Before 7.0 the tree's
 * function has no `first`: a pick's call is one (pick_next_task_fair()), and
 * set_next_task_fair()'s passes on its own, which its wrapper notes. */
#if EEVDF_KERNEL_VERSION_CODE >= EEVDF_KV(7, 0)
static void set_next_entity(struct cfs_rq *cfs_rq, struct sched_entity *se, bool first) {
  kb_tree_set_next_entity(cfs_rq, se, first);
  struct kb_event e = {0};
  e.kind = KB_EVENT_SET_NEXT;
  e.first = first;
  kb_send(e, cfs_rq, se);
}
static void set_next_task_fair(struct rq *rq, struct task_struct *p, bool first) {
  kb_tree_set_next_task_fair(rq, p, first);
}
#else
static int kb_set_next_first = 1;
static void set_next_entity(struct cfs_rq *cfs_rq, struct sched_entity *se) {
  kb_tree_set_next_entity(cfs_rq, se);
  struct kb_event e = {0};
  e.kind = KB_EVENT_SET_NEXT;
  e.first = kb_set_next_first;
  kb_send(e, cfs_rq, se);
}
static void set_next_task_fair(struct rq *rq, struct task_struct *p, bool first) {
  const int outer = kb_set_next_first;
  kb_set_next_first = first;
  kb_tree_set_next_task_fair(rq, p, first);
  kb_set_next_first = outer;
}
#endif

/* dequeue_entity() and account_entity_dequeue(), interposed: a delay is told
 * once dequeue_entity() returned (nothing follows set_delayed() in it); a
 * deadline made relative (PLACE_REL_DEADLINE, not a sleep) at the
 * account_entity_dequeue() that follows it, before update_cfs_group() can
 * reweight the entity off its queue (the model's on_deadline_made_relative()
 * comes before that reweight's events too). */
static struct sched_entity *kb_dequeuing;
static int kb_dequeue_relative;
#if EEVDF_TREE_DELAY_DEQUEUE
static bool dequeue_entity(struct cfs_rq *cfs_rq, struct sched_entity *se, int flags) {
  struct sched_entity *outer = kb_dequeuing;
  const int outer_relative = kb_dequeue_relative;
  const int delayed = se->sched_delayed;
  kb_dequeuing = se;
  kb_dequeue_relative = se->rel_deadline;
  const bool done = kb_tree_dequeue_entity(cfs_rq, se, flags);
  kb_dequeuing = outer;
  kb_dequeue_relative = outer_relative;
  if (!delayed && se->sched_delayed) kb_emit(KB_EVENT_DELAYED, cfs_rq, se, 0);
  return done;
}
#else
/* 6.6: nothing is delayed and no deadline made relative (void dequeue_entity()) */
static void dequeue_entity(struct cfs_rq *cfs_rq, struct sched_entity *se, int flags) {
  kb_tree_dequeue_entity(cfs_rq, se, flags);
}
#endif
static void account_entity_dequeue(struct cfs_rq *cfs_rq, struct sched_entity *se) {
  if (se == kb_dequeuing && !kb_dequeue_relative && se->rel_deadline) {
    kb_dequeue_relative = 1;
    kb_emit(KB_EVENT_MADE_RELATIVE, cfs_rq, se, 0);
  }
  kb_tree_account_entity_dequeue(cfs_rq, se);
}

/* The weight the tree's avg_vruntime() sums give se on q. */
static __int128 kb_avg_weight(const struct cfs_rq *q, const struct sched_entity *se) {
#if EEVDF_TREE_SUM_SHIFT
  return avg_vruntime_weight((struct cfs_rq *)q, se->load.weight);
#else
  (void)q;
  return scale_load_down(se->load.weight);
#endif
}
/* Whether v is the floor of the weighted average of q's queued entities (the
 * tree's and an on_rq curr): Σ w·(v - v_i) in (-Σ w, 0]. Only a filter: the
 * event it lets through is judged again, by the checker, on the mirrored queue. */
static int kb_avg_is_floor(const struct cfs_rq *q, u64 v) {
  __int128 total = 0, weight = 0;
  const struct sched_entity *curr = q->curr && q->curr->on_rq ? q->curr : NULL;
  for (const struct rb_node *n = rb_first_cached(&q->tasks_timeline); n; n = rb_next(n)) {
    const struct sched_entity *se = rb_entry(n, struct sched_entity, run_node);
    if (se == curr) continue;
    const __int128 w = kb_avg_weight(q, se);
    total += w * (s64)(v - se->vruntime);
    weight += w;
  }
  if (curr) {
    const __int128 w = kb_avg_weight(q, curr);
    total += w * (s64)(v - curr->vruntime);
    weight += w;
  }
  return weight == 0 || (total <= 0 && total > -weight);
}

/* avg_vruntime(), interposed: a V the tree computes that is not the floor of
 * the queued entities' weighted average is sent (KB_EVENT_AVG) for I-LAG (the
 * model's on_avg_vruntime()), judged on the queue as the return leaves it. */
u64 avg_vruntime(struct cfs_rq *cfs_rq) {
  const u64 v = kb_tree_avg_vruntime(cfs_rq);
  if (!kb_avg_is_floor(cfs_rq, v)) {
    struct kb_event e = {0};
    e.kind = KB_EVENT_AVG;
    e.avg = v;
    kb_send(e, cfs_rq, NULL);
  }
  return v;
}

/* update_entity_lag(), interposed: the lag it saved and V - v before the
 * clamp (the model's on_lag_clamp()).  V is read after the tree's function
 * ran, which moved only se->vlag: on 6.12.y and 7.0 avg_vruntime() re-bases
 * the key base onto the average it returns (update_zero_vruntime()), so
 * zero_vruntime is V and asking again could move it; 6.18's only reads. */
#if EEVDF_TREE_LAG_RETURNS_BOOL
static bool update_entity_lag(struct cfs_rq *cfs_rq, struct sched_entity *se) {
  kb_read_avg(cfs_rq, KB_READER_UPDATE_ENTITY_LAG);
  const bool clipped = kb_tree_update_entity_lag(cfs_rq, se);
#else
static void update_entity_lag(struct cfs_rq *cfs_rq, struct sched_entity *se) {
  kb_read_avg(cfs_rq, KB_READER_UPDATE_ENTITY_LAG);
  kb_tree_update_entity_lag(cfs_rq, se);
#endif
#if (EEVDF_KERNEL_VERSION_CODE >= EEVDF_KV(6, 18) && EEVDF_KERNEL_VERSION_CODE < EEVDF_KV(7, 0)) || \
    EEVDF_TREE_MIN_DEADLINE
  const u64 v = avg_vruntime(cfs_rq);  /* 6.18 and 6.6: avg_vruntime() only reads */
#else
  const u64 v = KB_KEY_BASE(cfs_rq);
#endif
  struct kb_event e = {0};
  e.kind = KB_EVENT_LAG;
  e.lag_raw = (long long)(v - se->vruntime);
  e.lag_saved = se->vlag;
  kb_send(e, cfs_rq, se);
#if EEVDF_TREE_LAG_RETURNS_BOOL
  return clipped;
#endif
}

/* reweight_entity(), interposed: the tree's function begins, for a queued
 * entity, with the queue's update_curr(); the wrapper runs it first (a second
 * update_curr() at the same clock returns at once: no time passed) so that
 * the begin event sees the state the model's on_reweight_begin() sees.  From
 * 6.14 on (6d71a9c61604) an entity off its queue with a relative deadline has
 * it rescaled by old/new weight (6.12's reweight_entity() rescales vlag only). */
static void reweight_entity(struct cfs_rq *cfs_rq, struct sched_entity *se, unsigned long weight) {
#if EEVDF_TREE_REWEIGHT_UPDATES_CURR_ONLY
  if (se->on_rq && cfs_rq->curr == se) update_curr(cfs_rq);  /* 6.6: only for curr, as the tree */
#else
  if (se->on_rq) update_curr(cfs_rq);
#endif
  struct kb_event e = {0};
  e.kind = KB_EVENT_REWEIGHT_BEGIN;
  e.weight = weight;
  e.old_weight = se->load.weight;
  e.old_relative = se->deadline;
  const int relative_off_queue = !se->on_rq && se->rel_deadline;
  kb_send(e, cfs_rq, se);
  ++kb_reweighting;
  kb_tree_reweight_entity(cfs_rq, se, weight);
  --kb_reweighting;
#if EEVDF_KERNEL_VERSION_CODE >= EEVDF_KV(6, 14)
  if (relative_off_queue) {
    e.kind = KB_EVENT_RELATIVE_RESCALED;
    kb_send(e, cfs_rq, se);
  }
#else
  (void)relative_off_queue;
#endif
  e.kind = KB_EVENT_REWEIGHT_END;
  kb_send(e, cfs_rq, se);
}

#if EEVDF_SHIM_SMP
static void kb_export_avg(const struct sched_avg *sa, struct kb_avg *o) {
  o->last_update_time = sa->last_update_time;
  o->load_sum = sa->load_sum;
  o->runnable_sum = sa->runnable_sum;
  o->load_avg = sa->load_avg;
  o->runnable_avg = sa->runnable_avg;
  o->util_avg = sa->util_avg;
  o->util_sum = sa->util_sum;
  o->period_contrib = sa->period_contrib;
}
#endif

static void kb_export_entity(const struct sched_entity *se, struct kb_entity *e) {
  e->weight = se->load.weight;
  e->inv_weight = se->load.inv_weight;
  e->deadline = se->deadline;
  e->min_vruntime = se->min_vruntime;
  e->min_slice = se->min_slice;
#if EEVDF_TREE_MIN_DEADLINE
  e->min_deadline = se->min_deadline;
#else
  e->min_deadline = 0;
#endif
  e->on_rq = se->on_rq;
  e->sched_delayed = se->sched_delayed;
  e->rel_deadline = se->rel_deadline;
  e->custom_slice = se->custom_slice;
  e->exec_start = se->exec_start;
  e->sum_exec_runtime = se->sum_exec_runtime;
  e->prev_sum_exec_runtime = se->prev_sum_exec_runtime;
  e->vruntime = se->vruntime;
  e->vlag = se->vlag;
#if EEVDF_KERNEL_VERSION_CODE >= EEVDF_KV(7, 0)
  e->vprot = se->vprot;
  e->max_slice = se->max_slice;
#elif EEVDF_KERNEL_VERSION_CODE >= EEVDF_KV(6, 18)
  e->vprot = se->vprot;  /* 6.18's union: vlag's bits */
  e->max_slice = 0;
#else
  e->vprot = 0;  /* 6.12 has no vprot: its RUN_TO_PARITY stash is vlag itself */
  e->max_slice = 0;
#endif
  e->slice = se->slice;
  e->depth = se->depth;
  e->queue = kb_queue_id(se->cfs_rq);
  e->rb_parent = kb_node_id(rb_parent(&se->run_node));
  e->rb_left = kb_node_id(se->run_node.rb_left);
  e->rb_right = kb_node_id(se->run_node.rb_right);
  e->rb_red = !rb_is_black(&se->run_node);
#if EEVDF_SHIM_SMP
  kb_export_avg(&se->avg, &e->avg);
  e->runnable_weight = se->runnable_weight;
#else
  memset(&e->avg, 0, sizeof e->avg);
  e->runnable_weight = 0;
#endif
}

static void kb_export_queue(const struct cfs_rq *q, struct kb_queue *o) {
  o->weight = q->load.weight;
  o->inv_weight = q->load.inv_weight;
  o->nr_running = KB_NR_QUEUED(q);
  o->h_nr_queued = KB_H_NR_QUEUED(q);
  o->h_nr_runnable = KB_H_NR_RUNNABLE(q);
  o->idle_h_nr_running = KB_H_NR_IDLE(q);
#if EEVDF_KERNEL_VERSION_CODE < EEVDF_KV(6, 18)
  o->idle_nr_running = q->idle_nr_running;  /* gone in 6.18 (not compared) */
  o->h_nr_delayed = q->h_nr_delayed;
#endif
  o->avg_vruntime = KB_SUM_W_VRUNTIME(q);
  o->avg_load = KB_SUM_WEIGHT(q);
  o->zero_vruntime = KB_KEY_BASE(q);  /* the model's CfsRq::zero_vruntime holds either key base */
  o->root = kb_node_id(q->tasks_timeline.rb_root.rb_node);
  o->leftmost = kb_node_id(q->tasks_timeline.rb_leftmost);
  o->curr = kb_entity_id(q->curr);
  o->next = kb_entity_id(q->next);
  o->idle = q->idle;
#if EEVDF_SHIM_SMP
  kb_export_avg(&q->avg, &o->avg);
  o->removed_nr = (unsigned int)q->removed.nr;
  o->removed_load_avg = q->removed.load_avg;
  o->removed_util_avg = q->removed.util_avg;
  o->removed_runnable_avg = q->removed.runnable_avg;
  o->h_load = q->h_load;
  o->last_h_load_update = q->last_h_load_update;
  o->tg_load_avg_contrib = q->tg_load_avg_contrib;
  o->last_update_tg_load_avg = q->last_update_tg_load_avg;
  o->prop_runnable_sum = q->prop_runnable_sum;
  o->propagate = (int)q->propagate;
#else
  o->tg_load_avg_contrib = o->last_update_tg_load_avg = 0;
  o->prop_runnable_sum = 0;
  o->propagate = 0;
  memset(&o->avg, 0, sizeof o->avg);
  o->removed_nr = 0;
  o->removed_load_avg = o->removed_util_avg = o->removed_runnable_avg = o->h_load = o->last_h_load_update = 0;
#endif
}

#if EEVDF_SHIM_SMP
/* record_wakee()'s memory of a task (or an idle task) as a waker */
static void kb_export_wakee(const struct task_struct *p, struct kb_wakee *w) {
  w->last = p->last_wakee ? (int)(p->last_wakee - kb_tasks) : -1;
  w->flips = p->wakee_flips;
  w->decay_ts = p->wakee_flip_decay_ts;
}
#endif

void kb_export(struct kb_state *s) {
  s->nr_tasks = kb_nr_tasks;
  s->nr_groups = kb_nr_groups;
  s->nr_cpus = (int)kb_nr_cpus;
  s->base_slice = sysctl_sched_base_slice;
  for (int i = 0; i < kb_nr_tasks; i++) {
    kb_export_entity(&kb_tasks[i].se, &s->task_se[i]);
    s->task_on_rq[i] = kb_tasks[i].on_rq;
    s->task_state[i] = (int)kb_tasks[i].__state;
    s->task_group[i] = kb_tasks[i].sched_task_group == &root_task_group
                           ? -1 : (int)(kb_tasks[i].sched_task_group - kb_groups);
    s->task_cpu[i] = kb_tasks[i].cpu;
#if EEVDF_SHIM_SMP
    kb_export_wakee(&kb_tasks[i], &s->task_wakee[i]);
    s->task_recent_used_cpu[i] = kb_tasks[i].recent_used_cpu;
#else
    s->task_wakee[i].last = -1;
    s->task_wakee[i].flips = 0;
    s->task_wakee[i].decay_ts = 0;
    s->task_recent_used_cpu[i] = -1;
#endif
  }
  for (int g = 0; g < kb_nr_groups; g++) {
    s->group_shares[g] = kb_groups[g].shares;
    s->group_idle[g] = kb_groups[g].idle;
#if EEVDF_SHIM_SMP
    s->group_load_avg[g] = atomic_long_read(&kb_groups[g].load_avg);
#else
    s->group_load_avg[g] = 0;
#endif
  }
#if EEVDF_SHIM_SMP
  s->has_idle_cores = kb_sd_shared.has_idle_cores;
  s->pelt = 1;
#else
  s->has_idle_cores = 0;
  s->pelt = 0;
#endif
  for (unsigned int c = 0; c < kb_nr_cpus; c++) {
    struct rq *rq = &kb_rqs[c];
    const struct kb_cpu *cpu = &kb_cpus[c];
    struct kb_cpu_state *o = &s->cpu[c];
    const struct task_struct *idle = &kb_idle_tasks[c];
    o->clock_task = rq->clock_task;
    o->charged_ticks = cpu->charged_ticks;
    o->last_tick = cpu->last_tick;
    o->longest_tick_gap = cpu->longest_tick_gap;
    o->curr = rq->curr == idle || kb_is_rt(rq->curr) ? -1 : kb_entity_id(&rq->curr->se);
    o->rt_curr = kb_is_rt(rq->curr) ? kb_entity_id(&rq->curr->se) : -1;
    o->rt_nr_running = cpu->rt_nr;
    for (int i = 0; i < cpu->rt_nr; i++) o->rt_queue[i] = cpu->rt_queue[i];
    o->resched_calls = cpu->resched_calls;
    o->fair_tick_rescheds = cpu->fair_tick_rescheds;
    o->need_resched = kb_need_resched(rq);
    o->nr_running = rq->nr_running;
    o->sched_idle_rq = sched_idle_rq(rq);
    /* wake_affine_idle() only reads: asked as a wake-up by this CPU's running task of a
     * task last on this CPU, it answers the CPU exactly when its WF_SYNC clause holds */
#if EEVDF_SHIM_SMP
    o->sync_affine = rq->curr == idle ? -1 : wake_affine_idle((int)c, (int)c, 1) == (int)c;
    kb_export_wakee(idle, &o->idle_wakee);
#else
    o->sync_affine = -1;
    o->idle_wakee.last = -1;
    o->idle_wakee.flips = 0;
    o->idle_wakee.decay_ts = 0;
#endif
    kb_export_queue(&rq->cfs, &o->root);
    for (int g = 0; g < kb_nr_groups; g++) {
      kb_export_entity(&kb_group_se[g][c], &o->group_se[g]);
      kb_export_queue(&kb_group_cfs_rq[g][c], &o->group_q[g]);
    }
  }
}

static struct cfs_rq *kb_queue(int cpu, int queue) {
  return queue < 0 ? &kb_rqs[cpu].cfs : &kb_group_cfs_rq[queue][cpu];
}

/* avg_vruntime() of a queue, as the kernel computes it (6.12.118: it also re-bases zero_vruntime) */
unsigned long long kb_avg_vruntime(int cpu, int queue) {
  kb_rq_at(cpu);
  return avg_vruntime(kb_queue(cpu, queue));
}

/* ---- the sched debugfs reader: debug.c print_cfs_rq() ---- */
/* a racing reader loses updates only if the tree's avg_vruntime() stores
 * (6.12.118: it re-bases zero_vruntime; 6.18: it only reads) */
int kb_debug_reader_unlocked(void) { return EEVDF_DEBUG_READ_UNLOCKED && EEVDF_AVG_VRUNTIME_STORES; }

/* the reader alone: its avg_vruntime() call, whatever it writes */
void kb_debug_read(int cpu, int queue) {
  if (!kb_crashed) (void)kb_avg_vruntime(cpu, queue);
}

/* the reader's loads and arithmetic: the tree's avg_vruntime() on the queue,
 * its two results handed back, the queue restored (the stores come later) */
void kb_debug_read_load(int cpu, int queue, long long *avg, unsigned long long *zero) {
  struct cfs_rq *q = kb_queue(cpu, queue);
  struct cfs_rq saved = *q;
  kb_rq_at(cpu);
  (void)avg_vruntime(q);
  *avg = KB_SUM_W_VRUNTIME(q);
  *zero = KB_KEY_BASE(q);
  *q = saved;
}

/* the reader's stores, after the operation it raced: whatever that operation
 * wrote to the two fields is lost */
void kb_debug_read_store(int cpu, int queue, long long avg, unsigned long long zero) {
  struct cfs_rq *q = kb_queue(cpu, queue);
  if (kb_crashed) return;
  KB_SUM_W_VRUNTIME(q) = avg;
  KB_KEY_BASE(q) = zero;
}

/* the tree's features.h, as names and defaults */
#define SCHED_FEAT(name, enabled) #name,
const char *const kb_feature_names[] = {
#include "sched_features.h"
  0,
};
#undef SCHED_FEAT
#define SCHED_FEAT(name, enabled) enabled,
const int kb_feature_defaults[] = {
#include "sched_features.h"
  0,
};
#undef SCHED_FEAT

const char *kb_kernel_version(void) { return EEVDF_KERNEL_VERSION; }
