#include "cli/report.hpp"

#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "scenario/scenario_print.hpp"

namespace eevdf::cli {

std::string op_text(const scn::Scenario& s, int op_index) {
  if (op_index < 0 || static_cast<std::size_t>(op_index) >= s.ops.size()) return "initial state";
  const auto& op = s.ops[static_cast<std::size_t>(op_index)];
  std::string text = scn::print_op(op);
  if (op.line > 0) text = fmt::format("line {}: {}", op.line, text);
  return text;
}

void print_table(std::ostream& out, const scn::Scenario& s, const scn::ExecResult& r, bool detail) {
  out << fmt::format("{:>4}  {:<28} {:>12}  {:<8} {:>21}  {}\n", "step", "operation", "clock(ns)", "on cpu",
                     "V (avg_vruntime)", "queue: task lag=V-v(virt ns) d-v [flags]");
  for (const auto& st : r.trace) {
    const std::string op =
        st.op_index < 0 ? "(start)" : scn::print_op(s.ops[static_cast<std::size_t>(st.op_index)]);
    std::string queue;
    for (std::size_t i = 0; i < st.tasks.size(); ++i) {
      const auto& e = st.tasks[i];
      const std::string& state = st.task_state[i];
      if (state == "new" || state == "dead" || state == "sleeping") continue;
      if (state == "rt-running" || state == "rt-queued") {  // an RT task: not a fair entity
        queue += fmt::format(" {}{} [rt]", e.task, state == "rt-running" ? "*" : "");
        continue;
      }
      // several CPUs: the lag against the task's own CPU's V, and "@CPU"
      const bool smp = i < st.task_cpu.size();
      const std::size_t cpu = smp ? static_cast<std::size_t>(st.task_cpu[i]) : 0;
      const u64 v = smp && cpu < st.cpu_avg_vruntime.size() ? st.cpu_avg_vruntime[cpu] : st.avg_vruntime;
      const s64 lag = vruntime_diff(v, e.vruntime);
      const s64 dl = vruntime_diff(e.deadline, e.vruntime);
      queue += fmt::format(" {}{}{} lag={} d-v={}{}", e.task, smp ? "@" + std::to_string(cpu) : "",
                           state == "running" ? "*" : "", lag, dl,
                           state == "delayed" ? " [delayed]" : (e.eligible ? "" : " [inelig]"));
    }
    out << fmt::format("{:>4}  {:<28} {:>12}  {:<8} {:>21} {}\n", st.op_index + 1, op.substr(0, 28), st.clock,
                       st.curr, st.avg_vruntime, queue.empty() ? " (empty)" : queue);
    if (detail)
      for (std::size_t i = 0; i < st.tasks.size(); ++i)
        out << "        " << st.task_state[i] << " " << inv::format_entity(st.tasks[i]) << "\n";
  }
}

void print_findings(std::ostream& out, const scn::Scenario& s, const scn::ExecResult& r, const Profile& p) {
  for (const auto& v : r.violations) {
    out << "\n" << inv::format_violation(v, op_text(s, v.op_index), p.name);
    if (!v.known.empty()) out << "  known: " << v.known << ", a known finding of " << p.name << " (docs/findings.md); the run goes on\n";
  }
  if (r.known_repeats > 0)
    out << "\n" << r.known_repeats << " later violation(s) of the same known finding(s), not shown\n";
  for (const auto& f : r.expectation_failures) out << "\nexpectation failed: " << f << "\n";
}

namespace {
nlohmann::json entity_json(const inv::EntitySnapshot& e) {
  return {{"task", e.task},          {"vruntime", e.vruntime},     {"deadline", e.deadline},
          {"vlag", e.vlag},          {"key", e.key},               {"vprot", e.vprot},
          {"slice", e.slice},        {"weight", e.weight},         {"min_vruntime", e.min_vruntime},
          {"min_slice", e.min_slice}, {"max_slice", e.max_slice},  {"on_rq", e.on_rq},
          {"curr", e.curr},          {"sched_delayed", e.sched_delayed}, {"rel_deadline", e.rel_deadline},
          {"custom_slice", e.custom_slice}, {"eligible", e.eligible}};
}
}  // namespace

void print_json(std::ostream& out, const scn::Scenario& s, const scn::ExecResult& r, const Profile& p) {
  for (const auto& st : r.trace) {
    nlohmann::json tasks = nlohmann::json::array();
    for (std::size_t i = 0; i < st.tasks.size(); ++i) {
      auto j = entity_json(st.tasks[i]);
      j["state"] = st.task_state[i];
      tasks.push_back(std::move(j));
    }
    out << nlohmann::json{{"type", "step"},
                          {"step", st.op_index + 1},
                          {"op", op_text(s, st.op_index)},
                          {"clock", st.clock},
                          {"curr", st.curr},
                          {"avg_vruntime", st.avg_vruntime},
                          {"zero_vruntime", st.zero_vruntime},
                          {"sum_w_vruntime", st.sum_w_vruntime},
                          {"sum_weight", st.sum_weight},
                          {"nr_queued", st.nr_queued},
                          {"need_resched", st.need_resched},
                          {"tasks", tasks}}
               .dump()
        << "\n";
  }
  for (const auto& v : r.violations) {
    nlohmann::json ents = nlohmann::json::array();
    for (const auto& e : v.entities) ents.push_back(entity_json(e));
    out << nlohmann::json{{"type", "violation"}, {"invariant", std::string(inv::id_name(v.id))},
                          {"step", v.op_index + 1}, {"op", op_text(s, v.op_index)},
                          {"where", v.where},       {"what", v.what},
                          {"entities", ents},       {"profile", p.name},
                          {"known", v.known}}
               .dump()
        << "\n";
  }
  out << nlohmann::json{{"type", "summary"},
                        {"profile", p.name},
                        {"executed", r.executed},
                        {"skipped", r.skipped},
                        {"violations", r.violations.size()},
                        {"known_repeats", r.known_repeats},
                        {"expectation_failures", r.expectation_failures},
                        {"error", r.error},
                        {"ok", r.ok()}}
             .dump()
      << "\n";
}

bool write_trace(const std::string& path, const scn::Scenario& s, const scn::ExecResult& r, std::string& error) {
  nlohmann::json events = nlohmann::json::array();
  std::vector<std::string> names;
  auto tid = [&](const std::string& name) {
    for (std::size_t i = 0; i < names.size(); ++i)
      if (names[i] == name) return static_cast<int>(i) + 1;
    names.push_back(name);
    events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", 1}, {"tid", names.size()},
                      {"args", {{"name", name}}}});
    return static_cast<int>(names.size());
  };
  auto us = [](u64 ns) { return static_cast<double>(ns) / 1000.0; };
  for (std::size_t i = 0; i + 1 < r.trace.size(); ++i) {
    const auto& a = r.trace[i];
    const auto& b = r.trace[i + 1];
    if (a.curr != "idle" && b.clock > a.clock)
      events.push_back({{"name", a.curr}, {"ph", "X"}, {"pid", 1}, {"tid", tid(a.curr)}, {"ts", us(a.clock)},
                        {"dur", us(b.clock - a.clock)}});
  }
  for (const auto& st : r.trace) {
    const std::string op = op_text(s, st.op_index);
    events.push_back({{"name", op}, {"ph", "i"}, {"s", "g"}, {"pid", 1}, {"tid", 0}, {"ts", us(st.clock)}});
    events.push_back({{"name", "V (avg_vruntime)"}, {"ph", "C"}, {"pid", 1}, {"ts", us(st.clock)},
                      {"args", {{"V", st.avg_vruntime}}}});
    for (std::size_t i = 0; i < st.tasks.size(); ++i) {
      const auto& e = st.tasks[i];
      if (st.task_state[i] == "new" || st.task_state[i] == "dead") continue;
      events.push_back({{"name", "lag " + e.task}, {"ph", "C"}, {"pid", 1}, {"ts", us(st.clock)},
                        {"args", {{"V-v", vruntime_diff(st.avg_vruntime, e.vruntime)}}}});
      events.push_back({{"name", "vruntime " + e.task}, {"ph", "C"}, {"pid", 1}, {"ts", us(st.clock)},
                        {"args", {{"vruntime", e.vruntime}}}});
    }
  }
  for (const auto& v : r.violations) {
    const u64 clock = v.op_index + 1 < static_cast<int>(r.trace.size()) ? r.trace[static_cast<std::size_t>(v.op_index + 1)].clock : 0;
    events.push_back({{"name", std::string(inv::id_name(v.id)) + ": " + v.what}, {"ph", "i"}, {"s", "g"},
                      {"pid", 1}, {"tid", 0}, {"ts", us(clock)}});
  }
  std::ofstream out(path);
  if (!out) {
    error = fmt::format("{}: cannot write the trace file", path);
    return false;
  }
  out << nlohmann::json{{"traceEvents", events}, {"displayTimeUnit", "ns"}}.dump() << "\n";
  return true;
}

}  // namespace eevdf::cli
