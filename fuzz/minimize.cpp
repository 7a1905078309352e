#include "fuzz/minimize.hpp"

#include <optional>

#include "scenario/finding_identity.hpp"
#include "scenario/duration.hpp"

namespace eevdf::fuzz {

using namespace scn;  // the scenario layer the engines drive

namespace {

// The violation of r with the target's identity (invariant, site, detail
// class and trigger: scenario/finding_identity.hpp), or nullptr: a candidate that
// breaks the invariant at the site by another mechanism is not the finding.
const inv::Violation* same_finding(const Scenario& candidate, const ExecResult& r, const FindingIdentity& target) {
  for (const auto& v : r.violations)
    if (v.known.empty() && v.id == target.id && v.where == target.where && finding_identity(v, candidate) == target)
      return &v;
  return nullptr;
}

// every field a shrinking step can change
bool same_fields(const Op& a, const Op& b) {
  return a.kind == b.kind && a.task == b.task && a.child == b.child && a.value == b.value && a.policy == b.policy &&
         a.sync == b.sync && a.racing == b.racing && a.slice == b.slice && a.group == b.group && a.parent == b.parent && a.cpu == b.cpu &&
         a.from == b.from &&
         a.nopreempt == b.nopreempt;
}

// Drops operations that name a task or a group no remaining create/fork/group
// defines, so the scenario prints as valid text.
std::vector<Op> drop_undefined(const std::vector<Op>& ops) {
  std::vector<std::string> defined;
  std::vector<std::string> groups;
  std::vector<Op> out;
  auto known = [&](const std::string& n) { return n.empty() || std::find(defined.begin(), defined.end(), n) != defined.end(); };
  auto known_group = [&](const std::string& n) {
    return n.empty() || std::find(groups.begin(), groups.end(), n) != groups.end();
  };
  for (const Op& op : ops) {
    if (op.kind == OpKind::group_create) {
      if (op.group.empty() || known_group(op.group) || !known_group(op.parent)) continue;
      groups.push_back(op.group);
      out.push_back(op);
      continue;
    }
    if (!known_group(op.group)) continue;
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

namespace {
// The shrinking passes, for any predicate on a run's result.
template <class Fails>
MinimizeResult shrink(const Scenario& s, const Profile& profile, const ExecOptions& options, Fails fails,
                      std::chrono::milliseconds budget) {
  const auto deadline = std::chrono::steady_clock::now() + budget;
  MinimizeResult result;
  Scenario best = s;
  best.expectations.clear();
  best.ops = drop_undefined(best.ops);
  const auto still_fails = [&](const Scenario& candidate) {
    ++result.runs;
    return fails(candidate, execute(candidate, profile, options));
  };

  // Operations the kernel refuses are skipped when generated, but a text
  // scenario must not contain them: `run` is strict.
  const auto drop_skipped = [&] {
    const ExecResult r = execute(best, profile, options);
    if (r.skipped_ops.empty()) return;
    Scenario candidate = best;
    for (auto it = r.skipped_ops.rbegin(); it != r.skipped_ops.rend(); ++it)
      candidate.ops.erase(candidate.ops.begin() + static_cast<long>(*it));
    candidate.ops = drop_undefined(candidate.ops);
    if (still_fails(candidate)) best = std::move(candidate);
  };
  drop_skipped();

  bool timed_out = false;
  auto out_of_time = [&] {
    timed_out = timed_out || std::chrono::steady_clock::now() > deadline;
    return timed_out;
  };

  // ddmin over operations: remove chunks of halving size while the finding stays.
  auto remove_operations = [&] {
    bool progress = false;
    std::size_t chunk = std::max<std::size_t>(1, best.ops.size() / 2);
    while (!out_of_time()) {
      bool removed = false;
      for (std::size_t start = 0; start < best.ops.size() && !out_of_time();) {
        Scenario candidate = best;
        const std::size_t end = std::min(best.ops.size(), start + chunk);
        candidate.ops.erase(candidate.ops.begin() + static_cast<long>(start),
                            candidate.ops.begin() + static_cast<long>(end));
        candidate.ops = drop_undefined(candidate.ops);
        if (candidate.ops.size() < best.ops.size() && still_fails(candidate)) {
          best = std::move(candidate);
          removed = progress = true;
        } else {
          start += chunk;
        }
      }
      if (chunk == 1 && !removed) break;
      if (!removed) chunk = std::max<std::size_t>(1, chunk / 2);
    }
    return progress;
  };

  // Simpler arguments: default task parameters, round nice levels, no sync,
  // no racing fork or debugfs read, default group shares and parents, shorter
  // runs; each change kept only if the finding stays.
  auto simplify_arguments = [&] {
    bool progress = false;
    auto attempt = [&](std::size_t i, auto change) {
      if (out_of_time()) return;
      Scenario candidate = best;
      Op& op = candidate.ops[i];
      const Op before = op;
      change(op);
      if (same_fields(op, before)) return;
      if (still_fails(candidate)) {
        best = std::move(candidate);
        progress = true;
      }
    };
    std::vector<std::string> created;  // task names defined before operation i
    for (std::size_t i = 0; i < best.ops.size(); ++i) {
      const OpKind kind = best.ops[i].kind;
      // the same operation on an earlier task, so that later tasks can go;
      // only tasks created before the operation's own (a swap to a later one
      // could be undone by the next pass, and the two would alternate until
      // the budget ran out)
      if (kind != OpKind::create && !best.ops[i].task.empty()) {
        const std::string own = best.ops[i].task;
        for (const std::string& other : created) {
          if (other == own || best.ops[i].task != own) break;
          attempt(i, [&other](Op& o) { o.task = other; });
          if (kind == OpKind::nice)  // a renice may need another level on another task
            for (s64 v : {s64{0}, s64{-20}, s64{19}})
              attempt(i, [&other, v](Op& o) {
                o.task = other;
                o.value = v;
              });
        }
      }
      if (kind == OpKind::create) created.push_back(best.ops[i].task);
      if (kind == OpKind::fork) created.push_back(best.ops[i].child);
      switch (kind) {
        case OpKind::create:
          attempt(i, [](Op& o) { o.value = 0; });
          attempt(i, [](Op& o) { o.policy = Policy::normal; });
          attempt(i, [](Op& o) { o.slice = 0; });
          break;
        case OpKind::nice:  // the simplest level that keeps the finding, never back to a less simple one
          for (s64 v : {s64{0}, s64{-20}, s64{19}}) {
            if (best.ops[i].value == v) break;  // (trying 19 after -20 worked made the two alternate)
            attempt(i, [v](Op& o) { o.value = v; });
            if (best.ops[i].value == v) break;
          }
          break;
        case OpKind::wake:
          attempt(i, [](Op& o) { o.sync = false; });
          attempt(i, [](Op& o) { o.cpu = -1; });  // the task's own CPU (a byte input's cpu=0 on one runqueue)
          attempt(i, [](Op& o) { o.from = -1; });  // made from the task's own CPU
          break;
        case OpKind::fork:
          attempt(i, [](Op& o) { o.racing = false; });
          break;
        case OpKind::debug_read:  // the reader alone, the root queue, CPU 0: each kept only if the finding stays
          attempt(i, [](Op& o) { o.racing = false; });
          attempt(i, [](Op& o) { o.group.clear(); });
          attempt(i, [](Op& o) { o.cpu = -1; });
          break;
        case OpKind::group_create:  // default shares, then the root group as parent
          attempt(i, [](Op& o) { o.value = kDefaultShares; });
          attempt(i, [](Op& o) { o.parent.clear(); });
          break;
        case OpKind::shares:  // a write of the default is often a no-op that ddmin then removes
          attempt(i, [](Op& o) { o.value = kDefaultShares; });
          break;
        case OpKind::run:
          for (s64 v : {s64{1000}, s64{100000}, s64{1000000}, best.ops[i].value / 2})
            if (v > 0 && v < best.ops[i].value) attempt(i, [v](Op& o) { o.value = v; });
          break;
        case OpKind::tick:  // a tick with its preemption point, if the finding needs none
          if (best.ops[i].nopreempt) attempt(i, [](Op& o) { o.nopreempt = false; });
          break;
        case OpKind::run_notick:  // a plain run or tick if the finding needs no time off the tick grid
        case OpKind::tick_after:
          attempt(i, [](Op& o) {
            if (o.kind == OpKind::tick_after) o.value = 0;  // a tick has no duration
            o.kind = o.kind == OpKind::run_notick ? OpKind::run : OpKind::tick;
          });
          if (best.ops[i].kind != kind) break;
          for (s64 v : {s64{0}, s64{1000}, s64{100000}, s64{1000000}, best.ops[i].value / 2})
            if (v >= 0 && v < best.ops[i].value) attempt(i, [v](Op& o) { o.value = v; });
          break;
        case OpKind::base_slice:  // the edges of the range and the default at 8 CPUs: a round value if one keeps it
          for (s64 v : {s64{2'800'000}, s64{100'000}, s64{100'000'000}}) {
            if (best.ops[i].value == v) break;  // never back to a less simple one (no alternation)
            attempt(i, [v](Op& o) { o.value = v; });
            if (best.ops[i].value == v) break;
          }
          break;
        default:
          break;
      }
    }
    return progress;
  };

  // A nice, policy or slice of a task before its first wake-up as an option
  // of its `task` line (create_task() applies them before it first runs):
  // one operation fewer, and the task reads as it was meant.
  auto fold_into_create = [&] {
    bool progress = false;
    // the `task` line of op's task if op comes before the task's first wake-up
    const auto create_before_wake = [&](std::size_t i) -> std::optional<std::size_t> {
      std::optional<std::size_t> create;
      for (std::size_t j = 0; j < i; ++j) {
        const Op& earlier = best.ops[j];
        if (earlier.task != best.ops[i].task) continue;
        if (earlier.kind == OpKind::wake) return std::nullopt;
        if (earlier.kind == OpKind::create) create = j;
      }
      return create;
    };
    for (std::size_t i = 0; i < best.ops.size() && !out_of_time();) {
      const Op& op = best.ops[i];
      const bool setting = op.kind == OpKind::nice || op.kind == OpKind::policy || op.kind == OpKind::slice;
      std::optional<std::size_t> create = setting ? create_before_wake(i) : std::nullopt;
      // an RT task takes no nice, slice or policy option (the operation is refused on it anyway)
      if (create && best.ops[*create].policy == Policy::fifo) create.reset();
      if (!create) {
        ++i;
        continue;
      }
      Scenario candidate = best;
      Op& c = candidate.ops[*create];
      if (op.kind == OpKind::nice) c.value = op.value;
      if (op.kind == OpKind::policy) c.policy = op.policy;
      if (op.kind == OpKind::slice) c.slice = op.value;
      candidate.ops.erase(candidate.ops.begin() + static_cast<long>(i));
      if (still_fails(candidate)) {  // the next operation moved into place i
        best = std::move(candidate);
        progress = true;
      } else {
        ++i;
      }
    }
    return progress;
  };

  // Two adjacent runs as one: the same clock and ticks, one operation fewer
  // (a bug that needs time to pass minimizes to one long run, not to many).
  auto merge_runs = [&] {
    bool progress = false;
    for (std::size_t i = 0; i + 1 < best.ops.size() && !out_of_time();) {
      const Op& a = best.ops[i];
      const Op& b = best.ops[i + 1];
      if (a.kind != OpKind::run || b.kind != OpKind::run || a.value > kMaxDurationNs - b.value) {
        ++i;
        continue;
      }
      Scenario candidate = best;
      candidate.ops[i].value = a.value + b.value;
      candidate.ops.erase(candidate.ops.begin() + static_cast<long>(i) + 1);
      if (still_fails(candidate)) {
        best = std::move(candidate);
        progress = true;
      } else {
        ++i;
      }
    }
    return progress;
  };

  while (!out_of_time()) {
    const bool a = remove_operations();
    const bool b = simplify_arguments();
    const bool c = merge_runs();
    const bool d = fold_into_create();
    if (!a && !b && !c && !d) break;
  }
  drop_skipped();
  result.scenario = std::move(best);
  result.complete = !timed_out;
  return result;
}
}  // namespace

MinimizeResult minimize(const Scenario& s, const Profile& profile, const inv::Violation& target,
                        std::chrono::milliseconds budget, inv::Tolerances tolerances,
                        const inv::Selection& selection, Backend backend, const KnownSet* known) {
  ExecOptions options;
  options.strict = false;
  options.tolerances = tolerances;
  options.selection = selection;
  options.backend = backend;
  options.known = known;
  const FindingIdentity identity = finding_identity(target, s);
  MinimizeResult result = shrink(
      s, profile, options,
      [&](const Scenario& candidate, const ExecResult& r) { return same_finding(candidate, r, identity) != nullptr; },
      budget);
  const ExecResult final_run = execute(result.scenario, profile, options);
  if (const inv::Violation* v = same_finding(result.scenario, final_run, identity)) {
    result.violation = *v;
    for (const auto& k : final_run.violations)
      if (!k.known.empty() && k.op_index <= v->op_index &&
          (", " + result.after_known + ", ").find(", " + k.known + ", ") == std::string::npos)
        result.after_known += (result.after_known.empty() ? "" : ", ") + k.known;
  }
  Expectation e;
  e.kind = Expectation::Kind::violation;
  e.invariant = std::string(inv::id_name(target.id));
  result.scenario.expectations.push_back(e);
  return result;
}

MinimizeResult minimize_divergence(const Scenario& s, const Profile& profile, const Divergence& target,
                                   std::chrono::milliseconds budget) {
  ExecOptions options;
  options.strict = false;
  options.backend = Backend::lockstep;
  const OpKind kind = s.ops[static_cast<std::size_t>(target.op_index)].kind;
  // the same first differing field, after the same kind of operation
  const auto same_divergence = [&](const Scenario& candidate, const ExecResult& r) {
    return r.divergence && r.divergence->field == target.field && r.divergence->op_index >= 0 &&
           candidate.ops[static_cast<std::size_t>(r.divergence->op_index)].kind == kind;
  };
  MinimizeResult result = shrink(s, profile, options, same_divergence, budget);
  result.divergence = execute(result.scenario, profile, options).divergence;
  return result;
}

}  // namespace eevdf::fuzz
