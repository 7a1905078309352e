/* The state for the C++ side: every task's entity (those that changed since
 * the last export), every queue, each CPU's runqueue and counts, copied into
 * kb_api.h's plain structs; avg_vruntime()
 * of a queue on request; the tree's features.h names and defaults, and its
 * version. */

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
#if KB_HAS_MAX_SLICE
  e->vprot = se->vprot;
  e->max_slice = se->max_slice;
#elif KB_HAS_VPROT
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
#if KB_HAS_IDLE_NR_RUNNING
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

/* What the last export read of every entity, byte for byte (kb_export()
 * without full re-exports an entity only when its struct sched_entity differs),
 * and how many tasks and groups it exported. */
static struct sched_entity kb_last_task_se[KB_MAX_TASKS];
static struct sched_entity kb_last_group_se[KB_MAX_GROUPS][KB_MAX_CPUS];
static int kb_exported_tasks, kb_exported_groups;

/* Whole words of a sched_entity (it has u64 fields: its size is a multiple of
 * their alignment), compared without a branch per word (and without memcmp,
 * which the libFuzzer runtime intercepts and records). */
typedef unsigned long long __attribute__((may_alias)) kb_word;

static int kb_same_entity(const struct sched_entity *a, const struct sched_entity *b) {
  enum { words = sizeof *a / sizeof(kb_word) };
  const kb_word *x = (const kb_word *)a, *y = (const kb_word *)b;
  kb_word d0 = 0, d1 = 0, d2 = 0, d3 = 0;  /* four at a time: independent chains */
  unsigned long i = 0;
  for (; i + 4 <= words; i += 4) {
    d0 |= x[i] ^ y[i];
    d1 |= x[i + 1] ^ y[i + 1];
    d2 |= x[i + 2] ^ y[i + 2];
    d3 |= x[i + 3] ^ y[i + 3];
  }
  for (; i < words; i++) d0 |= x[i] ^ y[i];
  return (d0 | d1 | d2 | d3) == 0;
}

/* Exports se into e unless the last export read the same bytes (fresh: it never read this entity). */
static unsigned char kb_export_changed(const struct sched_entity *se, struct sched_entity *last,
                                       struct kb_entity *e, int fresh) {
  if (!fresh && kb_same_entity(se, last)) return 0;
  memcpy(last, se, sizeof *se);
  kb_export_entity(se, e);
  return 1;
}

void kb_export(struct kb_state *s, int full) {
  const int fresh_tasks = full ? 0 : kb_exported_tasks, fresh_groups = full ? 0 : kb_exported_groups;
  s->nr_tasks = kb_nr_tasks;
  s->nr_groups = kb_nr_groups;
  s->nr_cpus = (int)kb_nr_cpus;
  s->base_slice = sysctl_sched_base_slice;
  for (int i = 0; i < kb_nr_tasks; i++) {
    s->task_se_changed[i] = kb_export_changed(&kb_tasks[i].se, &kb_last_task_se[i], &s->task_se[i], i >= fresh_tasks);
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
      o->group_se_changed[g] =
          kb_export_changed(&kb_group_se[g][c], &kb_last_group_se[g][c], &o->group_se[g], g >= fresh_groups);
      kb_export_queue(&kb_group_cfs_rq[g][c], &o->group_q[g]);
    }
  }
  kb_exported_tasks = kb_nr_tasks;
  kb_exported_groups = kb_nr_groups;
}

static struct cfs_rq *kb_queue(int cpu, int queue) {
  return queue < 0 ? &kb_rqs[cpu].cfs : &kb_group_cfs_rq[queue][cpu];
}

/* avg_vruntime() of a queue, as the kernel computes it (6.12.118: it also re-bases zero_vruntime) */
unsigned long long kb_avg_vruntime(int cpu, int queue) {
  kb_rq_at(cpu);
  return avg_vruntime(kb_queue(cpu, queue));
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
const char *kb_kernel_changes(void) { return EEVDF_KERNEL_CHANGES; }
