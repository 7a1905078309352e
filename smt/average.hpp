// Obligations of obligations_average.cpp. Internal.
#pragma once

#include "smt/runner.hpp"

namespace eevdf::smt {

Outcome prove_avg_floor(const ObligationInfo& info, const Params& p);
Outcome prove_place_division(const ObligationInfo& info, const Params& p);
Outcome prove_eligible_exists(const ObligationInfo& info, const Params& p, Verdict sums_fit, Verdict key_load_fits);
Outcome prove_eligible_exists_unguarded(const ObligationInfo& info, const Params& p);

}  // namespace eevdf::smt
