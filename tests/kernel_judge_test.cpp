// The kernel's own code is judged by its own release's rules
// (docs/kernel-backend.md, "The judge"): the tree chooses the profile, a
// profile of another release is refused unless forced, and a scenario that is
// clean on the tree's profile is clean on the tree's code when it names no
// profile.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "kernelsrc/kernel_backend.hpp"
#include "model/profile.hpp"
#include "scenario/executor.hpp"
#include "scenario/run_settings.hpp"
#include <fstream>
#include <sstream>

#include "support/scenario_text.hpp"

namespace eevdf {
namespace {

TEST(Judge, EveryReleaseProfileJudgesItsOwnRelease) {
  for (const std::string_view name : profile_names()) {
    const KernelRelease r = profile_release(name);
    if (r == KernelRelease{}) continue;  // mainline: no one release
    EXPECT_EQ(judge_for_kernel(r), name);
  }
  EXPECT_EQ(profile_release("mainline"), KernelRelease{});
}

TEST(Judge, AnotherSublevelTakesTheNearestProfileOfItsMajorMinor) {
  EXPECT_EQ(judge_for_kernel({6, 12, 107}), "v6.12.118");  // 11 from 6.12.118, 107 from 6.12.0
  EXPECT_EQ(judge_for_kernel({6, 12, 4}), "v6.12");
  EXPECT_EQ(judge_for_kernel({6, 12, 9}), "v6.12.10");
  EXPECT_EQ(judge_for_kernel({6, 12, 5}), "v6.12");      // a tie goes to the older release
  EXPECT_EQ(judge_for_kernel({6, 12, 64}), "v6.12.10");  // (54 from either)
  EXPECT_EQ(judge_for_kernel({7, 0, 9}), "v7.0");
  EXPECT_EQ(judge_for_kernel({6, 19, 0}), "");  // no profile of 6.19
  EXPECT_EQ(judge_for_kernel({5, 15, 0}), "");
}

TEST(Judge, TheModelKeepsTheProfileGiven) {
  scn::ProfileOverride o;
  std::string note;
  EXPECT_EQ(scn::choose_judge(scn::Backend::model, nullptr, false, o, note), "");
  EXPECT_EQ(o.profile, "");
  EXPECT_EQ(note, "");
}

class TreeJudge : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!kernelsrc::available()) GTEST_SKIP() << "no kernel backend in this build";
  }
};

TEST_F(TreeJudge, NoProfileGivenTakesTheTreesAndSaysSo) {
  scn::ProfileOverride o;
  std::string note;
  ASSERT_EQ(scn::choose_judge(scn::Backend::kernel, nullptr, false, o, note), "");
  EXPECT_EQ(o.profile, kernelsrc::judge());
  EXPECT_FALSE(o.profile.empty());
  EXPECT_NE(note.find(o.profile), std::string::npos) << note;
}

TEST_F(TreeJudge, AProfileOfAnotherReleaseIsRefusedNamingBothAndTheOverride) {
  scn::ProfileOverride o;
  o.profile = "mainline";
  std::string note;
  const std::string err = scn::choose_judge(scn::Backend::lockstep, nullptr, false, o, note);
  EXPECT_NE(err.find("mainline"), std::string::npos) << err;
  EXPECT_NE(err.find(kernelsrc::judge()), std::string::npos) << err;
  EXPECT_NE(err.find("--force-profile"), std::string::npos) << err;
  // forced: accepted, and the note says whose rules they are
  ASSERT_EQ(scn::choose_judge(scn::Backend::lockstep, nullptr, true, o, note), "");
  EXPECT_EQ(o.profile, "mainline");
  EXPECT_NE(note.find("--force-profile"), std::string::npos) << note;
}

TEST_F(TreeJudge, AScenariosProfileLineIsGivenToo) {
  auto s = test::parse_ok("profile mainline\ntask A\nwake A\n");
  scn::ProfileOverride o;
  std::string note;
  const std::string err = scn::choose_judge(scn::Backend::kernel, &s, false, o, note, "x.scn");
  EXPECT_EQ(err.rfind("x.scn:1: ", 0), 0u) << err;
  // without the line the tree chooses
  auto plain = test::parse_ok("task A\nwake A\n");
  ASSERT_EQ(scn::choose_judge(scn::Backend::kernel, &plain, false, o, note, "x.scn"), "");
  EXPECT_EQ(o.profile, kernelsrc::judge());
}

// Every regression scenario, its profile line taken out, raises on the tree's
// own code exactly the violations it raises on the model of the tree's profile
// (invariant, operation, site; known findings labelled alike and the runs going
// on past them): the tree is judged by its own rules, so a scenario clean on the
// tree's profile is clean on its code, and the other profiles' expectations
// cannot fire. I-OVF is left out: the kernel's code shadows only some of its
// sites (explain --backends).
TEST_F(TreeJudge, EveryRegressionRaisesOnTheTreesCodeWhatItRaisesOnItsProfileWithoutAProfileLine) {
  const std::string judge = kernelsrc::judge();
  int clean = 0, compared = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(EEVDF_SOURCE_DIR) + "/corpus/regressions")) {
    if (entry.path().extension() != ".scn") continue;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    scn::Scenario s = test::parse_ok(text.str(), entry.path().string());
    // a bug switch, or an RFC's feature, is the model's alone
    if (!s.bug.empty() || s.features.find("RFC_") != std::string::npos) continue;
    s.profile = "mainline";  // as if it had no profile line
    s.profile_line = 0;
    s.expectations.clear();
    scn::ProfileOverride o;
    std::string note;
    ASSERT_EQ(scn::choose_judge(scn::Backend::kernel, &s, false, o, note), "");
    ASSERT_EQ(o.profile, judge);
    std::string error;
    const auto profile = scn::build_profile(s, o, error);
    if (!profile || !kernelsrc::refusal(*profile, s.runqueues).empty()) continue;  // runqueues the profile or tree refuse
    scn::ExecOptions model;
    ASSERT_EQ(scn::apply_run_settings(s, {"", "I-OVF", false, std::nullopt, ""}, model), "");
    model.backend = scn::Backend::model;
    model.sweep_period = 1;  // every CPU after every operation, as on the kernel backend
    model.known = scn::known_for_run(model, *profile, false);
    const scn::ExecResult on_model = scn::execute(s, *profile, model);
    if (!on_model.error.empty()) continue;  // an operation the tree's profile refuses
    scn::ExecOptions kernel = model;
    kernel.backend = scn::Backend::kernel;
    const scn::ExecResult on_kernel = scn::execute(s, *profile, kernel);
    ++compared;
    clean += on_model.violations.empty();
    EXPECT_EQ(on_kernel.error, "") << entry.path();
    const auto list = [](const scn::ExecResult& r) {
      std::vector<std::string> out;
      for (const auto& v : r.violations)
        out.push_back(std::string(inv::id_name(v.id)) + " at " + std::to_string(v.op_index) + " in " + v.where +
                      (v.known.empty() ? "" : " (known: " + v.known + ")"));
      return out;
    };
    EXPECT_EQ(list(on_kernel), list(on_model)) << entry.path().filename().string() << " judged by " << judge;
  }
  std::printf("%d regression scenarios compared on %s's code (%d clean)\n", compared, judge.c_str(), clean);
  EXPECT_GT(compared, 40);
}

}  // namespace
}  // namespace eevdf
