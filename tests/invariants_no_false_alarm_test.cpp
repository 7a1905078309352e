// The "no false alarm" rule: random operation sequences on the mainline
// profile never violate any invariant.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "scenario/executor.hpp"
#include "scenario/scenario_print.hpp"
#include "support/random_ops.hpp"

namespace eevdf {
namespace {

std::string describe(const scn::Scenario& s, const scn::ExecResult& r, const Profile& p) {
  std::string out = scn::print_scenario(s) + "\n";
  for (const auto& v : r.violations) {
    const std::string op = v.op_index >= 0 ? scn::print_op(s.ops[static_cast<std::size_t>(v.op_index)]) : "?";
    out += inv::format_violation(v, op, p.name);
  }
  return out;
}

RC_GTEST_PROP(NoFalseAlarm, MainlineRandomSequences, ()) {
  const auto s = *testing::gen_scenario(8, 120);
  const Profile profile = *profile_by_name("mainline");
  scn::ExecOptions options;
  options.strict = false;
  const auto r = scn::execute(s, profile, options);
  RC_ASSERT_FALSE(r.oops);
  if (!r.violations.empty()) RC_FAIL(describe(s, r, profile));
}

}  // namespace
}  // namespace eevdf
