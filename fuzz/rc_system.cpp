// The system the RapidCheck commands drive (fuzz/rc_commands.hpp): its setup
// from a profile, the abstract model's lookups, and RcSystem, which performs
// an operation as scn::Executor does and records the failure. The commands:
// fuzz/rc_commands.cpp; the check that runs them: fuzz/rc_check.cpp.
#include "fuzz/rc_commands.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "scenario/executor.hpp"
#include "scenario/scenario_parse.hpp"
#include "scenario/scenario_print.hpp"
#include "invariants/ids.hpp"

namespace eevdf::fuzz {

using namespace scn;  // the scenario layer the engines drive

std::shared_ptr<const RcSetup> make_rc_setup(const Profile& profile, std::string& error) {
  const auto spec = spec_of(profile, error);
  if (!spec) return nullptr;
  // A replay reads the header: its tunables must be ones the language can write.
  const bool hz_ok = std::find(kAllowedHz.begin(), kAllowedHz.end(), spec->hz) != kAllowedHz.end();
  const bool cpus_ok = spec->cpus >= 1 && spec->cpus <= kMaxCpus;
  const bool slice_ok = !spec->base_slice || (static_cast<s64>(*spec->base_slice) >= kMinSliceNs &&
                                              static_cast<s64>(*spec->base_slice) <= kMaxSliceNs);
  if (!hz_ok || !cpus_ok || !slice_ok) {
    error = fmt::format("profile '{}' cannot be written as a scenario: {}", profile.name,
                        !hz_ok     ? fmt::format("hz {} (100, 250, 300 or 1000)", spec->hz)
                        : !cpus_ok ? fmt::format("cpus {} (1 to {})", spec->cpus, kMaxCpus)
                                   : fmt::format("base slice {} ns (0.1ms to 100ms)", *spec->base_slice));
    return nullptr;
  }
  auto rebuilt = make_profile(*spec, error);
  if (!rebuilt) return nullptr;
  auto setup = std::make_shared<RcSetup>();
  set_profile_spec(setup->header, *spec);
  setup->profile = std::move(*rebuilt);
  return setup;
}

const RcModel::TaskInfo* RcModel::find(std::string_view name) const {
  for (const auto& t : tasks)
    if (t.name == name) return &t;
  return nullptr;
}

RcModel::TaskInfo* RcModel::find(std::string_view name) {
  for (auto& t : tasks)
    if (t.name == name) return &t;
  return nullptr;
}

namespace {
// Every invariant; none in lockstep, where the comparison with the kernel is the property.
std::vector<std::unique_ptr<inv::Checker>> checkers_for(System& sys, Backend backend) {
  std::vector<std::unique_ptr<inv::Checker>> out;
  inv::Selection selection;
  if (backend == Backend::lockstep) selection.on.fill(false);
  for (unsigned c = 0; c < sys.size(); ++c) {
    out.push_back(std::make_unique<inv::Checker>(selection, inv::Tolerances{}));
    out.back()->attach(sys.rq(c));
  }
  return out;
}
}  // namespace

RcSystem::RcSystem(std::shared_ptr<const RcSetup> s)
    : setup(std::move(s)),
      sys(setup->profile, setup->runqueues),
      rq(sys.rq(0)),
      checkers(checkers_for(sys, setup->backend)),
      checker(*checkers.front()) {
  executed.reserve(128);
  if (setup->backend == Backend::lockstep) kernel = std::make_unique<kernelsrc::KernelBackend>(setup->profile, setup->runqueues);
}

std::string RcSystem::curr_name() const { return curr_name(0); }

std::string RcSystem::curr_name(unsigned cpu) const {
  const Rq& r = sys.rq(cpu < sys.size() ? cpu : 0);
  return r.running() >= 0 ? r.tasks[static_cast<std::size_t>(r.running())].name : std::string();  // an RT task too
}

const Task* RcSystem::task(const std::string& name) const { return rq.task(rq.find_task(name)); }

void RcSystem::perform(const Op& op) {
  const int index = static_cast<int>(executed.size());
  executed.push_back(op);
  for (auto& c : checkers) c->begin_op(index, op_class(op.kind));
  const int id = op.task.empty() ? -1 : rq.find_task(op.task);
  Refusal refusal = apply_operation(sys, op, id);  // as scn::Executor does
  std::optional<Divergence> divergence;
  if (kernel) {
    const std::optional<Op> kernel_op = op_for_kernel(sys, op, id, refusal);
    const Refusal kernel_refusal = kernel_op ? apply_operation(*kernel, *kernel_op, id) : refusal;
    // once the modelled kernel has crashed (a NULL pick), the state after it is
    // not the kernel's: the executor's lockstep stops there too
    if (kernel_refusal != refusal)
      divergence = Divergence{index, "refusal", refusal_text(refusal), refusal_text(kernel_refusal)};
    else if (!sys.oops())
      divergence = first_difference(sys, *kernel);
  }
  if (sys.size() > 1) inv::share_max_slice(sys, checkers);  // as scn::Executor does
  for (auto& c : checkers) c->end_op();
  if (sys.size() > 1) inv::share_end_records(sys, checkers);
  std::vector<inv::Violation> violations;
  for (const auto& c : checkers) violations.insert(violations.end(), c->violations().begin(), c->violations().end());

  if (divergence) {
    failed = true;
    failure_id = "lockstep";
    failure = fmt::format("lockstep divergence after operation {} ({}): {}: model {}, kernel {}\n", index + 1,
                          print_op(op), divergence->field, divergence->model, divergence->kernel);
    RC_FAIL(failure);
  }
  if (refusal != Refusal::none) {
    // A bug of resolve(): the command should have been skipped.
    failed = true;
    failure_id = "refused";
    failure = fmt::format("internal error: operation {} ({}) refused: {}\n", index + 1, print_op(op),
                          refusal_text(refusal));
    RC_FAIL(failure);
  }
  if (!violations.empty()) {
    failed = true;
    failure_id = inv::id_name(violations.front().id);
    failure.clear();
    for (const auto& v : violations) {
      const std::string text =
          v.op_index >= 0 && static_cast<std::size_t>(v.op_index) < executed.size()
              ? print_op(executed[static_cast<std::size_t>(v.op_index)])
              : std::string();
      failure += inv::format_violation(v, text, setup->profile.name);
    }
  } else if (sys.oops()) {
    failed = true;
    failure_id = "oops";
    failure = fmt::format("the modelled kernel crashed (NULL pick) at operation {} ({}) [profile {}]\n", index + 1,
                          print_op(op), setup->profile.name);
  }
  if (failed) RC_FAIL(failure);
}

Scenario RcSystem::scenario() const {
  Scenario s = setup->header;
  s.ops = executed;
  return s;
}

}  // namespace eevdf::fuzz
