/* eevdf-check kernel backend: our core.c side around the kernel's own fair
 * class.  This file is compiled in the same translation unit as the code
 * kernelsrc/extract.py takes from a kernel tree (fair_extract.c includes
 * it last), so it calls the fair class's static hooks directly, in the order
 * kernel/sched/core.c calls them (6.12, and 6.18 where it differs under
 * EEVDF_KERNEL_VERSION_CODE or a fact of version.h: wake_up_new_task, ttwu_runnable /
 * ttwu_do_activate, __schedule with try_to_block_task, sched_tick,
 * set_user_nice, __sched_setscheduler, sched_move_task), with the clock the
 * scenario sets.  One CPU.  Every identifier of the tree that this file uses
 * is a root of the extraction.
 */
#include <setjmp.h>

#include "kb_api.h"

/* Field names that changed between the versions the extractor handles:
 * 6.12's cfs_rq->nr_running is 6.18's nr_queued, idle_h_nr_running is
 * h_nr_idle, and the key base zero_vruntime (6.12.y) is min_vruntime in 6.18. */
/* 7.0 renamed the fair class's wakeup_preempt hook (704069649b5b): it returns
 * at once for a wakee of another class, so core.c's call of it for a higher
 * class's wakee changes nothing and is left out, as before. */
#if EEVDF_KERNEL_VERSION_CODE >= EEVDF_KV(7, 0)
#define KB_WAKEUP_PREEMPT_FAIR wakeup_preempt_fair
#else
#define KB_WAKEUP_PREEMPT_FAIR check_preempt_wakeup_fair
#endif
/* 7.0's pick_task_fair() takes the rq_flags (for the newidle balance of
 * pick_next_task_fair() only; core.c's class loop passes them, the pick
 * itself does not read them) */
#if EEVDF_KERNEL_VERSION_CODE >= EEVDF_KV(7, 0)
#define KB_PICK_TASK_FAIR(rq) pick_task_fair((rq), NULL)
#else
#define KB_PICK_TASK_FAIR(rq) pick_task_fair(rq)
#endif
#if EEVDF_KERNEL_VERSION_CODE >= EEVDF_KV(7, 0)
#define KB_NR_QUEUED(q) ((q)->nr_queued)
#define KB_H_NR_IDLE(q) ((q)->h_nr_idle)
#define KB_KEY_BASE(q) ((q)->zero_vruntime)
#elif EEVDF_KERNEL_VERSION_CODE >= EEVDF_KV(6, 18)
#define KB_NR_QUEUED(q) ((q)->nr_queued)
#define KB_H_NR_IDLE(q) ((q)->h_nr_idle)
#define KB_KEY_BASE(q) ((q)->min_vruntime)
#else
#define KB_NR_QUEUED(q) ((q)->nr_running)
#define KB_H_NR_IDLE(q) ((q)->idle_h_nr_running)
#define KB_KEY_BASE(q) ((q)->zero_vruntime)
#endif
/* 7.0 renamed the queue's sums: avg_vruntime is sum_w_vruntime, avg_load is
 * sum_weight (dcbc9d3f0e59, 4ff674fa986c) */
#if EEVDF_KERNEL_VERSION_CODE >= EEVDF_KV(7, 0)
#define KB_SUM_W_VRUNTIME(q) ((q)->sum_w_vruntime)
#define KB_SUM_WEIGHT(q) ((q)->sum_weight)
#else
#define KB_SUM_W_VRUNTIME(q) ((q)->avg_vruntime)
#define KB_SUM_WEIGHT(q) ((q)->avg_load)
#endif

unsigned int sysctl_sched_features;
struct task_group root_task_group;

static struct rq kb_rq;
static struct task_struct kb_tasks[KB_MAX_TASKS];
static int kb_nr_tasks;
static struct task_struct kb_idle_task;
#if EEVDF_SHIM_SMP
static struct root_domain kb_rd;  /* add_nr_running()'s overload flag; read by no code the backend runs */
#endif
static struct task_group kb_groups[KB_MAX_GROUPS];
static struct sched_entity kb_group_se[KB_MAX_GROUPS];
static struct cfs_rq kb_group_cfs_rq[KB_MAX_GROUPS];
static struct sched_entity *kb_group_se_ptr[KB_MAX_GROUPS][1];
static struct cfs_rq *kb_group_cfs_rq_ptr[KB_MAX_GROUPS][1];
static struct sched_entity *kb_root_se_ptr[1];
static struct cfs_rq *kb_root_cfs_rq_ptr[1];
static int kb_nr_groups;
static unsigned int kb_online_cpus = 1;
u64 eevdf_tick_nsec;
unsigned long jiffies;
#define kb_tick_nsec eevdf_tick_nsec
static kb_warn_fn kb_warn_cb;
static void *kb_warn_ctx;
/* A NULL from pick_eevdf() during a pick is the kernel's NULL dereference in
 * pick_next_entity(): the pick is abandoned (longjmp back to kb_switch_to_next())
 * and the backend stays crashed. */
static int kb_picking, kb_crashed;
static jmp_buf kb_pick_env;

const struct sched_class fair_sched_class = {
  .put_prev_task = put_prev_task_fair,
  .set_next_task = set_next_task_fair,
};

void eevdf_kernel_warn(const char *file, int line, const char *cond) {
  if (kb_warn_cb) kb_warn_cb(kb_warn_ctx, file, line, cond);
}

/* pick_eevdf(), interposed (kernelsrc/extract.py renames the tree's definition
 * to kb_tree_pick_eevdf): the tree's function, and a crash where the kernel
 * crashes.  A NULL answer is harmless in check_preempt_wakeup_fair() (compared
 * with the wakee) and fatal in pick_next_entity() (se->sched_delayed). */
static struct sched_entity *pick_eevdf(struct cfs_rq *cfs_rq) {
  struct sched_entity *se = kb_tree_pick_eevdf(cfs_rq);
  if (!se && kb_picking) {
    kb_crashed = 1;
    longjmp(kb_pick_env, 1);
  }
  return se;
}

int kb_oopsed(void) { return kb_crashed; }

/* ---- another class on the CPU (issue 21 part 4) ----
 * SCHED_FIFO tasks of one priority: a struct task_struct whose sched_class is
 * not the fair class, on a FIFO list (rq->rt's one priority list; the head
 * runs), counted in rq->nr_running with add_nr_running()/sub_nr_running() as
 * enqueue_task_rt()/dequeue_task_rt() do. Not the kernel's rt.c: its two hooks
 * that put_prev_set_next_task() calls are ours and do nothing (the RT class's
 * own accounting, update_curr_rt(), is not modelled, as in the model). */
static int kb_rt_queue[KB_MAX_TASKS];
static int kb_rt_nr;
static void kb_put_prev_task_rt(struct rq *rq, struct task_struct *p, struct task_struct *next) {
  (void)rq; (void)p; (void)next;
}
static void kb_set_next_task_rt(struct rq *rq, struct task_struct *p, bool first) {
  (void)rq; (void)p; (void)first;
}
static const struct sched_class kb_rt_sched_class = {
  .put_prev_task = kb_put_prev_task_rt,
  .set_next_task = kb_set_next_task_rt,
};
static int kb_is_rt(const struct task_struct *p) { return p->sched_class == &kb_rt_sched_class; }

/* ---- core.c services the fair class calls ---- */
/* counted for the checker (the model's Rq::resched_calls, fair_tick_rescheds): I-PROT rule 5 */
static unsigned long long kb_resched_calls, kb_fair_tick_rescheds;
void resched_curr(struct rq *rq) {
  rq->curr->need_resched = 1;
  ++kb_resched_calls;
}
#if EEVDF_KERNEL_VERSION_CODE >= EEVDF_KV(6, 18)
void resched_curr_lazy(struct rq *rq) { resched_curr(rq); }  /* preemption model "full" */
#endif
#if EEVDF_KERNEL_VERSION_CODE >= EEVDF_KV(7, 0)
/* need_resched() of current (7.0's task_tick_fair() asks it for a queued,
 * hrtick, tick: the glue's ticks are never queued) */
bool need_resched(void) { return kb_rq.curr->need_resched; }
void __BUILD_BUG_vruntime_cmp(void) { eevdf_kernel_warn(__FILE__, __LINE__, "BUG: vruntime_cmp() operator"); }
void __BUILD_BUG_vruntime_op(void) { eevdf_kernel_warn(__FILE__, __LINE__, "BUG: vruntime_op() operator"); }
#endif
void update_rq_clock(struct rq *rq) { rq->clock_update_flags |= RQCF_UPDATED; /* the scenario sets the clock */ }
void rq_clock_skip_update(struct rq *rq) { (void)rq; }
struct rq *cpu_rq(int cpu) { (void)cpu; return &kb_rq; }
int task_cpu(const struct task_struct *p) { (void)p; return 0; }
int test_tsk_need_resched(struct task_struct *p) { return p->need_resched; }
unsigned int num_online_cpus(void) { return kb_online_cpus; }

/* core.c wakeup_preempt() of a fair task: the fair class above idle, below an RT curr.
 * 7.0 tests rq->next_class instead of the donor's class; the two differ only
 * from a higher class's wake-up (which set need_resched) to the next
 * __schedule(), where the fair hook returns before it changes anything. */
void wakeup_preempt(struct rq *rq, struct task_struct *p, int flags) {
  if (rq->curr == &kb_idle_task)
    resched_curr(rq);
  else if (!kb_is_rt(rq->curr))
    KB_WAKEUP_PREEMPT_FAIR(rq, p, flags);
}

static struct task_struct *kb_task(int id) { return id >= 0 && id < kb_nr_tasks ? &kb_tasks[id] : 0; }
static int kb_is_curr(struct task_struct *p) { return kb_rq.curr == p; }

/* core.c set_load_weight() */
static void kb_set_load_weight(struct task_struct *p, bool update_load) {
  int prio = p->static_prio - MAX_RT_PRIO;
  struct load_weight lw;
  if (task_has_idle_policy(p)) {
    lw.weight = scale_load(WEIGHT_IDLEPRIO);
    lw.inv_weight = WMULT_IDLEPRIO;
  } else {
    lw.weight = scale_load(sched_prio_to_weight[prio]);
    lw.inv_weight = sched_prio_to_wmult[prio];
  }
  if (update_load)
    reweight_task_fair(task_rq(p), p, &lw);
  else
    p->se.load = lw;
}

/* syscalls.c __setparam_fair() (6.12): policy, custom slice */
static void kb_setparam_fair(struct task_struct *p, unsigned int policy, u64 runtime) {
  p->policy = policy;
  if (runtime) {
    p->se.custom_slice = 1;
    p->se.slice = clamp_t(u64, runtime, NSEC_PER_MSEC / 10, NSEC_PER_MSEC * 100);
  } else {
    p->se.custom_slice = 0;
    p->se.slice = sysctl_sched_base_slice;
  }
}

/* ---- set-up ---- */
static unsigned long long kb_charged_ticks;  /* counted for the checker, as the model's Rq::charged_ticks */
static unsigned long long kb_last_tick, kb_longest_tick_gap;  /* and Rq::last_tick, Rq::longest_tick_gap */

void kb_init(const struct kb_config *cfg, kb_warn_fn warn, void *ctx) {
  memset(&kb_rq, 0, sizeof kb_rq);
  kb_charged_ticks = 0;
  kb_last_tick = kb_longest_tick_gap = 0;
  kb_resched_calls = kb_fair_tick_rescheds = 0;
  kb_rt_nr = 0;
  memset(kb_tasks, 0, sizeof kb_tasks);
  memset(&kb_idle_task, 0, sizeof kb_idle_task);
  memset(kb_groups, 0, sizeof kb_groups);
  memset(kb_group_se, 0, sizeof kb_group_se);
  memset(kb_group_cfs_rq, 0, sizeof kb_group_cfs_rq);
  memset(&root_task_group, 0, sizeof root_task_group);
  kb_nr_tasks = 0;
  kb_nr_groups = 0;
  kb_picking = kb_crashed = 0;
  kb_warn_cb = warn;
  kb_warn_ctx = ctx;
  sysctl_sched_features = cfg->features;
  kb_online_cpus = cfg->ncpus;
  kb_tick_nsec = cfg->tick_nsec;
  normalized_sysctl_sched_base_slice = cfg->normalized_base_slice;
  update_sysctl();
  kb_root_se_ptr[0] = 0;
  kb_root_cfs_rq_ptr[0] = &kb_rq.cfs;
  root_task_group.se = kb_root_se_ptr;
  root_task_group.cfs_rq = kb_root_cfs_rq_ptr;
  root_task_group.shares = ROOT_TASK_GROUP_LOAD;
  init_cfs_rq(&kb_rq.cfs);
  kb_rq.cfs.rq = &kb_rq;
  kb_rq.cfs.tg = &root_task_group;
  INIT_LIST_HEAD(&kb_rq.leaf_cfs_rq_list);
#if EEVDF_SHIM_SMP
  memset(&kb_rd, 0, sizeof kb_rd);
  kb_rq.rd = &kb_rd;
  INIT_LIST_HEAD(&kb_rq.cfs_tasks);
#endif
  kb_rq.tmp_alone_branch = &kb_rq.leaf_cfs_rq_list;
  kb_idle_task.sched_class = 0;
  kb_rq.curr = kb_rq.donor = kb_rq.idle = &kb_idle_task;
  kb_rq.clock_update_flags = RQCF_UPDATED;  /* update_rq_clock() at every entry: the clock is the scenario's */
}

unsigned long long kb_base_slice(void) { return sysctl_sched_base_slice; }

/* core.c __sched_fork() + sched_fork() for a fresh task (no parent to copy) */
int kb_create_task(int nice, int policy, unsigned long long slice, int group) {
  if (kb_nr_tasks >= KB_MAX_TASKS || group >= kb_nr_groups) return -1;
  struct task_struct *p = &kb_tasks[kb_nr_tasks];
  memset(p, 0, sizeof *p);
  if (policy == SCHED_FIFO) {  /* an RT task: nice 0, no fair hook (sched_fork(): no task_fork) */
    if (nice != 0 || slice != 0 || group >= 0) return -1;
    p->sched_class = &kb_rt_sched_class;
    p->policy = SCHED_FIFO;
    p->static_prio = NICE_TO_PRIO(0);
    p->prio = p->normal_prio = MAX_RT_PRIO - 2;  /* sched_priority 1: every RT task of the scenario alike */
    p->sched_task_group = &root_task_group;
    p->se.slice = sysctl_sched_base_slice;  /* __sched_fork() */
    INIT_LIST_HEAD(&p->se.group_node);
    set_task_rq(p, 0);
    kb_set_load_weight(p, false);
    p->__state = KB_TASK_NEW;
    return kb_nr_tasks++;
  }
  p->sched_class = &fair_sched_class;
  p->static_prio = NICE_TO_PRIO(nice);
  p->prio = p->normal_prio = p->static_prio;
  p->sched_task_group = group < 0 ? &root_task_group : &kb_groups[group];
  p->se.slice = sysctl_sched_base_slice;
  INIT_LIST_HEAD(&p->se.group_node);
  set_task_rq(p, 0);
  p->policy = (unsigned)policy;  /* the policy a new task starts with: its weight depends on it */
  kb_set_load_weight(p, false);
  kb_setparam_fair(p, (unsigned)policy, slice);
  p->__state = KB_TASK_NEW;
  task_fork_fair(p);
  return kb_nr_tasks++;
}

/* copy_process() by the running task: dup_task_struct(), then sched_fork() */
int kb_fork_task(int parent, int copy_races_sched_change) {
  struct task_struct *pp = kb_task(parent);
  if (!pp || !kb_is_curr(pp) || kb_nr_tasks >= KB_MAX_TASKS) return -1;
  struct task_struct *p = &kb_tasks[kb_nr_tasks];
  *p = *pp;
  if (copy_races_sched_change && sched_feat(PLACE_REL_DEADLINE)) p->se.rel_deadline = 1;
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
  set_task_rq(p, 0);
  task_fork_fair(p);
  return kb_nr_tasks++;
}

/* core.c __schedule(): pick_next_task() and the switch */
static void kb_switch_to_next(void) {
  struct task_struct *prev = kb_rq.curr;
  struct task_struct *next;
  struct rq_flags rf;
  if (kb_crashed) return;
  kb_picking = 1;
  if (setjmp(kb_pick_env)) {  /* pick_eevdf() returned NULL: the kernel crashed here */
    kb_picking = 0;
    return;
  }
  if (kb_rt_nr) {
    /* __pick_next_task(): rq->nr_running != rq->cfs.h_nr_queued, the class loop;
     * pick_task_rt() gives the head of the list, then put_prev_set_next_task():
     * put_prev_task_fair() for a fair prev */
    next = &kb_tasks[kb_rt_queue[0]];
    if (prev != &kb_idle_task)
      put_prev_set_next_task(&kb_rq, prev, next);
    else
      kb_set_next_task_rt(&kb_rq, next, true);
  } else if (prev != &kb_idle_task) {
    /* a fair prev: the fast path; an RT prev (blocked): the class loop reaches
     * pick_next_task_fair(), whose `simple` path calls put_prev_set_next_task() */
    next = pick_next_task_fair(&kb_rq, prev, &rf);
    if (!next && !kb_is_rt(prev)) put_prev_task_fair(&kb_rq, prev, &kb_idle_task);
  } else {
    next = KB_PICK_TASK_FAIR(&kb_rq);
    if (next) set_next_task_fair(&kb_rq, next, true);
  }
  kb_picking = 0;
  /* 6.12 __schedule(): clear_tsk_need_resched(prev) after the pick, so a
   * resched_curr() inside the pick (update_curr() reaching the deadline) is
   * cleared with it */
  prev->need_resched = 0;
  kb_rq.curr = kb_rq.donor = next ? next : &kb_idle_task;
}

void kb_schedule(void) { kb_switch_to_next(); }

/* wake_up_new_task() (new) or try_to_wake_up() (ttwu_runnable / ttwu_do_activate) */
int kb_wake(int id, int sync, int initial_flag) {
  struct task_struct *p = kb_task(id);
  if (!p) return -1;
  if (kb_is_rt(p)) {
    /* activate_task(): enqueue_task_rt() at the tail, add_nr_running(); then
     * wakeup_preempt(): the RT class is above fair and idle (no fair
     * wakeup_preempt call), and wakeup_preempt_rt() leaves an RT curr of the
     * same priority alone */
    p->__state = KB_TASK_RUNNING;
    kb_rt_queue[kb_rt_nr++] = id;
    p->on_rq = TASK_ON_RQ_QUEUED;
    add_nr_running(&kb_rq, 1);
    if (!kb_is_rt(kb_rq.curr)) resched_curr(&kb_rq);
    return 0;
  }
  if (p->__state == KB_TASK_NEW) {
    p->__state = KB_TASK_RUNNING;
    enqueue_task_fair(&kb_rq, p, ENQUEUE_NOCLOCK | (initial_flag ? ENQUEUE_INITIAL : 0));
    p->on_rq = TASK_ON_RQ_QUEUED;
    wakeup_preempt(&kb_rq, p, WF_FORK);
    return 0;
  }
  int wake_flags = WF_TTWU | (sync ? WF_SYNC : 0);
  if (p->on_rq) {
    if (p->se.sched_delayed) enqueue_task_fair(&kb_rq, p, ENQUEUE_NOCLOCK | ENQUEUE_DELAYED);
    if (!kb_is_curr(p)) wakeup_preempt(&kb_rq, p, wake_flags);
  } else {
    if (kb_online_cpus > 1) wake_flags |= WF_RQ_SELECTED;
    enqueue_task_fair(&kb_rq, p, ENQUEUE_WAKEUP | ENQUEUE_NOCLOCK);
    p->on_rq = TASK_ON_RQ_QUEUED;
    wakeup_preempt(&kb_rq, p, wake_flags);
  }
  p->__state = KB_TASK_RUNNING;
  return 0;
}

/* __schedule() of a blocking current task: try_to_block_task() */
void kb_sleep(int id, int special) {
  struct task_struct *p = kb_task(id);
  p->__state = special ? KB_TASK_DEAD : KB_TASK_SLEEPING;
  if (kb_is_rt(p)) {  /* dequeue_task_rt(), sub_nr_running() */
    for (int i = 0; i < kb_rt_nr; i++)
      if (kb_rt_queue[i] == id) {
        for (int j = i + 1; j < kb_rt_nr; j++) kb_rt_queue[j - 1] = kb_rt_queue[j];
        kb_rt_nr--;
        sub_nr_running(&kb_rq, 1);
        break;
      }
    p->on_rq = 0;
    kb_switch_to_next();
    return;
  }
  int flags = DEQUEUE_SLEEP | DEQUEUE_NOCLOCK | (special ? DEQUEUE_SPECIAL : 0);
  if (dequeue_task_fair(&kb_rq, p, flags)) __block_task(&kb_rq, p);
  kb_switch_to_next();
}

/* do_task_dead() is kb_sleep(id, 1); then finish_task_switch() of a dead, still delayed task */
void kb_exit_delayed(int id) {
  struct task_struct *p = kb_task(id);
  if (p->se.sched_delayed) dequeue_entities(&kb_rq, &p->se, DEQUEUE_SLEEP | DEQUEUE_DELAYED);
}

void kb_yield(void) {
  yield_task_fair(&kb_rq);
  kb_switch_to_next();
}

/* sched_tick(): the class's task_tick, then a pending reschedule at the tick's return */
static void kb_do_tick(void) {
  int fair = kb_rq.curr != &kb_idle_task && !kb_is_rt(kb_rq.curr);  /* task_tick_rt(): nothing modelled */
  if (fair && kb_rq.clock_task > kb_rq.curr->se.exec_start) ++kb_charged_ticks;
  if (kb_rq.clock_task - kb_last_tick > kb_longest_tick_gap) kb_longest_tick_gap = kb_rq.clock_task - kb_last_tick;
  kb_last_tick = kb_rq.clock_task;
  if (fair) {
    unsigned long long before = kb_resched_calls;
    task_tick_fair(&kb_rq, kb_rq.curr, 0);
    if (kb_resched_calls != before) ++kb_fair_tick_rescheds;
  }
}

static int kb_need_resched(void) { return kb_rq.curr->need_resched; }

void kb_run(unsigned long long ns) {
  if (kb_crashed) return;
  if (kb_need_resched() || (kb_rq.curr == &kb_idle_task && (KB_NR_QUEUED(&kb_rq.cfs) || kb_rt_nr))) kb_switch_to_next();
  u64 end = kb_rq.clock_task + ns;
  while (!kb_crashed) {
    u64 next_tick = (kb_rq.clock_task / kb_tick_nsec + 1) * kb_tick_nsec;
    if (next_tick > end) {
      kb_rq.clock = kb_rq.clock_task = end;
      break;
    }
    kb_rq.clock = kb_rq.clock_task = next_tick;
    kb_do_tick();
    if (kb_need_resched()) kb_switch_to_next();
  }
}

void kb_tick(void) { kb_run((kb_rq.clock_task / kb_tick_nsec + 1) * kb_tick_nsec - kb_rq.clock_task); }

/* sched_tick() at the next boundary with preemption disabled: nothing honoured */
void kb_tick_nopreempt(void) {
  if (kb_crashed) return;
  kb_rq.clock = kb_rq.clock_task = (kb_rq.clock_task / kb_tick_nsec + 1) * kb_tick_nsec;
  kb_do_tick();
}

/* Off the tick grid: the clock advances by ns with no tick (a nohz_full CPU),
 * or by ns and then one sched_tick(); a pending reschedule first, as kb_run(). */
void kb_run_notick(unsigned long long ns) {
  if (kb_crashed) return;
  if (kb_need_resched() || (kb_rq.curr == &kb_idle_task && (KB_NR_QUEUED(&kb_rq.cfs) || kb_rt_nr))) kb_switch_to_next();
  if (kb_crashed) return;
  kb_rq.clock = kb_rq.clock_task = kb_rq.clock_task + ns;
}

void kb_tick_after(unsigned long long ns) {
  kb_run_notick(ns);
  if (kb_crashed) return;
  kb_do_tick();
  if (!kb_crashed && kb_need_resched()) kb_switch_to_next();
}

/* The sched_change pattern of set_user_nice(), __sched_setscheduler() and sched_move_task().
 * 7.0 wraps it in sched_change_begin()/sched_change_end(), the same calls in
 * the same order; its end calls prio_changed() for all three with the prio
 * the task had, and prio_changed_fair() returns for an unchanged prio, so only
 * set_user_nice() calls it here. */
struct kb_change { int queued, running; };
static struct kb_change kb_change_begin(struct task_struct *p, int flags) {
  struct kb_change c = { task_on_rq_queued(p), kb_is_curr(p) };
  if (c.queued) dequeue_task_fair(&kb_rq, p, flags);
  if (c.running) put_prev_task_fair(&kb_rq, p, p);
  return c;
}
static void kb_change_end(struct task_struct *p, struct kb_change c, int flags) {
  if (c.queued) enqueue_task_fair(&kb_rq, p, flags);
  if (c.running) set_next_task_fair(&kb_rq, p, false);
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
  prio_changed_fair(&kb_rq, p, old_prio);
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

/* ---- task groups: sched_create_group() + sched_online_group(), cpu.shares, cpu.idle, moves ---- */
int kb_create_group(int parent, unsigned long long shares) {
  if (kb_nr_groups >= KB_MAX_GROUPS || parent >= kb_nr_groups) return -1;
  int g = kb_nr_groups++;
  struct task_group *tg = &kb_groups[g];
  struct task_group *ptg = parent < 0 ? &root_task_group : &kb_groups[parent];
  tg->parent = ptg;
  tg->shares = NICE_0_LOAD;  /* alloc_fair_sched_group() */
  tg->se = kb_group_se_ptr[g];
  tg->cfs_rq = kb_group_cfs_rq_ptr[g];
  init_cfs_rq(&kb_group_cfs_rq[g]);
  init_tg_cfs_entry(tg, &kb_group_cfs_rq[g], &kb_group_se[g], 0, ptg->se[0]);
  INIT_LIST_HEAD(&kb_group_se[g].group_node);
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
 * (DEQUEUE_SLEEP | DEQUEUE_DELAYED), the leaf list let go.  The grace periods in
 * between: one thread, nothing runs.  The slot is not reused. */
void kb_destroy_group(int g) {
  if (kb_crashed || g < 0 || g >= kb_nr_groups) return;
  unregister_fair_sched_group(&kb_groups[g]);
}

/* debug.c, 6.12: base_slice_ns is debugfs_create_u32() on sysctl_sched_base_slice,
 * a plain store (normalized_sysctl_sched_base_slice is not touched) */
void kb_write_base_slice_ns(unsigned long long ns) {
  if (kb_crashed) return;
  sysctl_sched_base_slice = (unsigned int)ns;
}

/* sched_move_task() */
void kb_move_task(int id, int group) {
  struct task_struct *p = kb_task(id);
  int flags = DEQUEUE_SAVE | DEQUEUE_MOVE | DEQUEUE_NOCLOCK;
  if (p->__state == KB_TASK_NEW) {  /* not yet on a queue: only its group changes */
    p->sched_task_group = group < 0 ? &root_task_group : &kb_groups[group];
    set_task_rq(p, 0);
    return;
  }
  struct kb_change c = kb_change_begin(p, flags);
  p->sched_task_group = group < 0 ? &root_task_group : &kb_groups[group];
  task_change_group_fair(p);
  kb_change_end(p, c, flags);
  if (c.running) resched_curr(&kb_rq);
#if EEVDF_KERNEL_VERSION_CODE >= EEVDF_KV(7, 0)
  /* 7.0's sched_move_task() asks the wake-up preemption for a task that is
   * queued but not running (6.18's does not) */
  else if (c.queued) wakeup_preempt(&kb_rq, p, 0);
#endif
}

/* ---- the state, for the C++ side ---- */
static int kb_entity_id(const struct sched_entity *se) {
  if (!se) return -1;
  if (se >= kb_group_se && se < kb_group_se + kb_nr_groups) return KB_MAX_TASKS + (int)(se - kb_group_se);
  const struct task_struct *p = container_of(se, struct task_struct, se);
  if (p >= kb_tasks && p < kb_tasks + kb_nr_tasks) return (int)(p - kb_tasks);
  return -2;
}

static int kb_node_id(const struct rb_node *n) {
  return n ? kb_entity_id(rb_entry(n, struct sched_entity, run_node)) : -1;
}

static int kb_queue_id(const struct cfs_rq *q) {
  if (!q) return -2;
  if (q == &kb_rq.cfs) return -1;
  for (int g = 0; g < kb_nr_groups; g++)
    if (q == &kb_group_cfs_rq[g]) return g;
  return -3;
}

static void kb_export_entity(const struct sched_entity *se, struct kb_entity *e) {
  e->weight = se->load.weight;
  e->inv_weight = se->load.inv_weight;
  e->deadline = se->deadline;
  e->min_vruntime = se->min_vruntime;
  e->min_slice = se->min_slice;
  e->on_rq = se->on_rq;
  e->sched_delayed = se->sched_delayed;
  e->rel_deadline = se->rel_deadline;
  e->custom_slice = se->custom_slice;
  e->exec_start = se->exec_start;
  e->sum_exec_runtime = se->sum_exec_runtime;
  e->prev_sum_exec_runtime = se->prev_sum_exec_runtime;
  e->vruntime = se->vruntime;
  e->vlag = se->vlag;
#if EEVDF_KERNEL_VERSION_CODE >= EEVDF_KV(7, 0)
  e->vprot = se->vprot;
  e->max_slice = se->max_slice;
#elif EEVDF_KERNEL_VERSION_CODE >= EEVDF_KV(6, 18)
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
}

static void kb_export_queue(const struct cfs_rq *q, struct kb_queue *o) {
  o->weight = q->load.weight;
  o->inv_weight = q->load.inv_weight;
  o->nr_running = KB_NR_QUEUED(q);
  o->h_nr_queued = q->h_nr_queued;
  o->h_nr_runnable = q->h_nr_runnable;
  o->idle_h_nr_running = KB_H_NR_IDLE(q);
#if EEVDF_KERNEL_VERSION_CODE < EEVDF_KV(6, 18)
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
}

void kb_export(struct kb_state *s) {
  s->nr_tasks = kb_nr_tasks;
  s->nr_groups = kb_nr_groups;
  s->clock_task = kb_rq.clock_task;
  s->charged_ticks = kb_charged_ticks;
  s->last_tick = kb_last_tick;
  s->longest_tick_gap = kb_longest_tick_gap;
  s->curr = kb_rq.curr == &kb_idle_task || kb_is_rt(kb_rq.curr) ? -1 : kb_entity_id(&kb_rq.curr->se);
  s->rt_curr = kb_is_rt(kb_rq.curr) ? kb_entity_id(&kb_rq.curr->se) : -1;
  s->rt_nr_running = kb_rt_nr;
  for (int i = 0; i < kb_rt_nr; i++) s->rt_queue[i] = kb_rt_queue[i];
  s->resched_calls = kb_resched_calls;
  s->fair_tick_rescheds = kb_fair_tick_rescheds;
  s->need_resched = kb_need_resched();
  s->nr_running = kb_rq.nr_running;
  s->sched_idle_rq = sched_idle_rq(&kb_rq);
  s->base_slice = sysctl_sched_base_slice;
  for (int i = 0; i < kb_nr_tasks; i++) {
    kb_export_entity(&kb_tasks[i].se, &s->task_se[i]);
    s->task_on_rq[i] = kb_tasks[i].on_rq;
    s->task_state[i] = (int)kb_tasks[i].__state;
    s->task_group[i] = kb_tasks[i].sched_task_group == &root_task_group
                           ? -1 : (int)(kb_tasks[i].sched_task_group - kb_groups);
  }
  kb_export_queue(&kb_rq.cfs, &s->root);
  for (int g = 0; g < kb_nr_groups; g++) {
    kb_export_entity(&kb_group_se[g], &s->group_se[g]);
    kb_export_queue(&kb_group_cfs_rq[g], &s->group_q[g]);
    s->group_shares[g] = kb_groups[g].shares;
    s->group_idle[g] = kb_groups[g].idle;
  }
}

/* avg_vruntime() of a queue, as the kernel computes it (6.12.118: it also re-bases zero_vruntime) */
unsigned long long kb_avg_vruntime(int queue) {
  return avg_vruntime(queue < 0 ? &kb_rq.cfs : &kb_group_cfs_rq[queue]);
}

/* ---- the sched debugfs reader: debug.c print_cfs_rq() ---- */
/* a racing reader loses updates only if the tree's avg_vruntime() stores
 * (6.12.118: it re-bases zero_vruntime; 6.18: it only reads) */
int kb_debug_reader_unlocked(void) { return EEVDF_DEBUG_READ_UNLOCKED && EEVDF_AVG_VRUNTIME_STORES; }

/* the reader alone: its avg_vruntime() call, whatever it writes */
void kb_debug_read(int queue) {
  if (!kb_crashed) (void)kb_avg_vruntime(queue);
}

/* the reader's loads and arithmetic: the tree's avg_vruntime() on the queue,
 * its two results handed back, the queue restored (the stores come later) */
void kb_debug_read_load(int queue, long long *avg, unsigned long long *zero) {
  struct cfs_rq *q = queue < 0 ? &kb_rq.cfs : &kb_group_cfs_rq[queue];
  struct cfs_rq saved = *q;
  (void)avg_vruntime(q);
  *avg = KB_SUM_W_VRUNTIME(q);
  *zero = KB_KEY_BASE(q);
  *q = saved;
}

/* the reader's stores, after the operation it raced: whatever that operation
 * wrote to the two fields is lost */
void kb_debug_read_store(int queue, long long avg, unsigned long long zero) {
  struct cfs_rq *q = queue < 0 ? &kb_rq.cfs : &kb_group_cfs_rq[queue];
  if (kb_crashed) return;
  KB_SUM_W_VRUNTIME(q) = avg;
  KB_KEY_BASE(q) = zero;
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
