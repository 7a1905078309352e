#include "bridge/rtapp_export.hpp"

#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "bridge/kernel_version.hpp"
#include "bridge/sim.hpp"
#include "bridge/unexported.hpp"
#include "scenario/scenario_print.hpp"

namespace eevdf::bridge {

namespace {

using json = nlohmann::ordered_json;

const char* rt_policy(Policy p) {
  switch (p) {
    case Policy::normal: return "SCHED_OTHER";
    case Policy::batch: return "SCHED_BATCH";
    case Policy::idle: return "SCHED_IDLE";
    case Policy::fifo: return "SCHED_FIFO";  // refused before (export_rtapp)
  }
  return "SCHED_OTHER";
}

struct Thread {
  std::string name;
  Policy policy = Policy::normal;
  int nice = 0;
  u64 slice = 0;
  bool woken = false;
  u64 first_wake = 0;
  Policy init_policy = Policy::normal;  // the parameters when it first ran
  int init_nice = 0;
  u64 init_slice = 0;
  u64 mark_runtime = 0;  // runtime already written as events
  u64 sleep_start = 0;
  bool asleep = false;
  json phases = json::object();
  json* phase = nullptr;
  int events = 0;
  bool ended = false;
};

}  // namespace

std::optional<std::string> export_rtapp(const scn::Scenario& s, const Profile& profile, const std::string& source_name,
                                        std::string& error) {
  error = unexported_op(s, "the rt-app export");
  if (!error.empty()) return std::nullopt;
  if (s.runqueues != 1) {
    error = "rt-app export models one CPU; the scenario has runqueues " + std::to_string(s.runqueues);
    return std::nullopt;
  }
  Sim sim(profile, true, inv::Tolerances{false}, false);
  std::vector<std::string> caveats;
  std::map<std::string, Thread> threads;
  std::vector<std::string> order;
  bool inexact_us = false;

  auto us = [&](u64 ns) {
    if (ns % 1000 != 0) inexact_us = true;
    return static_cast<long long>((ns + 500) / 1000);
  };
  auto new_phase = [&](Thread& t) {
    const std::string name = fmt::format("p{}", t.phases.size());
    json ph = json::object();
    ph["loop"] = 1;
    if (!t.phases.empty()) {
      ph["policy"] = rt_policy(t.policy);
      if (t.policy != Policy::idle) ph["priority"] = t.nice;
      ph["dl-runtime"] = us(t.slice);
    }
    t.phases[name] = ph;
    t.phase = &t.phases[name];
  };
  auto add = [&](Thread& t, const std::string& kind, json value) {
    if (!t.phase) new_phase(t);
    (*t.phase)[fmt::format("{}{}", kind, t.events++)] = std::move(value);
  };
  auto flush_run = [&](Thread& t) {
    const u64 rt = sim.runtime_of(sim.task_index(t.name));
    add(t, "run", us(rt - t.mark_runtime));
    t.mark_runtime = rt;
  };

  for (const auto& op : s.ops) {
    const u64 now = sim.rq().clock_task;
    if (op.kind == scn::OpKind::base_slice) {  // rt-app describes threads, not debugfs writes
      error = fmt::format("{}:{}: {}: rt-app has no debugfs write of sched/base_slice_ns (write the base slice "
                          "before the run, or use 'eevdf-check export --kstep')",
                          source_name, op.line, scn::print_op(op));
      return std::nullopt;
    }
    switch (op.kind) {
      case scn::OpKind::create: {
        Thread t;
        t.name = op.task;
        t.policy = op.policy;
        t.nice = op.nice_level();
        t.slice = static_cast<u64>(op.slice);
        threads[op.task] = std::move(t);
        order.push_back(op.task);
        break;
      }
      case scn::OpKind::fork: {
        Thread t;
        const Thread& p = threads[op.task];
        t.name = op.child;
        t.policy = p.policy;
        t.nice = p.nice;
        t.slice = p.slice;
        threads[op.child] = std::move(t);
        order.push_back(op.child);
        caveats.push_back(fmt::format("line {}: fork {} -> {}: the child is a separate thread started by \"delay\" "
                                      "at its first wake-up (rt-app's fork event is not used)",
                                      op.line, op.task, op.child));
        if (op.racing)
          caveats.push_back(fmt::format("line {}: 'racing' (a copy torn by a concurrent sched_change of the parent) "
                                        "is a timing window rt-app cannot force",
                                        op.line));
        break;
      }
      case scn::OpKind::wake: {
        Thread& t = threads[op.task];
        if (!t.woken) {
          t.woken = true;
          t.first_wake = now;
          t.init_policy = t.policy;
          t.init_nice = t.nice;
          t.init_slice = t.slice;
        } else if (t.asleep) {
          add(t, "sleep", us(now - t.sleep_start));
        }
        t.asleep = false;
        if (op.sync)
          caveats.push_back(fmt::format("line {}: WF_SYNC has no rt-app equivalent: a timed wake-up", op.line));
        break;
      }
      case scn::OpKind::sleep: {
        Thread& t = threads[op.task];
        flush_run(t);
        t.asleep = true;
        t.sleep_start = now;
        break;
      }
      case scn::OpKind::yield: {
        Thread& t = threads[op.task];
        flush_run(t);
        add(t, "yield", "");
        break;
      }
      case scn::OpKind::exit: {
        Thread& t = threads[op.task];
        flush_run(t);
        t.ended = true;
        break;
      }
      case scn::OpKind::nice:
      case scn::OpKind::policy:
      case scn::OpKind::slice: {
        Thread& t = threads[op.task];
        if (t.woken && !t.asleep && !t.ended) flush_run(t);
        if (op.kind == scn::OpKind::nice) t.nice = op.nice_level();
        if (op.kind == scn::OpKind::policy) t.policy = op.policy;
        if (op.kind == scn::OpKind::slice) t.slice = op.slice_ns();
        if (t.woken) {
          new_phase(t);
          caveats.push_back(fmt::format("line {} `{}`: a new phase of {} sets it, when {} itself reaches it "
                                        "(rt-app changes parameters at a phase start, by the thread)",
                                        op.line, scn::print_op(op), op.task, op.task));
        }
        break;
      }
      default: break;
    }
    if (!sim.apply(op)) {
      auto r = sim.finish();
      if (!r.error.empty()) {
        error = fmt::format("{}:{}", source_name, r.error);
        return std::nullopt;
      }
    }
  }
  const u64 end = sim.rq().clock_task;
  for (auto& [name, t] : threads)
    if (t.woken && !t.ended && !t.asleep) flush_run(t);

  json tasks = json::object();
  for (const auto& name : order) {
    Thread& t = threads[name];
    if (!t.woken) {
      caveats.push_back(fmt::format("task {} is never woken: no thread", name));
      continue;
    }
    json th = json::object();
    th["loop"] = 1;
    th["policy"] = rt_policy(t.init_policy);
    if (t.init_policy != Policy::idle) th["priority"] = t.init_nice;
    if (t.init_slice) th["dl-runtime"] = us(t.init_slice);
    th["cpus"] = json::array({0});
    th["delay"] = us(t.first_wake);
    th["phases"] = t.phases;
    tasks[name] = th;
  }
  if (tasks.empty()) {
    error = source_name + ": no task is ever woken: nothing to export";
    return std::nullopt;
  }
  if (inexact_us) caveats.push_back("durations are rounded to whole microseconds (rt-app's unit)");

  const auto version = kernel_version_of(profile.name);
  json notes = json::array();
  notes.push_back(fmt::format("generated by `eevdf-check export --rt-app {}`; profile {} ({})", source_name,
                              profile.name, version ? version->text() : "no kernel release"));
  notes.push_back("run events are the CPU time each task got in the model; on a real machine rt-app's calibration "
                  "decides how long a run takes");
  notes.push_back("one CPU: every thread is pinned to CPU 0; task groups and more CPUs are not modelled yet");
  notes.push_back("operations with no rt-app equivalent: schedule, tick and run (the kernel's own ticks stand "
                  "in), expect lines (rt-app checks nothing: compare with `eevdf-check run --rt-app`)");
  if (!s.features.empty())
    notes.push_back(fmt::format("the scenario sets scheduler features {}: set them in debugfs by hand", s.features));
  for (const auto& c : caveats) notes.push_back(c);
  notes.push_back("if your rt-app rejects this key, delete it: it is a comment");

  json root = json::object();
  root["_eevdf_check"] = notes;
  root["tasks"] = tasks;
  const u64 seconds = end / 1'000'000'000ULL + 1;
  root["global"] = {{"duration", seconds}, {"default_policy", "SCHED_OTHER"}, {"calibration", "CPU0"},
                    {"logdir", "./"}, {"log_basename", "eevdf"}};
  return root.dump(2) + "\n";
}

}  // namespace eevdf::bridge
