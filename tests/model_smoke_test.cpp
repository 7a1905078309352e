#include <gtest/gtest.h>

#include "model/rq.hpp"

namespace eevdf {
namespace {

TEST(ModelSmoke, TwoTasksShareTheCpu) {
  Rq rq(*profile_by_name("mainline"));
  const int a = rq.create_task("A", 0, Policy::normal, 0);
  const int b = rq.create_task("B", 0, Policy::normal, 0);
  ASSERT_EQ(rq.wake(a, false), Refusal::none);
  ASSERT_EQ(rq.wake(b, false), Refusal::none);
  rq.run(100'000'000);
  EXPECT_FALSE(rq.oops);
  const u64 ra = rq.tasks[a].se.sum_exec_runtime;
  const u64 rb = rq.tasks[b].se.sum_exec_runtime;
  EXPECT_GT(ra, 40'000'000u);
  EXPECT_GT(rb, 40'000'000u);
}

}  // namespace
}  // namespace eevdf
