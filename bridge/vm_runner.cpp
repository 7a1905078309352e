#include "bridge/vm_runner.hpp"

#include <fmt/format.h>
#include <sys/wait.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <istream>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
#include <set>
#include <sstream>
#include <string_view>
#include <variant>

#include "bridge/unexported.hpp"
#include "scenario/run_settings.hpp"
#include "invariants/ids.hpp"
#include "scenario/scenario_parse.hpp"
#include "scenario/scenario_print.hpp"
#include "model/weights.hpp"

#ifndef EEVDF_SOURCE_DIR
#define EEVDF_SOURCE_DIR "."
#endif
#ifndef EEVDF_BUILD_DIR
#define EEVDF_BUILD_DIR "build"
#endif

namespace eevdf::bridge {

namespace {

const char* policy_word(Policy p) {
  switch (p) {
    case Policy::batch: return "batch";
    case Policy::idle: return "idle";
    default: return "normal";
  }
}

struct TaskParams {
  int nice = 0;
  Policy policy = Policy::normal;
  s64 slice = 0;
};

std::string quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

s64 i64(const nlohmann::json& j, const char* key, s64 fallback = 0) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<s64>() : fallback;
}
bool flag(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && ((it->is_boolean() && it->get<bool>()) || (it->is_number() && it->get<int>() != 0));
}

// calc_delta_fair(delta) for a weight (scaled, NICE_0_LOAD = 2^20)
s64 virt(s64 delta, s64 weight) {
  if (weight <= 0) return 0;
  return static_cast<s64>(static_cast<i128>(delta) * static_cast<i128>(kNice0Load) / weight);
}

std::string num_or_dash(bool have, s64 v) { return have ? std::to_string(v) : "-"; }

}  // namespace

std::optional<VmPlan> vm_plan(const scn::Scenario& s, const Profile& profile, std::string& error) {
  error = unexported_op(s, "the VM runner");
  if (!error.empty()) return std::nullopt;
  if (s.runqueues > 1) {
    error = "the VM runner replays one CPU (the tasks run on CPU 1 of the machine); this scenario has 'runqueues " +
            std::to_string(s.runqueues) + "'";
    return std::nullopt;
  }
  VmPlan plan;
  std::ostringstream o;
  o << "# plan of " << (s.title.empty() ? "a scenario" : s.title) << "\n";
  o << "@0 base_slice " << profile.sysctl_sched_base_slice() << "\n";
  if (!s.features.empty()) {
    std::string kernel_features;
    for (std::size_t a = 0, b; a <= s.features.size(); a = b + 1) {
      b = s.features.find(',', a);
      if (b == std::string::npos) b = s.features.size();
      const std::string item = s.features.substr(a, b - a);
      if (item.rfind("cgroup_mode=", 0) == 0) {
        plan.caveats.push_back("features " + item + ": v7.3's knob; 6.12 has none (not applied)");
        continue;
      }
      kernel_features += (kernel_features.empty() ? "" : ",") + item;
    }
    if (!kernel_features.empty()) o << "@0 features " << kernel_features << "\n";
  }
  if (profile.tunables.hz != 250)
    plan.caveats.push_back(fmt::format("the model ticks at hz {}, the kernel at 250 (write 'hz 250' for the same ticks)",
                                       profile.tunables.hz));
  if (!profile.bug.empty()) plan.caveats.push_back("bug switch " + profile.bug + " exists in the model only");
  plan.caveats.push_back(fmt::format("base slice: the model's {} ns ('cpus {}') is written to debugfs "
                                     "sched/base_slice_ns before the first task",
                                     profile.sysctl_sched_base_slice(), profile.tunables.ncpus));
  std::map<std::string, TaskParams> params;
  bool created_note = false;
  bool quota_note = false;
  for (std::size_t k = 0; k < s.ops.size(); ++k) {
    const scn::Op& op = s.ops[k];
    const std::string at = "@" + std::to_string(k + 1) + " ";
    const std::string where = op.line ? fmt::format("line {}: ", op.line) : fmt::format("operation {}: ", k + 1);
    using K = scn::OpKind;
    switch (op.kind) {
      case K::create:
      case K::fork: {
        TaskParams p;
        std::string name = op.task;
        if (op.kind == K::create) {
          p = {op.nice_level(), op.policy, op.slice};
        } else {
          p = params[op.task];
          name = op.child;
          plan.caveats.push_back(where + scn::print_op(op) + ": a fresh task with the parent's nice, policy and slice "
                                 "stands in (the driver's fork() copies the driver, not " + op.task + ")");
        }
        params[name] = p;
        o << at << "task " << name << " " << p.nice << " " << policy_word(p.policy) << " " << p.slice << "\n";
        if (!op.group.empty() && op.group != "root") o << at << "move " << name << " " << op.group << "\n";
        if (!created_note) {
          created_note = true;
          plan.caveats.push_back(
              where + "a task is fork()ed by the driver and blocks at once on CPU 0, then is pinned to CPU 1 and "
                      "given its policy, nice and slice while asleep: TASK_NEW is not reachable from user space, so "
                      "its first 'wake' is try_to_wake_up() (placed with the lag of its first moments, deadline "
                      "v + vslice), not wake_up_new_task() (zero lag, PLACE_DEADLINE_INITIAL's v + vslice/2)");
        }
        break;
      }
      case K::wake:
        if (op.sync) plan.caveats.push_back(where + "wake " + op.task + " sync: futex_wake() passes no WF_SYNC");
        o << at << "wake " << op.task << "\n";
        break;
      case K::sleep: o << at << "sleep " << op.task << "\n"; break;
      case K::yield: o << at << "yield " << op.task << "\n"; break;
      case K::exit: o << at << "exit " << op.task << "\n"; break;
      case K::nice:
        params[op.task].nice = op.nice_level();
        o << at << "nice " << op.task << " " << op.nice_level() << "\n";
        break;
      case K::policy:
        params[op.task].policy = op.policy;
        o << at << "policy " << op.task << " " << policy_word(op.policy) << "\n";
        break;
      case K::slice:
        params[op.task].slice = op.value;
        o << at << "slice " << op.task << " " << op.slice_ns() << "\n";
        break;
      case K::run: o << at << "run " << op.duration_ns() << "\n"; break;
      case K::tick: o << at << "tick\n"; break;
      case K::run_notick:
      case K::tick_after:
        error = where + scn::print_op(op) + ": the VM runner replays time on a ticking CPU (a nohz_full CPU or a "
                                            "tick of another length is not reachable from its driver)";
        return std::nullopt;
      case K::schedule: o << at << "schedule\n"; break;
      case K::return_to_user:  // the VM's tasks return to user space on their own, at times the driver cannot choose
        error = where + scn::print_op(op) + ": the VM runner cannot choose when a task returns to user space";
        return std::nullopt;
      case K::expect_curr:
      case K::expect_field:
      case K::expect_queue: break;  // compared on the host after the previous operation
      case K::group_create:
        o << at << "group " << op.group << " " << (op.value > 0 ? op.value : scn::kDefaultShares) << " "
          << (op.parent.empty() ? "-" : op.parent) << "\n";
        break;
      case K::move: o << at << "move " << op.task << " " << (op.group.empty() ? "root" : op.group) << "\n"; break;
      case K::shares: o << at << "shares " << op.group << " " << op.shares() << "\n"; break;
      case K::group_idle: o << at << "group_idle " << op.group << " " << (op.idle() ? 1 : 0) << "\n"; break;
      case K::group_destroy: o << at << "group_destroy " << op.group << "\n"; break;  // rmdir
      case K::quota: {  // cgroup v1's cpu.cfs_*_us files, in microseconds
        const auto us = [](s64 ns) { return ns % 1000 == 0 ? std::to_string(ns / 1000) : std::string(); };
        const std::string quota = op.quota_max() ? "max" : us(op.value);
        const std::string period = op.period > 0 ? us(op.period) : "-";
        const std::string burst = op.burst >= 0 ? us(op.burst) : "-";
        if (quota.empty() || period.empty() || burst.empty()) {
          error = where + scn::print_op(op) + ": cgroup v1's cpu.cfs_quota_us, cpu.cfs_period_us and "
                                              "cpu.cfs_burst_us take microseconds; give whole microseconds";
          return std::nullopt;
        }
        o << at << "quota " << op.group << " " << quota << " " << period << " " << burst << "\n";
        if (!quota_note) {
          quota_note = true;
          plan.caveats.push_back(
              where + "cpu.max is written as cgroup v1 has it (the driver mounts the v1 cpu controller): "
                      "cpu.cfs_burst_us 0 (with a burst), cpu.cfs_period_us, cpu.cfs_quota_us, then "
                      "cpu.cfs_burst_us, one tg_set_cfs_bandwidth() each (each sets every queue's runtime to 0 and "
                      "puts a throttled one back); v1's hierarchy rule (a child's quota at most its parent's) "
                      "refuses what v2's, the model's, may take; the period timer's first expiry is not the "
                      "model's 0 phase");
        }
        break;
      }
      case K::base_slice:  // the driver could write it ("base_slice NS"), but check_kernel() holds every task
                           // to the base slice at boot: a write mid-run would read as findings
        error = where + scn::print_op(op) + ": the VM runner's slice check compares every task with the base slice "
                                            "written before the first task; a base_slice_ns write mid-run is not replayed";
        return std::nullopt;
      case K::migrate:
        error = where + "migrate: the VM runner replays one CPU";
        return std::nullopt;
      case K::debug_read:  // the driver reads sched/debug after every operation: print_cfs_rq() runs anyway
        plan.caveats.push_back(where + scn::print_op(op) +
                               ": not replayed as such: the driver reads /sys/kernel/debug/sched/debug after every "
                               "operation (each read runs print_cfs_rq()'s avg_vruntime() on every queue); whether "
                               "a read races an operation is a timing window a plan cannot choose");
        break;
    }
  }
  plan.text = o.str();
  return plan;
}

KernelRun parse_vm_results(std::istream& in) {
  KernelRun run;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] != '{') continue;
    const auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.contains("type")) continue;
    const std::string type = j["type"].get<std::string>();
    if (type == "hello") {
      run.release = j.value("release", "");
      run.features = j.value("features", "");
      run.cmdline = j.value("cmdline", "");
      run.base_slice_ns = i64(j, "base_slice_ns");
    } else if (type == "done") {
      run.done = true;
    } else if (type == "error") {
      run.errors.push_back(j.value("what", "") + ": " + j.value("detail", ""));
    } else if (type == "step") {
      KernelStep st;
      st.op = static_cast<int>(i64(j, "line")) - 1;
      st.op_text = j.value("op", "");
      st.curr = j.value("curr", "?");
      st.t_ns = i64(j, "t_ns");
      st.op_ns = i64(j, "op_ns");
      if (j.contains("cfs") && j["cfs"].is_object())
        for (const auto& [path, q] : j["cfs"].items()) {
          st.group_avg_vruntime[path] = i64(q, "avg_vruntime");
          st.group_throttle_count[path] = i64(q, "throttle_count");
        }
      if (j.contains("cfs") && j["cfs"].contains("/")) {
        st.avg_vruntime = i64(j["cfs"]["/"], "avg_vruntime");
        st.nr_running = i64(j["cfs"]["/"], "nr_running");
      }
      if (j.contains("tasks"))
        for (const auto& [name, t] : j["tasks"].items()) {
          KernelTask kt;
          kt.name = name;
          kt.alive = flag(t, "alive");
          kt.present = t.contains("vruntime");
          kt.running = flag(t, "running");
          kt.sleeping = flag(t, "sleeping");
          kt.eligible = flag(t, "eligible");
          kt.custom_slice = flag(t, "custom_slice");
          const std::string state = t.value("state", "?");
          kt.state = state.empty() ? '?' : state[0];
          kt.cpu = static_cast<int>(i64(t, "cpu", -1));
          kt.vruntime = i64(t, "vruntime");
          kt.deadline = i64(t, "deadline");
          kt.slice = i64(t, "slice");
          kt.sum_exec = i64(t, "sum_exec");
          kt.weight = i64(t, "weight");
          kt.group = t.value("group", "/");
          st.tasks.push_back(kt);
        }
      run.steps.push_back(std::move(st));
    }
  }
  return run;
}

constexpr int kVmTaskCpu = 1;  // the driver's TASK_CPU: the scenario's tasks run there

std::vector<KernelFinding> check_kernel(const KernelRun& run, unsigned hz, s64 base_slice) {
  std::vector<KernelFinding> out;
  std::set<std::pair<std::string, std::string>> seen;  // (id, task): the first step only
  const s64 tick = (1000000000LL + hz / 2) / hz;
  s64 max_slice = 0;
  for (const KernelStep& st : run.steps) {
    for (const KernelTask& t : st.tasks)
      if (t.present && t.state == 'R' && t.slice > max_slice) max_slice = t.slice;
    for (const KernelTask& t : st.tasks) {
      if (!t.alive || !t.present || t.state != 'R' || t.weight <= 0) continue;  // queued tasks only
      const s64 ahead = t.deadline - t.vruntime;
      const s64 vslice = virt(max_slice, t.weight);
      const s64 slack = t.running ? virt(tick, t.weight) : 0;  // a tick between the two reads
      if ((ahead < -slack || ahead > vslice + 2 + slack) && seen.insert({"I-DL", t.name}).second)
        out.push_back({"I-DL", st.op,
                       fmt::format("the deadline of {} lies {} ns (virtual) after its vruntime; one virtual slice at "
                                   "its weight {} is {} (slice {} ns){}",
                                   t.name, ahead, t.weight, vslice, max_slice,
                                   slack ? fmt::format(", + {} for a tick while it runs", slack) : "")});
      const bool slice_ok = t.custom_slice ? (t.slice >= 100000 && t.slice <= 100000000) : t.slice == base_slice;
      if (!slice_ok && seen.insert({"I-SLICE", t.name}).second)
        out.push_back({"I-SLICE", st.op,
                       fmt::format("{}'s slice is {} ns{} (base slice {} ns)", t.name, t.slice,
                                   t.custom_slice ? " (custom)" : "", base_slice)});
    }
    // I-IDLE: a step long enough for any pending reschedule to have happened
    const bool waited = (st.op_text.rfind("run", 0) == 0 || st.op_text.rfind("tick", 0) == 0) && st.op_ns >= 2 * tick;
    if (waited && st.curr == "idle")
      for (const KernelTask& t : st.tasks) {
        if (!t.alive || !t.present || t.state != 'R' || t.running || t.cpu != kVmTaskCpu) continue;
        const auto q = st.group_throttle_count.find(t.group);
        if (q == st.group_throttle_count.end() || q->second != 0) continue;  // its queue unread, or throttled
        if (seen.insert({"I-IDLE", t.name}).second)
          out.push_back({"I-IDLE", st.op,
                         fmt::format("CPU {} runs its idle task after a step of {:.1f} ms while {} is runnable "
                                     "there, queued in {} (throttle_count 0)",
                                     kVmTaskCpu, static_cast<double>(st.op_ns) / 1e6, t.name, t.group)});
      }
  }
  return out;
}

namespace {

const std::set<std::string> kKernelChecks = {"I-DL", "I-SLICE", "I-IDLE"};

std::string op_label(const scn::Scenario& s, int op) {
  if (op < 0 || op >= static_cast<int>(s.ops.size())) return "setup";
  const scn::Op& o = s.ops[static_cast<std::size_t>(op)];
  return fmt::format("line {} ({})", o.line, scn::print_op(o));
}

void print_side_by_side(const scn::Scenario& s, const scn::ExecResult& model, const KernelRun& kernel,
                        std::ostream& out) {
  std::map<int, const scn::StepTrace*> mstep;
  for (const auto& t : model.trace) mstep[t.op_index] = &t;
  std::map<int, const KernelStep*> kstep;
  for (const auto& st : kernel.steps) kstep[st.op] = &st;
  out << "Each operation: the task on the CPU, then per task the model's value | the kernel's.\n"
         "d-v: deadline - vruntime, V-v: avg_vruntime - vruntime (virtual ns; the V of the task's own queue, "
         "the model's for root tasks only); exec: the kernel's sum_exec_runtime.\n";
  const KernelStep* last_k = nullptr;
  const scn::StepTrace* last_m = nullptr;
  std::map<std::string, std::string> model_group;  // task -> its group ("" root): the model's V is the root queue's
  for (std::size_t k = 0; k < s.ops.size(); ++k) {
    const scn::Op& op = s.ops[k];
    const int idx = static_cast<int>(k);
    if (op.kind == scn::OpKind::create || op.kind == scn::OpKind::move)
      model_group[op.task] = op.group == "root" ? "" : op.group;
    if (op.kind == scn::OpKind::fork) model_group[op.child] = model_group[op.task];
    if (op.kind == scn::OpKind::expect_curr) {
      const std::string want = op.task;
      const std::string m = last_m ? last_m->curr : "?";
      const std::string kc = last_k ? last_k->curr : "?";
      out << fmt::format("  line {:>3}  {:<28} model {} ({}), kernel {} ({})\n", op.line, scn::print_op(op), m,
                         m == want ? "holds" : "fails", kc, kc == want ? "holds" : "differs");
      continue;
    }
    if (op.kind == scn::OpKind::expect_field || op.kind == scn::OpKind::expect_queue) {
      out << fmt::format("  line {:>3}  {:<28} (a field of the model; not compared: the kernel's absolute values differ)\n",
                         op.line, scn::print_op(op));
      continue;
    }
    const auto mi = mstep.find(idx);
    const auto ki = kstep.find(idx);
    const scn::StepTrace* m = mi == mstep.end() ? nullptr : mi->second;
    const KernelStep* ks = ki == kstep.end() ? nullptr : ki->second;
    if (m) last_m = m;
    if (ks) last_k = ks;
    out << fmt::format("line {:>3}  {:<28} curr {} | {}{}\n", op.line, scn::print_op(op), m ? m->curr : "-",
                       ks ? ks->curr : "-",
                       ks ? fmt::format("   [kernel t={:.3f} s, step took {:.1f} ms]", static_cast<double>(ks->t_ns) / 1e9,
                                        static_cast<double>(ks->op_ns) / 1e6)
                          : "");
    std::vector<std::string> names;
    if (m)
      for (const auto& e : m->tasks) names.push_back(e.task);
    if (ks)
      for (const auto& t : ks->tasks)
        if (std::find(names.begin(), names.end(), t.name) == names.end()) names.push_back(t.name);
    for (const std::string& name : names) {
      const inv::EntitySnapshot* me = nullptr;
      std::string mstate = "-";
      if (m)
        for (std::size_t i = 0; i < m->tasks.size(); ++i)
          if (m->tasks[i].task == name) me = &m->tasks[i], mstate = m->task_state[i];
      const KernelTask* kt = nullptr;
      if (ks)
        for (const auto& t : ks->tasks)
          if (t.name == name) kt = &t;
      const bool kq = kt && kt->present && kt->alive;
      const std::string kstate = !kt ? "-" : !kt->alive ? "dead" : kt->running ? "running" : kt->state == 'R' ? "queued" : "sleeping";
      const bool mlive = me && mstate != "new" && mstate != "dead";
      const bool mroot = model_group[name].empty();
      s64 kv = 0;
      bool kvq = false;
      if (kq && ks && kt->state == 'R')
        if (const auto g = ks->group_avg_vruntime.find(kt->group); g != ks->group_avg_vruntime.end())
          kv = g->second - kt->vruntime, kvq = true;
      out << fmt::format(
          "    {:<6} {:>8}|{:<8} w {:>8}|{:<8} d-v {:>10}|{:<10} V-v {:>11}|{:<11} elig {}|{} exec {}\n", name,
          mstate, kstate, num_or_dash(me != nullptr, me ? static_cast<s64>(me->weight) : 0),
          num_or_dash(kq, kq ? kt->weight : 0),
          num_or_dash(mlive, me ? vruntime_diff(me->deadline, me->vruntime) : 0),
          num_or_dash(kq, kq ? kt->deadline - kt->vruntime : 0),
          num_or_dash(mlive && m && mroot, me && m ? vruntime_diff(m->avg_vruntime, me->vruntime) : 0),
          num_or_dash(kvq, kv), mlive ? (me->eligible ? "E" : "N") : "-",
          kq ? (kt->eligible ? "E" : "N") : "-",
          kq ? fmt::format("{:.3f} ms", static_cast<double>(kt->sum_exec) / 1e6) : std::string("-"));
    }
  }
}

std::string default_cache() {
  if (const char* env = std::getenv("EEVDF_VM_CACHE"); env && *env) return env;
  return std::string(EEVDF_BUILD_DIR) + "/vm";
}

}  // namespace

namespace {
int report(const scn::Scenario& s, const Profile& p, const VmPlan& plan, const scn::ExecResult& model,
           const KernelRun& kernel, int rc, std::ostream& out);
}  // namespace

std::string bzimage_release(const std::string& file) {
  std::ifstream f(file, std::ios::binary);
  std::string head(0x10000, '\0');
  f.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(f.gcount()));
  // the x86 boot protocol's setup header: "HdrS" at 0x202, kernel_version (a
  // pointer less 0x200) at 0x20e
  if (head.size() < 0x210 || head.compare(0x202, 4, "HdrS") != 0) return "";
  const auto at = 0x200 + static_cast<std::size_t>(static_cast<unsigned char>(head[0x20e]) |
                                                   static_cast<unsigned char>(head[0x20f]) << 8);
  if (at >= head.size()) return "";
  const auto end = head.find_first_of(std::string_view(" \0", 2), at);  // the release ends at a space or NUL
  return head.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

namespace {

// "6.12.118+deb12-cloud-amd64" -> {6, 12, 118}; {} when it does not start with numbers
KernelRelease release_numbers(const std::string& release) {
  KernelRelease r;
  unsigned* part[] = {&r.major, &r.minor, &r.sublevel};
  std::size_t i = 0;
  for (unsigned* p : part) {
    if (i >= release.size() || !std::isdigit(static_cast<unsigned char>(release[i]))) break;
    while (i < release.size() && std::isdigit(static_cast<unsigned char>(release[i]))) *p = *p * 10 + (release[i++] - '0');
    if (i < release.size() && release[i] == '.') ++i;
  }
  return r.major ? r : KernelRelease{};
}

// scripts/vm-kernel.sh's build of the tree: the bzImage's path, or "" (the
// script's message is on stderr; rc its exit code)
std::string build_kernel(const VmOptions& o, const std::string& cache, std::ostream& out, int& rc) {
  std::string cmd = "bash " + quote(std::string(EEVDF_SOURCE_DIR) + "/scripts/vm-kernel.sh") + " --tree " +
                    quote(o.kernel_tree) + " --cache " + quote(cache);
  for (const auto& p : o.patches) cmd += " --patch " + quote(p);
  for (const auto& x : o.fixes) cmd += " --fix " + quote(x);
  out << "building a kernel from " << o.kernel_tree << " (scripts/vm-kernel.sh; the first build takes minutes)\n";
  out.flush();
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) {
    rc = 2;
    return "";
  }
  std::string last, line;
  for (int c; (c = std::fgetc(pipe)) != EOF;) {
    if (c != '\n') {
      line += static_cast<char>(c);
    } else if (!line.empty()) {
      last = line;
      line.clear();
    }
  }
  if (!line.empty()) last = line;
  const int status = pclose(pipe);
  rc = WIFEXITED(status) ? WEXITSTATUS(status) : 2;
  return rc == 0 ? last : "";
}

}  // namespace

int run_vm(const VmOptions& options, std::ostream& out, std::ostream& err) {
  std::ifstream f(options.file, std::ios::binary);
  if (!f) {
    err << "eevdf-check: " << options.file << ": cannot read\n";
    return 2;
  }
  std::stringstream text;
  text << f.rdbuf();
  auto parsed = scn::parse_scenario(text.str(), options.file);
  if (auto* e = std::get_if<scn::ParseError>(&parsed)) {
    err << scn::format_parse_error(*e) << "\n";
    return 2;
  }
  const scn::Scenario s = std::get<scn::Scenario>(std::move(parsed));
  std::string error;
  if (!options.kernel_tree.empty() && !options.kernel_image.empty()) {
    err << "eevdf-check: vm: --kernel and --kernel-tree exclude each other\n";
    return 2;
  }
  if ((!options.patches.empty() || !options.fixes.empty()) && options.kernel_tree.empty()) {
    err << "eevdf-check: vm: --patch and --fix change a tree: they need --kernel-tree\n";
    return 2;
  }
  if (!options.kernel_image.empty() && bzimage_release(options.kernel_image).empty()) {
    err << "eevdf-check: vm: --kernel " << options.kernel_image << ": not a bzImage (no x86 boot header)\n";
    return 2;
  }
  {
    scn::ProfileOverride o;
    o.profile = options.profile;
    const auto first = scn::build_profile(s, o, error);
    if (!first) {
      err << "eevdf-check: " << options.file << ": " << error << "\n";
      return 2;
    }
    if (const auto plan = vm_plan(s, *first, error); !plan) {
      err << "eevdf-check: " << options.file << ": " << error << "\n";
      return 2;
    } else if (options.plan_only) {
      out << plan->text;
      for (const auto& c : plan->caveats) out << "# caveat: " << c << "\n";
      return 0;
    }
  }

  // the kernel and its release: a recorded run's, a bzImage's (built here from a tree, or given), Debian's
  namespace fs = std::filesystem;
  const std::string cache = options.cache_dir.empty() ? default_cache() : options.cache_dir;
  KernelRun recorded;
  std::string image = options.kernel_image, release = "6.12.118+deb12-cloud-amd64";
  if (!options.results.empty()) {
    std::ifstream in(options.results);
    if (!in) {
      err << "eevdf-check: " << options.results << ": cannot read\n";
      return 2;
    }
    recorded = parse_vm_results(in);
    release = recorded.release;
  } else if (!options.kernel_tree.empty()) {
    int rc = 0;
    image = build_kernel(options, cache, out, rc);
    if (rc == 77) {
      out << "skipped: the kernel build's tools are missing (see above; scripts/setup.sh --with-vm installs them)\n";
      return 77;
    }
    if (rc != 0 || image.empty()) {
      err << "eevdf-check: vm: no kernel built from " << options.kernel_tree << " (scripts/vm-kernel.sh exit " << rc
          << ", its message above)\n";
      return 2;
    }
  }
  if (!image.empty()) release = bzimage_release(image);

  // the model: --profile, else the profile of the booted release, else the scenario's
  std::string judged;
  if (options.profile.empty()) {
    const std::string judge = judge_for_kernel(release_numbers(release));
    if (!judge.empty() && judge != s.profile) judged = judge;
  }
  scn::ProfileOverride chosen;
  chosen.profile = options.profile.empty() ? judged : options.profile;
  const auto profile = scn::build_profile(s, chosen, error);
  if (!profile) {
    err << "eevdf-check: " << options.file << ": " << error << "\n";
    return 2;
  }
  auto plan = vm_plan(s, *profile, error);
  if (!plan) {
    err << "eevdf-check: " << options.file << ": " << error << "\n";
    return 2;
  }
  if (!judged.empty())
    plan->caveats.push_back("the model runs profile " + judged + ", the profile of the booted Linux " + release +
                            "; the scenario names " + (s.profile.empty() ? std::string("none") : s.profile) +
                            " (--profile chooses)");
  else if (judge_for_kernel(release_numbers(release)).empty())
    plan->caveats.push_back("no profile models Linux " + release + "; the model runs " + profile->name);

  // the model's run of the same scenario, every step traced
  scn::ExecOptions eo;
  if (auto e = scn::apply_run_settings(s, {"", "", false, scn::Backend::model, options.file}, eo); !e.empty()) {
    err << "eevdf-check: " << e << "\n";
    return 2;
  }
  eo.backend = scn::Backend::model;
  eo.trace = true;
  eo.keep_going = true;  // the kernel runs every operation: so does the model, for the side by side
  const scn::ExecResult model = scn::execute(s, *profile, eo);

  if (!options.results.empty()) {
    out << "recorded run " << options.results << " (no boot)\n";
    return report(s, *profile, *plan, model, recorded, 0, out);
  }
  const std::string outdir =
      options.out_dir.empty() ? cache + "/runs/" + fs::path(options.file).stem().string() : options.out_dir;
  std::error_code ec;
  fs::create_directories(outdir, ec);
  if (ec) {
    err << "eevdf-check: " << outdir << ": " << ec.message() << "\n";
    return 2;
  }
  const std::string plan_path = outdir + "/plan";
  std::ofstream(plan_path) << plan->text;
  double run_s = 0;
  for (const auto& op : s.ops) {
    if (op.kind == scn::OpKind::run) run_s += static_cast<double>(op.duration_ns()) / 1e9;
    run_s += 0.5;  // each step reads debugfs under emulation
  }
  const int timeout = options.timeout_s ? options.timeout_s : 90 + static_cast<int>(run_s * 1.5);
  const std::string script =
      options.script.empty() ? std::string(EEVDF_SOURCE_DIR) + "/scripts/vm-run.sh" : options.script;
  std::string cmd = "bash " + quote(script) + " --plan " + quote(plan_path) + " --out " + quote(outdir) + " --cache " +
                    quote(cache) + " --timeout " + std::to_string(timeout);
  if (!options.append.empty()) cmd += " --append " + quote(options.append);
  if (!image.empty()) cmd += " --kernel " + quote(image);
  std::string changes;
  for (const auto& x : options.fixes) changes += (changes.empty() ? " with fix " : ", fix ") + x;
  for (const auto& p : options.patches) changes += (changes.empty() ? " with patch " : ", patch ") + p;
  out << fmt::format("booting {}{} in QEMU for {} (timeout {} s; raw lines in {}/results.jsonl)\n",
                     image.empty() ? "Debian's 6.12.118" : "Linux " + release, changes, options.file, timeout, outdir);
  if (!image.empty()) out << "kernel image " << image << "\n";
  out.flush();
  const int status = std::system(cmd.c_str());
  const int rc = WIFEXITED(status) ? WEXITSTATUS(status) : 2;
  if (rc == 77) {
    out << "skipped: the VM runner's pieces are missing (see above; scripts/setup.sh --with-vm installs them)\n";
    return 77;
  }
  if (rc == 3) {
    out << "result: the kernel panicked (console: " << outdir << "/console.log)\n";
    return 3;
  }
  if (rc == 4) {
    out << "result: the machine hung (no end within " << timeout << " s; console: " << outdir << "/console.log)\n";
    return 4;
  }
  std::ifstream results(outdir + "/results.jsonl");
  if (rc != 0 && rc != 5) return 2;
  return report(s, *profile, *plan, model, parse_vm_results(results), rc, out);
}

namespace {

// The side by side, the checks and the verdict of a finished run (rc: vm-run.sh's exit, 0 or 5).
int report(const scn::Scenario& s, const Profile& p, const VmPlan& plan, const scn::ExecResult& model,
           const KernelRun& kernel, int rc, std::ostream& out) {
  const Profile* profile = &p;
  const VmPlan* planp = &plan;

  out << fmt::format("kernel {} ({}), base_slice_ns {} at boot\n", kernel.release.empty() ? "?" : kernel.release,
                     kernel.cmdline, kernel.base_slice_ns);
  out << fmt::format("model: profile {} hz {}{}\n", profile->name, profile->tunables.hz,
                     profile->bug.empty() ? "" : " bug " + profile->bug);
  // the model's feature defaults against the kernel's
  {
    std::string diff;
    for (std::size_t i = 0; i < kFeatureCount; ++i) {
      if (!profile->known.on[i]) continue;
      const std::string name = feature_name(static_cast<Feature>(i));
      const bool on = profile->features.on[i];
      const std::string want = (on ? "" : "NO_") + name;
      const std::string other = (on ? "NO_" : "") + name;
      const auto has = [&](const std::string& w) { return (" " + kernel.features + " ").find(" " + w + " ") != std::string::npos; };
      if (!has(want)) diff += " " + want + (has(other) ? " (kernel: " + other + ")" : " (not in the kernel)");
    }
    if (!diff.empty()) out << "features of the model that the kernel does not have as set:" << diff << "\n";
  }
  for (const auto& c : planp->caveats) out << "caveat: " << c << "\n";
  for (const auto& e : kernel.errors) out << "driver: " << e << "\n";
  out << "\n";
  print_side_by_side(s, model, kernel, out);

  const auto findings = check_kernel(kernel, 250, static_cast<s64>(profile->sysctl_sched_base_slice()));
  out << "\nmodel:";
  if (model.violations.empty()) out << " no violation";
  out << "\n";
  std::set<std::string> model_ids;
  std::map<std::string, int> more;
  for (const auto& v : model.violations) {
    const std::string id(inv::id_name(v.id));
    if (!model_ids.insert(id).second) {
      ++more[id];
      continue;
    }
    out << fmt::format("  {} at {}: {}\n", id, op_label(s, v.op_index), v.what);
  }
  for (const auto& [id, n] : more) out << fmt::format("  ({} again after {} later operation(s))\n", id, n);
  out << "booted kernel (checks: I-DL, I-SLICE, I-IDLE):";
  if (findings.empty()) out << " no violation";
  out << "\n";
  std::set<std::string> kernel_ids;
  for (const auto& k : findings) {
    kernel_ids.insert(k.id);
    out << fmt::format("  {} at {}: {}\n", k.id, op_label(s, k.op), k.what);
  }
  if (rc == 5 || !kernel.done) {
    out << "result: the driver stopped before the end of the plan\n";
    return 5;
  }
  // a model of another release than the scenario's: its expectations are not this kernel's;
  // the verdict is whether the kernel shows what the model of its release shows
  if (profile->name != s.profile) {
    std::set<std::string> model_checked;
    for (const auto& id : model_ids)
      if (kKernelChecks.count(id)) model_checked.insert(id);
    const auto list = [](const std::set<std::string>& ids) {
      std::string t;
      for (const auto& id : ids) t += (t.empty() ? "" : ", ") + id;
      return t.empty() ? std::string("none") : t;
    };
    out << fmt::format("the scenario's expectations are written for profile {}; on what the booted kernel can "
                       "show (I-DL, I-SLICE, I-IDLE) the model of {} has {}, the kernel {}\n",
                       s.profile, profile->name, list(model_checked), list(kernel_ids));
    const bool same = model_checked == kernel_ids;
    out << (same ? "result: the booted kernel agrees with the model of profile " + profile->name + "\n"
                 : "result: the booted kernel does not agree with the model of profile " + profile->name + "\n");
    return same ? 0 : 1;
  }
  // the scenario's expectations, on what the kernel can show
  bool agree = true;
  bool expects_violation = false;
  for (const auto& e : s.expectations) {
    if (e.kind != scn::Expectation::Kind::violation) continue;
    expects_violation = true;
    if (!kKernelChecks.count(e.invariant)) {
      out << fmt::format("expect violation {}: not checkable on the booted kernel (model: {})\n", e.invariant,
                         model_ids.count(e.invariant) ? "yes" : "no");
      continue;
    }
    const bool k = kernel_ids.count(e.invariant) > 0;
    out << fmt::format("expect violation {}: model {}, kernel {}\n", e.invariant,
                       model_ids.count(e.invariant) ? "yes" : "no", k ? "yes" : "no");
    agree = agree && k;
  }
  for (const auto& id : kernel_ids) {
    bool expected = false;
    for (const auto& e : s.expectations)
      expected = expected || (e.kind == scn::Expectation::Kind::violation && e.invariant == id);
    if (!expected) {
      out << fmt::format("the kernel shows {}, which the scenario does not expect{}\n", id,
                         model_ids.count(id) ? " (the model shows it too)" : "");
      agree = false;
    }
  }
  if (!expects_violation && kernel_ids.empty()) out << "expect no-violation: kernel clean on I-DL, I-SLICE and I-IDLE\n";
  out << (agree ? "result: the booted kernel agrees with the scenario's expectations\n"
                : "result: the booted kernel does not agree with the scenario's expectations\n");
  return agree ? 0 : 1;
}

}  // namespace

}  // namespace eevdf::bridge
