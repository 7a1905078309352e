#include "scenario/run_settings.hpp"

#include <algorithm>
#include <map>
#include <mutex>

#include "invariants/ids.hpp"
#include "kernelsrc/kernel_backend.hpp"

namespace eevdf::scn {

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
  options.backend = flags.backend.value_or(s.backend);
  if (options.backend != Backend::model && !kernelsrc::available()) {
    const std::string why = "needs the kernel backend, which this build does not have (no kernel tree at build "
                            "time: cmake -DEEVDF_KERNEL_SRC=DIR)";
    const std::string name = backend_name(options.backend);
    if (flags.backend) return "--backend " + name + ": " + why;
    const std::string file = flags.file.empty() ? "<scenario>" : flags.file;
    const std::string where = s.backend_line > 0 ? file + ":" + std::to_string(s.backend_line) : file;
    return where + ": error: 'backend " + name + "' " + why + "; --backend model runs it on the model alone";
  }
  return {};
}

std::string choose_judge(Backend backend, const Scenario* s, bool force, ProfileOverride& o, std::string& note,
                         const std::string& file) {
  note.clear();
  if (backend == Backend::model || !kernelsrc::available()) return {};  // (the executor refuses the latter)
  const bool from_line = o.profile.empty() && s && s->profile_line > 0;
  const std::string given = !o.profile.empty() ? o.profile : from_line ? s->profile : std::string{};
  const std::string judge = kernelsrc::judge();
  const std::string tree = "Linux " + kernelsrc::kernel_version();
  const KernelRelease judge_release = profile_release(judge);
  const bool exact = judge_release == kernelsrc::tree_release();
  if (given.empty()) {
    if (judge.empty())
      return tree + ": no profile has the tree's major.minor (eevdf-check profiles); --profile P --force-profile "
                    "judges it by P";
    o.profile = judge;
    note = "judged by profile " + judge + (exact ? ", the profile of the tree's release"
                                                 : ", the profile nearest to the tree's release (" +
                                                       std::to_string(judge_release.major) + "." +
                                                       std::to_string(judge_release.minor) + "." +
                                                       std::to_string(judge_release.sublevel) + ")");
    return {};
  }
  if (given == judge) {
    note = "judged by profile " + judge;
    return {};
  }
  if (force) {
    note = "judged by profile " + given + " (--force-profile; the tree's own is " +
           (judge.empty() ? std::string("none") : judge) + ")";
    return {};
  }
  const std::string where = from_line ? (file.empty() ? "<scenario>" : file) + ":" + std::to_string(s->profile_line) + ": "
                                      : std::string("--profile: ");
  return where + "profile " + given + " does not judge this build's tree: " + tree + " is judged by " +
         (judge.empty() ? std::string("no profile") : judge) +
         " (its release's rules, never another's); leave the profile out to use it, or pass --force-profile to "
         "judge the tree by " + given + " anyway";
}

const KnownSet& judge_known_findings(std::string_view profile, Backend backend) {
  const KnownSet& all = known_findings(profile);
  if (backend == Backend::model || !kernelsrc::available()) return all;
  static const std::vector<std::string> fixed = kernelsrc::applied_fixes();  // the build's: read once
  if (fixed.empty()) return all;
  // one filtered copy a profile (the build's fixes do not change; campaign workers ask from several threads)
  static std::mutex mutex;
  static std::map<std::string, KnownSet, std::less<>> filtered;
  std::lock_guard lock(mutex);
  if (const auto it = filtered.find(profile); it != filtered.end()) return it->second;
  return filtered.emplace(std::string(profile), all.without(fixed)).first->second;
}

const KnownSet* known_for_run(const ExecOptions& options, const Profile& profile, bool stop_on_known) {
  if (stop_on_known || !options.tolerances.f1_unscaled_vprot) return nullptr;
  return &judge_known_findings(profile.name, options.backend);
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

void record_run_settings(const ExecOptions& options, Scenario& s) {
  record_run_settings(options.selection, options.tolerances, s);
  s.backend = options.backend;
}

}  // namespace eevdf::scn
