// Durations in the scenario language: "700us", "3ms", "2s", "1500ns",
// "1.5ms"; a plain integer is nanoseconds. Parsing is exact: the value must be
// a whole number of nanoseconds, not negative, and at most 2^62 ns.
// Printing uses the largest unit that represents the value exactly.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "model/kernel_types.hpp"

namespace eevdf::scn {

inline constexpr s64 kMaxDurationNs = s64{1} << 62;

// Parses a duration. On failure returns nullopt and, if `error` is given,
// stores a message of the form "expected ..., found '...'" or saying what is
// wrong ("not a whole number of nanoseconds", "more than 2^62 ns", ...).
// Never throws (other than std::bad_alloc for the message).
std::optional<s64> parse_duration(std::string_view text, std::string* error = nullptr);

// "3ms", "700us", "1500ns", "2s"; 0 prints as "0". Negative values print with
// a leading '-' (used for expect field values), e.g. "-3ms".
std::string format_duration(s64 ns);

// Quotes a piece of input for an error message: printable ASCII as is, every
// other byte as \xNN, cut after `max_len` bytes with "...".
std::string quote_input(std::string_view text, std::size_t max_len = 40);

}  // namespace eevdf::scn
