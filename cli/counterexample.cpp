#include "cli/counterexample.hpp"

#include <fmt/format.h>

#include <variant>

#include "fuzz/executor.hpp"
#include "fuzz/minimize.hpp"
#include "fuzz/scenario_parse.hpp"
#include "invariants/ids.hpp"

namespace eevdf::cli {

std::optional<fuzz::Scenario> minimize_counterexample(const std::string& text, const Profile& profile,
                                                      std::chrono::seconds budget) {
  const auto parsed = fuzz::parse_scenario(text, "<counterexample>");
  const auto* s = std::get_if<fuzz::Scenario>(&parsed);
  if (!s) return std::nullopt;
  fuzz::ExecOptions options;
  options.strict = false;
  const fuzz::ExecResult r = fuzz::execute(*s, profile, options);
  if (r.violations.empty()) return std::nullopt;
  const fuzz::MinimizeResult m = fuzz::minimize(*s, profile, r.violations.front(), budget);
  if (m.scenario.ops.size() >= s->ops.size()) return std::nullopt;
  fuzz::Scenario out = m.scenario;  // the counterexample's header: profile, bug, features
  out.title = fmt::format("{} in {} (minimized further from {} to {} operations{})", inv::id_name(m.violation.id),
                          m.violation.where, s->ops.size(), out.ops.size(), m.complete ? "" : ", budget ran out");
  return out;
}

}  // namespace eevdf::cli
