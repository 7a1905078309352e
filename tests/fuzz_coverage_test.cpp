// State coverage of `eevdf-check fuzz` (fuzz/coverage.hpp).
#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <variant>

#include "scenario/bytes.hpp"
#include "fuzz/coverage.hpp"
#include "scenario/executor.hpp"
#include "scenario/scenario_parse.hpp"
#include "support/scenario_text.hpp"
#include "model/fair.hpp"
#include "model/profile.hpp"

namespace eevdf::fuzz {

using namespace scn;
namespace {

Scenario parse(std::string_view text) { return test::parse_ok(text, "test"); }

std::size_t run_with(StateCoverage& cov, const Scenario& s) {
  ExecOptions o;
  o.strict = false;
  o.observer = &cov;
  return static_cast<std::size_t>(execute(s, *profile_by_name("mainline"), o).executed);
}

TEST(StateCoverage, CountsDistinctFeaturesOnce) {
  auto cov = std::make_unique<StateCoverage>();
  const Scenario s = parse("task A\ntask B\nwake A\nwake B\nrun 3ms\nsleep A\nsleep A\nrun 2ms\n");
  run_with(*cov, s);
  const std::size_t first = cov->count();
  EXPECT_GE(first, 5u);     // create (idle, empty), wake, run with two queued, sleep, refused sleep ...
  EXPECT_LE(first, s.ops.size());
  run_with(*cov, s);        // the same states again: nothing new
  EXPECT_EQ(cov->count(), first);
  EXPECT_FALSE(cov->note(StateCoverage::feature(Rq(*profile_by_name("mainline")), OpKind::create, Refusal::none)));
}

TEST(StateCoverage, SeparatesTheParts) {
  const Profile p = *profile_by_name("mainline");
  Rq rq(p);
  std::set<std::size_t> seen;
  seen.insert(StateCoverage::feature(rq, OpKind::schedule, Refusal::none));
  seen.insert(StateCoverage::feature(rq, OpKind::tick, Refusal::none));            // other kind
  seen.insert(StateCoverage::feature(rq, OpKind::schedule, Refusal::no_such_task));  // other result
  const int a = rq.create_task("A", 0, Policy::normal, 0);
  ASSERT_EQ(rq.wake(a, false), Refusal::none);
  seen.insert(StateCoverage::feature(rq, OpKind::schedule, Refusal::none));  // one queued, idle, resched
  rq.schedule();
  seen.insert(StateCoverage::feature(rq, OpKind::schedule, Refusal::none));  // A on the CPU
  EXPECT_EQ(seen.size(), 5u);
  for (std::size_t f : seen) EXPECT_LT(f, StateCoverage::kFeatures);
}

// Every part of the feature, recomputed here independently (the delayed
// entities by a scan of the tasks, not from the queue's counters), after each
// of many random entry-point calls.
TEST(StateCoverage, FeatureIsItsParts) {
  const Profile p = *profile_by_name("mainline");
  Rq rq(p);
  std::uint32_t x = 7;
  auto rnd = [&](std::uint32_t n) { return ((x = x * 1103515245u + 12345u) >> 16) % n; };
  std::set<std::size_t> curr_values, delayed_values, protect_values;
  for (int step = 0; step < 3000 && !rq.oops; ++step) {
    const int t = rq.tasks.empty() ? -1 : static_cast<int>(rnd(static_cast<std::uint32_t>(rq.tasks.size())));
    OpKind kind = OpKind::schedule;
    Refusal result = Refusal::none;
    switch (rnd(7)) {
      case 0:
        kind = OpKind::create;
        if (rq.tasks.size() < 8) rq.create_task("T", static_cast<int>(rnd(40)) - 20, Policy::normal, 0);
        break;
      case 1: kind = OpKind::wake; result = rq.wake(t, false); break;
      case 2: kind = OpKind::sleep; result = rq.sleep(rq.curr); break;
      case 3: kind = OpKind::run; rq.run(1'000'000 + rnd(3'000'000)); break;
      case 4: kind = OpKind::nice; result = rq.set_nice(t, static_cast<int>(rnd(40)) - 20); break;
      case 5: kind = OpKind::yield; result = rq.yield(rq.curr); break;
      default: rq.schedule(); break;
    }
    StateCoverage::Parts want{};
    want.kind = static_cast<std::size_t>(kind);
    want.result = static_cast<std::size_t>(result);
    const SchedEntity* curr = rq.cfs.curr;
    want.curr = !curr ? 0 : curr->on_rq && vruntime_eligible(rq.cfs, curr->vruntime, null_observer()) ? 1 : 2;
    want.queued = std::min<std::size_t>(rq.cfs.nr_queued, 4);
    std::size_t delayed = 0;
    for (const Task& task : rq.tasks) delayed += task.se.on_rq && task.se.sched_delayed;
    want.delayed = std::min<std::size_t>(delayed, 2);
    want.protect = curr && curr->on_rq && vruntime_diff(curr->vprot, curr->vruntime) > 0;
    want.resched = rq.need_resched;
    const std::size_t f = StateCoverage::feature(rq, kind, result);
    ASSERT_LT(f, StateCoverage::kFeatures);
    ASSERT_TRUE(StateCoverage::parts(f) == want) << "step " << step;
    curr_values.insert(want.curr);
    delayed_values.insert(want.delayed);
    protect_values.insert(want.protect);
  }
  EXPECT_EQ(curr_values.size(), 3u);  // the walk reached every value of these parts
  EXPECT_EQ(delayed_values.size(), 3u);
  EXPECT_EQ(protect_values.size(), 2u);
}

TEST(StateCoverage, RandomInputsStayInRange) {
  const Profile p = *profile_by_name("mainline");
  auto cov = std::make_unique<StateCoverage>();
  std::vector<std::uint8_t> b(300);
  std::uint32_t x = 12345;
  for (int run = 0; run < 200; ++run) {
    for (auto& c : b) c = static_cast<std::uint8_t>((x = x * 1103515245u + 12345u) >> 24);
    b[0] = kBytesFormatVersion;
    ExecOptions o;
    o.strict = false;
    o.observer = cov.get();
    execute(decode_bytes(b), p, o);
  }
  EXPECT_GT(cov->count(), 100u);
  EXPECT_LT(cov->count(), StateCoverage::kFeatures);
}

}  // namespace
}  // namespace eevdf::fuzz
