// The fields an expectation can read: for every field, its name, whose it is
// (a sched_entity's, `expect field NAME.FIELD`, or a cfs_rq's, `expect queue
// QUEUE.FIELD`), how its value is written and read. The parser, the printer
// and the executor read this one table (docs/scenario-language.md,
// "Expectations"); a new field is a row here and its reader in
// scenario/expect_fields.cpp.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "model/kernel_types.hpp"
#include "model/profile.hpp"
#include "model/sched.hpp"

namespace eevdf::scn {

enum class FieldOwner : std::uint8_t {
  entity,  // a task's or a group's sched_entity: expect field NAME.FIELD
  queue,   // a CPU's root cfs_rq or a group's cfs_rq: expect queue root|GROUP.FIELD
};

enum class FieldValue : std::uint8_t {
  integer,  // a counter, a weight or a flag: printed as an integer
  time,     // (virtual) nanoseconds: printed as a duration when a whole number of us
  entity,   // an entity: a task or group name, or `none` (== and != only)
};

struct FieldSpec {
  std::string_view name;
  FieldOwner owner;
  FieldValue value;
};

// clang-format off
inline constexpr std::array<FieldSpec, 35> kFieldTable = {{
  // a sched_entity (virtual times compare as the kernel's (s64) cast)
  {"vruntime",         FieldOwner::entity, FieldValue::time},
  {"deadline",         FieldOwner::entity, FieldValue::time},
  {"vlag",             FieldOwner::entity, FieldValue::time},
  {"vprot",            FieldOwner::entity, FieldValue::time},
  {"slice",            FieldOwner::entity, FieldValue::time},
  {"weight",           FieldOwner::entity, FieldValue::integer},
  {"min_vruntime",     FieldOwner::entity, FieldValue::time},
  {"min_slice",        FieldOwner::entity, FieldValue::time},
  {"max_slice",        FieldOwner::entity, FieldValue::time},
  {"on_rq",            FieldOwner::entity, FieldValue::integer},
  {"sched_delayed",    FieldOwner::entity, FieldValue::integer},
  {"rel_deadline",     FieldOwner::entity, FieldValue::integer},
  {"custom_slice",     FieldOwner::entity, FieldValue::integer},
  {"sum_exec_runtime", FieldOwner::entity, FieldValue::time},
  {"exec_start",       FieldOwner::entity, FieldValue::time},
  {"cpu",              FieldOwner::entity, FieldValue::integer},  // the runqueue it belongs to (task_cpu)
  {"eligible",         FieldOwner::entity, FieldValue::integer},  // entity_eligible() against its queue, now
  // a cfs_rq
  {"zero_vruntime",    FieldOwner::queue,  FieldValue::time},     // the key base (profiles with zero_vruntime)
  {"min_vruntime",     FieldOwner::queue,  FieldValue::time},     // the key base (v6.6 .. v6.18)
  {"sum_w_vruntime",   FieldOwner::queue,  FieldValue::integer},  // cfs_rq->avg_vruntime in older kernels
  {"sum_weight",       FieldOwner::queue,  FieldValue::integer},  // cfs_rq->avg_load in older kernels
  {"weight",           FieldOwner::queue,  FieldValue::integer},  // load.weight
  {"nr_queued",        FieldOwner::queue,  FieldValue::integer},
  {"h_nr_queued",      FieldOwner::queue,  FieldValue::integer},
  {"h_nr_runnable",    FieldOwner::queue,  FieldValue::integer},
  {"nr_running",       FieldOwner::queue,  FieldValue::integer},  // nr_queued's name before v6.14
  {"h_nr_running",     FieldOwner::queue,  FieldValue::integer},  // h_nr_queued's name before v6.14
  {"h_nr_idle",        FieldOwner::queue,  FieldValue::integer},
  {"need_resched",     FieldOwner::queue,  FieldValue::integer},  // the CPU's flag
  {"next",             FieldOwner::queue,  FieldValue::entity},   // the next buddy
  // CPU bandwidth control (a group's queue; 0 on the root queue)
  {"throttled",        FieldOwner::queue,  FieldValue::integer},
  {"throttle_count",   FieldOwner::queue,  FieldValue::integer},
  {"runtime_remaining", FieldOwner::queue, FieldValue::time},
  {"runtime_enabled",  FieldOwner::queue,  FieldValue::integer},
  {"limbo",            FieldOwner::queue,  FieldValue::integer},  // v6.18: tasks on throttled_limbo_list
}};
// clang-format on

// The row of `name` for `owner`, or nullptr.
constexpr const FieldSpec* field_spec(FieldOwner owner, std::string_view name) {
  for (const FieldSpec& f : kFieldTable)
    if (f.owner == owner && f.name == name) return &f;
  return nullptr;
}

// "vruntime, deadline, ..." (parse errors).
std::string field_names(FieldOwner owner);

// The value of an entity's field; nullopt for a name not in the table.
std::optional<i128> entity_field(const SchedEntity& se, std::string_view field);

// The value of a queue's integer or time field (need_resched: of rq, the
// queue's CPU), or why it cannot be read on this profile (the key base under
// the other name).
struct QueueValue {
  std::optional<i128> value;
  std::string why;  // when no value
};
QueueValue queue_field(const CfsRq& q, bool need_resched, const Profile& profile, std::string_view field);

}  // namespace eevdf::scn
