#include "scenario/duration.hpp"

namespace eevdf::scn {

namespace {

struct Unit {
  std::string_view suffix;
  u64 ns;
  int digits;  // log10(ns)
};
constexpr Unit kUnits[] = {
    {"ns", 1, 0},
    {"us", 1000, 3},
    {"ms", 1000000, 6},
    {"s", 1000000000, 9},
};

bool is_digit(char c) { return c >= '0' && c <= '9'; }

bool fail(std::string* error, std::string msg) {
  if (error) *error = std::move(msg);
  return false;
}

}  // namespace

std::string quote_input(std::string_view text, std::size_t max_len) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "'";
  const std::size_t n = text.size() < max_len ? text.size() : max_len;
  for (std::size_t i = 0; i < n; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  if (n < text.size()) out += "...";
  out += "'";
  return out;
}

std::optional<s64> parse_duration(std::string_view text, std::string* error) {
  const std::string expected = "expected a duration (digits with an optional unit ns, us, ms or s, e.g. 700us, 3ms, 1.5ms)";
  const std::string found = "found " + quote_input(text);
  if (text.empty()) {
    fail(error, expected + ", found nothing");
    return std::nullopt;
  }
  if (text.front() == '-') {
    fail(error, "expected a duration that is not negative, " + found);
    return std::nullopt;
  }
  std::size_t i = 0;
  // Integer part, saturating far above the limit.
  constexpr u64 kSaturate = u64{1} << 63;
  u64 whole = 0;
  bool whole_sat = false;
  const std::size_t whole_start = i;
  while (i < text.size() && is_digit(text[i])) {
    const u64 d = static_cast<u64>(text[i] - '0');
    if (whole > (kSaturate - d) / 10) whole_sat = true;
    else whole = whole * 10 + d;
    ++i;
  }
  if (i == whole_start) {
    fail(error, expected + ", " + found);
    return std::nullopt;
  }
  // Fraction digits, kept without trailing zeros.
  std::string_view frac;
  if (i < text.size() && text[i] == '.') {
    ++i;
    const std::size_t fs = i;
    while (i < text.size() && is_digit(text[i])) ++i;
    frac = text.substr(fs, i - fs);
    if (frac.empty()) {
      fail(error, "expected digits after the decimal point in a duration, " + found);
      return std::nullopt;
    }
    while (!frac.empty() && frac.back() == '0') frac.remove_suffix(1);
  }
  const std::string_view suffix = text.substr(i);
  const Unit* unit = nullptr;
  if (suffix.empty()) {
    unit = &kUnits[0];
  } else {
    for (const Unit& u : kUnits)
      if (suffix == u.suffix) unit = &u;
    if (!unit) {
      fail(error, "expected a duration unit (ns, us, ms or s) after the number, found " + quote_input(suffix) +
                      " in " + quote_input(text));
      return std::nullopt;
    }
  }
  // Fraction: must be a whole number of nanoseconds.
  u64 frac_ns = 0;
  if (!frac.empty()) {
    if (static_cast<int>(frac.size()) > unit->digits) {
      fail(error, "expected a whole number of nanoseconds, found " + quote_input(text) +
                      " (too many decimal places for the unit)");
      return std::nullopt;
    }
    u64 f = 0;
    for (char c : frac) f = f * 10 + static_cast<u64>(c - '0');
    for (int k = static_cast<int>(frac.size()); k < unit->digits; ++k) f *= 10;
    frac_ns = f;  // < unit->ns
  }
  // whole * unit + frac_ns <= 2^62
  const u64 limit = static_cast<u64>(kMaxDurationNs);
  if (whole_sat || whole > limit / unit->ns || whole * unit->ns > limit - frac_ns) {
    fail(error, "expected a duration of at most 2^62 ns (about 146 years), found " + quote_input(text));
    return std::nullopt;
  }
  return static_cast<s64>(whole * unit->ns + frac_ns);
}

std::string format_duration(s64 ns) {
  if (ns == 0) return "0";
  std::string sign;
  u64 mag = static_cast<u64>(ns);
  if (ns < 0) {
    sign = "-";
    mag = u64{0} - mag;
  }
  for (int k = 3; k >= 0; --k) {
    const Unit& u = kUnits[k];
    if (mag % u.ns == 0) return sign + std::to_string(mag / u.ns) + std::string(u.suffix);
  }
  return sign + std::to_string(mag) + "ns";
}

}  // namespace eevdf::scn
