/* The state for the C++ side: the tasks' entities and fields (every one, or
 * those marked since the last export: glue/state.h), every queue, each CPU's
 * runqueue and counts, copied into kb_api.h's plain structs; avg_vruntime()
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
#if EEVDF_TREE_BANDWIDTH
  o->runtime_enabled = q->runtime_enabled;
  o->runtime_remaining = q->runtime_remaining;
  o->throttled = q->throttled;
  o->throttle_count = q->throttle_count;
  o->throttled_clock = q->throttled_clock;
  o->throttled_clock_pelt = q->throttled_clock_pelt;
  o->throttled_clock_pelt_time = q->throttled_clock_pelt_time;
  o->throttled_clock_self = q->throttled_clock_self;
  o->throttled_clock_self_time = q->throttled_clock_self_time;
  o->csd_queued = !list_empty(&q->throttled_csd_list);
#else
  o->runtime_enabled = o->throttled = o->throttle_count = o->csd_queued = 0;
  o->runtime_remaining = 0;
  o->throttled_clock = o->throttled_clock_pelt = o->throttled_clock_pelt_time = 0;
  o->throttled_clock_self = o->throttled_clock_self_time = 0;
#endif
}

/* a group's bandwidth state, every export (it is small) */
static void kb_export_bandwidth(int g, struct kb_bandwidth *o) {
  memset(o, 0, sizeof *o);
#if EEVDF_TREE_BANDWIDTH
  const struct cfs_bandwidth *b = &kb_groups[g].cfs_bandwidth;
  const struct hrtimer *timers[2] = {&b->period_timer, &b->slack_timer};
  struct kb_hrtimer *out[2] = {&o->period_timer, &o->slack_timer};
  o->period = (unsigned long long)b->period;
  o->quota = b->quota;
  o->runtime = b->runtime;
  o->burst = b->burst;
  o->runtime_snap = b->runtime_snap;
  o->hierarchical_quota = b->hierarchical_quota;
  o->idle = b->idle;
  o->period_active = b->period_active;
  o->slack_started = b->slack_started;
  for (int k = 0; k < 2; k++) {
    out[k]->expires = (unsigned long long)timers[k]->expires;
    out[k]->queued = timers[k]->queued;
    out[k]->cpu = timers[k]->cpu;
  }
  const struct cfs_rq *cfs_rq;
  list_for_each_entry_rcu(cfs_rq, &b->throttled_cfs_rq, throttled_list) {
    if (o->nr_throttled_cfs_rq < KB_MAX_CPUS) o->throttled_cfs_rq[o->nr_throttled_cfs_rq++] = kb_cpu_of(cfs_rq->rq);
  }
  o->nr_periods = b->nr_periods;
  o->nr_throttled = b->nr_throttled;
  o->nr_burst = b->nr_burst;
  o->throttled_time = b->throttled_time;
  o->burst_time = b->burst_time;
#else
  (void)g;
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

/* how many tasks and groups the last export exported (kb_last_*: glue/state.h) */
static int kb_exported_tasks, kb_exported_groups;

/* Whole words of a sched_entity (it has u64 fields: its size is a multiple of
 * their alignment), compared without a branch per word (and without memcmp,
 * which the libFuzzer runtime intercepts and records).  All but group_node,
 * the rq->cfs_tasks list's links, which no export reads: a neighbour's
 * insertion into that list or removal from it changes them. */
typedef unsigned long long __attribute__((may_alias)) kb_word;
enum {
  kb_se_words = sizeof(struct sched_entity) / sizeof(kb_word),
  kb_list_word = __builtin_offsetof(struct sched_entity, group_node) / sizeof(kb_word),
  kb_list_words = sizeof(struct list_head) / sizeof(kb_word),
};

/* the OR of x[i] ^ y[i] over [from, to) */
static kb_word kb_words_differ(const kb_word *x, const kb_word *y, unsigned long from, unsigned long to) {
  kb_word d0 = 0, d1 = 0, d2 = 0, d3 = 0;  /* four at a time: independent chains */
  unsigned long i = from;
  for (; i + 4 <= to; i += 4) {
    d0 |= x[i] ^ y[i];
    d1 |= x[i + 1] ^ y[i + 1];
    d2 |= x[i + 2] ^ y[i + 2];
    d3 |= x[i + 3] ^ y[i + 3];
  }
  for (; i < to; i++) d0 |= x[i] ^ y[i];
  return d0 | d1 | d2 | d3;
}
static int kb_same_entity(const struct sched_entity *a, const struct sched_entity *b) {
  const kb_word *x = (const kb_word *)a, *y = (const kb_word *)b;
  return (kb_words_differ(x, y, 0, kb_list_word) | kb_words_differ(x, y, kb_list_word + kb_list_words, kb_se_words)) == 0;
}

/* the offset of the first word of a sched_entity that differs */
static int kb_first_difference(const struct sched_entity *a, const struct sched_entity *b) {
  const kb_word *x = (const kb_word *)a, *y = (const kb_word *)b;
  for (unsigned long i = 0; i < kb_se_words; i++)
    if (x[i] != y[i] && (i < kb_list_word || i >= kb_list_word + kb_list_words)) return (int)(i * sizeof(kb_word));
  return -1;
}

static void kb_export_one(const struct sched_entity *se, struct sched_entity *last, struct kb_entity *e) {
  memcpy(last, se, sizeof *se);
  kb_export_entity(se, e);
}

/* Exports se into e unless the last export read the same bytes (fresh: it never read this entity). */
static unsigned char kb_export_changed(const struct sched_entity *se, struct sched_entity *last,
                                       struct kb_entity *e, int fresh) {
  if (!fresh && kb_same_entity(se, last)) return 0;
  kb_export_one(se, last, e);
  return 1;
}

/* a node's place in its tree, into the last export's copy and into e */
static void kb_export_tree_place(const struct sched_entity *se, struct sched_entity *last, struct kb_entity *e) {
  last->run_node = se->run_node;
  last->min_vruntime = se->min_vruntime;
  last->min_slice = se->min_slice;
  e->min_vruntime = se->min_vruntime;
  e->min_slice = se->min_slice;
#if EEVDF_TREE_MIN_DEADLINE
  last->min_deadline = se->min_deadline;
  e->min_deadline = se->min_deadline;
#endif
#if KB_HAS_MAX_SLICE
  last->max_slice = se->max_slice;
  e->max_slice = se->max_slice;
#endif
  e->rb_parent = kb_node_id(rb_parent(&se->run_node));
  e->rb_left = kb_node_id(se->run_node.rb_left);
  e->rb_right = kb_node_id(se->run_node.rb_right);
  e->rb_red = !rb_is_black(&se->run_node);
}

/* a marked entity: exported whole when marked KB_MARK_FULL (or never
 * exported): 1; its place in the tree only when marked KB_MARK_TREE and that
 * moved: 2 (the rest of last stays the last export's, for KB_EXPORT_CHECK) */
static unsigned char kb_export_marked(const struct sched_entity *se, struct sched_entity *last,
                                      struct kb_entity *e, unsigned char mark, int fresh) {
  if (mark == KB_MARK_FULL || fresh) {
    kb_export_one(se, last, e);
    return 1;
  }
  if (!kb_same_tree_place(se, last)) {
    kb_export_tree_place(se, last, e);
    return 2;
  }
  return 0;
}

/* a task's fields other than its entity's */
struct kb_task_fields {
  int on_rq, state, group, cpu, recent_used_cpu;
  struct kb_wakee wakee;
};
static void kb_read_task_fields(int i, struct kb_task_fields *f) {
  f->on_rq = kb_tasks[i].on_rq;
  f->state = (int)kb_tasks[i].__state;
  f->group = kb_tasks[i].sched_task_group == &root_task_group ? -1 : (int)(kb_tasks[i].sched_task_group - kb_groups);
  f->cpu = kb_tasks[i].cpu;
#if EEVDF_SHIM_SMP
  kb_export_wakee(&kb_tasks[i], &f->wakee);
  f->recent_used_cpu = kb_tasks[i].recent_used_cpu;
#else
  f->wakee.last = -1;
  f->wakee.flips = 0;
  f->wakee.decay_ts = 0;
  f->recent_used_cpu = -1;
#endif
}
static void kb_export_task_fields(struct kb_state *s, int i) {
  struct kb_task_fields f;
  kb_read_task_fields(i, &f);
  s->task_on_rq[i] = f.on_rq;
  s->task_state[i] = f.state;
  s->task_group[i] = f.group;
  s->task_cpu[i] = f.cpu;
  s->task_wakee[i] = f.wakee;
  s->task_recent_used_cpu[i] = f.recent_used_cpu;
}
static int kb_same_task_fields(const struct kb_state *s, int i) {
  struct kb_task_fields f;
  kb_read_task_fields(i, &f);
  return s->task_on_rq[i] == f.on_rq && s->task_state[i] == f.state && s->task_group[i] == f.group &&
         s->task_cpu[i] == f.cpu && s->task_wakee[i].last == f.wakee.last && s->task_wakee[i].flips == f.wakee.flips &&
         s->task_wakee[i].decay_ts == f.wakee.decay_ts && s->task_recent_used_cpu[i] == f.recent_used_cpu;
}

/* The entry point's tasks and its CPUs' currs (now: a schedule changed them), and their parents, marked. */
static void kb_mark_op(void) {
  for (int k = 0; k < kb_nr_op_tasks; k++) kb_mark_se_up(&kb_tasks[kb_op_tasks[k]].se);
  for (unsigned int c = 0; c < kb_nr_cpus; c++)
    if (kb_op_cpus & (1u << c)) {
      const struct task_struct *curr = kb_rqs[c].curr;
      if (curr >= kb_tasks && curr < kb_tasks + KB_MAX_TASKS) kb_mark_se_up(&curr->se);
    }
}
/* at the end of an entry point: an export at an event inside it keeps every
 * mark, so that what the rest of the entry point writes of a marked entity
 * (an ancestor's averages after its reweight's event, say) is exported again */
static void kb_clear_marks(void) {
  for (int k = 0; k < kb_nr_marked_tasks; k++) kb_task_mark[kb_marked_tasks[k]] = 0;
  for (int k = 0; k < kb_nr_marked_groups; k++)
    kb_group_mark[kb_marked_groups[k] / KB_MAX_CPUS][kb_marked_groups[k] % KB_MAX_CPUS] = 0;
  kb_nr_marked_tasks = kb_nr_marked_groups = 0;
  for (int k = 0; k < kb_nr_op_tasks; k++) kb_op_task_mark[kb_op_tasks[k]] = 0;
  kb_nr_op_tasks = 0;
  kb_op_cpus = 0;
}

/* The tasks' entities and fields, as `how` says (kb_api.h); nonzero: KB_EXPORT_CHECK found a missed change. */
static int kb_export_tasks(struct kb_state *s, int how) {
  const int fresh = how & KB_EXPORT_ALL ? 0 : kb_exported_tasks;
  s->nr_changed_tasks = 0;
  if (!(how & KB_EXPORT_MARKS)) {
    for (int i = 0; i < kb_nr_tasks; i++) {
      s->task_se_changed[i] = kb_export_changed(&kb_tasks[i].se, &kb_last_task_se[i], &s->task_se[i], i >= fresh);
      kb_export_task_fields(s, i);
      s->changed_tasks[s->nr_changed_tasks++] = i;
    }
    return 0;
  }
  for (int k = 0; k < kb_nr_marked_tasks; k++) {
    const int i = kb_marked_tasks[k];
    if (i >= kb_nr_tasks) continue;
    s->task_se_changed[i] =
        kb_export_marked(&kb_tasks[i].se, &kb_last_task_se[i], &s->task_se[i], kb_task_mark[i], i >= fresh);
    /* a node marked for its place in a tree only: its task's fields are the last export's */
    if (kb_task_mark[i] == KB_MARK_FULL) kb_export_task_fields(s, i);
    if (kb_task_mark[i] == KB_MARK_FULL || s->task_se_changed[i]) s->changed_tasks[s->nr_changed_tasks++] = i;
  }
  for (int i = fresh; i < kb_nr_tasks; i++)  /* new tasks are exported whole (the C++ side copies every one then) */
    if (!kb_task_mark[i]) {
      s->task_se_changed[i] = kb_export_changed(&kb_tasks[i].se, &kb_last_task_se[i], &s->task_se[i], 1);
      kb_export_task_fields(s, i);
      s->changed_tasks[s->nr_changed_tasks++] = i;
    }
  if (how & KB_EXPORT_CHECK)
    for (int i = 0; i < fresh; i++) {
      /* a task marked KB_MARK_FULL was exported whole */
      const int same_se = kb_task_mark[i] == KB_MARK_FULL || kb_same_entity(&kb_tasks[i].se, &kb_last_task_se[i]);
      if (same_se && (kb_task_mark[i] == KB_MARK_FULL || kb_same_task_fields(s, i))) continue;
      s->missed_entity = i;
      s->missed_cpu = kb_tasks[i].cpu;
      s->missed_task_fields = same_se;
      s->missed_offset = same_se ? -1 : kb_first_difference(&kb_tasks[i].se, &kb_last_task_se[i]);
      return 1;
    }
  return 0;
}

int kb_export(struct kb_state *s, int how) {
  const int fresh_groups = how & KB_EXPORT_ALL ? 0 : kb_exported_groups;
  int missed = 0;
  s->missed_entity = s->missed_cpu = -1;
  s->missed_task_fields = 0;
  if (how & KB_EXPORT_MARKS) kb_mark_op();
  s->nr_tasks = kb_nr_tasks;
  s->nr_groups = kb_nr_groups;
  s->nr_cpus = (int)kb_nr_cpus;
  s->base_slice = sysctl_sched_base_slice;
  missed = kb_export_tasks(s, how);
  for (int g = 0; g < kb_nr_groups; g++) {
    s->group_shares[g] = kb_groups[g].shares;
    s->group_idle[g] = kb_groups[g].idle;
#if EEVDF_SHIM_SMP
    s->group_load_avg[g] = atomic_long_read(&kb_groups[g].load_avg);
#else
    s->group_load_avg[g] = 0;
#endif
  }
  s->bandwidth = kb_has_bandwidth();
  for (int g = 0; g < kb_nr_groups; g++) kb_export_bandwidth(g, &s->group_bw[g]);
#if EEVDF_TREE_BANDWIDTH
  s->bandwidth_users = __cfs_bandwidth_used.enabled;
#else
  s->bandwidth_users = 0;
#endif
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
    o->throttles = cpu->throttles;
    o->unthrottles = cpu->unthrottles;
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
      const struct sched_entity *se = &kb_group_se[g][c];
      struct sched_entity *last = &kb_last_group_se[g][c];
      if (!(how & KB_EXPORT_MARKS))
        o->group_se_changed[g] = kb_export_changed(se, last, &o->group_se[g], g >= fresh_groups);
      else if (kb_group_mark[g][c] || g >= fresh_groups)
        o->group_se_changed[g] = kb_export_marked(se, last, &o->group_se[g], kb_group_mark[g][c], g >= fresh_groups);
      else
        o->group_se_changed[g] = 0;
      if ((how & KB_EXPORT_CHECK) && !missed && kb_group_mark[g][c] != KB_MARK_FULL && g < fresh_groups &&
          !kb_same_entity(se, last)) {
        missed = 1;
        s->missed_entity = KB_MAX_TASKS + g;
        s->missed_cpu = (int)c;
        s->missed_offset = kb_first_difference(se, last);
      }
      kb_export_queue(&kb_group_cfs_rq[g][c], &o->group_q[g]);
    }
  }
  kb_exported_tasks = kb_nr_tasks;
  kb_exported_groups = kb_nr_groups;
  if (how & KB_EXPORT_END_OP) kb_clear_marks();
  return missed;
}

void kb_test_write_unmarked(int id) {
  if (id >= 0 && id < kb_nr_tasks) kb_tasks[id].se.prev_sum_exec_runtime++;
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
