/* __schedule() and the pick: pick_next_task() with the fair class's fast
 * path and the class loop (an RT task first), put_prev_set_next_task(), the
 * clearing of need_resched after the pick; try_to_block_task() of a task
 * that sleeps or dies, sched_yield(); and the tree's pick_eevdf() and
 * set_next_entity(), interposed, for a NULL pick (the kernel's crash) and
 * the pick's events. */

/* pick_eevdf(), interposed (kernelsrc/extract.py renames the tree's definition
 * to kb_tree_pick_eevdf): the tree's function, and a crash where the kernel
 * crashes.  A NULL answer is harmless in check_preempt_wakeup_fair() (compared
 * with the wakee) and fatal in pick_next_entity() (se->sched_delayed). */
static struct sched_entity *kb_pick_answer(struct cfs_rq *cfs_rq, struct sched_entity *se);
#if EEVDF_TREE_PICK_PROTECT
/* pick_eevdf(cfs_rq, protect), interposed (7.1 folded __pick_eevdf() into it):
 * the pick's reading of V, the decision's answer outside a schedule's pick, as
 * __pick_eevdf() below.  Both callers go through pick_next_entity(), which
 * dereferences the answer: a NULL is the kernel's crash in the wake-up
 * decision too (kb_wakeup_preempt_fair() sets the return point there). */
static struct sched_entity *pick_eevdf(struct cfs_rq *cfs_rq, bool protect) {
  kb_read_avg(cfs_rq, KB_READER_PICK_EEVDF);
  struct sched_entity *se = kb_tree_pick_eevdf(cfs_rq, protect);
  if (!kb_picking) kb_decision_pick(cfs_rq, se, protect);
  if (!se && !kb_picking && kb_deciding) {
    kb_crashed = 1;
    kb_emit(KB_EVENT_PICK, cfs_rq, NULL, 0);
    longjmp(kb_pick_env, 1);
  }
  return kb_pick_answer(cfs_rq, se);
}
#else
#if KB_PICK_SEARCH_PROTECT
/* __pick_eevdf(), interposed: the pick's reading of V, for pick_eevdf() and
 * the wake-up decision's direct call alike, and the decision's answer (outside
 * a schedule's pick).  Before 6.18 pick_eevdf() is the one, and the decision
 * cancels curr's protection before it asks (cancel_protect_slice()): the pick
 * honours what is left. */
static struct sched_entity *__pick_eevdf(struct cfs_rq *cfs_rq, bool protect) {
  kb_read_avg(cfs_rq, KB_READER_PICK_EEVDF);
  struct sched_entity *se = kb_tree___pick_eevdf(cfs_rq, protect);
  if (!kb_picking) kb_decision_pick(cfs_rq, se, protect);
  return se;
}
#elif EEVDF_TREE_MIN_DEADLINE
/* 6.6's __pick_eevdf(cfs_rq), the search pick_eevdf() calls (interposed by
 * name): passed through; pick_eevdf() below sends the events */
static struct sched_entity *__pick_eevdf(struct cfs_rq *cfs_rq) { return kb_tree___pick_eevdf(cfs_rq); }
#endif
static struct sched_entity *pick_eevdf(struct cfs_rq *cfs_rq) {
#if !KB_PICK_SEARCH_PROTECT
  kb_read_avg(cfs_rq, KB_READER_PICK_EEVDF);
#endif
  struct sched_entity *se = kb_tree_pick_eevdf(cfs_rq);
#if !KB_PICK_SEARCH_PROTECT
  if (!kb_picking) kb_decision_pick(cfs_rq, se, 1);
#endif
  return kb_pick_answer(cfs_rq, se);
}
#endif
static struct sched_entity *kb_pick_answer(struct cfs_rq *cfs_rq, struct sched_entity *se) {
  if (!se && kb_picking) {
    kb_crashed = 1;
    /* the empty pick, as the model's on_pick(NULL) and its crash report */
    kb_emit(KB_EVENT_PICK, cfs_rq, NULL, 0);
    longjmp(kb_pick_env, 1);
  }
  /* a schedule's pick (kb_picking): the answer with slice protection, as the
   * model's on_pick(protect = true, PickCaller::schedule); 6.12's wake-up
   * decision also calls pick_eevdf() and sends nothing */
  if (se && kb_picking) kb_emit(KB_EVENT_PICK, cfs_rq, se, 0);
  return se;
}

int kb_oopsed(void) { return kb_crashed; }

/* core.c __schedule() on a CPU: pick_next_task() and the switch */
static void kb_switch_to_next(struct rq *rq) {
  struct task_struct *idle = kb_idle_of(rq);
  struct task_struct *prev = rq->curr;
  struct task_struct *next;
  struct kb_cpu *cpu = &kb_cpus[kb_cpu_of(rq)];
  struct rq_flags rf;
  if (kb_crashed) return;
  kb_this_cpu = kb_cpu_of(rq);
  kb_picking = 1;
  if (setjmp(kb_pick_env)) {  /* pick_eevdf() returned NULL: the kernel crashed here */
    kb_picking = 0;
    return;
  }
  if (cpu->rt_nr) {
    /* __pick_next_task(): rq->nr_running != rq->cfs.h_nr_queued, the class loop;
     * pick_task_rt() gives the head of the list, then put_prev_set_next_task():
     * put_prev_task_fair() for a fair prev */
    next = &kb_tasks[cpu->rt_queue[0]];
#if EEVDF_TREE_PUT_PREV_NEXT
    if (prev != idle)
      put_prev_set_next_task(rq, prev, next);
    else
      kb_set_next_task_rt(rq, next, true);
#else
    /* 6.6: put_prev_task_balance() puts prev, pick_next_task_rt() sets next */
    if (prev != idle) prev->sched_class->put_prev_task(rq, prev);
    kb_set_next_task_rt(rq, next, true);
#endif
  } else if (prev != idle) {
    /* a fair prev: the fast path; an RT prev (blocked): the class loop reaches
     * pick_next_task_fair(), whose `simple` path calls put_prev_set_next_task() */
    next = pick_next_task_fair(rq, prev, &rf);
    if (!next && !kb_is_rt(prev)) KB_PUT_PREV_TASK_FAIR(rq, prev, idle);
#if EEVDF_SHIM_SMP
    /* no fair task: pick_task_idle(), put_prev_set_next_task() to the idle task */
    if (!next) kb_set_next_task_idle(rq);
#endif
  } else {
#if EEVDF_TREE_PUT_PREV_NEXT
    next = KB_PICK_TASK_FAIR(rq);
    if (next) set_next_task_fair(rq, next, true);
#else
    /* 6.6: __pick_next_task()'s fast path calls pick_next_task_fair() from the
     * idle task too (its `simple` path puts the idle task, then
     * pick_next_entity() and set_next_entity() level by level) */
    next = pick_next_task_fair(rq, prev, &rf);
#endif
  }
  kb_picking = 0;
  /* 6.12 __schedule(): clear_tsk_need_resched(prev) after the pick, so a
   * resched_curr() inside the pick (update_curr() reaching the deadline) is
   * cleared with it */
  prev->need_resched = 0;
  rq->curr = rq->donor = next ? next : idle;
}

void kb_schedule(int cpu) { kb_switch_to_next(kb_rq_at(cpu)); }

/* __schedule() of a blocking current task: try_to_block_task() */
void kb_sleep(int id, int special) {
  struct task_struct *p = kb_task(id);
  struct rq *rq = kb_rq_of(p);
  struct kb_cpu *cpu = &kb_cpus[p->cpu];
  p->__state = special ? KB_TASK_DEAD : KB_TASK_SLEEPING;
  if (kb_is_rt(p)) {  /* dequeue_task_rt(), sub_nr_running() */
    for (int i = 0; i < cpu->rt_nr; i++)
      if (cpu->rt_queue[i] == id) {
        for (int j = i + 1; j < cpu->rt_nr; j++) cpu->rt_queue[j - 1] = cpu->rt_queue[j];
        cpu->rt_nr--;
        sub_nr_running(rq, 1);
        break;
      }
    p->on_rq = 0;
    kb_switch_to_next(rq);
    return;
  }
#if EEVDF_TREE_DEQUEUE_SPECIAL
  int flags = DEQUEUE_SLEEP | DEQUEUE_NOCLOCK | (special ? DEQUEUE_SPECIAL : 0);
#else
  int flags = DEQUEUE_SLEEP | DEQUEUE_NOCLOCK;
#endif
#if EEVDF_TREE_DEQUEUE_TASK_BOOL
  if (dequeue_task_fair(rq, p, flags)) __block_task(rq, p);
#else
  /* 6.6 deactivate_task(): p->on_rq cleared, then the class's dequeue */
  p->on_rq = 0;
  dequeue_task_fair(rq, p, flags);
#endif
  kb_switch_to_next(rq);
}

/* sys_sched_yield() by the running task id, on its CPU */
void kb_yield(int id) {
  struct rq *rq = kb_rq_of(kb_task(id));
  yield_task_fair(rq);
  kb_switch_to_next(rq);
}

/* set_next_entity(), interposed: the event once it returned (the model's
 * on_set_next() at the end of its set_next_entity()).  Before 7.0 the tree's
 * function has no `first`: a pick's call is one (pick_next_task_fair()), and
 * set_next_task_fair()'s passes on its own, which its wrapper notes. */
#if KB_SET_NEXT_ENTITY_FIRST
static void set_next_entity(struct cfs_rq *cfs_rq, struct sched_entity *se, bool first) {
  kb_mark_se(se, KB_MARK_FULL);
  kb_tree_set_next_entity(cfs_rq, se, first);
  kb_mark_se(se, KB_MARK_FULL);
  struct kb_event e = {0};
  e.kind = KB_EVENT_SET_NEXT;
  e.first = first;
  kb_send(e, cfs_rq, se);
}
static void set_next_task_fair(struct rq *rq, struct task_struct *p, bool first) {
  kb_tree_set_next_task_fair(rq, p, first);
}
#else
static int kb_set_next_first = 1;
static void set_next_entity(struct cfs_rq *cfs_rq, struct sched_entity *se) {
  kb_mark_se(se, KB_MARK_FULL);
  kb_tree_set_next_entity(cfs_rq, se);
  kb_mark_se(se, KB_MARK_FULL);
  struct kb_event e = {0};
  e.kind = KB_EVENT_SET_NEXT;
  e.first = kb_set_next_first;
  kb_send(e, cfs_rq, se);
}
static void set_next_task_fair(struct rq *rq, struct task_struct *p, bool first) {
  const int outer = kb_set_next_first;
  kb_set_next_first = first;
  kb_tree_set_next_task_fair(rq, p, first);
  kb_set_next_first = outer;
}
#endif
