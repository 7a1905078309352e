#include "cli/prove_scenario.hpp"

#include <fmt/format.h>

#include "scenario/scenario_print.hpp"

namespace eevdf::cli {

namespace {

scn::Op task_op(scn::OpKind kind, const std::string& name) {
  scn::Op op;
  op.kind = kind;
  op.task = name;
  return op;
}

}  // namespace

scn::Scenario reaching_scenario(const smt::ReachingState& r) {
  scn::Scenario s;
  // "4e9": ReachingState's lead, v - V of L at its first deadline
  s.title = r.reslice_ns ? fmt::format("{}: sched_setattr() re-places a task 4e9 virtual ns ahead next to {} nice {} tasks",
                                       r.site, r.heavy_tasks, r.heavy_nice)
                         : fmt::format("{} in s64: the pick at L's deadline tests L, 4e9 virtual ns ahead of V, against "
                                       "{} nice {} tasks",
                                       r.site, r.heavy_tasks, r.heavy_nice);
  s.profile = r.profile;
  s.hz = r.hz;
  std::vector<std::string> heavy;
  for (int i = 0; i < r.heavy_tasks; ++i) heavy.push_back("H" + std::to_string(i));
  auto create = [&](const std::string& name, int nice) {
    scn::Op op = task_op(scn::OpKind::create, name);
    op.value = nice;
    op.slice = r.slice_ns;
    s.ops.push_back(op);
  };
  create("L", r.light_nice);
  for (const auto& h : heavy) create(h, r.heavy_nice);
  s.ops.push_back(task_op(scn::OpKind::wake, "L"));
  s.ops.push_back(task_op(scn::OpKind::schedule, ""));
  for (const auto& h : heavy) s.ops.push_back(task_op(scn::OpKind::wake, h));
  scn::Op run = task_op(scn::OpKind::run, "");
  run.value = r.run_ns;
  s.ops.push_back(run);
  if (r.reslice_ns) {
    scn::Op slice = task_op(scn::OpKind::slice, "L");
    slice.value = *r.reslice_ns;
    s.ops.push_back(slice);
  }
  scn::Expectation e;
  e.kind = scn::Expectation::Kind::violation;
  e.invariant = "I-OVF";
  s.expectations.push_back(e);
  return s;
}

std::string reaching_scenario_text(const smt::ReachingState& r) {
  scn::Scenario s = reaching_scenario(r);
  std::string text = "# " + s.title + "\n";
  if (!r.variant.empty())
    text += "# needs the test-only variant " + r.variant + ": eevdf-check prove --variant " + r.variant + " --replay\n";
  s.title.clear();
  return text + scn::print_scenario(s);
}

}  // namespace eevdf::cli
