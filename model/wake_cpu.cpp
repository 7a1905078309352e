#include "model/wake_cpu.hpp"

#include <cstdint>
#include <array>
#include <utility>

#include "model/fair.hpp"
#include "model/system.hpp"

namespace eevdf {

bool idle_cpu(const Rq& rq) { return rq.running() < 0 && rq.nr_running == 0; }

bool available_idle_cpu(const Rq& rq) { return idle_cpu(rq); }

bool sched_idle_rq(const Rq& rq) { return rq.nr_running == rq.cfs.h_nr_idle && rq.nr_running != 0; }

bool sched_smt_active(const System& sys) { return sys.llc_shared().smt > 1; }

bool smt_buddy_assist(const Profile& profile) {
  return profile.feat(Feature::RFC_SMT_BUDDY_ASSIST) || profile.feat(Feature::RFC_SMT_BUDDY_ASSIST_NR_RUNNING);
}

unsigned smt_buddy_assist_count(const Rq& rq) {
  if (rq.profile().feat(Feature::RFC_SMT_BUDDY_ASSIST_NR_RUNNING)) return rq.nr_running;
  return rq.cfs.h_nr_runnable;
}

bool wake_affine_idle_sync(const Rq& this_rq) {
  if (this_rq.profile().behaviour.sync_affine_counts_delayed) return this_rq.nr_running == 1;
  // cfs_h_nr_delayed(): h_nr_queued - h_nr_runnable (6.12.y keeps h_nr_delayed itself, equal to it)
  const unsigned delayed = this_rq.cfs.h_nr_queued - this_rq.cfs.h_nr_runnable;
  return this_rq.nr_running - delayed == 1;
}

namespace {

// choose_sched_idle_rq(): a CPU running only SCHED_IDLE tasks counts as idle
// for a wake-up, except for a SCHED_IDLE wakee, which would share it with them
// (fd54d81c2c0e, v7.1; before it, sched_idle_cpu() for every wakee).
// `idle_wakee`: the wakee is SCHED_IDLE and the profile has fd54d81c2c0e.
bool choose_sched_idle_rq(const Rq& rq, bool idle_wakee) { return sched_idle_rq(rq) && !idle_wakee; }

// choose_idle_cpu() (v7.1; available_idle_cpu() || sched_idle_cpu() before):
// the test select_idle_sibling() makes of every candidate (__select_idle_cpu()
// also asks the core-scheduling cookie, which matches without core scheduling).
bool choose_idle_cpu(const Rq& rq, bool idle_wakee) {
  return available_idle_cpu(rq) || choose_sched_idle_rq(rq, idle_wakee);
}

// jiffies: INITIAL_JIFFIES ((unsigned long)(unsigned int)(-300 * HZ)) plus the ticks elapsed.
u64 jiffies_now(const Rq& rq) {
  const unsigned hz = rq.profile().tunables.hz;
  const u64 initial = static_cast<u64>(static_cast<std::uint32_t>(0u - 300u * hz));
  return initial + rq.clock_task / rq.profile().tick_nsec();
}

// time_after(a, b): b - a as a signed long is negative.
bool time_after(u64 a, u64 b) { return static_cast<std::int64_t>(b - a) < 0; }

// record_wakee(): the waker's memory, on a copy.
void record_wakee(WakeeState& current, int wakee, u64 jiffies, unsigned hz) {
  if (time_after(jiffies, current.decay_ts + hz)) {
    current.flips >>= 1;
    current.decay_ts = jiffies;
  }
  if (current.last != wakee) {
    current.last = wakee;
    ++current.flips;
  }
}

// wake_wide(): a waker of many (flips of at least llc_size, and llc_size times
// the other side's) spreads its wakees instead of pulling them to its cache.
// The kernel's arithmetic is unsigned int: slave * factor wraps modulo 2^32.
bool wake_wide(const WakeeState& current, const WakeeState& wakee, unsigned llc_size) {
  std::uint32_t master = current.flips, slave = wakee.flips;
  if (master < slave) std::swap(master, slave);
  const std::uint32_t factor = llc_size;
  return !(slave < factor || master < static_cast<std::uint32_t>(slave * factor));
}

constexpr int kNoCpu = -1;  // nr_cpumask_bits: no answer

// wake_affine_idle(): an idle waking CPU (a wake-up from an interrupt) takes the
// wakee unless prev is idle too; a WF_SYNC waker alone on its CPU gives it away;
// an idle prev keeps it. Every CPU shares the cache.
int wake_affine_idle(const System& sys, int this_cpu, int prev_cpu, bool sync) {
  const Rq& this_rq = sys.rq(static_cast<unsigned>(this_cpu));
  const Rq& prev_rq = sys.rq(static_cast<unsigned>(prev_cpu));
  if (available_idle_cpu(this_rq)) return available_idle_cpu(prev_rq) ? prev_cpu : this_cpu;
  if (sync && wake_affine_idle_sync(this_rq)) return this_cpu;
  if (available_idle_cpu(prev_rq)) return prev_cpu;
  return kNoCpu;
}

constexpr int kUnknownCpu = -2;

// ---- SMT siblings (CONFIG_SCHED_SMT; fair.c of 6.12.118, 6.18.0 and 7.0.0,
// the same text but for rcu_dereference() becoming rcu_dereference_all()) ----
// The topology is the scenario's `smt N`: CPUs kN .. kN+N-1 are one core
// (cpu_smt_mask()), every sibling of a modelled CPU is modelled (N divides the
// runqueues) and may run the task (p->cpus_ptr).

// cpu_smt_mask(cpu) as a bit mask of the modelled CPUs (at most 8).
std::uint32_t smt_mask(const LlcShared& llc, int cpu) {
  const unsigned n = llc.smt;
  const unsigned first = static_cast<unsigned>(cpu) - static_cast<unsigned>(cpu) % n;
  return ((std::uint32_t{1} << n) - 1) << first;
}

bool in_mask(std::uint32_t mask, int cpu) { return ((mask >> static_cast<unsigned>(cpu)) & 1u) != 0; }

// select_idle_core(): whether every sibling of `core` is idle (then `core` is
// the answer); on the way, the first sibling still in `cpus` that is idle or
// runs only SCHED_IDLE tasks becomes *idle_cpu, the scan's fallback, if it has
// none yet. A core that is not wholly idle leaves `cpus`.
int select_idle_core(const System& sys, int core, std::uint32_t& cpus, int& idle_cpu, bool idle_wakee) {
  const std::uint32_t siblings = smt_mask(sys.llc_shared(), core);
  bool idle = true;
  for (int cpu = 0; cpu < static_cast<int>(sys.size()); ++cpu) {  // for_each_cpu(): ascending
    if (!in_mask(siblings, cpu)) continue;
    const Rq& rq = sys.rq(static_cast<unsigned>(cpu));
    if (!available_idle_cpu(rq)) {
      idle = false;
      if (idle_cpu == kNoCpu) {
        if (choose_sched_idle_rq(rq, idle_wakee) && in_mask(cpus, cpu)) {
          idle_cpu = cpu;
          break;
        }
        continue;
      }
      break;
    }
    if (idle_cpu == kNoCpu && in_mask(cpus, cpu)) idle_cpu = cpu;
  }
  if (idle) return core;
  cpus &= ~siblings;
  return kNoCpu;
}

// select_idle_smt(): a sibling of `target` (other than itself, in the cache
// domain and allowed to the task: every modelled one) idle for a wake-up,
// the lowest first.
int select_idle_smt(const System& sys, int target, bool idle_wakee) {
  const std::uint32_t siblings = smt_mask(sys.llc_shared(), target);
  for (int cpu = 0; cpu < static_cast<int>(sys.size()); ++cpu) {
    if (!in_mask(siblings, cpu) || cpu == target) continue;
    if (choose_idle_cpu(sys.rq(static_cast<unsigned>(cpu)), idle_wakee)) return cpu;
  }
  return kNoCpu;
}

// select_idle_cpu() on the last-level cache, from target + 1 round to target.
// Without an idle core to look for (has_idle_core false): the first CPU idle
// for a wake-up. With SIS_UTIL the scan stops after
// sd_llc_shared->nr_idle_scan CPUs, a budget only the load balancer's
// update_idle_cpu_scan() writes, from the LLC's PELT utilization: the model
// does not have it. The answer is known when no CPU of the scan is idle (the
// same for every budget); else it is kUnknownCpu.
// With has_idle_core (SMT; test_idle_cores() was true): select_idle_core() of
// each CPU still in the scan, the first wholly idle core answering; none:
// set_idle_cores(target, false) and the fallback select_idle_core() noted.
// This scan spends no budget, but SIS_UTIL still returns at once (no scan,
// has_idle_cores left set) when nr_idle_scan is 0, which update_idle_cpu_scan()
// writes for a loaded cache: the budget decides every such choice
// (kUnknownCpu) unless SIS_UTIL is off. `has_idle_cores` is the field, as it becomes.
int select_idle_cpu(const System& sys, bool has_idle_core, bool& has_idle_cores, int target, bool idle_wakee) {
  const int n = static_cast<int>(sys.size());
  if (has_idle_core) {
    if (sys.rq(0).profile().feat(Feature::SIS_UTIL)) return kUnknownCpu;
    std::uint32_t cpus = (std::uint32_t{1} << static_cast<unsigned>(n)) - 1;  // the domain's span & p->cpus_ptr
    int idle_cpu = kNoCpu;
    for (int k = 1; k <= n; ++k) {  // for_each_cpu_wrap(): the mask as it shrinks
      const int cpu = (target + k) % n;
      if (!in_mask(cpus, cpu)) continue;
      const int i = select_idle_core(sys, cpu, cpus, idle_cpu, idle_wakee);
      if (i != kNoCpu) return i;
    }
    has_idle_cores = false;  // set_idle_cores(target, false)
    return idle_cpu;
  }
  for (int k = 1; k <= n; ++k) {
    const int cpu = (target + k) % n;
    if (choose_idle_cpu(sys.rq(static_cast<unsigned>(cpu)), idle_wakee))
      return sys.rq(0).profile().feat(Feature::SIS_UTIL) ? kUnknownCpu : cpu;
  }
  return kNoCpu;
}

// select_idle_sibling(): target, then prev, then the recently used CPU if idle
// for a wake-up; with SMT siblings (sched_smt_active()) and no idle core
// remembered (test_idle_cores()), an idle sibling of prev (select_idle_smt();
// prev and target always share the cache); else the scan, else target. (The
// per-CPU kthread clause needs a kthread as `current`: the model has none,
// and the idle task wakes from an interrupt, not in task context.) `recent`
// is p->recent_used_cpu and `has_idle_cores` sd_llc_shared->has_idle_cores,
// updated as the kernel does. kUnknownCpu: the scan's budget decides.
int select_idle_sibling(const System& sys, int& recent, bool& has_idle_cores, int prev, int target,
                        bool idle_wakee) {
  const auto idle = [&](int cpu) { return choose_idle_cpu(sys.rq(static_cast<unsigned>(cpu)), idle_wakee); };
  if (idle(target)) return target;
  if (prev != target && idle(prev)) return prev;
  const int recent_used_cpu = recent;
  recent = prev;
  if (recent_used_cpu != prev && recent_used_cpu != target && recent_used_cpu >= 0 &&
      recent_used_cpu < static_cast<int>(sys.size()) && idle(recent_used_cpu))
    return recent_used_cpu;
  // SMT_BUDDY_ASSIST (an RFC, not in any kernel; as assumed from its
  // description, docs/profiles.md): a target with fair work pending (more than
  // the task it runs, by the form's count) hands the wakee to an idle sibling,
  // the lowest, before the scans and without SIS_UTIL's budget
  if (sched_smt_active(sys) && smt_buddy_assist(sys.rq(0).profile()) &&
      smt_buddy_assist_count(sys.rq(static_cast<unsigned>(target))) > 1) {
    const std::uint32_t siblings = smt_mask(sys.llc_shared(), target);
    for (int cpu = 0; cpu < static_cast<int>(sys.size()); ++cpu)
      if (in_mask(siblings, cpu) && cpu != target && available_idle_cpu(sys.rq(static_cast<unsigned>(cpu))))
        return cpu;
  }
  bool has_idle_core = false;
  if (sched_smt_active(sys)) {
    has_idle_core = has_idle_cores;  // test_idle_cores(target): the one cache's field
    if (!has_idle_core) {
      const int i = select_idle_smt(sys, prev, idle_wakee);
      if (i != kNoCpu) return i;
    }
  }
  const int i = select_idle_cpu(sys, has_idle_core, has_idle_cores, target, idle_wakee);
  return i == kNoCpu ? target : i;
}

// The choice on the state as it is: the waker's record_wakee() memory and the
// wakee's recent_used_cpu as they would become, and the CPU.
struct Choice {
  Refusal refusal = Refusal::none;
  WakeeState current;
  int recent = -1;
  bool has_idle_cores = false;
  bool wide = false;  // wake_wide(): want_affine false
  bool weighed = false;  // wake_affine_weight() answered (or had no answer)
  int cpu = -1;
  // task_h_load()'s caches of the queues it walked (the waker's, on a sync
  // wake-up, and the wakee's)
  HLoadWrites h_loads;
};

// wake_affine_weight() (6.12.118 = 6.18.0 = 7.0.0): the waking CPU if its load
// with the wakee (less the waker's, on a sync wake-up) is below the previous
// CPU's without it, the previous CPU's weighted up by half the domain's
// imbalance_pct; else no answer. Every CPU has capacity 1024; the domain is
// the one LLC domain of the backend's topology, imbalance_pct 117 (an SMT
// sibling's own domain, 110 in the kernel, is not modelled). The loads are the
// root queues' PELT averages as last updated and the tasks' hierarchical loads
// (model/fair_pelt.cpp).
int wake_affine_weight(const System& sys, const Task& p, int this_cpu, int prev_cpu, bool sync, u64 jiffies,
                       Choice& c) {
  const Rq& this_rq = sys.rq(static_cast<unsigned>(this_cpu));
  const Rq& prev_rq = sys.rq(static_cast<unsigned>(prev_cpu));
  const Profile& profile = this_rq.profile();
  constexpr u64 capacity = 1024;  // capacity_of()
  constexpr u64 imbalance_pct = 117;
  u64 this_eff_load = cpu_load(this_rq);  // s64 in the kernel: wrapping u64 here, compared signed
  if (sync) {
    // task_h_load(current): the running task, or the idle task (load average 0)
    const int waker = this_rq.running();
    // (the idle task's queue is the root one, its load average 0)
    const SchedEntity* current = waker >= 0 ? &this_rq.task(waker)->se : nullptr;
    const u64 h = current ? task_h_load(current->avg.load_avg, *current->cfs_rq, jiffies, c.h_loads)
                          : task_h_load(0, this_rq.cfs, jiffies, c.h_loads);
    if (h > this_eff_load) return this_cpu;
    this_eff_load -= h;
  }
  const u64 t = task_h_load(p.se.avg.load_avg, *p.se.cfs_rq, jiffies, c.h_loads);
  this_eff_load += t;
  if (profile.feat(Feature::WA_BIAS)) this_eff_load *= 100;
  this_eff_load *= capacity;
  u64 prev_eff_load = cpu_load(prev_rq) - t;
  if (profile.feat(Feature::WA_BIAS)) prev_eff_load *= 100 + (imbalance_pct - 100) / 2;
  prev_eff_load *= capacity;
  if (sync) prev_eff_load += 1;
  return as_s64(this_eff_load) < as_s64(prev_eff_load) ? this_cpu : kNoCpu;
}

Choice choose(const System& sys, int id, int from, bool sync) {
  Choice c;
  const Rq& this_rq = sys.rq(static_cast<unsigned>(from));
  const Task& p = *this_rq.task(id);
  const Profile& profile = this_rq.profile();
  const int waker = this_rq.running();
  c.current = waker >= 0 ? this_rq.task(waker)->wakee : this_rq.idle_wakee;
  const int cpu = from, prev_cpu = p.cpu;
  record_wakee(c.current, id, jiffies_now(this_rq), profile.tunables.hz);
  // want_affine: the waking CPU is always one the task may run on (a modelled CPU)
  c.wide = wake_wide(c.current, p.wakee, profile.tunables.ncpus);
  const bool want_affine = !c.wide;
  int new_cpu = prev_cpu;
  // for_each_domain(): the last-level cache domain has SD_WAKE_AFFINE and spans
  // both CPUs; no domain has SD_BALANCE_WAKE, so without want_affine the loop
  // stops there too and the fast path follows with prev_cpu
  if (want_affine && cpu != prev_cpu) {  // wake_affine()
    int target = kNoCpu;
    if (profile.feat(Feature::WA_IDLE)) target = wake_affine_idle(sys, cpu, prev_cpu, sync);
    if (profile.feat(Feature::WA_WEIGHT) && target == kNoCpu) {
      target = wake_affine_weight(sys, p, cpu, prev_cpu, sync, jiffies_now(this_rq), c);
      c.weighed = true;
    }
    new_cpu = target == cpu ? cpu : prev_cpu;
  }
  c.recent = p.recent_used_cpu;
  c.has_idle_cores = sys.llc_shared().has_idle_cores;
  const bool idle_wakee = profile.behaviour.wake_idle_wakee_skips_sched_idle && p.policy == Policy::idle;
  c.cpu = select_idle_sibling(sys, c.recent, c.has_idle_cores, prev_cpu, new_cpu, idle_wakee);
  if (c.cpu == kUnknownCpu) c.refusal = Refusal::sis_util_scan;
  return c;
}

}  // namespace

Refusal wake_cpu_refusal(const System& sys, int id, int from, bool sync) {
  return choose(sys, id, from, sync).refusal;
}

Refusal select_task_rq_fair_wake(System& sys, int id, int from, bool sync, int& chosen, bool& wide, bool& weighed) {
  const Choice c = choose(sys, id, from, sync);
  if (c.refusal != Refusal::none) return c.refusal;
  wide = c.wide;
  weighed = c.weighed;
  Rq& this_rq = sys.rq(static_cast<unsigned>(from));
  const int waker = this_rq.running();
  Task& p = *this_rq.task(id);
  const WakeCpuChoice told{id, from, p.cpu, c.cpu, sync, p.recent_used_cpu, sys.llc_shared().has_idle_cores};
  (waker >= 0 ? this_rq.task(waker)->wakee : this_rq.idle_wakee) = c.current;
  p.recent_used_cpu = c.recent;
  sys.llc_shared().has_idle_cores = c.has_idle_cores;
  c.h_loads.apply();
  chosen = c.cpu;
  // the answer, before the wake-up is performed (I-WAKECOUNT judges it there)
  this_rq.obs().on_wake_choice(told);
  return Refusal::none;
}

void update_idle_core(Rq& rq) {
  LlcShared* llc = rq.llc_shared;
  if (!llc || llc->smt < 2) return;  // the sched_smt_present static key is off
  // __update_idle_core(): nothing if an idle core is already remembered
  // (test_idle_cores()); else, if every other sibling is idle, remember one
  if (llc->has_idle_cores) return;
  const std::uint32_t siblings = smt_mask(*llc, rq.cpu);
  const auto& cpus = rq.possible_cpus();
  for (int cpu = 0; cpu < static_cast<int>(cpus.size()); ++cpu) {
    if (!in_mask(siblings, cpu) || cpu == rq.cpu) continue;
    if (!available_idle_cpu(*cpus[static_cast<std::size_t>(cpu)])) return;
  }
  llc->has_idle_cores = true;  // set_idle_cores(core, 1)
}

}  // namespace eevdf
