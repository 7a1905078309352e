/* The core.c services the fair class calls back: resched_curr() and its
 * lazy form, update_rq_clock(), cpu_rq(), task_cpu(), num_online_cpus(),
 * set_task_cpu() with the class's migrate_task_rq hook; the fair class's
 * struct sched_class (the two hooks core.c's put_prev_set_next_task() reads),
 * the WARN handler, and the stand-in for another class on the CPU (a
 * SCHED_FIFO list per CPU, and 6.6's idle-class hooks). */

const struct sched_class fair_sched_class = {
  .put_prev_task = put_prev_task_fair,
  .set_next_task = set_next_task_fair,
};

void eevdf_kernel_warn(const char *file, int line, const char *cond) {
  if (kb_warn_cb) kb_warn_cb(kb_warn_ctx, file, line, cond);
}

/* ---- another class on the CPU ----
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
#if KB_HAS_RESCHED_CURR_LAZY
void resched_curr_lazy(struct rq *rq) { resched_curr(rq); }  /* preemption model "full" */
#endif
#if KB_TICK_ASKS_NEED_RESCHED
/* need_resched() of current (7.0's task_tick_fair() asks it for a queued,
 * hrtick, tick: the glue's ticks are never queued) */
bool need_resched(void) { return kb_rqs[kb_this_cpu].curr->need_resched; }
#endif
#if KB_VRUNTIME_OPS
void __BUILD_BUG_vruntime_cmp(void) { eevdf_kernel_warn(__FILE__, __LINE__, "BUG: vruntime_cmp() operator"); }
void __BUILD_BUG_vruntime_op(void) { eevdf_kernel_warn(__FILE__, __LINE__, "BUG: vruntime_op() operator"); }
#endif
void update_rq_clock(struct rq *rq) { rq->clock_update_flags |= RQCF_UPDATED; /* the scenario sets the clock */ }
void rq_clock_skip_update(struct rq *rq) { (void)rq; }
struct rq *cpu_rq(int cpu) { return &kb_rqs[cpu]; }
int task_cpu(const struct task_struct *p) { return p->cpu; }
int test_tsk_need_resched(struct task_struct *p) { return p->need_resched; }
unsigned int num_online_cpus(void) { return kb_online_cpus; }

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
