#include "smt/obligations.hpp"

#include "smt/average.hpp"
#include "smt/builders.hpp"
#include "smt/reaching_state.hpp"

namespace eevdf::smt {

namespace {

const std::vector<ObligationInfo> kObligations = {
    {"sum_w_vruntime_add.key_x_weight", "__sum_w_vruntime_add(): key * w",
     "key·w fits s64 for every weight when |key| is within key_lags lag bounds",
     "weight slice tick key"},
    {"sum_w_vruntime_sub.key_x_weight", "sum_w_vruntime_sub(): key * w", "as sum_w_vruntime_add.key_x_weight",
     "weight slice tick key"},
    {"avg_vruntime.curr_key_x_weight", "avg_vruntime() / vruntime_eligible(): entity_key(curr) * w",
     "as sum_w_vruntime_add.key_x_weight, for curr",
     "weight slice tick key"},
    {"sum_w_vruntime.sum_of_n", "sum_w_vruntime, avg_vruntime runtime, vruntime_eligible avg: Σ key·w",
     "the sum of n <= N terms, each bounded by the largest key·w, fits s64",
     "weight slice tick key queue"},
    {"update_zero_vruntime.sum_weight_x_delta", "avg_vruntime() -> update_zero_vruntime(): sum_weight * d",
     "sum_weight·floor(S/W) fits s64 when |S| is within the sum bound",
     "weight slice tick key queue"},
    {"update_zero_vruntime.place_entity", "place_entity() -> update_zero_vruntime(): sum_weight * -lag",
     "sum_weight·lag fits s64 when the placed entity outweighs the queue",
     "weight slice tick lag zero-shift"},
    {"vruntime_eligible.key_x_load", "vruntime_eligible(): key * load",
     "key·load fits the profile's width (int128 or s64) for every queue of n <= N",
     "weight slice tick key queue"},
    {"place_entity.lag_x_load", "place_entity(): lag * (load + w)",
     "vlag·(load + w) fits s64 for a clamped lag and any queue of n <= N",
     "weight slice tick lag queue placement"},
    {"place_entity.div", "place_entity(): div64_long / div_s64 (lag, load)",
     "the division sees the true, non-zero divisor",
     "weight queue"},
    {"rescale_entity.vlag_x_weight", "rescale_entity(): vlag * w_old", "clamped vlag·w_old fits s64",
     "weight slice tick lag"},
    {"rescale_entity.deadline_x_weight", "rescale_entity(): (d - V) * w_old", "(d - V)·w_old fits s64",
     "weight slice tick key deadline"},
    {"rescale_entity.vprot_x_weight", "rescale_entity(): (vprot - V) * w_old", "(vprot - V)·w_old fits s64",
     "weight slice tick key deadline vprot"},
    {"__calc_delta.delta_x_weight", "__calc_delta() full-weight path: delta * NICE_0_LOAD",
     "delta_exec·NICE_0_LOAD fits u64",
     "slice tick delta-exec"},
    {"__calc_delta.mul_u64_u32_shr", "__calc_delta() inverse-weight path: mul_u64_u32_shr(delta, fact, shift)",
     "the shifted product fits u64",
     "weight slice tick delta-exec"},
    {"entity_lag.limit", "entity_lag(): calc_delta_fair(max_slice + TICK_NSEC)",
     "the lag limit's calc_delta_fair() does not wrap",
     "slice tick"},
    {"avg_vruntime.floor", "avg_vruntime(): S -= W - 1 if S < 0; div64_long(S, W)",
     "returns floor(S/W) for every sign, and an entity at V is eligible",
     "weight queue sums-fit"},
    {"pick.eligible_exists", "pick_eevdf(): some queued entity is eligible",
     "for every queue of n <= N entities, under the no-overflow premises",
     "weight slice tick key queue sums-fit key-load-fits"},
    {"pick.eligible_exists_without_premises", "pick_eevdf(): some queued entity is eligible",
     "fails when Σ key·w may wrap (expected: refuted)",
     "weight"},
};

const std::vector<PremiseInfo> kPremises = {
    {"weight", "se->load.weight in [2, 2^28] (groups) or the nice table and SCHED_IDLE (tasks)", "", "",
     "by construction: weights come only from set_load_weight() and calc_group_shares(); the scenario language "
     "refuses cpu.shares outside 2 .. 262144"},
    {"slice", "slice in [100 us, 100 ms]", "I-SLICE", "in [100000, 100000000]", "the same range"},
    {"tick", "TICK_NSEC in [1 ms, 10 ms] (CONFIG_HZ 100 .. 1000)", "", "",
     "by construction: the scenario language takes hz 100, 250, 300 or 1000"},
    {"key", "|key|·w <= key_lags·L·NICE_0_LOAD (two lag bounds)", "I-KEY", "entity_key = ",
     "a looser bound: I-KEY allows 4·(B(w) + B(w_min)), so a key between the premise and I-KEY's bound "
     "goes unreported"},
    {"lag", "|vlag|·w <= L·NICE_0_LOAD (the lag clamp)", "I-LAG", "beyond the clamp", "the same clamp, on every saved lag"},
    {"deadline", "0 <= d - v <= calc_delta_fair(slice)", "I-DL", "at most one virtual slice", "the same bound"},
    {"vprot", "v < vprot <= d", "I-PROT", "beyond its deadline", "vprot <= d (protection never passes the deadline)"},
    {"queue", "n <= N queued entities (--max-queue)", "", "",
     "a parameter: the kernel has no limit; the model holds at most 512 tasks"},
    {"placement", "load >= the lightest weight (another entity is queued)", "", "",
     "by construction: place_entity()'s lag branch runs only with nr_queued > 0"},
    {"zero-shift", "load < w (the placed entity outweighs the queue)", "", "",
     "by construction: place_entity() moves zero_vruntime only when weight > load"},
    {"delta-exec", "delta_exec <= 3 s", "", "",
     "by construction: the tick charges curr every TICK_NSEC (sched_tick_remote() on nohz_full CPUs)"},
    {"sums-fit", "Σ key·w fits s64: sum_w_vruntime.sum_of_n proved", "I-OVF", "sum_w_vruntime",
     "I-OVF checks every addition to the sums in 128 bits"},
    {"key-load-fits", "key·load fits: vruntime_eligible.key_x_load (when refuted, the query searches a queue "
                      "whose wrapped test leaves no entity eligible)",
     "I-OVF", "vruntime_eligible.key_x_load", "I-OVF checks vruntime_eligible()'s product in 128 bits"},
};

const ObligationInfo* find(std::string_view name) {
  for (const auto& o : kObligations)
    if (o.name == name) return &o;
  return nullptr;
}

i128 s64_search_hi() { return kS64Max; }

// An upper bound of |key·w| over the premises: the per-term bound of the sums.
std::optional<i128> key_weight_term_max(const Params& p, int& queries) {
  Budget budget(8.0);
  const auto range = largest_term(p, key_x_weight, static_cast<i128>(1) << 100, budget, queries);  // no cap: an upper bound
  if (!range) return std::nullopt;
  return range->bound;
}

Outcome run(const ObligationInfo& info, const Params& p, const RunOptions& options) {
  const std::string_view n = info.name;
  if (n == "sum_w_vruntime_add.key_x_weight" || n == "sum_w_vruntime_sub.key_x_weight" ||
      n == "avg_vruntime.curr_key_x_weight")
    return run_product(info, p, key_x_weight, s64_search_hi(), options);
  if (n == "sum_w_vruntime.sum_of_n" || n == "update_zero_vruntime.sum_weight_x_delta") {
    int queries = 0;
    Budget budget(60);
    const auto term = key_weight_term_max(p, queries);
    if (!term) {
      Outcome out;
      out.name = std::string(n);
      out.site = std::string(info.site);
      out.detail = "the per-term bound (largest key·w) was not found within the time budget";
      out.queries = queries;
      out.seconds = budget.elapsed();
      return out;
    }
    const i128 t = *term;
    Outcome out = n == "sum_w_vruntime.sum_of_n"
                      ? run_product(info, p, [t](Env& env) { return sum_of_terms(env, t); }, static_cast<i128>(1) << 40, options)
                      : run_product(info, p, [t](Env& env) { return zero_vruntime_avg(env, t); }, kS64Max, options);
    out.queries += queries;
    out.seconds += budget.elapsed() - out.seconds;
    out.detail += (out.detail.empty() ? "" : "; ") + std::string("per-term bound |key·w| <= ") + to_decimal(t) + " (" +
                  pow2_text(t) + ")";
    return out;
  }
  if (n == "update_zero_vruntime.place_entity") return run_product(info, p, zero_vruntime_place, kS64Max, options);
  if (n == "vruntime_eligible.key_x_load") return run_product(info, p, key_x_load, kS64Max, options);
  if (n == "place_entity.lag_x_load") return run_product(info, p, lag_x_load, kS64Max, options);
  if (n == "place_entity.div") return prove_place_division(info, p);
  if (n == "rescale_entity.vlag_x_weight") return run_product(info, p, vlag_x_weight, kS64Max, options);
  if (n == "rescale_entity.deadline_x_weight") return run_product(info, p, deadline_x_weight, kS64Max, options);
  if (n == "rescale_entity.vprot_x_weight") return run_product(info, p, vprot_x_weight, kS64Max, options);
  if (n == "__calc_delta.delta_x_weight") return run_product(info, p, calc_delta_full, kU64Max, options);
  if (n == "__calc_delta.mul_u64_u32_shr") return run_product(info, p, calc_delta_inverse, kU64Max, options);
  if (n == "entity_lag.limit") return run_product(info, p, lag_limit, kU64Max, options);
  if (n == "avg_vruntime.floor") return prove_avg_floor(info, p);
  if (n == "pick.eligible_exists") {
    Budget budget(60);
    const RunOptions verdict_only{false};  // only the premises' verdicts
    const Outcome sums = run(*find("sum_w_vruntime.sum_of_n"), p, verdict_only);
    const Outcome key_load = run(*find("vruntime_eligible.key_x_load"), p, verdict_only);
    Outcome out = prove_eligible_exists(info, p, sums.verdict, key_load.verdict);
    out.queries += sums.queries + key_load.queries;
    out.seconds = budget.elapsed();
    return out;
  }
  return prove_eligible_exists_unguarded(info, p);
}

}  // namespace

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::proved: return "proved";
    case Verdict::refuted: return "refuted";
    case Verdict::unknown: return "unknown";
  }
  return "?";
}

std::optional<Verdict> verdict_from_name(std::string_view name) {
  for (const Verdict v : {Verdict::proved, Verdict::refuted, Verdict::unknown})
    if (name == verdict_name(v)) return v;
  return std::nullopt;
}

const std::vector<ObligationInfo>& obligation_list() { return kObligations; }

bool is_obligation(std::string_view name) { return find(name) != nullptr; }

const std::vector<PremiseInfo>& premise_list() { return kPremises; }

std::vector<const PremiseInfo*> premises_of(std::string_view obligation) {
  std::vector<const PremiseInfo*> out;
  const ObligationInfo* info = find(obligation);
  if (!info) return out;
  std::string_view rest = info->premises;
  while (!rest.empty()) {
    const auto space = rest.find(' ');
    const std::string_view name = rest.substr(0, space);
    rest = space == std::string_view::npos ? std::string_view{} : rest.substr(space + 1);
    for (const auto& p : kPremises)
      if (p.name == name) out.push_back(&p);
  }
  return out;
}

std::optional<Outcome> prove_one(std::string_view name, const Params& params) {
  const ObligationInfo* info = find(name);
  if (!info) return std::nullopt;
  Outcome out = run(*info, params, RunOptions{params.search_bounds});
  attach_reaching_state(out, params);
  return out;
}

std::vector<Outcome> prove_all(const Params& params) {
  std::vector<Outcome> all;
  for (const auto& o : kObligations) all.push_back(*prove_one(o.name, params));
  return all;
}

}  // namespace eevdf::smt
