#include "fuzz/minimize.hpp"

namespace eevdf::fuzz {

namespace {

bool same_finding(const ExecResult& r, const inv::Violation& target) {
  for (const auto& v : r.violations)
    if (v.id == target.id && v.where == target.where) return true;
  return false;
}

// Drops operations that name a task no remaining create/fork defines, so the
// scenario prints as valid text.
std::vector<Op> drop_undefined(const std::vector<Op>& ops) {
  std::vector<std::string> defined;
  std::vector<Op> out;
  auto known = [&](const std::string& n) { return n.empty() || std::find(defined.begin(), defined.end(), n) != defined.end(); };
  for (const Op& op : ops) {
    if (op.kind == OpKind::create) {
      if (known(op.task) && !op.task.empty()) continue;  // duplicate name
      defined.push_back(op.task);
      out.push_back(op);
      continue;
    }
    if (!known(op.task)) continue;
    if (op.kind == OpKind::fork) {
      if (known(op.child)) continue;
      defined.push_back(op.child);
    }
    out.push_back(op);
  }
  return out;
}

}  // namespace

MinimizeResult minimize(const Scenario& s, const Profile& profile, const inv::Violation& target,
                        std::chrono::milliseconds budget) {
  const auto deadline = std::chrono::steady_clock::now() + budget;
  ExecOptions options;
  options.strict = false;
  MinimizeResult result;
  Scenario best = s;
  best.expectations.clear();
  best.ops = drop_undefined(best.ops);
  auto still_fails = [&](const Scenario& candidate) {
    ++result.runs;
    return same_finding(execute(candidate, profile, options), target);
  };

  std::size_t chunk = best.ops.size() / 2;
  if (chunk == 0) chunk = 1;
  bool timed_out = false;
  while (true) {
    bool removed = false;
    for (std::size_t start = 0; start < best.ops.size();) {
      if (std::chrono::steady_clock::now() > deadline) {
        timed_out = true;
        break;
      }
      Scenario candidate = best;
      const std::size_t end = std::min(best.ops.size(), start + chunk);
      candidate.ops.erase(candidate.ops.begin() + static_cast<long>(start), candidate.ops.begin() + static_cast<long>(end));
      candidate.ops = drop_undefined(candidate.ops);
      if (candidate.ops.size() < best.ops.size() && still_fails(candidate)) {
        best = std::move(candidate);
        removed = true;
      } else {
        start += chunk;
      }
    }
    if (timed_out) break;
    if (chunk == 1 && !removed) break;
    if (!removed) chunk = std::max<std::size_t>(1, chunk / 2);
  }
  // Argument shrinking: shorter durations where the finding survives.
  for (auto& op : best.ops) {
    if (timed_out || std::chrono::steady_clock::now() > deadline) break;
    if (op.kind != OpKind::run) continue;
    for (s64 shorter : {s64{1000}, s64{100000}, s64{1000000}, op.value / 2}) {
      if (shorter >= op.value || shorter <= 0) continue;
      const s64 old = op.value;
      op.value = shorter;
      if (still_fails(best)) break;
      op.value = old;
    }
  }
  const ExecResult final_run = execute(best, profile, options);
  for (const auto& v : final_run.violations)
    if (v.id == target.id && v.where == target.where) {
      result.violation = v;
      break;
    }
  Expectation e;
  e.kind = Expectation::Kind::violation;
  e.invariant = std::string(inv::id_name(target.id));
  best.expectations.push_back(e);
  result.scenario = std::move(best);
  result.complete = !timed_out;
  return result;
}

}  // namespace eevdf::fuzz
