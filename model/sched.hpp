// The model's runqueue state: struct sched_entity, struct cfs_rq, the task and
// the CPU runqueue, with the kernel's field names (include/linux/sched.h,
// kernel/sched/sched.h, the mainline profile).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "model/kernel_types.hpp"
#include "model/pelt.hpp"
#include "model/profile.hpp"
#include "model/rbtree.hpp"
#include "model/weights.hpp"

namespace eevdf {

struct CfsRq;

struct SchedEntity {
  LoadWeight load;
  // v7.3-rc flat runqueue (85570f10a4c6): a task's EEVDF weight on rq->cfs,
  // the product of its group fractions (__calc_prop_weight); written only by
  // reweight_eevdf(). Unused on other profiles.
  LoadWeight h_load;
  // run_node
  SchedEntity* rb_parent = nullptr;
  SchedEntity* rb_left = nullptr;
  SchedEntity* rb_right = nullptr;
  bool rb_red = false;

  u64 deadline = 0;      // absolute, or relative (d - v, d - V in reweight) iff rel_deadline
  u64 min_vruntime = 0;  // augment: subtree min vruntime
  u64 min_slice = 0;     // augment: subtree min slice
  u64 max_slice = 0;     // augment: subtree max slice
  u64 min_deadline = 0;  // augment of the v6.6 tree (by vruntime): subtree min deadline

  bool on_rq = false;
  bool sched_delayed = false;
  bool rel_deadline = false;
  bool custom_slice = false;

  u64 exec_start = 0;
  u64 sum_exec_runtime = 0;
  u64 prev_sum_exec_runtime = 0;
  u64 vruntime = 0;
  s64 vlag = 0;
  u64 vprot = 0;
  u64 slice = 0;

  // v6.18 and before: union { s64 vlag; u64 vprot; } (80390ead2080 split them).
  bool vprot_aliases_vlag = false;
  void set_vlag(s64 v) {
    vlag = v;
    if (vprot_aliases_vlag) vprot = as_u64(v);
  }
  void set_vprot(u64 p) {
    vprot = p;
    if (vprot_aliases_vlag) vlag = as_s64(p);
  }

  CfsRq* cfs_rq = nullptr;  // the queue this entity is (or will be) queued on
  // Hierarchy (CONFIG_FAIR_GROUP_SCHED): the group entity above (nullptr on the
  // root queue), the queue a group entity owns (nullptr for a task), depth 0 on
  // the root queue.
  SchedEntity* parent = nullptr;
  CfsRq* my_q = nullptr;
  int depth = 0;
  int task_id = -1;   // index of the owning task; -1 for a group entity
  int group_id = -1;  // index of the owning task group for a group entity; -1 for a task

  // PELT (model/fair_pelt.cpp); a group entity's runnable count,
  // se->runnable_weight = my_q->h_nr_runnable as se_update_runnable() last set it
  SchedAvg avg;
  u64 runnable_weight = 0;
};

// RB_DECLARE_CALLBACKS(min_vruntime_cb, ...) with RBCOMPUTE =
// min_vruntime_update(); copy/rotate carry only min_vruntime unless the profile
// has the multi-field fix.
struct MinVruntimeCallbacks {
  bool copy_all_fields = true;
  bool max_slice = true;  // the max_slice augment exists (Behaviour::augment_has_max_slice)

  bool compute(SchedEntity* se) const;  // min_vruntime_update(): true if unchanged
  void copy(SchedEntity* from, SchedEntity* to) const {
    to->min_vruntime = from->min_vruntime;
    if (copy_all_fields) {
      to->min_slice = from->min_slice;
      to->max_slice = from->max_slice;
    }
  }
  void rotate(SchedEntity* old, SchedEntity* new_) const {
    copy(old, new_);
    compute(old);
  }
};

class Rq;

struct CfsRq {
  LoadWeight load;           // Σ load.weight of queued entities, curr included
  unsigned nr_queued = 0;    // entities on this level, curr and delayed included
  unsigned h_nr_queued = 0;
  unsigned h_nr_runnable = 0;  // excludes delayed tasks
  unsigned h_nr_idle = 0;

  s64 sum_w_vruntime = 0;  // Σ entity_key * avg_vruntime_weight over the tree
  u64 sum_weight = 0;      // Σ avg_vruntime_weight over the tree
  u64 zero_vruntime = static_cast<u64>(-(s64{1} << 20));  // init_cfs_rq()
  unsigned sum_shift = 0;

  RbTree<SchedEntity> tasks_timeline;
  SchedEntity* curr = nullptr;
  SchedEntity* next = nullptr;
  // v7.3-rc flat runqueue: this level's entity on the running task's path
  // (curr is then kept on rq->cfs only, and always a task).
  SchedEntity* h_curr = nullptr;

  Rq* rq = nullptr;
  int idle = 0;       // cfs_rq->idle: the owning group is SCHED_IDLE (cfs_rq_is_idle)
  int group_id = -1;  // the owning task group; -1 for the root queue (rq->cfs)

  // PELT (model/fair_pelt.cpp): the queue's sums, the averages of tasks that
  // left for another CPU (subtracted at the next update), and the load
  // balancer's hierarchical load, refreshed once a jiffy (task_h_load())
  SchedAvg avg;
  struct Removed {
    u32 nr = 0;
    u64 util_avg = 0, load_avg = 0, runnable_avg = 0;
    bool operator==(const Removed&) const = default;
  } removed;
  u64 h_load = 0;
  u64 last_h_load_update = 0;  // jiffies
  // A group's queue: what it last added to tg->load_avg and when (the
  // scenario's clock on sched_clock_cpu()'s base), and the load sum waiting to
  // be propagated to its group entity (add_tg_cfs_propagate())
  u64 tg_load_avg_contrib = 0;
  u64 tg_runnable_avg_contrib = 0;  // v7.3: what it last added to tg->runnable_avg
  u64 last_update_tg_load_avg = 0;
  bool propagate = false;
  s64 prop_runnable_sum = 0;

  // CPU bandwidth control (CONFIG_CFS_BANDWIDTH; model/fair_bandwidth.cpp): a
  // group's queue with a quota draws runtime from its group's pool
  // (runtime_remaining) and is throttled when it runs out. throttle_count: how
  // many queues on the path from here to the root are throttled (this one
  // included); the throttled_clock* fields are the kernel's clocks of the
  // throttle (rq_clock, and the PELT clock frozen while throttled).
  bool runtime_enabled = false;
  s64 runtime_remaining = 0;
  bool throttled = false;
  int throttle_count = 0;
  u64 throttled_clock = 0;
  u64 throttled_clock_pelt = 0;
  u64 throttled_clock_pelt_time = 0;
  u64 throttled_clock_self = 0;
  u64 throttled_clock_self_time = 0;
  // cfs_rq->throttled_csd_list is not empty: queued for an unthrottle by the
  // CPU's CSD (distribute_cfs_runtime() of another CPU), not yet run.
  bool csd_queued = false;
  // The task-based throttle (v6.18, Behaviour::task_based_throttle): the
  // tasks this queue's throttle took off it, in list order
  // (throttled_limbo_list, list_add() at the head); whether its PELT clock
  // stands still (pelt_clock_throttled: it emptied in a throttled hierarchy).
  std::vector<int> throttled_limbo_list;
  bool pelt_clock_throttled = false;
};

// struct hrtimer as the bandwidth timers use it: armed (HRTIMER_STATE_ENQUEUED)
// or not, its expiry on the wall clock, and the CPU it fires on.
struct HrTimer {
  u64 expires = 0;
  bool queued = false;
  int cpu = 0;
  bool operator==(const HrTimer&) const = default;
};

// struct cfs_bandwidth (v6.12): one a group, shared by its CPUs' queues.
// quota and period come from cpu.max, burst from cpu.max.burst; runtime is the
// pool the queues draw from, refilled by the period timer.
inline constexpr u64 kRuntimeInf = ~u64{0};  // RUNTIME_INF: cpu.max "max"
inline constexpr u64 kDefaultCfsPeriod = 100'000'000;  // default_cfs_period(): 100 ms
struct CfsBandwidth {
  u64 period = kDefaultCfsPeriod;
  u64 quota = kRuntimeInf;
  u64 runtime = 0;
  u64 burst = 0;
  u64 runtime_snap = 0;
  s64 hierarchical_quota = -1;  // RUNTIME_INF as s64
  bool idle = false;
  bool period_active = false;
  bool slack_started = false;
  // Not a field: hrtimer_callback_running(&period_timer), true while its callback runs
  bool period_callback_running = false;
  HrTimer period_timer;
  HrTimer slack_timer;
  // cfs_b->throttled_cfs_rq in list order: (cpu) of each throttled queue of the group
  std::vector<int> throttled_cfs_rq;
  int nr_periods = 0;
  int nr_throttled = 0;
  int nr_burst = 0;
  u64 throttled_time = 0;
  u64 burst_time = 0;
};

// struct task_group: the configuration every CPU shares (tg->shares,
// tg->idle, the parent group) and the per-CPU parts, tg->se[cpu] and
// tg->cfs_rq[cpu], which live in each CPU's runqueue (TaskGroupCpu).
struct TaskGroup {
  std::string name;
  u64 shares = kNice0Load;  // scaled: scale_load(MIN_SHARES) .. scale_load(MAX_SHARES)
  bool idle = false;        // tg->idle (cpu.idle)
  // Removed (cgroup rmdir: Rq::destroy_group): no longer found by name, no task or
  // group may join it; its slot, entity and queue stay (dequeued, empty) so ids keep.
  bool destroyed = false;
  int parent = -1;          // parent group, -1 = the root task group
  s64 load_avg = 0;         // tg->load_avg: Σ of its queues' tg_load_avg_contrib (update_tg_load_avg())
  s64 runnable_avg = 0;     // tg->runnable_avg (v7.3): Σ of tg_runnable_avg_contrib, read by tg_tasks()
  std::vector<SchedEntity*> se;  // tg->se[cpu], one a CPU
  std::vector<CfsRq*> cfs_rq;    // tg->cfs_rq[cpu], one a CPU
  CfsBandwidth cfs_bandwidth;    // tg->cfs_bandwidth (cpu.max)
};

// One CPU's part of a task group: its group entity and the queue it owns.
struct TaskGroupCpu {
  SchedEntity se;  // tg->se[cpu]
  CfsRq cfs_rq;    // tg->cfs_rq[cpu]
};

// fifo: SCHED_FIFO, a task of the RT class: not a fair entity.
// It takes the CPU from the fair class and gives it back (model/rq.cpp,
// "Another class on the CPU"); one RT priority, FIFO order.
enum class Policy : std::uint8_t { normal, batch, idle, fifo };
const char* policy_name(Policy p);

enum class TaskState : std::uint8_t {
  new_,      // created, never woken (TASK_NEW)
  running,   // TASK_RUNNING: queued or on the CPU
  sleeping,  // blocked; may still be sched_delayed on the queue
  dead,
};

// What select_task_rq_fair() remembers of a task's wake-ups (model/wake_cpu.hpp):
// record_wakee() counts, in the waker, how often it wakes another task than
// the one it woke last, halving the count once a second; wake_wide() reads
// the waker's and the wakee's counts.
// The last-level cache's struct sched_domain_shared as the wake-up choice reads
// it, and the SMT topology (model/wake_cpu.hpp): one for all the CPUs of a
// System (they share one cache). Not in the kernel's layout: `smt` is the
// topology (cpu_smt_mask()), `has_idle_cores` the field.
struct LlcShared {
  // siblings a core: CPUs kN .. kN+N-1 share one (the scenario's `smt N`); 1:
  // no SMT, the sched_smt_present static key off
  unsigned smt = 1;
  // sd_llc_shared->has_idle_cores: allocated zeroed; set by __update_idle_core()
  // when a CPU switches to its idle task with every sibling idle, cleared by
  // select_idle_cpu() after a scan for an idle core that found none
  bool has_idle_cores = false;
};

struct WakeeState {
  std::uint32_t flips = 0;  // p->wakee_flips (unsigned int)
  u64 decay_ts = 0;    // p->wakee_flip_decay_ts (jiffies; 0, as init_task's, until the first decay)
  int last = -1;       // p->last_wakee: a task id, or -1 for none
};

struct Task {
  std::string name;
  SchedEntity se;
  int nice = 0;
  Policy policy = Policy::normal;
  bool sched_reset_on_fork = false;
  TaskState state = TaskState::new_;
  bool on_rq = false;  // p->on_rq: queued in the class (includes delayed; an RT task: on the RT queue)
  int group = -1;      // p->sched_task_group: -1 = the root task group
  int cpu = 0;         // task_cpu(p): the runqueue the task belongs to
  WakeeState wakee;    // as a waker (record_wakee()) and as a wakee (wake_wide())
  // p->recent_used_cpu: wake_up_new_task() sets it to the task's CPU, each
  // select_idle_sibling() that gets past the target and prev tests to prev
  int recent_used_cpu = -1;
  // The task-based throttle (v6.18): p->throttled (on a limbo list, or
  // dequeued from one and not yet enqueued), and a throttle work queued for
  // the return to user space (task_has_throttle_work()).
  bool throttled = false;
  bool throttle_work = false;
};

// a SCHED_IDLE task (sched.h task_has_idle_policy())
inline bool task_is_idle(const Task& p) { return p.policy == Policy::idle; }

// Enqueue / dequeue / wake flags (kernel/sched/sched.h); values are the model's own.
namespace enqueue_flags {
inline constexpr int WAKEUP = 1 << 0;
inline constexpr int RESTORE = 1 << 1;
inline constexpr int MOVE = 1 << 2;
inline constexpr int NOCLOCK = 1 << 3;
inline constexpr int MIGRATED = 1 << 4;
inline constexpr int INITIAL = 1 << 5;
inline constexpr int DELAYED = 1 << 6;
inline constexpr int QUEUED = 1 << 7;  // ENQUEUE_QUEUED (v7.3-rc1): the hierarchy walk already counted the task
}  // namespace enqueue_flags
namespace dequeue_flags {
inline constexpr int SLEEP = 1 << 0;
inline constexpr int SAVE = 1 << 1;
inline constexpr int MOVE = 1 << 2;
inline constexpr int NOCLOCK = 1 << 3;
inline constexpr int SPECIAL = 1 << 4;
inline constexpr int MIGRATING = 1 << 5;
inline constexpr int DELAYED = 1 << 6;
inline constexpr int THROTTLE = 1 << 7;
}  // namespace dequeue_flags
namespace wake_flags {
inline constexpr int FORK = 1 << 0;
inline constexpr int TTWU = 1 << 1;
inline constexpr int SYNC = 1 << 2;
inline constexpr int MIGRATED = 1 << 3;
inline constexpr int RQ_SELECTED = 1 << 4;
}  // namespace wake_flags

}  // namespace eevdf
