#include "model/wake_cpu.hpp"

namespace eevdf {

bool idle_cpu(const Rq& rq) { return rq.running() < 0 && rq.nr_running == 0; }

bool available_idle_cpu(const Rq& rq) { return idle_cpu(rq); }

bool sched_idle_rq(const Rq& rq) { return rq.nr_running == rq.cfs.h_nr_idle && rq.nr_running != 0; }

bool wake_affine_idle_sync(const Rq& this_rq) {
  if (this_rq.profile().behaviour.sync_affine_counts_delayed) return this_rq.nr_running == 1;
  // cfs_h_nr_delayed(): h_nr_queued - h_nr_runnable (6.12.y keeps h_nr_delayed itself, equal to it)
  const unsigned delayed = this_rq.cfs.h_nr_queued - this_rq.cfs.h_nr_runnable;
  return this_rq.nr_running - delayed == 1;
}

}  // namespace eevdf
