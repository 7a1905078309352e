// A profile: which kernel the model behaves as. The kernel version label, the
// SCHED_FEAT set (features.h names), the tunables, and the handful of
// version-dependent behaviours, all as data.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "model/kernel_types.hpp"
#include "model/weights.hpp"

namespace eevdf {

// The SCHED_FEAT()s that change EEVDF arithmetic or decisions.
enum class Feature : std::uint8_t {
  PLACE_LAG,
  PLACE_DEADLINE_INITIAL,
  PLACE_REL_DEADLINE,
  RUN_TO_PARITY,
  PREEMPT_SHORT,
  NEXT_BUDDY,
  PICK_BUDDY,
  DELAY_DEQUEUE,
  DELAY_ZERO,
  PARANOID_AVG,
  WAKEUP_PREEMPTION,
  // Not in any released kernel: the RFC "no wakeup preemption between
  // same-priority SCHED_NORMAL tasks" as a what-if switch (docs/bridges.md).
  // Off in every profile.
  RFC_SAME_PRIO_NO_WAKEUP_PREEMPT,
  count_
};
inline constexpr std::size_t kFeatureCount = static_cast<std::size_t>(Feature::count_);

const char* feature_name(Feature f);
std::optional<Feature> feature_from_name(std::string_view name);

struct FeatureSet {
  std::array<bool, kFeatureCount> on{};
  bool operator[](Feature f) const { return on[static_cast<std::size_t>(f)]; }
  void set(Feature f, bool v) { on[static_cast<std::size_t>(f)] = v; }
  bool operator==(const FeatureSet&) const = default;
};

struct Tunables {
  unsigned ncpus = 8;                              // online CPUs, for the base-slice factor
  unsigned hz = 1000;                              // CONFIG_HZ
  u64 normalized_base_slice = 700000;              // normalized_sysctl_sched_base_slice, ns
  u64 migration_cost = 500000;                     // sysctl_sched_migration_cost, ns
  bool operator==(const Tunables&) const = default;
};

// Behaviours that differ between kernels and are not SCHED_FEATs.
struct Behaviour {
  CalcDeltaPath calc_delta = CalcDeltaPath::full_weight;
  // RB_DECLARE_CALLBACKS_MULTI (51b0e68cfa0a, Sept 2026): rotations and copies
  // carry min_slice and max_slice too, not only min_vruntime.
  bool augment_copies_all_fields = true;
  // __enqueue_entity() sets se->max_slice = se->slice (9a8bc9bb4c3f, Sept 2026).
  bool enqueue_inits_max_slice = true;
  // vruntime_eligible() multiplies key * load in 128 bits (b6eee96843e8).
  bool eligible_int128 = true;
  bool operator==(const Behaviour&) const = default;
};

struct Profile {
  std::string name;         // "mainline", "v7.1", ...
  std::string description;  // one line: what kernel this is
  FeatureSet features;
  Tunables tunables;
  Behaviour behaviour;

  bool feat(Feature f) const { return features[f]; }

  // TICK_NSEC = (NSEC_PER_SEC + HZ/2) / HZ
  u64 tick_nsec() const { return (u64{1000000000} + tunables.hz / 2) / tunables.hz; }
  // 1 + ilog2(min(ncpus, 8)) (SCHED_TUNABLESCALING_LOG, the default)
  u64 base_slice_factor() const {
    const unsigned n = tunables.ncpus < 8 ? tunables.ncpus : 8;
    return 1 + static_cast<u64>(ilog2(n == 0 ? 1 : n));
  }
  u64 sysctl_sched_base_slice() const { return tunables.normalized_base_slice * base_slice_factor(); }
};

// The profiles the model knows. Returns nullopt for an unknown name.
std::optional<Profile> profile_by_name(std::string_view name);
// Names of all profiles, for help texts and `eevdf-check profiles`.
const std::array<std::string_view, 2>& profile_names();

// Applies a debugfs-style feature list ("NO_NEXT_BUDDY,PARANOID_AVG").
// Returns an error message, or an empty string on success.
std::string apply_features(FeatureSet& set, std::string_view list);

}  // namespace eevdf
