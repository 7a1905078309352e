#include "model/profile_spec.hpp"

#include <charconv>
#include <vector>

#include "model/bugs.hpp"

namespace eevdf {

std::string to_string(const ProfileSpec& spec) {
  std::string s = spec.name;
  if (!spec.bug.empty()) s += " bug=" + spec.bug;
  if (!spec.features.empty()) s += " features=" + spec.features;
  if (spec.cpus != ProfileSpec{}.cpus) s += " cpus=" + std::to_string(spec.cpus);
  if (spec.hz != ProfileSpec{}.hz) s += " hz=" + std::to_string(spec.hz);
  if (spec.base_slice) s += " base_slice=" + std::to_string(*spec.base_slice);
  return s;
}

namespace {
template <class T>
bool read_number(std::string_view text, T& out) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc{} && end == text.data() + text.size();
}
}  // namespace

std::optional<ProfileSpec> profile_spec_from_string(std::string_view text, std::string& error) {
  std::vector<std::string_view> words;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t end = std::min(text.find(' ', at), text.size());
    if (end > at) words.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  if (words.empty() || words.front().find('=') != std::string_view::npos) {
    error = "a profile spec starts with the profile's name";
    return std::nullopt;
  }
  ProfileSpec spec;
  spec.name = std::string(words.front());
  for (std::size_t i = 1; i < words.size(); ++i) {
    const std::string_view w = words[i];
    const std::size_t eq = w.find('=');
    const std::string_view key = w.substr(0, eq);
    const std::string_view value = eq == std::string_view::npos ? std::string_view() : w.substr(eq + 1);
    bool ok = eq != std::string_view::npos && !value.empty();
    if (ok && key == "bug") {
      spec.bug = std::string(value);
    } else if (ok && key == "features") {
      spec.features = std::string(value);
    } else if (ok && key == "cpus") {
      ok = read_number(value, spec.cpus);
    } else if (ok && key == "hz") {
      ok = read_number(value, spec.hz);
    } else if (ok && key == "base_slice") {
      u64 ns = 0;
      ok = read_number(value, ns);
      spec.base_slice = ns;
    } else {
      ok = false;
    }
    if (!ok) {
      error = "expected bug=ID, features=LIST, cpus=N, hz=N or base_slice=NS in a profile spec, found '" +
              std::string(w) + "'";
      return std::nullopt;
    }
  }
  return spec;
}

namespace {

// The named profile with the bug `bug` ("": none) applied; nullopt and error
// when either is unknown.
std::optional<Profile> named_profile(const std::string& name, const std::string& bug, std::string& error) {
  auto profile = profile_by_name(name);
  if (!profile) {
    error = "unknown profile '" + name + "'";
    return std::nullopt;
  }
  if (!bug.empty()) {
    if (std::string err = apply_bug(*profile, bug); !err.empty()) {
      error = err;
      return std::nullopt;
    }
  }
  return profile;
}

}  // namespace

std::optional<Profile> make_profile(const ProfileSpec& spec, std::string& error) {
  auto profile = named_profile(spec.name, spec.bug, error);
  if (!profile) return std::nullopt;
  if (!spec.features.empty()) {
    if (std::string err = apply_features(*profile, spec.features); !err.empty()) {
      error = err;
      return std::nullopt;
    }
  }
  profile->tunables.ncpus = spec.cpus;
  profile->tunables.hz = spec.hz;
  if (spec.base_slice) profile->tunables.normalized_base_slice = *spec.base_slice;
  return profile;
}

std::optional<ProfileSpec> spec_of(const Profile& profile, std::string& error) {
  const auto base = named_profile(profile.name, profile.bug, error);
  if (!base) return std::nullopt;
  ProfileSpec spec;
  spec.name = profile.name;
  spec.bug = profile.bug;
  for (std::size_t i = 0; i < kFeatureCount; ++i) {
    const auto f = static_cast<Feature>(i);
    if (profile.features[f] == base->features[f]) continue;
    if (!spec.features.empty()) spec.features += ',';
    spec.features += std::string(profile.features[f] ? "" : "NO_") + feature_name(f);
  }
  spec.cpus = profile.tunables.ncpus;
  spec.hz = profile.tunables.hz;
  if (profile.tunables.normalized_base_slice != base->tunables.normalized_base_slice)
    spec.base_slice = profile.tunables.normalized_base_slice;
  const auto rebuilt = make_profile(spec, error);
  if (!rebuilt) return std::nullopt;
  if (!(rebuilt->features == profile.features && rebuilt->tunables == profile.tunables &&
        rebuilt->behaviour == profile.behaviour)) {
    // (the words `eevdf-check check` has always printed: a spec is what a scenario header says)
    error = "profile '" + profile.name +
            "' differs from the named profile in a way a scenario cannot express (behaviours or migration cost)";
    return std::nullopt;
  }
  return spec;
}

}  // namespace eevdf
