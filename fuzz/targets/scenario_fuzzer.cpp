// libFuzzer target: the input bytes decode to an operation sequence (every
// byte string is a valid one, scenario/bytes.hpp), which runs on the profile given
// by EEVDF_PROFILE / EEVDF_FEATURES (default mainline), with the bug switch in
// EEVDF_BUG if set (a Bxx of `eevdf-check profiles`; bench/rediscover.sh uses
// it), and every invariant checked after every operation (EEVDF_NO_TOLERANCE=1
// also reports the documented findings of docs/findings.md). A violation prints
// its paragraph and the text scenario, then aborts, so libFuzzer keeps the input
// as a crash file that `eevdf-check replay` and `eevdf-check minimize` read.
//
// Built as scenario_fuzzer_unchecked (EEVDF_FUZZ_UNCHECKED) it runs no checker:
// the baseline of the checked throughput.
//
// EEVDF_MAX_OPS=N decodes at most N operations of each input (the format's
// limit, 256, by default); the throughput benchmark uses 64. A crash found
// with a cap replays the same without it: execution stops at the first
// violation, which lies within the first N operations.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "scenario/bytes.hpp"
#include "scenario/executor.hpp"
#include "fuzz/targets/byte_target.hpp"
#include "scenario/scenario_print.hpp"

namespace {

const eevdf::Profile& profile() {
  static const eevdf::Profile p = [] {
    eevdf::scn::ProfileOverride o;
    if (const char* name = std::getenv("EEVDF_PROFILE")) o.profile = name;
    if (const char* features = std::getenv("EEVDF_FEATURES")) o.features = features;
    if (const char* bug = std::getenv("EEVDF_BUG")) o.bug = bug;  // a bug switch (eevdf-check profiles)
    std::string error;
    const auto built = eevdf::scn::build_profile(o, error);
    if (!built) {
      std::fprintf(stderr, "scenario_fuzzer: %s\n", error.c_str());
      std::exit(2);
    }
    return *built;
  }();
  return p;
}

std::size_t max_ops() {
  static const std::size_t n = [] {
    const char* v = std::getenv("EEVDF_MAX_OPS");
    if (!v || !*v) return eevdf::scn::kMaxBytesOps;
    char* end = nullptr;
    const unsigned long parsed = std::strtoul(v, &end, 10);
    if (*end != '\0' || parsed == 0 || parsed > eevdf::scn::kMaxBytesOps) {
      std::fprintf(stderr, "scenario_fuzzer: EEVDF_MAX_OPS must be 1..%zu\n", eevdf::scn::kMaxBytesOps);
      std::exit(2);
    }
    return static_cast<std::size_t>(parsed);
  }();
  return n;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  eevdf::fuzz::keep_heap_between_runs();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace eevdf;
  static scn::Executor executor(profile(), [] {
    scn::ExecOptions o;
    o.strict = false;
#ifdef EEVDF_FUZZ_UNCHECKED
    o.check = false;  // the throughput baseline: the model alone (fuzz/targets/CMakeLists.txt)
#endif
    if (const char* v = std::getenv("EEVDF_NO_TOLERANCE"); v && *v == '1') o.tolerances = inv::Tolerances{false};
    return o;
  }());
  static scn::Scenario s;  // reused: its storage survives from input to input
  scn::decode_bytes_into(data, size, s, max_ops());
  const scn::ExecResult r = executor.run(s);
  if (r.violations.empty()) return 0;
  const auto& v = r.violations.front();
  scn::Scenario shown = s;
  shown.profile = profile().name;
  std::fprintf(stderr, "\n%s\n--- scenario ---\n%s--- end ---\n",
               inv::format_violation(v, scn::print_op(s.ops[static_cast<std::size_t>(v.op_index)]), profile().name).c_str(),
               scn::print_scenario(shown).c_str());
  std::abort();
}
