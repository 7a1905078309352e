#include "fuzz/run_settings.hpp"

#include <algorithm>

#include "invariants/ids.hpp"

namespace eevdf::fuzz {

std::string apply_run_settings(const Scenario& s, const RunFlags& flags, ExecOptions& options) {
  inv::Selection selection;
  if (flags.only.empty()) {
    for (const std::string& name : s.skip) {
      const auto id = inv::id_from_name(name);
      if (!id) return "unknown invariant '" + name + "' in the scenario's skip (see `eevdf-check explain --list`)";
      selection.set(*id, false);
    }
  }
  if (auto err = inv::parse_selection(flags.only, flags.skip, selection); !err.empty()) return err;
  options.selection = selection;
  options.tolerances = s.tolerate && !flags.no_tolerance ? inv::Tolerances{} : inv::Tolerances{false};
  options.keep_going = options.keep_going || s.keep_going;
  return {};
}

void record_run_settings(const inv::Selection& selection, const inv::Tolerances& tolerances, Scenario& s) {
  std::vector<std::string> skip;
  for (const std::string& name : s.skip)
    if (const auto id = inv::id_from_name(name); id && !selection[*id]) skip.emplace_back(inv::id_name(*id));
  for (std::size_t i = 0; i < inv::kIdCount; ++i) {
    const std::string name(inv::id_name(static_cast<inv::Id>(i)));
    if (!selection.on[i] && std::find(skip.begin(), skip.end(), name) == skip.end()) skip.push_back(name);
  }
  s.skip = std::move(skip);
  s.tolerate = tolerances.f1_unscaled_vprot;
}

}  // namespace eevdf::fuzz
