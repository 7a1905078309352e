#include "bridge/kstep_export.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <limits>
#include <set>

#include <fmt/format.h>

#include "bridge/kernel_version.hpp"
#include "bridge/sim.hpp"
#include "bridge/unexported.hpp"
#include "scenario/op_table.hpp"
#include "scenario/scenario_print.hpp"
#include "invariants/ids.hpp"

namespace eevdf::bridge {

namespace {

// Invariants the generated driver checks on the real runqueue after every step.
const std::set<std::string>& checked_in_c() {
  static const std::set<std::string> ids = {"I-PROT", "I-SLICE", "I-AUG"};
  return ids;
}

const char* c_policy(Policy p) {
  switch (p) {
    case Policy::normal: return "SCHED_NORMAL";
    case Policy::batch: return "SCHED_BATCH";
    case Policy::idle: return "SCHED_IDLE";
    case Policy::fifo: return "SCHED_FIFO";  // refused before (export_kstep)
  }
  return "SCHED_NORMAL";
}

std::string c_string(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '%') {
      out += "%%";
      continue;
    }
    out += std::isprint(static_cast<unsigned char>(c)) ? c : '?';
  }
  return out;
}

std::string driver_name(const std::string& source) {
  std::string base = source;
  if (auto slash = base.find_last_of('/'); slash != std::string::npos) base = base.substr(slash + 1);
  if (auto dot = base.find('.'); dot != std::string::npos) base = base.substr(0, dot);
  std::string out = "eevdf_";
  for (char c : base) out += std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::tolower(c)) : '_';
  if (out.size() > 31) out.resize(31);  // DRIVER_NAME_LEN 32
  return out;
}

const char* c_cmp(scn::CmpOp c) {
  switch (c) {
    case scn::CmpOp::eq: return "==";
    case scn::CmpOp::ne: return "!=";
    case scn::CmpOp::lt: return "<";
    case scn::CmpOp::le: return "<=";
    case scn::CmpOp::gt: return ">";
    case scn::CmpOp::ge: return ">=";
  }
  return "==";
}

// A field the kernel has with the same meaning and origin; nullptr when the
// value is an absolute virtual or real time that differs on a real machine.
const char* relative_field(const std::string& f) {
  static const std::map<std::string, const char*> m = {
      {"vlag", "(s64)p->se.vlag"},           {"slice", "(s64)p->se.slice"},
      {"weight", "(s64)p->se.load.weight"},  {"on_rq", "(s64)p->se.on_rq"},
      {"sched_delayed", "(s64)p->se.sched_delayed"}, {"rel_deadline", "(s64)p->se.rel_deadline"},
      {"custom_slice", "(s64)p->se.custom_slice"},   {"min_slice", "(s64)p->se.min_slice"},
      {"max_slice", "(s64)p->se.max_slice"}};
  auto it = m.find(f);
  return it == m.end() ? nullptr : it->second;
}

std::string c_s64(s64 v) {
  if (v == std::numeric_limits<s64>::min()) return "(-9223372036854775807LL - 1)";
  return fmt::format("{}LL", v);
}

struct TaskInfo {
  Policy policy = Policy::normal;
  int nice = 0;
  u64 custom_slice = 0;  // 0: base slice
};

}  // namespace

std::optional<std::string> export_kstep(const scn::Scenario& s, const Profile& profile,
                                        const std::string& source_name, std::string& error) {
  error = unexported_op(s, "the kSTEP export");
  if (!error.empty()) return std::nullopt;
  if (s.runqueues != 1) {
    error = "kSTEP export models one CPU; the scenario has runqueues " + std::to_string(s.runqueues);
    return std::nullopt;
  }
  const auto version = kernel_version_of(profile.name);
  if (!version) {
    error = fmt::format("profile '{}' names no kernel release; kSTEP drivers are guarded by one", profile.name);
    return std::nullopt;
  }

  // Run the scenario alongside, to know the clock (ticks to step) and the
  // task on the CPU at every operation.
  Sim sim(profile, true, inv::Tolerances{false}, false);
  std::vector<std::string> caveats;
  std::vector<std::string> body;
  std::vector<std::string> tasks;  // in creation order
  std::map<std::string, TaskInfo> info;
  std::set<std::string> chan_waiters;  // tasks blocked on the kSTEP channel

  // a task slept by `sleep` and later woken with `wake ... sync` waits on the channel
  std::set<std::size_t> chan_sleeps;
  for (std::size_t i = 0; i < s.ops.size(); ++i) {
    if (s.ops[i].kind != scn::OpKind::wake || !s.ops[i].sync) continue;
    for (std::size_t j = i; j-- > 0;) {
      if (s.ops[j].task != s.ops[i].task) continue;
      if (s.ops[j].kind == scn::OpKind::sleep) chan_sleeps.insert(j);
      if (s.ops[j].kind == scn::OpKind::sleep || s.ops[j].kind == scn::OpKind::wake) break;
    }
  }

  const u64 tick = profile.tick_nsec();
  auto note = [&](const scn::Op& op, const std::string& why) {
    caveats.push_back(fmt::format("line {} `{}`: {}", op.line, scn::print_op(op), why));
  };
  auto setattr = [&](const std::string& t) {
    const TaskInfo& ti = info[t];
    return fmt::format("set_fair_attr(t_{}, {}, {}, {}ULL);", t, c_policy(ti.policy), ti.nice, ti.custom_slice);
  };

  std::vector<std::string> setup;
  for (std::size_t i = 0; i < s.ops.size(); ++i) {
    const scn::Op& op = s.ops[i];
    const std::string where = fmt::format("line {}: {}", op.line, c_string(scn::print_op(op)));
    bool check = true;
    switch (op.kind) {
      case scn::OpKind::create: {
        tasks.push_back(op.task);
        info[op.task] = TaskInfo{op.policy, op.nice_level(), static_cast<u64>(op.slice)};
        setup.push_back(fmt::format("  t_{} = kstep_task_create();", op.task));
        setup.push_back(fmt::format("  kstep_task_set_affinity(t_{}, \"1\");  // one CPU: CPU 1", op.task));
        if (op.nice_level() != 0 || op.policy != Policy::normal || op.slice != 0)
          setup.push_back("  " + setattr(op.task));
        check = false;
        break;
      }
      case scn::OpKind::fork: {
        tasks.push_back(op.child);
        info[op.child] = info[op.task];
        body.push_back(fmt::format("  t_{} = kstep_task_create();  // stands in for fork {} -> {}", op.child, op.task,
                                   op.child));
        body.push_back(fmt::format("  kstep_task_set_affinity(t_{}, \"1\");", op.child));
        body.push_back("  " + setattr(op.child));
        note(op, "no kSTEP equivalent of a fork by the running task: a fresh kSTEP task with the parent's "
                 "policy, nice and slice stands in; it does not copy the parent's sched_entity "
                 "(sched_fork() runs in kSTEP's helper)");
        if (op.racing)
          note(op, "'racing' (a copy torn by a concurrent sched_change of the parent) is a timing window "
                   "kSTEP cannot force");
        break;
      }
      case scn::OpKind::wake: {
        const int curr = sim.rq().curr;
        const std::string waker = curr >= 0 ? sim.rq().tasks[static_cast<std::size_t>(curr)].name : "";
        if (op.sync && chan_waiters.size() == 1 && chan_waiters.count(op.task) && !waker.empty() &&
            info.count(waker)) {
          body.push_back(fmt::format("  kstep_task_chan_write(t_{});  // {} wakes {} with WF_SYNC", waker, waker,
                                     op.task));
          chan_waiters.erase(op.task);
          note(op, fmt::format("the sync wake-up is {}'s write to the kSTEP channel {} waits on "
                               "(kstep_task_chan_write); the waker runs a system call for it",
                               waker, op.task));
        } else {
          body.push_back(fmt::format("  kstep_task_wakeup(t_{});", op.task));
          if (op.sync) note(op, "WF_SYNC has no kSTEP equivalent here: a plain wake-up");
          chan_waiters.erase(op.task);
        }
        const auto* t = sim.rq().task(sim.task_index(op.task));
        if (t && t->state == TaskState::new_)
          note(op, "kSTEP tasks are created parked; their first wake-up is try_to_wake_up(), not "
                   "wake_up_new_task() (placement without ENQUEUE_INITIAL)");
        break;
      }
      case scn::OpKind::sleep:
        if (chan_sleeps.count(i)) {
          body.push_back(fmt::format("  kstep_task_chan_read(t_{});  // blocks on the channel", op.task));
          chan_waiters.insert(op.task);
        } else {
          body.push_back(fmt::format("  kstep_task_pause(t_{});", op.task));
        }
        break;
      case scn::OpKind::run: {
        const u64 from = sim.rq().clock_task, to = from + op.duration_ns();
        const u64 ticks = to / tick - from / tick;
        if (ticks > 0)
          body.push_back(fmt::format("  kstep_tick_repeat({});", ticks));
        else
          body.push_back("  kstep_settle();");
        if (to % tick != 0 || from % tick != 0)
          note(op, fmt::format("kSTEP's clock moves a tick ({} ns) at a time: {} tick(s) here; the model's "
                               "clock also moves between ticks, so what update_curr() charges and any time "
                               "measured since the last update_curr() (exec_start, e.g. in preempt_sync()) differ",
                               tick, ticks));
        break;
      }
      case scn::OpKind::tick: body.push_back("  kstep_tick();"); break;
      case scn::OpKind::run_notick:
      case scn::OpKind::tick_after:
        check = false;
        body.push_back("  kstep_settle();");
        note(op, "not exported: kSTEP's clock moves a whole tick at a time; a clock step without a tick or a "
                 "tick of another length has no kSTEP equivalent");
        break;
      case scn::OpKind::schedule:
        body.push_back("  kstep_settle();");
        note(op, "no kSTEP equivalent: the kernel acts on need_resched by itself as soon as the CPU returns "
                 "to user mode; the driver lets the CPU settle");
        break;
      case scn::OpKind::yield: body.push_back(fmt::format("  kstep_task_yield(t_{});", op.task)); break;
      case scn::OpKind::nice:
        info[op.task].nice = op.nice_level();
        body.push_back(fmt::format("  set_user_nice(t_{}, {});", op.task, op.nice_level()));
        break;
      case scn::OpKind::policy:
        info[op.task].policy = op.policy;
        body.push_back("  " + setattr(op.task));
        break;
      case scn::OpKind::slice:
        info[op.task].custom_slice = op.slice_ns();
        body.push_back("  " + setattr(op.task));
        break;
      case scn::OpKind::exit: body.push_back(fmt::format("  kstep_task_exit(t_{});", op.task)); break;
      case scn::OpKind::group_create:
      case scn::OpKind::move:
      case scn::OpKind::shares:
      case scn::OpKind::group_idle:
      case scn::OpKind::migrate:
        check = false;
        note(op, "not exported: the kSTEP driver written here has no cgroup operations (task groups are left out)");
        break;
      case scn::OpKind::group_destroy:
      case scn::OpKind::quota:
        check = false;
        note(op, "not exported: the kSTEP driver written here has no cgroup operations (task groups are left out)");
        break;
      case scn::OpKind::return_to_user:
        check = false;
        note(op, "not exported: a task's return to user space is not a step the kSTEP driver can take");
        break;
      case scn::OpKind::base_slice:  // the debugfs write, as the base_slice directive's in the setup
        body.push_back(fmt::format("  {{ char buf[24]; int n = snprintf(buf, sizeof(buf), \"%llu\", {}ULL); "
                                   "kstep_write(\"/sys/kernel/debug/sched/base_slice_ns\", buf, n); }}",
                                   op.base_slice_ns()));
        break;
      case scn::OpKind::debug_read:
        check = false;
        note(op, "not exported: a read of /sys/kernel/debug/sched/debug races the scheduler at a time kSTEP cannot "
                 "choose ('eevdf-check vm' reads the file on a booted kernel)");
        break;
      case scn::OpKind::expect_curr:
        check = false;
        if (op.task == "idle")
          body.push_back(fmt::format("  expect_curr(NULL, \"idle\", \"{}\");", where));
        else
          body.push_back(fmt::format("  expect_curr(t_{}, \"{}\", \"{}\");", op.task, op.task, where));
        break;
      case scn::OpKind::expect_queue:
        check = false;
        body.push_back(fmt::format("  TRACE_INFO(\"{} not compared: expect queue reads the model's cfs_rq\");", where));
        note(op, "expect queue is not exported: the kSTEP driver compares task fields only");
        break;
      case scn::OpKind::expect_field: {
        check = false;
        if (!info.count(op.task)) {  // a task group's entity: the driver creates no groups
          body.push_back(fmt::format("  TRACE_INFO(\"{} not compared: {} is a task group (left out)\");", where,
                                     op.task));
          note(op, fmt::format("{} is a task group: not compared (task groups are left out)", op.task));
        } else if (const char* f = relative_field(op.field)) {
          body.push_back(fmt::format("  {{ struct task_struct *p = t_{}; expect_value({}, \"{}\", {}, \"{}\"); }}",
                                     op.task, f, c_cmp(op.cmp), c_s64(op.expected_value()), where));
        } else {
          body.push_back(fmt::format("  TRACE_INFO(\"{} not compared: {} is an absolute time, which differs on a "
                                     "real kernel\");",
                                     where, op.field));
          note(op, fmt::format("{} is an absolute time: printed, not compared", op.field));
        }
        break;
      }
    }
    if (!sim.apply(op)) {
      const auto r = sim.finish();
      if (!r.error.empty()) {
        error = fmt::format("{}:{}", source_name, r.error);
        return std::nullopt;
      }
      // a violation stopped the model run: the rest still runs on the kernel
    }
    if (check) body.push_back(fmt::format("  check_state(\"{}\");", where));
    // The model honours need_resched only at the next schedule/run/tick; a
    // real CPU switches as soon as it returns to user mode.
    if (sim.rq().need_resched && !scn::is_expectation(op.kind)) {
      std::size_t j = i + 1;
      while (j < s.ops.size() &&
             scn::is_expectation(s.ops[j].kind))
        ++j;
      const bool honoured = j < s.ops.size() && (s.ops[j].kind == scn::OpKind::schedule ||
                                                 s.ops[j].kind == scn::OpKind::run ||
                                                 s.ops[j].kind == scn::OpKind::tick);
      if (!honoured || j != i + 1)
        note(op, "leaves need_resched set: the real CPU switches at once, the model only at the next "
                 "schedule/run/tick, so the checks after this line see a different task on the CPU");
    }
  }

  // Scenario-level settings.
  const auto defaults = profile_by_name(s.profile);
  if (!s.features.empty()) {
    std::string list = s.features;
    std::size_t pos = 0;
    while (pos <= list.size()) {
      std::size_t end = list.find(',', pos);
      if (end == std::string::npos) end = list.size();
      std::string item = list.substr(pos, end - pos);
      const bool on = item.rfind("NO_", 0) != 0;
      const std::string name = on ? item : item.substr(3);
      if (name.rfind("RFC_", 0) == 0)
        caveats.push_back(fmt::format("features: {} is an RFC variant in no kernel: not set", name));
      else
        setup.insert(setup.begin(), fmt::format("  kstep_sched_feat_{}(\"{}\");", on ? "enable" : "disable", name));
      pos = end + 1;
    }
  }
  for (std::size_t i = 0; i < kFeatureCount; ++i) {
    const auto f = static_cast<Feature>(i);
    if (f == Feature::RFC_SAME_PRIO_NO_WAKEUP_PREEMPT && profile.feat(f) && s.features.find(feature_name(f)) == std::string::npos)
      caveats.push_back(fmt::format("{} is on in this run but is an RFC in no kernel: the kernel behaves as if off",
                                    feature_name(f)));
  }
  if (s.base_slice)
    setup.insert(setup.begin(),
                 fmt::format("  {{ char buf[24]; int n = snprintf(buf, sizeof(buf), \"%llu\", {}ULL); "
                             "kstep_write(\"/sys/kernel/debug/sched/base_slice_ns\", buf, n); }}",
                             profile.sysctl_sched_base_slice()));
  (void)defaults;

  // Expected whole-run violations.
  std::vector<std::string> predicted;
  for (const auto& e : s.expectations)
    if (e.kind == scn::Expectation::Kind::violation) predicted.push_back(e.invariant);

  std::string out;
  auto w = [&](const std::string& line) { out += line + "\n"; };
  w(fmt::format("// kSTEP driver generated by `eevdf-check export --kstep {}` (regenerate, do not edit).", source_name));
  if (!s.title.empty()) w("// Scenario: " + s.title);
  w(fmt::format("// Profile: {} ({}); built only for {}.", profile.name, profile.description, version->text()));
  w("//");
  w("// It performs the scenario's operations on CPU 1 of a kSTEP VM (kmod/driver.h API) and checks,");
  w("// after every operation, the invariants it can read on the real runqueue:");
  w("//   I-PROT  while curr is protected (vruntime < vprot), vprot is not after its deadline;");
  w("//   I-SLICE every queued task's slice is the base slice, or a custom slice in 100 us .. 100 ms;");
  w("//   I-AUG   every entity in the tree carries its subtree's min vruntime, min slice and max slice;");
  w("// and every `expect curr` / `expect field` line of the scenario (fields that are absolute times");
  w("// are printed, not compared). Output: one kstep_fail() per broken check, naming the invariant");
  w("// or the line, and one final kstep_pass() or kstep_fail().");
  if (!predicted.empty()) {
    for (const auto& id : predicted)
      w(fmt::format("// The model predicts {}: {}.", id,
                    checked_in_c().count(id) ? "kstep_fail naming it means the kernel reproduces the finding"
                                             : "not checked by this driver (no C check for it yet); compare the "
                                               "printed state with `eevdf-check run`"));
  }
  w("//");
  w("// Not modelled yet, so not exported: more than one CPU (every task is pinned to CPU 1), task");
  w("// groups (no cgroup is created), real-time and deadline classes.");
  if (s.cpus >= 8)
    w(fmt::format("// Boot the VM with 8 or more online CPUs in all (kSTEP's CPU 0 counts): the model's base-slice "
                  "factor is {} (`cpus {}`).",
                  profile.base_slice_factor(), s.cpus));
  else if (s.cpus >= 2)
    w(fmt::format("// Boot the VM with exactly {} online CPUs in all (kSTEP's CPU 0 counts): the model's base-slice "
                  "factor is {} (`cpus {}`).",
                  s.cpus, profile.base_slice_factor(), s.cpus));
  else
    caveats.push_back("`cpus 1`: a kSTEP VM has at least 2 CPUs, so its base-slice factor is at least 2; the "
                      "base slice differs unless base_slice_ns is written");
  if (version->major < 7 || (version->major == 7 && version->minor < 1))
    w("// The checks read se->vprot, se->min_slice and se->max_slice as in v7.1: trim them if this kernel "
      "lacks a field.");
  w(fmt::format("// The kernel must be built with CONFIG_HZ={} (the scenario's hz); tick_interval_ns below is TICK_NSEC.",
                s.hz));
  if (caveats.empty()) {
    w("// Every operation of this scenario has an exact kSTEP equivalent.");
  } else {
    w("// Operations without an exact kSTEP equivalent:");
    for (const auto& c : caveats) w("//   - " + c);
  }
  w("//");
  w("// The scenario:");
  std::string text = scn::print_scenario(s);
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    w("//   " + text.substr(start, end - start));
    start = end + 1;
  }
  w("");
  w("#include <linux/version.h>");
  w("#include <uapi/linux/sched/types.h>");
  w("");
  w("#include \"driver.h\"");
  w("#include \"internal.h\"");
  w("");
  w("#if " + version->c_condition());
  w("");
  std::string decl;
  for (const auto& t : tasks) decl += (decl.empty() ? "" : ", ") + std::string("*t_") + t;
  if (!decl.empty()) w("static struct task_struct " + decl + ";");
  w("static int failures;");
  w("");
  w("// sched_setattr() as the scenario's task/policy/slice operations do it: a fair policy, its nice,");
  w("// and sched_runtime as the custom slice (0: the base slice).");
  w("static void set_fair_attr(struct task_struct *p, int policy, int nice, u64 runtime) {");
  w("  struct sched_attr attr = {.sched_policy = policy, .sched_nice = nice, .sched_runtime = runtime};");
  w("");
  w("  if (sched_setattr_nocheck(p, &attr))");
  w("    kstep_fail(\"sched_setattr of task %d refused\", p->pid);");
  w("}");
  w("");
  w("static void report(const char *what, const char *where, const char *detail) {");
  w("  failures++;");
  w("  kstep_fail(\"%s after %s: %s\", what, where, detail);");
  w("}");
  w("");
  w("static void expect_curr(struct task_struct *p, const char *name, const char *where) {");
  w("  struct rq *rq = cpu_rq(1);");
  w("  struct task_struct *want = p ? p : rq->idle;");
  w("");
  w("  if (rq->curr != want) {");
  w("    char buf[96];");
  w("    snprintf(buf, sizeof(buf), \"expected %s on CPU 1, found pid %d\", name, rq->curr->pid);");
  w("    report(\"expect curr\", where, buf);");
  w("  }");
  w("}");
  w("");
  w("static void expect_value(s64 value, const char *op, s64 want, const char *where) {");
  w("  bool ok = false;");
  w("");
  w("  if (!strcmp(op, \"==\")) ok = value == want;");
  w("  else if (!strcmp(op, \"!=\")) ok = value != want;");
  w("  else if (!strcmp(op, \"<\")) ok = value < want;");
  w("  else if (!strcmp(op, \"<=\")) ok = value <= want;");
  w("  else if (!strcmp(op, \">\")) ok = value > want;");
  w("  else if (!strcmp(op, \">=\")) ok = value >= want;");
  w("  if (!ok) {");
  w("    char buf[96];");
  w("    snprintf(buf, sizeof(buf), \"found %lld\", value);");
  w("    report(\"expect field\", where, buf);");
  w("  }");
  w("}");
  w("");
  w("// I-AUG: every entity in the tree carries the minimum vruntime, the minimum slice and the");
  w("// maximum slice of its subtree (min_vruntime_cb / RB_DECLARE_CALLBACKS).");
  w("struct aug {");
  w("  u64 min_vruntime, min_slice, max_slice;");
  w("};");
  w("static bool aug_reported;");
  w("");
  w("static struct aug check_aug(struct rb_node *node, const char *where) {");
  w("  struct sched_entity *se = rb_entry(node, struct sched_entity, run_node);");
  w("  struct aug a = {se->vruntime, se->slice, se->slice};");
  w("  struct rb_node *kids[2] = {node->rb_left, node->rb_right};");
  w("");
  w("  for (int i = 0; i < 2; i++) {");
  w("    struct aug c;");
  w("");
  w("    if (!kids[i])");
  w("      continue;");
  w("    c = check_aug(kids[i], where);");
  w("    if ((s64)(a.min_vruntime - c.min_vruntime) > 0)");
  w("      a.min_vruntime = c.min_vruntime;");
  w("    if (c.min_slice < a.min_slice)");
  w("      a.min_slice = c.min_slice;");
  w("    if (c.max_slice > a.max_slice)");
  w("      a.max_slice = c.max_slice;");
  w("  }");
  w("  if (!aug_reported && (se->min_vruntime != a.min_vruntime || se->min_slice != a.min_slice ||");
  w("                        se->max_slice != a.max_slice)) {");
  w("    char buf[160];");
  w("");
  w("    snprintf(buf, sizeof(buf), \"augments: min_slice %llu (subtree %llu), max_slice %llu (subtree %llu), \"");
  w("             \"min_vruntime off by %lld\", se->min_slice, a.min_slice, se->max_slice, a.max_slice,");
  w("             (s64)(se->min_vruntime - a.min_vruntime));");
  w("    aug_reported = true;");
  w("    report(\"I-AUG\", where, buf);");
  w("  }");
  w("  return a;");
  w("}");
  w("");
  w("// The invariants this driver can read on CPU 1's root cfs_rq, and the tasks' state.");
  w("static void check_state(const char *where) {");
  w("  KSYM_IMPORT(sysctl_sched_base_slice);");
  w("  struct rq *rq = cpu_rq(1);");
  w("  struct sched_entity *curr = rq->cfs.curr;");
  w("  struct task_struct *tasks[] = {" + [&] {
    std::string l;
    for (const auto& t : tasks) l += (l.empty() ? "" : ", ") + ("t_" + t);
    return l.empty() ? std::string("NULL") : l;
  }() + "};");
  w("  char buf[128];");
  w("");
  w("  aug_reported = false;");
  w("  if (rq->cfs.tasks_timeline.rb_root.rb_node)");
  w("    check_aug(rq->cfs.tasks_timeline.rb_root.rb_node, where);");
  w("  if (curr && (s64)(curr->vruntime - curr->vprot) < 0 && (s64)(curr->vprot - curr->deadline) > 0) {");
  w("    snprintf(buf, sizeof(buf), \"vprot is %lld ns of virtual time after the deadline\",");
  w("             (s64)(curr->vprot - curr->deadline));");
  w("    report(\"I-PROT\", where, buf);");
  w("  }");
  w("  for (size_t i = 0; i < ARRAY_SIZE(tasks); i++) {");
  w("    struct task_struct *p = tasks[i];");
  w("    struct kstep_json json;");
  w("");
  w("    if (!p || !p->se.on_rq)");
  w("      continue;");
  w("    if (p->se.custom_slice ? (p->se.slice < 100000 || p->se.slice > 100000000)");
  w("                           : p->se.slice != *KSYM_sysctl_sched_base_slice) {");
  w("      snprintf(buf, sizeof(buf), \"pid %d has slice %llu\", p->pid, p->se.slice);");
  w("      report(\"I-SLICE\", where, buf);");
  w("    }");
  w("    kstep_json_begin(&json);");
  w("    kstep_json_field_str(&json, \"after\", where);");
  w("    kstep_json_field_s64(&json, \"pid\", p->pid);");
  w("    kstep_json_field_bool(&json, \"curr\", &p->se == curr);");
  w("    kstep_json_field_s64(&json, \"key\", (s64)(p->se.vruntime - rq->cfs.zero_vruntime));");
  w("    kstep_json_field_s64(&json, \"deadline_minus_vruntime\", (s64)(p->se.deadline - p->se.vruntime));");
  w("    kstep_json_field_s64(&json, \"vlag\", p->se.vlag);");
  w("    kstep_json_field_u64(&json, \"slice\", p->se.slice);");
  w("    kstep_json_field_u64(&json, \"weight\", p->se.load.weight);");
  w("    kstep_json_field_bool(&json, \"sched_delayed\", p->se.sched_delayed);");
  w("    kstep_json_end(&json);");
  w("  }");
  w("}");
  w("");
  w("static void setup(void) {");
  for (const auto& l : setup) w(l);
  w("}");
  w("");
  w("static void run(void) {");
  for (const auto& l : body) w(l);
  w("  if (!failures)");
  w(fmt::format("    kstep_pass(\"{}: no checked invariant broke and every expect line held\");",
                c_string(driver_name(source_name))));
  w("  else");
  w("    kstep_fail(\"%d check(s) failed\", failures);");
  w("}");
  w("");
  w("#else");
  w("static void setup(void) {}");
  w(fmt::format("static void run(void) {{ kstep_fail(\"this driver is for {} ({} profile)\"); }}", version->text(),
                profile.name));
  w("#endif");
  w("");
  w("KSTEP_DRIVER_DEFINE{");
  w(fmt::format("    .name = \"{}\",", driver_name(source_name)));
  w("    .setup = setup,");
  w("    .run = run,");
  w(fmt::format("    .tick_interval_ns = {},", tick));
  w("};");
  return out;
}

}  // namespace eevdf::bridge
