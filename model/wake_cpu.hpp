// The wake-up CPU choice's view of one CPU (fair.c, select_task_rq_fair() and
// the tests it makes; issue 26): the counters each test reads, exactly as the
// profile's kernel reads them. Only the tests that read the fair class's
// counters are modelled; the choice itself (wake_affine_weight(), which needs
// PELT, and select_idle_sibling()'s scan) is not: a `wake` names its CPU.
#pragma once

#include "model/rq.hpp"

namespace eevdf {

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

}  // namespace eevdf
