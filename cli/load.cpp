#include "cli/load.hpp"

#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <sstream>
#include <variant>

#include "scenario/bytes.hpp"
#include "scenario/scenario_parse.hpp"

namespace eevdf::cli {

std::optional<std::string> read_file(const std::string& path, std::string& error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = fmt::format("{}: cannot open file", path);
    return std::nullopt;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

namespace {
bool looks_like_text(const std::string& data) {
  for (unsigned char c : data)
    if (c == 0 || (c < 0x20 && c != '\n' && c != '\r' && c != '\t')) return false;
  return true;
}
}  // namespace

std::optional<Loaded> load_scenario(const std::string& path, bool text_only, std::string& error) {
  auto data = read_file(path, error);
  if (!data) return std::nullopt;
  if (text_only || looks_like_text(*data)) {
    auto parsed = scn::parse_scenario(*data, path);
    if (auto* e = std::get_if<scn::ParseError>(&parsed)) {
      error = scn::format_parse_error(*e);
      return std::nullopt;
    }
    return Loaded{std::get<scn::Scenario>(std::move(parsed)), false};
  }
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(data->data());
  if (!scn::bytes_version_supported(bytes, data->size()))
    std::cerr << fmt::format("eevdf-check: {}: first byte is not the format version {}; decoded as version {} like "
                             "the fuzz target does (libFuzzer's minimization can drop it)\n",
                             path, scn::kBytesFormatVersion, scn::kBytesFormatVersion);
  return Loaded{scn::decode_bytes(bytes, data->size()), true};
}

}  // namespace eevdf::cli
