// I-MONO: in an operation that only runs (no placement), an entity's vruntime
// moves only forward, and only if it ran: it was curr at some point of the
// operation. Judged from the state at the end of the operation against the
// vruntimes its start recorded (Checker::begin_op()).
#include <fmt/format.h>

#include "invariants/checker.hpp"

namespace eevdf::inv {

void report_vruntime(const CheckScope& s, const SchedEntity& se, s64 moved) {
  if (moved < 0)
    s.report(Id::MONO, "update_curr",
             fmt::format("vruntime of {} moved backwards by {} ns while the CPU only ran", entity_name(s.rq, &se),
                         format_i128(-static_cast<i128>(moved))),
             {&se});
  else
    s.report(Id::MONO, "update_curr",
             fmt::format("vruntime of {} moved by {} ns while it never ran (it was never curr)",
                         entity_name(s.rq, &se), moved),
             {&se});
}

}  // namespace eevdf::inv
