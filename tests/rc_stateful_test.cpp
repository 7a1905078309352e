// RapidCheck stateful commands (fuzz/rc_commands.hpp): mainline passes, v7.1's
// augmented-tree bug is found and shrunk to a replayable scenario, the shrink
// budget is honoured, and every shown sequence replays exactly.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <chrono>
#include <iostream>
#include <set>
#include <sstream>
#include <variant>

#include "scenario/executor.hpp"
#include "fuzz/rc_commands.hpp"
#include "scenario/scenario_parse.hpp"
#include "support/run_scenario.hpp"
#include "scenario/scenario_print.hpp"
#include "invariants/ids.hpp"

namespace eevdf {
namespace {

using Clock = std::chrono::steady_clock;

// Parses and replays a scenario text strictly, as `eevdf-check run` does.
scn::ExecResult replay(const std::string& text, bool trace = false) {
  return test::run_scenario_text(text, "<counterexample>", trace);
}

bool has_violation(const scn::ExecResult& r, const std::string& id) {
  for (const auto& v : r.violations)
    if (inv::id_name(v.id) == id) return true;
  return false;
}

// The counterexample as `eevdf-check check` prints it ("" when the check passed).
std::string counterexample_text(const fuzz::CheckOutcome& o) {
  return o.counterexample ? scn::print_scenario(*o.counterexample) : std::string();
}

fuzz::CheckConfig config_for(const char* profile) {
  fuzz::CheckConfig c;
  c.profile = *profile_by_name(profile);
  return c;
}

TEST(RcStateful, MainlinePasses200Cases) {
  auto c = config_for("mainline");
  c.cases = 200;
  c.seed = 20260901;
  const auto out = fuzz::run_stateful_check(c);
  EXPECT_TRUE(out.passed) << out.message << "\n" << counterexample_text(out);
  EXPECT_EQ(out.cases_run, 200);
  EXPECT_TRUE(counterexample_text(out).empty());
  EXPECT_GT(out.ops_executed, 0);
}

TEST(RcStateful, V71AugmentBugFoundAndReplayable) {
  auto c = config_for("v7.1");
  c.seed = 7;
  const auto start = Clock::now();
  const auto out = fuzz::run_stateful_check(c);
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(20));
  ASSERT_FALSE(out.passed) << out.message;
  EXPECT_LE(out.cases_run, 10) << "the bug fires at the first wake";
  EXPECT_NE(out.message.find("I-AUG"), std::string::npos) << out.message;
  EXPECT_NE(counterexample_text(out).find("wake"), std::string::npos) << counterexample_text(out);
  EXPECT_NE(counterexample_text(out).find("profile v7.1"), std::string::npos) << counterexample_text(out);
  EXPECT_FALSE(out.reproduce.empty());
  EXPECT_EQ(out.message.find("warning"), std::string::npos) << out.message;
  std::cout << out.message << counterexample_text(out) << "reproduce: " << out.reproduce << "\n";

  const auto r = replay(counterexample_text(out));
  EXPECT_TRUE(r.error.empty()) << r.error << "\n" << counterexample_text(out);
  EXPECT_TRUE(has_violation(r, "I-AUG")) << counterexample_text(out);
  // The violation is raised by the last operation: nothing after it is needed.
  ASSERT_FALSE(r.violations.empty());
  EXPECT_EQ(r.violations.front().op_index, r.executed - 1);

  // The reproduce string replays the same counterexample, without searching.
  auto again = c;
  again.seed = 0;
  again.reproduce = out.reproduce;
  const auto rep = fuzz::run_stateful_check(again);
  EXPECT_FALSE(rep.passed) << rep.message;
  EXPECT_EQ(counterexample_text(rep), counterexample_text(out));
}

TEST(RcStateful, ShrinkBudgetHonoured) {
  auto c = config_for("v7.1");
  // Two cases: sizes 0 and max, so the first failure is a long sequence with
  // many shrink candidates; at 100 ms an evaluation, shrinking it to the end
  // takes about 4.4 s (37 candidates). With a 1 s budget: about 1.0 s.
  c.cases = 2;
  c.seed = 11;
  c.shrink_budget = std::chrono::seconds(1);
  c.slow_shrink = std::chrono::milliseconds(100);
  const auto start = Clock::now();
  const auto out = fuzz::run_stateful_check(c);
  const auto elapsed = Clock::now() - start;
  ASSERT_FALSE(out.passed) << out.message;
  EXPECT_TRUE(out.shrink_budget_exhausted) << out.message;
  EXPECT_LT(elapsed, std::chrono::milliseconds(2500)) << out.message;
  EXPECT_NE(out.message.find("budget"), std::string::npos) << out.message;
  EXPECT_EQ(out.message.find("warning"), std::string::npos) << out.message;
  std::cout << "[ stats    ] " << out.shrinks_tried << " shrinks tried, " << out.shrinks_accepted << " accepted, "
            << out.seconds << " s\n" << counterexample_text(out);
  // What was found so far is still a valid counterexample.
  const auto r = replay(counterexample_text(out));
  EXPECT_TRUE(r.error.empty()) << r.error << "\n" << counterexample_text(out);
  EXPECT_TRUE(has_violation(r, "I-AUG")) << counterexample_text(out);
}

// Throughput figure: 2000 cases on mainline, at most 100 commands each.
TEST(RcStateful, Throughput2000Cases) {
  auto c = config_for("mainline");
  c.cases = 2000;
  c.max_ops = 100;
  c.seed = 1;
  const auto out = fuzz::run_stateful_check(c);
  EXPECT_TRUE(out.passed) << out.message << "\n" << counterexample_text(out);
  std::cout << "[ stats    ] " << out.cases_run << " cases, " << out.commands_run << " commands (" << out.ops_executed
            << " performed, " << out.ops_skipped << " skipped) in " << out.seconds << " s: "
            << static_cast<long long>(out.commands_run / out.seconds) << " commands/s\n";
}

TEST(RcStateful, UnexpressibleProfileIsAnError) {
  auto c = config_for("mainline");
  c.profile.tunables.migration_cost = 1;
  const auto out = fuzz::run_stateful_check(c);
  EXPECT_FALSE(out.passed);
  EXPECT_FALSE(out.message.empty());
}

TEST(RcStateful, FeaturesAndTunablesGoIntoTheHeader) {
  auto c = config_for("mainline");
  c.profile.features.set(Feature::NEXT_BUDDY, !c.profile.features[Feature::NEXT_BUDDY]);
  c.profile.tunables.ncpus = 2;
  std::string error;
  const auto setup = fuzz::make_rc_setup(c.profile, error);
  ASSERT_TRUE(setup) << error;
  const std::string text = scn::print_scenario(setup->header);
  EXPECT_NE(text.find("NEXT_BUDDY"), std::string::npos) << text;
  EXPECT_NE(text.find("cpus 2"), std::string::npos) << text;
}

// Every sequence, passing or not, resolves to a scenario that replays strictly
// to the same state: same operations, clock, task on the CPU and entities.
RC_GTEST_PROP(RcStateful, ShownSequencesReplayExactly, ()) {
  std::string error;
  static const auto setup = fuzz::make_rc_setup(*profile_by_name("mainline"), error);
  RC_ASSERT(setup != nullptr);
  const fuzz::RcModel m0{setup};
  const auto cmds = *rc::state::gen::commands(m0, [](const fuzz::RcModel& m) { return fuzz::gen_rc_command(m); });
  fuzz::RcSystem sut(setup);
  try {
    rc::state::runAll(cmds, m0, sut);
  } catch (...) {
  }
  RC_ASSERT_FALSE(sut.failed);

  std::ostringstream shown;
  rc::show(cmds, shown);
  const std::string text = scn::print_scenario(sut.scenario());
  RC_ASSERT(shown.str() == text);

  const auto r = replay(text, /*trace=*/true);
  RC_ASSERT(r.error.empty());
  RC_ASSERT(r.violations.empty());
  RC_ASSERT(r.executed == static_cast<int>(sut.executed.size()));
  RC_ASSERT(sut.commands == static_cast<long long>(cmds.size()));
  const auto& last = r.trace.back();
  RC_ASSERT(last.clock == sut.rq.clock_task);
  RC_ASSERT(last.curr == (sut.rq.curr >= 0 ? sut.curr_name() : std::string("idle")));
  RC_ASSERT(last.tasks.size() == sut.rq.tasks.size());
  for (std::size_t i = 0; i < last.tasks.size(); ++i) {
    const auto& t = sut.rq.tasks[i];
    RC_ASSERT(last.tasks[i].task == t.name);
    RC_ASSERT(last.tasks[i].vruntime == t.se.vruntime);
    RC_ASSERT(last.tasks[i].deadline == t.se.deadline);
    RC_ASSERT(last.tasks[i].vlag == t.se.vlag);
  }
}

// Command::show prints the scenario line of the abstract command.
TEST(RcStateful, CommandShowUsesPrintOp) {
  std::string error;
  const auto setup = fuzz::make_rc_setup(*profile_by_name("mainline"), error);
  ASSERT_TRUE(setup) << error;
  fuzz::RcModel m{setup};
  m.tasks.push_back({"T0", fuzz::RcModel::Known::unknown});
  m.next_name = 1;
  m.any_woken = true;
  // Generate until every kind was seen once; check each line parses as an op
  // after "<curr>" is replaced by a name.
  const auto cmds = rc::gen::container<std::vector<fuzz::RcCommandPtr>>(200, fuzz::gen_rc_command(m))(rc::Random(5), 50)
                        .value();
  std::set<std::string> verbs;
  for (const auto& c : cmds) {
    std::ostringstream os;
    c->show(os);
    std::string line = os.str();
    verbs.insert(line.substr(0, line.find(' ')));
    for (auto p = line.find("<curr>"); p != std::string::npos; p = line.find("<curr>")) line.replace(p, 6, "T0");
    const auto parsed = scn::parse_scenario("profile mainline\ntask T0\n" + line + "\n");
    EXPECT_TRUE(std::holds_alternative<scn::Scenario>(parsed)) << line;
  }
  // task fork wake sleep run tick schedule yield nice policy slice exit base_slice_ns
  EXPECT_EQ(verbs.size(), 13u) << ::testing::PrintToString(verbs);
}

}  // namespace
}  // namespace eevdf
