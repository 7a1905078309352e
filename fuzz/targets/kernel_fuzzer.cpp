// libFuzzer target on the kernel backend (kernelsrc/, docs/kernel-backend.md):
// the input bytes decode to an operation sequence as in scenario_fuzzer
// (scenario/bytes.hpp), which runs on the tree's own fair.c, compiled in this
// process with the fuzzing instrumentation (edge counters and comparison
// tracing: fuzz/targets/CMakeLists.txt), so that libFuzzer is guided by the
// tree's branches. What `eevdf-check fuzz --backend kernel` does, with
// libFuzzer as the engine:
//  - the judge is the profile of the tree's release (scn::choose_judge(),
//    kernelsrc::judge()), with every invariant checked after every operation;
//  - a violation of one of that profile's known findings (corpus/known/PROFILE.known,
//    scn::known_for_run()) is labelled and the run goes on: not a crash;
//  - any other violation prints its paragraph and the scenario, then aborts, so
//    that libFuzzer keeps the input; `eevdf-check replay CRASHFILE --backend kernel`
//    replays it under the same judge and known findings.
// Differences from the campaign: one profile (the judge's features; the campaign
// also flips default-off features in one run of four), and the bytes' own
// format byte (the campaign writes format 7's).
//
// Built as kernel_lockstep_fuzzer (EEVDF_FUZZ_LOCKSTEP): the model and the
// kernel side by side, compared after every operation (invariants off, as in
// `fuzz --lockstep`); a divergence is the crash, replayed by
// `eevdf-check replay CRASHFILE --backend lockstep`.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "fuzz/targets/byte_target.hpp"
#include "kernelsrc/kernel_backend.hpp"
#include "scenario/bytes.hpp"
#include "scenario/executor.hpp"
#include "scenario/run_settings.hpp"
#include "scenario/scenario_print.hpp"

namespace {

using eevdf::scn::Backend;
#ifdef EEVDF_FUZZ_LOCKSTEP
constexpr Backend kBackend = Backend::lockstep;
#else
constexpr Backend kBackend = Backend::kernel;
#endif

// the judge of the tree's release, as `fuzz --backend kernel` takes it
const eevdf::Profile& profile() {
  static const eevdf::Profile p = [] {
    eevdf::scn::ProfileOverride o;
    std::string note, error;
    if (!eevdf::kernelsrc::available()) error = "this build has no kernel backend";
    if (error.empty()) error = eevdf::scn::choose_judge(kBackend, nullptr, false, o, note);
    std::optional<eevdf::Profile> built;
    if (error.empty()) built = eevdf::scn::build_profile(o, error);
    if (!built) {
      std::fprintf(stderr, "kernel_fuzzer: %s\n", error.c_str());
      std::exit(2);
    }
    std::fprintf(stderr, "kernel_fuzzer: Linux %s's own fair.c, backend %s, %s\n",
                 eevdf::kernelsrc::kernel_version().c_str(), eevdf::scn::backend_name(kBackend), note.c_str());
    return *built;
  }();
  return p;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  eevdf::fuzz::keep_heap_between_runs();
  profile();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace eevdf;
  static scn::Executor executor(profile(), [] {
    scn::ExecOptions o;
    o.strict = false;
    o.backend = kBackend;
    if (kBackend == Backend::lockstep) o.selection.on.fill(false);  // the comparison alone, as `fuzz --lockstep`
    o.known = scn::known_for_run(o, profile(), false);
    return o;
  }());
  static scn::Scenario s;  // reused: its storage survives from input to input
  scn::decode_bytes_into(data, size, s);
  const scn::ExecResult r = executor.run(s);
  if (!r.error.empty()) return -1;  // refused (runqueues the tree cannot take): not for the corpus
  scn::Scenario shown = s;
  shown.profile = profile().name;
  shown.backend = kBackend;
  if (r.divergence) {
    const auto& d = *r.divergence;
    std::fprintf(stderr, "\nLOCKSTEP DIVERGENCE at operation %d (%s): %s: model %s, kernel %s\n--- scenario ---\n%s--- end ---\n",
                 d.op_index + 1, scn::print_op(s.ops[static_cast<std::size_t>(d.op_index)]).c_str(), d.field.c_str(),
                 d.model.c_str(), d.kernel.c_str(), scn::print_scenario(shown).c_str());
    std::abort();
  }
  for (const auto& v : r.violations) {
    if (!v.known.empty()) continue;  // a known finding of the judge: labelled, the run went on
    std::fprintf(stderr, "\n%s\n--- scenario ---\n%s--- end ---\n",
                 inv::format_violation(v, scn::print_op(s.ops[static_cast<std::size_t>(v.op_index)]), profile().name).c_str(),
                 scn::print_scenario(shown).c_str());
    std::abort();
  }
  return 0;
}
