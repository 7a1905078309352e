/* The sched_change pattern: what core.c's sched_change guard (7.0:
 * sched_change_begin()/sched_change_end()) does around a change of a queued
 * or running task (dequeue and put, change, enqueue and set next), for
 * set_user_nice() and __sched_setscheduler(); set_load_weight() and
 * syscalls.c's __setparam_fair(), which the change and fork use.
 * sched_move_task() uses the same pattern (group.c). */

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
