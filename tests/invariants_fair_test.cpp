// I-FAIR: with every task runnable for a long stretch, each task's service
// stays within n·(max_slice + TICK_NSEC) of its weighted share (n tasks). The property
// runs random task sets; MeasuredBound prints the worst ratio measured on a
// fixed grid (the derivation is in `eevdf-check explain I-FAIR`).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cstdio>

#include "scenario/executor.hpp"
#include "scenario/scenario_print.hpp"
#include "invariants/checker.hpp"
#include "support/random_ops.hpp"

namespace eevdf {
namespace {

// n tasks, all woken, then only time passes (run, tick, schedule).
rc::Gen<scn::Scenario> gen_always_runnable() {
  using scn::Op;
  using scn::OpKind;
  return rc::gen::mapcat(rc::gen::inRange(2, 9), [](int n) {
    auto create = rc::gen::map(rc::gen::tuple(rc::gen::inRange(-20, 20), testing::gen_slice()), [](auto t) {
      Op o;
      o.kind = OpKind::create;
      o.value = std::get<0>(t);
      o.slice = std::get<1>(t);
      return o;
    });
    auto time_op = rc::gen::oneOf(
        rc::gen::map(rc::gen::inRange<s64>(1000, 50'000'000), [](s64 d) { Op o; o.kind = OpKind::run; o.value = d; return o; }),
        rc::gen::just([] { Op o; o.kind = OpKind::tick; return o; }()),
        rc::gen::just([] { Op o; o.kind = OpKind::schedule; return o; }()));
    return rc::gen::map(
        rc::gen::tuple(rc::gen::container<std::vector<Op>>(static_cast<std::size_t>(n), create),
                       rc::gen::resize(60, rc::gen::container<std::vector<Op>>(time_op))),
        [](auto t) {
          scn::Scenario s;
          auto& creates = std::get<0>(t);
          for (std::size_t i = 0; i < creates.size(); ++i) {
            creates[i].task = "T" + std::to_string(i);
            s.ops.push_back(creates[i]);
          }
          for (std::size_t i = 0; i < creates.size(); ++i) {
            Op w;
            w.kind = OpKind::wake;
            w.task = creates[i].task;
            s.ops.push_back(w);
          }
          for (auto& op : std::get<1>(t)) s.ops.push_back(op);
          return s;
        });
  });
}

RC_GTEST_PROP(InvariantFair, ServiceStaysWithinTheLagBound, ()) {
  const auto s = *gen_always_runnable();
  const Profile profile = *profile_by_name("mainline");
  scn::ExecOptions options;
  options.strict = false;
  const auto r = scn::execute(s, profile, options);
  if (!r.violations.empty()) {
    std::string out = scn::print_scenario(s);
    for (const auto& v : r.violations) out += inv::format_violation(v, "", profile.name);
    RC_FAIL(out);
  }
}

// Measures the worst ratio over a fixed set of long runs and prints it.
TEST(InvariantFair, MeasuredBound) {
  const Profile profile = *profile_by_name("mainline");
  double worst = 0;
  for (int nice_spread = 0; nice_spread <= 39; nice_spread += 13) {
    for (u64 custom : {u64{0}, u64{100000}, u64{20000000}}) {
      Rq rq(profile);
      inv::Checker checker;
      checker.attach(rq);
      int op = 0;
      for (int i = 0; i < 6; ++i) {
        checker.begin_op(op++, inv::OpClass::placement);
        rq.create_task("T" + std::to_string(i), -20 + (i * nice_spread) % 40, Policy::normal, i % 2 ? custom : 0);
        checker.end_op();
      }
      for (int i = 0; i < 6; ++i) {
        checker.begin_op(op++, inv::OpClass::placement);
        ASSERT_EQ(rq.wake(i, false), Refusal::none);
        checker.end_op();
      }
      for (int step = 0; step < 400; ++step) {
        checker.begin_op(op++, inv::OpClass::running);
        rq.run(1'234'567 + static_cast<u64>(step % 7) * 1'000'000);
        checker.end_op();
      }
      for (const auto& v : checker.violations()) ADD_FAILURE() << inv::format_violation(v, "run", profile.name);
      worst = std::max(worst, checker.fairness_worst_ratio());
    }
  }
  std::printf("I-FAIR measured worst |service - share| = %.3f x (max_slice + TICK_NSEC); bound n = 6\n", worst);
  EXPECT_GT(worst, 0.0);  // the measurement saw unequal service at some point
  EXPECT_LE(worst, 6.0);
}

// The check can fail: a task that is charged extra service breaks the bound.
TEST(InvariantFair, ReportsAStarvedTask) {
  const Profile profile = *profile_by_name("mainline");
  Rq rq(profile);
  inv::Checker checker;
  checker.attach(rq);
  int op = 0;
  for (int i = 0; i < 2; ++i) {
    checker.begin_op(op++, inv::OpClass::placement);
    rq.create_task(i ? "B" : "A", 0, Policy::normal, 0);
    rq.wake(i, false);
    checker.end_op();
  }
  checker.begin_op(op++, inv::OpClass::running);
  rq.run(10'000'000);
  checker.end_op();
  ASSERT_FALSE(checker.violated());
  // test-only corruption: A is credited 50 ms it never ran
  checker.begin_op(op++, inv::OpClass::running);
  rq.tasks[0].se.sum_exec_runtime += 50'000'000;
  checker.end_op();
  bool fair = false;
  for (const auto& v : checker.violations()) fair = fair || v.id == inv::Id::FAIR;
  EXPECT_TRUE(fair);
}

}  // namespace
}  // namespace eevdf
