#include "scenario/expect_fields.hpp"

#include "model/fair.hpp"

namespace eevdf::scn {

std::string field_names(FieldOwner owner) {
  std::string names;
  for (const FieldSpec& f : kFieldTable) {
    if (f.owner != owner) continue;
    if (!names.empty()) names += ", ";
    names += f.name;
  }
  return names;
}

std::optional<i128> entity_field(const SchedEntity& se, std::string_view field) {
  // virtual times are u64 that wrap by design; compare them as the kernel's (s64)
  if (field == "vruntime") return as_s64(se.vruntime);
  if (field == "deadline") return as_s64(se.deadline);
  if (field == "vlag") return se.vlag;
  if (field == "vprot") return as_s64(se.vprot);
  if (field == "slice") return se.slice;
  if (field == "weight") return se.load.weight;
  if (field == "min_vruntime") return as_s64(se.min_vruntime);
  if (field == "min_slice") return se.min_slice;
  if (field == "max_slice") return se.max_slice;
  if (field == "on_rq") return se.on_rq;
  if (field == "sched_delayed") return se.sched_delayed;
  if (field == "rel_deadline") return se.rel_deadline;
  if (field == "custom_slice") return se.custom_slice;
  if (field == "sum_exec_runtime") return se.sum_exec_runtime;
  if (field == "exec_start") return se.exec_start;
  if (field == "cpu") return se.cfs_rq && se.cfs_rq->rq ? se.cfs_rq->rq->cpu : 0;
  // entity_eligible(): vruntime_eligible() of its vruntime against the queue it
  // is (or was last) on, curr included as the kernel includes it
  if (field == "eligible") return se.cfs_rq ? vruntime_eligible(*se.cfs_rq, se.vruntime, null_observer()) : false;
  return std::nullopt;
}

QueueValue queue_field(const CfsRq& q, bool need_resched, const Profile& profile, std::string_view field) {
  // one field, two names: the key base is min_vruntime where update_min_vruntime() moves it
  const bool min_base = profile.behaviour.key_base == KeyBase::min_vruntime;
  if (field == "zero_vruntime" || field == "min_vruntime") {
    if ((field == "min_vruntime") != min_base)
      return {std::nullopt, "profile " + profile.name + " has no cfs_rq->" + std::string(field) + ": its key base is " +
                                (min_base ? "min_vruntime" : "zero_vruntime")};
    return {as_s64(q.zero_vruntime), {}};
  }
  if (field == "sum_w_vruntime") return {q.sum_w_vruntime, {}};
  if (field == "sum_weight") return {q.sum_weight, {}};
  if (field == "weight") return {q.load.weight, {}};
  if (field == "nr_queued" || field == "nr_running") return {q.nr_queued, {}};
  if (field == "h_nr_queued" || field == "h_nr_running") return {q.h_nr_queued, {}};
  if (field == "h_nr_runnable") return {q.h_nr_runnable, {}};
  if (field == "h_nr_idle") return {q.h_nr_idle, {}};
  // CPU bandwidth control
  if (field == "throttled") return {q.throttled ? 1 : 0, {}};
  if (field == "throttle_count") return {q.throttle_count, {}};
  if (field == "runtime_remaining") return {q.runtime_remaining, {}};
  if (field == "limbo") return {static_cast<s64>(q.throttled_limbo_list.size()), {}};
  if (field == "runtime_enabled") return {q.runtime_enabled ? 1 : 0, {}};
  if (field == "need_resched") return {need_resched, {}};
  return {std::nullopt, "no queue field " + std::string(field)};
}

}  // namespace eevdf::scn
