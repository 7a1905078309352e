#include "bridge/kernel_version.hpp"

#include "model/profile.hpp"

#include <cstdio>

#include <fmt/format.h>

namespace eevdf::bridge {

std::string KernelVersion::c_condition() const {
  if (or_later) return fmt::format("LINUX_VERSION_CODE >= KERNEL_VERSION({}, {}, 0)", major, minor);
  // a point release: exactly the SUBLEVEL whose source the profile was read from
  if (patch >= 0)
    return fmt::format(
        "LINUX_VERSION_CODE >= KERNEL_VERSION({}, {}, {}) && LINUX_VERSION_CODE < KERNEL_VERSION({}, {}, {})", major,
        minor, patch, major, minor, patch + 1);
  return fmt::format("LINUX_VERSION_CODE >= KERNEL_VERSION({}, {}, 0) && LINUX_VERSION_CODE < KERNEL_VERSION({}, {}, 0)",
                     major, minor, major, minor + 1);
}

std::string KernelVersion::text() const {
  if (patch >= 0) return fmt::format("v{}.{}.{}{}", major, minor, patch, or_later ? " or later" : "");
  return fmt::format("v{}.{}{}", major, minor, or_later ? " or later" : "");
}

std::optional<KernelVersion> kernel_version_of(const std::string& name) {
  // mainline: the release it follows, or later (kMainlineRelease, model/profile.hpp)
  if (name == "mainline") {
    std::optional<KernelVersion> v = kernel_version_of(std::string(kMainlineRelease));
    if (v) v->or_later = true;
    return v;
  }
  int major = 0, minor = 0, patch = 0;
  char tail = 0;
  if (std::sscanf(name.c_str(), "v%d.%d%c", &major, &minor, &tail) == 2 && major > 0 && major < 100 && minor >= 0 &&
      minor < 100)
    return KernelVersion{major, minor, false};
  // a stable point release, e.g. v6.12.118 (KERNEL_VERSION() saturates SUBLEVEL at 255)
  if (std::sscanf(name.c_str(), "v%d.%d.%d%c", &major, &minor, &patch, &tail) == 3 && major > 0 && major < 100 &&
      minor >= 0 && minor < 100 && patch >= 0 && patch < 255)
    return KernelVersion{major, minor, false, patch};
  return std::nullopt;
}

}  // namespace eevdf::bridge
