// I-RW: reweight_entity() keeps the lag (service units) and V, up to its
// rounding; a weight is written only through it. Checked at the events: the
// end of a reweight against what its start recorded (Checker::on_reweight_begin()
// takes the record), and a weight written past it.
#include <fmt/format.h>

#include "invariants/checker.hpp"
#include "model/fair.hpp"

namespace eevdf::inv {

// I-RW: a weight written past reweight_entity() (set_load_weight() before
// d32960528702) leaves vlag as it was, so the lag w·vlag changes by
// vlag·(w' - w); a rescale would have kept it within one new weight.
void check_load_set(const CheckScope& s, const SchedEntity& se, u64 old_weight) {
  if (se.vlag == 0) return;
  const u64 new_weight = se.load.weight;
  const i128 before = static_cast<i128>(se.vlag) * static_cast<i128>(old_weight);
  const i128 after = static_cast<i128>(se.vlag) * static_cast<i128>(new_weight);
  const i128 diff = after > before ? after - before : before - after;
  if (diff < static_cast<i128>(new_weight > 0 ? new_weight : 1)) return;
  s.report(Id::RW, "set_load_weight",
           fmt::format("weight {} -> {} written without reweight_entity(): vlag {} kept, so w·vlag went from {} "
                       "to {}; allowed: less than one new weight",
                       old_weight, new_weight, se.vlag, format_i128(before), format_i128(after)),
           {&se});
}

void note_queued_reweight(const Rq& rq, const CfsRq& cfs_rq, const SchedEntity& se, ReweightRecord& rw) {
  const ExactAverage avg = exact_average(cfs_rq);
  rw.v_sum = avg.sum;
  rw.v_weight = avg.weight;
  rw.zero = cfs_rq.zero_vruntime;
  rw.rest_weight = avg.weight - avg_vruntime_weight(cfs_rq, rw.old_weight);
  // the lag reweight_entity() will compute, and whether entity_lag() clamps it
  const u64 v_floor = cfs_rq.zero_vruntime + as_u64(avg_vruntime_offset(cfs_rq, null_observer()));
  const i128 raw = vruntime_diff(v_floor, se.vruntime);
  // the slice entity_lag() clamps with: the queue's largest (6e3c0a4e1ad1), before it the entity's own
  rw.max_slice = rq.profile().behaviour.lag_limit_max_slice ? cfs_rq_max_slice(cfs_rq) : se.slice;
  const i128 limit = static_cast<i128>(kernel_lag_limit(rq, rw.max_slice, eevdf_load_of(rq, se)));
  rw.lag_limit = limit;
  rw.clamped = raw > limit || raw < -limit;
  rw.lag_cut = raw > limit ? raw - limit : raw < -limit ? raw + limit : 0;
  rw.lag_c = raw - rw.lag_cut;
  rw.v_floor = v_floor;
}

void check_reweight(const CheckScope& s, const SchedEntity& se, const ReweightRecord& rw) {
  if (!rw.on_rq) {
    // w'·vlag' = trunc(w·vlag / w')·w': within one w' of w·vlag
    const i128 before = static_cast<i128>(rw.vlag) * static_cast<i128>(rw.old_weight);
    const u64 new_weight = eevdf_weight(s.cfs, se);
    const i128 after = static_cast<i128>(se.vlag) * static_cast<i128>(new_weight);
    const i128 diff = after > before ? after - before : before - after;
    if (diff >= static_cast<i128>(new_weight))
      s.report(Id::RW, "rescale_entity",
               fmt::format("w·vlag changed from {} to {} (weight {} -> {}); allowed: less than one new weight",
                           format_i128(before), format_i128(after), rw.old_weight, rw.new_weight),
               {&se});
    return;
  }
  // reweight_entity() places the entity at exactly V - vlag' (V as it computed it);
  // reweight_eevdf() (v6.9-v6.13) and v6.6.0 keep the lag in a local: V is checked below.
  // v6.14-v7.0 re-place with place_entity(), from V of the queue without the entity:
  // three floors (that V, the inflated lag's division, V after) put it within 2 ns.
  const ReweightRule rule = s.rq.profile().behaviour.reweight;
  const bool lag_stored = rule == ReweightRule::rescale_around_v || rule == ReweightRule::replace_after_rescale;
  const i128 placement_error = vruntime_diff(se.vruntime, rw.v_floor - as_u64(se.vlag));
  const i128 allowed = rule == ReweightRule::replace_after_rescale ? 2 : 0;
  if (lag_stored && (placement_error > allowed || placement_error < -allowed)) {
    s.report(Id::RW, "reweight_entity",
             fmt::format("vruntime {} is not V - vlag = {} - {} after reweighting {} -> {}", se.vruntime,
                         rw.v_floor, se.vlag, rw.old_weight, rw.new_weight),
             {&se});
    return;
  }
  // v6.9-v6.13 reweight_eevdf() puts the entity at V - vlag', vlag' = trunc(L_c·w/w') with
  // |L_c| <= entity_lag()'s clamp at w (1560d1f6eb6b), so |V - v'| <= floor(clamp·w/w').
  // B08 rescales the raw V - v, which lands beyond once |V - v| exceeds the clamp.
  const bool lag_rescaled = rule == ReweightRule::eevdf_clamped_lag || rule == ReweightRule::eevdf_raw_lag;
  if (lag_rescaled && rw.new_weight > 0) {
    const i128 lag_after = vruntime_diff(rw.v_floor, se.vruntime);
    const i128 bound = rw.lag_limit * static_cast<i128>(rw.old_weight) / static_cast<i128>(rw.new_weight);
    if (lag_after > bound || lag_after < -bound) {
      s.report(Id::RW, "reweight_eevdf / entity_lag",
               fmt::format("V - v = {} after reweighting {} -> {}: beyond the clamp {} at the old weight "
                           "rescaled by w/w', ±{} (the lag before was {})",
                           format_i128(lag_after), rw.old_weight, rw.new_weight, format_i128(rw.lag_limit),
                           format_i128(bound), format_i128(rw.lag_c + rw.lag_cut)),
               {&se});
      return;
    }
  }
  // v6.9-v6.13 reweight_eevdf() rescales the clamped lag: V moves by the clamp's
  // displacement, checked below. The others keep no clamped lag to check against.
  const bool clamp_moves_v = rule == ReweightRule::eevdf_clamped_lag;
  if (rw.clamped && !lag_stored && !clamp_moves_v) return;
  if (rw.clamped && lag_stored) {
    // V moves legitimately; the rescaled lag must lie within the clamp of the new weight
    const i128 limit = static_cast<i128>(lag_bound(s.rq, rw.max_slice, rw.new_weight)) + 1;
    if (se.vlag > limit || se.vlag < -limit)
      s.report(Id::RW, "reweight_entity / entity_lag",
               fmt::format("the clamped lag rescaled to weight {} is {}, beyond the clamp ±{}", rw.new_weight,
                           se.vlag, format_i128(limit)),
               {&se});
    return;
  }
  const ExactAverage& after = s.avg;
  // V' - V = (v0' - v0) + S'/W' - S/W; allowed |V' - V| <= W/W' + 2 (see id_documentation(I-RW)).
  // With V = V_exact - f (the floor, 0 <= f < 1), L = V - v, L_c the lag entity_lag() clamped
  // it to, L'_c = trunc(L_c·w/w') and a, a' the average's weights of the entity (W' = W - a + a'):
  //   S' = S - a·v + a'·(V - L'_c)  =>  V'_exact - V_exact = ((a - a')·f + a·(L - L_c) + (a·L_c - a'·L'_c)) / W'.
  // a·(L - L_c)/W' is the clamp's displacement (0 unless clamped). The last term splits as
  //   a·L_c - a'·L'_c = a'·(L_c·w/w' - L'_c) + L_c·(a - a'·w/w'),
  // the first part the truncation of the lag division (|.| < a' <= W'), bounded with the
  // floor by W/W' + 2. The second part is 0 only while a/a' = w/w': reweight_eevdf()
  // rescales the lag by the full weights w/w' (v6.12's reweight_eevdf(), div_s64(vlag *
  // old_weight, weight)), while avg_vruntime() counts the entity at a = scale_load_down(w)
  // = floor(w / 1024). With w = 1024·a + r, w' = 1024·a' + r' (0 <= r, r' < 1024):
  //   a - a'·w/w' = (r'·w/w' - r) / 1024,
  // so group shares that are not multiples of 1024 (a share split over several CPUs) move
  // V by L_c·(a·w' - a'·w)/(w'·W'): e.g. 1048576 -> 15138 (a' = 14, r' = 802) with a lag of
  // 500 µs beside one nice-0 task moves V by 26 µs of virtual time. That is the kernel's
  // arithmetic (the revert of 6d71a9c61604 in v7.1 calls it rounding artifacts of
  // scale_load_down(), cured by full-weight averages, 4823725d9d1d), computed here exactly
  // and taken off like the clamp's displacement. It is taken as rounding only while the
  // average counts each weight within one unit of w/1024 (|1024·a - w| < 1024, the
  // truncation's own error; scale_load_down()'s floor max(2, w >> 10) stays within it
  // above 1024: 1536 counted as 2048). At or below 1024 the floor counts the entity at up
  // to 1024 times its weight (MIN_SHARES = 2 counted as 2048: v6.12's empty-group finding,
  // 66951e4860d3; 1006 counted as 2048: the non-empty form); there the term stays in and
  // is reported.
  const i128 W = rw.v_weight, W2 = after.weight;
  if (W == 0 || W2 == 0) return;
  const i128 a = rw.v_weight - rw.rest_weight;
  const i128 a2 = after.weight - rw.rest_weight;
  const i128 cut = clamp_moves_v ? rw.lag_cut : 0;
  const i128 dz = vruntime_diff(s.cfs.zero_vruntime, rw.zero);
  const u64 w = rw.old_weight, w2 = rw.new_weight;
  const auto within_a_unit = [](i128 avg_weight, u64 weight) {
    const i128 d = avg_weight * 1024 - static_cast<i128>(weight);
    return d > -1024 && d < 1024;
  };
  const bool truncated =
      !s.rq.profile().behaviour.avg_full_weight && w2 > 0 && within_a_unit(a, w) && within_a_unit(a2, w2);
  // v6.14-v7.0 rescale the stored lag by the full weights too (se->vlag · w / w') before
  // place_entity() re-places a queued entity: the same term (a share 699050 -> 1398101 moved
  // V by 3.1 ns, this term by 3.07). Not for the running entity: its re-placement still
  // counts it in V and the load (running-group-misplaced, fixed by 101f3498b4bd in v7.1),
  // and the term would hide that.
  const bool lag_rescaled_by_weights =
      lag_rescaled || (rule == ReweightRule::replace_after_rescale && s.cfs.curr != &se);
  const i128 precision =
      lag_rescaled_by_weights && truncated
          ? W * rw.lag_c * (a * static_cast<i128>(w2) - a2 * static_cast<i128>(w)) / static_cast<i128>(w2)
          : 0;
  const i128 num = dz * W * W2 + after.sum * W - rw.v_sum * W2 - W * a * cut - precision;
  // + 1: the truncation of the precision term's division. v6.14-v7.0 re-place the entity
  // through place_entity() (replace_after_rescale), within 2 ns of V - vlag' (checked
  // above): that placement error, counted at the entity's average weight a', moves V by
  // up to 2·a'/W' more.
  const i128 replaced = rule == ReweightRule::replace_after_rescale ? 2 * a2 * W : 0;
  const i128 bound = W * W + 2 * W * W2 + (precision ? 1 : 0) + replaced;
  if (num > bound || num < -bound) {
    const std::string clamp =
        cut ? fmt::format(" beyond the clamp's displacement {} (lag clamped by {})", format_i128(a * cut / W2),
                          format_i128(cut))
            : std::string{};
    const std::string prec = precision ? fmt::format(" beyond the {} of the average's truncated weights",
                                                     format_i128(precision / (W * W2)))
                                       : std::string{};
    // a weight at or below 1024 that the average counts at scale_load_down()'s floor of 2
    // (v6.12's empty-group class, 66951e4860d3 / 6d71a9c61604): said, so that it reads as its own class
    const bool floored = !s.rq.profile().behaviour.avg_full_weight && (w <= 1024 || w2 <= 1024);
    s.report(Id::RW, "reweight_entity",
             fmt::format("V moved by about {} ns (virtual){}{} while reweighting {}{} -> {}{}; allowed {} (rounding)",
                         format_i128(num / (W * W2)), clamp, prec, s.cfs.curr == &se ? "the running entity " : "",
                         rw.old_weight, rw.new_weight,
                         floored ? " (a weight at or below 1024, which the average counts at its floor)" : "",
                         format_i128(bound / (W * W2))),
             {&se});
  }
}

}  // namespace eevdf::inv
