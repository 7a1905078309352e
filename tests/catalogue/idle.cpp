// The invariant catalogue (tests/invariants_catalogue_test.cpp): I-IDLE
// (invariants/idle.cpp). 6.12.118's real case, a queued task moved out of a
// throttled group, is corpus/regressions/v6.12.118-F13-*.scn.
#include "catalogue/harness.hpp"

namespace eevdf::catalogue {
namespace {

// Wake-ups onto an idle CPU ask for the reschedule: no violation.
TEST(Catalogue, IdleCleanWhileTheWakeupsAskForTheReschedule) {
  Harness h;
  h.woken();  // asserts a clean checker itself
  EXPECT_EQ(h.rq.curr, -1);
  EXPECT_TRUE(h.rq.need_resched);
  EXPECT_FALSE(has_violation(h.checker, Id::IDLE)) << listing(h.checker);
}

// The same state with the reschedule lost: the idle CPU has three runnable tasks.
TEST(Catalogue, IdleFiresWhenTheRescheduleIsLost) {
  Harness h;
  h.woken();
  h.op(OpClass::placement, [&] { h.rq.need_resched = false; });
  EXPECT_TRUE(has_violation(h.checker, Id::IDLE)) << listing(h.checker);
}

// Once a task runs the CPU is not idle, whatever the flag says.
TEST(Catalogue, IdleSilentOnceATaskRuns) {
  Harness h;
  h.busy();
  h.op(OpClass::placement, [&] { h.rq.need_resched = false; });
  EXPECT_FALSE(has_violation(h.checker, Id::IDLE)) << listing(h.checker);
}

}  // namespace
}  // namespace eevdf::catalogue
