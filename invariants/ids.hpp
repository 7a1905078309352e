// The invariant identifiers (docs/eevdf.md, "The invariants"), their one-line
// statements and their documentation (printed by `eevdf-check explain`).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace eevdf::inv {

enum class Id : std::uint8_t {
  NULLPICK, SUM, OVF, KEY, ELIG, AVG0, PICKOPT, AUG, LAG, RW, DL, DELAY, PROT, SLICE, CNT, MONO, FAIR, WARN,
  WAKEPICK, FRESH, HLOAD, WAKECOUNT, PLACE, PELT, BW, IDLE,
  count_
};
inline constexpr std::size_t kIdCount = static_cast<std::size_t>(Id::count_);

std::string_view id_name(Id id);                    // "I-SUM"
std::optional<Id> id_from_name(std::string_view);   // accepts "I-SUM" and "SUM"
std::string_view id_statement(Id id);               // one line
std::string_view id_documentation(Id id);           // paragraphs: property, mechanism, tolerance
// Where it runs: the model, the kernel's own code (--backend kernel, the trees
// the extractor takes) and lockstep; one line (docs/kernel-backend.md, "Which
// invariants run where").
std::string_view id_backends(Id id);

// Which invariants run. All by default.
struct Selection {
  std::array<bool, kIdCount> on{};
  Selection() { on.fill(true); }
  bool operator[](Id id) const { return on[static_cast<std::size_t>(id)]; }
  void set(Id id, bool v) { on[static_cast<std::size_t>(id)] = v; }
};

// Parses "I-SUM,I-OVF" (only these) or a skip list. Returns an error message or "".
std::string parse_selection(std::string_view only, std::string_view skip, Selection& out);

}  // namespace eevdf::inv
