// The kernel backend: the kernel's own fair.c (kernelsrc/extract.py takes it
// by name from a tree at build time; kernelsrc/glue.c is our core.c side),
// driven through the same entry points as the model's System, and handing
// its state back in the model's types (a mirror System) so that every
// invariant runs on the kernel's own state. One CPU, or several (runqueues N)
// on a tree with the SMP code (6.18 on); one instance at a time in a process
// (the kernel code keeps its state in globals).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/profile.hpp"
#include "model/system.hpp"

struct kb_event;

namespace eevdf::kernelsrc {

// True when this build has the kernel backend (a tree was found at build time).
bool available();
// The tree's kernel version ("6.12.118"), with the fixes and patches applied
// at build time ("6.12.118 (fix K1)"), or why there is none.
std::string kernel_version();
// The same as a release ({} without a tree), and the profile that judges the
// tree's state (judge_for_kernel(): the profile of its release, or the
// nearest; "" when no profile has its major.minor).
KernelRelease tree_release();
std::string judge();
// Empty when the backend can run `profile` with `runqueues` CPUs, else why not
// (several need a tree with the SMP code: smp()).
std::string refusal(const Profile& profile, unsigned runqueues);
// Whether this build's tree has the migration code (set_task_cpu() with
// migrate_task_rq_fair(), a group entity a CPU): 6.18 and later, not 6.12 built !CONFIG_SMP.
bool smp();
// Whether this build's tree runs CPU bandwidth control (cgroup cpu.max): built
// with CONFIG_CFS_BANDWIDTH, Linux 6.6.0, 6.12.0, 6.12.10 and 6.12.118 with
// CONFIG_SMP (kernelsrc/extract_trees.py, BANDWIDTH_TREES); and, where it does
// not, why (empty where it does).
bool bandwidth();
std::string bandwidth_refusal();

struct KernelWarning {
  std::string file;
  int line = 0;
  std::string condition;
};

// The ids of this project's fixes of findings applied to the tree at build
// time (-DEEVDF_KERNEL_FIXES, kernelsrc/fixes.json), in order: {"K1", "F9"}.
std::vector<std::string> applied_fixes();

// Whether this build's tree has a print_cfs_rq() that calls avg_vruntime()
// after dropping the rq lock (kernel/sched/debug.c, read at build time).
bool debug_reader_unlocked();

// wake()'s `cpu` for a wake-up whose CPU the tree's own select_task_rq_fair()
// chooses (lockstep: where the model chose one, scenario/executor.hpp op_for_kernel()).
inline constexpr int kTreeChoosesCpu = -2;

// The CPU the tree's select_task_rq_fair() chose for a wake-up (-1: it was not
// asked, the task was not sleeping in the kernel's state).
struct WakeChoice {
  int task = -1;
  int cpu = -1;
};

class KernelBackend {
 public:
  // Throws std::runtime_error when another instance is alive, the backend is
  // absent or refuses `runqueues` (refusal()).
  // smt: SMT siblings a core (the scenario's `smt N`, System::set_smt()).
  explicit KernelBackend(const Profile& profile, unsigned runqueues = 1, unsigned smt = 1);
  ~KernelBackend();
  KernelBackend(const KernelBackend&) = delete;
  KernelBackend& operator=(const KernelBackend&) = delete;

  // The model's entry points (model/rq.hpp, model/system.hpp), with the same refusals.
  int create_task(std::string_view name, int nice, Policy policy, u64 custom_slice_ns, int group);
  int fork_task(int parent, std::string_view child_name, bool copy_races_sched_change);
  // cpu kTreeChoosesCpu: a sleeping task's CPU is chosen by the tree's
  // select_task_rq_fair(), the wake-up made from CPU `from` (-1: the task's own)
  // and remembered for take_wake_choice(); on one CPU, or for a task that is
  // not sleeping, it is woken where it is.
  Refusal wake(int task, bool sync, int cpu, int from = -1);
  // The choice of the last wake() with kTreeChoosesCpu, once (nullopt: none since the last call).
  std::optional<WakeChoice> take_wake_choice() {
    std::optional<WakeChoice> c;
    c.swap(wake_choice_);
    return c;
  }
  Refusal sleep(int task);
  Refusal yield(int task);
  // return_to_user: the trees with bandwidth glue (6.6.0 to 6.12.118) throttle
  // queues, not tasks: no throttle work exists, the return changes nothing.
  // v6.18's task work is not glued (docs/kernel-backend.md).
  Refusal return_to_user(int task);
  Refusal exit_task(int task);
  Refusal set_nice(int task, int nice);
  Refusal set_policy(int task, Policy policy);
  Refusal set_slice(int task, u64 slice_ns);
  Refusal migrate(int task, int cpu);
  int create_group(std::string_view name, int parent, u64 shares);
  Refusal set_group_shares(int group, u64 shares);
  Refusal set_group_idle(int group, bool idle);
  Refusal move_task(int task, int group);
  Refusal destroy_group(int group);          // cgroup rmdir: unregister_fair_sched_group()
  Refusal write_base_slice_ns(u64 ns);       // debugfs sched/base_slice_ns
  // cgroup cpu.max (and cpu.max.burst) of group: core.c's
  // tg_set_cfs_bandwidth() on cgroup v2, written from CPU 0; quota kRuntimeInf
  // is "max". Refusal::bad_argument where the kernel answers -EINVAL.
  // Refusal::no_bandwidth_model on a tree built without it (bandwidth_refusal()).
  Refusal set_group_bandwidth(int group, u64 quota, u64 period, u64 burst);
  // The burst a cpu.max write without one passes on (core.c's cpu_max_write()
  // of the tree: the group's, or before 49217ea147df, v6.10, the group's in
  // microseconds taken as nanoseconds); group exists.
  u64 cpu_max_burst(int group) const;
  // Tests: the CSDs the timers queue stay queued (held) until run_csd() runs
  // one, so that the state between a distribution and its remote unthrottle
  // can be seen; off (the default), each runs right after the timers.
  void set_hold_csds(bool on) { hold_csds_ = on; }
  void run_csd(int cpu);
  void run(u64 ns);
  void tick();
  void tick_nopreempt();  // `tick nopreempt`: sched_tick() with no reschedule honoured
  Refusal run_notick(u64 ns);  // refused as the model refuses: sched_can_stop_tick()
  void tick_after(u64 ns);
  void schedule();
  // The sched debugfs reader (System::debug_read()): print_cfs_rq()'s
  // avg_vruntime() of CPU `cpu`'s queue of `group` (-1: the root queue), through
  // the tree's own avg_vruntime(). `racing` when the tree's reader runs
  // without the rq lock (debug_reader_unlocked()): the loads and arithmetic
  // now, the two stores at store_debug_reads(); otherwise the reader alone, now.
  Refusal debug_read(int cpu, int group, bool racing);
  std::size_t pending_debug_reads() const { return pending_reads_.size(); }
  void store_debug_reads(std::size_t n);

  // The kernel's state in the model's types, brought up to date after every entry point.
  System& state() { return *mirror_; }
  const System& state() const { return *mirror_; }
  // Whether the state is handed back incrementally (the default: only the
  // entities the kernel changed are copied, refresh()); off, every entity is
  // copied after every entry point, as before (tests compare the two; kernel_bench).
  void set_incremental_refresh(bool on) { incremental_ = on; }
  // How often the incremental hand-back checks its marks (refresh()): every
  // n entry points that use them, the entities no mark named are compared
  // with their last export; 1: at every export, the events' too (tests). A
  // change no mark named throws std::logic_error naming the entity.
  void set_handback_check_every(unsigned n) { check_every_ = n; }
  // Tests only: task's kernel entity changed behind the marks' back (kb_test_write_unmarked()).
  void test_write_unmarked(int task);
  // I-OVF's shadow at the tree's reweight_entity() and place_entity() (on by default).
  void set_overflow_shadow(bool on) { overflow_shadow_on_ = on; }
  // The tree's own sched_idle_rq() of CPU `cpu` after the last entry point (model/wake_cpu.hpp).
  bool sched_idle_rq(unsigned cpu = 0) const { return cpu < sched_idle_rq_.size() && sched_idle_rq_[cpu]; }
  // Kernel warnings (SCHED_WARN_ON, WARN_ON_ONCE) since the last call.
  std::vector<KernelWarning> take_warnings();

 private:
  enum class Handback { marks, compare, all };
  // The bandwidth timers due at t fire, first expiry first (then group, the
  // period timer before the slack timer), until none is due; then every CPU
  // with a CSD queued runs it, CPU 0 first. True when anything ran.
  bool fire_due_timers(u64 t);
  void refresh(Handback how = Handback::marks, bool end_op = true);
  static int listening(void* self, int cpu);  // kb_set_listen_query(): rq(cpu) has an observer
  // An event of the tree's own functions (kb_api.h): the mirror is refreshed
  // to the moment of the event and its runqueue's observer told, as the
  // model's functions tell it (on_placed(), on_pick()). Nothing when no
  // observer listens (lockstep's kernel side).
  static void on_event(void* self, const kb_event* e);
  // Whether the model's shadow of reweight_entity() and place_entity() runs at
  // their events (I-OVF; on by default, the executor turns it off when I-OVF is not checked).
  bool overflow_shadow_on_ = true;
  bool hold_csds_ = false;  // set_hold_csds()
  bool incremental_ = true;  // set_incremental_refresh()
  unsigned check_every_ = 128, since_check_ = 0;  // set_handback_check_every()
  std::string missed_;  // a change the marks missed, thrown when the entry point ends
  // how the events' refreshes inside the running entry point hand back: the
  // rarer entry points (groups, policies, debugfs, new tasks) are not marked
  // and compare every entity, their events' refreshes too
  Handback events_how_ = Handback::marks;
  // Runs the model's function f on the mirror with rq's observer hearing its
  // overflows only, then refreshes the mirror from the kernel (f's changes
  // are the model's, not the tree's).
  template <class F>
  void overflow_shadow(Rq& rq, F f);
  Task* task(int id);
  Rq& rq_of(int id);  // the mirror's runqueue of the task's CPU
  Profile profile_;
  std::unique_ptr<System> mirror_;
  std::vector<KernelWarning> warnings_;
  struct PendingRead {
    int cpu;
    int queue;
    long long avg_vruntime;
    unsigned long long zero_vruntime;
  };
  std::vector<PendingRead> pending_reads_;
  std::vector<bool> sched_idle_rq_;  // by CPU
  std::optional<WakeChoice> wake_choice_;
};

}  // namespace eevdf::kernelsrc
