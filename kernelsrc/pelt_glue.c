/* eevdf-check kernel backend: the C interface (kb_pelt.h) to the tree's own
 * PELT arithmetic.  Included at the end of the generated pelt_extract.c, after
 * the tree's code.  Each call builds the structure the tree's function reads,
 * runs it, and copies struct sched_avg back. */
#include "kb_pelt.h"

int kb_pelt_feat_UTIL_EST;
unsigned long kb_pelt_cpu_capacity = 1024, kb_pelt_freq_capacity = 1024;

static void kb_pelt_in(struct sched_avg *sa, const struct kb_pelt_avg *avg) {
  sa->last_update_time = avg->last_update_time;
  sa->load_sum = avg->load_sum;
  sa->runnable_sum = avg->runnable_sum;
  sa->util_sum = avg->util_sum;
  sa->period_contrib = avg->period_contrib;
  sa->load_avg = avg->load_avg;
  sa->runnable_avg = avg->runnable_avg;
  sa->util_avg = avg->util_avg;
  KB_UTIL_EST(sa) = avg->util_est;
}

static void kb_pelt_out(struct kb_pelt_avg *avg, const struct sched_avg *sa) {
  avg->last_update_time = sa->last_update_time;
  avg->load_sum = sa->load_sum;
  avg->runnable_sum = sa->runnable_sum;
  avg->util_sum = sa->util_sum;
  avg->period_contrib = sa->period_contrib;
  avg->load_avg = sa->load_avg;
  avg->runnable_avg = sa->runnable_avg;
  avg->util_avg = sa->util_avg;
  avg->util_est = KB_UTIL_EST(sa);
}

int kb_pelt_update_se(unsigned long long now, struct kb_pelt_avg *avg, unsigned long long weight, int on_rq,
                      int delayed, int group, unsigned long long runnable_weight, int running, int util_est) {
  static struct cfs_rq group_queue;  /* only its address matters: se->my_q != NULL makes a group entity */
  struct sched_entity se = {0};
  struct cfs_rq cfs_rq = {0};
  int ret;
  se.load.weight = weight;
  se.on_rq = on_rq != 0;
  se.sched_delayed = delayed != 0;
  se.runnable_weight = runnable_weight;
  se.my_q = group ? &group_queue : NULL;
  kb_pelt_in(&se.avg, avg);
  cfs_rq.curr = running ? &se : NULL;
  kb_pelt_feat_UTIL_EST = util_est != 0;
  ret = __update_load_avg_se(now, &cfs_rq, &se);
  kb_pelt_out(avg, &se.avg);
  return ret;
}

int kb_pelt_update_blocked_se(unsigned long long now, struct kb_pelt_avg *avg, unsigned long long weight) {
  struct sched_entity se = {0};
  int ret;
  se.load.weight = weight;
  kb_pelt_in(&se.avg, avg);
  ret = __update_load_avg_blocked_se(now, &se);
  kb_pelt_out(avg, &se.avg);
  return ret;
}

int kb_pelt_update_cfs_rq(unsigned long long now, struct kb_pelt_avg *avg, unsigned long long load_weight,
                          unsigned int nr_queued, unsigned int nr_delayed, int has_curr) {
  struct sched_entity curr = {0};
  struct cfs_rq cfs_rq = {0};
  int ret;
  cfs_rq.load.weight = load_weight;
#if EEVDF_TREE_H_NR_QUEUED
  cfs_rq.h_nr_queued = nr_queued;
#else
  cfs_rq.h_nr_running = nr_queued;
#endif
  cfs_rq.h_nr_delayed = nr_delayed;
  cfs_rq.h_nr_runnable = nr_queued - nr_delayed;
  cfs_rq.curr = has_curr ? &curr : NULL;
  kb_pelt_in(&cfs_rq.avg, avg);
  ret = __update_load_avg_cfs_rq(now, &cfs_rq);
  kb_pelt_out(avg, &cfs_rq.avg);
  return ret;
}

int kb_pelt_update_rt_rq(unsigned long long now, struct kb_pelt_avg *avg, int running) {
  struct rq rq = {0};
  int ret;
  kb_pelt_in(&rq.avg_rt, avg);
  ret = update_rt_rq_load_avg(now, &rq, running);
  kb_pelt_out(avg, &rq.avg_rt);
  return ret;
}

static void kb_pelt_clock_in(struct rq *rq, const struct kb_pelt_clock *c) {
  rq->clock = c->clock;
  rq->clock_task = c->clock_task;
  rq->clock_pelt = c->clock_pelt;
  rq->lost_idle_time = c->lost_idle_time;
  rq->clock_idle = c->clock_idle;
  rq->clock_pelt_idle = c->clock_pelt_idle;
}

static void kb_pelt_clock_out(struct kb_pelt_clock *c, const struct rq *rq) {
  c->clock = rq->clock;
  c->clock_task = rq->clock_task;
  c->clock_pelt = rq->clock_pelt;
  c->lost_idle_time = rq->lost_idle_time;
  c->clock_idle = rq->clock_idle;
  c->clock_pelt_idle = rq->clock_pelt_idle;
}

void kb_pelt_update_rq_clock_pelt(struct kb_pelt_clock *c, long long delta, int curr_idle,
                                  unsigned long long cpu_capacity, unsigned long long freq_capacity) {
  static struct rq rq;
  struct task_struct curr = {.flags = curr_idle ? PF_IDLE : 0};
  kb_pelt_clock_in(&rq, c);
  rq.curr = &curr;
  kb_pelt_cpu_capacity = cpu_capacity;
  kb_pelt_freq_capacity = freq_capacity;
  update_rq_clock_pelt(&rq, delta);
  kb_pelt_clock_out(c, &rq);
}

void kb_pelt_update_idle_rq_clock_pelt(struct kb_pelt_clock *c, unsigned int cfs_util_sum, unsigned int rt_util_sum,
                                       unsigned int dl_util_sum) {
  static struct rq rq;
  kb_pelt_clock_in(&rq, c);
  rq.cfs.avg.util_sum = cfs_util_sum;
  rq.avg_rt.util_sum = rt_util_sum;
  rq.avg_dl.util_sum = dl_util_sum;
  update_idle_rq_clock_pelt(&rq);
  kb_pelt_clock_out(c, &rq);
}

unsigned long long kb_pelt_rq_clock_pelt(const struct kb_pelt_clock *c) {
  static struct rq rq;
  kb_pelt_clock_in(&rq, c);
  return rq_clock_pelt(&rq);
}

const char *kb_pelt_version(void) { return EEVDF_KERNEL_VERSION; }
