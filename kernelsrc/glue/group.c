/* Task groups: sched_create_group() + sched_online_group() (one entity and
 * one queue a CPU), the cpu.shares and cpu.idle writes, the group's removal
 * (sched_destroy_group() down to the tree's unregister_fair_sched_group()),
 * and sched_move_task() of a task to another group. */

/* ---- task groups: sched_create_group() + sched_online_group(), cpu.shares, cpu.idle, moves ---- */
/* alloc_fair_sched_group(): init_cfs_bandwidth() (a tree with bandwidth
 * control), then init_tg_cfs_entry() and init_entity_runnable_average() on
 * every possible CPU, below the parent's entity of that CPU; the online step;
 * then the cpu.shares write (every CPU) */
int kb_create_group(int parent, unsigned long long shares) {
  if (kb_nr_groups >= KB_MAX_GROUPS || parent >= kb_nr_groups) return -1;
  int g = kb_nr_groups++;
  struct task_group *tg = &kb_groups[g];
  struct task_group *ptg = parent < 0 ? &root_task_group : &kb_groups[parent];
  tg->parent = ptg;
  tg->shares = NICE_0_LOAD;  /* alloc_fair_sched_group() */
  tg->se = kb_group_se_ptr[g];
  tg->cfs_rq = kb_group_cfs_rq_ptr[g];
#if EEVDF_TREE_BANDWIDTH
  init_cfs_bandwidth(tg_cfs_bandwidth(tg), tg_cfs_bandwidth(ptg));
#endif
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
   * under its rq lock, the group entity joins its parent queue's sums and
   * (a tree with bandwidth control) the queue takes its parent's throttle count */
  for (unsigned int c = 0; c < kb_nr_cpus; c++) {
    kb_rq_at((int)c);
    attach_entity_cfs_rq(&kb_group_se[g][c]);
#if EEVDF_TREE_BANDWIDTH
    sync_throttle(tg, (int)c);
#endif
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
#if EEVDF_TREE_BANDWIDTH
  kb_group_released[g] = 1;  /* sched_release_group(): off its parent's children list */
#endif
  unregister_fair_sched_group(&kb_groups[g]);
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
#if KB_MOVE_TASK_WAKEUP_PREEMPT
  /* 7.0's sched_move_task() asks the wake-up preemption for a task that is
   * queued but not running (6.18's does not) */
  else if (c.queued) wakeup_preempt(rq, p, 0);
#endif
}
