// Bug switches: one historical EEVDF bug (docs/profiles.md, "Bug switches"),
// re-created on top of a profile whose code has the fix. A switch changes
// only what the fix changed.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "model/profile.hpp"

namespace eevdf {

struct BugSwitch {
  std::string_view id;                     // "B01"
  std::string_view title;                  // one line
  std::string_view fix;                    // the fixing commit(s)
  std::vector<std::string_view> profiles;  // profiles whose code has the fix: the switch applies there
  std::string_view shipped_in;             // released profiles that still have the bug
  std::string_view detected_by;            // the invariant ids expected to fire first
  void (*apply)(Profile&);
};

const std::vector<BugSwitch>& bug_switches();
const BugSwitch* bug_by_id(std::string_view id);

// Switches the bug on in the profile. Returns an error message (unknown id,
// or a profile the switch does not apply to), or an empty string.
std::string apply_bug(Profile& profile, std::string_view id);

}  // namespace eevdf
