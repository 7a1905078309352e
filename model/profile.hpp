// A profile: which kernel the model behaves as. The kernel version label, the
// SCHED_FEAT set (features.h names), the tunables, and the handful of
// version-dependent behaviours, all as data.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

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
  // The wake-up CPU choice (select_task_rq_fair(), model/wake_cpu.hpp): on in
  // every profile, as features.h has them (SIS_UTIL since v5.19).
  WA_IDLE,
  WA_WEIGHT,
  WA_BIAS,
  SIS_UTIL,
  // Not in any released kernel: the RFC "no wakeup preemption between
  // same-priority SCHED_NORMAL tasks" as a what-if switch (docs/bridges.md).
  // Off in every profile.
  RFC_SAME_PRIO_NO_WAKEUP_PREEMPT,
  // Not in any released kernel either: the SMT_BUDDY_ASSIST RFC (October 2026)
  // as read from its description, in its corrected form (a target counts as
  // having work pending by rq->cfs.h_nr_runnable) and in its rejected first
  // form (by rq->nr_running, delayed tasks included). model/wake_cpu.hpp,
  // docs/profiles.md "What-if variants". Off in every profile.
  RFC_SMT_BUDDY_ASSIST,
  RFC_SMT_BUDDY_ASSIST_NR_RUNNING,
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

// The v7.3 flat runqueue's debugfs knob sched/cgroup_mode (4161cb2d867b..fb1050ac8e40):
// how update_cfs_group() computes a group entity's weight. Default concur.
enum class CgroupMode : std::uint8_t { up, smp, concur, max, tasks };
const char* cgroup_mode_name(CgroupMode m);
std::optional<CgroupMode> cgroup_mode_from_name(std::string_view name);

struct Tunables {
  unsigned ncpus = 8;                              // online CPUs, for the base-slice factor
  unsigned hz = 1000;                              // CONFIG_HZ
  u64 normalized_base_slice = 700000;              // normalized_sysctl_sched_base_slice, ns
  // sysctl_sched_base_slice as a debugfs write of sched/base_slice_ns left it (the
  // base_slice_ns operation), ns; 0: never written, factor × normalized_base_slice.
  // The write does not touch normalized_base_slice (v6.6 .. v7.2: a plain u32 file).
  u64 base_slice_written = 0;
  u64 migration_cost = 500000;                     // sysctl_sched_migration_cost, ns
  CgroupMode cgroup_mode = CgroupMode::concur;     // sched/cgroup_mode; read only with Behaviour::flat_runqueue
  bool operator==(const Tunables&) const = default;
};

// Behaviours that differ between kernels and are not SCHED_FEATs. Each field
// names the commit that changed it; the default is the newest mainline.

// Where the reference point of the keys (zero_vruntime, or min_vruntime in
// older kernels) moves.
enum class KeyBase : std::uint8_t {
  min_vruntime,            // v6.6-v6.18: monotonic min_vruntime from update_min_vruntime()
  zero_at_rb_ops,          // v6.19 (79f3f9bedd14): zero_vruntime := V in __enqueue/__dequeue_entity
  zero_at_avg_tick,        // b3d99f43c72b: avg_vruntime() re-bases; entity_tick() calls it
  zero_at_avg_deadline,    // 1319ea57529e: ... and update_deadline() calls it, not the tick
};

// What yield_task_fair() does to the yielding entity.
enum class YieldRule : std::uint8_t {
  deadline_only,           // v6.6-v6.18: deadline += calc_delta_fair(slice)
  forfeit_unguarded,       // 78f8764d34c0 (v1, replaced before release): vruntime = deadline always
  forfeit_add_slice,       // 79104becf42b (v6.19-v7.0): if eligible, vruntime = deadline, deadline += vslice
  forfeit_update_deadline, // 1319ea57529e: if eligible, vruntime = deadline; update_deadline()
};

// How wakeup_preempt_fair() asks EEVDF whether the wakee would run.
enum class WakeupPick : std::uint8_t {
  pick_eevdf,              // v6.12-v7.0: __pick_eevdf() directly; may answer a delayed entity
  pick_next_unguarded,     // ac8e69e69363: pick_next_entity(), retry on NULL even on an empty queue
  pick_next_guarded,       // 9f6d929ee2c6: retry only while entities are queued
};

// How reweight_entity() moves a queued entity.
enum class ReweightRule : std::uint8_t {
  replace_after_rescale,   // v6.14-v7.0 (6d71a9c61604, ff38424030f9): v-relative, then place_entity()
  rescale_around_v,        // v7.1 (101f3498b4bd): V-relative rescale, no re-placement
  eevdf_clamped_lag,       // v6.9-v6.13 (1560d1f6eb6b, 11b1b8bc2b98, afae8002b4fd): reweight_eevdf(), lag from entity_lag()
  eevdf_raw_lag,           // the same before 1560d1f6eb6b (B08): reweight_eevdf() with the unclamped V - v
  keep_vruntime,           // v6.6.0, before eab03c23c2a1: v kept, only d - v rescaled, V jumps
  eevdf_v6_7,              // eab03c23c2a1 as merged (v6.7; 6.6.y, read in 6.6.9): reweight_eevdf() with V taken
                           // after the entity left the sums, the raw V - v, update_curr() for curr only
};

// Which pick_eevdf() / pick_next_entity() the kernel has: how the tree is
// ordered and searched, and where and when the next buddy is taken. One
// version each; Behaviour's accessors below read the single properties.
enum class PickRule : std::uint8_t {
  v7_1,      // 78cde54ea5f0 (v7.1-rc1): PICK_BUDDY inside __pick_eevdf() only when protecting; a SHORT preemption clears the buddies
  v6_19,     // e837456fdca8 (v6.19): PICK_BUDDY inside __pick_eevdf(), protected or not (the wakeup probe sees it)
  v6_14,     // 2a77e4be12cb (v6.14): PICK_BUDDY, tested in pick_next_entity() before pick_eevdf()
  v6_8,      // 2227a957e1d5 (v6.8): tree by deadline, min_vruntime augment, heap search; NEXT_BUDDY in pick_next_entity()
  v6_6,      // b01db23d5923 (v6.6): tree by vruntime, min_deadline augment, two passes with best_left; NEXT_BUDDY as v6_8
  v6_6_rc1,  // v6.6-rc1..rc4 (147f3efaa241, B10): the v6_6 tree searched in one descent
};

// Which wakeup-preemption function the kernel has.
// What a delayed entity takes off its ancestors' runnable count, which PELT's
// runnable average and a group entity's runnable_weight read.
enum class DelayedCount : std::uint8_t {
  // v6.12.0: no such count; PELT reads h_nr_running, delayed tasks included
  none,
  // 76f2f783294d (6.12.8 - 6.12.14): set_delayed()/clear_delayed() count
  // every delayed entity in h_nr_delayed, a group entity too (the bug
  // 3429dd57f0de fixed)
  every_entity,
  // 3429dd57f0de (v6.14-rc2, 6.12.15) and c2a295bffeaf's h_nr_runnable:
  // delayed tasks only
  tasks,
};

enum class WakeupPreempt : std::uint8_t {
  v7_3,      // v7.3-rc wakeup_preempt_fair() (fair_v7_3.cpp): 7ad0ec7890b3, 04998aa54848, 8f97b627ff1c, ba0d3bf5f97b, 7cd2ef17de5e
  v6_19,     // the action-based wakeup_preempt_fair() (e837456fdca8, 15257cc2f905; v6.19 - v7.2)
  v6_18,     // check_preempt_wakeup_fair(): set_next_buddy first, PREEMPT_SHORT probe with __pick_eevdf(!short)
  v6_12,     // ... of v6.12: do_preempt_short() cancels the vlag == deadline parity, then pick_eevdf()
  v6_6,      // check_preempt_wakeup(): idle-policy shortcut, SCHED_NORMAL wakees only, pick_eevdf()
};

struct Behaviour {
  // CPU bandwidth control (cgroup cpu.max), the hierarchical throttle of
  // v6.6 to 6.12.y (model/fair_bandwidth.cpp); false: not modelled, a quota
  // is refused (Refusal::no_bandwidth_model).
  bool cfs_bandwidth = false;
  // dequeue_entities() that stops at a throttled queue still blocks a delayed
  // task it dequeues (__block_task(): p->on_rq = 0): "sched/fair: Block
  // delayed tasks on throttled hierarchy during dequeue" (6.12.54). Before
  // it the task stays TASK_ON_RQ_QUEUED off every queue until a caller that
  // saw it queued enqueues it again (a class change); no path of the model
  // leaves it so (the wait_task_inactive() that spins on it came with
  // b7ca5743a260 into 6.12.y, after 6.12.10).
  bool throttled_dequeue_blocks_delayed = true;
  // cpu_max_write() (core.c, cgroup v2) passes a cpu.max write without a
  // burst the group's burst as tg_get_cfs_burst() reads it, in microseconds,
  // to tg_set_cfs_bandwidth(), which takes nanoseconds: each such write
  // divides the burst by 1000. 49217ea147df (v6.10; 6.6.y, 6.1.93) passes
  // cfs_b->burst. True on v6.6 (6.6.0 and 6.6.9; found in lockstep with
  // 6.6.0's own code).
  bool cpu_max_burst_in_us = false;
  // unthrottle_cfs_rq() dequeues a delayed entity on its way up and enqueues it
  // again (9b5ce1a37e90, v6.12-rc2); false: it stops at any queued entity and
  // only warns when that one is delayed, which stays delayed (bug switch B26).
  bool unthrottle_dequeues_delayed = true;
  // The task-based throttle of v6.18 (e1fad12dcb66 and its series; 7.0.0 has
  // the same code): throttle_cfs_rq() dequeues nothing, the tasks of a
  // throttled hierarchy stay queued and run until they return to user space,
  // where the throttle work a pick gave them moves them off their queue onto
  // its limbo list (throttle_cfs_rq_work()); unthrottle_cfs_rq() enqueues them
  // again from tg_unthrottle_up(). The h_nr_* counts and the PELT sums never
  // stop at a throttled queue; a queue's PELT clock stops when it empties in
  // a throttled hierarchy (pelt_clock_throttled). Only with cfs_bandwidth.
  bool task_based_throttle = false;
  CalcDeltaPath calc_delta = CalcDeltaPath::full_weight;
  // RB_DECLARE_CALLBACKS_MULTI (51b0e68cfa0a, Sept 2026): rotations and copies
  // carry min_slice and max_slice too, not only min_vruntime.
  bool augment_copies_all_fields = true;
  // __enqueue_entity() sets se->max_slice = se->slice (9a8bc9bb4c3f, Sept 2026).
  bool enqueue_inits_max_slice = true;
  // The max_slice augment exists (6e3c0a4e1ad1, v7.0): min_vruntime_update()
  // computes it and stops its walk up only when it too is unchanged. Before,
  // the walk stops when min_vruntime and min_slice are unchanged.
  bool augment_has_max_slice = true;
  // vruntime_eligible() multiplies key * load in 128 bits (b6eee96843e8).
  bool eligible_int128 = true;
  // avg_vruntime() floors a negative average (650cad561cce); without, it truncates.
  bool avg_floor = true;
  // __sched_fork() clears rel_deadline (3da56dc063cd).
  bool fork_clears_rel_deadline = true;
  // e837456fdca8 (v6.19-rc, reverted by 15257cc2f905): a NEXT_BUDDY wakee with an
  // earlier deadline preempts at once, ignoring slice protection.
  bool forced_wakeup_preempt = false;
  // 85e511df3cec (v6.12-rc1) until d4ac164bde7a (v6.12-rc2): update_curr() returns
  // early when rq->nr_running == 1 instead of when cfs_rq->nr_queued == 1, so a lone
  // fair entity beside a queued RT task is rescheduled at slice expiry (B25).
  bool lone_test_rq_nr_running = false;
  // v7.3-rc flat runqueue: pick_task_fair() and yield_task_fair() charge the
  // running task through update_curr_eevdf() (1719d035a6fa, sched/urgent
  // 2026-09); before it they called update_curr(&rq->cfs), which charges only
  // the root level's h_curr and leaves a grouped running task's vruntime stale.
  bool flat_pick_yield_update_curr_eevdf = true;
  // Lag limit: calc_delta_fair(max_slice + TICK_NSEC) (6e3c0a4e1ad1), or the
  // entity's own calc_delta_fair(max(2 * slice, TICK_NSEC)) before it.
  bool lag_limit_max_slice = true;
  // avg_vruntime_weight(): the full weight, halved by sum_shift (4823725d9d1d),
  // or scale_load_down(w) before.
  bool avg_full_weight = true;
  // update_entity_lag() keeps a delayed entity's debt, clips it with
  // DELAY_ZERO and reports a clamp (v7.1); before, it only stores the lag.
  bool lag_delayed_clamps = true;
  // place_entity() moves zero_vruntime when the placed entity outweighs the queue (v7.1).
  bool place_shifts_zero = true;
  // place_entity() honours rel_deadline only with PLACE_REL_DEADLINE (101f3498b4bd).
  bool place_rel_deadline_gated = true;
  // v6.18 and before: vlag and vprot share storage (80390ead2080 split them).
  bool vprot_aliases_vlag = false;
  // set_next_entity() arms the protection only at a real pick (bcd74b2ffdd0);
  // before, at every set_next_entity() of a queued entity.
  bool protect_only_first = true;
  // reweight_entity() keeps curr's protection relative to v (ff38424030f9).
  bool reweight_keeps_vprot = true;
  // sched_move_task() ends with wakeup_preempt(rq, p, 0) for a task that is
  // queued but not running: e34881c84c25 "sched: Re-evaluate scheduling when
  // migrating queued tasks out of throttled cgroups" (tip 2026-02-03, v7.0-rc1),
  // read in 7.0.0's core.c (6.18.0's has no such call). v7.1 .. v7.3 are taken
  // to keep it: no tree of them was at hand, no revert is in the tip archive.
  bool move_wakeup_preempts = true;
  // select_idle_sibling() and its scans pass over a CPU that runs only
  // SCHED_IDLE tasks when the wakee is SCHED_IDLE itself: fd54d81c2c0e
  // "sched/fair: Skip SCHED_IDLE rq for SCHED_IDLE task" (tip 2026-02-23,
  // v7.1; read in 7.1.3's and 7.1.5's fair.c, found by lockstep against them).
  bool wake_idle_wakee_skips_sched_idle = true;
  // check_preempt_wakeup_fair() of v6.12: NEXT_BUDDY passes over a
  // sched_delayed wakee (493afbd187c4, 6.12.y); v6.12.0 and v6.6 make any
  // wakee the buddy. (The v6.18 and later functions always test it.)
  bool wakeup_buddy_skips_delayed = true;
  // dequeue_entity() clears the buddies before the delay decision, on every
  // level (493afbd187c4, 6.12.y); v6.12.0 clears only this queue's next in the
  // delay branch and calls clear_buddies() on the path that dequeues.
  bool dequeue_clears_buddies_first = true;
  DelayedCount delayed_count = DelayedCount::tasks;
  // check_preempt_wakeup_fair() of v6.12: a SCHED_IDLE curr preempted by a
  // non-idle wakee loses its RUN_TO_PARITY stash (cancel_protect_slice(),
  // f553741ac8c0, v6.15, 6.12.y); v6.12.0 and v6.6 leave it, so the pick after
  // the reschedule can return the idle curr again. (v6.18 and later cancel it.)
  bool idle_preempt_cancels_protection = true;
  // v6.6-v6.12: RUN_TO_PARITY keeps curr while se->vlag == se->deadline, a
  // stash set_next_entity() leaves in vlag (63304558ba5d); later kernels
  // protect with vprot (set_protect_slice()). With PREEMPT_SHORT (v6.12,
  // 85e511df3cec) update_curr() asks did_preempt_short().
  bool parity_in_vlag = false;
  // Before c40dd90ac045 (v6.12): task_fork_fair() places the child with
  // ENQUEUE_INITIAL and wake_up_new_task() enqueues without it (re-placing it).
  bool place_at_fork = false;
  // set_load_weight() of a SCHED_IDLE task goes through reweight_task() too
  // (d32960528702, v6.11); before, it wrote the idle weight straight into
  // se->load and returned, so the saved lag was not rescaled.
  bool idle_weight_reweights = true;
  // sched_attr::sched_runtime sets a custom slice (857b158dc5e8, v6.12).
  bool custom_slices = true;
  PickRule pick = PickRule::v7_1;
  WakeupPreempt wakeup_preempt = WakeupPreempt::v6_19;
  KeyBase key_base = KeyBase::zero_at_avg_deadline;
  ReweightRule reweight = ReweightRule::rescale_around_v;
  YieldRule yield = YieldRule::forfeit_update_deadline;
  WakeupPick wakeup_pick = WakeupPick::pick_next_guarded;
  // enqueue_task_fair() runs update_curr() before requeue_delayed_entity()
  // (333238da9a19, v7.2; in v7.3 update_curr_eevdf() of 68e37487810a).
  bool requeue_updates_curr = true;
  // update_cfs_group() leaves the weight of a group whose queue is empty alone
  // (66951e4860d3, v6.13-rc7, 6.12.11): before it, an empty group's share is
  // tg_shares * 0 = 0, clamped to MIN_SHARES (2, unscaled), even while its
  // entity stays queued as sched_delayed.
  bool empty_group_keeps_weight = true;
  // set_protect_slice() caps a shortened protection at ineligible_vruntime()
  // under PREEMPT_SHORT (0d1e7a2bab35, v7.3-rc1). Off in mainline.
  bool protect_ineligible_cap = false;
  // update_protect_slice() starts from min(v, avg_vruntime()), the re-basing
  // avg_vruntime() (49f87b4d0be8, v7.3-rc1). Off in mainline.
  bool update_protect_from_avg = false;
  // enqueue_task_fair() and dequeue_entities() give a group entity the
  // shortest slice queued below it (aef6987d8954, v6.12); before, a group
  // entity has the base slice place_entity() gives every entity.
  bool group_slice_from_queue = true;
  // ... and a queued ancestor's new slice reaches the min_slice augment of its
  // tree (min_vruntime_cb_propagate, 563bc2161b94, v6.15).
  bool group_slice_updates_augment = true;
  // dequeue_entities() takes the slice for the levels above from the first
  // queue that stays non-empty, also when a parent's dequeue is delayed
  // (bbce3de72be5, v6.15). Before, a group entity being dequeued started from
  // its own (empty: U64_MAX) queue's cfs_rq_min_slice() and the delayed-parent
  // break kept that, so the delayed parent got slice U64_MAX.
  bool dequeue_slice_from_nonempty_queue = true;
  // The single runqueue (85570f10a4c6 "sched/eevdf: Move to a single runqueue",
  // 68e37487810a "Fix flat hierarchy", 1719d035a6fa update_curr_eevdf(), v7.3-rc):
  // every task on rq->cfs at its hierarchical weight se->h_load; group queues keep
  // load and counters only (model/fair_flat.cpp). Off in mainline.
  bool flat_runqueue = false;
  // print_cfs_rq() (kernel/sched/debug.c), which every read of
  // /sys/kernel/debug/sched/debug runs for each cfs_rq of each CPU, drops the
  // rq lock before it calls avg_vruntime(), and that avg_vruntime() re-bases
  // (writes cfs_rq->avg_vruntime and ->zero_vruntime through
  // update_zero_vruntime()): an unlocked read-modify-write racing the
  // scheduler (the `debug_read racing` operation, model/debug_read.cpp). True
  // on 6.12.118 only: the stable backport of b3d99f43c72b made its
  // avg_vruntime() write, and e08d007f9d81 ("sched/debug: Fix avg_vruntime()
  // usage", which moved the call under the lock) is not in 6.12.y. Mainline
  // has the fix; min_vruntime kernels (v6.18 and before) only read.
  bool debug_reader_unlocked_rmw = false;
  // wake_affine_idle()'s WF_SYNC clause counts every task rq->nr_running counts,
  // delayed (sleeping) ones too, so a waker beside a delayed task never gets its
  // wakee: "sched/fair: Fixup wake_up_sync() vs DELAYED_DEQUEUE" (aa3ee4f0b754,
  // v6.16; in 6.12.y by 6.12.118) subtracts cfs_h_nr_delayed(). True on v6.12
  // (v6.6 has no delayed tasks, the same test).
  bool sync_affine_counts_delayed = false;
  // PELT (model/fair_pelt.cpp): the removal from a queue's sums clamps each
  // sum to at least its average times PELT_MIN_DIVIDER through max_t(u32, ...),
  // which also truncates the u64 load_sum and runnable_sum to 32 bits, and the
  // enqueue adds without clamping (6.12.118, 6.18.0). 7.0.0 does both through
  // __update_sa() in the sum's own width, with the delta signed. True up to v6.18.
  bool pelt_clamp_u32 = false;
  // update_tg_load_avg() passes a queue's change on to tg->load_avg at most once
  // a millisecond of sched_clock_cpu() (1528c661c24b, v6.7); v6.6 does at every
  // call that passes the 1/64 dead band.
  bool tg_load_avg_ratelimit = true;
  // post_init_entity_util_avg() scales the queue's util_avg by the new task's
  // weight over the queue's load_avg: se_weight() (scale_load_down()) in
  // 6.12.0 and later trees; v6.6 multiplies by se->load.weight itself, 1024
  // times larger on 64 bits, so the share is capped at half the spare
  // capacity almost always (read in the 6.6.9 and 6.6.0 trees, found in
  // lockstep with 6.6.9). True on v6.6.
  bool post_init_util_unscaled_weight = false;
  // v6.6's pick_next_task_fair() (6.6.0 and 6.6.9 fair.c), where v6.12 has
  // pick_task_fair() and then put_prev/set_next:
  // - from a task of another class (the idle task, an RT task that blocked)
  //   its `simple` path sets each level's entity as it picks it, from the root
  //   down, so a group queue's PELT is updated after its group entity's (a
  //   propagation it starts waits for the next update); v6.12 picks every
  //   level first and sets them from the task up (found in lockstep with
  //   6.6.9: a group queue's `propagate`);
  // - from a fair prev it checks a level's runtime (check_cfs_rq_runtime())
  //   only where the level has a current entity, and a level it throttles
  //   sends it to the simple path: prev put back on every level, then the
  //   pick from the root without a check; v6.12 checks every level and picks
  //   again from the root with the checks.
  // True on v6.6.
  bool pick_next_v6_6 = false;
  // update_cfs_group() with CONFIG_SMP calls reweight_entity() for a group
  // entity even when calc_group_shares() gives the weight it has, which
  // recomputes its load_avg from load_sum (and runs update_curr() for a
  // running one). 6.6.0 does; 6.6.9 and every later tree read here skip an
  // unchanged weight (6.6.y took the test beside the reweight_eevdf()
  // backport). True on v6.6 (6.6.0), found in lockstep with 6.6.0's own
  // fair.c: a group entity's avg.load_avg one above.
  bool group_reweight_unchanged = false;
  // The cgroup_mode series (v3 1/7..6/7 with 85570f10a4c6, v7.3-rc1): each
  // group queue also passes its runnable average on to tg->runnable_avg, which
  // tg_tasks() reads; update_tg_load_avg() moves both sums when either changed
  // by more than 1/64 of what it last passed on, at most once a millisecond of
  // rq_clock() (the model's clock_task). True on v7.3.
  bool tg_runnable_avg = false;
  // update_tg_cfs_runnable() computes the group entity's new runnable sum in
  // u64 (4f166adb5cb0 "Fix overflow in update_tg_cfs_runnable", v7.3-rc1);
  // before, in u32, which wraps once runnable_avg · divider reaches 2^32
  // (runnable_avg above about 90 000: tens of runnable tasks in one group queue).
  bool tg_cfs_runnable_sum_u64 = false;
  bool operator==(const Behaviour&) const = default;

  // What `pick` says:
  // PICK_BUDDY only when protecting (78cde54ea5f0); a SHORT preemption clears buddies.
  bool pick_buddy_needs_protect() const { return pick == PickRule::v7_1; }
  // v6.8-v6.18: the buddy is tested in pick_next_entity(), so the wakeup probe
  // never sees it; later inside __pick_eevdf() (e837456fdca8).
  bool pick_buddy_in_pick_next() const { return pick != PickRule::v7_1 && pick != PickRule::v6_19; }
  // Before 2a77e4be12cb (v6.14): pick_next_entity() takes the buddy under
  // NEXT_BUDDY; PICK_BUDDY does not exist.
  bool buddy_gated_by_next_buddy() const {
    return pick == PickRule::v6_8 || pick == PickRule::v6_6 || pick == PickRule::v6_6_rc1;
  }
  // What `wakeup_preempt` says: the check_preempt_wakeup_fair() family (v6.6 - v6.18).
  bool wakeup_check_preempt() const {
    return wakeup_preempt == WakeupPreempt::v6_18 || wakeup_preempt == WakeupPreempt::v6_12 ||
           wakeup_preempt == WakeupPreempt::v6_6;
  }
};

// The one statement of what the mainline profile is; --version, the kSTEP version
// guard (bridge/kernel_version.cpp) and the model's file headers refer to it.
inline constexpr std::string_view kMainlineRelease = "v7.2";  // the release it is at least
inline constexpr std::string_view kMainlineLabel = "v7.2 with the September 2026 augmented-tree fixes";

struct Profile {
  std::string name;         // "mainline", "v7.1", ...
  std::string description;  // one line: what kernel this is
  FeatureSet features;
  Tunables tunables;
  Behaviour behaviour;
  std::string bug;          // the historical bug switched on ("B01"), or empty
  FeatureSet known;         // the SCHED_FEATs this kernel has

  bool feat(Feature f) const { return features[f]; }

  // TICK_NSEC = (NSEC_PER_SEC + HZ/2) / HZ
  u64 tick_nsec() const { return (u64{1000000000} + tunables.hz / 2) / tunables.hz; }
  // 1 + ilog2(min(ncpus, 8)) (SCHED_TUNABLESCALING_LOG, the default)
  u64 base_slice_factor() const {
    const unsigned n = tunables.ncpus < 8 ? tunables.ncpus : 8;
    return 1 + static_cast<u64>(ilog2(n == 0 ? 1 : n));
  }
  u64 sysctl_sched_base_slice() const {
    return tunables.base_slice_written ? tunables.base_slice_written
                                       : tunables.normalized_base_slice * base_slice_factor();
  }
};

// A kernel release: VERSION.PATCHLEVEL.SUBLEVEL of a tree's top Makefile.
struct KernelRelease {
  unsigned major = 0, minor = 0, sublevel = 0;  // 0.0.0: none
  bool operator==(const KernelRelease&) const = default;
};
// The release a profile stands for ({} for mainline, which is no one release, and for an unknown name).
KernelRelease profile_release(std::string_view name);
// The profile that judges a kernel tree of release `tree` (the kernel backend,
// docs/kernel-backend.md, "The judge"): of the profiles with the tree's
// major.minor, the one with the nearest sublevel (a tie: the older). "" when
// no profile has that major.minor.
std::string judge_for_kernel(const KernelRelease& tree);

// The profiles the model knows. Returns nullopt for an unknown name.
std::optional<Profile> profile_by_name(std::string_view name);
// Names of all profiles, for help texts and `eevdf-check profiles`.
const std::vector<std::string_view>& profile_names();

// Why the profile's behaviours cannot be one kernel ("" if they can): a pick
// and a wakeup function of different versions (e837456fdca8 changed both), a
// buddy feature the pick does not test (2a77e4be12cb), a parity-stash wakeup
// without the stash. profile_by_name() and apply_bug() refuse such a profile.
std::string behaviour_refusal(const Profile& profile);

// Applies a debugfs-style feature list ("NO_NEXT_BUDDY,PARANOID_AVG").
// Returns an error message, or an empty string on success.
// The comma-separated items of a debugfs-style list, blanks trimmed; an empty
// item (",," or an empty list) stays, for the caller to refuse.
std::vector<std::string_view> list_items(std::string_view list);
std::string apply_features(FeatureSet& set, std::string_view list);
// The same, refusing features that the profile's kernel does not have.
std::string apply_features(Profile& profile, std::string_view list);

}  // namespace eevdf
