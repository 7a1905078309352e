/* eevdf-check kernel backend: the tree's own PELT arithmetic
 * (kernel/sched/pelt.c), compiled apart from fair.c (kernelsrc/pelt_glue.c),
 * for tests/kernel_pelt_test.cpp.  Plain data only.
 */
#ifndef EEVDF_KB_PELT_H
#define EEVDF_KB_PELT_H

#ifdef __cplusplus
extern "C" {
#endif

/* struct sched_avg, field for field (64-bit: unsigned long is 64 bits) */
struct kb_pelt_avg {
  unsigned long long last_update_time, load_sum, runnable_sum;
  unsigned int util_sum, period_contrib;
  unsigned long long load_avg, runnable_avg, util_avg;
  unsigned int util_est;
};

/* The tree's __update_load_avg_se() on an entity with se->load.weight WEIGHT
 * (not scaled down), on_rq ON_RQ, sched_delayed DELAYED, a task when GROUP is
 * 0 and else a group entity with runnable_weight RUNNABLE_WEIGHT, its queue's
 * curr when RUNNING.  UTIL_EST: sched_feat(UTIL_EST).  Returns the tree's answer. */
int kb_pelt_update_se(unsigned long long now, struct kb_pelt_avg *avg, unsigned long long weight, int on_rq,
                      int delayed, int group, unsigned long long runnable_weight, int running, int util_est);
/* __update_load_avg_blocked_se() */
int kb_pelt_update_blocked_se(unsigned long long now, struct kb_pelt_avg *avg, unsigned long long weight);
/* __update_load_avg_cfs_rq() on a queue of load.weight LOAD_WEIGHT with
 * NR_QUEUED entities queued, NR_DELAYED of them delayed, and a curr when HAS_CURR */
int kb_pelt_update_cfs_rq(unsigned long long now, struct kb_pelt_avg *avg, unsigned long long load_weight,
                          unsigned int nr_queued, unsigned int nr_delayed, int has_curr);
/* update_rt_rq_load_avg() */
int kb_pelt_update_rt_rq(unsigned long long now, struct kb_pelt_avg *avg, int running);
/* struct rq's PELT clock, and the clocks it is synced to */
struct kb_pelt_clock {
  unsigned long long clock, clock_task, clock_pelt, lost_idle_time, clock_idle, clock_pelt_idle;
};
/* update_rq_clock_pelt(rq, DELTA), rq->curr the idle task when CURR_IDLE, on
 * a CPU of capacity CPU_CAPACITY at frequency capacity FREQ_CAPACITY */
void kb_pelt_update_rq_clock_pelt(struct kb_pelt_clock *c, long long delta, int curr_idle,
                                  unsigned long long cpu_capacity, unsigned long long freq_capacity);
/* update_idle_rq_clock_pelt(rq) with the CFS, RT and deadline util_sums */
void kb_pelt_update_idle_rq_clock_pelt(struct kb_pelt_clock *c, unsigned int cfs_util_sum, unsigned int rt_util_sum,
                                       unsigned int dl_util_sum);
/* rq_clock_pelt(rq) */
unsigned long long kb_pelt_rq_clock_pelt(const struct kb_pelt_clock *c);
/* the tree's kernel version, "6.12.118" */
const char *kb_pelt_version(void);

#ifdef __cplusplus
}
#endif

#endif
