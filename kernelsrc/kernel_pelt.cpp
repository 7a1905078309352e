// The tree's PELT arithmetic behind the model's types (kernelsrc/kernel_pelt.hpp).
#include "kernelsrc/kernel_pelt.hpp"

#include "kernelsrc/kb_pelt.h"

namespace eevdf::kernelsrc {

namespace {

kb_pelt_avg to_kb(const SchedAvg& sa) {
  return {sa.last_update_time, sa.load_sum, sa.runnable_sum, sa.util_sum, sa.period_contrib,
          sa.load_avg,         sa.runnable_avg, sa.util_avg, sa.util_est};
}

void from_kb(SchedAvg& sa, const kb_pelt_avg& k) {
  sa = {k.last_update_time, k.load_sum, k.runnable_sum, k.util_sum, k.period_contrib,
        k.load_avg,         k.runnable_avg, k.util_avg, k.util_est};
}

}  // namespace

bool pelt_available() { return true; }

bool tree_update_load_avg_se(u64 now, SchedAvg& sa, u64 load_weight, bool on_rq, bool delayed, bool group,
                             u64 runnable_weight, bool running, bool util_est_feature) {
  kb_pelt_avg k = to_kb(sa);
  const int r = kb_pelt_update_se(now, &k, load_weight, on_rq, delayed, group, runnable_weight, running,
                                  util_est_feature);
  from_kb(sa, k);
  return r != 0;
}

bool tree_update_load_avg_blocked_se(u64 now, SchedAvg& sa, u64 load_weight) {
  kb_pelt_avg k = to_kb(sa);
  const int r = kb_pelt_update_blocked_se(now, &k, load_weight);
  from_kb(sa, k);
  return r != 0;
}

bool tree_update_load_avg_cfs_rq(u64 now, SchedAvg& sa, u64 load_weight, u32 nr_queued, u32 nr_delayed,
                                 bool has_curr) {
  kb_pelt_avg k = to_kb(sa);
  const int r = kb_pelt_update_cfs_rq(now, &k, load_weight, nr_queued, nr_delayed, has_curr);
  from_kb(sa, k);
  return r != 0;
}

bool tree_update_rt_rq_load_avg(u64 now, SchedAvg& sa, bool running) {
  kb_pelt_avg k = to_kb(sa);
  const int r = kb_pelt_update_rt_rq(now, &k, running);
  from_kb(sa, k);
  return r != 0;
}

}  // namespace eevdf::kernelsrc
