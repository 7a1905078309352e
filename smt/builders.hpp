// The encodings of the product obligations (one builder per kernel
// operation). Internal.
#pragma once

#include "smt/runner.hpp"

namespace eevdf::smt {

ProductQuery key_x_weight(Env& env);            // __sum_w_vruntime_add, sum_w_vruntime_sub, avg_vruntime curr term
ProductQuery key_x_load(Env& env);              // vruntime_eligible
ProductQuery lag_x_load(Env& env);              // place_entity
ProductQuery vlag_x_weight(Env& env);           // rescale_entity
ProductQuery deadline_x_weight(Env& env);       // rescale_entity, (d - V)·w_old
ProductQuery vprot_x_weight(Env& env);          // rescale_entity, (vprot - V)·w_old
ProductQuery calc_delta_full(Env& env);         // __calc_delta, full-weight path, delta_exec
ProductQuery calc_delta_inverse(Env& env);      // __calc_delta, inverse-weight path, delta_exec
ProductQuery lag_limit(Env& env);               // calc_delta_fair(max_slice + TICK_NSEC) of entity_lag
ProductQuery zero_vruntime_avg(Env& env, i128 term_max);  // update_zero_vruntime from avg_vruntime
ProductQuery zero_vruntime_place(Env& env);     // update_zero_vruntime from place_entity
ProductQuery sum_of_terms(Env& env, i128 term_max);       // Σ of n key·w terms

}  // namespace eevdf::smt
