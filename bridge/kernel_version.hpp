// The kernel release a profile stands for, as a LINUX_VERSION_CODE guard for
// generated kSTEP drivers and a note for rt-app files.
#pragma once

#include <optional>
#include <string>

namespace eevdf::bridge {

struct KernelVersion {
  int major = 0, minor = 0;
  bool or_later = false;  // mainline: this release and what follows it
  int patch = -1;         // a stable point release ("v6.12.118"): exactly this SUBLEVEL; -1: any
  std::string c_condition() const;  // e.g. "LINUX_VERSION_CODE >= KERNEL_VERSION(7, 1, 0)"
  std::string text() const;         // "v7.1 or later", "v7.1", "v6.12.118"
};

// mainline -> 7.1 or later; "vX.Y" -> exactly X.Y (any patch level); "vX.Y.Z"
// -> exactly X.Y.Z (Z below 255, where KERNEL_VERSION() saturates); nullopt otherwise.
std::optional<KernelVersion> kernel_version_of(const std::string& profile_name);

}  // namespace eevdf::bridge
