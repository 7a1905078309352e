/* The tick and the passing of time: sched_tick() (the class's task_tick and
 * the counts the checker reads), the reschedule a pending need_resched makes
 * at the tick's return, and a CPU's clock advancing on the tick grid, off it
 * (nohz_full), or with preemption disabled. */

/* Not kernel code: a queue on se's path has a quota and no runtime left (the
 * model's out_of_runtime(): a reschedule then is bandwidth control's, not EEVDF's) */
static int kb_out_of_runtime(struct sched_entity *se) {
#if EEVDF_TREE_BANDWIDTH
  for (; se; se = se->parent)
    if (se->cfs_rq->runtime_enabled && se->cfs_rq->runtime_remaining <= 0) return 1;
#else
  (void)se;
#endif
  return 0;
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
    if (cpu->resched_calls != before && !kb_out_of_runtime(&rq->curr->se)) ++cpu->fair_tick_rescheds;
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
