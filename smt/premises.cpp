#include "smt/premises.hpp"

#include "model/rq.hpp"
#include "model/weights.hpp"

namespace eevdf::smt {

z3::expr Env::var(const std::string& name, const std::string& shown_as) {
  z3::expr v = c.int_const(name.c_str());
  shown.emplace_back(shown_as, v);
  return v;
}

z3::expr Env::hidden(const std::string& name) { return c.int_const(name.c_str()); }

z3::expr Env::all_facts() const {
  z3::expr all = c.bool_val(true);
  for (const auto& f : facts) all = all && f;
  return all;
}

i128 weight_lo(const Params& p, bool tasks_only) {
  if (tasks_only && p.task_weight_from_hierarchy) return kMinShares;
  return tasks_only ? static_cast<i128>(scale_load(kWeightIdleprio)) : p.weight_min;
}
i128 weight_hi(const Params& p, bool tasks_only) {
  return tasks_only ? static_cast<i128>(scale_load(sched_prio_to_weight.front())) : p.weight_max;
}

z3::expr weight_domain(Env& env, const z3::expr& w) {
  if (!env.tasks_only) return in_range(w, env.p.weight_min, env.p.weight_max);
  if (env.p.task_weight_from_hierarchy)  // h_load: any value from the floor to the nice -20 weight
    return in_range(w, weight_lo(env.p, true), weight_hi(env.p, true));
  z3::expr any = w == int_val(env.c, static_cast<i128>(scale_load(kWeightIdleprio)));
  for (const u32 t : sched_prio_to_weight) any = any || w == int_val(env.c, static_cast<i128>(scale_load(t)));
  return any;
}

namespace {
i128 sld(i128 w) { return static_cast<i128>(scale_load_down(static_cast<u64>(w))); }
}  // namespace

i128 sum_weight_lo(const Params& p, bool tasks_only) {
  const i128 lo = weight_lo(p, tasks_only);
  return p.sum_weight == SumWeight::full ? lo : sld(lo);
}
i128 sum_weight_hi(const Params& p, bool tasks_only) {
  const i128 hi = weight_hi(p, tasks_only);
  return p.sum_weight == SumWeight::full ? hi : sld(hi);
}

namespace {
// scale_load_down(w) = max(2, w >> 10) for w > 0: a variable, one per weight term.
z3::expr scale_load_down_of(Env& env, const z3::expr& w, const std::string& name) {
  for (const auto& [weight, scaled] : env.scaled_down)
    if (z3::eq(weight, w)) return scaled;
  z3::expr q = env.hidden(name + "_q");
  env.add(1024 * q <= w && w < 1024 * q + 1024);
  z3::expr s = env.hidden(name);
  env.add(s == z3::ite(q < 2, env.c.int_val(2), q));
  env.scaled_down.emplace_back(w, s);
  return s;
}
}  // namespace

z3::expr sum_weight_of(Env& env, const z3::expr& w, const std::string& name) {
  if (env.p.sum_weight == SumWeight::full) return w;
  return scale_load_down_of(env, w, name);
}

z3::expr lag_ns(Env& env) {
  z3::expr ns = env.var("L", "L = max_slice + TICK_NSEC (ns)");
  env.add(in_range(ns, env.p.lag_ns_min(), env.p.lag_ns_max()));
  return ns;
}

z3::expr within_calc_delta_fair(Env& env, const z3::expr& x, const z3::expr& w, const z3::expr& ns,
                                long long factor) {
  if (env.p.calc_delta == CalcDeltaPath::full_weight) {
    const z3::expr rhs = int_val(env.c, factor) * ns * int_val(env.c, static_cast<i128>(kNice0Load));
    return x * w <= rhs && -x * w <= rhs;
  }
  const z3::expr s = scale_load_down_of(env, w, "sld_" + std::to_string(env.fresh++));
  const z3::expr rhs = int_val(env.c, factor) * (ns * 1024 + s);
  return x * s <= rhs && -x * s <= rhs;
}

z3::expr queue_load(Env& env, const std::string& prefix, long long k_lo, long long k_hi) {
  z3::expr k = env.var(prefix + "_n", "number of other queued entities");
  z3::expr load = env.var(prefix, "their total weight (" + std::string(env.p.sum_weight == SumWeight::full
                                                                          ? "full weights"
                                                                          : "scale_load_down weights") + ")");
  env.add(k >= int_val(env.c, k_lo) && k <= int_val(env.c, k_hi));
  if (env.model_limits) {
    const z3::expr groups = env.var(prefix + "_groups", "of them group entities");
    const z3::expr group_load = env.var(prefix + "_group_load", "their total weight");
    const z3::expr w = env.var(prefix + "_w", "weight of each of the tasks");
    env.add(groups >= 0 && groups <= int_val(env.c, static_cast<i128>(kMaxGroups) - 1) && groups <= k);
    env.add(group_load >= groups * int_val(env.c, sum_weight_lo(env.p, false)) &&
            group_load <= groups * int_val(env.c, sum_weight_hi(env.p, false)));
    const bool was = env.tasks_only;
    env.tasks_only = true;  // the tasks: one table weight
    env.add(weight_domain(env, w));
    env.tasks_only = was;
    const z3::expr sw = sum_weight_of(env, w, prefix + "_sw");
    env.add(load == group_load + (k - groups) * sw);
  } else if (env.tasks_only) {
    z3::expr w = env.var(prefix + "_w", "weight of each of them");
    env.add(weight_domain(env, w));
    const z3::expr sw = sum_weight_of(env, w, prefix + "_sw");
    env.add(load == k * sw);
  } else {
    env.add(load >= k * int_val(env.c, sum_weight_lo(env.p, false)) &&
            load <= k * int_val(env.c, sum_weight_hi(env.p, false)));
  }
  return load;
}

}  // namespace eevdf::smt
