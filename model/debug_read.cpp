// The sched debugfs reader (kernel/sched/debug.c print_cfs_rq(), 6.12.118
// lines 809-842): it takes the rq lock for the leftmost/rightmost vruntime and
// zero_vruntime, drops it, and then calls avg_vruntime(cfs_rq) to print V.
// Since the stable backport of b3d99f43c72b ("sched/fair: Fix zero_vruntime
// tracking"), avg_vruntime() ends with update_zero_vruntime(), which writes
// cfs_rq->avg_vruntime and cfs_rq->zero_vruntime: without the lock, and
// without READ_ONCE/WRITE_ONCE, the compiler may load avg_vruntime, avg_load,
// zero_vruntime and curr once and store the two results at the end, so a
// scheduler operation on that CPU between the loads and the stores is lost
// (its own writes to the two fields are overwritten with values computed from
// the state before it). e08d007f9d81 ("sched/debug: Fix avg_vruntime()
// usage") moved the call under the lock in mainline; 6.12.y lacks it.
#include "model/fair.hpp"
#include "model/system.hpp"

namespace eevdf {

bool debug_read_races(const Profile& profile) {
  const KeyBase k = profile.behaviour.key_base;
  return profile.behaviour.debug_reader_unlocked_rmw &&
         (k == KeyBase::zero_at_avg_tick || k == KeyBase::zero_at_avg_deadline);
}

Refusal System::debug_read(int cpu, int group, bool racing) {
  if (cpu < 0) cpu = 0;
  if (static_cast<unsigned>(cpu) >= size()) return Refusal::bad_argument;
  Rq& r = rq(static_cast<unsigned>(cpu));
  if (r.oops) return Refusal::kernel_oopsed;
  if (group >= 0 && static_cast<std::size_t>(group) >= r.groups.size()) return Refusal::no_such_group;
  CfsRq& q = r.group_queue(group);
  if (!racing || !debug_read_races(r.profile())) {
    // the reader alone (under the lock, or nothing to race): avg_vruntime()
    // re-bases where the kernel's does, reads only where it does not
    avg_vruntime(q);
    return Refusal::none;
  }
  // the loads and the arithmetic now, on the state before the next operation;
  // the queue keeps its fields until the stores
  DebugReadStore st{cpu, group, 0, 0};
  debug_read_load(q, st.sum_w_vruntime, st.zero_vruntime);
  pending_reads_.push_back(st);
  return Refusal::none;
}

void debug_read_load(CfsRq& q, s64& sum, u64& zero) {
  const s64 old_sum = q.sum_w_vruntime;
  const u64 old_zero = q.zero_vruntime;
  avg_vruntime(q);
  sum = q.sum_w_vruntime;
  zero = q.zero_vruntime;
  q.sum_w_vruntime = old_sum;
  q.zero_vruntime = old_zero;
}

void System::store_debug_reads(std::size_t n) {
  if (n > pending_reads_.size()) n = pending_reads_.size();
  for (std::size_t i = 0; i < n; ++i) {
    const DebugReadStore& st = pending_reads_[i];
    Rq& r = rq(static_cast<unsigned>(st.cpu));
    CfsRq& q = r.group_queue(st.group);
    q.sum_w_vruntime = st.sum_w_vruntime;
    q.zero_vruntime = st.zero_vruntime;
  }
  pending_reads_.erase(pending_reads_.begin(), pending_reads_.begin() + static_cast<long>(n));
}

}  // namespace eevdf
