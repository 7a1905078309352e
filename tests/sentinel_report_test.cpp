// The sentinel's report (cli/sentinel.hpp) from its JSON: the Markdown table,
// the changes since an earlier report (what is new, what is gone), and the
// test points TAP and JUnit are written from. No kernel tree needed.
#include <gtest/gtest.h>

#include <sstream>

#include "cli/ci_output.hpp"
#include "cli/sentinel.hpp"

namespace eevdf::cli {
namespace {

using nlohmann::json;

json tree(const std::string& version, json findings, json undocumented = json::array(), long divergences = 0) {
  json scenarios = json::array();
  for (const auto& [name, status] : findings.items())
    scenarios.push_back({{"finding", name}, {"file", "corpus/regressions/" + name + ".scn"}, {"result", status},
                         {"reason", status == "not expressible" ? "runqueues 2 on a uniprocessor build" : ""}});
  return json{{"tree", "/src/linux-" + version},
              {"version", version},
              {"label", version},
              {"judge", "v6.12.118"},
              {"judge_exact", version == "6.12.118"},
              {"stages",
               {{{"name", "build"}, {"result", "ok"}, {"summary", "built"}, {"seconds", 1.0}},
                {{"name", "lockstep"}, {"result", divergences ? "failed" : "ok"}, {"divergences", divergences},
                 {"runs", 100}, {"seconds", 5.0}},
                {{"name", "fuzz"}, {"result", undocumented.empty() ? "ok" : "failed"}, {"runs", 200},
                 {"known", {{"K1", 3}}}, {"seconds", 5.0}}}},
              {"scenarios", scenarios},
              {"findings", findings},
              {"undocumented", undocumented},
              {"divergences", json::array()}};
}

json report(std::vector<json> trees) {
  return json{{"format", "eevdf-check sentinel 1"}, {"time_per_tree", 10}, {"seed", 1}, {"trees", trees}};
}

TEST(SentinelReport, TheTableHasATreeAColumnAndAFindingARowInTheDocsOrder) {
  const json r = report({tree("6.12.107", {{"F10", "present"}, {"K2", "absent"}, {"K1", "present"}}),
                         tree("6.12.118", {{"F10", "present"}, {"K2", "present"}, {"K1", "present"}})});
  const std::string md = sentinel::markdown(r);
  EXPECT_NE(md.find("| | 6.12.107 | 6.12.118 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| K2 | absent (1) | **present** (1/1) |"), std::string::npos) << md;
  EXPECT_LT(md.find("| K1 |"), md.find("| K2 |"));
  EXPECT_LT(md.find("| K2 |"), md.find("| F10 |"));
  EXPECT_NE(md.find("v6.12.118 (nearest)"), std::string::npos) << md;
}

TEST(SentinelReport, UndocumentedPairsAndACannotBuildTreeAreListed) {
  json bad{{"tree", "/src/broken"}, {"label", "/src/broken"}, {"error", "cannot build the kernel backend: fair.c:1"}};
  const json r = report({tree("6.12.118", {{"K1", "present"}},
                              json::array({{{"invariant", "I-KEY"}, {"site", "avg_vruntime"}, {"file", "f/1.scn"}}})),
                         bad});
  const std::string md = sentinel::markdown(r);
  EXPECT_NE(md.find("- I-KEY at avg_vruntime: `eevdf-check run f/1.scn`"), std::string::npos) << md;
  EXPECT_NE(md.find("## /src/broken: cannot build"), std::string::npos) << md;
  EXPECT_TRUE(sentinel::has_undocumented(r));
  EXPECT_FALSE(sentinel::has_undocumented(report({tree("6.12.118", {{"K1", "present"}})})));
}

TEST(SentinelReport, AnIdenticalReportHasNoChanges) {
  const json r = report({tree("6.12.118", {{"K1", "present"}, {"F9", "absent"}})});
  EXPECT_TRUE(sentinel::changes(r, r).empty());
}

TEST(SentinelReport, AFindingNowPresentIsNewOneNowAbsentIsGone) {
  const json old = report({tree("6.12.118", {{"K1", "present"}, {"F9", "absent"}})});
  const json now = report({tree("6.12.118", {{"K1", "absent"}, {"F9", "present"}})});
  const auto c = sentinel::changes(old, now);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].text, "6.12.118: K1: present -> absent");
  EXPECT_FALSE(c[0].is_new);
  EXPECT_EQ(c[1].text, "6.12.118: F9: absent -> present");
  EXPECT_TRUE(c[1].is_new);
  EXPECT_EQ(c[1].finding, "F9");
}

TEST(SentinelReport, ANewPairADivergenceAndABrokenBuildAreNew) {
  const json old = report({tree("6.12.118", {{"K1", "present"}})});
  json now = report({tree("6.12.118", {{"K1", "present"}},
                          json::array({{{"invariant", "I-LAG"}, {"site", "update_entity_lag"}}}), 1)});
  const auto c = sentinel::changes(old, now);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].text, "6.12.118: lockstep diverges (it did not)");
  EXPECT_EQ(c[1].text, "6.12.118: new undocumented pair I-LAG @ update_entity_lag");
  EXPECT_TRUE(c[0].is_new && c[1].is_new);
  // and back: gone, nothing new
  for (const auto& g : sentinel::changes(now, old)) EXPECT_FALSE(g.is_new) << g.text;
  json broken = old;
  broken["trees"][0]["error"] = "cannot build";
  const auto b = sentinel::changes(old, broken);
  ASSERT_FALSE(b.empty());
  EXPECT_TRUE(b[0].is_new);
}

TEST(SentinelReport, TheTreeBeforeAPatchSeriesIsMatchedToTheTreeAfterIt) {
  json before = report({tree("6.12.118", {{"K1", "present"}})});
  json after = report({tree("6.12.118", {{"K1", "present"}})});
  after["trees"][0]["tree"] = "/src/patched";
  EXPECT_TRUE(sentinel::changes(before, after).empty());
  // a tree of another version in a report of several is not in the earlier one
  json more = report({tree("6.12.118", {{"K1", "present"}}), tree("6.12.107", {{"K1", "present"}})});
  const auto c = sentinel::changes(before, more);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].text, "6.12.107: not in the earlier report (present: K1)");
  EXPECT_TRUE(c[0].is_new);
}

TEST(SentinelReport, TestPointsAStageEachAScenarioEachSkipWithAReason) {
  using Status = TestPoint::Status;
  const json r = report({tree("6.12.118", {{"K1", "present"}, {"F9", "not expressible"}})});
  const auto points = sentinel::test_points(r, nullptr);
  ASSERT_EQ(points.size(), 5u);  // build, lockstep, fuzz, two scenarios
  EXPECT_EQ(points[0].name, "6.12.118: build");
  EXPECT_EQ(points[3].status, Status::skipped);  // F9 (the findings are in the JSON's key order)
  EXPECT_NE(points[3].reason.find("uniprocessor"), std::string::npos);
  EXPECT_EQ(points[4].status, Status::ok);
  // since a report where K1 was absent: K1's scenario point fails, and the changes point
  json old = report({tree("6.12.118", {{"K1", "absent"}, {"F9", "not expressible"}})});
  const auto c = sentinel::changes(old, r);
  const auto since = sentinel::test_points(r, &c);
  ASSERT_EQ(since.size(), 6u);
  EXPECT_EQ(since[4].status, Status::failed);
  EXPECT_EQ(since[5].status, Status::failed);
  EXPECT_EQ(since[5].name, "changes since the earlier report");
}

TEST(CiOutput, TapHasThePlanOkNotOkAndSkip) {
  using Status = TestPoint::Status;
  std::ostringstream out;
  write_tap(out, {{Status::ok, "s", "one", "", "a line\n", 0},
                  {Status::failed, "s", "two # not a directive", "why", "", 0},
                  {Status::skipped, "s", "three", "no tree", "", 0}});
  EXPECT_EQ(out.str(),
            "TAP version 13\n1..3\nok 1 one\n# a line\nnot ok 2 two _ not a directive\n# why\n"
            "ok 3 three # SKIP no tree\n");
}

TEST(CiOutput, JUnitCountsAndEscapes) {
  using Status = TestPoint::Status;
  std::ostringstream out;
  write_junit(out, "x", {{Status::ok, "a", "one", "", "", 1.5}, {Status::failed, "a", "two", "<&>", "", 0},
                         {Status::skipped, "b", "three", "no", "", 0}});
  const std::string xml = out.str();
  EXPECT_NE(xml.find("<testsuites name=\"x\" tests=\"3\" failures=\"1\" skipped=\"1\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("<testsuite name=\"a\" tests=\"2\" failures=\"1\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("<failure message=\"&lt;&amp;&gt;\"/>"), std::string::npos) << xml;
  EXPECT_NE(xml.find("<skipped message=\"no\"/>"), std::string::npos) << xml;
}

}  // namespace
}  // namespace eevdf::cli
