/* The glue's version differences, in one place: the kernel versions the
 * glue tells apart by number (version.h's EEVDF_KERNEL_VERSION_CODE), each
 * difference under a name the other parts test, and the fields and hooks
 * whose names changed.  The differences a tree shows in its own text are
 * version.h's EEVDF_TREE_* facts (kernelsrc/extract.py, tree_facts()),
 * tested where they apply; EEVDF_SHIM_SMP says whether the tree is taken
 * with the SMP code (kernelsrc/shim_smp.h).  No other part of the glue
 * tests the version number. */

#if EEVDF_KERNEL_VERSION_CODE >= EEVDF_KV(7, 0)
#define KB_SINCE_7_0 1
#else
#define KB_SINCE_7_0 0
#endif
#if EEVDF_KERNEL_VERSION_CODE >= EEVDF_KV(6, 18)
#define KB_SINCE_6_18 1
#else
#define KB_SINCE_6_18 0
#endif
#if EEVDF_KERNEL_VERSION_CODE >= EEVDF_KV(6, 14)
#define KB_SINCE_6_14 1
#else
#define KB_SINCE_6_14 0
#endif

/* Field names that changed between the versions the extractor handles:
 * 6.12's cfs_rq->nr_running is 6.18's nr_queued, idle_h_nr_running is
 * h_nr_idle, and the key base zero_vruntime (6.12.118) is min_vruntime in 6.18
 * (and in 6.12.0 - 6.12.y before the backport). */
/* 7.0 renamed the fair class's wakeup_preempt hook (704069649b5b): it returns
 * at once for a wakee of another class, so core.c's call of it for a higher
 * class's wakee changes nothing and is left out, as before. */
#if KB_SINCE_7_0
#define KB_WAKEUP_PREEMPT_FAIR wakeup_preempt_fair
#elif EEVDF_TREE_CHECK_PREEMPT_CURR
#define KB_WAKEUP_PREEMPT_FAIR check_preempt_wakeup  /* 6.6: its name before v6.7 */
#else
#define KB_WAKEUP_PREEMPT_FAIR check_preempt_wakeup_fair
#endif
/* 6.6's put_prev_task_fair() has no next task (the tree says which) */
#if EEVDF_TREE_PUT_PREV_NEXT
#define KB_PUT_PREV_TASK_FAIR(rq, p, next) put_prev_task_fair((rq), (p), (next))
#else
#define KB_PUT_PREV_TASK_FAIR(rq, p, next) put_prev_task_fair((rq), (p))
#endif
/* 7.0's pick_task_fair() takes the rq_flags (for the newidle balance of
 * pick_next_task_fair() only; core.c's class loop passes them, the pick
 * itself does not read them) */
#if KB_SINCE_7_0
#define KB_PICK_TASK_FAIR(rq) pick_task_fair((rq), NULL)
#elif EEVDF_TREE_PUT_PREV_NEXT
#define KB_PICK_TASK_FAIR(rq) pick_task_fair(rq)
#endif  /* 6.6 picks through pick_next_task_fair() (kb_switch_to_next()); its pick_task_fair() is SMP-only */
#if KB_SINCE_7_0
#define KB_NR_QUEUED(q) ((q)->nr_queued)
#define KB_H_NR_IDLE(q) ((q)->h_nr_idle)
#define KB_KEY_BASE(q) ((q)->zero_vruntime)
#elif KB_SINCE_6_18
#define KB_NR_QUEUED(q) ((q)->nr_queued)
#define KB_H_NR_IDLE(q) ((q)->h_nr_idle)
#define KB_KEY_BASE(q) ((q)->min_vruntime)
#else
#define KB_NR_QUEUED(q) ((q)->nr_running)
#define KB_H_NR_IDLE(q) ((q)->idle_h_nr_running)
#if EEVDF_TREE_ZERO_VRUNTIME
#define KB_KEY_BASE(q) ((q)->zero_vruntime)
#else
#define KB_KEY_BASE(q) ((q)->min_vruntime)
#endif
#endif
/* h_nr_running became h_nr_queued, and h_nr_runnable (h_nr_queued less the
 * delayed ones) was added, in v6.14 and later 6.12.y: the tree says which */
#if EEVDF_TREE_H_NR_QUEUED
#define KB_H_NR_QUEUED(q) ((q)->h_nr_queued)
#else
#define KB_H_NR_QUEUED(q) ((q)->h_nr_running)
#endif
#if EEVDF_TREE_H_NR_RUNNABLE
#define KB_H_NR_RUNNABLE(q) ((q)->h_nr_runnable)
#else
#define KB_H_NR_RUNNABLE(q) (KB_H_NR_QUEUED(q) - (q)->h_nr_delayed)
#endif
/* 7.0 renamed the queue's sums: avg_vruntime is sum_w_vruntime, avg_load is
 * sum_weight (dcbc9d3f0e59, 4ff674fa986c) */
#if KB_SINCE_7_0
#define KB_SUM_W_VRUNTIME(q) ((q)->sum_w_vruntime)
#define KB_SUM_WEIGHT(q) ((q)->sum_weight)
#else
#define KB_SUM_W_VRUNTIME(q) ((q)->avg_vruntime)
#define KB_SUM_WEIGHT(q) ((q)->avg_load)
#endif

/* The pick's search, which reads V, is __pick_eevdf(cfs_rq, protect), called
 * by pick_eevdf() and by the wake-up decision (6.18 and 7.0); before 6.18
 * pick_eevdf() is the one.  7.1 folds the search into pick_eevdf(cfs_rq,
 * protect) (EEVDF_TREE_PICK_PROTECT, tested first). */
#define KB_PICK_SEARCH_PROTECT KB_SINCE_6_18
/* set_next_entity() takes `first` (7.0) */
#define KB_SET_NEXT_ENTITY_FIRST KB_SINCE_7_0
/* The wake-up decision's answers that name a reason its pick does not:
 * 6.12's do_preempt_short() (gone in 6.18), 7.0's preempt_sync() */
#define KB_DECISION_DO_PREEMPT_SHORT (!KB_SINCE_6_18 && EEVDF_TREE_PREEMPT_SHORT)
#define KB_DECISION_PREEMPT_SYNC KB_SINCE_7_0
/* core.c services the tree calls: resched_curr_lazy() (6.18 on);
 * need_resched() from task_tick_fair() and the build-time traps of
 * vruntime_cmp()/vruntime_op() (7.0 on) */
#define KB_HAS_RESCHED_CURR_LAZY KB_SINCE_6_18
#define KB_TICK_ASKS_NEED_RESCHED KB_SINCE_7_0
#define KB_VRUNTIME_OPS KB_SINCE_7_0
/* idle_cpu() and available_idle_cpu() are core.c's (syscalls.c's), so ours,
 * before 7.0; 7.0's are the tree's sched.h helpers */
#define KB_GLUE_IDLE_CPU (!KB_SINCE_7_0)
/* 7.0's sched_move_task() asks the wake-up preemption for a queued task
 * that does not run */
#define KB_MOVE_TASK_WAKEUP_PREEMPT KB_SINCE_7_0
/* avg_vruntime() only reads its queue where the key base is min_vruntime
 * (6.6, 6.12.0 to the 6.12.y that took 79f3f9bedd14, 6.18): update_entity_lag()'s
 * wrapper asks it for V; where it is zero_vruntime (6.12.118, 7.0 on)
 * avg_vruntime() re-bases it onto V, so the wrapper reads the key base instead */
#define KB_AVG_VRUNTIME_READS_ONLY (!EEVDF_TREE_ZERO_VRUNTIME)
/* reweight_entity() rescales the relative deadline of an entity off its
 * queue (6d71a9c61604, v6.14; a 6.12 tree with K1's fix too): read from the tree */
#define KB_REWEIGHT_RESCALES_RELATIVE EEVDF_TREE_REWEIGHT_RESCALES_RELATIVE
/* fields the state export reads: se->vprot (6.18 on; 6.18's shares vlag's
 * bits), se->max_slice (7.0 on), cfs_rq->idle_nr_running and h_nr_delayed
 * (gone in 6.18) */
#define KB_HAS_VPROT KB_SINCE_6_18
#define KB_HAS_MAX_SLICE KB_SINCE_7_0
#define KB_HAS_IDLE_NR_RUNNING (!KB_SINCE_6_18)
