// Test helper: a profile by name, with a bug switch applied (a bad name or a
// switch the profile refuses is a test failure).
#pragma once

#include <gtest/gtest.h>

#include <string_view>

#include "model/bugs.hpp"
#include "model/profile.hpp"

namespace eevdf::test {

inline Profile profile_with_bug(std::string_view name, std::string_view bug = "") {
  const auto found = profile_by_name(name);
  EXPECT_TRUE(found.has_value()) << name;
  Profile p = found ? *found : Profile{};
  if (!bug.empty()) {
    EXPECT_EQ(apply_bug(p, bug), "");
  }
  return p;
}

}  // namespace eevdf::test
