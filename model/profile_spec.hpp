// A profile as a value: which named profile, which bug switch, which feature
// changes and which tunables. make_profile() builds the Profile it names;
// spec_of() gives the spec of a Profile (what a scenario header or a command
// line has to say to get it back). Scenarios carry the same fields in their
// header (scn::profile_spec()); nothing has to be printed and parsed again to
// go from a Profile to its description or back.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "model/kernel_types.hpp"
#include "model/profile.hpp"

namespace eevdf {

struct ProfileSpec {
  std::string name = "mainline";  // a profile_names() entry
  std::string bug;                // bug switch ("B01"), or empty
  std::string features;           // debugfs list applied to the named profile: "NO_NEXT_BUDDY,cgroup_mode=max"
  unsigned cpus = 8;              // Tunables::ncpus
  unsigned hz = 1000;             // Tunables::hz
  std::optional<u64> base_slice;  // Tunables::normalized_base_slice in ns; nullopt: the profile's
  bool operator==(const ProfileSpec&) const = default;
};

// The text form, one line, defaults left out:
// "v7.1 bug=B01 features=NO_NEXT_BUDDY cpus=2 hz=250 base_slice=3000000".
std::string to_string(const ProfileSpec& spec);
// Reads the text form back; nullopt and a message for malformed text (the
// names are checked by make_profile()).
std::optional<ProfileSpec> profile_spec_from_string(std::string_view text, std::string& error);

// The profile: the named one, the bug switched on, the features applied, the
// tunables set. nullopt and a message for an unknown name, a bug switch that
// does not apply, or a feature the kernel lacks.
std::optional<Profile> make_profile(const ProfileSpec& spec, std::string& error);

// The spec that builds a profile with exactly `profile`'s features, tunables
// and behaviours (features as changes from the named profile with its bug),
// or nullopt and a message when none does (an unknown name, or a behaviour or
// a tunable such as the migration cost changed by hand).
std::optional<ProfileSpec> spec_of(const Profile& profile, std::string& error);

}  // namespace eevdf
