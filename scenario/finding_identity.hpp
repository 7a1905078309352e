// What makes two findings the same finding. A campaign keeps one finding per
// identity, and the minimizer keeps the identity of the violation it shrinks.
//
// (invariant, site) alone is too coarse: different kernel bugs break the same
// invariant at the same site (I-DL in place_entity / update_deadline after a
// yield in B20, after a renice in 6.12.118's K1; I-WAKEPICK in
// wakeup_preempt_fair for a short wakee that loses to the next buddy, F3, or to
// an earlier deadline, F5). So the identity adds:
//  - the detail class: the violation's text with its numbers and the names of
//    the scenario's tasks and groups taken out (which rule of the invariant
//    broke, and how: "the pick ... takes @: the eligible next buddy");
//  - the trigger: the kind of the operation during which it arose (a yield, a
//    renice, a wake-up): the kernel entry point the mechanism goes through.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "invariants/violation.hpp"
#include "scenario/scenario.hpp"

namespace eevdf::scn {

struct FindingIdentity {
  inv::Id id = inv::Id::WARN;
  std::string where;
  std::string detail;          // detail_class() of the violation's text
  std::string trigger;         // the keyword of the operation it arose in ("yield"), "" if none
  bool operator==(const FindingIdentity&) const = default;
};

// `what` with every number (sign included) as '#', every word that names one of
// `names` as '@' ("group @" as '@'), and a list of them as one.
std::string detail_class(std::string_view what, const std::vector<std::string>& names);

// The names of the tasks and groups a scenario defines or uses.
std::vector<std::string> entity_names(const Scenario& s);

FindingIdentity finding_identity(const inv::Violation& v, const Scenario& s);
// The same with the scenario's entity_names() computed once by the caller.
FindingIdentity finding_identity(const inv::Violation& v, const Scenario& s, const std::vector<std::string>& names);

// "I-DL in place_entity / update_deadline at a yield: the deadline of @ lies # ns ..."
std::string describe(const FindingIdentity& f);

}  // namespace eevdf::scn
