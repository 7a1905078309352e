// Built instead of kernel_backend.cpp when no kernel tree was given at build
// time: the backend says it is absent, and the executor refuses to use it.
#include <stdexcept>

#include "kernelsrc/kernel_backend.hpp"

namespace eevdf::kernelsrc {

bool available() { return false; }
std::string kernel_version() { return "none (no kernel tree at build time: cmake -DEEVDF_KERNEL_SRC=DIR)"; }
std::string refusal(const Profile&, unsigned) { return "this build has no kernel backend"; }
KernelRelease tree_release() { return {}; }
std::string judge() { return {}; }
bool smp() { return false; }
bool bandwidth() { return false; }
std::string bandwidth_refusal() { return "this build has no kernel backend"; }
bool debug_reader_unlocked() { return false; }
std::vector<std::string> applied_fixes() { return {}; }

KernelBackend::KernelBackend(const Profile& profile, unsigned, unsigned) : profile_(profile) {
  throw std::runtime_error("this build has no kernel backend (cmake -DEEVDF_KERNEL_SRC=DIR)");
}
KernelBackend::~KernelBackend() = default;
std::vector<KernelWarning> KernelBackend::take_warnings() { return {}; }
Task* KernelBackend::task(int) { return nullptr; }
Rq& KernelBackend::rq_of(int) { return mirror_->rq(0); }
int KernelBackend::create_task(std::string_view, int, Policy, u64, int) { return -1; }
int KernelBackend::fork_task(int, std::string_view, bool) { return -1; }
Refusal KernelBackend::wake(int, bool, int, int) { return Refusal::bad_argument; }
Refusal KernelBackend::sleep(int) { return Refusal::bad_argument; }
Refusal KernelBackend::yield(int) { return Refusal::bad_argument; }
Refusal KernelBackend::return_to_user(int) { return Refusal::bad_argument; }
Refusal KernelBackend::exit_task(int) { return Refusal::bad_argument; }
Refusal KernelBackend::set_nice(int, int) { return Refusal::bad_argument; }
Refusal KernelBackend::set_policy(int, Policy) { return Refusal::bad_argument; }
Refusal KernelBackend::set_slice(int, u64) { return Refusal::bad_argument; }
Refusal KernelBackend::migrate(int, int) { return Refusal::bad_argument; }
int KernelBackend::create_group(std::string_view, int, u64) { return -1; }
Refusal KernelBackend::set_group_shares(int, u64) { return Refusal::bad_argument; }
Refusal KernelBackend::set_group_idle(int, bool) { return Refusal::bad_argument; }
Refusal KernelBackend::move_task(int, int) { return Refusal::bad_argument; }
Refusal KernelBackend::destroy_group(int) { return Refusal::bad_argument; }
Refusal KernelBackend::write_base_slice_ns(u64) { return Refusal::bad_argument; }
Refusal KernelBackend::set_group_bandwidth(int, u64, u64, u64) { return Refusal::bad_argument; }
u64 KernelBackend::cpu_max_burst(int) const { return 0; }
bool KernelBackend::fire_due_timers(u64) { return false; }
void KernelBackend::run_csd(int) {}
void KernelBackend::run(u64) {}
void KernelBackend::tick() {}
void KernelBackend::tick_nopreempt() {}
Refusal KernelBackend::run_notick(u64) { return Refusal::bad_argument; }
void KernelBackend::tick_after(u64) {}
void KernelBackend::schedule() {}
Refusal KernelBackend::debug_read(int, int, bool) { return Refusal::bad_argument; }
void KernelBackend::store_debug_reads(std::size_t) {}
void KernelBackend::refresh(Handback, bool) {}
void KernelBackend::test_write_unmarked(int) {}

}  // namespace eevdf::kernelsrc

// The tree's PELT arithmetic (kernelsrc/kernel_pelt.hpp): absent too.
#include "kernelsrc/kernel_pelt.hpp"

namespace eevdf::kernelsrc {

bool pelt_available() { return false; }
bool tree_update_load_avg_se(u64, SchedAvg&, u64, bool, bool, bool, u64, bool, bool) { return false; }
bool tree_update_load_avg_blocked_se(u64, SchedAvg&, u64) { return false; }
bool tree_update_load_avg_cfs_rq(u64, SchedAvg&, u64, u32, u32, bool) { return false; }
bool tree_update_rt_rq_load_avg(u64, SchedAvg&, bool) { return false; }
void tree_update_rq_clock_pelt(PeltClock&, s64, bool, u64, u64, u64, u64) {}
void tree_update_idle_rq_clock_pelt(PeltClock&, u32, u32, u32, u64, u64) {}
u64 tree_rq_clock_pelt(const PeltClock&) { return 0; }

}  // namespace eevdf::kernelsrc
