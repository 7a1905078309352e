// Load weights and the time <-> virtual time conversion (kernel/sched/core.c
// tables, kernel/sched/sched.h scaling, fair.c __calc_delta / calc_delta_fair).
#pragma once

#include <array>

#include "model/kernel_types.hpp"

namespace eevdf {

inline constexpr unsigned kSchedFixedpointShift = 10;
inline constexpr unsigned kNice0LoadShift = 20;  // 64-bit kernels
inline constexpr u64 kNice0Load = u64{1} << kNice0LoadShift;
inline constexpr u32 kWmultConst = 0xFFFFFFFFu;
inline constexpr unsigned kWmultShift = 32;
inline constexpr u64 kWeightIdleprio = 3;
inline constexpr u32 kWmultIdleprio = 1431655765u;
inline constexpr u64 kMinShares = 2;             // unscaled, as calc_group_shares() clamps
inline constexpr u64 kMaxShares = u64{1} << 18;
inline constexpr u64 kMaxEntityWeight = u64{1} << 28;  // scale_load(MAX_SHARES)

extern const std::array<u32, 40> sched_prio_to_weight;  // index nice + 20
extern const std::array<u32, 40> sched_prio_to_wmult;

constexpr u64 scale_load(u64 w) { return w << kSchedFixedpointShift; }
// scale_load_down(): 0 stays 0, anything else is at least 2.
constexpr u64 scale_load_down(u64 w) {
  if (w == 0) return 0;
  const u64 down = w >> kSchedFixedpointShift;
  return down < 2 ? 2 : down;
}

struct LoadWeight {
  u64 weight = 0;      // unsigned long
  u32 inv_weight = 0;  // 0 = not computed yet (update_load_set/add/sub clear it)
};

// Which __calc_delta the profile uses.
enum class CalcDeltaPath : std::uint8_t {
  full_weight,     // 64-bit mainline since db4551e2ba34: (delta * weight) / lw->weight
  inverse_weight,  // 32-bit, and every kernel up to v7.0: mul_u64_u32_shr with inv_weight
};

// __update_inv_weight(): lazily compute inv_weight from the scaled-down weight.
void update_inv_weight(LoadWeight& lw);

// __calc_delta(delta, weight, lw): delta * weight / lw->weight on the chosen path.
u64 calc_delta(u64 delta, u64 weight, LoadWeight& lw, CalcDeltaPath path, Observer& obs);

// calc_delta_fair(): delta scaled by NICE_0_LOAD / se weight (identity at nice 0).
inline u64 calc_delta_fair(u64 delta, LoadWeight& lw, CalcDeltaPath path, Observer& obs) {
  if (lw.weight == kNice0Load) return delta;
  return calc_delta(delta, kNice0Load, lw, path, obs);
}

// set_load_weight() for a task: table weight and inverse for the nice level,
// or the SCHED_IDLE weight.
LoadWeight task_load_weight(int nice, bool idle_policy);

}  // namespace eevdf
