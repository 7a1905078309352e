// I-PICKOPT and I-NULLPICK at every pick: the result against a brute-force
// pick with exact eligibility and the profile's curr, protection and buddy rules.
#include <fmt/format.h>

#include "invariants/checker.hpp"
#include "model/fair.hpp"

namespace eevdf::inv {

void check_pick(const CheckScope& s, const SchedEntity* result, bool protect) {
  const CfsRq& cfs = s.rq.cfs;
  const Profile& profile = s.rq.profile();
  const SchedEntity* leftmost = cfs.tasks_timeline.leftmost();
  const SchedEntity* curr = cfs.curr && cfs.curr->on_rq ? cfs.curr : nullptr;

  if (result == nullptr && cfs.nr_queued > 0) {
    if (s.on(Id::NULLPICK))
      s.report(Id::NULLPICK, "pick_eevdf",
               fmt::format("pick_eevdf() returned NULL with nr_queued = {}", cfs.nr_queued), {leftmost, curr});
    return;
  }
  if (!s.on(Id::PICKOPT)) return;

  const SchedEntity* expected = nullptr;
  const char* rule = "";
  if (cfs.nr_queued == 1) {
    expected = curr ? curr : leftmost;
    rule = "the only queued entity";
  } else if (profile.feat(Feature::PICK_BUDDY) && protect && cfs.next && exactly_eligible(cfs, s.avg, cfs.next->vruntime)) {
    expected = cfs.next;
    rule = "the eligible next buddy (PICK_BUDDY)";
  } else {
    const SchedEntity* eligible_curr = curr && exactly_eligible(cfs, s.avg, curr->vruntime) ? curr : nullptr;
    if (eligible_curr && protect && protect_slice(*eligible_curr)) {
      expected = eligible_curr;
      rule = "curr, whose slice is protected";
    } else {
      const SchedEntity* best = nullptr;
      for (std::size_t i = 0; i < s.avg.in_tree && !best; ++i)
        if (exactly_eligible(cfs, s.avg, s.avg.entities[i]->vruntime)) best = s.avg.entities[i];
      if (!best || (eligible_curr && vruntime_before(eligible_curr->deadline, best->deadline))) best = eligible_curr;
      expected = best;
      rule = "the earliest deadline among eligible entities";
    }
  }
  if (expected != result) {
    auto name = [&](const SchedEntity* se) {
      return se ? s.rq.tasks[static_cast<std::size_t>(se->task_id)].name : std::string("NULL");
    };
    s.report(Id::PICKOPT, "pick_eevdf",
             fmt::format("pick_eevdf(protect={}) returned {}, but {} is {}", protect, name(result), rule, name(expected)),
             {result, expected});
  }
}

}  // namespace eevdf::inv
