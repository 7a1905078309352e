/* eevdf-check kernel backend: the cut points of a tree whose scheduler has no
 * !CONFIG_SMP code left (6.18: kernel/sched/fair.c has no CONFIG_SMP
 * conditional, so PELT, util_est, misfit/overutilized tracking and the
 * newidle balance are compiled in).  Up to 6.12 the tree's own !CONFIG_SMP
 * stubs cut them off; here each is a stand-in that does what that stub did,
 * i.e. what one CPU with no load tracking does (on several CPUs too: the
 * migration path itself, set_task_cpu() with migrate_task_rq_fair(), is the
 * tree's; only its PELT part falls away here).  Included by shim.h when
 * version.h says EEVDF_SHIM_SMP; kernelsrc/extract.py reads this file's
 * names as provided for the versions whose VERSIONS entry names it.
 *
 * PELT is the tree's (update_load_avg() and what it calls, the pelt.c
 * arithmetic, attach/detach/removal, init_entity_runnable_average(),
 * post_init_entity_util_avg(), task_h_load()), task groups included: a group
 * entity's averages, their propagation up the hierarchy, tg->load_avg and so
 * calc_group_shares().  Cut below: util_est, the CPU frequency hook, the
 * blocked-load update of the load balancer, an RT task's set_task_rq_fair().
 */
#ifndef EEVDF_KERNELSRC_SHIM_SMP_H
#define EEVDF_KERNELSRC_SHIM_SMP_H

struct cfs_rq;
struct sched_entity;
struct task_struct;
struct rq;
struct rq_flags;
/* PELT's per-entity and per-queue sums (include/linux/sched.h's layout) */
struct sched_avg {
  u64 last_update_time, load_sum, runnable_sum;
  u32 util_sum, period_contrib;
  unsigned long load_avg, runnable_avg, util_avg;
#if EEVDF_TREE_UTIL_EST_STRUCT
  struct util_est { unsigned int enqueued, ewma; } util_est;  /* 6.6: two fields (one word since v6.8) */
#else
  unsigned int util_est;
#endif
};
/* the root domain's overload flag, which add_nr_running() sets; read only by
 * the load balancer; overutilized, read by select_task_rq_fair() only when
 * energy-aware scheduling is on (it is not: is_rd_overutilized() is true) */
#if EEVDF_TREE_RD_OVERLOAD
struct root_domain { int overload; int overutilized; };  /* 6.6: the flag's name before v6.10 */
#else
struct root_domain { int overloaded; int overutilized; };
#endif

/* ATTACH_AGE_LOAD's aging of a task moved between queues without a
 * migration: only an RT task changing CPU reaches it (its se->avg is never
 * read while it is RT, and the model has no class change) */
static inline void set_task_rq_fair(struct sched_entity *se, struct cfs_rq *prev, struct cfs_rq *next) {
  (void)se; (void)prev; (void)next;
}
/* util_est (the CPU frequency and energy paths read it; not modelled) */
static inline void util_est_enqueue(struct cfs_rq *cfs_rq, struct task_struct *p) { (void)cfs_rq; (void)p; }
static inline void util_est_dequeue(struct cfs_rq *cfs_rq, struct task_struct *p) { (void)cfs_rq; (void)p; }
#if EEVDF_TREE_UTIL_EST_UPDATE_SE
static inline void util_est_update(struct sched_entity *se) { (void)se; }
#else
static inline void util_est_update(struct cfs_rq *cfs_rq, struct task_struct *p, bool task_sleep) {
  (void)cfs_rq; (void)p; (void)task_sleep;
}
#endif
/* the schedutil hook of a queue's utilization change */
static inline void cfs_rq_util_change(struct cfs_rq *cfs_rq, int flags) { (void)cfs_rq; (void)flags; }

/* going idle: lost_idle_time grows by clock_task - clock_pelt, 0 here (rq->clock_pelt is clock_task) */
static inline void update_idle_rq_clock_pelt(struct rq *rq) { (void)rq; }
/* tg->load_avg: an atomic sum over the CPUs' contributions (one thread) */
typedef struct { long counter; } atomic_long_t;
static inline long atomic_long_read(const atomic_long_t *v) { return v->counter; }
static inline void atomic_long_add(long i, atomic_long_t *v) {
  v->counter = (long)((unsigned long)v->counter + (unsigned long)i);
}
/* update_tg_load_avg()'s clock and its CPU: sched_clock_cpu() is the CPU's
 * rq->clock from the PELT clock's base (kernelsrc/glue.c), every CPU active */
u64 sched_clock_cpu(int cpu);
static inline bool cpu_active(int cpu) { (void)cpu; return true; }
/* include/linux/math.h's abs(), for update_tg_load_avg()'s long delta */
#define abs(x) ((x) < 0 ? -(x) : (x))
/* the removed-load lock of init_cfs_rq(): one thread */
#define raw_spin_lock_init(l) do { (void)(l); } while (0)
#define raw_spin_lock(l) do { (void)(l); } while (0)
#define raw_spin_unlock(l) do { (void)(l); } while (0)
#define raw_spin_lock_irqsave(l, flags) do { (void)(l); (flags) = 0; } while (0)
#define raw_spin_unlock_irqrestore(l, flags) do { (void)(l); (void)(flags); } while (0)
/* PELT's tracepoints: none */
#define trace_pelt_se_tp(se) do { (void)(se); } while (0)
#define trace_pelt_cfs_tp(cfs_rq) do { (void)(cfs_rq); } while (0)
typedef struct { int unused; } raw_spinlock_t;

/* rq->cfs_tasks, the list the load balancer walks (account_entity_enqueue(),
 * __set_next_task_fair()): kept as the tree keeps it, never walked */
static inline void list_add(struct list_head *n, struct list_head *h) { eevdf_list_add(n, h, h->next); }
static inline void list_del_init(struct list_head *e) {
  e->next->prev = e->prev; e->prev->next = e->next; INIT_LIST_HEAD(e);
}
static inline void list_move(struct list_head *e, struct list_head *h) {
  e->next->prev = e->prev; e->prev->next = e->next; list_add(e, h);
}

#if EEVDF_TREE_BANDWIDTH
/* ---- CPU bandwidth control (CONFIG_CFS_BANDWIDTH: the tree's throttle,
 * unthrottle, distribute and timer code is compiled in; docs/kernel-backend.md,
 * "CPU bandwidth control") ----
 * The two timers of a group (period, slack) are hrtimers of ours
 * (kernelsrc/glue/bandwidth.c): armed or not, an expiry on the glue's clock
 * (the running CPU's rq->clock), the CPU they fire on; they fire only when the
 * backend fires them (kb_fire_timer()), as the hrtimer core would: dequeued,
 * the callback run, re-armed on HRTIMER_RESTART.  The CSD another CPU's
 * distribute_cfs_runtime() sends is queued and run only when the backend says
 * (kb_run_csd()). */
typedef s64 ktime_t;
enum hrtimer_restart { HRTIMER_NORESTART, HRTIMER_RESTART };
enum hrtimer_mode {  /* include/linux/hrtimer.h: bit 0 relative, bit 1 pinned */
  HRTIMER_MODE_ABS = 0x00, HRTIMER_MODE_REL = 0x01, HRTIMER_MODE_PINNED = 0x02,
  HRTIMER_MODE_ABS_PINNED = 0x02, HRTIMER_MODE_REL_PINNED = 0x03,
};
#define CLOCK_MONOTONIC 1
struct hrtimer {
  ktime_t expires;
  enum hrtimer_restart (*function)(struct hrtimer *);
  int queued;   /* HRTIMER_STATE_ENQUEUED */
  int running;  /* its callback runs now (hrtimer_callback_running()) */
  int cpu;      /* the CPU whose timer base holds it */
};
static inline ktime_t ns_to_ktime(u64 ns) { return (ktime_t)ns; }
static inline s64 ktime_to_ns(ktime_t kt) { return kt; }
static inline void hrtimer_set_expires(struct hrtimer *timer, ktime_t time) { timer->expires = time; }
static inline int hrtimer_callback_running(struct hrtimer *timer) { return timer->running; }
void hrtimer_init(struct hrtimer *timer, int clock_id, enum hrtimer_mode mode);
u64 hrtimer_forward_now(struct hrtimer *timer, ktime_t interval);
void hrtimer_start(struct hrtimer *timer, ktime_t tim, enum hrtimer_mode mode);
void hrtimer_start_expires(struct hrtimer *timer, enum hrtimer_mode mode);
ktime_t hrtimer_expires_remaining(const struct hrtimer *timer);
bool hrtimer_active(const struct hrtimer *timer);
int hrtimer_try_to_cancel(struct hrtimer *timer);
int hrtimer_cancel(struct hrtimer *timer);
/* init_cfs_bandwidth()'s random phase of the period timer: 0, as the model */
static inline u32 get_random_u32_below(u32 ceil) { (void)ceil; return 0; }
/* sched_cfs_period_timer()'s warning of a period it doubles: no log */
#define pr_warn_ratelimited(...) do { } while (0)
/* the cfs_bandwidth_used() static key (CONFIG_JUMP_LABEL, fair.c only): a count */
struct static_key { int enabled; };
static inline bool static_key_false(struct static_key *key) { return key->enabled > 0; }
static inline void static_key_slow_inc_cpuslocked(struct static_key *key) { key->enabled++; }
static inline void static_key_slow_dec_cpuslocked(struct static_key *key) { key->enabled--; }
/* a CPU's call-single data: queued by smp_call_function_single_async(), run by kb_run_csd() */
typedef struct __call_single_data {
  void (*func)(void *info);
  void *info;
  int pending;  /* CSD_FLAG_LOCK: queued and not yet run */
} call_single_data_t;
int smp_call_function_single_async(int cpu, call_single_data_t *csd);
#define INIT_CSD(csd, f, i) do { (csd)->func = (f); (csd)->info = (i); (csd)->pending = 0; } while (0)
/* the task-group tree walk of core.c (ours: kernelsrc/glue/bandwidth.c) */
struct task_group;
typedef int (*tg_visitor)(struct task_group *, void *);
int walk_tg_tree_from(struct task_group *from, tg_visitor down, tg_visitor up, void *data);
int tg_nop(struct task_group *tg, void *data);
/* core.c's bound of a period (sched_cfs_period_timer() doubles short ones below it) */
extern const u64 max_cfs_quota_period;
/* interrupts and the rq lock of __cfsb_csd_unthrottle() and destroy_cfs_bandwidth(): one thread */
#define local_irq_save(flags) do { (flags) = 0; } while (0)
#define local_irq_restore(flags) do { (void)(flags); } while (0)
#if !EEVDF_TREE_CHECK_PREEMPT_CURR
#define rq_lock(rq, rf) do { (void)(rq); (void)(rf); } while (0)
#define rq_unlock(rq, rf) do { (void)(rq); (void)(rf); } while (0)
#endif
/* the list walks of the throttled lists */
#define LIST_HEAD(name) struct list_head name = { &(name), &(name) }
static inline int list_empty(const struct list_head *head) { return READ_ONCE(head->next) == head; }
static inline void list_add_tail(struct list_head *n, struct list_head *h) { eevdf_list_add(n, h->prev, h); }
#define list_entry(ptr, type, member) container_of(ptr, type, member)
#define list_for_each_entry_rcu(pos, head, member)                                        \
  for (pos = list_entry((head)->next, __typeof__(*pos), member); &pos->member != (head); \
       pos = list_entry(pos->member.next, __typeof__(*pos), member))
#define list_for_each_entry_safe(pos, n, head, member)                                      \
  for (pos = list_entry((head)->next, __typeof__(*pos), member),                          \
      n = list_entry(pos->member.next, __typeof__(*pos), member);                          \
       &pos->member != (head); pos = n, n = list_entry(n->member.next, __typeof__(*n), member))
#endif

/* every CPU at full capacity, SCHED_CAPACITY_SCALE (post_init_entity_util_avg()) */
static inline unsigned long arch_scale_cpu_capacity(int cpu) { (void)cpu; return 1024; }
/* util_est's flag in sched_avg.util_est (include/linux/sched.h) */
#define UTIL_AVG_UNCHANGED 0x80000000
/* the signed type of an integer expression (compiler_types.h's
 * __signed_scalar_typeof(), add_positive() of 7.0) */
#define __signed_scalar_typeof(x)                                                                            \
  __typeof__(_Generic((x), char: (signed char)0, unsigned char: (signed char)0, signed char: (signed char)0, \
                      unsigned short: (short)0, short: (short)0, unsigned int: (int)0, int: (int)0,             \
                      unsigned long: (long)0, long: (long)0, unsigned long long: (long long)0,               \
                      long long: (long long)0, default: (x)))
/* capacity tracking: one CPU, no asymmetric capacities */
static inline void update_misfit_status(struct task_struct *p, struct rq *rq) { (void)p; (void)rq; }
static inline void check_update_overutilized_status(struct rq *rq) { (void)rq; }
static inline void set_task_max_allowed_capacity(struct task_struct *p) { (void)p; }

/* the newidle balance of an idle-bound pick (pick_next_task_fair() found no
 * fair task): one CPU, nothing to pull.  The tree's function returns 0 there
 * too: with no sched domain it pulls nothing, rq->cfs.h_nr_queued is 0, and
 * the glue reaches this pick only with no RT task queued (nr_running ==
 * cfs.h_nr_queued), so neither "pretend we pulled" answer (1, -1) applies */
static inline int sched_balance_newidle(struct rq *this_rq, struct rq_flags *rf) { (void)this_rq; (void)rf; return 0; }
#if EEVDF_TREE_NEWIDLE_BALANCE
/* the same cut points under their names before the v6.10 renames (6.6):
 * newidle_balance() is sched_balance_newidle(), update_overutilized_status()
 * check_update_overutilized_status() */
static inline int newidle_balance(struct rq *this_rq, struct rq_flags *rf) { (void)this_rq; (void)rf; return 0; }
static inline void update_overutilized_status(struct rq *rq) { (void)rq; }
#endif

/* ---- the wake-up CPU choice: the tree's select_task_rq_fair() (glue.c,
 * kb_select_task_rq_wake(); docs/kernel-backend.md, "The wake-up CPU choice") ----
 * The topology is the model's (model/wake_cpu.hpp): every online CPU in one
 * last-level cache, one sched_domain a CPU (no parent, no child) spanning
 * them, with SD_WAKE_AFFINE and SD_SHARE_LLC and without SD_BALANCE_WAKE (a
 * wake-up takes the fast path); SMT siblings as the scenario gives them
 * (below), no clusters, no asymmetric
 * capacities, no energy model (their static keys are false:
 * static_branch_unlikely() is 0, shim.h).  topology.c is ours: the glue sets
 * the per-CPU variables below.  The tasks may run on the scenario's CPUs
 * (p->cpus_ptr); the domain spans the profile's online CPUs (`cpus`). */
#include <limits.h>  /* INT_MAX (select_idle_cpu()'s unlimited scan) */
#define NR_CPUS 4096
#define KB_PCPU_NR 8  /* per-CPU variables: one slot a runqueue (KB_MAX_CPUS, checked in glue.c) */
struct cpumask { unsigned long bits[NR_CPUS / 64]; };
typedef struct cpumask cpumask_var_t[1];
/* nr_cpumask_bits (nr_cpu_ids): the domain's span, set by the glue */
extern unsigned int kb_nr_cpumask_bits;
#define nr_cpumask_bits kb_nr_cpumask_bits
static inline bool cpumask_test_cpu(int cpu, const struct cpumask *m) {
  return (m->bits[(unsigned int)cpu / 64] >> ((unsigned int)cpu % 64)) & 1;
}
static inline void kb_cpumask_set_cpu(unsigned int cpu, struct cpumask *m) { m->bits[cpu / 64] |= 1ul << (cpu % 64); }
static inline bool cpumask_and(struct cpumask *d, const struct cpumask *a, const struct cpumask *b) {
  unsigned long any = 0;
  for (unsigned int i = 0; i < NR_CPUS / 64; i++) any |= d->bits[i] = a->bits[i] & b->bits[i];
  return any != 0;
}
static inline bool cpumask_andnot(struct cpumask *d, const struct cpumask *a, const struct cpumask *b) {
  unsigned long any = 0;
  for (unsigned int i = 0; i < NR_CPUS / 64; i++) any |= d->bits[i] = a->bits[i] & ~b->bits[i];
  return any != 0;
}
/* for_each_cpu_wrap(): the set bits below nr_cpumask_bits from start up, then
 * from 0 up to start (a start of nr_cpumask_bits starts at 0, as the kernel's
 * find_next_bit_wrap()); kb_cpumask_wrap_step() is the next step k >= from
 * whose CPU (start + k) mod nr_cpumask_bits is set, or nr_cpumask_bits */
static inline unsigned int kb_cpumask_wrap_step(const struct cpumask *m, unsigned int start, unsigned int from) {
  for (unsigned int k = from; k < nr_cpumask_bits; k++)
    if (cpumask_test_cpu((int)((start + k) % nr_cpumask_bits), m)) return k;
  return nr_cpumask_bits;
}
#define for_each_cpu_wrap(cpu, mask, start)                                                          \
  for (unsigned int __kb_k = kb_cpumask_wrap_step((mask), (unsigned int)(start), 0);                \
       __kb_k < nr_cpumask_bits && (((cpu) = (int)(((unsigned int)(start) + __kb_k) % nr_cpumask_bits)), 1); \
       __kb_k = kb_cpumask_wrap_step((mask), (unsigned int)(start), __kb_k + 1))

/* include/linux/sched/sd_flags.h, in its order (the bits are facts of the tree) */
enum {
  SD_BALANCE_NEWIDLE = 1 << 0, SD_BALANCE_EXEC = 1 << 1, SD_BALANCE_FORK = 1 << 2, SD_BALANCE_WAKE = 1 << 3,
  SD_WAKE_AFFINE = 1 << 4, SD_ASYM_CPUCAPACITY = 1 << 5, SD_ASYM_CPUCAPACITY_FULL = 1 << 6,
  SD_SHARE_CPUCAPACITY = 1 << 7, SD_CLUSTER = 1 << 8, SD_SHARE_LLC = 1 << 9, SD_SERIALIZE = 1 << 10,
  SD_ASYM_PACKING = 1 << 11, SD_PREFER_SIBLING = 1 << 12, SD_NUMA = 1 << 13,
};
/* include/linux/sched/topology.h: the fields the wake-up path reads */
struct sched_domain_shared { int has_idle_cores; int nr_idle_scan; };
struct sched_group { unsigned int flags; struct cpumask span; };
struct sched_domain {
  struct sched_domain *parent, *child;
  struct sched_group *groups;
  int flags;
  unsigned int span_weight;
  unsigned int imbalance_pct;
  struct sched_domain_shared *shared;
#if EEVDF_TREE_SIS_PROP
  u64 avg_scan_cost;  /* SIS_PROP's scan cost (select_idle_cpu() before v6.8); the feature is off */
#endif
  struct cpumask span;
};
#define sched_domain_span(sd) (&(sd)->span)
#define sched_group_span(sg) (&(sg)->span)

/* per-CPU variables: an array a CPU */
#define DEFINE_PER_CPU(type, name) __typeof__(type) name[KB_PCPU_NR]
#define DECLARE_PER_CPU(type, name) extern __typeof__(type) name[KB_PCPU_NR]
#define per_cpu(var, cpu) ((var)[(cpu)])
#define __this_cpu_read(var) per_cpu(var, smp_processor_id())
#define this_cpu_cpumask_var_ptr(var) (per_cpu(var, smp_processor_id()))
#if EEVDF_TREE_SIS_PROP
/* SIS_PROP's code in select_idle_cpu() (compiled, never run: the feature is
 * off by default and the model does not know it): this CPU's slot of a per-CPU
 * array, and the CPU's clock (sched_clock_cpu(), the glue's) */
#define this_cpu_ptr(ptr) (&(*(ptr))[smp_processor_id()])
#define cpu_clock(cpu) sched_clock_cpu(cpu)
#endif
DECLARE_PER_CPU(struct sched_domain *, sd_llc);
DECLARE_PER_CPU(int, sd_llc_size);
DECLARE_PER_CPU(int, sd_llc_id);
DECLARE_PER_CPU(int, sd_share_id);
DECLARE_PER_CPU(struct sched_domain_shared *, sd_llc_shared);
DECLARE_PER_CPU(struct sched_domain *, sd_asym_cpucapacity);
/* fair.c's scratch mask of select_idle_cpu() (its static DEFINE_PER_CPU is
 * not a definition the extractor takes by name): the glue's */
DECLARE_PER_CPU(cpumask_var_t, select_rq_mask);

/* the CPU whose code runs (the waker's, in a wake-up) and its current task
 * (kernelsrc/glue.c); in_task(): not in an interrupt, i.e. current is not the
 * idle task (a wake-up made on an idle CPU comes from an interrupt, as the
 * model has it).  (These prototypes come first: the extractor reads a
 * shim's names with patterns that a macro body before them could hide.) */
int smp_processor_id(void);
struct task_struct *kb_current(void);
bool in_task(void);
/* core.c's tests of a CPU (kernelsrc/glue.c); available_idle_cpu() is
 * syscalls.c's (ours) up to 6.18 and sched.h's (the tree's, with its
 * idle_rq()) in 7.0, which reads rq->ttwu_pending (never set: one thread, no
 * remote wake-up queue) and vcpu_is_preempted() (false: bare metal) */
#if EEVDF_KERNEL_VERSION_CODE < EEVDF_KV(7, 0)
int idle_cpu(int cpu);
int available_idle_cpu(int cpu);
#endif
bool cpus_share_cache(int this_cpu, int that_cpu);
bool cpus_share_resources(int this_cpu, int that_cpu);
extern unsigned int kb_hz;

#if EEVDF_KERNEL_VERSION_CODE >= EEVDF_KV(7, 0)
#define vcpu_is_preempted(cpu) false
#endif
#define current kb_current()
#define __this_rq() cpu_rq(smp_processor_id())
#define this_rq() __this_rq()
/* RCU: one thread */
#define rcu_read_lock() do { } while (0)
#define rcu_read_unlock() do { } while (0)
#define rcu_dereference_check(p, c) READ_ONCE(p)
#define rcu_dereference_all(p) READ_ONCE(p)
#define rcu_dereference_all_check(p, c) READ_ONCE(p)
#define lockdep_assert_irqs_disabled() do { } while (0)
/* schedstats: off */
#define schedstat_inc(var) do { } while (0)
/* include/linux/sched.h */
#define PF_IDLE 0x00000002
#define PF_EXITING 0x00000004
#define PF_KTHREAD 0x00200000
/* ---- SMT siblings (CONFIG_SCHED_SMT: the tree's select_idle_smt(),
 * select_idle_core(), test_idle_cores()/set_idle_cores() and
 * __update_idle_core() are compiled in) ----
 * The scenario's `smt N`: CPUs kN .. kN+N-1 are one core, their
 * cpu_smt_mask() (topology_sibling_cpumask(), arch code: the glue's); no
 * `smt`: each CPU its own core.  The sched_smt_present static key (core.c,
 * ours) is counted up by sched_cpu_activate() when a CPU's SMT mask reaches
 * two CPUs: on with siblings.  include/linux/sched/smt.h's
 * sched_smt_active() reads it; sched.h's update_idle_core(), which tests it
 * before calling the tree's __update_idle_core(), is the glue's (shim.h's
 * static_branch_unlikely() is 0 for every key). */
extern int kb_sched_smt_present;
static inline bool sched_smt_active(void) { return kb_sched_smt_present != 0; }
extern struct cpumask kb_cpu_sibling_map[KB_PCPU_NR];
static inline const struct cpumask *cpu_smt_mask(int cpu) { return &kb_cpu_sibling_map[cpu]; }
/* for_each_cpu(), for_each_cpu_and(): the set bits below nr_cpumask_bits, ascending
 * (kb_cpumask_next_and(): the first CPU after `prev` in both masks, or nr_cpumask_bits) */
static inline int kb_cpumask_next_and(int prev, const struct cpumask *a, const struct cpumask *b) {
  for (unsigned int c = (unsigned int)(prev + 1); c < nr_cpumask_bits; c++)
    if (cpumask_test_cpu((int)c, a) && cpumask_test_cpu((int)c, b)) return (int)c;
  return (int)nr_cpumask_bits;
}
#define for_each_cpu_and(cpu, a, b)                                                  \
  for ((cpu) = kb_cpumask_next_and(-1, (a), (b)); (unsigned int)(cpu) < nr_cpumask_bits; \
       (cpu) = kb_cpumask_next_and((cpu), (a), (b)))
#define for_each_cpu(cpu, mask) for_each_cpu_and(cpu, mask, mask)
/* include/linux/sched.h, include/linux/sched/topology.h */
enum uclamp_id { UCLAMP_MIN = 0, UCLAMP_MAX, UCLAMP_CNT };
#define SCHED_CAPACITY_SCALE (1L << SCHED_CAPACITY_SHIFT)
/* jiffies and HZ: the scenario's (record_wakee()); the glue sets jiffies to
 * INITIAL_JIFFIES + the ticks elapsed on the waking CPU, as the model */
#define HZ kb_hz
#define time_after(a, b) ((long)((b) - (a)) < 0)
#define swap(a, b) do { __typeof__(a) __kb_tmp = (a); (a) = (b); (b) = __kb_tmp; } while (0)

/* Cut points of the choice, each never reached on this topology (a warning,
 * I-WARN, if one were):
 *  - find_energy_efficient_cpu(): energy-aware placement, tried only when the
 *    root domain is not overutilized, which without an energy model
 *    (sched_energy_enabled() false) is_rd_overutilized() always says it is;
 *  - sched_balance_find_dst_cpu(): the slow path, for a domain with the
 *    wake-up's SD_BALANCE_WAKE, which no domain here has;
 *  - util_fits_cpu(), task_util_est() and select_idle_capacity(): the
 *    asymmetric-capacity tests and scan, behind sched_asym_cpucap_active(),
 *    false. */
static inline int find_energy_efficient_cpu(struct task_struct *p, int prev_cpu) {
  (void)p; (void)prev_cpu;
  eevdf_kernel_warn(__FILE__, __LINE__, "cut point reached: find_energy_efficient_cpu()");
  return -1;
}
static inline int sched_balance_find_dst_cpu(struct sched_domain *sd, struct task_struct *p, int cpu, int prev_cpu,
                                             int sd_flag) {
  (void)sd; (void)p; (void)cpu; (void)sd_flag;
  eevdf_kernel_warn(__FILE__, __LINE__, "cut point reached: sched_balance_find_dst_cpu()");
  return prev_cpu;
}
#if EEVDF_TREE_NEWIDLE_BALANCE
/* its name before v6.10 */
static inline int find_idlest_cpu(struct sched_domain *sd, struct task_struct *p, int cpu, int prev_cpu, int sd_flag) {
  (void)sd; (void)p; (void)cpu; (void)sd_flag;
  eevdf_kernel_warn(__FILE__, __LINE__, "cut point reached: find_idlest_cpu()");
  return prev_cpu;
}
#endif
static inline int util_fits_cpu(unsigned long util, unsigned long uclamp_min, unsigned long uclamp_max, int cpu) {
  (void)util; (void)uclamp_min; (void)uclamp_max; (void)cpu;
  eevdf_kernel_warn(__FILE__, __LINE__, "cut point reached: util_fits_cpu()");
  return 1;
}
static inline unsigned long task_util_est(struct task_struct *p) { (void)p; return 0; }
static inline int select_idle_capacity(struct task_struct *p, struct sched_domain *sd, int target) {
  (void)p; (void)sd;
  eevdf_kernel_warn(__FILE__, __LINE__, "cut point reached: select_idle_capacity()");
  return target;
}
/* wake_affine_weight() (WA_WEIGHT) is the tree's, with its cpu_load() and
 * task_h_load() on the tree's PELT averages; capacity_of() is rq->cpu_capacity,
 * SCHED_CAPACITY_SCALE (glue.c) */

#endif
