// The bug switches (docs/profiles.md, "Bug switches"). Each undoes one fix,
// named by the kernel commit that made it.
#include "model/bugs.hpp"

#include <algorithm>

namespace eevdf {

namespace {

const std::vector<std::string_view> kFrom70 = {"v7.0", "v7.1", "mainline"};
const std::vector<std::string_view> kFrom71 = {"v7.1", "mainline"};
// v6.12.118 has the 6.12.y backports of these fixes (docs/profiles.md)
const std::vector<std::string_view> kFrom70And612y = {"v6.12.118", "v7.0", "v7.1", "mainline"};
const std::vector<std::string_view> kFrom71And612y = {"v6.12.118", "v7.1", "mainline"};
const std::vector<std::string_view> kV612 = {"v6.12", "v6.12.118"};
const std::vector<std::string_view> kV66 = {"v6.6"};
const std::vector<std::string_view> kV73 = {"v7.3"};
const std::vector<std::string_view> kV612118 = {"v6.12.118"};  // the profile with CPU bandwidth control

const std::vector<BugSwitch> kBugs = {
    {"B01", "forked entity keeps a stale rel_deadline; yield then blows up vruntime", "3da56dc063cd", kFrom71And612y,
     "v6.12, v6.18, v7.0; 6.12.y before Debian 6.12.94", "I-DL",
     [](Profile& p) { p.behaviour.fork_clears_rel_deadline = false; }},
    {"B02", "zero_vruntime is not updated while a single task runs", "b3d99f43c72b", kFrom70And612y,
     "v6.19; 6.12.y from Debian 6.12.69 to the b3d99f43c72b backport",
     "I-KEY",
     [](Profile& p) {
       p.behaviour.key_base = KeyBase::zero_at_rb_ops;
       p.behaviour.yield = YieldRule::forfeit_add_slice;
     }},
    {"B03", "two yielding tasks leapfrog past zero_vruntime", "1319ea57529e", kFrom70And612y,
     "v7.0-rc1..rc6; 6.12.y from the b3d99f43c72b backport to 6.12.80",
     "I-KEY",
     [](Profile& p) {
       p.behaviour.key_base = KeyBase::zero_at_avg_tick;
       p.behaviour.yield = YieldRule::forfeit_add_slice;
     }},
    {"B05", "s64 overflow of key * load in vruntime_eligible()", "b6eee96843e8", kFrom71,
     "v7.1-rc1..rc2 (full weights; older kernels use 10 fewer bits)", "I-ELIG",
     [](Profile& p) { p.behaviour.eligible_int128 = false; }},
    {"B06", "monotonic min_vruntime drifts away from avg_vruntime", "79f3f9bedd14", kFrom70,
     "v6.6 .. v6.18", "I-KEY",
     [](Profile& p) { p.behaviour.key_base = KeyBase::min_vruntime; }},
    {"B08", "reweight_eevdf() rescales the unclamped lag V - v", "1560d1f6eb6b", kV612,
     "v6.7-rc2 .. v6.9-rc5, 6.6.y with the eab03c23c2a1 backport", "I-RW",
     [](Profile& p) { p.behaviour.reweight = ReweightRule::eevdf_raw_lag; }},
    {"B10", "one-pass pick_eevdf() misses the eligible earliest deadline", "b01db23d5923", kV66, "v6.6-rc1..rc4",
     "I-PICKOPT", [](Profile& p) { p.behaviour.pick = PickRule::v6_6_rc1; }},
    {"B11", "avg_vruntime() rounds a negative average up, not down", "650cad561cce", kFrom70, "v6.6-rc",
     "I-AVG0", [](Profile& p) { p.behaviour.avg_floor = false; }},
    {"B16", "wakeup preemption asks __pick_eevdf(), which may answer a delayed entity", "ac8e69e69363",
     kFrom71, "v6.12 .. v7.0", "I-DELAY",
     [](Profile& p) { p.behaviour.wakeup_pick = WakeupPick::pick_eevdf; }},
    {"B19", "lag clamped by the entity's own slice, not the queue's largest", "6e3c0a4e1ad1", kFrom70,
     "v6.6 .. v6.18", "I-LAG", [](Profile& p) { p.behaviour.lag_limit_max_slice = false; }},
    {"B20", "yield pushes only the deadline: deadline runaway", "79104becf42b", kFrom70And612y,
     "v6.6 .. v6.18; 6.12.y before Debian 6.12.63",
     "I-DL", [](Profile& p) { p.behaviour.yield = YieldRule::deadline_only; }},
    {"B23", "forced wakeup preemption: an ineligible waker yields without asking EEVDF", "15257cc2f905",
     kFrom70, "v6.19-rc1..rc6 (e837456fdca8)", "I-WAKEPICK",
     [](Profile& p) { p.behaviour.forced_wakeup_preempt = true; }},
    // The post-merge fix of the v7.3-rc single runqueue (85570f10a4c6).
    {"B24", "single runqueue: pick and yield read V with a grouped running task not charged", "1719d035a6fa",
     kV73, "v7.3-rc1..rc2", "I-FRESH",
     [](Profile& p) { p.behaviour.flat_pick_yield_update_curr_eevdf = false; }},
    // The v6.12-rc1 window of 85e511df3cec.
    {"B25", "update_curr() tests rq->nr_running: a lone fair task beside an RT task is rescheduled at slice expiry",
     "d4ac164bde7a", kV612, "v6.12-rc1 (85e511df3cec)", "I-PROT",
     [](Profile& p) { p.behaviour.lone_test_rq_nr_running = true; }},
    // CPU bandwidth control meets delayed dequeue (v6.12-rc1 152e11f6df29 .. 9b5ce1a37e90).
    {"B26", "unthrottle_cfs_rq() stops at a queued delayed group entity and leaves it delayed, its queue runnable again",
     "9b5ce1a37e90", kV612118, "v6.12-rc1", "I-WARN",
     [](Profile& p) { p.behaviour.unthrottle_dequeues_delayed = false; }},
};

}  // namespace

const std::vector<BugSwitch>& bug_switches() { return kBugs; }

const BugSwitch* bug_by_id(std::string_view id) {
  for (const BugSwitch& b : kBugs)
    if (b.id == id) return &b;
  return nullptr;
}

std::string apply_bug(Profile& profile, std::string_view id) {
  const BugSwitch* bug = bug_by_id(id);
  if (!bug) {
    std::string known;
    for (const BugSwitch& b : kBugs) known += (known.empty() ? "" : ", ") + std::string(b.id);
    return "unknown bug switch '" + std::string(id) + "' (known: " + known + ")";
  }
  if (std::find(bug->profiles.begin(), bug->profiles.end(), profile.name) == bug->profiles.end()) {
    std::string where;
    for (std::string_view n : bug->profiles) where += (where.empty() ? "" : ", ") + std::string(n);
    return "bug switch " + std::string(id) + " undoes " + std::string(bug->fix) + " and applies to " + where +
           ", not to " + profile.name;
  }
  bug->apply(profile);
  profile.bug = std::string(id);
  return behaviour_refusal(profile);
}

}  // namespace eevdf
