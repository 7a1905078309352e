/* eevdf-check kernel backend: what the tree's PELT arithmetic
 * (kernel/sched/pelt.c, taken by kernelsrc/extract.py into pelt_extract.c)
 * needs to compile in userspace: the kernel's integer types and helpers, and
 * the fields of struct sched_entity, cfs_rq and rq it reads, under the
 * kernel's names.  Apart from fair.c's shim (kernelsrc/shim.h): there PELT is
 * a cut point; here it is all there is.
 */
#ifndef EEVDF_PELT_SHIM_H
#define EEVDF_PELT_SHIM_H

#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>

typedef uint32_t u32;
typedef uint64_t u64;
typedef int64_t s64;

#define __always_inline inline __attribute__((always_inline))
#define __maybe_unused __attribute__((unused))
#define unlikely(x) __builtin_expect(!!(x), 0)
#define likely(x) __builtin_expect(!!(x), 1)
#define WRITE_ONCE(x, val) ((x) = (val))
#define READ_ONCE(x) (x)
#define max(a, b) ((a) > (b) ? (a) : (b))
#define SCHED_FIXEDPOINT_SHIFT 10
#define SCHED_CAPACITY_SHIFT SCHED_FIXEDPOINT_SHIFT
#define UTIL_AVG_UNCHANGED 0x80000000
/* tracepoints: none */
#define trace_pelt_se_tp(se) do { (void)(se); } while (0)
#define trace_pelt_cfs_tp(cfs_rq) do { (void)(cfs_rq); } while (0)
#define trace_pelt_rt_tp(rq) do { (void)(rq); } while (0)
/* sched_feat(UTIL_EST): the one feature the arithmetic reads */
extern int kb_pelt_feat_UTIL_EST;
#define sched_feat(x) (kb_pelt_feat_##x)

static inline u64 div_u64(u64 dividend, u32 divisor) { return dividend / divisor; }
static inline u64 mul_u64_u32_shr(u64 a, u32 mul, unsigned int shift) {
  return (u64)(((unsigned __int128)a * mul) >> shift);
}

struct load_weight { unsigned long weight; u32 inv_weight; };
struct sched_avg {
  u64 last_update_time;
  u64 load_sum;
  u64 runnable_sum;
  u32 util_sum;
  u32 period_contrib;
  unsigned long load_avg;
  unsigned long runnable_avg;
  unsigned long util_avg;
#if EEVDF_TREE_UTIL_EST_STRUCT
  struct util_est { unsigned int enqueued, ewma; } util_est;  /* 6.6: the flag lives in `enqueued` */
#define KB_UTIL_EST(sa) ((sa)->util_est.enqueued)
#else
  unsigned int util_est;
#define KB_UTIL_EST(sa) ((sa)->util_est)
#endif
};
struct cfs_rq;
struct sched_entity {
  struct load_weight load;
  unsigned char on_rq;
  unsigned char sched_delayed;
  unsigned long runnable_weight;
  struct cfs_rq *my_q;
  struct sched_avg avg;
};
struct cfs_rq {
  struct load_weight load;
#if EEVDF_TREE_H_NR_QUEUED
  unsigned int h_nr_queued;
#else
  unsigned int h_nr_running;  /* before the rename (tree fact, version.h) */
#endif
  unsigned int h_nr_delayed, h_nr_runnable;
  struct sched_entity *curr;
  struct sched_avg avg;
};
#define PF_IDLE 0x00000002
struct task_struct { unsigned int flags; };
static inline bool is_idle_task(const struct task_struct *p) { return !!(p->flags & PF_IDLE); }
struct rq {
  int cpu;
  u64 clock, clock_task, clock_pelt, lost_idle_time, clock_idle, clock_pelt_idle;
  struct task_struct *curr;
  struct cfs_rq cfs;
  struct sched_avg avg_rt, avg_dl;
};
/* the CPU's capacity and its frequency's, of SCHED_CAPACITY_SCALE (set by the glue) */
extern unsigned long kb_pelt_cpu_capacity, kb_pelt_freq_capacity;
static inline unsigned long arch_scale_cpu_capacity(int cpu) { (void)cpu; return kb_pelt_cpu_capacity; }
static inline unsigned long arch_scale_freq_capacity(int cpu) { (void)cpu; return kb_pelt_freq_capacity; }
/* one thread, no lock debugging */
#define lockdep_assert_rq_held(rq) do { (void)(rq); } while (0)
static inline void assert_clock_updated(struct rq *rq) { (void)rq; }
#define smp_wmb() do { } while (0)

#endif
