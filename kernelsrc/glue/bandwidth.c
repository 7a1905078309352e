/* CPU bandwidth control (cgroup cpu.max) on a tree built with
 * CONFIG_CFS_BANDWIDTH (EEVDF_TREE_BANDWIDTH: kernelsrc/extract_trees.py,
 * BANDWIDTH_TREES).  The tree's own code throttles, unthrottles, distributes
 * and runs the timers' callbacks; ours is what core.c and the kernel's other
 * parts do around it:
 *  - the group's cpu.max write, tg_set_cfs_bandwidth() of core.c (6.6 and
 *    6.12 alike) with its checks and __cfs_schedulable() on cgroup v2, run on
 *    CPU 0, and the burst cpu_max_write() keeps (kb_cpu_max_burst());
 *  - core.c's walk of the task-group tree (walk_tg_tree_from(), tg_nop());
 *  - hrtimers: armed or not, an expiry and a CPU; "now" is the clock of the
 *    CPU whose code runs (rq->clock, the scenario's); a timer fires only when
 *    the backend says (kb_fire_timer()), dequeued, its callback run, re-armed
 *    when it answers HRTIMER_RESTART, as the hrtimer core's __run_hrtimer();
 *  - the CSD another CPU's distribute_cfs_runtime() sends: queued on the
 *    target CPU and run only when the backend says (kb_run_csd()).
 * On every other tree the entry points below refuse (-ENOSYS). */

#define KB_ENOSYS 38
#define KB_EBUSY 16

unsigned long long kb_clock(int cpu) {
  return cpu >= 0 && (unsigned int)cpu < kb_nr_cpus ? kb_rqs[cpu].clock : 0;
}

#if EEVDF_TREE_BANDWIDTH

/* core.c's bounds of a quota and a period (tg_set_cfs_bandwidth()) */
const u64 max_cfs_quota_period = 1 * NSEC_PER_SEC;
static const u64 kb_min_cfs_quota_period = 1 * NSEC_PER_MSEC;
static const u64 kb_max_cfs_runtime = MAX_BW * NSEC_PER_USEC;

/* cgroup rmdir's sched_release_group(): the group leaves its parent's children (the walk below) */
static unsigned char kb_group_released[KB_MAX_GROUPS];

/* sched_init()'s part: the root group's bandwidth, each CPU's CSD; the static key at 0 */
static void kb_bandwidth_init(void) {
  memset(kb_group_released, 0, sizeof kb_group_released);
  __cfs_bandwidth_used.enabled = 0;
  init_cfs_bandwidth(&root_task_group.cfs_bandwidth, NULL);
  for (unsigned int c = 0; c < kb_nr_cpus; c++) {
    INIT_CSD(&kb_rqs[c].cfsb_csd, __cfsb_csd_unthrottle, &kb_rqs[c]);
    INIT_LIST_HEAD(&kb_rqs[c].cfsb_csd_list);
  }
}

/* ---- core.c's walk of the task-group tree: down() on entering a group, up()
 * on leaving it, the children newest first (sched_online_group() adds a group
 * at the head of its parent's list); a nonzero answer ends the walk ---- */
int tg_nop(struct task_group *tg, void *data) {
  (void)tg; (void)data;
  return 0;
}
int walk_tg_tree_from(struct task_group *from, tg_visitor down, tg_visitor up, void *data) {
  int ret = (*down)(from, data);
  if (ret) return ret;
  for (int g = kb_nr_groups - 1; g >= 0; g--) {
    if (kb_groups[g].parent != from || kb_group_released[g]) continue;
    ret = walk_tg_tree_from(&kb_groups[g], down, up, data);
    if (ret) return ret;
  }
  return (*up)(from, data);
}

/* ---- hrtimers ---- */
static ktime_t kb_hrtimer_now(void) { return (ktime_t)kb_rqs[kb_this_cpu].clock; }

void hrtimer_init(struct hrtimer *timer, int clock_id, enum hrtimer_mode mode) {
  (void)clock_id; (void)mode;
  timer->expires = 0;
  timer->function = NULL;
  timer->queued = timer->running = 0;
  timer->cpu = 0;
}

/* hrtimer_forward() against now: the expiry moved past now by whole
 * intervals, the number of them answered (0: not yet expired) */
u64 hrtimer_forward_now(struct hrtimer *timer, ktime_t interval) {
  const ktime_t now = kb_hrtimer_now();
  const ktime_t delta = now - timer->expires;
  u64 orun = 1;
  if (delta < 0) return 0;
  if (timer->queued) {
    eevdf_kernel_warn(__FILE__, __LINE__, "hrtimer_forward() of an enqueued timer");
    return 0;
  }
  if (interval < 1) interval = 1;  /* hrtimer_resolution: 1 ns (high resolution) */
  if (delta >= interval) {
    orun = (u64)(delta / interval);
    timer->expires += (ktime_t)orun * interval;
    if (timer->expires > now) return orun;
    orun++;
  }
  timer->expires += interval;
  return orun;
}

/* armed on the running CPU's base; a timer whose callback runs stays on its own */
static void kb_hrtimer_enqueue(struct hrtimer *timer) {
  if (!timer->running) timer->cpu = kb_this_cpu;
  timer->queued = 1;
}
void hrtimer_start(struct hrtimer *timer, ktime_t tim, enum hrtimer_mode mode) {
  timer->expires = mode & HRTIMER_MODE_REL ? kb_hrtimer_now() + tim : tim;
  kb_hrtimer_enqueue(timer);
}
void hrtimer_start_expires(struct hrtimer *timer, enum hrtimer_mode mode) {
  (void)mode;
  kb_hrtimer_enqueue(timer);
}
ktime_t hrtimer_expires_remaining(const struct hrtimer *timer) { return timer->expires - kb_hrtimer_now(); }
bool hrtimer_active(const struct hrtimer *timer) { return timer->queued || timer->running; }
int hrtimer_try_to_cancel(struct hrtimer *timer) {
  if (timer->running) return -1;
  if (!timer->queued) return 0;
  timer->queued = 0;
  return 1;
}
int hrtimer_cancel(struct hrtimer *timer) {
  if (timer->running) {  /* the kernel would wait for itself forever */
    eevdf_kernel_warn(__FILE__, __LINE__, "hrtimer_cancel() from the timer's own callback");
    return 0;
  }
  return hrtimer_try_to_cancel(timer);
}

/* ---- the CSD: queued on the target CPU (its rq->cfsb_csd), run by kb_run_csd() ---- */
int smp_call_function_single_async(int cpu, call_single_data_t *csd) {
  (void)cpu;  /* the CSD is the target CPU's own (rq->cfsb_csd) */
  if (csd->pending) return -KB_EBUSY;
  csd->pending = 1;
  return 0;
}

/* ---- the tree's throttle and unthrottle, interposed for the hand-back's
 * marks: each dequeues or enqueues the group's entity on its CPU and updates
 * the entities above it ---- */
static bool throttle_cfs_rq(struct cfs_rq *cfs_rq) {
  kb_mark_se_up(cfs_rq->tg->se[cpu_of(rq_of(cfs_rq))]);
  bool throttled = kb_tree_throttle_cfs_rq(cfs_rq);
  if (throttled) ++kb_cpus[cpu_of(rq_of(cfs_rq))].throttles;  /* Rq::throttles */
  return throttled;
}
void unthrottle_cfs_rq(struct cfs_rq *cfs_rq) {
  kb_mark_se_up(cfs_rq->tg->se[cpu_of(rq_of(cfs_rq))]);
  ++kb_cpus[cpu_of(rq_of(cfs_rq))].unthrottles;  /* Rq::unthrottles */
  kb_tree_unthrottle_cfs_rq(cfs_rq);
}

/* __assign_cfs_rq_runtime(): run as on the queue's CPU, so that the period
 * timer start_cfs_bandwidth() arms is pinned there, as on the model
 * (model/fair_bandwidth.cpp; a cgroup write that reaches it for another CPU's
 * queue would arm it on the writer's CPU in the kernel) */
static int __assign_cfs_rq_runtime(struct cfs_bandwidth *cfs_b, struct cfs_rq *cfs_rq, u64 target_runtime) {
  const int this_cpu = kb_this_cpu;
  kb_this_cpu = cpu_of(rq_of(cfs_rq));
  const int ret = kb_tree___assign_cfs_rq_runtime(cfs_b, cfs_rq, target_runtime);
  kb_this_cpu = this_cpu;
  return ret;
}

/* ---- cpu.max: tg_set_cfs_bandwidth() (core.c, 6.6 and 6.12), cgroup v2 ---- */
struct kb_cfs_schedulable_data {
  struct task_group *tg;
  u64 period, quota;
};
/* core.c's to_ratio(): runtime/period in BW_SHIFT fixed point */
static u64 kb_to_ratio(u64 period, u64 runtime) {
  if (runtime == RUNTIME_INF) return BW_UNIT;
  if (period == 0) return 0;
  return div64_u64(runtime << BW_SHIFT, period);
}
/* normalize_cfs_quota(): a group's quota/period, in microseconds (the one being set: its new values) */
static u64 kb_normalize_cfs_quota(struct task_group *tg, const struct kb_cfs_schedulable_data *d) {
  u64 quota, period;
  if (tg == d->tg) {
    period = d->period;
    quota = d->quota;
  } else {
    period = (u64)ktime_to_ns(tg->cfs_bandwidth.period) / NSEC_PER_USEC;
    quota = tg->cfs_bandwidth.quota == RUNTIME_INF ? (u64)-1 : tg->cfs_bandwidth.quota / NSEC_PER_USEC;
  }
  if (quota == RUNTIME_INF) return RUNTIME_INF;
  return kb_to_ratio(period, quota);
}
/* tg_cfs_schedulable_down() on the default hierarchy: a child's hierarchical
 * quota is the smaller of its own and its parent's */
static int kb_cfs_schedulable_down(struct task_group *tg, void *data) {
  const struct kb_cfs_schedulable_data *d = data;
  s64 quota;
  if (!tg->parent) {
    quota = (s64)RUNTIME_INF;
  } else {
    const s64 parent_quota = tg->parent->cfs_bandwidth.hierarchical_quota;
    quota = (s64)kb_normalize_cfs_quota(tg, d);
    if (quota == (s64)RUNTIME_INF)
      quota = parent_quota;
    else if (parent_quota != (s64)RUNTIME_INF && parent_quota < quota)
      quota = parent_quota;
  }
  tg->cfs_bandwidth.hierarchical_quota = quota;
  return 0;
}

int kb_has_bandwidth(void) { return 1; }

/* cpu_max_write() (core.c, cgroup v2): the burst a cpu.max write passes on
 * to tg_set_cfs_bandwidth() when it sets none, the group's own; a tree whose
 * cpu_max_write() reads it with tg_get_cfs_burst() passes the microseconds on
 * as nanoseconds (EEVDF_TREE_CPU_MAX_BURST_US) */
unsigned long long kb_cpu_max_burst(int g) {
  if (g < 0 || g >= kb_nr_groups) return 0;
  const u64 burst = kb_groups[g].cfs_bandwidth.burst;
#if EEVDF_TREE_CPU_MAX_BURST_US
  return burst / NSEC_PER_USEC;
#else
  return burst;
#endif
}

int kb_set_bandwidth(int g, unsigned long long period, unsigned long long quota, unsigned long long burst) {
  if (kb_crashed || g < 0 || g >= kb_nr_groups || kb_group_released[g]) return -EINVAL;
  struct task_group *tg = &kb_groups[g];
  struct cfs_bandwidth *cfs_b = &tg->cfs_bandwidth;
  kb_rq_at(0);  /* the writer's CPU */
  if (quota < kb_min_cfs_quota_period || period < kb_min_cfs_quota_period) return -EINVAL;
  if (period > max_cfs_quota_period) return -EINVAL;
  if (quota != RUNTIME_INF && quota > kb_max_cfs_runtime) return -EINVAL;
  if (quota != RUNTIME_INF && (burst > quota || burst + quota > kb_max_cfs_runtime)) return -EINVAL;
  /* __cfs_schedulable(): the hierarchical quotas of every group, walked from the root */
  struct kb_cfs_schedulable_data data = {tg, period, quota};
  if (quota != RUNTIME_INF) {
    data.period /= NSEC_PER_USEC;
    data.quota /= NSEC_PER_USEC;
  }
  const int ret = walk_tg_tree_from(&root_task_group, kb_cfs_schedulable_down, tg_nop, &data);
  if (ret) return ret;
  const int runtime_enabled = quota != RUNTIME_INF;
  const int runtime_was_enabled = cfs_b->quota != RUNTIME_INF;
  /* the static key: off to on before the change, on to off after it */
  if (runtime_enabled && !runtime_was_enabled) cfs_bandwidth_usage_inc();
  cfs_b->period = ns_to_ktime(period);
  cfs_b->quota = quota;
  cfs_b->burst = burst;
  __refill_cfs_bandwidth_runtime(cfs_b);
  if (runtime_enabled) start_cfs_bandwidth(cfs_b);
  for (unsigned int i = 0; i < kb_nr_cpus; i++) {  /* for_each_online_cpu(), each under its rq lock */
    struct cfs_rq *cfs_rq = tg->cfs_rq[i];
    cfs_rq->runtime_enabled = runtime_enabled;
    cfs_rq->runtime_remaining = 0;
    if (cfs_rq->throttled) unthrottle_cfs_rq(cfs_rq);
  }
  if (runtime_was_enabled && !runtime_enabled) cfs_bandwidth_usage_dec();
  return 0;
}

/* The hrtimer core's expiry of group g's period (slack 0) or slack timer, on
 * the CPU whose base holds it: dequeued, the callback run with that CPU's
 * clock as now, re-armed at its (forwarded) expiry on HRTIMER_RESTART unless
 * the callback armed it itself. */
int kb_fire_timer(int g, int slack) {
  if (kb_crashed || g < 0 || g >= kb_nr_groups) return -1;
  struct cfs_bandwidth *cfs_b = &kb_groups[g].cfs_bandwidth;
  struct hrtimer *timer = slack ? &cfs_b->slack_timer : &cfs_b->period_timer;
  if (!timer->queued) return -1;
  kb_rq_at(timer->cpu);
  timer->queued = 0;
  timer->running = 1;
  const enum hrtimer_restart restart = timer->function(timer);
  timer->running = 0;
  if (restart != HRTIMER_NORESTART && !timer->queued) timer->queued = 1;
  return 0;
}

/* the armed timer that expires first: by expiry, then group, the period timer before the slack timer */
int kb_next_timer(unsigned long long *expires, int *group, int *slack) {
  int found = 0;
  for (int g = 0; g < kb_nr_groups; g++)
    for (int s = 0; s < 2; s++) {
      const struct hrtimer *t = s ? &kb_groups[g].cfs_bandwidth.slack_timer : &kb_groups[g].cfs_bandwidth.period_timer;
      if (!t->queued || (found && (unsigned long long)t->expires >= *expires)) continue;
      found = 1;
      *expires = (unsigned long long)t->expires;
      *group = g;
      *slack = s;
    }
  return found;
}

int kb_csd_pending(int cpu) {
  return cpu >= 0 && (unsigned int)cpu < kb_nr_cpus && kb_rqs[cpu].cfsb_csd.pending;
}

/* CPU cpu takes its CSD interrupt: the CSD unlocked, then its function (__cfsb_csd_unthrottle()) */
void kb_run_csd(int cpu) {
  if (kb_crashed || !kb_csd_pending(cpu)) return;
  struct rq *rq = kb_rq_at(cpu);
  rq->cfsb_csd.pending = 0;
  rq->cfsb_csd.func(rq->cfsb_csd.info);
}

#else /* !EEVDF_TREE_BANDWIDTH: the tree is built without CONFIG_CFS_BANDWIDTH */

static void kb_bandwidth_init(void) {}
int kb_has_bandwidth(void) { return 0; }
unsigned long long kb_cpu_max_burst(int g) {
  (void)g;
  return 0;
}
int kb_set_bandwidth(int g, unsigned long long period, unsigned long long quota, unsigned long long burst) {
  (void)g; (void)period; (void)quota; (void)burst;
  return -KB_ENOSYS;
}
int kb_fire_timer(int g, int slack) {
  (void)g; (void)slack;
  return -KB_ENOSYS;
}
int kb_next_timer(unsigned long long *expires, int *group, int *slack) {
  (void)expires; (void)group; (void)slack;
  return 0;
}
int kb_csd_pending(int cpu) {
  (void)cpu;
  return 0;
}
void kb_run_csd(int cpu) { (void)cpu; }

#endif
