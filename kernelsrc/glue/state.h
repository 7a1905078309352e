/* The glue's shared state: what core.c's per-CPU runqueues, idle tasks and
 * task-group allocations hold (static arrays here, sized by kb_api.h), the
 * glue's own bookkeeping (the counts the checker reads, the event handler,
 * the flags the interposed functions share), the small lookups every part
 * uses (cpu_rq(), task_rq(), the running CPU), and the declarations of the
 * event senders defined in events.c.  Definitions, not only declarations:
 * the glue is one translation unit (kernelsrc/glue.c). */

#include <setjmp.h>

#include "kb_api.h"

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
  unsigned long long throttles, unthrottles;  /* Rq::throttles, Rq::unthrottles (I-MONO, I-PROT rule 5) */
  int rt_queue[KB_MAX_TASKS];
  int rt_nr;
};
static struct kb_cpu kb_cpus[KB_MAX_CPUS];
/* smp_processor_id(): the CPU whose code the glue runs now */
static int kb_this_cpu;

/* The hand-back's marks (kb_export()): the entities the tree's functions and
 * the glue wrote since the last export, so that an export reads those and
 * not every entity.  KB_MARK_FULL: the entity's fields may have changed (the
 * interposed functions' own entity, update_curr()'s curr, the entry point's
 * task and every CPU's curr it ran on, and their parents); KB_MARK_TREE: only
 * its place in a queue's tree may have (the node's links and colour and the
 * augmented minima: the nodes an insertion or erasure rebalances,
 * __enqueue_entity() and __dequeue_entity() in events.c).  Marks last until
 * the entry point ends (kb_export(KB_EXPORT_END_OP)): an export at an event
 * inside it exports every entity marked so far, again. */
#define KB_MARK_TREE 1
#define KB_MARK_FULL 2
static unsigned char kb_task_mark[KB_MAX_TASKS];
static unsigned char kb_group_mark[KB_MAX_GROUPS][KB_MAX_CPUS];
static int kb_marked_tasks[KB_MAX_TASKS], kb_nr_marked_tasks;
static int kb_marked_groups[KB_MAX_GROUPS * KB_MAX_CPUS], kb_nr_marked_groups;  /* g * KB_MAX_CPUS + cpu */
static int kb_op_tasks[KB_MAX_TASKS], kb_nr_op_tasks;  /* the entry point's tasks, and its CPUs' currs */
static unsigned char kb_op_task_mark[KB_MAX_TASKS];
static unsigned int kb_op_cpus;                        /* bit c: the entry point ran CPU c's code */

/* What the last export read of every entity, byte for byte (kb_export()
 * compares an entity with it, and the tree's marks below a node's place). */
static struct sched_entity kb_last_task_se[KB_MAX_TASKS];
static struct sched_entity kb_last_group_se[KB_MAX_GROUPS][KB_MAX_CPUS];

/* what a tree's rebalancing writes of a node: its links and colour, and the augmented minima */
static int kb_same_tree_place(const struct sched_entity *a, const struct sched_entity *b) {
  return a->run_node.__rb_parent_color == b->run_node.__rb_parent_color && a->run_node.rb_left == b->run_node.rb_left &&
         a->run_node.rb_right == b->run_node.rb_right && a->min_vruntime == b->min_vruntime &&
#if EEVDF_TREE_MIN_DEADLINE
         a->min_deadline == b->min_deadline &&
#endif
#if KB_HAS_MAX_SLICE
         a->max_slice == b->max_slice &&
#endif
         a->min_slice == b->min_slice;
}

static void kb_mark_task_id(int id, unsigned char level) {
  if (kb_task_mark[id] == 0) kb_marked_tasks[kb_nr_marked_tasks++] = id;
  if (kb_task_mark[id] < level) kb_task_mark[id] = level;
}
/* se, a task's or a group's entity (the idle tasks' are not exported) */
static void kb_mark_se(const struct sched_entity *se, unsigned char level) {
  const struct sched_entity *first = &kb_group_se[0][0];
  if (se >= first && se < first + (size_t)KB_MAX_GROUPS * KB_MAX_CPUS) {
    const int at = (int)(se - first);
    unsigned char *m = &kb_group_mark[at / KB_MAX_CPUS][at % KB_MAX_CPUS];
    if (*m == 0) kb_marked_groups[kb_nr_marked_groups++] = at;
    if (*m < level) *m = level;
    return;
  }
  const struct task_struct *p = container_of(se, struct task_struct, se);
  if (p >= kb_tasks && p < kb_tasks + KB_MAX_TASKS) kb_mark_task_id((int)(p - kb_tasks), level);
}
/* a tree's node whose place in it (links, colour, augmented minima) is no
 * longer the last export's: marked KB_MARK_TREE (the rebalancing of an
 * insertion or erasure reaches many nodes and changes few) */
static void kb_mark_tree_node(const struct sched_entity *se) {
  const struct sched_entity *first = &kb_group_se[0][0];
  if (se >= first && se < first + (size_t)KB_MAX_GROUPS * KB_MAX_CPUS) {
    const int at = (int)(se - first);
    if (kb_group_mark[at / KB_MAX_CPUS][at % KB_MAX_CPUS] ||
        kb_same_tree_place(se, &kb_last_group_se[at / KB_MAX_CPUS][at % KB_MAX_CPUS]))
      return;
    kb_mark_se(se, KB_MARK_TREE);
    return;
  }
  const struct task_struct *p = container_of(se, struct task_struct, se);
  if (p < kb_tasks || p >= kb_tasks + KB_MAX_TASKS) return;
  const int id = (int)(p - kb_tasks);
  if (!kb_task_mark[id] && !kb_same_tree_place(se, &kb_last_task_se[id])) kb_mark_task_id(id, KB_MARK_TREE);
}
/* se and the group entities above it (a task's enqueue and dequeue update
 * every level's averages and weights: enqueue_task_fair()'s loops) */
static void kb_mark_se_up(const struct sched_entity *se) {
  for (; se; se = se->parent) kb_mark_se(se, KB_MARK_FULL);
}
static void kb_mark_op_task(const struct task_struct *p) {
  if (p < kb_tasks || p >= kb_tasks + KB_MAX_TASKS) return;  /* an idle task */
  const int id = (int)(p - kb_tasks);
  if (!kb_op_task_mark[id]) {
    kb_op_task_mark[id] = 1;
    kb_op_tasks[kb_nr_op_tasks++] = id;
  }
}
/* the entry point runs CPU cpu's code: its curr (the waker of a wake-up, the
 * task a tick charges, the prev of a schedule) is the entry point's too */
static void kb_touch_cpu(int cpu) {
  kb_op_cpus |= 1u << cpu;
  if (kb_rqs[cpu].curr) kb_mark_op_task(kb_rqs[cpu].curr);
}

static int kb_cpu_of(const struct rq *rq) { return (int)(rq - kb_rqs); }
static struct rq *kb_rq_at(int cpu) {
  kb_this_cpu = cpu;
  kb_touch_cpu(cpu);
  return &kb_rqs[cpu];
}
static struct task_struct *kb_idle_of(const struct rq *rq) { return &kb_idle_tasks[kb_cpu_of(rq)]; }

/* the task an entry point names (it is the entry point's: marked until the entry point ends) */
static struct task_struct *kb_task(int id) {
  if (id < 0 || id >= kb_nr_tasks) return 0;
  kb_mark_op_task(&kb_tasks[id]);
  return &kb_tasks[id];
}
/* task_rq(p), and the CPU's code runs from now on */
static struct rq *kb_rq_of(const struct task_struct *p) { return kb_rq_at(p->cpu); }
static int kb_is_curr(struct task_struct *p) { return kb_rqs[p->cpu].curr == p; }

/* the event senders (events.c), which the pick and the weight change call too */
static void kb_emit(int kind, const struct cfs_rq *cfs_rq, const struct sched_entity *se, long long saved_lag);
static void kb_send(struct kb_event e, const struct cfs_rq *cfs_rq, const struct sched_entity *se);
static void kb_read_avg(const struct cfs_rq *cfs_rq, int reader);
static void kb_decision_pick(const struct cfs_rq *cfs_rq, const struct sched_entity *se, int protect);
