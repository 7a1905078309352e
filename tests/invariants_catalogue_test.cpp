// "A check that cannot fail is a defect": for every invariant of the catalogue
// (invariants/ids.hpp) except I-FAIR, a test that makes the checker report a
// violation with exactly that id, and a clean twin — the same setting without
// the corruption — in which that id is not reported.
//
// The model is driven through its entry points, each wrapped in
// begin_op()/end_op() as scenario/executor.cpp does; the corruption is a write to
// the public state (or a direct Observer call) inside one operation, and the
// comment next to it names the kernel mechanism it mimics.
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <utility>

#include "invariants/checker.hpp"
#include "model/fair.hpp"
#include "model/profile.hpp"
#include "model/rq.hpp"
#include "support/run_scenario.hpp"

namespace eevdf {
namespace {

using inv::Id;
using inv::OpClass;

constexpr u64 kNice0 = 1048576;  // NICE_0_LOAD

Profile mainline() { return *profile_by_name("mainline"); }

bool has_violation(const inv::Checker& c, Id id) {
  for (const auto& v : c.violations())
    if (v.id == id) return true;
  return false;
}

const inv::Violation* find_violation(const inv::Checker& c, Id id) {
  for (const auto& v : c.violations())
    if (v.id == id) return &v;
  return nullptr;
}

// "I-SUM(op 7: ...), I-LAG(...)": for failure messages.
std::string listing(const inv::Checker& c) {
  std::string out;
  for (const auto& v : c.violations())
    out += std::string(inv::id_name(v.id)) + " (op " + std::to_string(v.op_index) + ", " + v.where + ": " + v.what +
           ")\n";
  return out.empty() ? "no violations" : out;
}

// Everything but I-FAIR (not part of this catalogue test, implemented elsewhere).
bool clean(const inv::Checker& c) {
  for (const auto& v : c.violations())
    if (v.id != Id::FAIR) return false;
  return true;
}

// One runqueue with a checker attached; every step is an operation.
class Harness {
 public:
  explicit Harness(Profile profile = mainline(), inv::Tolerances tolerances = {}, inv::Selection selection = {})
      : rq(std::move(profile)), checker(selection, tolerances) {
    checker.attach(rq);
  }

  Rq rq;
  inv::Checker checker;
  int a = -1, b = -1, c = -1;  // the tasks of the standard settings below
  int sleeper = -1;            // with_sleeper(): A or B, blocked

  template <class F>
  void op(OpClass cls, F&& f) {
    checker.begin_op(next_op_++, cls);
    f();
    checker.end_op();
  }
  int create(const char* name, int nice) {
    int id = -1;
    op(OpClass::placement, [&] { id = rq.create_task(name, nice, Policy::normal, 0); });
    EXPECT_GE(id, 0);
    return id;
  }
  void wake(int id) {
    op(OpClass::placement, [&] { EXPECT_EQ(rq.wake(id, false), Refusal::none); });
  }
  void run(u64 ns) {
    op(OpClass::running, [&] { rq.run(ns); });
  }
  void schedule() {
    op(OpClass::running, [&] { rq.schedule(); });
  }
  void sleep(int id) {
    op(OpClass::running, [&] { EXPECT_EQ(rq.sleep(id), Refusal::none); });
  }
  SchedEntity& se(int id) { return rq.tasks[static_cast<std::size_t>(id)].se; }
  CfsRq& cfs() { return rq.cfs; }
  bool in_tree(int id) { return se(id).on_rq && cfs().curr != &se(id); }

  // Three new tasks A, B (nice 0) and C (nice 5) woken onto an idle CPU: all
  // three sit at V in the tree, no curr yet.
  void woken() {
    a = create("A", 0);
    b = create("B", 0);
    c = create("C", 5);
    wake(a);
    wake(b);
    wake(c);
    EXPECT_EQ(rq.curr, -1);
    EXPECT_TRUE(clean(checker)) << listing(checker);
  }
  // ... and 5.3 ms of running: C is curr (picked by a real pick), A and B in the tree.
  void busy() {
    woken();
    run(5'300'000);
    EXPECT_EQ(rq.curr, c);
    EXPECT_TRUE(in_tree(a) && in_tree(b));
    EXPECT_TRUE(clean(checker)) << listing(checker);
  }
  // ... C blocks while ineligible: DELAY_DEQUEUE keeps it queued as sched_delayed.
  void with_delayed() {
    busy();
    sleep(c);
    EXPECT_TRUE(se(c).sched_delayed && se(c).on_rq);
    EXPECT_NE(se(c).vlag, 0);
    EXPECT_TRUE(clean(checker)) << listing(checker);
  }
  // ... and the task picked next (eligible, so not delayed) blocks at once:
  // a sleeper, off the queue, with a saved positive lag.
  void with_sleeper() {
    with_delayed();
    sleeper = rq.curr;
    EXPECT_GE(sleeper, 0);
    EXPECT_NE(sleeper, c);
    sleep(sleeper);
    EXPECT_FALSE(se(sleeper).on_rq);
    EXPECT_GT(se(sleeper).vlag, 0);
    EXPECT_TRUE(clean(checker)) << listing(checker);
  }
  // Total weight counted in V (tree + curr).
  u64 total_weight() { return static_cast<u64>(inv::exact_average(cfs()).weight); }

 private:
  int next_op_ = 0;
};

// Moves a tree entity's vruntime and deadline by delta through the kernel's
// own __dequeue_entity/__enqueue_entity, so the sums stay exact (I-SUM holds).
void shift_in_tree(CfsRq& cfs, SchedEntity& se, s64 delta) {
  dequeue_entity_rb(cfs, se);
  se.vruntime += as_u64(delta);
  se.deadline += as_u64(delta);
  enqueue_entity_rb(cfs, se);
}

// ===========================================================================
// I-NULLPICK
// ===========================================================================

// pick_eevdf() returning NULL on a non-empty queue (the kernel dereferences it).
TEST(Catalogue, NullPickReportedAtPickWithEntitiesQueued) {
  Harness h;
  h.busy();
  ASSERT_EQ(h.cfs().nr_queued, 3u);
  h.op(OpClass::running, [&] { h.checker.on_pick(h.cfs(), nullptr, true, PickCaller::schedule); });
  EXPECT_TRUE(has_violation(h.checker, Id::NULLPICK)) << listing(h.checker);
}

TEST(Catalogue, NullPickCleanTwinEmptyQueueMayPickNull) {
  Harness h;
  ASSERT_EQ(h.cfs().nr_queued, 0u);
  h.op(OpClass::running, [&] { h.checker.on_pick(h.cfs(), nullptr, true, PickCaller::schedule); });
  EXPECT_FALSE(has_violation(h.checker, Id::NULLPICK)) << listing(h.checker);
  EXPECT_TRUE(clean(h.checker)) << listing(h.checker);
}

// pick_next_entity()'s NULL dereference, raised as a warning, is a NULLPICK, not a WARN.
TEST(Catalogue, NullPickWarningMapsToNullPick) {
  Harness h;
  h.busy();
  h.op(OpClass::running, [&] { h.checker.on_warn(Warn::pick_next_entity_null, nullptr); });
  EXPECT_TRUE(has_violation(h.checker, Id::NULLPICK)) << listing(h.checker);
  EXPECT_FALSE(has_violation(h.checker, Id::WARN)) << listing(h.checker);
}

// A lost update makes sum_w_vruntime hugely negative: the kernel-typed
// eligibility test rejects every queued entity (post-op state check), and the
// next schedule() really picks NULL and oopses.
TEST(Catalogue, NullPickWhenSumMakesNothingEligible) {
  Harness h;
  h.busy();
  h.op(OpClass::placement, [&] { h.cfs().sum_w_vruntime -= static_cast<s64>(h.total_weight()) * 1'000'000'000; });
  EXPECT_TRUE(has_violation(h.checker, Id::NULLPICK)) << listing(h.checker);
  const std::size_t before = h.checker.violations().size();
  h.op(OpClass::running, [&] { h.rq.schedule(); });
  EXPECT_TRUE(h.rq.oops);
  bool at_pick = false;
  for (std::size_t i = before; i < h.checker.violations().size(); ++i)
    at_pick = at_pick || h.checker.violations()[i].id == Id::NULLPICK;
  EXPECT_TRUE(at_pick) << listing(h.checker);
}

// A zero_vruntime left 2^42 behind both entities (a frozen zero point): the
// re-basing keeps I-SUM exact modulo 2^64, but Σ key·w = 2^63 wraps to -2^63
// and the kernel finds nobody eligible.
TEST(Catalogue, NullPickWhenFrozenZeroPointWrapsTheSum) {
  Harness h;
  h.a = h.create("A", 0);
  h.b = h.create("B", 0);
  h.wake(h.a);
  h.wake(h.b);
  ASSERT_EQ(h.cfs().sum_weight, 2 * kNice0);
  ASSERT_EQ(h.cfs().sum_w_vruntime, 0);
  h.op(OpClass::placement, [&] { update_zero_vruntime(h.cfs(), -(s64{1} << 42)); });
  EXPECT_TRUE(has_violation(h.checker, Id::NULLPICK)) << listing(h.checker);
  EXPECT_TRUE(has_violation(h.checker, Id::OVF)) << listing(h.checker);
  EXPECT_FALSE(has_violation(h.checker, Id::SUM)) << listing(h.checker);
  h.schedule();
  EXPECT_TRUE(h.rq.oops);
}

TEST(Catalogue, NullPickCleanTwinScheduleOnBusyQueue) {
  Harness h;
  h.busy();
  h.op(OpClass::placement, [&] { update_zero_vruntime(h.cfs(), -(s64{1} << 20)); });  // harmless re-base
  h.schedule();
  EXPECT_FALSE(h.rq.oops);
  EXPECT_FALSE(has_violation(h.checker, Id::NULLPICK)) << listing(h.checker);
  EXPECT_TRUE(clean(h.checker)) << listing(h.checker);
}

// ===========================================================================
// I-SUM
// ===========================================================================

// A lost/duplicated update of __sum_w_vruntime_add / sum_w_vruntime_sub.
TEST(Catalogue, SumFiresWhenSumWVruntimeDrifts) {
  Harness h;
  h.busy();
  h.op(OpClass::placement, [&] { h.cfs().sum_w_vruntime += 1; });
  EXPECT_TRUE(has_violation(h.checker, Id::SUM)) << listing(h.checker);
}

// sum_weight not decremented (e.g. a dequeue path that skips __dequeue_entity's accounting).
TEST(Catalogue, SumFiresWhenSumWeightDrifts) {
  Harness h;
  h.busy();
  h.op(OpClass::placement, [&] { h.cfs().sum_weight += 2; });
  EXPECT_TRUE(has_violation(h.checker, Id::SUM)) << listing(h.checker);
}

TEST(Catalogue, SumCleanTwin) {
  Harness h;
  h.busy();
  h.op(OpClass::placement, [&] { avg_vruntime(h.cfs()); });  // a legitimate re-basing of the sums
  EXPECT_FALSE(has_violation(h.checker, Id::SUM)) << listing(h.checker);
  EXPECT_TRUE(clean(h.checker)) << listing(h.checker);
}

// ===========================================================================
// I-OVF
// ===========================================================================

// Any s64 site driven with extreme operands through the checker as Observer.
TEST(Catalogue, OverflowFiresOnWrappingMultiplication) {
  Harness h;
  h.op(OpClass::placement, [&] {
    (void)mul_s64(std::numeric_limits<s64>::max(), 2, Site::place_entity_lag_x_load, h.checker);
  });
  const inv::Violation* v = find_violation(h.checker, Id::OVF);
  ASSERT_NE(v, nullptr) << listing(h.checker);
  EXPECT_EQ(v->where, site_name(Site::place_entity_lag_x_load));
}

TEST(Catalogue, OverflowCleanTwinNonWrappingMultiplication) {
  Harness h;
  h.op(OpClass::placement, [&] {
    EXPECT_EQ(mul_s64(s64{1} << 31, s64{1} << 31, Site::place_entity_lag_x_load, h.checker), s64{1} << 62);
  });
  EXPECT_FALSE(has_violation(h.checker, Id::OVF)) << listing(h.checker);
}

// update_zero_vruntime() with a huge delta: sum_weight·delta (2^21·2^50) wraps in the model itself.
TEST(Catalogue, OverflowFiresInUpdateZeroVruntime) {
  Harness h;
  h.busy();
  h.op(OpClass::placement, [&] { update_zero_vruntime(h.cfs(), s64{1} << 50); });
  const inv::Violation* v = find_violation(h.checker, Id::OVF);
  ASSERT_NE(v, nullptr) << listing(h.checker);
  EXPECT_EQ(v->where, site_name(Site::update_zero_vruntime_weight_x_delta));
}

TEST(Catalogue, OverflowCleanTwinUpdateZeroVruntimeModestDelta) {
  Harness h;
  h.busy();
  h.op(OpClass::placement, [&] { update_zero_vruntime(h.cfs(), s64{1} << 30); });
  EXPECT_FALSE(has_violation(h.checker, Id::OVF)) << listing(h.checker);
}

// An entity 2^43 ahead of zero_vruntime is enqueued: key·w = 2^63 wraps in __sum_w_vruntime_add.
TEST(Catalogue, OverflowFiresInSumAddForFarEntity) {
  Harness h;
  h.busy();
  h.op(OpClass::placement, [&] { shift_in_tree(h.cfs(), h.se(h.b), s64{1} << 43); });
  const inv::Violation* v = find_violation(h.checker, Id::OVF);
  ASSERT_NE(v, nullptr) << listing(h.checker);
  EXPECT_EQ(v->where, site_name(Site::sum_w_vruntime_add_key_x_weight));
}

// ===========================================================================
// I-KEY
// ===========================================================================

// zero_vruntime moved 1 s (virtual) away from V, consistently with the sums
// (update_zero_vruntime re-bases them): I-SUM holds, but every key is far
// beyond the lag bounds — a zero point that stopped tracking V.
TEST(Catalogue, KeyFiresWhenZeroVruntimeDriftsAway) {
  Harness h;
  h.busy();
  h.op(OpClass::placement, [&] { update_zero_vruntime(h.cfs(), 1'000'000'000); });
  EXPECT_TRUE(has_violation(h.checker, Id::KEY)) << listing(h.checker);
  EXPECT_FALSE(has_violation(h.checker, Id::SUM)) << listing(h.checker);
  EXPECT_FALSE(has_violation(h.checker, Id::OVF)) << listing(h.checker);
}

// One queued entity drifts 1 s ahead (sums kept exact): its key is out of bounds.
TEST(Catalogue, KeyFiresWhenOneEntityDriftsAway) {
  Harness h;
  h.busy();
  h.op(OpClass::placement, [&] { shift_in_tree(h.cfs(), h.se(h.a), 1'000'000'000); });
  EXPECT_TRUE(has_violation(h.checker, Id::KEY)) << listing(h.checker);
  EXPECT_FALSE(has_violation(h.checker, Id::SUM)) << listing(h.checker);
}

TEST(Catalogue, KeyCleanTwinZeroVruntimeRebasedToV) {
  Harness h;
  h.busy();
  h.op(OpClass::placement, [&] {
    update_zero_vruntime(h.cfs(), avg_vruntime_offset(h.cfs(), null_observer()));  // what avg_vruntime() does
  });
  EXPECT_FALSE(has_violation(h.checker, Id::KEY)) << listing(h.checker);
  EXPECT_TRUE(clean(h.checker)) << listing(h.checker);
}

// ===========================================================================
// I-ELIG
// ===========================================================================

// H (nice -20) and L (nice 19) queued; L pushed k ahead with k·(w_H + w_L) just
// above 2^63 while k·w_L fits. A kernel without b6eee96843e8 (64-bit key·load
// in vruntime_eligible) sees the product wrap negative and calls L eligible;
// exactly, L is far right of V.
void elig_overflow_setting(Harness& h) {
  h.a = h.create("H", -20);
  h.b = h.create("L", 19);
  h.wake(h.a);
  h.wake(h.b);
  ASSERT_TRUE(h.in_tree(h.a) && h.in_tree(h.b));
  const u64 W = h.total_weight();
  ASSERT_EQ(W, h.se(h.a).load.weight + h.se(h.b).load.weight);
  const s64 key_l = entity_key(h.cfs(), h.se(h.b));
  const s64 k = static_cast<s64>((u64{1} << 63) / W + 1) - key_l;
  h.op(OpClass::placement, [&] { shift_in_tree(h.cfs(), h.se(h.b), k); });
}

TEST(Catalogue, EligFiresWhenKeyTimesLoadWrapsWithout128BitEligibility) {
  Profile p = mainline();
  p.behaviour.eligible_int128 = false;
  Harness h(p);
  elig_overflow_setting(h);
  EXPECT_TRUE(has_violation(h.checker, Id::ELIG)) << listing(h.checker);
}

TEST(Catalogue, EligCleanTwinWith128BitEligibility) {
  Harness h;  // mainline: eligible_int128 = true
  elig_overflow_setting(h);
  EXPECT_FALSE(has_violation(h.checker, Id::ELIG)) << listing(h.checker);
  EXPECT_TRUE(has_violation(h.checker, Id::KEY)) << listing(h.checker);  // the far key itself is still out of bounds
}

// A corrupted sum_w_vruntime (lost __sum_w_vruntime_sub) makes the kernel call
// the ineligible curr C eligible.
TEST(Catalogue, EligFiresWhenSumIsCorrupted) {
  Harness h;
  h.busy();
  ASSERT_FALSE(vruntime_eligible(h.cfs(), h.se(h.c).vruntime, null_observer()));
  h.op(OpClass::placement, [&] { h.cfs().sum_w_vruntime += static_cast<s64>(h.total_weight()) * 10'000'000; });
  EXPECT_TRUE(vruntime_eligible(h.cfs(), h.se(h.c).vruntime, null_observer()));
  EXPECT_TRUE(has_violation(h.checker, Id::ELIG)) << listing(h.checker);
}

TEST(Catalogue, EligCleanTwinBusyQueue) {
  Harness h;
  h.busy();
  h.run(3'000'000);
  EXPECT_FALSE(has_violation(h.checker, Id::ELIG)) << listing(h.checker);
  EXPECT_TRUE(clean(h.checker)) << listing(h.checker);
}

// ===========================================================================
// I-AVG0
// ===========================================================================

// sum_w_vruntime too large by 10 W: avg_vruntime()'s offset is floor(S/W) of
// the wrong sum, 10 ns ahead of the exact floor (as if the floor adjustment or
// a sum update were lost).
TEST(Catalogue, Avg0FiresWhenFloorDisagreesWithExactSums) {
  Harness h;
  h.busy();
  h.op(OpClass::placement, [&] { h.cfs().sum_w_vruntime += 10 * static_cast<s64>(h.total_weight()); });
  EXPECT_TRUE(has_violation(h.checker, Id::AVG0)) << listing(h.checker);
}

// sum_w_vruntime next to S64_MIN: avg_vruntime()'s `S -= W-1` wraps to a huge
// positive sum, V lands far to the right and is not eligible.
TEST(Catalogue, Avg0FiresWhenFloorAdjustmentWraps) {
  Harness h;
  h.woken();  // no curr: V comes from the tree sums alone
  h.op(OpClass::placement, [&] { h.cfs().sum_w_vruntime = std::numeric_limits<s64>::min() + 5; });
  const inv::Violation* v = find_violation(h.checker, Id::AVG0);
  ASSERT_NE(v, nullptr) << listing(h.checker);
  EXPECT_NE(v->what.find("would not be eligible"), std::string::npos) << v->what;
}

TEST(Catalogue, Avg0CleanTwin) {
  Harness h;
  h.busy();
  h.op(OpClass::placement, [&] {
    avg_vruntime(h.cfs());                   // re-base: 0 <= S < W
    shift_in_tree(h.cfs(), h.se(h.a), -3);  // S -= 3·w_A: a negative S/W that must be floored
  });
  ASSERT_LT(inv::exact_average(h.cfs()).sum, 0);
  EXPECT_FALSE(has_violation(h.checker, Id::AVG0)) << listing(h.checker);
  EXPECT_TRUE(clean(h.checker)) << listing(h.checker);
}

// ===========================================================================
// I-PICKOPT
// ===========================================================================

// Three entities at V: A and B with deadline V + slice/2, C (nice 5) with a
// later one. A pick that returns C — eligible, but not the earliest deadline —
// is what a broken heap search (a wrong min_vruntime descent) would return.
TEST(Catalogue, PickOptFiresOnEligibleButLaterDeadline) {
  Harness h;
  h.woken();
  const SchedEntity& ca = h.se(h.a);
  const SchedEntity& cc = h.se(h.c);
  ASSERT_TRUE(vruntime_eligible(h.cfs(), cc.vruntime, null_observer()));
  ASSERT_TRUE(vruntime_before(ca.deadline, cc.deadline));
  h.op(OpClass::running, [&] { h.checker.on_pick(h.cfs(), &cc, false, PickCaller::wakeup_preempt); });
  EXPECT_TRUE(has_violation(h.checker, Id::PICKOPT)) << listing(h.checker);
}

// With curr protected, protect=true must return curr: returning another entity is wrong too.
TEST(Catalogue, PickOptFiresWhenProtectedCurrIsIgnored) {
  Harness h;
  h.woken();
  h.schedule();
  ASSERT_EQ(h.rq.curr, h.a);
  ASSERT_TRUE(protect_slice(h.se(h.a)));
  ASSERT_TRUE(vruntime_eligible(h.cfs(), h.se(h.a).vruntime, null_observer()));
  h.op(OpClass::running, [&] { h.checker.on_pick(h.cfs(), &h.se(h.b), true, PickCaller::schedule); });
  EXPECT_TRUE(has_violation(h.checker, Id::PICKOPT)) << listing(h.checker);
}

TEST(Catalogue, PickOptCleanTwinModelPicks) {
  Harness h;
  h.woken();
  SchedEntity* picked = nullptr;
  h.op(OpClass::running, [&] { picked = pick_eevdf(h.cfs(), false, PickCaller::wakeup_preempt); });
  EXPECT_EQ(picked, &h.se(h.a));
  h.schedule();
  h.run(7'000'000);  // many real picks
  EXPECT_FALSE(has_violation(h.checker, Id::PICKOPT)) << listing(h.checker);
  EXPECT_TRUE(clean(h.checker)) << listing(h.checker);
}

// ===========================================================================
// I-AUG
// ===========================================================================

// A node's max_slice augment left stale (9a8bc9bb4c3f: __enqueue_entity did not initialise it).
TEST(Catalogue, AugFiresOnStaleMaxSlice) {
  Harness h;
  h.busy();
  SchedEntity* n = h.cfs().tasks_timeline.leftmost();
  ASSERT_NE(n, nullptr);
  h.op(OpClass::placement, [&] { n->max_slice += 1; });
  EXPECT_TRUE(has_violation(h.checker, Id::AUG)) << listing(h.checker);
}

// A stale min_vruntime augment (the heap search of pick_eevdf descends on it).
TEST(Catalogue, AugFiresOnStaleMinVruntime) {
  Harness h;
  h.busy();
  SchedEntity* root = h.cfs().tasks_timeline.root();
  ASSERT_NE(root, nullptr);
  h.op(OpClass::placement, [&] { root->min_vruntime -= 1000; });
  EXPECT_TRUE(has_violation(h.checker, Id::AUG)) << listing(h.checker);
}

// The real upstream bug: on the v7.1 profile one wake-up leaves max_slice 0
// (corpus/regressions/v7.1-max-slice-not-initialised.scn).
TEST(Catalogue, AugFiresNaturallyOnV71) {
  Harness h(*profile_by_name("v7.1"));
  const int t = h.create("T0", 0);
  h.wake(t);
  EXPECT_TRUE(has_violation(h.checker, Id::AUG)) << listing(h.checker);
}

TEST(Catalogue, AugCleanTwinMainline) {
  Harness h;
  h.busy();
  const int t = h.create("T0", 0);
  h.wake(t);
  h.run(5'000'000);
  EXPECT_FALSE(has_violation(h.checker, Id::AUG)) << listing(h.checker);
  EXPECT_TRUE(clean(h.checker)) << listing(h.checker);
}

// ===========================================================================
// I-LAG
// ===========================================================================

// A sleeper's saved lag beyond ±calc_delta_fair(max_slice + TICK_NSEC): an
// update_entity_lag() without the clamp (entity_lag()'s clamp lost).
TEST(Catalogue, LagFiresOnSleeperBeyondClamp) {
  Harness h;
  h.with_sleeper();
  h.op(OpClass::placement, [&] { h.se(h.sleeper).vlag = -1'000'000'000; });
  EXPECT_TRUE(has_violation(h.checker, Id::LAG)) << listing(h.checker);
}

// The same for a delayed entity, whose saved lag is also checked.
TEST(Catalogue, LagFiresOnDelayedEntityBeyondClamp) {
  Harness h;
  h.with_delayed();
  h.op(OpClass::placement, [&] { h.se(h.c).vlag = 1'000'000'000; });
  EXPECT_TRUE(has_violation(h.checker, Id::LAG)) << listing(h.checker);
}

// Queued lags no longer sum to zero up to the floor of V (V computed from a
// sum that is 10 W too large).
TEST(Catalogue, LagFiresWhenQueuedLagsDoNotSumToZero) {
  Harness h;
  h.busy();
  h.op(OpClass::placement, [&] { h.cfs().sum_w_vruntime += 10 * static_cast<s64>(h.total_weight()); });
  const inv::Violation* v = find_violation(h.checker, Id::LAG);
  ASSERT_NE(v, nullptr) << listing(h.checker);
  EXPECT_EQ(v->where, "avg_vruntime");
}

TEST(Catalogue, LagCleanTwinSleeperAndDelayed) {
  Harness h;
  h.with_sleeper();
  Harness d;
  d.with_delayed();
  EXPECT_FALSE(has_violation(h.checker, Id::LAG)) << listing(h.checker);
  EXPECT_FALSE(has_violation(d.checker, Id::LAG)) << listing(d.checker);
}

// ===========================================================================
// I-RW
// ===========================================================================

// A queued entity reweighted from nice 0 to nice 5 and, in the same breath,
// re-placed 5 ms (virtual) to the right: V moves (the behaviour that
// 101f3498b4bd reverted: reweight must keep V put).
TEST(Catalogue, RwFiresWhenQueuedReweightMovesV) {
  Harness h;
  h.busy();
  SchedEntity& se = h.se(h.b);
  ASSERT_TRUE(h.in_tree(h.b));
  const u64 new_weight = h.se(h.c).load.weight;  // nice 5
  h.op(OpClass::placement, [&] {
    CfsRq& cfs = h.cfs();
    h.checker.on_reweight_begin(cfs, se, new_weight);
    dequeue_entity_rb(cfs, se);
    cfs.load.weight -= se.load.weight;
    se.load.weight = new_weight;
    se.vruntime += 5'000'000;
    se.deadline += 5'000'000;
    cfs.load.weight += se.load.weight;
    enqueue_entity_rb(cfs, se);
    h.checker.on_reweight_end(cfs, se);
  });
  EXPECT_TRUE(has_violation(h.checker, Id::RW)) << listing(h.checker);
}

TEST(Catalogue, RwCleanTwinQueuedReweight) {
  Harness h;
  h.busy();
  ASSERT_TRUE(h.in_tree(h.b));
  const u64 new_weight = h.se(h.c).load.weight;
  h.op(OpClass::placement, [&] { reweight_entity(h.cfs(), h.se(h.b), new_weight); });  // calls the hooks itself
  EXPECT_EQ(h.se(h.b).load.weight, new_weight);
  EXPECT_FALSE(has_violation(h.checker, Id::RW)) << listing(h.checker);
  EXPECT_TRUE(clean(h.checker)) << listing(h.checker);
}

// A sleeper reweighted from nice 0 to nice 5 without rescale_entity(): vlag
// keeps its value, so w·vlag (the service lag) changes by vlag·(w' - w).
TEST(Catalogue, RwFiresWhenSleeperVlagIsNotRescaled) {
  Harness h;
  h.with_sleeper();
  SchedEntity& se = h.se(h.sleeper);
  const u64 nice5 = task_load_weight(5, false).weight;
  h.op(OpClass::placement, [&] {
    h.checker.on_reweight_begin(h.cfs(), se, nice5);
    se.load.weight = nice5;  // update_load_set() without rescale_entity()
    h.checker.on_reweight_end(h.cfs(), se);
  });
  EXPECT_TRUE(has_violation(h.checker, Id::RW)) << listing(h.checker);
}

TEST(Catalogue, RwCleanTwinSleeperRenice) {
  Harness h;
  h.with_sleeper();
  h.op(OpClass::placement, [&] { EXPECT_EQ(h.rq.set_nice(h.sleeper, 5), Refusal::none); });  // set_user_nice()
  EXPECT_EQ(h.se(h.sleeper).load.weight, task_load_weight(5, false).weight);
  EXPECT_FALSE(has_violation(h.checker, Id::RW)) << listing(h.checker);
  EXPECT_TRUE(clean(h.checker)) << listing(h.checker);
}

// ===========================================================================
// I-DL
// ===========================================================================

// curr's deadline pushed 1 s ahead without its vruntime following (a deadline
// set from a stale relative deadline).
TEST(Catalogue, DlFiresOnDeadlineFarAhead) {
  Harness h;
  h.busy();
  h.op(OpClass::placement, [&] { h.se(h.c).deadline += 1'000'000'000; });
  EXPECT_TRUE(has_violation(h.checker, Id::DL)) << listing(h.checker);
}

// A deadline behind the vruntime (negative request).
TEST(Catalogue, DlFiresOnDeadlineBeforeVruntime) {
  Harness h;
  h.busy();
  h.op(OpClass::placement, [&] { h.se(h.c).deadline = h.se(h.c).vruntime - 10; });
  EXPECT_TRUE(has_violation(h.checker, Id::DL)) << listing(h.checker);
}

// A completed request left in place: v reached d and no new request was issued
// (update_deadline() renewing only past the deadline, not at it).
TEST(Catalogue, DlFiresOnCompletedRequestNotRenewed) {
  Harness h;
  h.busy();
  h.op(OpClass::running, [&] { h.se(h.c).deadline = h.se(h.c).vruntime; });
  const inv::Violation* v = find_violation(h.checker, Id::DL);
  ASSERT_NE(v, nullptr) << listing(h.checker);
  EXPECT_NE(v->what.find("expected at least 1"), std::string::npos) << v->what;
}

TEST(Catalogue, DlCleanTwin) {
  Harness h;
  h.busy();
  h.run(10'000'000);  // several update_deadline() refreshes
  EXPECT_FALSE(has_violation(h.checker, Id::DL)) << listing(h.checker);
  EXPECT_TRUE(clean(h.checker)) << listing(h.checker);
}

// ===========================================================================
// I-DELAY
// ===========================================================================

// set_next_buddy() on a sched_delayed entity (the WARN in pick_eevdf guards this).
TEST(Catalogue, DelayFiresWhenDelayedEntityIsNextBuddy) {
  Harness h;
  h.with_delayed();
  h.op(OpClass::placement, [&] { h.cfs().next = &h.se(h.c); });
  EXPECT_TRUE(has_violation(h.checker, Id::DELAY)) << listing(h.checker);
}

TEST(Catalogue, DelayCleanTwinRunnableEntityIsNextBuddy) {
  Harness h;
  h.with_delayed();
  ASSERT_TRUE(h.in_tree(h.a) || h.in_tree(h.b));
  const int buddy = h.in_tree(h.a) ? h.a : h.b;
  h.op(OpClass::placement, [&] { h.cfs().next = &h.se(buddy); });
  EXPECT_FALSE(has_violation(h.checker, Id::DELAY)) << listing(h.checker);
  EXPECT_TRUE(clean(h.checker)) << listing(h.checker);
}

// curr marked sched_delayed (accounted consistently: h_nr_runnable follows),
// as set_next_task_fair() on a delayed task would leave it.
TEST(Catalogue, DelayFiresWhenCurrIsDelayed) {
  Harness h;
  h.busy();
  h.op(OpClass::placement, [&] {
    h.se(h.c).sched_delayed = true;
    h.cfs().h_nr_runnable--;
  });
  EXPECT_TRUE(has_violation(h.checker, Id::DELAY)) << listing(h.checker);
}

// A delayed entity whose debt grew while delayed, woken: requeue_delayed_entity()
// leaves it queued further right than clamp(V - v) allowed when it was delayed
// (the v6.12-v7.0 kernels, where V sinks meanwhile). The lag is read from the
// state (V - v), not from vlag: v is moved, as a sunken V would leave it.
TEST(Catalogue, DelayFiresWhenLagSinksWhileDelayedAndWoken) {
  Harness h;
  h.with_delayed();
  h.op(OpClass::placement, [&] {
    EXPECT_EQ(h.rq.wake(h.c, false), Refusal::none);  // requeue_delayed_entity()
    EXPECT_FALSE(h.se(h.c).sched_delayed);
    h.se(h.c).vruntime += 10'000'000;
  });
  EXPECT_TRUE(has_violation(h.checker, Id::DELAY)) << listing(h.checker);
}

// ... or dequeued at last, saving a deeper debt: update_entity_lag() without the
// "if (se->vlag > vlag) vlag = se->vlag" guard for delayed entities.
TEST(Catalogue, DelayFiresWhenLagSinksWhileDelayedAndDequeued) {
  Harness h;
  h.with_delayed();
  h.op(OpClass::placement, [&] {
    dequeue_entities(h.rq, h.se(h.c), dequeue_flags::SLEEP | dequeue_flags::DELAYED);  // the pick's final dequeue
    EXPECT_FALSE(h.se(h.c).on_rq);
    h.se(h.c).vlag -= 1'000'000;  // saved 1 ms (virtual) deeper than when it was delayed
  });
  EXPECT_TRUE(has_violation(h.checker, Id::DELAY)) << listing(h.checker);
}

TEST(Catalogue, DelayCleanTwinWakeDelayed) {
  Harness h;
  h.with_delayed();
  h.wake(h.c);
  EXPECT_FALSE(h.se(h.c).sched_delayed);
  h.run(5'000'000);
  EXPECT_FALSE(has_violation(h.checker, Id::DELAY)) << listing(h.checker);
  EXPECT_TRUE(clean(h.checker)) << listing(h.checker);
}

// ===========================================================================
// I-PROT
// ===========================================================================

// curr (fresh from a real pick, so not stale for F1) protected past its deadline.
TEST(Catalogue, ProtFiresWhenVprotBeyondDeadline) {
  Harness h;
  h.busy();
  ASSERT_FALSE(h.checker.vprot_stale(h.se(h.c)));
  h.op(OpClass::placement, [&] { h.se(h.c).vprot = h.se(h.c).deadline + 1'000'000; });
  ASSERT_TRUE(protect_slice(h.se(h.c)));
  EXPECT_TRUE(has_violation(h.checker, Id::PROT)) << listing(h.checker);
}

TEST(Catalogue, ProtFiresWhenVprotBeyondDeadlineWithoutTolerance) {
  Harness h(mainline(), inv::Tolerances{false});
  h.busy();
  h.op(OpClass::placement, [&] { h.se(h.c).vprot = h.se(h.c).deadline + 1'000'000; });
  EXPECT_TRUE(has_violation(h.checker, Id::PROT)) << listing(h.checker);
}

TEST(Catalogue, ProtCleanTwin) {
  Harness h(mainline(), inv::Tolerances{false});
  h.busy();
  ASSERT_TRUE(protect_slice(h.se(h.c)));
  h.op(OpClass::placement, [&] { h.se(h.c).vprot = h.se(h.c).deadline; });  // the maximum allowed
  EXPECT_FALSE(has_violation(h.checker, Id::PROT)) << listing(h.checker);
  EXPECT_TRUE(clean(h.checker)) << listing(h.checker);
}

// Between picks protection only shrinks: curr's vprot shortened (as a wake-up's
// update_protect_slice() does), then set back to its deadline without a pick
// (as v6.18's set_next_entity(first = false) of a sched_change re-arms it).
// Both values lie within the deadline: only the between-picks rule sees it.
TEST(Catalogue, ProtFiresWhenProtectionGrowsBetweenPicks) {
  Harness h;
  h.busy();
  ASSERT_TRUE(protect_slice(h.se(h.c)));
  h.op(OpClass::placement, [&] { h.se(h.c).vprot = h.se(h.c).deadline - 1'000'000; });
  ASSERT_TRUE(protect_slice(h.se(h.c)));
  EXPECT_TRUE(clean(h.checker)) << listing(h.checker);
  h.op(OpClass::placement, [&] { h.se(h.c).vprot = h.se(h.c).deadline; });
  EXPECT_TRUE(has_violation(h.checker, Id::PROT)) << listing(h.checker);
}

TEST(Catalogue, ProtCleanTwinShrinksThenRealPick) {
  Harness h;
  h.busy();
  h.op(OpClass::placement, [&] { h.se(h.c).vprot = h.se(h.c).deadline - 1'000'000; });
  h.run(100'000);    // runs on within the shortened protection
  h.schedule();      // a real pick may arm a new one
  h.run(3'000'000);
  EXPECT_FALSE(has_violation(h.checker, Id::PROT)) << listing(h.checker);
  EXPECT_TRUE(clean(h.checker)) << listing(h.checker);
}

// Where set_next_entity() arms the protection only at a real pick (bcd74b2ffdd0), a
// sched_change's set_next_entity(first = false) that moves vprot later re-arms it:
// reported at the event, though F1's tolerance excuses the end-of-operation rule
// (the sched_change marks curr's vprot stale). Its revert re-arms at every call.
TEST(Catalogue, ProtFiresWhenSetNextWithoutPickMovesTheEndLater) {
  Harness h;
  h.busy();
  h.op(OpClass::placement, [&] { h.se(h.c).vprot = h.se(h.c).deadline - 1'000'000; });
  EXPECT_TRUE(clean(h.checker)) << listing(h.checker);
  h.op(OpClass::placement, [&] {
    h.se(h.c).vprot = h.se(h.c).deadline;
    h.checker.on_set_next(h.se(h.c), false);
  });
  const inv::Violation* v = find_violation(h.checker, Id::PROT);
  ASSERT_NE(v, nullptr) << listing(h.checker);
  EXPECT_EQ(v->where, "between picks (sched_change set_next_entity)");
}

// Clean twins: the model's own sched_changes of curr (set_next_entity(first = false)
// leaves vprot), and a real pick, which may arm a later end.
TEST(Catalogue, ProtCleanTwinSchedChangeKeepsTheEnd) {
  Harness h;
  h.busy();
  h.op(OpClass::placement, [&] { h.se(h.c).vprot = h.se(h.c).deadline - 1'000'000; });
  h.op(OpClass::placement, [&] { ASSERT_EQ(h.rq.set_nice(h.c, 3), Refusal::none); });
  h.op(OpClass::placement, [&] { ASSERT_EQ(h.rq.set_slice(h.c, 1'000'000), Refusal::none); });
  h.op(OpClass::placement, [&] {
    h.se(h.c).vprot = h.se(h.c).deadline;
    h.checker.on_set_next(h.se(h.c), true);
  });
  EXPECT_FALSE(has_violation(h.checker, Id::PROT)) << listing(h.checker);
}

// At a real pick the protection is at most the shortest request queued. v6.12's
// RUN_TO_PARITY protects to the deadline (the vlag == deadline stash): a 20 ms
// request picked while a 3 ms one waits keeps the CPU for its whole slice. The
// same tasks on mainline get a protection of calc_delta_fair(3 ms).
void parity_past_shorter(Harness& h) {
  h.a = h.create("A", 0);
  h.b = h.create("B", 0);
  h.op(OpClass::placement, [&] { EXPECT_EQ(h.rq.set_slice(h.a, 20'000'000), Refusal::none); });
  h.wake(h.a);
  h.wake(h.b);
  h.run(3'125'000);  // B first (the earlier deadline), then A while B waits
}

TEST(Catalogue, ProtFiresWhenPickProtectsPastShortestRequest) {
  Harness h(*profile_by_name("v6.12"));
  parity_past_shorter(h);
  EXPECT_TRUE(has_violation(h.checker, Id::PROT)) << listing(h.checker);
}

TEST(Catalogue, ProtCleanTwinPickProtectsShortestRequest) {
  Harness h;
  parity_past_shorter(h);
  EXPECT_FALSE(has_violation(h.checker, Id::PROT)) << listing(h.checker);
}

// Once curr's protection is over, the entity EEVDF would run gets the CPU at the
// next tick. 6.12.118's update_curr() reschedules an unprotected curr only when
// it is ineligible (did_preempt_short()), so T8 (eligible, its parity stash gone
// with its yield) keeps the CPU through the tick while T13 has the earliest
// eligible deadline; 0b9ca2dcabc3 (v6.17) reschedules at the end of every
// protected period, and mainline hands T13 the CPU at that tick.
std::string tick_after_protection(const char* profile) {
  return std::string("profile ") + profile +
         "\n"
         "task T0\nwake T0\nschedule\ntask T8 nice=-14 policy=batch\nwake T8\ntick\nschedule\n"
         "fork T8 -> T13\nyield T8\nwake T13\ntick\n";
}

TEST(Catalogue, ProtFiresWhenTheTickKeepsAnUnprotectedCurr) {
  const scn::ExecResult r = test::run_scenario_text(tick_after_protection("v6.12.118"));
  ASSERT_EQ(r.violations.size(), 1u);
  EXPECT_EQ(r.violations[0].id, Id::PROT);
  EXPECT_EQ(r.violations[0].where, "entity_tick / update_curr (protection over)");
  EXPECT_EQ(r.violations[0].op_index, 10);  // the second tick
}

TEST(Catalogue, ProtCleanTwinTheTickReschedulesAnUnprotectedCurr) {
  test::expect_ok(test::run_scenario_text(tick_after_protection("mainline")));
}

// Rule 5: a lone fair entity is never rescheduled by the fair class's tick.
// The corruption: inside one tick, update_curr() reschedules the lone A at slice
// expiry as v6.12-rc1's `rq->nr_running == 1` test did beside an RT task (85e511df3cec;
// B25 re-creates it through the model): task_tick_fair() calls resched_curr().
void lone_tick(Harness& h, bool corrupt) {
  h.a = h.create("A", 0);
  h.wake(h.a);
  h.run(1'000'000);
  ASSERT_EQ(h.rq.curr, h.a);
  h.op(OpClass::running, [&] {
    h.rq.tick_nopreempt();
    if (corrupt) {  // what a fair tick that rescheduled leaves behind
      h.rq.resched_curr();
      ++h.rq.fair_tick_rescheds;
    }
  });
}

TEST(Catalogue, ProtFiresWhenALoneEntityIsRescheduledByATick) {
  Harness h;
  lone_tick(h, true);
  const inv::Violation* v = find_violation(h.checker, Id::PROT);
  ASSERT_NE(v, nullptr) << listing(h.checker);
  EXPECT_EQ(v->where, "entity_tick / update_curr (lone entity)");
}

TEST(Catalogue, ProtCleanTwinALoneEntityKeepsTheCpuAtSliceExpiry) {
  Harness h;
  lone_tick(h, false);
  for (int i = 0; i < 6; ++i) h.op(OpClass::running, [&] { h.rq.tick_nopreempt(); });  // past its slice
  EXPECT_EQ(h.rq.fair_tick_rescheds, 0u);
  EXPECT_TRUE(clean(h.checker)) << listing(h.checker);
}

// The same rule from the scenario language: an RT task queued beside a lone
// fair task that reaches no preemption point (`tick nopreempt`). v6.12-rc1's
// update_curr() (B25) reschedules it at slice expiry, 6.12.118's does not.
std::string lone_beside_rt(const char* profile) {
  return std::string("profile ") + profile +
         "\ntask A\ntask R policy=fifo\nwake A\nrun 1ms\nwake R\n"
         "tick nopreempt\ntick nopreempt\ntick nopreempt\ntick nopreempt\ntick nopreempt\n";
}

TEST(Catalogue, ProtFiresOnB25LoneTaskBesideAnRtTask) {
  const scn::ExecResult r = test::run_scenario_text(lone_beside_rt("v6.12.118 bug=B25"));
  ASSERT_EQ(r.violations.size(), 1u);
  EXPECT_EQ(r.violations[0].id, Id::PROT);
  EXPECT_EQ(r.violations[0].where, "entity_tick / update_curr (lone entity)");
}

TEST(Catalogue, ProtCleanTwinLoneTaskBesideAnRtTask) {
  // I-PROT only: v7.0 .. v7.2 report their expected I-AUG (the stale max_slice) here too
  for (const char* p : {"v6.6", "v6.12", "v6.12.118", "v6.18", "v7.0", "v7.1", "v7.2", "v7.3", "mainline"}) {
    const scn::ExecResult r = test::run_scenario_text(lone_beside_rt(p));
    EXPECT_TRUE(r.error.empty()) << p << ": " << r.error;
    for (const auto& v : r.violations) EXPECT_NE(v.id, Id::PROT) << p << ": " << v.where << ": " << v.what;
  }
}

// A tick at the clock of a wake-up charges the running task (its group's queue
// was last updated earlier) but not its group entity: the wake-up of T15 updated
// the root queue at that clock, so the root's update_curr() sees delta 0 and
// decides nothing. Rule 4 waits for a tick that charges the queue's own curr
// (found as a false alarm by `fuzz --profile mainline --late-ticks --nohz-full
// --seed 41`, minimized).
std::string tick_at_wakeup_clock(const char* last_tick) {
  return std::string("profile mainline\ngroup G1\ntask T9\nmove T9 G1\nwake T9\ntask T15\nrun 16275500ns\n"
                     "wake T15\n") +
         last_tick + "\n";
}

TEST(Catalogue, ProtCleanTwinATickThatChargesOnlyTheTaskBelowTheGroup) {
  test::expect_ok(test::run_scenario_text(tick_at_wakeup_clock("tick 0")));
  test::expect_ok(test::run_scenario_text(tick_at_wakeup_clock("tick")));
}

// Finding F1 (docs/findings/F1.md): renicing the running task leaves vprot in the
// old weight's scale. Reported without the tolerance, tolerated with it.
void f1_scenario(Harness& h) {
  h.a = h.create("A", 19);
  h.b = h.create("B", 0);
  h.wake(h.a);
  h.schedule();
  h.wake(h.b);
  ASSERT_EQ(h.rq.curr, h.a);
  h.op(OpClass::placement, [&] { EXPECT_EQ(h.rq.set_nice(h.a, -20), Refusal::none); });
}

TEST(Catalogue, ProtFiresNaturallyOnF1WithoutTolerance) {
  Harness h(mainline(), inv::Tolerances{false});
  f1_scenario(h);
  EXPECT_TRUE(has_violation(h.checker, Id::PROT)) << listing(h.checker);
}

TEST(Catalogue, ProtToleratesF1ByDefault) {
  Harness h;
  f1_scenario(h);
  EXPECT_TRUE(h.checker.vprot_stale(h.se(h.a)));
  EXPECT_FALSE(has_violation(h.checker, Id::PROT)) << listing(h.checker);
}

// ===========================================================================
// I-SLICE
// ===========================================================================

// A task left without a slice (zero), as if __setparam_fair() were skipped.
TEST(Catalogue, SliceFiresOnZeroSlice) {
  Harness h;
  h.busy();
  const int n = h.create("N", 0);
  h.op(OpClass::placement, [&] { h.se(n).slice = 0; });
  EXPECT_TRUE(has_violation(h.checker, Id::SLICE)) << listing(h.checker);
}

// A custom slice above 100 ms: __setparam_fair()'s clamp missing.
TEST(Catalogue, SliceFiresOnUnclampedCustomSlice) {
  Harness h;
  h.busy();
  const int n = h.create("N", 0);
  h.op(OpClass::placement, [&] {
    h.se(n).custom_slice = true;
    h.se(n).slice = 200'000'000;
  });
  EXPECT_TRUE(has_violation(h.checker, Id::SLICE)) << listing(h.checker);
}

TEST(Catalogue, SliceCleanTwinSetattrClamps) {
  Harness h;
  h.busy();
  const int n = h.create("N", 0);
  h.op(OpClass::placement, [&] { EXPECT_EQ(h.rq.set_slice(n, 200'000'000), Refusal::none); });  // sched_setattr()
  EXPECT_EQ(h.se(n).slice, 100'000'000u);
  EXPECT_FALSE(has_violation(h.checker, Id::SLICE)) << listing(h.checker);
  EXPECT_TRUE(clean(h.checker)) << listing(h.checker);
}

// ===========================================================================
// I-CNT
// ===========================================================================

// account_entity_enqueue() counted twice.
TEST(Catalogue, CntFiresOnNrQueuedDrift) {
  Harness h;
  h.busy();
  h.op(OpClass::placement, [&] { h.cfs().nr_queued++; });
  EXPECT_TRUE(has_violation(h.checker, Id::CNT)) << listing(h.checker);
}

// h_nr_runnable not restored when a delayed task is requeued (clear_delayed() skipped).
TEST(Catalogue, CntFiresOnHNrRunnableDrift) {
  Harness h;
  h.with_delayed();
  h.op(OpClass::placement, [&] { h.cfs().h_nr_runnable++; });
  EXPECT_TRUE(has_violation(h.checker, Id::CNT)) << listing(h.checker);
}

TEST(Catalogue, CntCleanTwin) {
  Harness h;
  h.with_sleeper();
  h.wake(h.sleeper);
  h.run(2'000'000);
  EXPECT_FALSE(has_violation(h.checker, Id::CNT)) << listing(h.checker);
  EXPECT_TRUE(clean(h.checker)) << listing(h.checker);
}

// ===========================================================================
// I-MONO
// ===========================================================================

// While the CPU only ran, a queued (not running) entity moved back 1 µs
// (sums kept exact): as if a tick re-placed a waiting entity.
TEST(Catalogue, MonoFiresWhenRunningMovesAnotherEntityBack) {
  Harness h;
  h.busy();
  h.op(OpClass::running, [&] {
    h.rq.run(100'000);
    ASSERT_TRUE(h.in_tree(h.a));
    shift_in_tree(h.cfs(), h.se(h.a), -1000);
  });
  EXPECT_TRUE(has_violation(h.checker, Id::MONO)) << listing(h.checker);
}

// The same movement in a placement-class operation (wake, fork, reweight may move vruntime).
TEST(Catalogue, MonoCleanTwinPlacementMayMoveVruntime) {
  Harness h;
  h.busy();
  h.op(OpClass::placement, [&] {
    h.rq.run(100'000);
    ASSERT_TRUE(h.in_tree(h.a));
    shift_in_tree(h.cfs(), h.se(h.a), -1000);
  });
  EXPECT_FALSE(has_violation(h.checker, Id::MONO)) << listing(h.checker);
  EXPECT_TRUE(clean(h.checker)) << listing(h.checker);
}

TEST(Catalogue, MonoCleanTwinRunning) {
  Harness h;
  h.busy();
  h.run(100'000);
  h.run(9'000'000);
  EXPECT_FALSE(has_violation(h.checker, Id::MONO)) << listing(h.checker);
  EXPECT_TRUE(clean(h.checker)) << listing(h.checker);
}

// ===========================================================================
// I-WARN
// ===========================================================================

TEST(Catalogue, WarnFiresOnObservedWarning) {
  Harness h;
  h.busy();
  h.op(OpClass::placement, [&] { h.checker.on_warn(Warn::place_entity_zero_load, &h.se(h.a)); });
  const inv::Violation* v = find_violation(h.checker, Id::WARN);
  ASSERT_NE(v, nullptr) << listing(h.checker);
  EXPECT_EQ(v->where, warn_name(Warn::place_entity_zero_load));
  EXPECT_FALSE(has_violation(h.checker, Id::NULLPICK));
}

// __sum_w_vruntime_add()'s tripwire: an entity 2^42 ahead of zero_vruntime
// has key·w just over 2^62 (fits s64, so no I-OVF, but the WARN fires).
TEST(Catalogue, WarnFiresOnSumAddProductOver62Bits) {
  Harness h;
  h.busy();
  h.op(OpClass::placement, [&] { shift_in_tree(h.cfs(), h.se(h.b), s64{1} << 42); });
  const inv::Violation* v = find_violation(h.checker, Id::WARN);
  ASSERT_NE(v, nullptr) << listing(h.checker);
  EXPECT_EQ(v->where, warn_name(Warn::sum_w_vruntime_add_product_over_62_bits));
  EXPECT_FALSE(has_violation(h.checker, Id::OVF)) << listing(h.checker);
}

// set_next_buddy() on a task that is not queued.
TEST(Catalogue, WarnFiresOnBuddyNotQueued) {
  Harness h;
  h.with_sleeper();
  h.op(OpClass::placement, [&] { set_next_buddy(h.se(h.sleeper)); });
  const inv::Violation* v = find_violation(h.checker, Id::WARN);
  ASSERT_NE(v, nullptr) << listing(h.checker);
  EXPECT_EQ(v->where, warn_name(Warn::set_next_buddy_not_on_rq));
}

TEST(Catalogue, WarnCleanTwin) {
  Harness h;
  h.busy();
  h.op(OpClass::placement, [&] { shift_in_tree(h.cfs(), h.se(h.b), s64{1} << 30); });  // far, but key·w < 2^62
  h.op(OpClass::placement, [&] { set_next_buddy(h.se(h.a)); });                       // a queued buddy
  EXPECT_FALSE(has_violation(h.checker, Id::WARN)) << listing(h.checker);
}

// ===========================================================================
// Checker defects found while writing this file, now fixed in invariants/.
// Each test states what the documentation promises and guards the fix.
// ===========================================================================

// Was DEFECT 1: Checker::on_warn() returned early unless I-WARN is selected, before
// mapping Warn::pick_next_entity_null to I-NULLPICK; with `--only I-NULLPICK`
// the NULL-dereference warning is dropped (check_pick still reports the NULL
// pick itself, so the catalogue as a whole still sees it).
TEST(Catalogue, NullPickWarningReportedWhenWarnDeselected) {
  inv::Selection only_nullpick;
  only_nullpick.on.fill(false);
  only_nullpick.set(Id::NULLPICK, true);
  Harness h(mainline(), {}, only_nullpick);
  h.busy();
  h.op(OpClass::running, [&] { h.checker.on_warn(Warn::pick_next_entity_null, nullptr); });
  EXPECT_TRUE(has_violation(h.checker, Id::NULLPICK)) << listing(h.checker);
}

// Was DEFECT 2: I-MONO's documentation says running moves no entity other than
// the running one; the check only catches decreases. A queued, waiting
// entity moved forward during a running operation passes.
TEST(Catalogue, MonoCatchesWaitingEntityMovedForward) {
  Harness h;
  h.busy();
  h.op(OpClass::running, [&] {
    h.rq.run(100'000);
    ASSERT_TRUE(h.in_tree(h.a));
    shift_in_tree(h.cfs(), h.se(h.a), 1000);
  });
  EXPECT_TRUE(has_violation(h.checker, Id::MONO)) << listing(h.checker);
}

// Was DEFECT 3: I-RW's documentation says that when the lag was clamped "only the
// clamp is checked"; on_reweight_end() returns without checking anything.
// Here B sits 10 ms (virtual) right of V, beyond its ±3.8 ms lag clamp, and
// is reweighted nice 0 -> nice 1 by a reweight that forgets entity_lag()'s
// clamp: the unclamped lag is rescaled and B re-placed from it. No check fires.
TEST(Catalogue, RwChecksAClampedReweight) {
  Harness h;
  h.busy();
  SchedEntity& se = h.se(h.b);
  ASSERT_TRUE(h.in_tree(h.b));
  h.op(OpClass::placement, [&] { shift_in_tree(h.cfs(), se, 10'000'000); });
  ASSERT_TRUE(clean(h.checker)) << listing(h.checker);
  const u64 new_weight = task_load_weight(1, false).weight;
  h.op(OpClass::placement, [&] {
    CfsRq& cfs = h.cfs();
    h.checker.on_reweight_begin(cfs, se, new_weight);
    const u64 V = avg_vruntime(cfs);
    const s64 raw_lag = vruntime_diff(V, se.vruntime);  // about -5.7 ms: no clamp
    ASSERT_LT(raw_lag, -static_cast<s64>(inv::lag_bound(h.rq, cfs_rq_max_slice(cfs), se.load.weight)));
    dequeue_entity_rb(cfs, se);
    cfs.load.weight -= se.load.weight;
    se.vlag = div64_long(raw_lag * static_cast<s64>(se.load.weight), static_cast<s64>(new_weight));
    se.load.weight = new_weight;
    se.deadline -= se.vruntime;
    se.deadline = se.deadline * kNice0 / new_weight;
    se.vruntime = V - as_u64(se.vlag);
    se.deadline += se.vruntime;
    cfs.load.weight += se.load.weight;
    enqueue_entity_rb(cfs, se);
    h.checker.on_reweight_end(cfs, se);
  });
  EXPECT_TRUE(has_violation(h.checker, Id::RW) || has_violation(h.checker, Id::LAG)) << listing(h.checker);
}

// entity_lag()'s clamp on the inverse-weight path multiplies by floor(0xFFFFFFFF /
// scale_load_down(w)): for a group entity of weight 2^28 (inv_weight 16383) and a
// 3 ms slice, v6.12 clamps at (6 ms · 1024 · 16383) >> 32 = 23436 ns, below the
// exact quotient 23437.5 that lag_bound() bounds it by (23438 with the wmult
// allowance). I-RW decides "clamped" against the kernel's value.
TEST(Catalogue, KernelLagLimitIsTheKernelsClamp) {
  const Rq v612(*profile_by_name("v6.12"));
  const LoadWeight group{u64{1} << 28, 0};
  EXPECT_EQ(inv::kernel_lag_limit(v612, 3'000'000, group), 23436u);
  EXPECT_EQ(inv::lag_bound(v612, 3'000'000, group.weight), 23438u);
  EXPECT_EQ(inv::kernel_lag_limit(v612, 3'000'000, task_load_weight(0, false)), 6'000'000u);  // nice 0: 2 slices
  // mainline: calc_delta_fair(max_slice + TICK_NSEC) on the full-weight path, 4 ms · 2^20 / 2^28
  const Rq main(mainline());
  EXPECT_EQ(inv::kernel_lag_limit(main, 3'000'000, group), 15625u);
}

// lag_bound() is an upper bound of the kernel's clamp also for a group weight that is
// not a multiple of 1024: the inverse-weight path divides by floor(w / 1024).
TEST(Catalogue, LagBoundCoversTheTruncatedScaleLoadDown) {
  const Rq v66(*profile_by_name("v6.6"));
  const LoadWeight group{1024927, 0};
  EXPECT_EQ(inv::kernel_lag_limit(v66, 3'000'000, group), 6143999u);  // max(2·3 ms, 1 ms), w_sd = 1000
  EXPECT_GE(inv::lag_bound(v66, 3'000'000, group.weight), 6143999u);  // exact quotient: 6138570
}

// I-DL after a reweight: one virtual slice at w rescaled by w/w' may exceed
// calc_delta_fair(slice) at w' on the inverse-weight path (floored inverse of a
// weight off the nice table, truncated scale_load_down()); not on the full-weight path.
TEST(Catalogue, RescaledSliceExcessIsTheKernelsDifference) {
  const Rq v70(*profile_by_name("v7.0"));
  // 100 ms at 2^20 is 100 ms; rescaled to 10·2^20: 10 ms, where (10^8·1024·419430) >> 32 = 9999990
  EXPECT_EQ(inv::rescaled_slice_excess(v70, 100'000'000, u64{1} << 20, u64{10} << 20), 10u);
  // the other way round the rescaled slice (99999900) lies below the kernel's 100 ms
  EXPECT_EQ(inv::rescaled_slice_excess(v70, 100'000'000, u64{10} << 20, u64{1} << 20), 0u);
  const Rq main(mainline());
  EXPECT_LE(inv::rescaled_slice_excess(main, 100'000'000, u64{1} << 20, u64{10} << 20), 1u);
}

// v6.12's reweight_eevdf() rescales the clamped lag, so a clamped reweight moves V
// by a·(L - L_c)/W' and by no more than I-RW's rounding beyond that. A reweight
// that rescales the unclamped lag (reweight_eevdf() before 1560d1f6eb6b, B08)
// keeps V where it was: the clamp's displacement away from v6.12's V.
void v612_clamped_reweight(bool forget_clamp) {
  Harness h(*profile_by_name("v6.12"));
  h.busy();
  SchedEntity& se = h.se(h.b);
  ASSERT_TRUE(h.in_tree(h.b));
  h.op(OpClass::placement, [&] { shift_in_tree(h.cfs(), se, 30'000'000); });
  const u64 new_weight = task_load_weight(1, false).weight;
  h.op(OpClass::placement, [&] {
    CfsRq& cfs = h.cfs();
    const u64 V = avg_vruntime(cfs);
    const s64 raw_lag = vruntime_diff(V, se.vruntime);
    ASSERT_LT(raw_lag, -static_cast<s64>(inv::lag_bound(h.rq, se.slice, se.load.weight)));  // clamped
    if (!forget_clamp) {
      reweight_entity(cfs, se, new_weight);  // calls the hooks itself
      return;
    }
    h.checker.on_reweight_begin(cfs, se, new_weight);
    dequeue_entity_rb(cfs, se);
    cfs.load.weight -= se.load.weight;
    const s64 vlag = div_s64(raw_lag * static_cast<s64>(se.load.weight), static_cast<s64>(new_weight));
    const s64 vslice = div_s64(vruntime_diff(se.deadline, V) * static_cast<s64>(se.load.weight),
                               static_cast<s64>(new_weight));
    se.load.weight = new_weight;
    se.vruntime = V - as_u64(vlag);
    se.deadline = V + as_u64(vslice);
    cfs.load.weight += se.load.weight;
    enqueue_entity_rb(cfs, se);
    h.checker.on_reweight_end(cfs, se);
  });
  EXPECT_EQ(se.load.weight, new_weight);
  EXPECT_EQ(has_violation(h.checker, Id::RW), forget_clamp) << listing(h.checker);
}

TEST(Catalogue, RwV612FiresWhenAClampedReweightKeepsV) { v612_clamped_reweight(true); }
TEST(Catalogue, RwV612CleanTwinClampedReweightMovesVByTheClamp) { v612_clamped_reweight(false); }

// v6.12's reweight_eevdf() rescales the lag by the full weights w/w', while
// avg_vruntime() counts the entity at scale_load_down(): V moves by
// L_c·(a - a'·w/w')/W' (a = floor(w / 1024)), which is the truncation of
// scale_load_down() while the average counts both weights within one unit of
// w/1024 (I-RW takes it off), and scale_load_down()'s floor of 2 at or below 1024
// (reported: v6.12 expected finding).
void v612_reweight_to(u64 new_weight, bool reported) {
  Harness h(*profile_by_name("v6.12"));
  h.busy();
  SchedEntity& se = h.se(h.b);
  ASSERT_TRUE(h.in_tree(h.b));
  h.op(OpClass::placement, [&] { shift_in_tree(h.cfs(), se, 1'000'000); });  // lag -1 ms, not clamped
  const inv::ExactAverage before = inv::exact_average(h.cfs());
  const u64 zero = h.cfs().zero_vruntime;
  h.op(OpClass::placement, [&] { reweight_entity(h.cfs(), se, new_weight); });
  const inv::ExactAverage after = inv::exact_average(h.cfs());
  // exact V before and after, relative to the first zero point
  const i128 moved = vruntime_diff(h.cfs().zero_vruntime, zero) + after.sum / after.weight - before.sum / before.weight;
  EXPECT_GT(moved < 0 ? -moved : moved, 3) << "the reweight must move V beyond the old rounding allowance";
  EXPECT_EQ(has_violation(h.checker, Id::RW), reported) << listing(h.checker);
}

// 1048576 -> 15138: a' = 14, 15138 = 14·1024 + 802, a - a'·w/w' = 54.25: V moves by ~39 µs
TEST(Catalogue, RwV612TruncatedAverageWeightIsRounding) { v612_reweight_to(15138, false); }
// 1048576 -> 1006: scale_load_down(1006) = max(2, 0) = 2, a - a'·w/w' = -1060.6
TEST(Catalogue, RwV612AverageWeightFlooredAt2IsReported) { v612_reweight_to(1006, true); }
// 1048576 -> 1536: counted as 2 (2048), within one unit of 1.5: rounding
TEST(Catalogue, RwV612AverageWeightFlooredWithinAUnitIsRounding) { v612_reweight_to(1536, false); }

// I-FRESH. v7.1's enqueue_task_fair() requeues a delayed entity without
// update_curr() (333238da9a19 added it in v7.2): C blocked while delayed, the
// clock moves 300 us without a tick, and C's wakeup re-decides its lag against
// a V that misses curr's 300 us.
// v7.1's own finding (I-AUG: stale max_slice) is not checked here.
inv::Selection without_aug() {
  inv::Selection s;
  s.set(Id::AUG, false);
  return s;
}

TEST(Catalogue, FreshFiresWhenADelayedTaskIsRequeuedBetweenTicks) {
  Harness h(*profile_by_name("v7.1"), {}, without_aug());
  h.with_delayed();
  const int curr = h.rq.curr;
  ASSERT_GE(curr, 0);
  h.run(300'000);  // 5.3 ms -> 5.6 ms: no tick boundary
  ASSERT_EQ(h.rq.clock_task - h.se(curr).exec_start, 300'000u);
  h.wake(h.c);
  const inv::Violation* v = find_violation(h.checker, Id::FRESH);
  ASSERT_NE(v, nullptr) << listing(h.checker);
  EXPECT_EQ(v->where, "update_entity_lag");
  EXPECT_NE(v->what.find("300000 ns of runtime not yet charged"), std::string::npos) << v->what;
}

// Clean twin: the same wakeup at a tick boundary, where the tick has just charged curr.
TEST(Catalogue, FreshCleanTwinRequeueRightAfterATick) {
  Harness h(*profile_by_name("v7.1"), {}, without_aug());
  h.with_delayed();
  h.run(700'000);  // 5.3 ms -> 6.0 ms: ends on the tick, which ran update_curr()
  ASSERT_EQ(h.rq.clock_task % 1'000'000, 0u);
  h.wake(h.c);
  EXPECT_FALSE(has_violation(h.checker, Id::FRESH)) << listing(h.checker);
}

// I-LAG at an avg_vruntime() return: the value the code answers is the floor of
// the weighted average. 650cad561cce's floor undone (a negative sum divided
// towards zero) answers one more than the floor: reported; the true V is not.
TEST(Catalogue, LagFiresWhenAvgVruntimeAnswersAboveTheFloor) {
  Harness h(*profile_by_name("mainline"));
  h.busy();
  h.op(OpClass::running, [&] {
    const u64 v = avg_vruntime(h.rq.cfs);  // the model's V: its own call is judged too
    EXPECT_TRUE(clean(h.checker)) << listing(h.checker);
    // a V whose Σ w·(V - v) is 0 is exact; one more is beyond the floor whatever the sums
    h.checker.on_avg_vruntime(h.rq.cfs, v + 1);
  });
  const inv::Violation* v = find_violation(h.checker, Id::LAG);
  ASSERT_NE(v, nullptr) << listing(h.checker);
  EXPECT_EQ(v->where, "avg_vruntime");
  EXPECT_NE(v->what.find("(the floor of V)"), std::string::npos) << v->what;
}

// I-HLOAD (v7.3 flat runqueue). The running task's h_load is zeroed, as a task
// that no enqueue ever weighed has it (rq->idle, spec §1): update_curr()'s
// calc_delta_fair() then divides by zero in the kernel.
TEST(Catalogue, HloadFiresOnZeroEffectiveWeight) {
  Harness h(*profile_by_name("v7.3"));
  h.busy();
  EXPECT_EQ(h.se(h.c).h_load.weight, u64{335} << 10);  // a root task: its nice-5 weight
  h.op(OpClass::running, [&] {
    h.se(h.c).h_load.weight = 0;
    h.rq.tick();  // update_curr() -> calc_delta_fair()
  });
  const inv::Violation* v = find_violation(h.checker, Id::HLOAD);
  ASSERT_NE(v, nullptr) << listing(h.checker);
  EXPECT_NE(v->where.find("MIN_SHARES"), std::string::npos) << v->where;
}

// ... and a zero __calc_prop_weight divisor: a task not accounted on its group's queue.
TEST(Catalogue, HloadFiresOnZeroPropWeightDivisor) {
  Harness h(*profile_by_name("v7.3"));
  int g = -1, t = -1;
  h.op(OpClass::placement, [&] {
    g = h.rq.create_group("G", -1, 1024);
    t = h.rq.create_task("T", 0, Policy::normal, 0, g);
  });
  h.op(OpClass::placement, [&] { calc_prop_weight(h.rq.groups[0].cfs_rq, h.se(t), kNice0); });
  EXPECT_TRUE(has_violation(h.checker, Id::HLOAD)) << listing(h.checker);
}

// Clean twin: the same running, weights as enqueue left them; and the same run on mainline.
TEST(Catalogue, HloadCleanTwin) {
  for (const char* name : {"v7.3", "mainline"}) {
    Harness h(*profile_by_name(name));
    h.busy();
    h.op(OpClass::running, [&] { h.rq.tick(); });
    EXPECT_FALSE(has_violation(h.checker, Id::HLOAD)) << name << ": " << listing(h.checker);
  }
}

}  // namespace
}  // namespace eevdf

// ===========================================================================
// I-WAKECOUNT
// ===========================================================================

namespace eevdf {
namespace {

// The CPU goes idle (every task blocked, the delayed one dequeued by the pick)
// while rq->nr_running keeps one task, as a dequeue that forgot
// sub_nr_running() would leave it: idle_cpu() says busy on a settled CPU.
TEST(Catalogue, WakecountFiresOnAnIdleCpuThatCountsATask) {
  Harness h;
  h.with_sleeper();
  const int last = h.rq.curr;
  ASSERT_GE(last, 0);
  h.op(OpClass::running, [&] {
    EXPECT_EQ(h.rq.sleep(last), Refusal::none);
    h.rq.schedule();
    ++h.rq.nr_running;
  });
  ASSERT_LT(h.rq.running(), 0);
  ASSERT_FALSE(h.rq.need_resched);
  const inv::Violation* v = find_violation(h.checker, Id::WAKECOUNT);
  ASSERT_NE(v, nullptr) << listing(h.checker);
  EXPECT_EQ(v->where, "idle_cpu");
}

// Clean twin: the same CPU going idle with its counter right.
TEST(Catalogue, WakecountCleanTwinIdleCpu) {
  Harness h;
  h.with_sleeper();
  const int last = h.rq.curr;
  h.op(OpClass::running, [&] {
    EXPECT_EQ(h.rq.sleep(last), Refusal::none);
    h.rq.schedule();
  });
  ASSERT_LT(h.rq.running(), 0);
  EXPECT_EQ(h.rq.nr_running, 0u);
  EXPECT_FALSE(has_violation(h.checker, Id::WAKECOUNT)) << listing(h.checker);
}

// h_nr_idle counts a normal task as SCHED_IDLE (as a miscounted idle-group
// switch would): sched_idle_cpu() says SCHED_IDLE-only while a normal task can run.
TEST(Catalogue, WakecountFiresOnAMiscountedIdleTask) {
  Harness h;
  h.busy();
  h.op(OpClass::placement, [&] { h.cfs().h_nr_idle = h.rq.nr_running; });
  const inv::Violation* v = find_violation(h.checker, Id::WAKECOUNT);
  ASSERT_NE(v, nullptr) << listing(h.checker);
  EXPECT_EQ(v->where, "sched_idle_rq");
}

// Clean twin: the same queue, h_nr_idle as the enqueues left it.
TEST(Catalogue, WakecountCleanTwinIdleCount) {
  Harness h;
  h.busy();
  h.op(OpClass::placement, [&] {});
  EXPECT_EQ(h.cfs().h_nr_idle, 0u);
  EXPECT_FALSE(has_violation(h.checker, Id::WAKECOUNT)) << listing(h.checker);
}

}  // namespace
}  // namespace eevdf

// ===========================================================================
// I-PLACE
// ===========================================================================

namespace eevdf {
namespace {

// The sleeper (saved lag > 0) is woken; place_entity() puts it 5000 virtual
// ns later than its saved lag says, as a placement that lost part of the lag
// (a dropped or mis-scaled lag·load term) would.
TEST(Catalogue, PlaceFiresWhenThePlacementLosesLag) {
  Harness h;
  h.with_sleeper();
  const int s = h.sleeper;
  h.wake(s);
  ASSERT_FALSE(has_violation(h.checker, Id::PLACE)) << listing(h.checker);
  h.op(OpClass::placement, [&] {
    shift_in_tree(h.cfs(), h.se(s), 5000);
    h.checker.on_placed(h.cfs(), h.se(s), h.se(s).vlag);
  });
  const inv::Violation* v = find_violation(h.checker, Id::PLACE);
  ASSERT_NE(v, nullptr) << listing(h.checker);
  EXPECT_EQ(v->where, "place_entity");
}

// Clean twin: the real wake-up; its lag once placed is the saved one (within
// the rounding the invariant allows), so the hook ran on a real placement.
TEST(Catalogue, PlaceCleanTwinRealWakeup) {
  Harness h;
  h.with_sleeper();
  const int s = h.sleeper;
  const s64 saved = h.se(s).vlag;
  ASSERT_GT(saved, 0);
  h.wake(s);
  EXPECT_FALSE(has_violation(h.checker, Id::PLACE)) << listing(h.checker);
  const inv::ExactAverage a = inv::exact_average(h.cfs());
  const i128 lag_times_w = a.sum - a.weight * static_cast<i128>(entity_key(h.cfs(), h.se(s)));
  EXPECT_LT(lag_times_w - a.weight * saved, 2 * a.weight);
  EXPECT_GT(lag_times_w - a.weight * saved, -2 * a.weight);
}

}  // namespace
}  // namespace eevdf

// ===========================================================================
// I-DL's fresh request
// ===========================================================================

namespace eevdf {
namespace {

// The sleeper wakes, but its deadline comes out a third of a slice ahead, as a
// wake-up that kept an old relative deadline would leave it (within one
// virtual slice: the bound of I-DL alone holds).
TEST(Catalogue, DeadlineFreshRequestFiresOnAShortenedRequest) {
  Harness h;
  h.with_sleeper();
  const int s = h.sleeper;
  h.op(OpClass::placement, [&] {
    EXPECT_EQ(h.rq.wake(s, false), Refusal::none);
    SchedEntity& se = h.se(s);
    dequeue_entity_rb(h.cfs(), se);
    se.deadline = se.vruntime + (se.deadline - se.vruntime) / 3;
    enqueue_entity_rb(h.cfs(), se);
  });
  const inv::Violation* v = find_violation(h.checker, Id::DL);
  ASSERT_NE(v, nullptr) << listing(h.checker);
  EXPECT_EQ(v->where, "place_entity (fresh request)");
}

// Clean twin: the real wake-up issues one virtual slice.
TEST(Catalogue, DeadlineFreshRequestCleanTwin) {
  Harness h;
  h.with_sleeper();
  const int s = h.sleeper;
  h.wake(s);
  EXPECT_FALSE(has_violation(h.checker, Id::DL)) << listing(h.checker);
  EXPECT_EQ(h.se(s).deadline - h.se(s).vruntime, h.se(s).slice);  // nice 0: the virtual slice is the slice
}

// `explain` says where each invariant runs: every one on the model and in
// lockstep, on the kernel's own code all but I-HLOAD (no tree has v7.3's flat
// runqueue), I-OVF there at two functions only (the model's shadow re-run on
// the tree's operands, kernelsrc/kernel_backend.cpp).
TEST(Catalogue, EveryInvariantSaysWhereItRuns) {
  for (std::size_t i = 0; i < inv::kIdCount; ++i) {
    const auto id = static_cast<Id>(i);
    const std::string_view where = inv::id_backends(id);
    EXPECT_EQ(where.substr(0, 5), "model") << inv::id_name(id);
    EXPECT_NE(where.find("lockstep"), std::string_view::npos) << inv::id_name(id);
    const bool on_kernel = where.find("kernel (") != std::string_view::npos;
    EXPECT_EQ(on_kernel, id != Id::HLOAD) << inv::id_name(id) << ": " << where;
  }
  EXPECT_NE(inv::id_backends(Id::OVF).find("reweight_entity() and place_entity() only"), std::string_view::npos);
}

}  // namespace
}  // namespace eevdf
