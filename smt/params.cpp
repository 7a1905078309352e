#include "smt/params.hpp"

namespace eevdf::smt {

long long Params::lag_ns_max() const {
  if (lag_clamp == LagClamp::max_slice_tick) return slice_max + tick_max;
  return 2 * slice_max > tick_max ? 2 * slice_max : tick_max;
}

long long Params::lag_ns_min() const {
  if (lag_clamp == LagClamp::max_slice_tick) return slice_min + tick_min;
  return 2 * slice_min > tick_min ? 2 * slice_min : tick_min;
}

Params params_for(const Profile& profile) {
  Params p;
  p.profile = profile.name;
  const Behaviour& b = profile.behaviour;
  p.eligible_int128 = b.eligible_int128;
  p.calc_delta = b.calc_delta;
  // 4823725d9d1d (v7.1): full-weight sums, long load, div64_long in place_entity.
  if (!b.avg_full_weight) {
    p.sum_weight = SumWeight::scale_load_down;
    p.place_division = PlaceDivision::div_s64;
  }
  // 6e3c0a4e1ad1 (v7.0): lag clamp via max_slice.
  if (!b.lag_limit_max_slice) p.lag_clamp = LagClamp::two_slice;
  // 85570f10a4c6 (v7.3-rc1): tasks at h_load, floored at MIN_SHARES
  p.task_weight_from_hierarchy = b.flat_runqueue;
  return p;
}

const std::vector<std::string_view>& variant_names() {
  static const std::vector<std::string_view> names = {"s64-eligibility", "scale-load-down", "div-s64",
                                                      "inverse-weight"};
  return names;
}

std::string apply_variant(Params& p, std::string_view variant) {
  if (variant.empty()) return {};
  if (variant == "s64-eligibility")
    p.eligible_int128 = false;
  else if (variant == "scale-load-down")
    p.sum_weight = SumWeight::scale_load_down;
  else if (variant == "div-s64")
    p.place_division = PlaceDivision::div_s64;
  else if (variant == "inverse-weight")
    p.calc_delta = CalcDeltaPath::inverse_weight;
  else
    return "unknown test-only variant '" + std::string(variant) +
           "' (s64-eligibility, scale-load-down, div-s64, inverse-weight)";
  p.variant = std::string(variant);
  return {};
}

bool apply_variant_to_profile(Profile& profile, std::string_view variant) {
  if (variant.empty()) return true;
  if (variant == "s64-eligibility") {
    profile.behaviour.eligible_int128 = false;
    return true;
  }
  if (variant == "inverse-weight") {
    profile.behaviour.calc_delta = CalcDeltaPath::inverse_weight;
    return true;
  }
  return false;  // the model has no switch for the others
}

}  // namespace eevdf::smt
