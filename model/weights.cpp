#include "model/weights.hpp"

namespace eevdf {

const std::array<u32, 40> sched_prio_to_weight = {
    88761, 71755, 56483, 46273, 36291, 29154, 23254, 18705, 14949, 11916,
    9548,  7620,  6100,  4904,  3906,  3121,  2501,  1991,  1586,  1277,
    1024,  820,   655,   526,   423,   335,   272,   215,   172,   137,
    110,   87,    70,    56,    45,    36,    29,    23,    18,    15,
};

const std::array<u32, 40> sched_prio_to_wmult = {
    48388,     59856,     76040,     92818,     118348,    147320,    184698,    229616,
    287308,    360437,    449829,    563644,    704093,    875809,    1099582,   1376151,
    1717300,   2157191,   2708050,   3363326,   4194304,   5237765,   6557202,   8165337,
    10153587,  12820798,  15790321,  19976592,  24970740,  31350126,  39045157,  49367440,
    61356676,  76695844,  95443717,  119304647, 148102320, 186737708, 238609294, 286331153,
};

void update_inv_weight(LoadWeight& lw) {
  if (lw.inv_weight != 0) return;
  const u64 w = scale_load_down(lw.weight);
  if (w >= kWmultConst)
    lw.inv_weight = 1;
  else if (w == 0)
    lw.inv_weight = kWmultConst;
  else
    lw.inv_weight = static_cast<u32>(kWmultConst / w);
}

u64 calc_delta(u64 delta, u64 weight, LoadWeight& lw, CalcDeltaPath path, Observer& obs) {
  if (path == CalcDeltaPath::full_weight) {
    const u64 product = mul_u64(delta, weight, Site::calc_delta_delta_x_weight, obs);
    return lw.weight == 0 ? 0 : product / lw.weight;
  }
  u64 fact = scale_load_down(weight);
  u32 fact_hi = static_cast<u32>(fact >> 32);
  int shift = kWmultShift;
  update_inv_weight(lw);
  if (fact_hi != 0) {
    const int fs = fls64(fact_hi);
    shift -= fs;
    fact >>= fs;
  }
  fact = static_cast<u64>(static_cast<u32>(fact)) * lw.inv_weight;
  fact_hi = static_cast<u32>(fact >> 32);
  if (fact_hi != 0) {
    const int fs = fls64(fact_hi);
    shift -= fs;
    fact >>= fs;
  }
  const u64 result = mul_u64_u32_shr(delta, static_cast<u32>(fact), static_cast<unsigned>(shift));
  const u128 exact = (static_cast<u128>(delta) * static_cast<u32>(fact)) >> shift;
  if (exact != result) [[unlikely]]
    obs.on_overflow({Site::calc_delta_mul_u64_u32_shr, static_cast<i128>(delta),
                     static_cast<i128>(static_cast<u32>(fact)), static_cast<i128>(exact),
                     static_cast<i128>(result)});
  return result;
}

LoadWeight task_load_weight(int nice, bool idle_policy) {
  if (idle_policy) return {scale_load(kWeightIdleprio), kWmultIdleprio};
  const auto prio = static_cast<std::size_t>(nice + 20);
  return {scale_load(sched_prio_to_weight[prio]), sched_prio_to_wmult[prio]};
}

}  // namespace eevdf
