/* eevdf-check kernel backend: the userspace shim that the kernel's own
 * kernel/sched/fair.c code (taken by name by kernelsrc/extract.py from a tree
 * outside this repository) compiles against.
 *
 * What stands in for what (docs/kernel-backend.md has the full list):
 *  - the kernel's base types and compiler helpers: C types and GCC builtins;
 *  - struct sched_entity, cfs_rq, rq, task_struct, task_group: our own
 *    definitions with the fields the extracted code uses, under the kernel's
 *    field names, as the tree's version and facts choose them (version.h);
 *  - cut points, which the backend does not run: schedstats, tracepoints,
 *    cgroup CPU accounting, the deadline server, cpufreq, PELT's clock,
 *    locking and RCU (one thread, one CPU);
 *  - core.c services the fair class calls back (resched_curr,
 *    update_rq_clock, wakeup_preempt, set_task_rq): kernelsrc/glue.c and its
 *    parts in kernelsrc/glue/, our core.c side.
 * The macros and helpers of kernel/sched/sched.h itself (scale_load_down,
 * sched_feat, cfs_rq_of, rq_clock_task, ...) are the tree's, extracted.
 */
#ifndef EEVDF_KERNELSRC_SHIM_H
#define EEVDF_KERNELSRC_SHIM_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <string.h>

#include "version.h"

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;

#define CONFIG_64BIT 1
#define CONFIG_FAIR_GROUP_SCHED 1
#define CONFIG_CGROUP_SCHED 1
#define CONFIG_GROUP_SCHED_WEIGHT 1
#define CONFIG_SCHED_DEBUG 1
#define CONFIG_NR_CPUS 1
#define BITS_PER_LONG 64

/* ---- compiler and kernel helpers ---- */
#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif
#define noinline __attribute__((noinline))
#define __read_mostly
#define const_debug
#define __maybe_unused __attribute__((unused))
#define __rcu
#define __init
#define __must_hold(x)
#if EEVDF_KERNEL_VERSION_CODE >= EEVDF_KV(7, 0)
/* 7.0's context analysis annotations (compiler-context-analysis.h): no checking here */
#define __returns_ctx_lock(x)
#define __acquires(x)
#define __releases(x)
#define fallthrough __attribute__((__fallthrough__))
#endif
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define READ_ONCE(x) (*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v) do { *(volatile __typeof__(x) *)&(x) = (v); } while (0)
#define barrier() __asm__ __volatile__("" ::: "memory")
#define smp_store_release(p, v) do { barrier(); WRITE_ONCE(*(p), (v)); } while (0)
#define ASSERT_EXCLUSIVE_WRITER(x) do { } while (0)
#define container_of(ptr, type, member) ((type *)((char *)(ptr) - offsetof(type, member)))
#define EXPORT_SYMBOL(x)
#define EXPORT_SYMBOL_GPL(x)
#define rcu_assign_pointer(p, v) WRITE_ONCE((p), (v))
#define RCU_INIT_POINTER(p, v) WRITE_ONCE((p), (v))
#define rcu_dereference_raw(p) READ_ONCE(p)
#define rcu_dereference(p) READ_ONCE(p)

#define min(a, b) ({ __typeof__(a) _a = (a); __typeof__(b) _b = (b); _a < _b ? _a : _b; })
#define max(a, b) ({ __typeof__(a) _a = (a); __typeof__(b) _b = (b); _a > _b ? _a : _b; })
#define min_t(t, a, b) ({ t _a = (a); t _b = (b); _a < _b ? _a : _b; })
#define max_t(t, a, b) ({ t _a = (a); t _b = (b); _a > _b ? _a : _b; })
#define clamp(v, lo, hi) min(max(v, lo), hi)
#define clamp_t(t, v, lo, hi) min_t(t, max_t(t, v, lo), hi)

/* Kernel warnings: an event for the backend (the checker's I-WARN), with file and line. */
void eevdf_kernel_warn(const char *file, int line, const char *cond);
#define WARN_ON_ONCE(c) ({ bool _w = !!(c); if (unlikely(_w)) eevdf_kernel_warn(__FILE__, __LINE__, #c); unlikely(_w); })
#define WARN_ON(c) WARN_ON_ONCE(c)
#define SCHED_WARN_ON(c) WARN_ON_ONCE(c)
#define BUG_ON(c) do { if (unlikely(c)) eevdf_kernel_warn(__FILE__, __LINE__, "BUG: " #c); } while (0)

/* include/linux/math64.h: the generic (non-asm) helpers, as arithmetic. */
static inline s64 div_s64(s64 dividend, s32 divisor) { return dividend / divisor; }
static inline u64 div_u64(u64 dividend, u32 divisor) { return dividend / divisor; }
static inline s64 div64_s64(s64 dividend, s64 divisor) { return dividend / divisor; }
static inline u64 div64_u64(u64 dividend, u64 divisor) { return dividend / divisor; }
static inline unsigned long div64_ul(unsigned long dividend, unsigned long divisor) { return dividend / divisor; }
/* 64-bit: div64_long() is div64_s64() (math64.h). */
#define div64_long(x, y) div64_s64((x), (y))
static inline u64 mul_u32_u32(u32 a, u32 b) { return (u64)a * b; }
static inline u64 mul_u64_u32_shr(u64 a, u32 mul, unsigned int shift) {
  return (u64)(((unsigned __int128)a * mul) >> shift);
}
/* include/linux/overflow.h: the compiler's checked arithmetic (true on overflow). */
#define check_add_overflow(a, b, d) __builtin_add_overflow(a, b, d)
#define check_mul_overflow(a, b, d) __builtin_mul_overflow(a, b, d)
static inline int fls(unsigned int x) { return x ? 32 - __builtin_clz(x) : 0; }
static inline int ilog2(unsigned long n) { return n ? 63 - __builtin_clzl(n) : -1; }

/* ---- lists (only what the group code touches; the leaf list is not walked) ---- */
struct list_head { struct list_head *next, *prev; };
static inline void INIT_LIST_HEAD(struct list_head *l) { l->next = l; l->prev = l; }
static inline void eevdf_list_add(struct list_head *n, struct list_head *prev, struct list_head *next) {
  next->prev = n; n->next = next; n->prev = prev; prev->next = n;
}
static inline void list_add_rcu(struct list_head *n, struct list_head *h) { eevdf_list_add(n, h, h->next); }
static inline void list_add_tail_rcu(struct list_head *n, struct list_head *h) { eevdf_list_add(n, h->prev, h); }
static inline void list_del_rcu(struct list_head *e) { e->next->prev = e->prev; e->prev->next = e->next; }

/* ---- rbtree: the tree's own lib/rbtree.c and headers, compiled as they are ---- */
#include <linux/rbtree_augmented.h>

/* ---- locking, RCU, per-CPU: one thread; every CPU's struct rq in one process ---- */
struct rq_flags { int unused; };
#define lockdep_assert_held(l) do { } while (0)
#define lockdep_assert_rq_held(rq) do { (void)(rq); } while (0)
#define rq_lock_irqsave(rq, rf) do { (void)(rq); (void)(rf); } while (0)
/* guard(rq_lock_irqsave)(rq) (cleanup.h scoped locks): one thread, no lock */
#define guard(name) (void)
#define rq_unlock_irqrestore(rq, rf) do { (void)(rq); (void)(rf); } while (0)
#if EEVDF_TREE_CHECK_PREEMPT_CURR
/* 6.6 takes the rq lock by hand where later trees use guard(): task_fork_fair()
 * (rq_lock()), unregister_fair_sched_group() (raw_spin_rq_lock_irqsave()) */
#define rq_lock(rq, rf) do { (void)(rq); (void)(rf); } while (0)
#define rq_unlock(rq, rf) do { (void)(rq); (void)(rf); } while (0)
#define raw_spin_rq_lock_irqsave(rq, flags) do { (void)(rq); (flags) = 0; } while (0)
#define _raw_spin_rq_lock_irqsave(rq) ((void)(rq), 0ul)
#define raw_spin_rq_unlock_irqrestore(rq, flags) do { (void)(rq); (void)(flags); } while (0)
#endif
#define mutex_lock(m) do { } while (0)
#define mutex_unlock(m) do { } while (0)
#define DEFINE_MUTEX(m) int m
/* the CPUs of the scenario (runqueues N; 1 on a tree built !CONFIG_SMP), set by the glue */
extern unsigned int eevdf_nr_possible_cpus;
#define for_each_possible_cpu(cpu) for ((cpu) = 0; (cpu) < (int)eevdf_nr_possible_cpus; (cpu)++)
#define atomic_inc(p) do { } while (0)
#define static_branch_unlikely(k) 0

/* ---- cut points (not run by the backend; each returns what a kernel with the feature off does) ---- */
#define schedstat_enabled() 0
#define __schedstat_set(var, val) do { } while (0)
#define schedstat_val(var) 0
#define __schedstats_from_se(se) ((struct sched_statistics *)0)
#define __update_stats_wait_start(rq, p, stats) do { } while (0)
#define __update_stats_wait_end(rq, p, stats) do { } while (0)
#define __update_stats_enqueue_sleeper(rq, p, stats) do { } while (0)
#define check_schedstat_required() do { } while (0)
#define schedstat_add(var, amt) do { } while (0)
/* 6.6's pick_eevdf() logs a failed search before it takes the leftmost entity */
#define pr_err(...) do { } while (0)
#define trace_sched_stat_runtime(p, ...) do { } while (0)  /* 6.6 passes the vruntime too */
#define trace_sched_update_nr_running_tp_enabled() 0
#define call_trace_sched_update_nr_running(rq, count) do { } while (0)
#define cgroup_account_cputime(p, delta) do { } while (0)
#define account_group_exec_runtime(p, delta) do { } while (0)
#define cpufreq_update_util(rq, flags) do { } while (0)
#define delayacct_blkio_start() do { } while (0)
#define update_idle_cfs_rq_clock_pelt(cfs_rq) do { } while (0)
/* The deadline server (fair_server) is not modelled: no RT or DL task ever runs. */
#define dl_server_active(dl_se) 0
#define dl_server_start(dl_se) do { } while (0)
#define dl_server_stop(dl_se) do { } while (0)
#define dl_server_update(dl_se, delta) do { } while (0)
#define dl_server_update_idle_time(rq, p) do { } while (0)
#define __put_prev_set_next_dl_server(rq, prev, next) do { } while (0)
struct sched_statistics;
struct sched_dl_entity { struct rq *rq; };

#if EEVDF_SHIM_SMP
#include "shim_smp.h"
#endif

/* ---- the scheduler's structures (our definitions, the kernel's field names) ---- */
struct load_weight {
  unsigned long weight;
  u32 inv_weight;
};

struct sched_entity {
  struct load_weight load;
  struct rb_node run_node;
  u64 deadline;
  u64 min_vruntime;
  u64 min_slice;
#if EEVDF_TREE_MIN_DEADLINE
  u64 min_deadline;  /* 6.6: the augment of the tree by vruntime (2227a957e1d5, v6.8, replaced it) */
#endif
#if EEVDF_KERNEL_VERSION_CODE >= EEVDF_KV(7, 0)
  u64 max_slice;  /* 7.0: the max_slice augment (6e3c0a4e1ad1) */
#endif
  struct list_head group_node;
  unsigned char on_rq;
  unsigned char sched_delayed;
  unsigned char rel_deadline;
  unsigned char custom_slice;
  u64 exec_start;
  u64 sum_exec_runtime;
  u64 prev_sum_exec_runtime;
  u64 vruntime;
#if EEVDF_KERNEL_VERSION_CODE >= EEVDF_KV(7, 0)
  s64 vlag;  /* 7.0: vlag and vprot apart (80390ead2080) */
  u64 vprot;
#elif EEVDF_KERNEL_VERSION_CODE >= EEVDF_KV(6, 18)
  union {  /* 6.18: vlag off the CPU, vprot while curr (protect_slice()) */
    s64 vlag;
    u64 vprot;
  };
#else
  s64 vlag;
#endif
  u64 slice;
  u64 nr_migrations;
  int depth;
  struct sched_entity *parent;
  struct cfs_rq *cfs_rq;
  struct cfs_rq *my_q;
  unsigned long runnable_weight;
#if EEVDF_SHIM_SMP
  struct sched_avg avg;  /* PELT: the tree's (kernelsrc/shim_smp.h) */
#endif
};

struct cfs_rq {
  struct load_weight load;
#if EEVDF_KERNEL_VERSION_CODE >= EEVDF_KV(7, 0)
  unsigned int nr_queued;
  unsigned int h_nr_queued;
  unsigned int h_nr_runnable;
  unsigned int h_nr_idle;
  s64 sum_w_vruntime;  /* 7.0: avg_vruntime, avg_load renamed (dcbc9d3f0e59, 4ff674fa986c) */
  u64 sum_weight;
  u64 zero_vruntime;   /* the key base again since 79f3f9bedd14 */
#if EEVDF_TREE_SUM_SHIFT
  unsigned int sum_shift;  /* PARANOID_AVG's weight shift (4823725d9d1d, v7.1) */
#endif
#elif EEVDF_KERNEL_VERSION_CODE >= EEVDF_KV(6, 18)
  unsigned int nr_queued;
  unsigned int h_nr_queued;
  unsigned int h_nr_runnable;
  unsigned int h_nr_idle;
  s64 avg_vruntime;
  u64 avg_load;
  u64 min_vruntime;  /* the key base up to 6.18 */
#else
  unsigned int nr_running;
#if EEVDF_TREE_H_NR_QUEUED
  unsigned int h_nr_queued;
#else
  unsigned int h_nr_running;  /* 6.12.0 - 6.12.y before the rename (tree fact) */
#endif
#if EEVDF_TREE_H_NR_RUNNABLE
  unsigned int h_nr_runnable;
#endif
  unsigned int idle_nr_running;
  unsigned int idle_h_nr_running;
  unsigned int h_nr_delayed;
  unsigned int idle_h_nr_delayed;  /* no kernel's: the F9 fix of kernelsrc/fixes.json adds it */
  s64 avg_vruntime;
  u64 avg_load;
#if EEVDF_TREE_ZERO_VRUNTIME
  u64 zero_vruntime;
#else
  u64 min_vruntime;  /* 6.12.0 - 6.12.y before 79f3f9bedd14 came (tree fact) */
#endif
#endif
  struct rb_root_cached tasks_timeline;
  struct sched_entity *curr;
  struct sched_entity *next;
#if EEVDF_SHIM_SMP
  struct sched_avg avg;  /* PELT: the tree's (shim_smp.h) */
  struct { raw_spinlock_t lock; int nr; unsigned long load_avg, util_avg, runnable_avg; } removed;
  u64 last_update_tg_load_avg;
  unsigned long tg_load_avg_contrib;
  long propagate, prop_runnable_sum;  /* add_tg_cfs_propagate() */
  unsigned long h_load;               /* task_h_load()'s cache, refreshed once a jiffy */
  u64 last_h_load_update;
  struct sched_entity *h_load_next;
#endif
  struct rq *rq;
  int on_list;
  struct list_head leaf_cfs_rq_list;
  struct task_group *tg;
  int idle;
#if EEVDF_TREE_BANDWIDTH
  /* CONFIG_CFS_BANDWIDTH (sched.h's layout) */
  int runtime_enabled;
  s64 runtime_remaining;
  u64 throttled_pelt_idle;
  u64 throttled_clock;
  u64 throttled_clock_pelt;
  u64 throttled_clock_pelt_time;
  u64 throttled_clock_self;
  u64 throttled_clock_self_time;
  int throttled;
  int throttle_count;
  struct list_head throttled_list;
  struct list_head throttled_csd_list;
#endif
};

#if EEVDF_TREE_BANDWIDTH
/* tg->cfs_bandwidth (sched.h's struct cfs_bandwidth with CONFIG_CFS_BANDWIDTH) */
struct cfs_bandwidth {
  raw_spinlock_t lock;
  ktime_t period;
  u64 quota;
  u64 runtime;
  u64 burst;
  u64 runtime_snap;
  s64 hierarchical_quota;
  u8 idle;
  u8 period_active;
  u8 slack_started;
  struct hrtimer period_timer;
  struct hrtimer slack_timer;
  struct list_head throttled_cfs_rq;
  int nr_periods;
  int nr_throttled;
  int nr_burst;
  u64 throttled_time;
  u64 burst_time;
};
#endif

struct task_group {
  int idle;
#if EEVDF_SHIM_SMP
  atomic_long_t load_avg;  /* PELT: Σ of its queues' tg_load_avg_contrib */
#endif
  struct sched_entity **se;
  struct cfs_rq **cfs_rq;
  unsigned long shares;
  struct task_group *parent;
#if EEVDF_TREE_BANDWIDTH
  struct cfs_bandwidth cfs_bandwidth;
#endif
};

struct sched_class;
struct task_struct;

struct rq {
  unsigned int nr_running;
  struct cfs_rq cfs;
  struct list_head leaf_cfs_rq_list;
  struct list_head *tmp_alone_branch;
  struct task_struct *curr;
  struct task_struct *donor;
  struct task_struct *idle;
  unsigned int clock_update_flags;
  u64 clock;
  u64 clock_task;
  u64 clock_pelt;  /* = clock_task: capacity 1024, no irq or steal time (model/pelt.hpp) */
  unsigned long lost_idle_time;  /* 0: clock_pelt never lags clock_task */
  int cpu;
  struct sched_dl_entity fair_server;
  unsigned int nr_uninterruptible;
  unsigned long next_balance;
#if EEVDF_SHIM_SMP
  struct list_head cfs_tasks;
  struct root_domain *rd;
  struct sched_domain *sd;     /* the CPU's one domain (shim_smp.h, the wake-up CPU choice) */
  int ttwu_pending;            /* 0: one thread, no remote wake-up queue */
  unsigned long cpu_capacity;  /* SCHED_CAPACITY_SCALE: no asymmetric capacities */
#if EEVDF_TREE_SIS_PROP
  u64 wake_stamp;               /* SIS_PROP's idle-time estimate (off) */
  u64 wake_avg_idle;
#endif
#endif
#if EEVDF_TREE_BANDWIDTH
  call_single_data_t cfsb_csd;  /* __cfsb_csd_unthrottle() of this CPU (kb_run_csd()) */
  struct list_head cfsb_csd_list;
#endif
#if EEVDF_KERNEL_VERSION_CODE >= EEVDF_KV(7, 0)
  raw_spinlock_t __lock;  /* named by 7.0's lock annotations (__rq_lockp()); never taken */
#endif
};

struct task_struct {
  unsigned int __state;
  int on_rq;
  int prio;
  int static_prio;
  int normal_prio;
  unsigned int policy;
  int sched_reset_on_fork;
  unsigned int in_iowait;
  const struct sched_class *sched_class;
  struct sched_entity se;
  struct task_group *sched_task_group;
  unsigned int sched_contributes_to_load;
  int need_resched;  /* TIF_NEED_RESCHED of this task */
  int cpu;
#if EEVDF_TREE_TASK_DL_SERVER
  struct sched_dl_entity *dl_server;  /* 6.12.0's update_curr() reads it; never set (no server) */
#endif
#if EEVDF_SHIM_SMP
  /* what select_task_rq_fair() reads and writes (shim_smp.h) */
  unsigned int flags;  /* PF_*: PF_IDLE | PF_KTHREAD for an idle task, else 0 */
  int nr_cpus_allowed;
  const struct cpumask *cpus_ptr;
  struct task_struct *last_wakee;  /* record_wakee() */
  unsigned int wakee_flips;
  unsigned long wakee_flip_decay_ts;
  int recent_used_cpu;  /* select_idle_sibling() */
#endif
};

struct sched_class {
#if EEVDF_TREE_PUT_PREV_NEXT
  void (*put_prev_task)(struct rq *rq, struct task_struct *p, struct task_struct *next);
#else
  void (*put_prev_task)(struct rq *rq, struct task_struct *p);  /* 6.6: without the next task */
#endif
  void (*set_next_task)(struct rq *rq, struct task_struct *p, bool first);
};
extern const struct sched_class fair_sched_class;

/* include/linux/sched.h, uapi sched.h: facts the fair class reads */
#define SCHED_NORMAL 0
#define SCHED_FIFO 1
#define SCHED_RR 2
#define SCHED_BATCH 3
#define SCHED_IDLE 5
#define SCHED_DEADLINE 6
#define SCHED_EXT 7
#define TASK_ON_RQ_QUEUED 1
#define TASK_ON_RQ_MIGRATING 2
#define MAX_RT_PRIO 100
#define NICE_TO_PRIO(nice) ((nice) + MAX_RT_PRIO + 20)
#define PRIO_TO_NICE(prio) ((prio) - MAX_RT_PRIO - 20)
#define NSEC_PER_SEC 1000000000L
#define NSEC_PER_MSEC 1000000L
#define NSEC_PER_USEC 1000L
#define SCHED_FIXEDPOINT_SHIFT 10
#define SCHED_CAPACITY_SHIFT SCHED_FIXEDPOINT_SHIFT
#define TIF_NEED_RESCHED 3
#define TASK_RUNNING 0x00000000
#define TASK_INTERRUPTIBLE 0x00000001
#define TASK_UNINTERRUPTIBLE 0x00000002
#define TASK_DEAD 0x00000080
#define TASK_NEW 0x00000800
#define EINVAL 22
enum sched_tunable_scaling {
  SCHED_TUNABLESCALING_NONE,
  SCHED_TUNABLESCALING_LOG,
  SCHED_TUNABLESCALING_LINEAR,
  SCHED_TUNABLESCALING_END,
};
/* CONFIG_HZ is the scenario's: TICK_NSEC reads the backend's value */
extern u64 eevdf_tick_nsec;
#define TICK_NSEC eevdf_tick_nsec
extern unsigned long jiffies;

/* SCHED_FEAT enum from the tree's own features.h */
#define SCHED_FEAT(name, enabled) __SCHED_FEAT_##name,
enum {
#include "sched_features.h"
  __SCHED_FEAT_NR,
};
#undef SCHED_FEAT
extern unsigned int sysctl_sched_features;

extern struct task_group root_task_group;

/* ---- core.c services, in kernelsrc/glue.c ---- */
void resched_curr(struct rq *rq);
#if EEVDF_KERNEL_VERSION_CODE >= EEVDF_KV(6, 18)
/* resched_curr_lazy() sets the lazy bit only under PREEMPT_LAZY; the backend,
 * like the model, runs preemption model "full" (docs/model.md), where it is
 * resched_curr() */
void resched_curr_lazy(struct rq *rq);
#endif
#if EEVDF_KERNEL_VERSION_CODE >= EEVDF_KV(7, 0)
/* 7.0's vruntime_cmp()/vruntime_op() call these for an unknown operator, a link
 * error in the kernel; the glue defines them (a BUG warning) so that a build
 * without optimisation, which keeps the dead branch, still links */
void __BUILD_BUG_vruntime_cmp(void);
void __BUILD_BUG_vruntime_op(void);
bool need_resched(void);  /* 7.0's task_tick_fair(): TIF_NEED_RESCHED of current */
#endif
void update_rq_clock(struct rq *rq);
void wakeup_preempt(struct rq *rq, struct task_struct *p, int flags);
#if EEVDF_TREE_CHECK_PREEMPT_CURR
/* 6.6: core.c's wakeup_preempt() under its name before v6.7 */
void check_preempt_curr(struct rq *rq, struct task_struct *p, int flags);
#endif
struct rq *cpu_rq(int cpu);
int task_cpu(const struct task_struct *p);
int test_tsk_need_resched(struct task_struct *p);
void rq_clock_skip_update(struct rq *rq);
unsigned int num_online_cpus(void);

#endif
