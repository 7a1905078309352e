/* Fork and exit: __sched_fork() + sched_fork() of a new task with no parent
 * (the scenario's tasks), copy_process()'s copy of the running task, and a
 * dead task's finish_task_switch() (the fair class's task_dead hook). */

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
