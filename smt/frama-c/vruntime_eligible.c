/* Frama-C/WP harness: the no-overflow of vruntime_eligible()'s key·load on a
 * tree's own code, under the premises of `eevdf-check prove`. The tree's
 * entity_key() and vruntime_eligible() are read from the tree at run time into
 * tree_functions.c; this file has only the types they touch and the contract. */
typedef long long s64;
typedef unsigned long long u64;
typedef unsigned int u32;
struct load_weight { unsigned long weight; u32 inv_weight; };
struct sched_entity { struct load_weight load; u64 vruntime; int on_rq; };
struct cfs_rq { s64 avg_vruntime; u64 avg_load; u64 zero_vruntime; struct sched_entity *curr; };
/* the 64-bit kernel's scale_load_down(): max(2, w >> 10) for a non-zero w */
static inline unsigned long scale_load_down(unsigned long w) { return w == 0 ? 0 : (w >> 10 > 2 ? w >> 10 : 2); }

#ifndef W_MIN
#define W_MIN 2            /* the lightest sum weight: MIN_SHARES (groups) */
#endif
#ifndef W_MAX
#define W_MAX 262144       /* scale_load_down(2^28): groups */
#endif
#define N 512              /* queued entities */
#define L_MIN 1000000      /* max(2 slice, TICK_NSEC), ns */
#define L_MAX 200000000

/* Premises: no curr term (curr off the queue: the sums are the whole queue);
 * the tested entity weighs s (sum weight) in [W_MIN, W_MAX] and is queued, so
 * s <= load <= s + (N - 1)·W_MAX; its key is within two lag bounds of the
 * inverse-weight calc_delta_fair(): |key|·s <= 2·(L·1024 + s). */
/*@ requires \valid_read(cfs_rq);
    requires cfs_rq->curr == \null;
    requires \exists integer s, L;
      W_MIN <= s <= W_MAX && L_MIN <= L <= L_MAX &&
      s <= cfs_rq->avg_load <= s + (N - 1) * W_MAX &&
      \let k = (s64)(vruntime - cfs_rq->zero_vruntime);
      k * s <= 2 * (L * 1024 + s) && -k * s <= 2 * (L * 1024 + s);
    assigns \nothing;
*/
static int vruntime_eligible(struct cfs_rq *cfs_rq, u64 vruntime);

#include "tree_functions.c"
