// Encodings of the multiplications of the EEVDF path as integer constraints
// (exact values), checked against the kernel type's range.
#include "model/weights.hpp"
#include "smt/builders.hpp"

namespace eevdf::smt {

namespace {

ProductQuery make(z3::expr x, std::string x_name, z3::expr premise, z3::expr term, i128 lo, i128 hi, z3::expr a,
                  z3::expr b, unsigned bits, bool is_signed, bool over_approximation = false) {
  return ProductQuery{std::move(x), std::move(x_name), std::move(premise), std::move(term), lo, hi,
                      std::move(a), std::move(b), bits, is_signed, over_approximation};
}

z3::expr entity_weight(Env& env, const std::string& name, const std::string& shown) {
  z3::expr w = env.var(name, shown);
  env.add(weight_domain(env, w));
  return w;
}

i128 n0() { return static_cast<i128>(kNice0Load); }

}  // namespace

ProductQuery key_x_weight(Env& env) {
  const z3::expr w = entity_weight(env, "w", "w = se->load.weight");
  const z3::expr ws = sum_weight_of(env, w, "ws");
  const z3::expr ns = lag_ns(env);
  const z3::expr key = env.var("key", "key = entity_key(se) = v - zero_vruntime");
  return make(key, "key", within_calc_delta_fair(env, key, w, ns, env.p.key_lags), key * ws, kS64Min, kS64Max, key,
              ws, 64, true);
}

ProductQuery key_x_load(Env& env) {
  const z3::expr w = entity_weight(env, "w", "w = weight of the entity tested");
  const z3::expr ws = sum_weight_of(env, w, "ws");
  const z3::expr ns = lag_ns(env);
  const z3::expr key = env.var("key", "key = v - zero_vruntime");
  const z3::expr rest = queue_load(env, "others", 0, env.p.max_queue - 1);
  const z3::expr load = ws + rest;
  const bool wide = env.p.eligible_int128;
  return make(key, "key", within_calc_delta_fair(env, key, w, ns, env.p.key_lags), key * load,
              wide ? kI128Min : kS64Min, wide ? kI128Max : kS64Max, key, load, wide ? 128 : 64, true);
}

ProductQuery lag_x_load(Env& env) {
  const z3::expr w = entity_weight(env, "w", "w = weight of the entity placed");
  const z3::expr ws = sum_weight_of(env, w, "ws");
  const z3::expr ns = lag_ns(env);
  const z3::expr vlag = env.var("vlag", "vlag = saved lag of the entity placed");
  const z3::expr load = queue_load(env, "load", 1, env.p.max_queue - 1);
  return make(vlag, "vlag", within_calc_delta_fair(env, vlag, w, ns, 1), vlag * (load + ws), kS64Min, kS64Max, vlag,
              load + ws, 64, true);
}

ProductQuery vlag_x_weight(Env& env) {
  const z3::expr w = entity_weight(env, "w", "w_old = se->load.weight before the reweight");
  const z3::expr ns = lag_ns(env);
  const z3::expr vlag = env.var("vlag", "vlag = entity_lag() (clamped)");
  return make(vlag, "vlag", within_calc_delta_fair(env, vlag, w, ns, 1), vlag * w, kS64Min, kS64Max, vlag, w, 64,
              true);
}

namespace {
// d - V = (d - v) + (v - V): 0 ≤ d - v ≤ calc_delta_fair(slice), |v - V| within key_lags lag bounds.
struct RelativeDeadline {
  z3::expr to_deadline;  // d - v
  z3::expr lag;          // v - V
  z3::expr premise;
};
RelativeDeadline relative_deadline(Env& env, const z3::expr& w) {
  const z3::expr ns = lag_ns(env);
  const z3::expr slice = env.var("slice", "se->slice (ns)");
  env.add(in_range(slice, env.p.slice_min, env.p.slice_max));
  const z3::expr dv = env.var("d_minus_v", "d - v");
  const z3::expr vV = env.var("v_minus_V", "v - V");
  const z3::expr premise = dv >= 0 && within_calc_delta_fair(env, dv, w, slice, 1) &&
                           within_calc_delta_fair(env, vV, w, ns, env.p.key_lags);
  return {dv, vV, premise};
}
}  // namespace

ProductQuery deadline_x_weight(Env& env) {
  const z3::expr w = entity_weight(env, "w", "w_old = se->load.weight before the reweight");
  const RelativeDeadline r = relative_deadline(env, w);
  const z3::expr x = env.var("d_minus_V", "d - V");
  return make(x, "d - V", r.premise && x == r.to_deadline + r.lag, x * w, kS64Min, kS64Max, x, w, 64, true);
}

ProductQuery vprot_x_weight(Env& env) {
  const z3::expr w = entity_weight(env, "w", "w_old = se->load.weight before the reweight");
  const RelativeDeadline r = relative_deadline(env, w);
  const z3::expr to_vprot = env.var("vprot_minus_v", "vprot - v");
  const z3::expr x = env.var("vprot_minus_V", "vprot - V");
  // protect_slice(): v < vprot; I-PROT: vprot ≤ deadline
  const z3::expr premise = r.premise && to_vprot > 0 && to_vprot <= r.to_deadline && x == to_vprot + r.lag;
  return make(x, "vprot - V", premise, x * w, kS64Min, kS64Max, x, w, 64, true);
}

namespace {
i128 delta_max(const Params& p) {
  return p.max_delta_exec > p.lag_ns_max() ? p.max_delta_exec : p.lag_ns_max();
}

// Inverse-weight path, bounded from above: the result floor(delta·fact / 2^shift)
// is at most delta·1024·inv / 2^32 (fact = (1024·inv) >> fs, shift = 32 - fs), and
// inv ≤ (2^32 + s)/s for s = scale_load_down(w) (0xFFFFFFFF/s, or the wmult table).
ProductQuery inverse_upper_bound(Env& env, const z3::expr& delta, const std::string& name, z3::expr premise) {
  const z3::expr w = entity_weight(env, "w", "w = se->load.weight");
  const z3::expr s = env.hidden("s_" + name);
  const z3::expr q = env.hidden("q_" + name);
  env.add(1024 * q <= w && w < 1024 * q + 1024 && s == z3::ite(q < 2, env.c.int_val(2), q));
  const z3::expr inv = env.var("inv", "lw->inv_weight");
  env.add(inv >= 1 && inv * s <= int_val(env.c, static_cast<i128>(1) << 32) + s);
  const z3::expr result = env.hidden("r_" + name);
  const z3::expr num = delta * 1024 * inv;
  const z3::expr two32 = int_val(env.c, static_cast<i128>(1) << 32);
  env.add(result * two32 <= num && num < (result + 1) * two32);
  return make(delta, name, std::move(premise), result, 0, kU64Max, delta, inv, 0, false, true);
}
}  // namespace

ProductQuery calc_delta_full(Env& env) {
  const z3::expr delta = env.var("delta", "delta (ns)");
  env.add(delta >= 0);  // u64
  ProductQuery q = make(delta, "delta", in_range(delta, 0, delta_max(env.p)), delta * int_val(env.c, n0()), 0, kU64Max,
                        delta, int_val(env.c, n0()), 64, false);
  q.x_nonnegative = true;
  return q;
}

ProductQuery calc_delta_inverse(Env& env) {
  const z3::expr delta = env.var("delta", "delta (ns)");
  env.add(delta >= 0);  // u64
  ProductQuery q = inverse_upper_bound(env, delta, "delta", in_range(delta, 0, delta_max(env.p)));
  q.x_nonnegative = true;
  return q;
}

ProductQuery lag_limit(Env& env) {
  const z3::expr ns = env.var("L", "L = max_slice + TICK_NSEC (ns)");
  env.add(ns >= 0);  // u64
  const z3::expr premise = in_range(ns, env.p.lag_ns_min(), env.p.lag_ns_max());
  ProductQuery q = env.p.calc_delta == CalcDeltaPath::inverse_weight
                       ? inverse_upper_bound(env, ns, "L", premise)
                       : make(ns, "L", premise, ns * int_val(env.c, n0()), 0, kU64Max, ns, int_val(env.c, n0()), 64, false);
  q.x_nonnegative = true;
  return q;
}

ProductQuery sum_of_terms(Env& env, i128 term_max) {
  const z3::expr n = env.var("n", "n = terms in the sum (queued entities, curr included)");
  env.add(n >= 1);
  const z3::expr sum = env.var("S", "S = Σ key·w");
  env.add(abs_le(sum, n * int_val(env.c, term_max)));
  ProductQuery q = make(n, "n", n <= int_val(env.c, env.p.max_queue), sum, kS64Min, kS64Max, sum, env.c.int_val(1), 0, true);
  q.x_nonnegative = true;
  return q;
}

ProductQuery zero_vruntime_avg(Env& env, i128 term_max) {
  const z3::expr n = env.var("n", "n = queued entities (curr included)");
  env.add(in_range(n, 1, env.p.max_queue));
  const z3::expr W = env.var("W", "W = Σ w (curr included)");
  env.add(W >= n * int_val(env.c, sum_weight_lo(env.p, env.tasks_only)) &&
          W <= n * int_val(env.c, sum_weight_hi(env.p, env.tasks_only)));
  const z3::expr S = env.var("S", "S = Σ key·w (curr included)");
  // P = W·d with d = floor(S/W): P <= S < P + W. The kernel multiplies
  // cfs_rq->sum_weight (curr excluded, 0 <= sum_weight <= W) by d, so
  // |sum_weight·d| <= |P|: P is the term checked (linear; an upper bound).
  const z3::expr P = env.var("W_times_d", "W·d, d = floor(S / W) the offset of V");
  env.add(P <= S && S < P + W);
  return make(S, "S", abs_le(S, n * int_val(env.c, term_max)), P, kS64Min, kS64Max, W, P, 64, true, true);
}

ProductQuery zero_vruntime_place(Env& env) {
  const z3::expr w = entity_weight(env, "w", "w = weight of the entity placed");
  const z3::expr ws = sum_weight_of(env, w, "ws");
  const z3::expr ns = lag_ns(env);
  const z3::expr vlag = env.var("vlag", "vlag = saved lag of the entity placed");
  const z3::expr load = env.var("load", "load = weight already queued");
  env.add(load >= int_val(env.c, sum_weight_lo(env.p, env.tasks_only)) && load < ws);  // update_zero: weight > load
  // d = -lag with |lag| <= |vlag|·(load + w)/load, multiplied by sum_weight <= load:
  // |sum_weight·d| <= |vlag·(load + w)|, the term checked (an upper bound, not the value).
  return make(vlag, "vlag", within_calc_delta_fair(env, vlag, w, ns, 1), vlag * (load + ws), kS64Min, kS64Max, vlag,
              load + ws, 64, true, true);
}

}  // namespace eevdf::smt
