/* Wake-ups: wake_up_new_task() and try_to_wake_up() (ttwu_runnable() of a
 * task still queued, ttwu_do_activate() of a sleeping one, WF_MIGRATED after
 * a CPU change), activate_task() of an RT task, core.c's wakeup_preempt()
 * (6.6: check_preempt_curr()), and the fair class's wake-up preemption
 * decision, with the tree's functions inside it interposed to tell why it
 * preempted. */

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

/* update_curr(), interposed: a resched_curr() inside it (curr's request
 * renewed, or its protection over) is not the decision's own */
static void update_curr(struct cfs_rq *cfs_rq) {
  ++kb_in_update_curr;
  if (cfs_rq->curr) kb_mark_se(cfs_rq->curr, KB_MARK_FULL);
  kb_tree_update_curr(cfs_rq);
  if (cfs_rq->curr) kb_mark_se(cfs_rq->curr, KB_MARK_FULL);
  --kb_in_update_curr;
}
#if KB_DECISION_DO_PREEMPT_SHORT
/* do_preempt_short(), interposed (6.12): its answer inside the decision, after
 * which the decision cancels curr's protection and asks pick_eevdf() */
static bool do_preempt_short(struct cfs_rq *cfs_rq, struct sched_entity *pse, struct sched_entity *se) {
  const bool answer = kb_tree_do_preempt_short(cfs_rq, pse, se);
  if (kb_deciding && !kb_in_update_curr) kb_decision_short = answer;
  return answer;
}
#endif
#if KB_DECISION_PREEMPT_SYNC
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
