// The premises of the obligations as Z3 integer constraints: weight domains,
// the sums' weight precision, the lag clamp and the key bound. Internal.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "smt/params.hpp"
#include "smt/z3_query.hpp"

namespace eevdf::smt {

// One encoding session: the context, the parameters, and the variables a
// counterexample prints (name, term).
struct Env {
  z3::context& c;
  const Params& p;
  bool tasks_only = false;  // weights from the nice table (and SCHED_IDLE) only
  // The model's limits (what a scenario can build): the other queued entities
  // are at most kMaxGroups - 1 group entities (the entity itself may be one)
  // and tasks of one table weight, at most kMaxTasks entities in all.
  bool model_limits = false;
  std::vector<std::pair<std::string, z3::expr>> shown;
  std::vector<z3::expr> facts;  // premises added by the helpers
  int fresh = 0;                // counter for helper variable names
  // scale_load_down(w) of each weight term already encoded (w, its value): one
  // variable per weight, shared by the premises and the sums, so that the solver
  // need not discover that two encodings of the same quotient are equal.
  std::vector<std::pair<z3::expr, z3::expr>> scaled_down;

  Env(z3::context& ctx, const Params& params, bool tasks) : c(ctx), p(params), tasks_only(tasks) {}
  z3::expr var(const std::string& name, const std::string& shown_as);  // an Int, printed in counterexamples
  z3::expr hidden(const std::string& name);                            // an Int, not printed
  void add(const z3::expr& e) { facts.push_back(e); }
  z3::expr all_facts() const;
};

// se->load.weight of one entity: [weight_min, weight_max] with groups, else the
// nice table scaled (and SCHED_IDLE's scale_load(3)).
z3::expr weight_domain(Env& env, const z3::expr& w);
i128 weight_lo(const Params& p, bool tasks_only);
i128 weight_hi(const Params& p, bool tasks_only);
// The weight the sums use: w (full) or scale_load_down(w).
z3::expr sum_weight_of(Env& env, const z3::expr& w, const std::string& name);
i128 sum_weight_lo(const Params& p, bool tasks_only);
i128 sum_weight_hi(const Params& p, bool tasks_only);
// The ns argument of the lag clamp's calc_delta_fair(): max_slice + TICK_NSEC
// (or max(2·slice, TICK_NSEC)).
z3::expr lag_ns(Env& env);
// |x| ≤ factor · calc_delta_fair(ns, w), written without division:
//   full-weight path:   |x|·w ≤ factor·ns·NICE_0_LOAD
//   inverse-weight path: |x|·s ≤ factor·(ns·1024 + s), s = scale_load_down(w)
//   (covers the rounding of the 32-bit inverse, see docs/proofs.md)
z3::expr within_calc_delta_fair(Env& env, const z3::expr& x, const z3::expr& w, const z3::expr& ns, long long factor);
// The load of k other queued entities (k in [k_lo, k_hi]): with groups any sum of k
// weights, k·[lo, hi]; with tasks only, k entities of one table weight; within
// the model's limits, up to kMaxGroups - 1 group entities and tasks of one table weight.
z3::expr queue_load(Env& env, const std::string& prefix, long long k_lo, long long k_hi);

}  // namespace eevdf::smt
