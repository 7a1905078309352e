#include "smt/runner.hpp"

namespace eevdf::smt {

namespace {

constexpr double kSearchBudgetSeconds = 6.0;

z3::expr outside(const ProductQuery& q) { return !in_range(q.term, q.lo, q.hi); }

// The kernel's operation at the model's operand values, in bit-vectors: must overflow.
bool bitvector_confirms(z3::context& c, const Params& p, const ProductQuery& q, const z3::model& m) {
  const auto a = int_value(m, q.a), b = int_value(m, q.b);
  if (!a || !b) return false;
  z3::solver s = bitvector_solver(c, p.timeout_ms);
  z3::expr x = c.bv_const("a", q.bits), y = c.bv_const("b", q.bits);
  s.add(x == bv_val(c, *a, q.bits) && y == bv_val(c, *b, q.bits));
  // Z3's signed no_overflow only covers operands of the same sign: add no_underflow.
  const z3::expr fits = q.is_signed ? (z3::bvmul_no_overflow(x, y, true) && z3::bvmul_no_underflow(x, y))
                                    : z3::bvmul_no_overflow(x, y, false);
  s.add(!fits);
  return check(s).answer == Answer::sat;
}

// Name and range of a builder's operation (built once in a scratch context).
std::string q_name(const Params& p, const ProductBuilder& build) {
  z3::context c;
  Env env(c, p, !p.groups);
  const ProductQuery q = build(env);
  return q.x_nonnegative ? q.x_name : "|" + q.x_name + "|";
}
i128 q_range_lo(const Params& p, const ProductBuilder& build) {
  z3::context c;
  Env env(c, p, !p.groups);
  return build(env).lo;
}
i128 q_range_hi(const Params& p, const ProductBuilder& build) {
  z3::context c;
  Env env(c, p, !p.groups);
  return build(env).hi;
}

}  // namespace

std::vector<Assignment> read_counterexample(const Env& env, const z3::model& m, bool& integral) {
  std::vector<Assignment> out;
  for (const auto& [name, e] : env.shown) {
    const auto v = int_value(m, e);
    if (!v) integral = false;
    out.push_back({name, v ? to_decimal(*v) : m.eval(e, true).to_string()});
  }
  return out;
}

std::optional<TermRange> largest_term(const Params& p, const ProductBuilder& build, i128 hi, Budget& budget,
                                      int& queries) {
  // Is |term| >= b possible under the premises?
  auto reaches = [&](i128 b) -> std::optional<bool> {
    z3::context c;
    Env env(c, p, !p.groups);
    const ProductQuery q = build(env);
    z3::solver s = integer_solver(c, budget.query_ms(p.timeout_ms));
    s.add(env.all_facts() && q.premise_x && (q.term >= int_val(c, b) || -q.term >= int_val(c, b)));
    const auto r = check(s);
    ++queries;
    if (r.answer == Answer::unknown) return std::nullopt;
    return r.answer == Answer::sat;
  };
  // The exponent first (largest e with 2^e reachable), then the value to a
  // relative precision of 2^-12: about 7 + 12 queries instead of 127.
  int e_lo = -1, e_hi = 0;
  while ((static_cast<i128>(1) << (e_hi + 1)) <= hi && e_hi < 125) ++e_hi;
  while (e_lo < e_hi) {
    if (budget.exhausted()) return std::nullopt;
    const int mid = e_lo + (e_hi - e_lo + 1) / 2;
    const auto r = reaches(static_cast<i128>(1) << mid);
    if (!r) return std::nullopt;
    if (*r)
      e_lo = mid;
    else
      e_hi = mid - 1;
  }
  if (e_lo < 0) return TermRange{0, 0};
  i128 lo = static_cast<i128>(1) << e_lo;
  i128 top = (lo << 1) - 1 < hi ? (lo << 1) - 1 : hi;
  while (top - lo > (lo >> 12)) {
    if (budget.exhausted()) return std::nullopt;
    const i128 mid = lo + (top - lo + 1) / 2;
    const auto r = reaches(mid);
    if (!r) return std::nullopt;
    if (*r)
      lo = mid;
    else
      top = mid - 1;
  }
  return TermRange{lo, top};
}

Outcome run_product(const ObligationInfo& info, const Params& p, const ProductBuilder& build, i128 x_search_hi,
                    const RunOptions& options) {
  Outcome out;
  out.name = std::string(info.name);
  out.site = std::string(info.site);
  Budget budget(kSearchBudgetSeconds);

  {
    z3::context c;
    Env env(c, p, !p.groups);
    const ProductQuery q = build(env);
    z3::solver s = integer_solver(c, p.timeout_ms);
    s.add(env.all_facts() && q.premise_x && outside(q));
    const auto r = check(s);
    ++out.queries;
    if (r.answer == Answer::unsat) {
      out.verdict = Verdict::proved;
    } else if (r.answer == Answer::unknown) {
      out.verdict = Verdict::unknown;
      out.detail = "Z3: " + r.reason;
    } else {
      bool integral = true;
      out.counterexample = read_counterexample(env, *r.model, integral);
      out.counterexample.push_back({"exact value", int_value(*r.model, q.term) ? to_decimal(*int_value(*r.model, q.term)) : "?"});
      if (!integral) {
        out.verdict = Verdict::unknown;
        out.detail = "the integer model is not integral";
      } else if (q.over_approximation) {
        out.verdict = Verdict::unknown;
        out.detail = "the encoding over-approximates the value: a model is not a counterexample";
      } else if (q.bits == 0) {
        out.verdict = Verdict::refuted;
        out.detail = "the sum exceeds the type (every term at its bound)";
      } else if (!bitvector_confirms(c, p, q, *r.model)) {
        out.verdict = Verdict::unknown;
        out.detail = "the bit-vector encoding does not confirm the integer counterexample";
      } else {
        out.verdict = Verdict::refuted;
        out.detail = "confirmed on the kernel's " + std::to_string(q.bits) + "-bit type (bvmul no_overflow/no_underflow)";
      }
    }
  }

  if (out.verdict == Verdict::refuted && !p.groups) out.reachable = out.counterexample;  // already task weights
  if (out.verdict == Verdict::refuted && p.groups) {
    // Can the model (task weights only) reach it?
    z3::context c;
    Env env(c, p, true);
    const ProductQuery q = build(env);
    z3::solver s = integer_solver(c, p.timeout_ms);
    s.add(env.all_facts() && q.premise_x && outside(q));
    const auto r = check(s);
    ++out.queries;
    if (r.answer == Answer::sat) {
      bool integral = true;
      out.reachable = read_counterexample(env, *r.model, integral);
      if (const auto v = int_value(*r.model, q.term)) out.reachable.push_back({"exact value", to_decimal(*v)});
      if (!integral) out.reachable.clear();
    } else if (r.answer == Answer::unsat) {
      out.detail += "; not reachable with task weights only (needs group entities)";
    }
  }
  if (out.verdict == Verdict::refuted && p.groups && out.reachable.empty()) {
    // Within the model's limits: up to 31 other group entities beside tasks.
    z3::context c;
    Env env(c, p, false);
    env.model_limits = true;
    const ProductQuery q = build(env);
    z3::solver s = integer_solver(c, p.timeout_ms);
    s.add(env.all_facts() && q.premise_x && outside(q));
    const auto r = check(s);
    ++out.queries;
    out.within_model_limits = r.answer == Answer::sat     ? Verdict::refuted
                              : r.answer == Answer::unsat ? Verdict::proved
                                                          : Verdict::unknown;
    if (r.answer == Answer::sat) {
      bool integral = true;
      out.model_limits_example = read_counterexample(env, *r.model, integral);
      if (const auto v = int_value(*r.model, q.term)) out.model_limits_example.push_back({"exact value", to_decimal(*v)});
    }
  }

  if (!options.search) {
    out.seconds = budget.elapsed();
    return out;
  }

  // Tightest safe bound on |x|: the largest K with (domains ∧ |x| ≤ K ⇒ fits) proved.
  {
    i128 lo = 0, hi = x_search_hi;
    bool complete = true;
    while (lo < hi) {
      if (budget.exhausted()) {
        complete = false;
        break;
      }
      const i128 mid = lo + (hi - lo + 1) / 2;
      z3::context c;
      Env env(c, p, !p.groups);
      const ProductQuery q = build(env);
      z3::solver s = integer_solver(c, budget.query_ms(p.timeout_ms));
      s.add(env.all_facts() && abs_le(q.x, int_val(c, mid)) && outside(q));
      const auto r = check(s);
      ++out.queries;
      if (r.answer == Answer::unknown) {
        complete = false;
        break;
      }
      if (r.answer == Answer::unsat)
        lo = mid;
      else
        hi = mid - 1;
    }
    out.bound = q_name(p, build) + " <= " + to_decimal(lo) + " (" + pow2_text(lo) + ")" +
                (complete ? "" : ", at least (the search stopped at the time budget)");
  }
  if (out.verdict == Verdict::proved) {
    // the type's largest magnitude (-(lo + 1): lo may be -2^127)
    const i128 lo_magnitude = -(q_range_lo(p, build) + 1), hi_magnitude = q_range_hi(p, build);
    const i128 top = lo_magnitude > hi_magnitude ? lo_magnitude : hi_magnitude;
    const auto largest = largest_term(p, build, top, budget, out.queries);
    out.largest = largest ? to_decimal(largest->reached) + " (" + pow2_text(largest->reached) + ")"
                          : "(search stopped at the time budget)";
  }
  out.seconds = budget.elapsed();
  return out;
}

}  // namespace eevdf::smt
