// `eevdf-check fuzz`: runs the own engine's campaign (fuzz/campaign.hpp) and
// prints its progress, its findings and the summary.
#pragma once

#include <string>

#include "fuzz/campaign.hpp"
#include "model/profile.hpp"

namespace eevdf::cli {

// profile_args: the command-line flags a finding's replay line repeats.
// Returns the number of distinct findings (lockstep: of divergences).
int run_campaign(const Profile& profile, const std::string& profile_args, const fuzz::CampaignOptions& options);

}  // namespace eevdf::cli
