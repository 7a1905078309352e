// `report`: one self-contained HTML page (inline SVG and CSS, no script, no
// network) for a scenario run: the per-task timeline over simulated time (a
// bar while a task runs, a line while it waits, a mark for each operation),
// vruntime / deadline / lag / V over the same time, every violation marked
// where it arose (a run that keeps going is drawn to its end), optionally
// the booted kernel's run/wait of each task beside the model's, and the
// scenario text with the violating lines highlighted. Deterministic: the
// same run gives the same bytes.
#pragma once

#include <string>

#include "bridge/sim.hpp"
#include "bridge/vm_runner.hpp"
#include "scenario/scenario.hpp"
#include "model/profile.hpp"

namespace eevdf::bridge {

// source_text: the scenario file as read (shown with line numbers). vm: a
// recorded run of the same scenario on a booted kernel (parse_vm_results()),
// drawn as a second lane under each task; null: none.
std::string html_report(const scn::Scenario& s, const std::string& source_name, const std::string& source_text,
                        const Profile& profile, const SimResult& r, const KernelRun* vm = nullptr);

}  // namespace eevdf::bridge
