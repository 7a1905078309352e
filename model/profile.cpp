#include "model/profile.hpp"

namespace eevdf {

namespace {

constexpr std::array<const char*, kFeatureCount> kFeatureNames = {
    "PLACE_LAG",   "PLACE_DEADLINE_INITIAL", "PLACE_REL_DEADLINE", "RUN_TO_PARITY",
    "PREEMPT_SHORT", "NEXT_BUDDY",          "PICK_BUDDY",         "DELAY_DEQUEUE",
    "DELAY_ZERO",  "PARANOID_AVG",           "WAKEUP_PREEMPTION",
    "RFC_SAME_PRIO_NO_WAKEUP_PREEMPT",  // RFC, not in any released kernel
};

// features.h defaults of the newest mainline (≈ v7.1): NEXT_BUDDY and
// PARANOID_AVG off, everything else on.
FeatureSet mainline_features() {
  FeatureSet f;
  for (std::size_t i = 0; i < kFeatureCount; ++i) f.on[i] = true;
  f.set(Feature::NEXT_BUDDY, false);
  f.set(Feature::PARANOID_AVG, false);
  f.set(Feature::RFC_SAME_PRIO_NO_WAKEUP_PREEMPT, false);  // RFC only, never a kernel default
  return f;
}

Profile mainline() {
  Profile p;
  p.name = "mainline";
  p.description =
      "newest mainline EEVDF (v7.1 + sched/urgent through Sept 2026: augmented-tree fixes "
      "51b0e68cfa0a and 9a8bc9bb4c3f), 64-bit, hierarchical runqueues";
  p.features = mainline_features();
  return p;
}

// v7.1 as released: the same code without the two September 2026 augment fixes.
Profile v7_1() {
  Profile p = mainline();
  p.name = "v7.1";
  p.description =
      "v7.1 as released: mainline without 51b0e68cfa0a (rotation copies only min_vruntime) "
      "and 9a8bc9bb4c3f (__enqueue_entity leaves max_slice stale)";
  p.behaviour.augment_copies_all_fields = false;
  p.behaviour.enqueue_inits_max_slice = false;
  return p;
}

}  // namespace

const char* feature_name(Feature f) {
  const auto i = static_cast<std::size_t>(f);
  return i < kFeatureCount ? kFeatureNames[i] : "?";
}

std::optional<Feature> feature_from_name(std::string_view name) {
  for (std::size_t i = 0; i < kFeatureCount; ++i)
    if (name == kFeatureNames[i]) return static_cast<Feature>(i);
  return std::nullopt;
}

const std::array<std::string_view, 2>& profile_names() {
  static const std::array<std::string_view, 2> names = {"mainline", "v7.1"};
  return names;
}

std::optional<Profile> profile_by_name(std::string_view name) {
  if (name == "mainline") return mainline();
  if (name == "v7.1") return v7_1();
  return std::nullopt;
}

std::string apply_features(FeatureSet& set, std::string_view list) {
  std::size_t pos = 0;
  while (pos <= list.size()) {
    std::size_t end = list.find(',', pos);
    if (end == std::string_view::npos) end = list.size();
    std::string_view item = list.substr(pos, end - pos);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (item.empty()) return "empty feature name in '" + std::string(list) + "'";
    bool value = true;
    if (item.substr(0, 3) == "NO_") {
      value = false;
      item.remove_prefix(3);
    }
    const auto f = feature_from_name(item);
    if (!f) return "unknown scheduler feature '" + std::string(item) + "'";
    set.set(*f, value);
    pos = end + 1;
  }
  return {};
}

}  // namespace eevdf
