#include "cli/counterexample.hpp"

#include <fmt/format.h>

#include "scenario/executor.hpp"
#include "fuzz/minimize.hpp"
#include "invariants/ids.hpp"

namespace eevdf::cli {

std::optional<scn::Scenario> minimize_counterexample(const scn::Scenario& counterexample, const Profile& profile,
                                                      std::chrono::seconds budget, scn::Backend backend) {
  const scn::Scenario* s = &counterexample;
  scn::ExecOptions options;
  options.strict = false;
  if (backend == scn::Backend::lockstep) {  // a divergence: keep the first differing field
    options.backend = backend;
    const scn::ExecResult r = scn::execute(*s, profile, options);
    if (!r.divergence) return std::nullopt;
    const fuzz::MinimizeResult m = fuzz::minimize_divergence(*s, profile, *r.divergence, budget);
    if (m.scenario.ops.size() >= s->ops.size()) return std::nullopt;
    scn::Scenario out = m.scenario;
    out.title = fmt::format("lockstep divergence in {} (minimized further from {} to {} operations{})",
                            r.divergence->field, s->ops.size(), out.ops.size(), m.complete ? "" : ", budget ran out");
    return out;
  }
  const scn::ExecResult r = scn::execute(*s, profile, options);
  if (r.violations.empty()) return std::nullopt;
  const fuzz::MinimizeResult m = fuzz::minimize(*s, profile, r.violations.front(), budget);
  if (m.scenario.ops.size() >= s->ops.size()) return std::nullopt;
  scn::Scenario out = m.scenario;  // the counterexample's header: profile, bug, features
  out.title = fmt::format("{} in {} (minimized further from {} to {} operations{})", inv::id_name(m.violation.id),
                          m.violation.where, s->ops.size(), out.ops.size(), m.complete ? "" : ", budget ran out");
  return out;
}

}  // namespace eevdf::cli
