#include "smt/params.hpp"

#include <charconv>

namespace eevdf::smt {

namespace {

// "v6.18" -> 618, "mainline" -> a number above every release; nullopt if not a version.
std::optional<int> version_of(std::string_view name) {
  if (name == "mainline") return 100000;
  if (name.size() < 4 || name[0] != 'v') return std::nullopt;
  const auto dot = name.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  int major = 0, minor = 0;
  if (std::from_chars(name.data() + 1, name.data() + dot, major).ec != std::errc{}) return std::nullopt;
  if (std::from_chars(name.data() + dot + 1, name.data() + name.size(), minor).ec != std::errc{}) return std::nullopt;
  return major * 100 + minor;
}

}  // namespace

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
  p.eligible_int128 = profile.behaviour.eligible_int128;
  p.calc_delta = profile.behaviour.calc_delta;
  const auto version = version_of(profile.name);
  if (!version) {
    p.notes.push_back("profile name '" + profile.name +
                      "' is not a kernel version: sums, lag clamp and division assumed as in mainline");
    return p;
  }
  // 4823725d9d1d (v7.1): full-weight sums, long load, div64_long in place_entity.
  if (*version < 701) {
    p.sum_weight = SumWeight::scale_load_down;
    p.place_division = PlaceDivision::div_s64;
    p.notes.push_back("before v7.1: scale_load_down() sums and div_s64 in place_entity (by version)");
  }
  // 6e3c0a4e1ad1 (v7.0): lag clamp via max_slice.
  if (*version < 700) {
    p.lag_clamp = LagClamp::two_slice;
    p.notes.push_back("before v7.0: lag clamp calc_delta_fair(max(2·slice, TICK_NSEC)) (by version)");
  }
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
