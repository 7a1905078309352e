#include "invariants/violation.hpp"

#include <fmt/format.h>

#include "model/fair.hpp"

namespace eevdf::inv {

std::string entity_name(const Rq& rq, const SchedEntity* se) {
  if (!se) return "NULL";
  if (se->task_id >= 0) return rq.tasks[static_cast<std::size_t>(se->task_id)].name;
  std::string name = "group " + rq.task_groups[static_cast<std::size_t>(se->group_id)].name;
  if (rq.possible_cpus().size() > 1 && se->my_q) name += " on CPU " + std::to_string(se->my_q->rq->cpu);
  return name;
}

std::string format_i128(i128 v) {
  if (v == 0) return "0";
  const bool neg = v < 0;
  u128 m = neg ? static_cast<u128>(0) - static_cast<u128>(v) : static_cast<u128>(v);
  std::string digits;
  while (m) {
    digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(m % 10)));
    m /= 10;
  }
  return neg ? "-" + digits : digits;
}

EntitySnapshot snapshot(const Rq& rq, const SchedEntity& se) {
  EntitySnapshot e;
  const Task* t = rq.task(se.task_id);
  const TaskGroup* g = rq.group(se.group_id);
  e.task = t ? t->name : g ? "group " + g->name : "?";
  if (g && rq.possible_cpus().size() > 1 && se.my_q) e.task += " on CPU " + std::to_string(se.my_q->rq->cpu);
  const CfsRq& cfs = se.cfs_rq ? *se.cfs_rq : rq.cfs;
  e.vruntime = se.vruntime;
  e.deadline = se.deadline;
  e.vprot = se.vprot;
  e.slice = se.slice;
  e.weight = se.load.weight;
  e.min_vruntime = se.min_vruntime;
  e.min_slice = se.min_slice;
  e.max_slice = se.max_slice;
  e.vlag = se.vlag;
  e.key = entity_key(cfs, se);
  e.on_rq = se.on_rq;
  e.curr = cfs.curr == &se;
  e.sched_delayed = se.sched_delayed;
  e.rel_deadline = se.rel_deadline;
  e.custom_slice = se.custom_slice;
  e.eligible = se.on_rq && vruntime_eligible(cfs, se.vruntime, null_observer());
  return e;
}

std::string format_entity(const EntitySnapshot& e) {
  std::string flags;
  auto add = [&](bool on, const char* name) {
    if (!on) return;
    if (!flags.empty()) flags += ',';
    flags += name;
  };
  add(e.curr, "curr");
  add(e.on_rq, "on_rq");
  add(e.sched_delayed, "sched_delayed");
  add(e.rel_deadline, "rel_deadline");
  add(e.custom_slice, "custom_slice");
  add(e.on_rq && e.eligible, "eligible");
  return fmt::format(
      "{}: vruntime={} deadline={} key={} vlag={} vprot={} slice={} weight={} "
      "min_vruntime={} min_slice={} max_slice={} [{}]",
      e.task, e.vruntime, e.deadline, e.key, e.vlag, e.vprot, e.slice, e.weight, e.min_vruntime, e.min_slice,
      e.max_slice, flags.empty() ? "-" : flags);
}

std::string format_violation(const Violation& v, const std::string& op_text, const std::string& profile) {
  std::string out = fmt::format("{} violated at operation {} ({}) in {} [profile {}]\n  {}\n", id_name(v.id),
                                v.op_index + 1, op_text.empty() ? "?" : op_text, v.where, profile, v.what);
  for (const auto& e : v.entities) out += "  " + format_entity(e) + "\n";
  out += fmt::format("  ({}: {})\n", id_name(v.id), id_statement(v.id));
  return out;
}

}  // namespace eevdf::inv
