// The wake-up CPU choice (fair.c, select_task_rq_fair() and the tests it
// makes): the counters each test reads, exactly as the profile's
// kernel reads them, and the choice itself for a wake-up (WF_TTWU) as far as
// those counters decide it, with wake_affine_weight() (WA_WEIGHT) on the PELT
// loads of model/fair_pelt.cpp (on the v7.3 flat runqueue, which keeps none,
// a choice that reaches it is refused, as is one that SIS_UTIL's scan budget
// decides). Not modelled: fork and exec balancing (the slow path), energy-aware
// placement, clusters, core scheduling. SMT siblings are modelled when the
// scenario gives them (`smt N`): select_idle_smt(), select_idle_core() and
// sd_llc_shared->has_idle_cores with __update_idle_core().
#pragma once

#include "model/rq.hpp"

namespace eevdf {

class System;

// idle_cpu() (core.c): the CPU runs its idle task and has nothing queued
// (rq->nr_running == 0). Not modelled: rq->ttwu_pending (no remote wake-up
// queue), so a CPU with a wake-up in flight is never seen.
bool idle_cpu(const Rq& rq);
// available_idle_cpu(): idle_cpu() and not a preempted vCPU (bare metal).
bool available_idle_cpu(const Rq& rq);
// sched_idle_rq() (v5.4 onwards, unchanged through v7.3): every task the
// runqueue counts is SCHED_IDLE, and there is one:
// rq->nr_running == rq->cfs.h_nr_idle (idle_h_nr_running before v6.14) && rq->nr_running.
bool sched_idle_rq(const Rq& rq);
// sched_smt_active(): the sched_smt_present static key, which
// sched_cpu_activate() turns on when a CPU's SMT mask reaches two CPUs: on
// when the System has SMT siblings (LlcShared::smt > 1).
bool sched_smt_active(const System& sys);
// update_idle_core() (sched.h) when `rq`'s CPU switches to its idle task
// (set_next_task_idle(), idle.c): with sched_smt_present on,
// __update_idle_core() (fair.c, 6.12.118 through 7.0.0): unless
// has_idle_cores is already set, it is set when every other sibling of the
// CPU is available_idle_cpu(). Nothing for a lone runqueue or without SMT.
void update_idle_core(Rq& rq);
// The SMT_BUDDY_ASSIST RFC (not in any kernel; Feature::RFC_SMT_BUDDY_ASSIST,
// RFC_SMT_BUDDY_ASSIST_NR_RUNNING; docs/profiles.md, "What-if variants"):
// whether either form is on, and the count it reads of a target CPU to tell
// whether work is pending there: rq->cfs.h_nr_runnable (the corrected form:
// the fair tasks that can run, the running one included), or rq->nr_running
// (the rejected form: delayed, sleeping tasks and RT tasks included).
bool smt_buddy_assist(const Profile& profile);
unsigned smt_buddy_assist_count(const Rq& rq);
// The sync clause of wake_affine_idle(): a WF_SYNC waker is about to sleep,
// so its CPU counts as free when the waker is the only task the CPU runs.
// Before aa3ee4f0b754 (v6.16; 6.12.y backport): rq->nr_running == 1; since:
// rq->nr_running - cfs_h_nr_delayed(rq) == 1, the delayed (sleeping) tasks
// left out (Behaviour::sync_affine_counts_delayed).
bool wake_affine_idle_sync(const Rq& this_rq);

// select_task_rq_fair() for the wake-up of sleeping fair task p from CPU
// `from` (smp_processor_id(); `current` is the task running there, or the
// idle task of an idle CPU, which wakes from an interrupt), with WF_SYNC when
// `sync`, as 6.12.118 through 7.0.0 have it (the functions read in those trees
// are the same; the profiles differ only in wake_affine_idle()'s sync count).
// The topology: every online CPU (the profile's `cpus`) shares one last-level
// cache; SMT siblings only as the System gives them (System::set_smt(), the
// scenario's `smt N`: CPUs kN .. kN+N-1 are a core); the task may run on the modelled CPUs
// (p->cpus_ptr), so sd_llc_size is `cpus` and select_idle_cpu() scans the
// modelled ones. With SIS_UTIL the scan's budget, sd_llc_shared->nr_idle_scan,
// is what the load balancer's update_idle_cpu_scan() last computed from the
// LLC's PELT utilization, which the model does not keep: a choice it decides
// (an idle CPU in the scan) is refused (Refusal::sis_util_scan); one it cannot
// change (no idle CPU to find) is answered. With SMT, select_idle_cpu()'s
// scan for an idle core (has_idle_cores set) is refused likewise under SIS_UTIL:
// a budget of 0 skips it (model/wake_cpu.cpp), any other runs it whole.
// On success `chosen` is the CPU and record_wakee()'s and
// select_idle_sibling()'s memory (recent_used_cpu, has_idle_cores) and
// task_h_load()'s cache are updated as the kernel's, and the waking CPU's
// observer is told (Observer::on_wake_choice()); a choice that SIS_UTIL's
// budget decides (Refusal::sis_util_scan) is refused and changes nothing.
// `wide`: wake_wide() found the wake-up wide (want_affine false: the fast path
// starts from prev); `weighed`: wake_affine_weight() was asked; measures of
// what inputs reach (the campaigns count them).
Refusal select_task_rq_fair_wake(System& sys, int task, int from, bool sync, int& chosen, bool& wide,
                                 bool& weighed);
// What select_task_rq_fair_wake() would answer, without changing anything.
Refusal wake_cpu_refusal(const System& sys, int task, int from, bool sync);

}  // namespace eevdf
