// Operation-level delta debugging: the smallest sub-sequence of operations
// that still raises the same finding: the same invariant at the same site, by
// the same mechanism (scenario/finding_identity.hpp).
#pragma once

#include <algorithm>
#include <chrono>
#include <optional>

#include "scenario/executor.hpp"

namespace eevdf::fuzz {

struct MinimizeResult {
  scn::Scenario scenario;       // the minimized scenario, with an `expect violation` line
  inv::Violation violation;
  std::optional<scn::Divergence> divergence;  // minimize_divergence(): the divergence the result replays
  int runs = 0;            // executions spent
  bool complete = false;   // 1-minimal (false: the budget ran out first)
  // With known findings: the names of the known findings that the minimized
  // scenario raises at or before the target ("K1, K2"; their operations could
  // not be removed: the target follows from them); empty when it stands alone.
  std::string after_known;
};

// Shrinks s, which must raise `target` on profile (the result raises a
// violation of the same identity: finding_identity(target, s)), run on
// `backend` (a violation found on the kernel's own state is shrunk there).
// With `known` (scenario/known.hpp) the runs go on past known findings, as
// the campaign's did, and the target must stay a violation that is not known.
MinimizeResult minimize(const scn::Scenario& s, const Profile& profile, const inv::Violation& target,
                        std::chrono::milliseconds budget, inv::Tolerances tolerances = {},
                        const inv::Selection& selection = {}, scn::Backend backend = scn::Backend::model,
                        const scn::KnownSet* known = nullptr);

// Shrinks s, which must diverge in lockstep (model against the kernel backend)
// in target.field: the result diverges in the same field.
MinimizeResult minimize_divergence(const scn::Scenario& s, const Profile& profile, const scn::Divergence& target,
                                   std::chrono::milliseconds budget);

}  // namespace eevdf::fuzz
