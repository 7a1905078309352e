// What the proof obligations need to know about a kernel profile: the
// arithmetic choices (weight precision of the sums, eligibility width, lag
// clamp rule, __calc_delta path, place_entity division) and the premises the
// kernel guarantees (slice, HZ, weight and queue-length ranges). Derived from
// eevdf::Profile, so that new profiles plug in.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/profile.hpp"

namespace eevdf::smt {

// Weight the sums Σ key·w and Σ w use: full se->load.weight (>> sum_shift,
// 4823725d9d1d, v7.1) or scale_load_down() (v6.6 – v7.0).
enum class SumWeight : std::uint8_t { full, scale_load_down };
// Lag clamp of entity_lag(): calc_delta_fair(max_slice + TICK_NSEC) (6e3c0a4e1ad1)
// or calc_delta_fair(max(2·slice, TICK_NSEC)) (v6.6 – v6.18).
enum class LagClamp : std::uint8_t { max_slice_tick, two_slice };
// place_entity()'s division: div64_long (s64 divisor) or div_s64 (s32 divisor).
enum class PlaceDivision : std::uint8_t { div64_long, div_s64 };

struct Params {
  std::string profile;      // profile name
  std::string variant;      // test-only change on top of the profile, "" for none
  SumWeight sum_weight = SumWeight::full;
  bool eligible_int128 = true;
  LagClamp lag_clamp = LagClamp::max_slice_tick;
  CalcDeltaPath calc_delta = CalcDeltaPath::full_weight;
  PlaceDivision place_division = PlaceDivision::div64_long;
  std::vector<std::string> notes;  // how each field was derived, when not from Profile::behaviour

  // ---- premises (docs/proofs.md names the kernel mechanism of each) ----
  long long slice_min = 100000;        // __setparam_fair() clamp, ns
  long long slice_max = 100000000;     // __setparam_fair() clamp; base slice ≤ this
  long long tick_min = 1000000;        // TICK_NSEC at HZ=1000
  long long tick_max = 10000000;       // TICK_NSEC at HZ=100
  long long weight_min = 2;            // calc_group_shares(): MIN_SHARES, unscaled
  long long weight_max = 1LL << 28;    // scale_load(MAX_SHARES)
  bool groups = true;                  // false: task weights only (what scenarios reach)
  // v7.3's single runqueue: a task is queued at its effective weight h_load,
  // any integer from MIN_SHARES (2, the floor of __calc_prop_weight) to the
  // nice -20 weight, so "task weights only" reaches weight 2 too.
  bool task_weight_from_hierarchy = false;
  long long key_lags = 2;              // |key|·w ≤ key_lags · L · NICE_0_LOAD (I-KEY)
  long long max_queue = 512;           // N: entities on one cfs_rq
  long long max_delta_exec = 3000000000LL;  // sched_tick_remote(): WARN above 3 s
  unsigned timeout_ms = 10000;         // per Z3 query
  bool search_bounds = true;           // false: verdicts only (no bound searches)

  // L = the ns argument of the lag clamp's calc_delta_fair(), largest value.
  long long lag_ns_max() const;
  long long lag_ns_min() const;
};

// Parameters of a profile, from its Behaviour: weight precision and
// place_entity()'s division (avg_full_weight), eligibility width, lag clamp rule.
Params params_for(const Profile& profile);

// Test-only arithmetic changes (until profiles with these flaws exist):
//   s64-eligibility   vruntime_eligible() multiplies key·load in s64 (before b6eee96843e8)
//   scale-load-down   sums use scale_load_down() weights (v6.6 – v7.0)
//   div-s64           place_entity() divides with div_s64 (s32 divisor)
//   inverse-weight    __calc_delta() on the inverse-weight path
// Returns an error message for an unknown name.
std::string apply_variant(Params& p, std::string_view variant);
const std::vector<std::string_view>& variant_names();

// Applies the variant to a model profile, where the model supports it
// (s64-eligibility, inverse-weight); false otherwise.
bool apply_variant_to_profile(Profile& profile, std::string_view variant);

}  // namespace eevdf::smt
