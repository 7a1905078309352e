// A violation is a value: which invariant, at which operation, where in the
// kernel, what was expected and found, and the entities involved.
#pragma once

#include <string>
#include <vector>

#include "invariants/ids.hpp"
#include "model/rq.hpp"

namespace eevdf::inv {

struct EntitySnapshot {
  std::string task;
  u64 vruntime = 0, deadline = 0, vprot = 0, slice = 0, weight = 0;
  u64 min_vruntime = 0, min_slice = 0, max_slice = 0;
  s64 vlag = 0, key = 0;
  bool on_rq = false, curr = false, sched_delayed = false, rel_deadline = false, custom_slice = false;
  bool eligible = false;
};

EntitySnapshot snapshot(const Rq& rq, const SchedEntity& se);

struct Violation {
  Id id = Id::WARN;
  int op_index = -1;       // 0-based index of the operation during or after which it arose
  std::string where;       // kernel function or arithmetic site
  std::string what;        // expected vs actual, in words and numbers
  std::vector<EntitySnapshot> entities;
  // The known finding it is ("K1"; scenario/known.hpp), set by the executor;
  // empty: not known, a finding.
  std::string known;
};

// A paragraph a kernel developer reads without our code: op_text is the
// scenario line of the operation ("yield B"), profile the profile's name.
std::string format_violation(const Violation& v, const std::string& op_text, const std::string& profile);
std::string format_entity(const EntitySnapshot& e);
std::string format_i128(i128 v);
// A task's name, or "group NAME" ("group NAME on CPU n" with several CPUs).
std::string entity_name(const Rq& rq, const SchedEntity* se);

}  // namespace eevdf::inv
