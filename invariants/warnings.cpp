// I-OVF, I-WARN, I-HLOAD and I-NULLPICK's warning: what the arithmetic and the
// code itself signal during an operation (Observer::on_overflow, on_warn): a
// multiplication or addition whose exact value the kernel's type does not hold,
// and a WARN_ON_ONCE condition of fair.c that holds.
#include <fmt/format.h>

#include "invariants/checker.hpp"

namespace eevdf::inv {

void check_overflow(Checker& checker, const OverflowEvent& e, const SchedEntity* reweighting) {
  if (!checker.selection()[Id::OVF]) return;
  // F6's second consequence: a stale vprot (Checker::stale_vprot()) rescaled by
  // a weight it was never meant for wraps; reported with --no-tolerance
  if (e.site == Site::rescale_entity_vprot_x_weight && reweighting && checker.known(checker.stale_vprot(*reweighting)))
    return;
  Violation v;
  v.id = Id::OVF;
  v.where = site_name(e.site);
  const bool addition = e.site == Site::sum_w_vruntime_add_accumulate || e.site == Site::sum_w_vruntime_sub_accumulate ||
                        e.site == Site::update_zero_vruntime_accumulate || e.site == Site::avg_vruntime_accumulate ||
                        e.site == Site::vruntime_eligible_accumulate || e.site == Site::avg_vruntime_floor_adjust ||
                        e.site == Site::ineligible_vruntime_floor_adjust;
  v.what = fmt::format("{} {} {} wraps: exact {} but the kernel's type holds {}", format_i128(e.lhs),
                       addition ? "+" : "x", format_i128(e.rhs), format_i128(e.exact), format_i128(e.kernel));
  checker.add(std::move(v));
}

void check_warn(Checker& checker, const Rq* rq, Warn w, const SchedEntity* se) {
  Violation v;
  v.id = w == Warn::pick_next_entity_null ? Id::NULLPICK : Id::WARN;
  if (w == Warn::h_load_below_min_shares || w == Warn::calc_prop_weight_zero_divisor) v.id = Id::HLOAD;
  if (!checker.selection()[v.id]) return;
  v.where = warn_name(w);
  v.what = w == Warn::pick_next_entity_null ? "pick_eevdf() returned NULL with entities queued; the kernel dereferences it"
           : v.id == Id::HLOAD                ? std::string(warn_name(w))
                                              : "the kernel's warning condition holds";
  if (se && rq) v.entities.push_back(snapshot(*rq, *se));
  checker.add(std::move(v));
}

}  // namespace eevdf::inv
