// The fair class functions of kernel/sched/fair.c, one model function per
// kernel function, with the kernel's names. Kernel names with a leading "__"
// lose it and get a suffix (C++ reserves "__"): see docs/model.md.
// All follow the the mainline profile (kMainlineLabel, model/profile.hpp) unless a comment says otherwise.
#pragma once

#include <array>

#include "model/rq.hpp"
#include "model/sched.hpp"

namespace eevdf {

inline bool entity_is_task(const SchedEntity& se) { return se.my_q == nullptr; }

// ---- the v7.3-rc single runqueue (fair_flat.cpp) ----
inline bool flat_runqueue(const CfsRq& cfs_rq) { return cfs_rq.rq->profile().behaviour.flat_runqueue; }
// The weight every EEVDF computation uses: se->h_load on the flat runqueue
// (a task), se->load otherwise.
inline LoadWeight& eevdf_load(const CfsRq& cfs_rq, SchedEntity& se) {
  return flat_runqueue(cfs_rq) && entity_is_task(se) ? se.h_load : se.load;
}
inline u64 eevdf_weight(const CfsRq& cfs_rq, const SchedEntity& se) {
  return flat_runqueue(cfs_rq) && entity_is_task(se) ? se.h_load.weight : se.load.weight;
}
// ... and reports a weight below MIN_SHARES on the flat runqueue (I-HLOAD).
LoadWeight& eevdf_load_checked(const CfsRq& cfs_rq, SchedEntity& se);
u64 eevdf_weight_checked(const CfsRq& cfs_rq, const SchedEntity& se, Observer& obs);
// The EEVDF queue-size tests: rq->cfs.h_nr_queued on the flat runqueue, nr_queued otherwise.
inline unsigned eevdf_nr_queued(const CfsRq& cfs_rq) {
  return flat_runqueue(cfs_rq) ? cfs_rq.h_nr_queued : cfs_rq.nr_queued;
}
u64 calc_prop_weight(CfsRq& cfs_rq, const SchedEntity& se, u64 w);  // __calc_prop_weight
u64 calc_group_shares_flat(const Rq& rq, const CfsRq& cfs_rq);      // calc_group_shares per cgroup_mode
void reweight_eevdf_flat(CfsRq& cfs_rq, SchedEntity& se, u64 weight, bool on_rq);  // reweight_eevdf
void reweight_entity_flat(CfsRq& cfs_rq, SchedEntity& se, u64 weight);  // reweight_entity: load only
void update_curr_flat(CfsRq& cfs_rq);   // update_curr() of v7.3: h_curr, vruntime only for a task
void update_curr_eevdf(CfsRq& cfs_rq);  // the running task's leaf
void update_curr_fair(Rq& rq);          // every level of the running task
void enqueue_task_fair_flat(Rq& rq, Task& p, int flags);
bool dequeue_task_flat(Rq& rq, Task& p, int flags);  // __dequeue_task
Task* pick_task_fair_flat(Rq& rq);
void put_prev_task_fair_flat(Rq& rq, Task& prev, const Task* next);
void set_next_task_fair_flat(Rq& rq, Task& p, bool first);
void task_tick_fair_flat(Rq& rq, Task& curr);
void reweight_task_fair_flat(Rq& rq, Task& p, const LoadWeight& lw);

// ---- weighted average V (fair_avg.cpp) ----
u64 avg_vruntime_weight(const CfsRq& cfs_rq, u64 w);
s64 entity_key(const CfsRq& cfs_rq, const SchedEntity& se);
void sum_w_vruntime_add(CfsRq& cfs_rq, SchedEntity& se);
void sum_w_vruntime_sub(CfsRq& cfs_rq, SchedEntity& se);
void update_zero_vruntime(CfsRq& cfs_rq, s64 delta);
u64 avg_vruntime(CfsRq& cfs_rq);
void update_min_vruntime(CfsRq& cfs_rq);            // v6.6-v6.18 key base; no-op after
void update_zero_vruntime_at_rb_op(CfsRq& cfs_rq);  // v6.19 key base; no-op otherwise
s64 avg_vruntime_offset(const CfsRq& cfs_rq, Observer& obs);  // what avg_vruntime() adds, reads only
bool vruntime_eligible(CfsRq& cfs_rq, u64 vruntime);
bool vruntime_eligible(const CfsRq& cfs_rq, u64 vruntime, Observer& obs);  // reads only
// vruntime_eligible() in two parts, for callers that test many entities at once.
struct EligibilityBase {
  s64 avg;   // Σ key·w with curr
  s64 load;  // Σ w with curr
};
EligibilityBase eligibility_base(const CfsRq& cfs_rq, Observer& obs);
bool vruntime_eligible(const CfsRq& cfs_rq, const EligibilityBase& b, u64 vruntime, Observer& obs);
bool entity_eligible(CfsRq& cfs_rq, const SchedEntity& se);
s64 entity_lag(CfsRq& cfs_rq, SchedEntity& se, u64 avruntime);
bool update_entity_lag(CfsRq& cfs_rq, SchedEntity& se);
u64 cfs_rq_min_slice(const CfsRq& cfs_rq);
u64 cfs_rq_max_slice(const CfsRq& cfs_rq);
bool min_vruntime_update(SchedEntity* se, bool with_max_slice = true);
void enqueue_entity_rb(CfsRq& cfs_rq, SchedEntity& se);  // __enqueue_entity
void dequeue_entity_rb(CfsRq& cfs_rq, SchedEntity& se);  // __dequeue_entity
u64 calc_delta_fair(u64 delta, SchedEntity& se, const CfsRq& cfs_rq);

// ---- the running entity (fair_curr.cpp) ----
void update_curr(CfsRq& cfs_rq);
s64 update_se(Rq& rq, SchedEntity& se);  // charge the time since exec_start (same in every version)
bool update_deadline(CfsRq& cfs_rq, SchedEntity& se);
void set_protect_slice(CfsRq& cfs_rq, SchedEntity& se);
void update_protect_slice(CfsRq& cfs_rq, SchedEntity& se);
bool protect_slice(const SchedEntity& se);
void cancel_protect_slice(SchedEntity& se);
// v6.6-v6.12 parity stash (fair_curr.cpp): se->vlag == se->deadline.
bool vlag_holds_parity(const SchedEntity& se);
// The curr test of pick_eevdf(protect): the parity stash (v6.6-v6.12) or protect_slice().
bool run_to_parity(const Profile& profile, const SchedEntity& curr);
bool did_preempt_short(CfsRq& cfs_rq, SchedEntity& curr);  // v6.12

// ---- placement, enqueue, dequeue (fair_enqueue.cpp) ----
// True when it placed se at its saved lag se.vlag against other queued
// entities (PLACE_LAG and a non-empty queue): Observer::on_placed() follows
// once se counts in V.
bool place_entity(CfsRq& cfs_rq, SchedEntity& se, int flags);
void enqueue_entity(CfsRq& cfs_rq, SchedEntity& se, int flags);
bool dequeue_entity(CfsRq& cfs_rq, SchedEntity& se, int flags);
void requeue_delayed_entity(SchedEntity& se);
void set_delayed(SchedEntity& se);
void clear_delayed(SchedEntity& se);

// ---- pick, buddies (fair_pick.cpp) ----
SchedEntity* pick_eevdf(CfsRq& cfs_rq, bool protect, PickCaller caller);
SchedEntity* pick_next_entity(Rq& rq, CfsRq& cfs_rq, bool protect, PickCaller caller);
void set_next_entity(CfsRq& cfs_rq, SchedEntity& se, bool first);
void put_prev_entity(CfsRq& cfs_rq, SchedEntity& prev);
void set_next_buddy(SchedEntity& se);
// The feature that lets pick_next_entity() take the buddy: PICK_BUDDY, NEXT_BUDDY before 2a77e4be12cb.
Feature buddy_feature(const Profile& profile);
void clear_buddies(CfsRq& cfs_rq, SchedEntity& se);

// ---- v6.6 tree: by vruntime, min_deadline augment (fair_pick_v6_6.cpp) ----
bool min_deadline_update(SchedEntity* se);
void enqueue_entity_rb_v6_6(CfsRq& cfs_rq, SchedEntity& se);  // __enqueue_entity of v6.6
void dequeue_entity_rb_v6_6(CfsRq& cfs_rq, SchedEntity& se);  // __dequeue_entity of v6.6
void min_deadline_cb_propagate(SchedEntity& se);
SchedEntity* pick_eevdf_v6_6(CfsRq& cfs_rq, PickCaller caller);  // with the "picking leftmost" fallback
bool tree_by_vruntime(const Profile& profile);

// ---- v6.6 fork placement (fair_fork_v6_6.cpp) ----
void task_fork_fair(Rq& rq, Task& p);

// ---- v6.6 / v6.12 wakeup preemption (fair_wakeup_v6_6.cpp) ----
void check_preempt_wakeup_v6_12(Rq& rq, Task& p, int wake_flags);
void check_preempt_wakeup_v6_6(Rq& rq, Task& p, int wake_flags);

// ---- reweight (fair_reweight.cpp; v6.6 and v6.12 forms in fair_reweight_v6.cpp) ----
void reweight_entity_eevdf(CfsRq& cfs_rq, SchedEntity& se, u64 weight);    // v6.9-v6.13 (and B08)
void reweight_entity_keep_vruntime(CfsRq& cfs_rq, SchedEntity& se, u64 weight);  // v6.6.0
Task* pick_next_task_fair_v6_6(Rq& rq, Task* prev);  // Behaviour::pick_next_v6_6
void reweight_entity_eevdf_v6_7(CfsRq& cfs_rq, SchedEntity& se, u64 weight);     // v6.7, 6.6.y (6.6.9)
void reweight_entity(CfsRq& cfs_rq, SchedEntity& se, u64 weight);
// rescale_entity(): vlag, a relative deadline and (if given) a relative vprot times old/new weight.
void rescale_entity(const Profile& profile, SchedEntity& se, u64 weight, u64* rel_vprot, Observer& obs);

// ---- the group hierarchy (fair_group.cpp) ----
// CPU bandwidth control (model/fair_bandwidth.cpp, 6.12.118; no-ops while no group has a quota)
// (Inline: the checker asks them for every queued entity after every operation.)
inline bool cfs_rq_throttled(const CfsRq& cfs_rq) { return cfs_rq.rq->cfs_bandwidth_used() && cfs_rq.throttled; }
inline bool throttled_hierarchy(const CfsRq& cfs_rq) {
  return cfs_rq.rq->cfs_bandwidth_used() && cfs_rq.throttle_count != 0;
}
CfsBandwidth& tg_cfs_bandwidth(CfsRq& cfs_rq);
u64 hrtimer_forward(HrTimer& t, u64 now, u64 interval);
void refill_cfs_bandwidth_runtime(CfsBandwidth& cfs_b);
void start_cfs_bandwidth(CfsBandwidth& cfs_b, int cpu, u64 now);
bool assign_cfs_rq_runtime(CfsBandwidth& cfs_b, CfsRq& cfs_rq, u64 target_runtime);
void account_cfs_rq_runtime(CfsRq& cfs_rq, u64 delta_exec);
bool throttle_cfs_rq(CfsRq& cfs_rq);
void unthrottle_cfs_rq(CfsRq& cfs_rq);
bool distribute_cfs_runtime(Rq& any, int group, int this_cpu);
void return_cfs_rq_runtime(CfsRq& cfs_rq);
void check_enqueue_throttle(CfsRq& cfs_rq);
void enqueue_entity_bandwidth(CfsRq& cfs_rq);
void sync_throttle(Rq& rq, int group);
bool check_cfs_rq_runtime(CfsRq& cfs_rq);
// The task-based throttle (v6.18, Behaviour::task_based_throttle; model/fair_bandwidth.cpp)
bool task_based_throttle(const CfsRq& cfs_rq);
// Not kernel code: the hierarchical throttle (before v6.18) stops a walk up at a throttled queue.
bool walk_stops_at_throttled(const CfsRq& cfs_rq);
bool task_is_throttled(const Rq& rq, const Task& p);
void task_throttle_setup_work(Task& p);
void throttle_cfs_rq_work(Rq& rq, Task& p);
void dequeue_throttled_task(Rq& rq, Task& p, int flags);
bool enqueue_throttled_task(Rq& rq, Task& p);
void record_throttle_clock(CfsRq& cfs_rq);
void dequeue_entity_bandwidth(CfsRq& cfs_rq);
// Not kernel code: whether p is on its queue's limbo list.
bool on_limbo_list(const Task& p);
// Not kernel code: a queue on se's path has a quota and no runtime left (model/rq.cpp).
bool out_of_runtime(const SchedEntity& se);

bool cfs_rq_is_idle(const CfsRq& cfs_rq);
bool se_is_idle(const Rq& rq, const SchedEntity& se);
CfsRq* is_same_group(const SchedEntity& se, const SchedEntity& pse);
void find_matching_se(SchedEntity*& se, SchedEntity*& pse);
// The running task's and the wakee's entities on their common level (find_matching_se()).
struct MatchedEntities {
  SchedEntity& se;
  SchedEntity& pse;
};
MatchedEntities matching_entities(Task& donor, Task& p);
u64 calc_group_shares(const Rq& rq, const CfsRq& cfs_rq);
// PELT stand-ins summed over the group's queues on every CPU (docs/model.md):
// atomic_long_read(&tg->load_avg) as Σ scale_load_down(cfs_rq->load.weight),
// and (v7.3-rc) tg->runnable_avg as Σ h_nr_runnable · 1024.
void update_cfs_group(SchedEntity& se);
void put_prev_set_next_fair(Rq& rq, Task& prev, Task& next);
// min_vruntime_cb_propagate(&se->run_node, NULL): refresh the augments above se.
void min_vruntime_cb_propagate(CfsRq& cfs_rq, SchedEntity& se);

// ---- PELT in the fair class (fair_pelt.cpp; the arithmetic in pelt.*) ----
namespace pelt_flags {
inline constexpr int UPDATE_TG = 0x1;
inline constexpr int SKIP_AGE_LOAD = 0x2;
inline constexpr int DO_ATTACH = 0x4;
inline constexpr int DO_DETACH = 0x8;
}  // namespace pelt_flags
u64 cfs_rq_clock_pelt(const CfsRq& cfs_rq);
void update_load_avg(CfsRq& cfs_rq, SchedEntity& se, int flags);
inline constexpr u64 kNsecPerMsec = 1'000'000;
u64 sched_clock_cpu(const Rq& rq);
void update_tg_load_avg(CfsRq& cfs_rq);
void add_tg_cfs_propagate(CfsRq& cfs_rq, s64 runnable_sum);
// se_update_runnable(): a group entity's runnable_weight from its queue
void se_update_runnable(SchedEntity& se);
void propagate_entity_cfs_rq(SchedEntity& se);
// A group entity's attach at the group's creation (online_fair_sched_group()),
// a task's detach and attach at a move between groups (task_change_group_fair())
void detach_entity_cfs_rq(SchedEntity& se);
void attach_entity_cfs_rq(SchedEntity& se);
bool update_cfs_rq_load_avg(u64 now, CfsRq& cfs_rq);
void enqueue_load_avg(CfsRq& cfs_rq, const SchedEntity& se);
void dequeue_load_avg(CfsRq& cfs_rq, const SchedEntity& se);
void attach_entity_load_avg(CfsRq& cfs_rq, SchedEntity& se);
void detach_entity_load_avg(CfsRq& cfs_rq, SchedEntity& se);
void remove_entity_load_avg(SchedEntity& se);
// migrate_task_rq_fair(): a task changing CPU (MIGRATING: moved while queued,
// already detached by its dequeue) is attached afresh where it is enqueued next
void migrate_task_rq_fair(Task& p, bool migrating);
// reweight_entity()'s own PELT step, after update_load_set(): the load
// average again from the sum, with the new weight and the entity's divider
void reweight_load_avg(SchedEntity& se);
void init_entity_runnable_average(SchedEntity& se);
// post_init_entity_util_avg(): FAIR false for a task of another class
void post_init_entity_util_avg(SchedEntity& se, bool fair);
// cpu_load(): the root queue's load average
u64 cpu_load(const Rq& rq);
// task_h_load(): the load a task with load average LOAD_AVG on queue CFS_RQ
// puts on its CPU's root queue, through
// update_cfs_rq_h_load()'s once-a-jiffy h_load caches of its queue and those
// above. The caches are written to W (read back by later walks), for the
// caller to apply once the wake-up choice is made.
struct HLoadWrites {
  struct Cache {  // cfs_rq->h_load, cfs_rq->last_h_load_update
    u64 h_load = 0;
    u64 last_update = 0;
  };
  // a queue's cache as the walks so far left it
  Cache read(const CfsRq& cfs_rq) const;
  void write(const CfsRq& cfs_rq, Cache cache);
  // stores every cache written into its queue (of the system the choice was made on)
  void apply() const;

 private:
  struct Write {
    const CfsRq* cfs_rq = nullptr;
    Cache cache;
  };
  std::array<Write, 2 * (kMaxGroups + 1)> writes_{};  // two walks (the waker's, the wakee's), one a queue
  unsigned n_ = 0;
  unsigned index_of(const CfsRq& cfs_rq) const;  // n_ when it has none
};
u64 task_h_load(u64 load_avg, const CfsRq& cfs_rq, u64 jiffies, HLoadWrites& w);

// ---- class callbacks (fair_class.cpp) ----
void enqueue_task_fair(Rq& rq, Task& p, int flags);
bool dequeue_task_fair(Rq& rq, Task& p, int flags);
int dequeue_entities(Rq& rq, SchedEntity& se, int flags);
Task* pick_task_fair(Rq& rq);
void put_prev_task_fair(Rq& rq, Task& prev);
void set_next_task_fair(Rq& rq, Task& p, bool first);
void wakeup_preempt_fair(Rq& rq, Task& p, int wake_flags);
void check_preempt_wakeup_fair(Rq& rq, Task& p, int wake_flags);  // v6.18 (fair_wakeup_v6.cpp)
void wakeup_preempt_fair_v7_3(Rq& rq, Task& p, int wake_flags);  // v7.3-rc (fair_v7_3.cpp)

// ---- wakeup preemption helpers shared by the v7.1 and v7.3 versions (fair_class.cpp) ----
enum class PreemptAction { none, short_, pick, resched };
// set_preempt_buddy(): keep an earlier-deadline buddy, else make pse the buddy (3cd1f657fae5).
bool set_preempt_buddy(CfsRq& cfs_rq, SchedEntity& pse);
// preempt_sync(): the NEXT_BUDDY WF_SYNC shortcut (v7.1, unchanged in v7.3-rc).
PreemptAction preempt_sync(Rq& rq, int wake_flags, SchedEntity& pse, SchedEntity& se);

// ---- v7.3-rc only (fair_v7_3.cpp) ----
// ineligible_vruntime(): the first integer vruntime at which curr is no longer
// eligible against the tree alone: zero_vruntime + floor(S/W) + 1 (0d1e7a2bab35).
u64 ineligible_vruntime(CfsRq& cfs_rq);
// set_short_buddy(): keep a buddy with a strictly shorter slice, else make pse the buddy (8f97b627ff1c).
bool set_short_buddy(CfsRq& cfs_rq, SchedEntity& pse);
void yield_task_fair(Rq& rq);
void task_tick_fair(Rq& rq, Task& curr);
void reweight_task_fair(Rq& rq, Task& p, const LoadWeight& lw);
void prio_changed_fair(Rq& rq, Task& p, int old_prio);
void setparam_fair(Task& p, u64 sched_runtime, u64 sysctl_base_slice);  // __setparam_fair

}  // namespace eevdf
