/* eevdf-check kernel backend: the C interface between our core.c side
 * (kernelsrc/glue.c, compiled with the kernel's fair.c code) and the C++
 * backend (kernelsrc/kernel_backend.cpp).  Plain data only: the C++ side never
 * sees a kernel structure.  Up to KB_MAX_CPUS CPUs (one on a tree built
 * !CONFIG_SMP, kb_smp() == 0), one instance per process.
 */
#ifndef EEVDF_KB_API_H
#define EEVDF_KB_API_H

#ifdef __cplusplus
extern "C" {
#endif

#define KB_MAX_TASKS 512
#define KB_MAX_GROUPS 32
#define KB_MAX_CPUS 8  /* the model's kMaxRunqueues */
/* task->__state as the glue uses it */
#define KB_TASK_RUNNING 0
#define KB_TASK_SLEEPING 1
#define KB_TASK_DEAD 0x80
#define KB_TASK_NEW 0x800

struct kb_config {
  unsigned int features;  /* sysctl_sched_features: bit i = features.h entry i */
  unsigned int ncpus;     /* num_online_cpus() for the base-slice factor */
  unsigned long long tick_nsec;  /* TICK_NSEC of the scenario's CONFIG_HZ */
  unsigned long long normalized_base_slice;
  unsigned int nr_cpus;   /* runqueues: CPUs with a struct rq each (1 on a !CONFIG_SMP tree) */
  unsigned int hz;        /* CONFIG_HZ of the scenario: HZ and INITIAL_JIFFIES of record_wakee() */
  unsigned int smt;       /* SMT siblings a core (CPUs k*smt .. k*smt+smt-1); 0 or 1: none */
};

/* record_wakee()'s memory of a waker (p->last_wakee as a task id, -1 none;
 * p->wakee_flips; p->wakee_flip_decay_ts), as the model's WakeeState */
struct kb_wakee {
  int last;
  unsigned int flips;
  unsigned long long decay_ts;
};

/* struct sched_avg without util_est (PELT: 0 on a !CONFIG_SMP tree) */
struct kb_avg {
  unsigned long long last_update_time, load_sum, runnable_sum, load_avg, runnable_avg, util_avg;
  unsigned int util_sum, period_contrib;
};

struct kb_entity {
  unsigned long long weight, deadline, min_vruntime, min_slice, exec_start, sum_exec_runtime,
      prev_sum_exec_runtime, vruntime, slice;
  long long vlag;
  /* 7.0: vprot apart from vlag (up to 6.18 the same storage: vlag's bits) and
   * the max_slice augment (0 on a tree without it) */
  unsigned long long vprot, max_slice;
  unsigned long long min_deadline;  /* 6.6: the min_deadline augment of the tree by vruntime (0 on later trees) */
  unsigned int inv_weight;
  int on_rq, sched_delayed, rel_deadline, custom_slice, depth;
  int queue;  /* -1 root queue, g: group g's queue */
  int rb_parent, rb_left, rb_right, rb_red;  /* entity ids: task id, or KB_MAX_TASKS + group; -1 none */
  struct kb_avg avg;
  unsigned long long runnable_weight;  /* a group entity's (se_update_runnable()) */
};

struct kb_queue {
  unsigned long long weight, avg_load, zero_vruntime;
  long long avg_vruntime;
  unsigned int inv_weight, nr_running, h_nr_queued, h_nr_runnable, idle_nr_running, idle_h_nr_running,
      h_nr_delayed;
  int root, leftmost, curr, next, idle;
  /* PELT: the queue's sums, the removed averages not yet taken out, task_h_load()'s cache */
  struct kb_avg avg;
  unsigned int removed_nr;
  unsigned long long removed_load_avg, removed_util_avg, removed_runnable_avg, h_load, last_h_load_update;
  /* a group's queue: its contribution to tg->load_avg and when it was made, the
   * load sum waiting for its group entity */
  unsigned long long tg_load_avg_contrib, last_update_tg_load_avg;
  long long prop_runnable_sum;
  int propagate;
  /* CPU bandwidth control (0 on a tree built without it): a group queue's
   * runtime and throttle state; csd_queued: on its CPU's CSD list
   * (throttled_csd_list not empty) */
  int runtime_enabled, throttled, throttle_count, csd_queued;
  long long runtime_remaining;
  unsigned long long throttled_clock, throttled_clock_pelt, throttled_clock_pelt_time, throttled_clock_self,
      throttled_clock_self_time;
};

/* a bandwidth hrtimer: its expiry (the scenario's clock), armed, its CPU */
struct kb_hrtimer {
  unsigned long long expires;
  int queued, cpu;
};
/* a group's struct cfs_bandwidth (cpu.max; quota ~0ULL: RUNTIME_INF, "max");
 * throttled_cfs_rq: the CPU of each queue on its throttled list, in list order */
struct kb_bandwidth {
  unsigned long long period, quota, runtime, burst, runtime_snap;
  long long hierarchical_quota;
  int idle, period_active, slack_started;
  struct kb_hrtimer period_timer, slack_timer;
  int nr_throttled_cfs_rq;
  int throttled_cfs_rq[KB_MAX_CPUS];
  int nr_periods, nr_throttled, nr_burst;
  unsigned long long throttled_time, burst_time;
};

/* one CPU's struct rq, its queues and entities of every group (tg->se[cpu], tg->cfs_rq[cpu]) */
struct kb_cpu_state {
  int curr, need_resched;
  unsigned int nr_running;
  unsigned long long clock_task;
  unsigned long long charged_ticks;  /* ticks that found curr with time to charge (as the model's Rq) */
  unsigned long long last_tick, longest_tick_gap;  /* as the model's Rq (the lag bounds' quantum) */
  /* another class: the RT task on the CPU (-1 none; curr is then -1), the RT list in FIFO order */
  int rt_curr, rt_nr_running;
  int rt_queue[KB_MAX_TASKS];
  unsigned long long resched_calls, fair_tick_rescheds;  /* as the model's Rq (I-PROT rule 5) */
  unsigned long long throttles, unthrottles;  /* as the model's Rq: throttle_cfs_rq() that throttled, unthrottle_cfs_rq() */
  struct kb_queue root;
  struct kb_entity group_se[KB_MAX_GROUPS];
  struct kb_queue group_q[KB_MAX_GROUPS];
  int sched_idle_rq;  /* the tree's own sched_idle_rq(rq) (the wake-up choice's SCHED_IDLE-only test) */
  int sync_affine;    /* the tree's own wake_affine_idle(cpu, cpu, WF_SYNC) answered cpu while a task runs
                         there (its WF_SYNC clause: "the waker is alone"); -1 idle or a !CONFIG_SMP tree */
  struct kb_wakee idle_wakee;  /* the idle task's, as a waker (a wake-up made while the CPU idles) */
  unsigned char group_se_changed[KB_MAX_GROUPS];  /* group_se[g] was exported: 1 whole, 2 its tree place only */
};

struct kb_state {
  int nr_tasks, nr_groups, nr_cpus;
  unsigned long long base_slice;
  struct kb_entity task_se[KB_MAX_TASKS];
  int task_on_rq[KB_MAX_TASKS], task_state[KB_MAX_TASKS], task_group[KB_MAX_TASKS], task_cpu[KB_MAX_TASKS];
  struct kb_wakee task_wakee[KB_MAX_TASKS];
  int task_recent_used_cpu[KB_MAX_TASKS];  /* p->recent_used_cpu (-1 on a !CONFIG_SMP tree) */
  unsigned long long group_shares[KB_MAX_GROUPS];
  int group_idle[KB_MAX_GROUPS];
  long long group_load_avg[KB_MAX_GROUPS];  /* tg->load_avg (0 on a !CONFIG_SMP tree) */
  struct kb_cpu_state cpu[KB_MAX_CPUS];
  int has_idle_cores;  /* the LLC's sd_llc_shared->has_idle_cores (0 on a !CONFIG_SMP tree) */
  /* CPU bandwidth control: the tree has it (kb_has_bandwidth()), each group's
   * tg->cfs_bandwidth, the cfs_bandwidth_used() static key's count */
  int bandwidth;
  struct kb_bandwidth group_bw[KB_MAX_GROUPS];
  int bandwidth_users;
  int pelt;            /* the tree runs PELT (a CONFIG_SMP tree) */
  unsigned char task_se_changed[KB_MAX_TASKS];  /* task_se[i] was exported by this kb_export(): 1 whole,
                                                   2 its place in the tree only (KB_EXPORT_MARKS) */
  /* the tasks whose fields (task_on_rq .. task_recent_used_cpu, and task_se
   * where task_se_changed) this kb_export() wrote: every task, or the marked
   * ones (KB_EXPORT_MARKS); the others' entries are the last export's */
  int changed_tasks[KB_MAX_TASKS], nr_changed_tasks;
  /* KB_EXPORT_CHECK found a change the marks missed (kb_export() returned
   * nonzero): the entity (a task id, or KB_MAX_TASKS + group), its CPU, and
   * whether its struct sched_entity (0) or its task's fields (1) changed */
  int missed_entity, missed_cpu, missed_task_fields;
  int missed_offset;  /* the first byte of struct sched_entity that differs (a word's) */
};

typedef void (*kb_warn_fn)(void *ctx, const char *file, int line, const char *cond);

/* Events of the tree's own functions, seen at their boundaries (the glue wraps
 * them: kernelsrc/extract.py INTERPOSED), for the invariants that judge a
 * moment inside an operation rather than its end (docs/kernel-backend.md,
 * "Events from the tree's own functions"). The handler runs while the kernel's
 * state is the one the event describes. */
#define KB_EVENT_PLACED 1  /* enqueue_entity() returned, having placed entity with its lag (PLACE_LAG, others queued) */
#define KB_EVENT_PICK 2    /* pick_eevdf() answered entity in a schedule's pick (not NULL) */
#define KB_EVENT_SET_NEXT 3  /* set_next_entity() returned; first: a pick's (pick_next_task_fair(), or
                                set_next_task_fair() with first), not the re-set after a sched_change */
#define KB_EVENT_DELAYED 4   /* dequeue_entity() returned leaving entity queued as sched_delayed */
#define KB_EVENT_MADE_RELATIVE 5  /* dequeue_entity() made entity's deadline relative (PLACE_REL_DEADLINE,
                                     not a sleep), before its account_entity_dequeue() */
#define KB_EVENT_REWEIGHT_BEGIN 6  /* reweight_entity() to weight, once the queue's update_curr() ran */
#define KB_EVENT_RELATIVE_RESCALED 7  /* that reweight_entity() rescaled the relative deadline old_relative of
                                         an entity off its queue from old_weight to weight (6.14 on) */
#define KB_EVENT_REWEIGHT_END 8    /* that reweight_entity() returned */
#define KB_EVENT_LAG 9  /* update_entity_lag() saved entity's lag: V - v was lag_raw, se->vlag is lag_saved */
#define KB_EVENT_READ_AVG 10  /* a function that reads V was entered (reader: KB_READER_*); entity: the queue's
                                 curr, or -1 */
#define KB_READER_UPDATE_ENTITY_LAG 0
#define KB_READER_PLACE_ENTITY 1
#define KB_READER_PICK_EEVDF 2
#define KB_EVENT_DECISION_PICK 11  /* the wake-up preemption decision's pick answered entity (-1: none) */
#define KB_EVENT_WAKE_CHOICE 12  /* the tree's select_task_rq_fair() answered chosen_cpu for the wake-up of
                                    task entity made on CPU cpu (kb_select_task_rq_wake()), before it is
                                    performed; not sent for a choice that is undone (KB_CHOICE_SIS_UTIL) */
#define KB_EVENT_WAKEUP_PREEMPT 13  /* the wake-up preemption decision returned having called resched_curr() itself
                                       (not inside update_curr()): entity is the wakee where it meets curr
                                       (the tree's find_matching_se()), queue theirs; reason KB_PREEMPT_* */
#define KB_EVENT_AVG 15  /* avg_vruntime() of queue returned avg, which is not the floor of the queued
                            entities' weighted average (the scheduler's calls and the debugfs reader's) */
#define KB_EVENT_LOAD_SET 16  /* core.c's set_load_weight() wrote entity's weight in place, without a reweight
                                (6.6: a SCHED_IDLE task's, before d32960528702); old_weight: the weight before */
#define KB_EVENT_PLACING 14  /* place_entity() was entered for entity (not inside reweight_entity(), whose
                               REWEIGHT_BEGIN covers 7.0's re-placement); initial: ENQUEUE_INITIAL */
/* why, read from the tree's own calls during the decision (docs/kernel-backend.md,
 * "Why a wake-up preempted"): its pick answered (with or without protection; on 6.12
 * do_preempt_short() answered true first), 7.0's preempt_sync() answered
 * PREEMPT_WAKEUP_RESCHED, or neither: the idle-curr rule */
#define KB_PREEMPT_PICK 0
#define KB_PREEMPT_SHORT_PICK 1
#define KB_PREEMPT_IDLE_CURR 2
#define KB_PREEMPT_SYNC 3
struct kb_event {
  int kind;
  int cpu;
  int queue;   /* as kb_entity.queue: -1 the CPU's root queue, g group g's */
  int entity;  /* task id, or KB_MAX_TASKS + group */
  long long saved_lag;  /* KB_EVENT_PLACED: se->vlag as place_entity() found it */
  int first;            /* KB_EVENT_SET_NEXT */
  unsigned long long weight, old_weight, old_relative;  /* KB_EVENT_REWEIGHT_BEGIN, KB_EVENT_RELATIVE_RESCALED */
  long long lag_raw, lag_saved;  /* KB_EVENT_LAG */
  int reader;                    /* KB_EVENT_READ_AVG */
  int protect;                   /* KB_EVENT_DECISION_PICK: the pick honoured slice protection */
  int via_pick_next;             /* KB_EVENT_DECISION_PICK: asked through pick_next_entity(), which
                                    dequeues a delayed answer (7.1: ac8e69e69363) */
  /* KB_EVENT_WAKE_CHOICE: prev_cpu (p->wake_cpu), the answer, WF_SYNC, and p->recent_used_cpu and
   * sd_llc_shared->has_idle_cores as they were before the choice */
  int prev_cpu, chosen_cpu, sync, recent_used_cpu, had_idle_cores;
  int reason;                    /* KB_EVENT_WAKEUP_PREEMPT: KB_PREEMPT_* */
  int initial;                   /* KB_EVENT_PLACING: place_entity()'s flags have ENQUEUE_INITIAL */
  unsigned long long avg;        /* KB_EVENT_AVG: the V it returned */
};
typedef void (*kb_event_fn)(void *ctx, const struct kb_event *e);
/* NULL: no events (the default after kb_init()) */
void kb_set_event_handler(kb_event_fn fn, void *ctx);
/* Whether anyone hears the events of CPU cpu (ctx: the event handler's): a
 * wrapper whose filter walks a queue (avg_vruntime()'s) asks first.  NULL:
 * every event is sent. */
typedef int (*kb_listen_fn)(void *ctx, int cpu);
void kb_set_listen_query(kb_listen_fn fn);

void kb_init(const struct kb_config *cfg, kb_warn_fn warn, void *ctx);
unsigned long long kb_base_slice(void);
/* features.h entry names in order, NULL-terminated (the tree's own list) */
extern const char *const kb_feature_names[];
extern const int kb_feature_defaults[];
const char *kb_kernel_version(void);
/* the fixes and patches applied to the tree's files at build time (EEVDF_KERNEL_FIXES, _PATCHES), or "" */
const char *kb_kernel_changes(void);
int kb_create_task(int nice, int policy, unsigned long long slice, int group);  /* policy 1: SCHED_FIFO */
int kb_fork_task(int parent, int copy_races_sched_change);
/* cpu: select_task_rq()'s answer, -1 the task's own CPU (set_task_cpu() and
 * WF_MIGRATED when it differs; a queued, delayed task is woken where it is) */
int kb_wake(int id, int sync, int initial_flag, int cpu);
/* the load balancer's detach_task() + attach_task() of a queued task (only
 * set_task_cpu() for one that is not queued); -1 on a !CONFIG_SMP tree */
int kb_migrate(int id, int cpu);
/* try_to_wake_up()'s select_task_rq() for sleeping fair task id, made on CPU
 * `from` (WF_TTWU, and WF_SYNC when sync): the tree's select_task_rq_fair().
 * Returns the CPU (then kb_wake() performs the wake-up there), or -1 when the
 * task is not chosen for (not sleeping, an RT task), `from` is bad or the
 * tree is built !CONFIG_SMP.  Updates the waker's and the wakee's memory
 * (record_wakee(), recent_used_cpu) as the kernel does, and sends the answer
 * as KB_EVENT_WAKE_CHOICE before returning it.  A choice that read
 * what the backend does not keep, as the model refuses it, is undone (the
 * memory and has_idle_cores restored) and answered KB_CHOICE_SIS_UTIL (select_idle_cpu() under SIS_UTIL met an idle CPU or
 * looked for an idle core: the scan budget nr_idle_scan is PELT's). */
#define KB_CHOICE_SIS_UTIL (-3)
int kb_select_task_rq_wake(int id, int sync, int from);
/* 1 when the tree has the SMP code (migrate_task_rq_fair(), per-CPU groups) */
int kb_smp(void);
void kb_sleep(int id, int special);
void kb_exit_delayed(int id);
/* per CPU: __schedule(); the clock advances by ns with a tick at every
 * boundary; one sched_tick() at the next boundary, no reschedule honoured;
 * the clock advances with no tick; the clock advances, then one sched_tick() */
void kb_schedule(int cpu);
void kb_yield(int id);  /* sys_sched_yield() by the running task id */
void kb_run(int cpu, unsigned long long ns);
void kb_tick_nopreempt(int cpu);
void kb_run_notick(int cpu, unsigned long long ns);
void kb_tick_after(int cpu, unsigned long long ns);
void kb_set_nice(int id, int nice);
void kb_set_params(int id, int policy, unsigned long long runtime);
int kb_create_group(int parent, unsigned long long shares);
int kb_set_group_shares(int g, unsigned long long shares);
int kb_set_group_idle(int g, int idle);
void kb_move_task(int id, int group);
/* cgroup rmdir of group g (empty: the C++ side checks): the tree's
 * unregister_fair_sched_group(), as sched_destroy_group() reaches it */
void kb_destroy_group(int g);
/* CPU bandwidth control (cgroup cpu.max), on a tree built with
 * CONFIG_CFS_BANDWIDTH (kb_has_bandwidth() 1: kernelsrc/extract_trees.py,
 * BANDWIDTH_TREES); on any other tree each refuses (-38, ENOSYS) or does nothing.
 * kb_set_bandwidth(): core.c's tg_set_cfs_bandwidth() of group g (cgroup v2),
 *   run on CPU 0; quota ~0ULL is RUNTIME_INF ("max"); 0 or -EINVAL (-22).
 * kb_cpu_max_burst(): the burst core.c's cpu_max_write() passes on for group g
 *   when the write sets none (the tree's rule: its burst, or on a tree before
 *   49217ea147df its burst in microseconds taken as nanoseconds).
 * kb_fire_timer(): the expiry of group g's period timer (slack 0) or slack
 *   timer, on the CPU it is armed on, with that CPU's clock as now (the
 *   callback run, the timer re-armed on HRTIMER_RESTART); -1 when not armed.
 * kb_next_timer(): the armed timer that expires first (by expiry, then group,
 *   the period timer first); 0 when none is armed.
 * kb_csd_pending(), kb_run_csd(): CPU cpu has a CSD queued (another CPU's
 *   distribute_cfs_runtime() asked it to unthrottle); it runs it
 *   (__cfsb_csd_unthrottle()). */
int kb_has_bandwidth(void);
/* rq->clock of CPU cpu (the scenario's clock; the bandwidth timers' now on that CPU) */
unsigned long long kb_clock(int cpu);
int kb_set_bandwidth(int g, unsigned long long period_ns, unsigned long long quota_ns, unsigned long long burst_ns);
unsigned long long kb_cpu_max_burst(int g);
int kb_fire_timer(int g, int slack);
int kb_next_timer(unsigned long long *expires, int *group, int *slack);
int kb_csd_pending(int cpu);
void kb_run_csd(int cpu);
/* a debugfs write of sched/base_slice_ns: sysctl_sched_base_slice = ns */
void kb_write_base_slice_ns(unsigned long long ns);
/* The state into s, which must be the same buffer at every call (what an
 * export leaves out is the last export's).  how, one of:
 *   KB_EXPORT_ALL: every entity and task;
 *   KB_EXPORT_COMPARE: every task's fields, and the entities whose struct
 *     sched_entity differs, byte for byte, from the one the last export of it
 *     read (every field of kb_entity is read from the sched_entity alone);
 *   KB_EXPORT_MARKS: the marked ones only: the entities the tree's functions
 *     and the glue wrote since the last export (glue/state.h: the interposed
 *     functions' entities, the nodes a tree's rebalancing touched, the entry
 *     point's tasks and its CPUs' currs, their parents), and those tasks'
 *     fields; a node marked for its place in the tree only is exported when
 *     its links, colour or augmented minima differ from the last export's;
 * or'ed with
 *   KB_EXPORT_CHECK (with MARKS): then every entity and task left out is
 *     compared with the last export; a difference is a change the marks
 *     missed: it is named in s->missed_* and kb_export() returns 1;
 *   KB_EXPORT_END_OP: the entry point ended: its marks are cleared (an export
 *     at an event inside it exports what is marked so far, and keeps the marks).
 * *_se_changed: which entities were exported; changed_tasks: which tasks.
 * The queues, the CPUs and the groups' fields are exported every time. */
#define KB_EXPORT_ALL 1
#define KB_EXPORT_COMPARE 2
#define KB_EXPORT_MARKS 4
#define KB_EXPORT_CHECK 8
#define KB_EXPORT_END_OP 16
int kb_export(struct kb_state *s, int how);
/* tests only: changes task id's entity (prev_sum_exec_runtime + 1) without a
 * mark, as a tree function the glue does not know of would; KB_EXPORT_CHECK must find it */
void kb_test_write_unmarked(int id);
unsigned long long kb_avg_vruntime(int cpu, int queue);
/* The sched debugfs reader, print_cfs_rq(): whether the tree's print_cfs_rq()
 * calls avg_vruntime() after it has dropped the rq lock (read from
 * kernel/sched/debug.c at build time); the reader alone (avg_vruntime() of
 * the queue, as under the lock); and a reader whose stores come later: load
 * runs the kernel's avg_vruntime() on the queue, hands back the two fields it
 * wrote (cfs_rq->avg_vruntime, ->zero_vruntime) and restores the queue as it
 * was; store writes them, after the operation the reader raced. */
int kb_debug_reader_unlocked(void);
void kb_debug_read(int cpu, int queue);
void kb_debug_read_load(int cpu, int queue, long long *avg_vruntime, unsigned long long *zero_vruntime);
void kb_debug_read_store(int cpu, int queue, long long avg_vruntime, unsigned long long zero_vruntime);
/* 1 once a pick found no entity (pick_eevdf() returned NULL inside
 * pick_next_entity(), which dereferences it): the kernel has crashed, every
 * entry point is a no-op from then on */
int kb_oopsed(void);

#ifdef __cplusplus
}
#endif
#endif
