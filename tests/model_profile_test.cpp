// Profiles as values (model/profile_spec.hpp): the spec of every profile
// builds it back, the text form reads back, and what no spec can say is refused.
#include <gtest/gtest.h>

#include "model/bugs.hpp"
#include "model/profile_spec.hpp"

namespace eevdf {
namespace {

TEST(ProfileSpec, EveryProfileAndBugSwitchBuildsBackFromItsSpec) {
  std::vector<Profile> profiles;
  for (const auto name : profile_names()) profiles.push_back(*profile_by_name(name));
  for (const BugSwitch& b : bug_switches())
    for (const auto name : b.profiles) {
      Profile p = *profile_by_name(name);
      ASSERT_EQ(apply_bug(p, b.id), "") << b.id << " on " << name;
      profiles.push_back(p);
    }
  for (const Profile& p : profiles) {
    std::string error;
    const auto spec = spec_of(p, error);
    ASSERT_TRUE(spec) << p.name << " " << p.bug << ": " << error;
    EXPECT_EQ(spec->name, p.name);
    EXPECT_EQ(spec->bug, p.bug);
    EXPECT_EQ(spec->features, "");
    const auto back = make_profile(*spec, error);
    ASSERT_TRUE(back) << error;
    EXPECT_TRUE(back->behaviour == p.behaviour && back->features == p.features && back->tunables == p.tunables);
  }
}

TEST(ProfileSpec, FeaturesAndTunablesAreChangesFromTheNamedProfile) {
  Profile p = *profile_by_name("v7.1");
  p.features.set(Feature::NEXT_BUDDY, true);
  p.features.set(Feature::RUN_TO_PARITY, false);
  p.tunables.ncpus = 2;
  p.tunables.hz = 250;
  p.tunables.normalized_base_slice = 3000000;
  std::string error;
  const auto spec = spec_of(p, error);
  ASSERT_TRUE(spec) << error;
  EXPECT_EQ(to_string(*spec), "v7.1 features=NO_RUN_TO_PARITY,NEXT_BUDDY cpus=2 hz=250 base_slice=3000000");
  const auto back = make_profile(*spec, error);
  ASSERT_TRUE(back) << error;
  EXPECT_EQ(back->features, p.features);
  EXPECT_EQ(back->tunables, p.tunables);
}

TEST(ProfileSpec, TextFormReadsBack) {
  ProfileSpec spec;
  spec.name = "v6.6";
  spec.bug = "B10";
  spec.features = "NEXT_BUDDY";
  spec.hz = 100;
  spec.base_slice = 750000;
  std::string error;
  const auto back = profile_spec_from_string(to_string(spec), error);
  ASSERT_TRUE(back) << error;
  EXPECT_EQ(*back, spec);
  EXPECT_EQ(to_string(ProfileSpec{}), "mainline");
  EXPECT_FALSE(profile_spec_from_string("", error));
  EXPECT_FALSE(profile_spec_from_string("mainline hz=fast", error));
  EXPECT_FALSE(profile_spec_from_string("mainline colour=blue", error));
}

TEST(ProfileSpec, MakeProfileRefusesWhatTheProfileLacks) {
  std::string error;
  ProfileSpec nope;
  nope.name = "nope";
  EXPECT_FALSE(make_profile(nope, error));
  EXPECT_EQ(error, "unknown profile 'nope'");
  ProfileSpec v612;
  v612.name = "v6.12";
  v612.features = "PICK_BUDDY";  // 2a77e4be12cb came in v6.14
  EXPECT_FALSE(make_profile(v612, error));
  v612.features.clear();
  v612.bug = "B01";  // applies to later profiles only
  EXPECT_FALSE(make_profile(v612, error));
}

TEST(ProfileSpec, ABehaviourChangedByHandHasNoSpec) {
  Profile p = *profile_by_name("mainline");
  p.behaviour.avg_floor = false;
  std::string error;
  EXPECT_FALSE(spec_of(p, error));
  EXPECT_NE(error.find("cannot express"), std::string::npos) << error;
  p = *profile_by_name("mainline");
  p.tunables.migration_cost = 1;
  EXPECT_FALSE(spec_of(p, error));
}

}  // namespace
}  // namespace eevdf

namespace eevdf {
namespace {

// Behaviour enums (model/profile.hpp): one version per choice; a combination
// of versions no kernel had is refused when a profile is built.
TEST(ProfileBehaviour, EveryProfileIsOneKernel) {
  for (const auto name : profile_names()) EXPECT_EQ(behaviour_refusal(*profile_by_name(name)), "") << name;
  const Profile v66 = *profile_by_name("v6.6");
  EXPECT_EQ(v66.behaviour.pick, PickRule::v6_6);
  EXPECT_EQ(v66.behaviour.wakeup_preempt, WakeupPreempt::v6_6);
  EXPECT_TRUE(v66.behaviour.buddy_gated_by_next_buddy());
  const Profile v70 = *profile_by_name("v7.0");
  EXPECT_FALSE(v70.behaviour.pick_buddy_in_pick_next());
  EXPECT_FALSE(v70.behaviour.pick_buddy_needs_protect());
  EXPECT_TRUE(profile_by_name("mainline")->behaviour.pick_buddy_needs_protect());
}

TEST(ProfileBehaviour, MixedVersionsAreRefused) {
  Profile p = *profile_by_name("mainline");
  p.behaviour.wakeup_preempt = WakeupPreempt::v6_18;  // check_preempt_wakeup_fair() with the buddy in __pick_eevdf()
  EXPECT_NE(behaviour_refusal(p).find("e837456fdca8"), std::string::npos);
  p = *profile_by_name("v6.18");
  p.behaviour.pick = PickRule::v6_8;  // the NEXT_BUDDY pick on a kernel with PICK_BUDDY
  EXPECT_NE(behaviour_refusal(p).find("2a77e4be12cb"), std::string::npos);
  p = *profile_by_name("v6.18");
  p.behaviour.wakeup_preempt = WakeupPreempt::v6_12;  // cancels a parity stash v6.18 does not keep
  EXPECT_NE(behaviour_refusal(p).find("parity_in_vlag"), std::string::npos);
  // B10's one-pass pick is the v6.6 pick: a bug switch builds a valid profile
  p = *profile_by_name("v6.6");
  EXPECT_EQ(apply_bug(p, "B10"), "");
  EXPECT_EQ(p.behaviour.pick, PickRule::v6_6_rc1);
}

}  // namespace
}  // namespace eevdf
