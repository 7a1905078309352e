#include "bridge/kernel_version.hpp"

#include <cstdio>

#include <fmt/format.h>

namespace eevdf::bridge {

std::string KernelVersion::c_condition() const {
  if (or_later) return fmt::format("LINUX_VERSION_CODE >= KERNEL_VERSION({}, {}, 0)", major, minor);
  return fmt::format("LINUX_VERSION_CODE >= KERNEL_VERSION({}, {}, 0) && LINUX_VERSION_CODE < KERNEL_VERSION({}, {}, 0)",
                     major, minor, major, minor + 1);
}

std::string KernelVersion::text() const {
  return fmt::format("v{}.{}{}", major, minor, or_later ? " or later" : "");
}

std::optional<KernelVersion> kernel_version_of(const std::string& name) {
  // The newest mainline the model follows is v7.1 plus sched/urgent fixes (model/profile.cpp).
  if (name == "mainline") return KernelVersion{7, 1, true};
  int major = 0, minor = 0;
  char tail = 0;
  if (std::sscanf(name.c_str(), "v%d.%d%c", &major, &minor, &tail) == 2 && major > 0 && major < 100 && minor >= 0 &&
      minor < 100)
    return KernelVersion{major, minor, false};
  return std::nullopt;
}

}  // namespace eevdf::bridge
