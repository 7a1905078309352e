// The wake-up CPU choice (fair.c, select_task_rq_fair() and the tests it
// makes; issue 26): the counters each test reads, exactly as the profile's
// kernel reads them, and the choice itself for a wake-up (WF_TTWU) as far as
// those counters decide it. Not modelled: wake_affine_weight() (WA_WEIGHT
// compares PELT loads, which the model does not keep; a choice that reaches
// it is refused, as is one that SIS_UTIL's scan budget decides), fork and exec balancing (the slow path), energy-aware
// placement, SMT siblings and clusters, core scheduling.
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
// cache and no SMT siblings; the task may run on the modelled CPUs
// (p->cpus_ptr), so sd_llc_size is `cpus` and select_idle_cpu() scans the
// modelled ones. With SIS_UTIL the scan's budget, sd_llc_shared->nr_idle_scan,
// is what the load balancer's update_idle_cpu_scan() last computed from the
// LLC's PELT utilization, which the model does not keep: a choice it decides
// (an idle CPU in the scan) is refused (Refusal::sis_util_scan); one it cannot
// change (no idle CPU to find) is answered.
// On success `chosen` is the CPU and record_wakee()'s and
// select_idle_sibling()'s memory is updated as the kernel's; a choice that
// reaches wake_affine_weight() (Refusal::wake_affine_weight) or that SIS_UTIL's
// budget decides (Refusal::sis_util_scan) is refused and changes nothing.
Refusal select_task_rq_fair_wake(System& sys, int task, int from, bool sync, int& chosen);
// What select_task_rq_fair_wake() would answer, without changing anything.
Refusal wake_cpu_refusal(const System& sys, int task, int from, bool sync);
// Whether wake_wide() would find that wake-up wide (the waker's memory as
// record_wakee() would leave it), so that want_affine is false and the fast
// path starts from prev; changes nothing. A measure of what inputs reach (the
// campaigns count it), not a refusal.
bool wake_cpu_wide(const System& sys, int task, int from);

}  // namespace eevdf
