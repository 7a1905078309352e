// The proof obligations: one per arithmetic site and property of fair.c's
// EEVDF path, each parameterised by smt::Params. `unknown` is its own verdict
// and never counts as proved. docs/proofs.md explains each one.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "smt/params.hpp"
#include "smt/reaching_state.hpp"

namespace eevdf::smt {

enum class Verdict : std::uint8_t { proved, refuted, unknown };
const char* verdict_name(Verdict v);
std::optional<Verdict> verdict_from_name(std::string_view name);

struct Assignment {
  std::string name;   // domain term: "w (entity weight)", "key", "load", ...
  std::string value;  // decimal
};

struct Outcome {
  std::string name;        // obligation name, e.g. "place_entity.lag_x_load"
  std::string site;        // kernel function and operation
  Verdict verdict = Verdict::unknown;
  double seconds = 0;      // wall time of every query of this obligation (bound search included)
  int queries = 0;
  std::string bound;       // tightest safe bound found by search ("" if none applies)
  std::string largest;     // the largest value the checked term takes under the premises, if searched
  std::string detail;      // why unknown, or what the refutation means
  std::vector<Assignment> counterexample;        // under the obligation's premises
  std::vector<Assignment> reachable;             // with task weights only (what the model reaches), if refuted
  // Refuted, and not with task weights only: whether a queue within the model's
  // limits (at most 32 group entities beside tasks) reaches it, with such values.
  std::optional<Verdict> within_model_limits;    // refuted: reachable, proved: not reachable, unknown
  std::vector<Assignment> model_limits_example;
  std::optional<ReachingState> reaching;         // a state of the model that reaches the refuted site, if one is known
};

struct ObligationInfo {
  std::string_view name;
  std::string_view site;
  std::string_view statement;  // what is proved
  std::string_view premises;   // the names of its premises (premise_list()), space-separated
};

const std::vector<ObligationInfo>& obligation_list();
bool is_obligation(std::string_view name);

// A premise the obligations assume: what the kernel guarantees, and what checks
// it where the scenarios run (docs/proofs.md, "Premises and the kernel mechanisms").
struct PremiseInfo {
  std::string_view name;       // "key", "lag", ...
  std::string_view statement;  // the constraint, in words
  std::string_view invariant;  // the campaign invariant that checks it ("I-KEY"), "" if none does
  std::string_view rule;       // the text of that invariant's report for this rule (an invariant has several)
  std::string_view checked;    // how: the same bound, a looser one, or why nothing checks it
};
const std::vector<PremiseInfo>& premise_list();
// The premises of an obligation, in the order it lists them (empty for an unknown name).
std::vector<const PremiseInfo*> premises_of(std::string_view obligation);

// Runs one obligation (nullopt for an unknown name) or all of them, in list order.
std::optional<Outcome> prove_one(std::string_view name, const Params& params);
std::vector<Outcome> prove_all(const Params& params);

}  // namespace eevdf::smt
