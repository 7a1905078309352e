// The obligations that are not a single product: the floor of avg_vruntime(),
// place_entity()'s divisor, and the existence of an eligible entity.
#include "smt/average.hpp"

namespace eevdf::smt {

namespace {
Outcome start(const ObligationInfo& info) {
  Outcome out;
  out.name = std::string(info.name);
  out.site = std::string(info.site);
  return out;
}

void set_from(Outcome& out, const CheckResult& r) {
  ++out.queries;
  if (r.answer == Answer::unsat) out.verdict = Verdict::proved;
  if (r.answer == Answer::unknown) {
    out.verdict = Verdict::unknown;
    out.detail = "Z3: " + r.reason;
  }
  if (r.answer == Answer::sat) out.verdict = Verdict::refuted;
}
}  // namespace

// avg_vruntime(): S' = S < 0 ? S - (W - 1) : S; d = S' / W (truncating) must be
// floor(S / W), the adjustment must not wrap, and an entity at key d must pass
// the kernel's eligibility test (S >= d·W in the profile's width).
Outcome prove_avg_floor(const ObligationInfo& info, const Params& p) {
  Outcome out = start(info);
  Budget budget(60);
  auto build = [&](Env& env, bool with_premise) {
    const z3::expr W = env.var("W", "W = Σ w (curr included)");
    env.add(W >= int_val(env.c, sum_weight_lo(p, env.tasks_only)) &&
            W <= int_val(env.c, p.max_queue * sum_weight_hi(p, env.tasks_only)));
    const z3::expr S = env.var("S", "S = Σ key·w (curr included)");
    env.add(in_range(S, kS64Min, kS64Max));
    if (with_premise) env.add(S >= int_val(env.c, kS64Min) + W - 1);  // from sum_w_vruntime.sum_of_n
    const z3::expr adjusted = env.var("S_adjusted", "S - (W - 1) if S < 0");
    env.add(adjusted == z3::ite(S < 0, S - (W - 1), S));
    // P = d·W, d = div64_long(S_adjusted, W) truncating toward zero. Every
    // constraint below is linear in P: the query abstracts the product (sound
    // for a proof; a model would need d = P / W checked).
    const z3::expr P = env.var("P", "d·W, d = div64_long(S_adjusted, W)");
    env.add(z3::ite(adjusted >= 0, P <= adjusted && adjusted < P + W, P >= adjusted && adjusted > P - W));
    const z3::expr is_floor = P <= S && S < P + W;
    const i128 lo = p.eligible_int128 ? kI128Min : kS64Min, hi = p.eligible_int128 ? kI128Max : kS64Max;
    const z3::expr eligible = in_range(P, lo, hi) && S >= P;
    return !(is_floor && eligible && in_range(adjusted, kS64Min, kS64Max));
  };
  {
    z3::context c;
    Env env(c, p, !p.groups);
    const z3::expr failure = build(env, true);
    z3::solver s = linear_solver(c, p.timeout_ms);
    s.add(env.all_facts() && failure);
    const auto r = check(s);
    set_from(out, r);
    if (r.answer == Answer::sat) {
      bool integral = true;
      out.counterexample = read_counterexample(env, *r.model, integral);
    }
  }
  {
    // The premise is needed: without it the adjustment wraps.
    z3::context c;
    Env env(c, p, !p.groups);
    const z3::expr failure = build(env, false);
    z3::solver s = linear_solver(c, p.timeout_ms);
    s.add(env.all_facts() && failure);
    const auto r = check(s);
    ++out.queries;
    if (r.answer == Answer::sat) {
      const auto S = int_value(*r.model, c.int_const("S")), W = int_value(*r.model, c.int_const("W"));
      out.detail = "without the premise S >= S64_MIN + W - 1 it fails, e.g. S = " + (S ? to_decimal(*S) : "?") +
                   ", W = " + (W ? to_decimal(*W) : "?");
    }
  }
  out.bound = "S >= S64_MIN + W - 1 (implied by sum_w_vruntime.sum_of_n)";
  out.seconds = budget.elapsed();
  return out;
}

// place_entity(): the divisor load as the division sees it (s64 for
// div64_long, the low 32 bits sign-extended for div_s64) equals load and is not 0.
Outcome prove_place_division(const ObligationInfo& info, const Params& p) {
  Outcome out = start(info);
  Budget budget(60);
  const i128 load_lo = sum_weight_lo(p, !p.groups);
  const i128 load_hi = (p.max_queue - 1) * sum_weight_hi(p, !p.groups);
  auto query = [&](i128 hi, std::optional<i128>* witness) {
    z3::context c;
    z3::solver s = bitvector_solver(c, p.timeout_ms);
    const z3::expr load = c.bv_const("load", 64);
    s.add(z3::uge(load, bv_val(c, load_lo, 64)) && z3::ule(load, bv_val(c, hi, 64)));
    const z3::expr used = p.place_division == PlaceDivision::div_s64 ? z3::sext(load.extract(31, 0), 32) : load;
    s.add(used != load || used == bv_val(c, 0, 64));
    const auto r = check(s);
    if (r.answer == Answer::sat && witness) *witness = bv_signed_value(*r.model, load);
    return r.answer;  // the model dies with this context
  };
  std::optional<i128> witness;
  CheckResult r;
  r.answer = query(load_hi, &witness);
  set_from(out, r);
  if (witness) {
    out.counterexample = {{"load = Σ w of the queue (sum_weight + curr)", to_decimal(*witness)},
                          {"divisor div_s64() uses (s32)", to_decimal(static_cast<s32>(static_cast<u32>(*witness)))}};
    out.detail = "div_s64() truncates the divisor to s32";
  }
  // largest load the division handles
  i128 lo = load_lo, hi = (static_cast<i128>(1) << 63) - 1;
  while (p.search_bounds && lo < hi && !budget.exhausted()) {
    const i128 mid = lo + (hi - lo + 1) / 2;
    const Answer m = query(mid, nullptr);
    ++out.queries;
    if (m == Answer::unsat)
      lo = mid;
    else
      hi = mid - 1;
  }
  if (p.search_bounds) out.bound = "load <= " + to_decimal(lo) + " (" + pow2_text(lo) + ")";
  out.seconds = budget.elapsed();
  return out;
}

// Every queue has an entity with S >= key·W: the one of least key. Induction
// over the queue (exact integers): base n = 1, step "add one entity".
Outcome prove_eligible_exists(const ObligationInfo& info, const Params& p, Verdict sums_fit, Verdict key_load_fits) {
  Outcome out = start(info);
  Budget budget(60);
  {
    z3::context c;
    z3::solver s = integer_solver(c, p.timeout_ms);
    const z3::expr k = c.int_const("k"), w = c.int_const("w");
    s.add(w >= 1 && !(k * w >= k * w));  // n = 1: S = k·w, W = w
    set_from(out, check(s));
  }
  if (out.verdict == Verdict::proved) {
    z3::context c;
    z3::solver s = integer_solver(c, p.timeout_ms);
    const z3::expr S = c.int_const("S"), W = c.int_const("W"), m = c.int_const("m");
    const z3::expr k = c.int_const("k"), w = c.int_const("w");
    const z3::expr m2 = z3::ite(k < m, k, m);
    s.add(W >= 1 && w >= 1 && S >= m * W);           // hypothesis: the least key m is eligible
    s.add(!(S + k * w >= m2 * (W + w)));             // after adding (k, w) the least key is not
    set_from(out, check(s));
  }
  if (out.verdict == Verdict::proved && sums_fit != Verdict::proved) {
    out.verdict = Verdict::unknown;
    out.detail = std::string("the induction holds for exact integers, but sum_w_vruntime.sum_of_n is ") +
                 verdict_name(sums_fit);
  } else if (out.verdict == Verdict::proved && key_load_fits != Verdict::proved) {
    // key·load wraps (s64 eligibility): look for a queue, within the key
    // premise and with an exact Σ key·w, that the wrapped test leaves without
    // an eligible entity: one entity (key1, w1) and c >= 1 entities alike
    // (key2, w2), n = 1 + c <= N. Two kinds suffice: a light entity whose
    // key·load wraps, and heavy ones just right of V, tested exactly.
    z3::context c;
    Env env(c, p, !p.groups);
    const z3::expr ns = lag_ns(env);
    std::vector<z3::expr> k, w, ws;
    for (int i = 1; i <= 2; ++i) {
      const std::string n = std::to_string(i);
      w.push_back(env.var("w" + n, i == 1 ? "w1 (one entity)" : "w2 (each of the others)"));
      env.add(weight_domain(env, w.back()));
      ws.push_back(sum_weight_of(env, w.back(), "ws" + n));
      k.push_back(env.var("key" + n, i == 1 ? "key1" : "key2 (each of the others)"));
      env.add(within_calc_delta_fair(env, k.back(), w.back(), ns, p.key_lags));
    }
    const z3::expr copies = env.var("copies", "number of the others");
    env.add(copies >= 1 && copies <= int_val(c, p.max_queue - 1));
    const z3::expr term2 = env.hidden("term2");  // key2·ws2, one of the others' terms
    env.add(term2 == k[1] * ws[1]);
    const z3::expr S = k[0] * ws[0] + copies * term2;
    const z3::expr W = ws[0] + copies * ws[1];
    env.add(in_range(S, kS64Min, kS64Max));
    const z3::expr two64 = int_val(c, static_cast<i128>(1) << 64);
    z3::expr none_eligible = c.bool_val(true);
    for (int i = 0; i < 2; ++i) {
      const z3::expr m = env.hidden("wraps" + std::to_string(i));
      const z3::expr held = k[i] * W - two64 * m;  // the s64 the kernel holds
      env.add(in_range(held, kS64Min, kS64Max));
      none_eligible = none_eligible && S < held;
    }
    z3::solver s = integer_solver(c, p.timeout_ms);
    s.add(env.all_facts() && none_eligible);
    const auto r = check(s);
    ++out.queries;
    bool confirmed = false;
    if (r.answer == Answer::sat) {
      bool integral = true;
      out.counterexample = read_counterexample(env, *r.model, integral);
      // Recompute in the kernel's types: the exact sum over the queue, then
      // vruntime_eligible()'s s64 product for each kind of entity.
      i128 vals[5];
      const z3::expr terms[5] = {k[0], k[1], ws[0], ws[1], copies};
      for (int i = 0; i < 5; ++i) {
        const auto v = int_value(*r.model, terms[i]);
        integral = integral && v;
        vals[i] = v ? *v : 0;
      }
      if (integral) {
        const i128 sum = vals[0] * vals[2] + vals[4] * vals[1] * vals[3];
        const u64 load = static_cast<u64>(vals[2] + vals[4] * vals[3]);
        confirmed = sum >= kS64Min && sum <= kS64Max;
        for (int i = 0; i < 2; ++i) {
          const s64 held = as_s64(static_cast<u64>(static_cast<s64>(vals[i])) * load);
          confirmed = confirmed && sum < held;
        }
        out.counterexample.push_back({"S = Σ key·w (exact, fits s64)", to_decimal(sum)});
        out.counterexample.push_back({"W = Σ w (load)", to_decimal(static_cast<i128>(load))});
      }
    }
    if (confirmed) {
      out.verdict = Verdict::refuted;
      out.detail = "the s64 test key·load >= S fails for every queued entity (key1·W wraps): none is eligible, pick_eevdf() returns NULL";
    } else {
      out.verdict = Verdict::unknown;
      out.detail = std::string("the induction holds for exact integers, but vruntime_eligible.key_x_load is ") +
                   verdict_name(key_load_fits) + "; no queue without an eligible entity was found (Z3: " +
                   (r.answer == Answer::unsat ? "none exists of the searched form" : r.answer == Answer::sat ? "not confirmed" : r.reason) + ")";
    }
  } else if (out.verdict == Verdict::proved) {
    out.detail = "premises: sum_w_vruntime.sum_of_n and vruntime_eligible.key_x_load proved";
  }
  if (out.verdict == Verdict::proved) out.bound = "any n <= " + std::to_string(p.max_queue);
  out.seconds = budget.elapsed();
  return out;
}

// Without the no-overflow premises: two entities whose wrapped Σ key·w leaves
// neither eligible (so pick_eevdf() finds nobody). Weights fixed at the
// domain's maximum (a satisfying queue is a counterexample whatever restricts it).
Outcome prove_eligible_exists_unguarded(const ObligationInfo& info, const Params& p) {
  Outcome out = start(info);
  Budget budget(60);
  z3::context c;
  z3::solver s = bitvector_solver(c, p.timeout_ms);
  const i128 w = sum_weight_hi(p, !p.groups);
  const z3::expr k1 = c.bv_const("k1", 64), k2 = c.bv_const("k2", 64);
  const z3::expr wv = bv_val(c, w, 64);
  const z3::expr S = k1 * wv + k2 * wv;  // wraps like the kernel's u64 arithmetic
  const z3::expr W = wv + wv;
  auto eligible = [&](const z3::expr& k) {
    if (p.eligible_int128) return z3::sext(S, 64) >= z3::sext(k, 64) * z3::zext(W, 64);
    return S >= k * W;
  };
  s.add(!eligible(k1) && !eligible(k2));
  const auto r = check(s);
  set_from(out, r);
  if (r.answer == Answer::sat) {
    const auto a = bv_signed_value(*r.model, k1), b = bv_signed_value(*r.model, k2);
    const auto wrapped = bv_signed_value(*r.model, S);
    out.counterexample = {{"w1 = w2", to_decimal(w)},
                          {"key1", a ? to_decimal(*a) : "?"},
                          {"key2", b ? to_decimal(*b) : "?"},
                          {"exact S", a && b ? to_decimal(*a * w + *b * w) : "?"},
                          {"S as the kernel holds it (wrapped)", wrapped ? to_decimal(*wrapped) : "?"}};
    out.detail = "expected: without the no-overflow premises no entity need be eligible";
  }
  out.seconds = budget.elapsed();
  return out;
}

}  // namespace eevdf::smt
