// The Z3 proof obligations (smt/): every verdict on mainline and v7.1 equals the
// expected verdict recorded in docs/proofs.md; the tightest key bound is the
// arithmetic one; a known arithmetic flaw (test-only variant) is refuted with a
// counterexample whose scenario replays the overflow on the model; the mainline
// refutation of place_entity.lag_x_load (finding F4) replays too.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <variant>

#include "scenario/executor.hpp"
#include "scenario/scenario_parse.hpp"
#include "invariants/ids.hpp"
#include "cli/prove_scenario.hpp"
#include "smt/obligations.hpp"

namespace {

using namespace eevdf;

// docs/proofs.md: rows "| `name` | mainline | v7.1 | v6.12.118 |" between the markers.
std::map<std::string, std::map<std::string, std::string>> expected_verdicts() {
  std::ifstream in(EEVDF_SOURCE_DIR "/docs/proofs.md");
  std::map<std::string, std::map<std::string, std::string>> out;
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    if (line.find("<!-- expected-verdicts:begin -->") != std::string::npos) inside = true;
    if (line.find("<!-- expected-verdicts:end -->") != std::string::npos) inside = false;
    if (!inside || line.rfind("| `", 0) != 0) continue;
    std::vector<std::string> cells;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, '|')) {
      while (!cell.empty() && (cell.front() == ' ' || cell.front() == '`')) cell.erase(cell.begin());
      while (!cell.empty() && (cell.back() == ' ' || cell.back() == '`')) cell.pop_back();
      cells.push_back(cell);
    }
    if (cells.size() >= 5) {
      out[cells[1]]["mainline"] = cells[2];
      out[cells[1]]["v7.1"] = cells[3];
      out[cells[1]]["v6.12.118"] = cells[4];
    }
  }
  return out;
}

smt::Params params(const std::string& profile, const std::string& variant = "", bool search = false) {
  smt::Params p = smt::params_for(*profile_by_name(profile));
  EXPECT_EQ(smt::apply_variant(p, variant), "");
  p.search_bounds = search;
  return p;
}

struct ReplayResult {
  std::string error;
  std::vector<inv::Violation> violations;
};

// The scenario `eevdf-check prove --write-scenarios` writes for a refutation, "" if none.
std::string scenario_text(const smt::Outcome& o) { return o.reaching ? cli::reaching_scenario_text(*o.reaching) : ""; }

ReplayResult replay(const std::string& text, const std::string& variant) {
  Profile profile = *profile_by_name("mainline");
  EXPECT_TRUE(smt::apply_variant_to_profile(profile, variant));
  auto parsed = scn::parse_scenario(text, "counterexample.scn");
  if (auto* e = std::get_if<scn::ParseError>(&parsed)) return {scn::format_parse_error(*e), {}};
  const auto r = scn::execute(std::get<scn::Scenario>(parsed), profile, scn::ExecOptions{});
  return {r.error, r.violations};
}

class ExpectedVerdicts : public ::testing::TestWithParam<std::string> {};

TEST_P(ExpectedVerdicts, EveryObligationAsRecordedInDocsProofs) {
  const auto expected = expected_verdicts();
  ASSERT_EQ(expected.size(), smt::obligation_list().size()) << "docs/proofs.md lists every obligation once";
  const auto outcomes = smt::prove_all(params(GetParam()));
  for (const auto& o : outcomes) {
    ASSERT_TRUE(expected.count(o.name)) << o.name << " is missing from docs/proofs.md";
    EXPECT_EQ(smt::verdict_name(o.verdict), expected.at(o.name).at(GetParam())) << o.name << ": " << o.detail;
    if (o.verdict == smt::Verdict::refuted) {
      EXPECT_FALSE(o.counterexample.empty()) << o.name;
    }
  }
}

// v6.12.118 (Debian's kernel): scale_load_down sums, s64 eligibility, inverse-weight
// __calc_delta; every obligation decided (none unknown).
INSTANTIATE_TEST_SUITE_P(Profiles, ExpectedVerdicts, ::testing::Values("mainline", "v7.1", "v6.12.118"),
                         [](const auto& info) {
                           std::string name = info.param;
                           for (char& ch : name)
                             if (ch == '.') ch = '_';
                           return name;
                         });

// Every premise name an obligation lists is in the premise catalogue, and
// every premise with an invariant names the rule of it that it is.
TEST(SmtPremises, EveryObligationListsKnownPremises) {
  for (const auto& o : smt::obligation_list()) {
    std::stringstream names{std::string(o.premises)};
    std::string name;
    std::size_t count = 0;
    while (names >> name) ++count;
    EXPECT_GT(count, 0u) << o.name;
    EXPECT_EQ(smt::premises_of(o.name).size(), count) << o.name << ": a premise name is not in premise_list()";
  }
  for (const auto& p : smt::premise_list()) EXPECT_EQ(p.invariant.empty(), p.rule.empty()) << p.name;
}

// With s64 eligibility a queue of n <= N entities within the premises leaves
// no entity eligible: one light entity whose key·load wraps and heavy ones
// just right of V (two entities do not suffice on the scale_load_down sums).
TEST(SmtRefutation, DebianKernelPickFindsNoEligibleEntity) {
  const auto o = smt::prove_one("pick.eligible_exists", params("v6.12.118"));
  ASSERT_TRUE(o);
  ASSERT_EQ(o->verdict, smt::Verdict::refuted) << o->detail;
  std::map<std::string, std::string> values;
  for (const auto& a : o->counterexample) values[a.name] = a.value;
  EXPECT_GT(std::stoll(values.at("number of the others")), 1) << "a queue of more than two entities";
}

// v7.3 (single runqueue): a task's effective weight goes down to MIN_SHARES, so
// place_entity()'s lag·(load + w) overflows with task weights only and few tasks
// (F8); on mainline the task-only form needs hundreds of nice -20 tasks.
TEST(SmtRefutation, FlatRunqueueTaskWeightsReachPlaceEntityOverflow) {
  // the weight of the placed entity in the task-weights-only counterexample
  auto placed_weight = [](const smt::Outcome& o) {
    for (const auto& a : o.reachable)
      if (a.name.rfind("w ", 0) == 0) return a.value;
    return std::string("none");
  };
  const auto flat = smt::prove_one("place_entity.lag_x_load", params("v7.3"));
  ASSERT_TRUE(flat);
  EXPECT_EQ(flat->verdict, smt::Verdict::refuted);
  const long long flat_w = std::stoll(placed_weight(*flat));
  EXPECT_LT(flat_w, 1024) << "a task below the lightest nice weight: only h_load gets there";
  const auto hier = smt::prove_one("place_entity.lag_x_load", params("mainline"));
  ASSERT_TRUE(hier);
  EXPECT_GE(std::stoll(placed_weight(*hier)), 3072) << "SCHED_IDLE's scale_load(3) is the lightest task";
}

// The tightest |key| for key·w is floor((2^63 - 1) / w_max) of the profile's sum weights.
TEST(SmtBounds, KeyTimesWeightBoundIsTheArithmeticOne) {
  const auto full = smt::prove_one("sum_w_vruntime_add.key_x_weight", params("mainline", "", true));
  ASSERT_TRUE(full);
  EXPECT_EQ(full->verdict, smt::Verdict::proved);
  EXPECT_EQ(full->bound.rfind("|key| <= 34359738367 ", 0), 0u) << full->bound;  // (2^63-1) / 2^28
  const auto down = smt::prove_one("sum_w_vruntime_add.key_x_weight", params("mainline", "scale-load-down", true));
  ASSERT_TRUE(down);
  EXPECT_EQ(down->bound.rfind("|key| <= 35184372088831 ", 0), 0u) << down->bound;  // (2^63-1) / 2^18
}

// B05 (b6eee96843e8): key·load in s64 overflows; the counterexample replays.
TEST(SmtRefutation, S64EligibilityIsRefutedAndReplays) {
  const auto o = smt::prove_one("vruntime_eligible.key_x_load", params("mainline", "s64-eligibility"));
  ASSERT_TRUE(o);
  ASSERT_EQ(o->verdict, smt::Verdict::refuted) << o->detail;
  EXPECT_FALSE(o->counterexample.empty());
  ASSERT_FALSE(o->reachable.empty()) << "task weights reach it";
  ASSERT_TRUE(o->reaching);
  EXPECT_EQ(o->reaching->variant, "s64-eligibility");
  const auto with_flaw = replay(scenario_text(*o), "s64-eligibility");
  ASSERT_EQ(with_flaw.error, "");
  ASSERT_FALSE(with_flaw.violations.empty());
  EXPECT_EQ(with_flaw.violations.front().id, inv::Id::OVF);
  EXPECT_EQ(with_flaw.violations.front().where, "vruntime_eligible.key_x_load");
  // The same operations on mainline (int128) do not overflow there.
  const auto fixed = replay(scenario_text(*o), "");
  for (const auto& v : fixed.violations) EXPECT_NE(v.where, "vruntime_eligible.key_x_load");
  // and a queue of two entities within the premises can have no eligible entity
  const auto exists = smt::prove_one("pick.eligible_exists", params("mainline", "s64-eligibility"));
  ASSERT_TRUE(exists);
  EXPECT_EQ(exists->verdict, smt::Verdict::refuted) << exists->detail;
}

// div_s64's s32 divisor: refuted once the queue's load can pass 2^31.
TEST(SmtRefutation, S32DivisorIsRefutedForHeavyQueues) {
  const auto o = smt::prove_one("place_entity.div", params("mainline", "div-s64", true));
  ASSERT_TRUE(o);
  EXPECT_EQ(o->verdict, smt::Verdict::refuted);
  EXPECT_EQ(o->bound.rfind("load <= 2147483647 ", 0), 0u) << o->bound;
}

// Finding F4: place_entity.lag_x_load on mainline, reached by the model.
TEST(SmtRefutation, MainlinePlaceEntityOverflowReplays) {
  const auto o = smt::prove_one("place_entity.lag_x_load", params("mainline"));
  ASSERT_TRUE(o);
  ASSERT_EQ(o->verdict, smt::Verdict::refuted);
  ASSERT_TRUE(o->reaching);
  const auto r = replay(scenario_text(*o), "");
  ASSERT_EQ(r.error, "");
  ASSERT_FALSE(r.violations.empty());
  EXPECT_EQ(r.violations.front().id, inv::Id::OVF);
  EXPECT_EQ(r.violations.front().where, "place_entity.lag_x_load");
}

TEST(SmtNames, UnknownNamesAreRejected) {
  EXPECT_FALSE(smt::prove_one("no_such.obligation", params("mainline")));
  smt::Params p;
  EXPECT_NE(smt::apply_variant(p, "no-such-variant"), "");
}

}  // namespace
