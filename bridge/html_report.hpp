// `report`: one self-contained HTML page (inline SVG and CSS, no script, no
// network) for a scenario run: the per-task timeline (who runs at every
// step), vruntime / deadline / lag / V over the steps, the violation marked
// at its step, and the scenario text beside it with the violating line
// highlighted. Deterministic: the same run gives the same bytes.
#pragma once

#include <string>

#include "bridge/sim.hpp"
#include "scenario/scenario.hpp"
#include "model/profile.hpp"

namespace eevdf::bridge {

// source_text: the scenario file as read (shown with line numbers).
std::string html_report(const scn::Scenario& s, const std::string& source_name, const std::string& source_text,
                        const Profile& profile, const SimResult& r);

}  // namespace eevdf::bridge
