// Running an obligation: the verdict query, the validation of a refutation
// (integer model, then the kernel's bit-vector operation with Z3's
// no_overflow ∧ no_underflow), the task-weights-only rerun, and the bound
// searches. Internal.
#pragma once

#include <chrono>
#include <functional>

#include "smt/obligations.hpp"
#include "smt/premises.hpp"

namespace eevdf::smt {

// A kernel operation whose exact value must fit the kernel's type.
struct ProductQuery {
  z3::expr x;               // the operand the bound search varies (key, lag, delta, ...)
  std::string x_name;       // its name in the bound: "key", "vlag", ...
  z3::expr premise_x;       // the kernel's premise on x
  z3::expr term;            // the exact value of the operation
  i128 lo, hi;              // the kernel type's range
  // The kernel's operation a·b in `bits`-bit two's complement, for the
  // bit-vector confirmation of a refutation.
  z3::expr a, b;
  unsigned bits = 64;
  bool is_signed = true;
  // The encoding bounds the value from above only: a model is no counterexample.
  bool over_approximation = false;
  bool x_nonnegative = false;  // x is a count or a u64: the bound reads "x <= K"
};
using ProductBuilder = std::function<ProductQuery(Env&)>;

// Wall-clock budget of one obligation; the bound searches stop at it.
class Budget {
 public:
  explicit Budget(double seconds) : limit_(seconds), start_(std::chrono::steady_clock::now()) {}
  double elapsed() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }
  bool exhausted() const { return elapsed() >= limit_; }
  // A query's timeout: the per-query timeout, cut to what is left of the budget.
  unsigned query_ms(unsigned timeout_ms) const {
    const double left = (limit_ - elapsed()) * 1000;
    return left <= 1 ? 1u : (left < timeout_ms ? static_cast<unsigned>(left) : timeout_ms);
  }

 private:
  double limit_;
  std::chrono::steady_clock::time_point start_;
};

struct RunOptions {
  bool search = true;  // bound searches (off when another obligation only needs the verdict)
};

// Verdict, counterexample, reachability and bounds of a product obligation.
// x_search_hi: the largest |x| the bound search tries.
Outcome run_product(const ObligationInfo& info, const Params& p, const ProductBuilder& build, i128 x_search_hi,
                    const RunOptions& options);

// The largest |term| over the premises lies in [reached, bound]: some value
// reaches `reached`, none exceeds `bound` (bound - reached <= reached / 4096).
struct TermRange {
  i128 reached = 0;
  i128 bound = 0;
};
// Exponent search, then bisection (nullopt if the budget ran out).
std::optional<TermRange> largest_term(const Params& p, const ProductBuilder& build, i128 hi, Budget& budget,
                                      int& queries);

std::vector<Assignment> read_counterexample(const Env& env, const z3::model& m, bool& integral);

}  // namespace eevdf::smt
