// The kernel profiles: mainline, v7.3, v7.2, v7.1, v7.0, v6.18, v6.12.118, v6.12, v6.6.9 and v6.6.
// Each is mainline (the newest hierarchical code) with the later changes undone,
// or for v7.3 the v7.3-rc changes added, or for v6.12.118 the 6.12.y stable
// backports added to v6.12 (docs/profiles.md has the tables with the commits).
#include "model/profile.hpp"

#include <stdexcept>

namespace eevdf {

namespace {

constexpr std::array<const char*, kFeatureCount> kFeatureNames = {
    "PLACE_LAG",   "PLACE_DEADLINE_INITIAL", "PLACE_REL_DEADLINE", "RUN_TO_PARITY",
    "PREEMPT_SHORT", "NEXT_BUDDY",          "PICK_BUDDY",         "DELAY_DEQUEUE",
    "DELAY_ZERO",  "PARANOID_AVG",           "WAKEUP_PREEMPTION",  "WA_IDLE",
    "WA_WEIGHT",   "WA_BIAS",                "SIS_UTIL",
    "RFC_SAME_PRIO_NO_WAKEUP_PREEMPT",  // RFC, not in any released kernel
    "RFC_SMT_BUDDY_ASSIST",             // RFC, not in any released kernel
    "RFC_SMT_BUDDY_ASSIST_NR_RUNNING",  // its rejected first form
};

FeatureSet all_features() {
  FeatureSet f;
  for (std::size_t i = 0; i < kFeatureCount; ++i) f.on[i] = true;
  return f;
}

// features.h defaults of the the mainline profile (kMainlineLabel, model/profile.hpp): NEXT_BUDDY and
// PARANOID_AVG off, everything else on.
Profile mainline() {
  Profile p;
  p.name = "mainline";
  p.description =
      "newest hierarchical EEVDF: v7.2 (v7.1 + 333238da9a19) with the Sept 2026 augmented-tree fixes "
      "51b0e68cfa0a and 9a8bc9bb4c3f, as in a v7.2.y carrying them; 64-bit. Linus' tree is flat "
      "since v7.3-rc1: see v7.3";
  p.known = all_features();
  p.features = all_features();
  p.features.set(Feature::NEXT_BUDDY, false);
  p.features.set(Feature::PARANOID_AVG, false);
  p.features.set(Feature::RFC_SAME_PRIO_NO_WAKEUP_PREEMPT, false);  // RFC only, never a kernel default
  p.features.set(Feature::RFC_SMT_BUDDY_ASSIST, false);             // RFC only
  p.features.set(Feature::RFC_SMT_BUDDY_ASSIST_NR_RUNNING, false);  // RFC only (its rejected form)
  return p;
}

// v7.2 as released (2026-08-16): v7.1 plus 333238da9a19, without the two
// September 2026 augment fixes (they came in v7.3-rc3).
Profile v7_2() {
  Profile p = mainline();
  p.name = "v7.2";
  p.description =
      "v7.2 as released: v7.1 + 333238da9a19 (update_curr before requeue_delayed_entity); "
      "without 51b0e68cfa0a and 9a8bc9bb4c3f";
  p.behaviour.augment_copies_all_fields = false;
  p.behaviour.enqueue_inits_max_slice = false;
  return p;
}

// v7.1 as released: v7.2 without 333238da9a19.
Profile v7_1() {
  Profile p = v7_2();
  p.name = "v7.1";
  p.description =
      "v7.1 as released: mainline without 51b0e68cfa0a (rotation copies only min_vruntime) "
      "and 9a8bc9bb4c3f (__enqueue_entity leaves max_slice stale)";
  p.behaviour.requeue_updates_curr = false;  // 333238da9a19 came in v7.2
  // the task-based throttle of v6.18 (e1fad12dcb66), as 7.0.0 has it (no 7.1
  // tree read: v7.1 follows 7.0.0); v7.2 has 28ad5427682b and more, not modelled
  p.behaviour.cfs_bandwidth = true;
  p.behaviour.task_based_throttle = true;
  return p;
}

// v7.3-rc6 (2026-10-04) with the single runqueue of 85570f10a4c6 (+ 68e37487810a,
// 1719d035a6fa): every task on rq->cfs at its hierarchical weight h_load
// (model/fair_flat.cpp); for tasks of the root group h_load = the task's weight,
// and the EEVDF code is mainline plus the wakeup/protection series merged with it
// (v7.3-rc1) and nothing EEVDF after rc3. Tip-only commits (aae2a33ea662, 4bf32ec3327d,
// d2e010082757) are not in it.
Profile v7_3() {
  Profile p = mainline();
  p.name = "v7.3";
  p.description =
      "v7.3-rc6: the single runqueue (85570f10a4c6, 68e37487810a, 1719d035a6fa; tasks at h_load, cgroup_mode) + "
      "the v7.3-rc1 short-slice series "
      "(7ad0ec7890b3, 04998aa54848, 8f97b627ff1c, ba0d3bf5f97b, 7cd2ef17de5e, 49f87b4d0be8, 0d1e7a2bab35)";
  p.behaviour.wakeup_preempt = WakeupPreempt::v7_3;
  p.behaviour.protect_ineligible_cap = true;
  p.behaviour.update_protect_from_avg = true;
  p.behaviour.flat_runqueue = true;
  p.behaviour.tg_runnable_avg = true;
  p.behaviour.tg_cfs_runnable_sum_u64 = true;
  p.known.set(Feature::RFC_SAME_PRIO_NO_WAKEUP_PREEMPT, false);  // the RFC is against v7.1's wakeup_preempt_fair()
  return p;
}

// v7.0: before the v7.1 merge window (full weights, rescale_entity revert) and
// before the v7.1-rc fixes (B01, B05, B16, 78cde54ea5f0).
Profile v7_0() {
  Profile p = v7_1();
  p.name = "v7.0";
  p.description =
      "v7.0 as released: scale_load_down average weights and inverse-weight __calc_delta, "
      "s64 eligibility, void update_entity_lag, zero_vruntime re-based in update_deadline";
  p.known.set(Feature::PARANOID_AVG, false);
  p.features.set(Feature::PARANOID_AVG, false);
  Behaviour& b = p.behaviour;
  b.calc_delta = CalcDeltaPath::inverse_weight;  // db4551e2ba34 came in v7.1
  b.avg_full_weight = false;                     // 4823725d9d1d came in v7.1
  b.lag_delayed_clamps = false;
  b.place_shifts_zero = false;          // 556146ce5e94 came in v7.1
  b.place_rel_deadline_gated = false;   // 101f3498b4bd came in v7.1
  b.reweight = ReweightRule::replace_after_rescale;
  b.eligible_int128 = false;           // b6eee96843e8, v7.1-rc3
  b.fork_clears_rel_deadline = false;  // 3da56dc063cd, v7.1-rc2
  b.pick = PickRule::v6_19;            // 78cde54ea5f0 (buddy only when protecting), v7.1-rc1
  b.wakeup_pick = WakeupPick::pick_eevdf;  // ac8e69e69363, v7.1-rc2
  b.wake_idle_wakee_skips_sched_idle = false;  // fd54d81c2c0e came in v7.1
  return p;
}

// v6.18.0 (docs/notes/research/v6.6-v6.18.md): keys relative to the monotonic
// min_vruntime, the own-slice lag limit, yield without forfeit, vlag and vprot
// in one union, the buddy tested in pick_next_entity().
Profile v6_18() {
  Profile p = v7_0();
  p.name = "v6.18";
  p.description =
      "v6.18.0 as released: monotonic min_vruntime keys, lag limited by the entity's own slice, "
      "yield pushes only the deadline, vlag/vprot union, check_preempt_wakeup_fair()";
  Behaviour& b = p.behaviour;
  b.augment_has_max_slice = false;             // 6e3c0a4e1ad1 came in v7.0
  b.key_base = KeyBase::min_vruntime;       // 79f3f9bedd14 came in v6.19
  b.yield = YieldRule::deadline_only;       // 79104becf42b came in v6.19 (6.18.2)
  b.lag_limit_max_slice = false;            // 6e3c0a4e1ad1 came in v7.0
  b.enqueue_inits_max_slice = true;         // no max_slice augment: nothing to leave stale
  b.vprot_aliases_vlag = true;              // 80390ead2080 came in v7.0
  b.protect_only_first = false;             // bcd74b2ffdd0 came in v7.0
  b.reweight_keeps_vprot = false;           // ff38424030f9 came in v7.0
  b.move_wakeup_preempts = false;           // e34881c84c25 came in v7.0 (6.18.0 reschedules a running task only)
  b.pick = PickRule::v6_14;                 // e837456fdca8 (buddy inside __pick_eevdf) came in v6.19
  b.wakeup_preempt = WakeupPreempt::v6_18;  // e837456fdca8 / 15257cc2f905 came in v6.19
  p.known.set(Feature::RFC_SAME_PRIO_NO_WAKEUP_PREEMPT, false);  // the RFC is against wakeup_preempt_fair()
  b.pelt_clamp_u32 = true;                      // __update_sa() came in v7.0
  return p;
}

// v6.12.0 (docs/notes/research/v6.6-v6.18.md): v6.18 with the v6.12 code of the
// RUN_TO_PARITY parity stash, did_preempt_short(), the NEXT_BUDDY buddy pick
// and reweight_eevdf(); 750 µs normalized base slice.
Profile v6_12() {
  Profile p = v6_18();
  p.name = "v6.12";
  p.description =
      "v6.12.0 as released: RUN_TO_PARITY via vlag == deadline, did_preempt_short(), buddy pick gated by "
      "NEXT_BUDDY, reweight_eevdf() with entity_lag(), 750 us base slice";
  p.known.set(Feature::PICK_BUDDY, false);  // 2a77e4be12cb came in v6.14
  p.features.set(Feature::PICK_BUDDY, false);
  p.tunables.normalized_base_slice = 750000;  // 2ae891b82695 came in v6.15
  Behaviour& b = p.behaviour;
  b.vprot_aliases_vlag = false;              // no vprot at all: the parity lives in vlag
  b.parity_in_vlag = true;
  b.pick = PickRule::v6_8;                   // 2a77e4be12cb (PICK_BUDDY) came in v6.14
  b.reweight = ReweightRule::eevdf_clamped_lag;  // 6d71a9c61604 came in v6.13-rc7
  b.place_rel_deadline_gated = true;         // 6d71a9c61604 dropped the feature test
  b.wakeup_preempt = WakeupPreempt::v6_12;  // do_preempt_short() of 85e511df3cec
  b.group_slice_updates_augment = false;    // 563bc2161b94 came in v6.15
  b.dequeue_slice_from_nonempty_queue = false;  // bbce3de72be5 came in v6.15 (6.12.y: 6.12.29)
  b.empty_group_keeps_weight = false;        // 66951e4860d3 came in v6.13-rc7 (6.12.y: 6.12.11)
  b.wakeup_buddy_skips_delayed = false;      // 493afbd187c4 came in 6.12.y
  b.dequeue_clears_buddies_first = false;    // 493afbd187c4 came in 6.12.y
  b.delayed_count = DelayedCount::none;      // 76f2f783294d came in 6.12.y
  b.idle_preempt_cancels_protection = false;  // f553741ac8c0 came in v6.15 (and 6.12.y)
  b.sync_affine_counts_delayed = true;        // aa3ee4f0b754 came in v6.16 (and 6.12.y)
  b.cfs_bandwidth = true;                     // the hierarchical throttle (v6.18 throttles tasks: e1fad12dcb66)
  b.task_based_throttle = false;              // e1fad12dcb66 came in v6.18
  b.throttled_dequeue_blocks_delayed = false;  // came in 6.12.54
  return p;
}

// 6.12.10 (6.12.8 - 6.12.10 in the EEVDF code): v6.12.0 with the two stable
// backports of 6.12.8, read in 6.12.10's fair.c, sched.h and pelt.c:
// 493afbd187c4 "sched/fair: Fix NEXT_BUDDY" and 76f2f783294d "sched/eevdf:
// More PELT vs DELAYED_DEQUEUE", whose set_delayed() also counts a delayed
// group entity (3429dd57f0de fixed that in 6.12.15; 66951e4860d3 came in
// 6.12.11).
Profile v6_12_10() {
  Profile p = v6_12();
  p.name = "v6.12.10";
  p.description =
      "6.12.10: v6.12.0 + 493afbd187c4 (buddies cleared before the delay decision, no NEXT_BUDDY for a delayed "
      "wakee) + 76f2f783294d (h_nr_delayed for PELT, counting delayed group entities too)";
  Behaviour& b = p.behaviour;
  b.wakeup_buddy_skips_delayed = true;        // 493afbd187c4 (6.12.8)
  b.dequeue_clears_buddies_first = true;      // 493afbd187c4 (6.12.8)
  b.delayed_count = DelayedCount::every_entity;  // 76f2f783294d (6.12.8), before 3429dd57f0de (6.12.15)
  return p;
}

// 6.12.118 as Debian packages it (linux-source-6.12 6.12.118-1), read line by
// line in its fair.c, core.c and features.h: v6.12.0 with the EEVDF stable
// backports of 6.12.1..6.12.118. It keeps v6.12's scale_load_down() sums,
// s64 eligibility, own-slice lag limit, reweight_eevdf() (6d71a9c61604 was
// not backported) and the RUN_TO_PARITY stash in vlag, and takes the
// zero_vruntime key base re-based by avg_vruntime() from update_deadline().
Profile v6_12_118() {
  Profile p = v6_12();
  p.name = "v6.12.118";
  p.description =
      "6.12.118 (Debian linux-source-6.12): v6.12 + stable backports: zero_vruntime re-based in avg_vruntime() "
      "from update_deadline(), yield forfeits vruntime, PICK_BUDDY, 700 us base slice, group-slice and "
      "empty-group fixes; still parity stash in vlag, own-slice lag limit, reweight_eevdf()";
  p.known.set(Feature::PICK_BUDDY, true);  // 2a77e4be12cb (6.12.y)
  p.features.set(Feature::PICK_BUDDY, true);
  p.tunables.normalized_base_slice = 700000;  // 2ae891b82695 (6.12.y)
  Behaviour& b = p.behaviour;
  b.key_base = KeyBase::zero_at_avg_deadline;   // 79f3f9bedd14 + b3d99f43c72b + 1319ea57529e (6.12.y)
  b.yield = YieldRule::forfeit_update_deadline;  // 79104becf42b + 1319ea57529e (6.12.y)
  b.pick = PickRule::v6_14;                     // 2a77e4be12cb: PICK_BUDDY, still in pick_next_entity()
  b.group_slice_updates_augment = true;         // 563bc2161b94 (6.12.y)
  b.dequeue_slice_from_nonempty_queue = true;   // bbce3de72be5 (6.12.y)
  b.empty_group_keeps_weight = true;            // 66951e4860d3 (6.12.11)
  b.fork_clears_rel_deadline = true;            // 3da56dc063cd (6.12.y)
  b.wakeup_buddy_skips_delayed = true;          // 493afbd187c4 (6.12.y)
  b.dequeue_clears_buddies_first = true;        // 493afbd187c4 (6.12.y)
  b.delayed_count = DelayedCount::tasks;        // 76f2f783294d + 3429dd57f0de (6.12.y)
  b.idle_preempt_cancels_protection = true;     // f553741ac8c0 (6.12.y)
  b.debug_reader_unlocked_rmw = true;           // b3d99f43c72b (6.12.y) without e08d007f9d81
  b.sync_affine_counts_delayed = false;         // aa3ee4f0b754 (6.12.y)
  b.throttled_dequeue_blocks_delayed = true;    // 6.12.54
  return p;
}

// v6.6.0: the tree by vruntime with the min_deadline augment and the
// two-pass pick, placement at fork, reweight before eab03c23c2a1, no custom
// slices, no delayed dequeue, no PREEMPT_SHORT.
Profile v6_6() {
  Profile p = v6_12();
  p.name = "v6.6";
  p.description =
      "v6.6.0 as released: tree by vruntime with min_deadline augment and the two-pass pick_eevdf(), "
      "placement at fork, reweight keeps vruntime, no custom slices, no delayed dequeue";
  for (Feature f : {Feature::PLACE_REL_DEADLINE, Feature::PREEMPT_SHORT, Feature::DELAY_DEQUEUE, Feature::DELAY_ZERO}) {
    p.known.set(f, false);
    p.features.set(f, false);
  }
  Behaviour& b = p.behaviour;
  b.pick = PickRule::v6_6;                   // 2227a957e1d5 came in v6.8
  b.reweight = ReweightRule::keep_vruntime;  // eab03c23c2a1 came in v6.7 (and 6.6.y)
  b.wakeup_preempt = WakeupPreempt::v6_6;
  b.place_at_fork = true;                    // c40dd90ac045 came in v6.12
  b.custom_slices = false;                   // 857b158dc5e8 came in v6.12
  b.idle_weight_reweights = false;           // d32960528702 came in v6.11 (and 6.6.y)
  b.group_slice_from_queue = false;          // aef6987d8954 came in v6.12
  b.tg_load_avg_ratelimit = false;           // 1528c661c24b came in v6.7
  b.post_init_util_unscaled_weight = true;   // se->load.weight, not se_weight() (6.6.9's fair.c)
  b.pick_next_v6_6 = true;                   // v6.6's pick_next_task_fair() (6.6.0 and 6.6.9 fair.c)
  b.cpu_max_burst_in_us = true;              // 49217ea147df came in v6.10 (6.6.y later than 6.6.9)
  b.group_reweight_unchanged = true;         // 6.6.0's update_cfs_group() (6.6.9 tests the weight first)
  return p;
}

// 6.6.9 (6.6.y as of January 2024, read in its fair.c): v6.6.0 with the stable
// backport of eab03c23c2a1 (reweight_eevdf()) in its first form. Everything
// else of the EEVDF code equals v6.6.0, apart from update_cfs_group() skipping
// an unchanged weight on CONFIG_SMP, which the model does on v6.6 as well.
Profile v6_6_9() {
  Profile p = v6_6();
  p.name = "v6.6.9";
  p.description =
      "6.6.9: v6.6.0 + the stable backport of eab03c23c2a1 (reweight_eevdf(): V without the entity, raw lag, "
      "update_curr() for curr only)";
  p.behaviour.reweight = ReweightRule::eevdf_v6_7;
  p.behaviour.group_reweight_unchanged = false;  // update_cfs_group() skips an unchanged weight
  return p;
}

using Factory = Profile (*)();
struct Entry {
  std::string_view name;
  Factory make;
  KernelRelease release;
};
// Each with the kernel release it stands for (none for mainline: a v7.2.y
// that carries the September 2026 fixes, no one release): judge_for_kernel().
const std::array<Entry, 11> kProfiles = {{
    {"mainline", mainline, {}},
    {"v7.3", v7_3, {7, 3, 0}},
    {"v7.2", v7_2, {7, 2, 0}},
    {"v7.1", v7_1, {7, 1, 0}},
    {"v7.0", v7_0, {7, 0, 0}},
    {"v6.18", v6_18, {6, 18, 0}},
    {"v6.12.118", v6_12_118, {6, 12, 118}},
    {"v6.12.10", v6_12_10, {6, 12, 10}},
    {"v6.12", v6_12, {6, 12, 0}},
    {"v6.6.9", v6_6_9, {6, 6, 9}},
    {"v6.6", v6_6, {6, 6, 0}},
}};

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

const std::vector<std::string_view>& profile_names() {
  static const std::vector<std::string_view> names = [] {
    std::vector<std::string_view> v;
    for (const Entry& e : kProfiles) v.push_back(e.name);
    return v;
  }();
  return names;
}

std::string behaviour_refusal(const Profile& profile) {
  const Behaviour& b = profile.behaviour;
  if (b.wakeup_check_preempt() != b.pick_buddy_in_pick_next())
    return "profile " + profile.name +
           ": the buddy is tested in pick_next_entity() exactly with check_preempt_wakeup_fair() (v6.6 - v6.18); "
           "e837456fdca8 moved it into __pick_eevdf() with wakeup_preempt_fair()";
  if (b.buddy_gated_by_next_buddy() == profile.known[Feature::PICK_BUDDY])
    return "profile " + profile.name + ": PICK_BUDDY exists exactly when the pick tests it (2a77e4be12cb)";
  if ((b.wakeup_preempt == WakeupPreempt::v6_12 || b.wakeup_preempt == WakeupPreempt::v6_6) && !b.parity_in_vlag)
    return "profile " + profile.name + ": the wakeup preemption of v6.6 and v6.12 cancels the RUN_TO_PARITY stash "
           "in vlag, which this profile does not have (parity_in_vlag)";
  return {};
}

KernelRelease profile_release(std::string_view name) {
  for (const Entry& e : kProfiles)
    if (e.name == name) return e.release;
  return {};
}

std::string judge_for_kernel(const KernelRelease& tree) {
  const Entry* best = nullptr;
  const auto distance = [&](const Entry& e) {
    return e.release.sublevel > tree.sublevel ? e.release.sublevel - tree.sublevel : tree.sublevel - e.release.sublevel;
  };
  for (const Entry& e : kProfiles) {
    if (e.release.major != tree.major || e.release.minor != tree.minor || e.release.major == 0) continue;
    // the nearest sublevel; on a tie the older release, whose code the tree has
    if (!best || distance(e) < distance(*best) ||
        (distance(e) == distance(*best) && e.release.sublevel < best->release.sublevel))
      best = &e;
  }
  return best ? std::string(best->name) : std::string{};
}

std::optional<Profile> profile_by_name(std::string_view name) {
  for (const Entry& e : kProfiles) {
    if (e.name != name) continue;
    Profile p = e.make();
    // a factory that combines versions wrongly is a defect of this file
    if (std::string why = behaviour_refusal(p); !why.empty()) throw std::logic_error(why);
    return p;
  }
  return std::nullopt;
}

std::vector<std::string_view> list_items(std::string_view list) {
  std::vector<std::string_view> items;
  std::size_t pos = 0;
  while (pos <= list.size()) {
    std::size_t end = list.find(',', pos);
    if (end == std::string_view::npos) end = list.size();
    std::string_view item = list.substr(pos, end - pos);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    items.push_back(item);
    pos = end + 1;
  }
  return items;
}

std::string apply_features(FeatureSet& set, std::string_view list) {
  for (std::string_view item : list_items(list)) {
    if (item.empty()) return "empty feature name in '" + std::string(list) + "'";
    bool value = true;
    if (item.substr(0, 3) == "NO_") {
      value = false;
      item.remove_prefix(3);
    }
    const auto f = feature_from_name(item);
    if (!f) return "unknown scheduler feature '" + std::string(item) + "'";
    set.set(*f, value);
  }
  return {};
}

const char* cgroup_mode_name(CgroupMode m) {
  switch (m) {
    case CgroupMode::up: return "up";
    case CgroupMode::smp: return "smp";
    case CgroupMode::concur: return "concur";
    case CgroupMode::max: return "max";
    case CgroupMode::tasks: return "tasks";
  }
  return "?";
}

std::optional<CgroupMode> cgroup_mode_from_name(std::string_view name) {
  for (CgroupMode m : {CgroupMode::up, CgroupMode::smp, CgroupMode::concur, CgroupMode::max, CgroupMode::tasks})
    if (name == cgroup_mode_name(m)) return m;
  return std::nullopt;
}

// Items "cgroup_mode=NAME" set the flat runqueue's sched/cgroup_mode knob
// (docs/scenario-language.md); the others are SCHED_FEATs.
std::string apply_features(Profile& profile, std::string_view list) {
  std::string features;
  std::optional<CgroupMode> mode;
  for (std::string_view item : list_items(list)) {
    if (item.substr(0, 12) == "cgroup_mode=") {
      mode = cgroup_mode_from_name(item.substr(12));
      if (!mode) return "unknown cgroup_mode '" + std::string(item.substr(12)) + "' (up, smp, concur, max, tasks)";
      if (!profile.behaviour.flat_runqueue)
        return "cgroup_mode exists only on the single runqueue of v7.3, not in " + profile.name;
    } else {
      if (!features.empty()) features += ',';
      features += std::string(item);
    }
  }
  FeatureSet set = profile.features;
  if (!features.empty() || !mode)
    if (std::string err = apply_features(set, features.empty() ? list : std::string_view(features)); !err.empty())
      return err;
  for (std::size_t i = 0; i < kFeatureCount; ++i) {
    const auto f = static_cast<Feature>(i);
    if (set[f] && !profile.known[f])
      return "scheduler feature '" + std::string(feature_name(f)) + "' does not exist in " + profile.name;
  }
  profile.features = set;
  if (mode) profile.tunables.cgroup_mode = *mode;
  return {};
}

}  // namespace eevdf
