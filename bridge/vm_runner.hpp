// `eevdf-check vm FILE.scn`: a scenario replayed on a booted kernel, Debian's
// 6.12.118 cloud kernel in QEMU (docs/bridges.md, "The QEMU runner"). The host
// turns the scenario into a plan for the static driver bridge/vm/driver.c,
// scripts/vm-run.sh boots the machine with it, and the kernel's values of every
// step (read from debugfs sched/debug and /proc/PID/sched) are printed beside
// the model's run of the same scenario. Real time is not ours to set: the
// kernel ticks at its HZ (250) and its clock moves while the driver works, so
// values are compared in shape (weights, d - v, V - v, eligibility, the task on
// the CPU), not bit for bit.
#pragma once

#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "scenario/executor.hpp"
#include "scenario/scenario.hpp"
#include "model/profile.hpp"

namespace eevdf::bridge {

// The driver's plan of a scenario: one line a driver operation, "@K op args"
// with K the 1-based index of the scenario's operation (0: the setup lines).
struct VmPlan {
  std::string text;
  std::vector<std::string> caveats;  // what does not map exactly, line by line
};
// nullopt and `error` set when the scenario cannot run on the VM (several runqueues, migrate).
std::optional<VmPlan> vm_plan(const scn::Scenario& s, const Profile& profile, std::string& error);

// One task as the kernel printed it after a step (sched/debug and /proc/PID/sched).
struct KernelTask {
  std::string name;
  bool alive = false, present = false, running = false, sleeping = true, eligible = false, custom_slice = false;
  char state = '?';
  int cpu = -1;
  std::string group = "/";  // the task group's path (the root: "/")
  s64 vruntime = 0, deadline = 0, slice = 0, sum_exec = 0, weight = 0;
};
struct KernelStep {
  int op = -1;  // index of the scenario operation (-1: setup)
  std::string op_text, curr;
  s64 t_ns = 0, op_ns = 0, avg_vruntime = 0;  // avg_vruntime: the root cfs_rq's V
  std::map<std::string, s64> group_avg_vruntime;  // V of each cfs_rq on CPU 1, by task-group path
  std::map<std::string, s64> group_throttle_count;  // each cfs_rq's throttle_count (CONFIG_CFS_BANDWIDTH)
  long long nr_running = 0;
  std::vector<KernelTask> tasks;
};
struct KernelRun {
  std::string release, features, cmdline;
  s64 base_slice_ns = 0;
  std::vector<KernelStep> steps;
  std::vector<std::string> errors;  // the driver's "error" lines
  bool done = false;
};
KernelRun parse_vm_results(std::istream& in);

// What the host checks on the kernel's values: I-DL (0 <= d - v <= one
// virtual slice of the largest slice seen, for every queued task; one tick of
// the running task's virtual time allowed for a read that a tick on CPU 1
// interrupts: sched/debug is read without the runqueue lock), I-SLICE (a
// slice is base_slice, or a custom one in 0.1 .. 100 ms) and I-IDLE (after a
// `run` or `tick` step that took at least two ticks, CPU 1 runs its idle task
// while a task of the scenario is runnable there, not running, and no queue
// above it is throttled: nothing asked the CPU to reschedule).
struct KernelFinding {
  std::string id;
  int op = -1;
  std::string what;
};
std::vector<KernelFinding> check_kernel(const KernelRun& run, unsigned hz, s64 base_slice);

struct VmOptions {
  std::string file;
  // the kernel to boot: Debian's 6.12.118 cloud kernel (the default), a
  // bzImage, or one built from a tree by scripts/vm-kernel.sh with the
  // patches and this project's fixes (kernelsrc/fixes.json) applied
  std::string kernel_image;
  std::string kernel_tree;
  std::vector<std::string> patches, fixes;
  std::string profile;    // the model's profile; default: the judge of the booted release, else the scenario's
  std::string out_dir;    // default: CACHE/runs/STEM
  std::string cache_dir;  // default: $EEVDF_VM_CACHE, else the build directory's vm/
  std::string script;     // default: scripts/vm-run.sh of the source tree
  std::string append;     // more kernel command line
  int timeout_s = 0;      // default: 90 s + the scenario's time
  bool plan_only = false; // print the plan and stop
  std::string results;    // a recorded results.jsonl: compare it with the model, boot nothing
};
// The release a bzImage says it is (its setup header's kernel_version
// string, e.g. "6.12.118+deb12-cloud-amd64 (debian-kernel@...) #1 SMP ..."):
// the first word, or "" when FILE is not a bzImage.
std::string bzimage_release(const std::string& file);

// The command: 0 the kernel agrees with the scenario's expectations on what it
// can check, 1 it does not, 2 bad input, 3 kernel panic, 4 hang, 5 the driver
// stopped early, 77 QEMU or the kernel package missing (skip).
int run_vm(const VmOptions& options, std::ostream& out, std::ostream& err);

}  // namespace eevdf::bridge
