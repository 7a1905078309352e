#include "smt/z3_query.hpp"

#include <cmath>
#include <cstdio>

namespace eevdf::smt {

namespace {
void set_timeout(z3::solver& s, unsigned timeout_ms) {
  z3::params p(s.ctx());
  p.set("timeout", timeout_ms);
  s.set(p);
}
}  // namespace

z3::solver integer_solver(z3::context& c, unsigned timeout_ms) {
  z3::solver s = z3::tactic(c, "qfnra-nlsat").mk_solver();
  set_timeout(s, timeout_ms);
  return s;
}

z3::solver linear_solver(z3::context& c, unsigned timeout_ms) {
  z3::solver s(c);
  set_timeout(s, timeout_ms);
  return s;
}

z3::solver bitvector_solver(z3::context& c, unsigned timeout_ms) {
  z3::solver s = z3::tactic(c, "qfbv").mk_solver();
  set_timeout(s, timeout_ms);
  return s;
}

CheckResult check(z3::solver& s) {
  CheckResult r;
  const auto start = std::chrono::steady_clock::now();
  const z3::check_result answer = s.check();
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  switch (answer) {
    case z3::unsat: r.answer = Answer::unsat; break;
    case z3::sat:
      r.answer = Answer::sat;
      r.model = s.get_model();
      break;
    case z3::unknown:
      r.answer = Answer::unknown;
      r.reason = s.reason_unknown();
      break;
  }
  return r;
}

std::string to_decimal(i128 v) {
  if (v == 0) return "0";
  const bool negative = v < 0;
  u128 u = negative ? static_cast<u128>(0) - static_cast<u128>(v) : static_cast<u128>(v);
  std::string digits;
  while (u != 0) {
    digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(u % 10)));
    u /= 10;
  }
  return negative ? "-" + digits : digits;
}

z3::expr int_val(z3::context& c, i128 v) { return c.int_val(to_decimal(v).c_str()); }

z3::expr bv_val(z3::context& c, i128 v, unsigned bits) {
  // Z3 reduces a decimal numeral modulo 2^bits; pass the non-negative residue.
  const u128 mask = bits >= 128 ? ~static_cast<u128>(0) : ((static_cast<u128>(1) << bits) - 1);
  const u128 residue = static_cast<u128>(v) & mask;
  std::string digits;
  u128 u = residue;
  if (u == 0) digits = "0";
  while (u != 0) {
    digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(u % 10)));
    u /= 10;
  }
  return c.bv_val(digits.c_str(), bits);
}

namespace {
std::optional<i128> parse_decimal(const std::string& text) {
  if (text.empty()) return std::nullopt;
  std::size_t i = 0;
  bool negative = false;
  if (text[0] == '-') {
    negative = true;
    i = 1;
  }
  if (i == text.size()) return std::nullopt;
  u128 u = 0;
  for (; i < text.size(); ++i) {
    if (text[i] < '0' || text[i] > '9') return std::nullopt;  // a fraction, "/" or "?"
    const u128 next = u * 10 + static_cast<u128>(text[i] - '0');
    if (next / 10 != u) return std::nullopt;
    u = next;
  }
  if (u > static_cast<u128>(kI128Max) + (negative ? 1 : 0)) return std::nullopt;
  return negative ? static_cast<i128>(static_cast<u128>(0) - u) : static_cast<i128>(u);
}
}  // namespace

std::optional<i128> int_value(const z3::model& m, const z3::expr& e) {
  const z3::expr v = m.eval(e, true);
  if (!v.is_numeral()) return std::nullopt;
  return parse_decimal(v.get_decimal_string(0));
}

std::optional<i128> bv_signed_value(const z3::model& m, const z3::expr& e) {
  const z3::expr v = m.eval(e, true);
  if (!v.is_numeral()) return std::nullopt;
  const auto u = parse_decimal(v.get_decimal_string(0));
  if (!u) return std::nullopt;
  const unsigned bits = e.get_sort().bv_size();
  if (bits >= 128) return u;
  const i128 half = static_cast<i128>(1) << (bits - 1);
  return *u >= half ? *u - 2 * half : *u;
}

std::string pow2_text(i128 v) {
  if (v <= 0) return to_decimal(v);
  const double l = std::log2(static_cast<double>(v));
  char buf[32];
  std::snprintf(buf, sizeof buf, "2^%.1f", std::floor(l * 10) / 10);
  return buf;
}

}  // namespace eevdf::smt
