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
 * The PELT sums therefore stay 0 (every struct sched_avg is zeroed at
 * creation and never written), so calc_group_shares() (the tree's, kept)
 * computes load = scale_load_down(cfs_rq->load.weight), tg_weight = load, and
 * a group entity with load gets exactly tg->shares: the model's stand-in on
 * one CPU (docs/model.md, "PELT stand-in").  On several CPUs tg->load_avg is
 * the model's stand-in, the group's load on the other CPUs (atomic_long_read()
 * below), so that tg_weight is the group's load on every CPU.
 */
#ifndef EEVDF_KERNELSRC_SHIM_SMP_H
#define EEVDF_KERNELSRC_SHIM_SMP_H

struct cfs_rq;
struct sched_entity;
struct task_struct;
struct rq;
struct rq_flags;
/* PELT's per-entity and per-queue sums: present, always 0 */
struct sched_avg {
  u64 last_update_time, load_sum, runnable_sum;
  u32 util_sum, period_contrib;
  unsigned long load_avg, runnable_avg, util_avg;
};
/* the root domain's overload flag, which add_nr_running() sets; read only by
 * the load balancer */
struct root_domain { int overloaded; };

/* PELT and util_est: not run (their sums feed no EEVDF arithmetic; above) */
static inline void update_load_avg(struct cfs_rq *cfs_rq, struct sched_entity *se, int flags) {
  (void)cfs_rq; (void)se; (void)flags;
}
static inline void attach_entity_load_avg(struct cfs_rq *cfs_rq, struct sched_entity *se) { (void)cfs_rq; (void)se; }
static inline void detach_entity_load_avg(struct cfs_rq *cfs_rq, struct sched_entity *se) { (void)cfs_rq; (void)se; }
static inline void enqueue_load_avg(struct cfs_rq *cfs_rq, struct sched_entity *se) { (void)cfs_rq; (void)se; }
static inline void dequeue_load_avg(struct cfs_rq *cfs_rq, struct sched_entity *se) { (void)cfs_rq; (void)se; }
static inline void remove_entity_load_avg(struct sched_entity *se) { (void)se; }
static inline void sync_entity_load_avg(struct sched_entity *se) { (void)se; }
static inline void update_tg_load_avg(struct cfs_rq *cfs_rq) { (void)cfs_rq; }
static inline int propagate_entity_load_avg(struct sched_entity *se) { (void)se; return 0; }
static inline void set_task_rq_fair(struct sched_entity *se, struct cfs_rq *prev, struct cfs_rq *next) {
  (void)se; (void)prev; (void)next;
}
static inline void util_est_enqueue(struct cfs_rq *cfs_rq, struct task_struct *p) { (void)cfs_rq; (void)p; }
static inline void util_est_dequeue(struct cfs_rq *cfs_rq, struct task_struct *p) { (void)cfs_rq; (void)p; }
static inline void util_est_update(struct cfs_rq *cfs_rq, struct task_struct *p, bool task_sleep) {
  (void)cfs_rq; (void)p; (void)task_sleep;
}
static inline void init_entity_runnable_average(struct sched_entity *se) { (void)se; }
static inline void post_init_entity_util_avg(struct task_struct *p) { (void)p; }
/* reweight_entity() rescales se->avg.load_avg by load_sum / divider: 0 / 1 */
static inline u32 get_pelt_divider(struct sched_avg *avg) { (void)avg; return 1; }

static inline void update_idle_rq_clock_pelt(struct rq *rq) { (void)rq; }
/* tg->load_avg (an atomic sum over the CPUs' contributions), read only by
 * calc_group_shares(): the model's PELT stand-in, the group's load on the CPUs
 * other than the asking queue's (kernelsrc/glue.c, kb_tg_load_avg(); 0 on one CPU) */
typedef struct { long counter; } atomic_long_t;
long kb_tg_load_avg(const atomic_long_t *v);
#define atomic_long_read(v) kb_tg_load_avg(v)
/* the removed-load lock of init_cfs_rq(): one thread */
#define raw_spin_lock_init(l) do { (void)(l); } while (0)
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

#endif
