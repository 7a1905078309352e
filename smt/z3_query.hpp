// A thin layer over the Z3 C++ API: one query = one solver with the
// per-query timeout; numerals to and from 128-bit integers; the kernel's
// integer ranges. Internal to eevdf_smt (the only file set that includes z3++.h).
#pragma once

#include <z3++.h>

#include <chrono>
#include <optional>
#include <string>

#include "model/kernel_types.hpp"

namespace eevdf::smt {

inline constexpr i128 kS64Min = -(static_cast<i128>(1) << 63);
inline constexpr i128 kS64Max = (static_cast<i128>(1) << 63) - 1;
inline constexpr i128 kU64Max = (static_cast<i128>(1) << 64) - 1;
inline constexpr i128 kI128Max = static_cast<i128>((~static_cast<u128>(0)) >> 1);
inline constexpr i128 kI128Min = -kI128Max - 1;

enum class Answer : std::uint8_t { unsat, sat, unknown };

struct CheckResult {
  Answer answer = Answer::unknown;
  double seconds = 0;
  std::optional<z3::model> model;
  std::string reason;  // Z3's reason for unknown
};

// Integer (QF_NIA) solver: Z3's nlsat procedure, which decides the bounded
// polynomial constraints of the product obligations in milliseconds, where the
// default solver needs seconds.
z3::solver integer_solver(z3::context& c, unsigned timeout_ms);
// Z3's default solver (linear integer arithmetic) with the timeout.
z3::solver linear_solver(z3::context& c, unsigned timeout_ms);
// Bit-vector solver with the timeout.
z3::solver bitvector_solver(z3::context& c, unsigned timeout_ms);

CheckResult check(z3::solver& s);

std::string to_decimal(i128 v);
z3::expr int_val(z3::context& c, i128 v);
// Bit-vector numeral of `bits` bits holding v (two's complement).
z3::expr bv_val(z3::context& c, i128 v, unsigned bits);
// A model's value of an integer term; nullopt if it is not an integer or does not fit.
std::optional<i128> int_value(const z3::model& m, const z3::expr& e);
// A model's value of a bit-vector term read as signed.
std::optional<i128> bv_signed_value(const z3::model& m, const z3::expr& e);

// e lies in [lo, hi]
inline z3::expr in_range(const z3::expr& e, i128 lo, i128 hi) {
  return e >= int_val(e.ctx(), lo) && e <= int_val(e.ctx(), hi);
}
inline z3::expr abs_le(const z3::expr& e, const z3::expr& bound) { return e <= bound && -e <= bound; }

// log2 of a positive value, one decimal, as text: "2^47.7".
std::string pow2_text(i128 v);

}  // namespace eevdf::smt
