// A scenario's run settings (the directives `skip`, `tolerate`, `keep_going`
// and `backend`, docs/scenario-language.md) combined with the command line's
// --invariants, --skip, --no-tolerance, --keep-going and --backend, for `run`,
// `replay` and `minimize`. execute() does not read them: it runs as its
// ExecOptions say.
#pragma once

#include <optional>
#include <string>

#include "scenario/executor.hpp"
#include "scenario/scenario.hpp"

namespace eevdf::scn {

struct RunFlags {
  std::string only;                  // --invariants LIST: check exactly these; replaces the scenario's `skip`
  std::string skip;                  // --skip LIST: added to the scenario's `skip`
  bool no_tolerance = false;         // --no-tolerance: as `tolerate none` (there is no flag to turn it back on)
  std::optional<Backend> backend{};  // --backend NAME / --lockstep: replaces the scenario's `backend`
  std::string file{};                // the scenario's path, for the message of a backend this build lacks
};

// Sets options.selection and options.tolerances from s and flags,
// options.keep_going when s has `keep_going` (a keep_going the caller set from
// --keep-going stays), and options.backend: flags.backend if given, else the
// scenario's `backend`. Returns "" or the message of a bad invariant name, or
// of a kernel or lockstep backend in a build without the kernel backend
// (kernelsrc::available() false): "FILE:LINE: error: ..." when the scenario's
// directive asked for it.
std::string apply_run_settings(const Scenario& s, const RunFlags& flags, ExecOptions& options);

// The profile that judges a run on the kernel's own code (docs/kernel-backend.md,
// "The judge"): the rules of the tree's own release, never another's. On the
// model nothing changes. On `kernel` and `lockstep`, with no profile given
// (neither o.profile nor a `profile` line of s; s may be null), o.profile
// becomes kernelsrc::judge() and `note` says so. A profile given that is not
// the tree's is refused, naming both and --force-profile, unless `force`
// (then `note` says it). Returns "" or the error (an error of the scenario's
// profile line names `file` and the line).
std::string choose_judge(Backend backend, const Scenario* s, bool force, ProfileOverride& o, std::string& note,
                         const std::string& file = {});

// The known findings that judge `backend`'s state on `profile`: the profile's
// own (corpus/known/PROFILE.known), less, on the kernel's own code, the
// findings whose fix this build applied to the tree (-DEEVDF_KERNEL_FIXES):
// a fixed tree is judged without them, so nothing is labelled with a finding
// it no longer has.
const KnownSet& judge_known_findings(std::string_view profile, Backend backend);

// The known findings a run labels (ExecOptions::known): judge_known_findings(),
// unless the tolerances are off (`tolerate none`, --no-tolerance: every
// documented finding reported) or `stop_on_known` (--stop-on-known: a known
// finding stops the run as any other).
const KnownSet* known_for_run(const ExecOptions& options, const Profile& profile, bool stop_on_known);

// Writes into s the directives under which a plain `run` checks what
// `selection` and `tolerances` check: `skip` lists every invariant the
// selection leaves out (the ones s already skips first, in their order, then
// the others in catalogue order), `tolerate none` when the tolerances are off.
// `keep_going` stays as s has it.
void record_run_settings(const inv::Selection& selection, const inv::Tolerances& tolerances, Scenario& s);

// The same from the options a run used, and `backend` as options.backend (the
// one the run had, from the scenario or from --backend / --lockstep).
void record_run_settings(const ExecOptions& options, Scenario& s);

}  // namespace eevdf::scn
