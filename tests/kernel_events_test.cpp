// The kernel backend's events of the tree's own functions (kernelsrc/glue.c
// wraps place_entity(), enqueue_entity() and pick_eevdf()): an observer of the
// mirror hears them at the moment they describe, with the mirror refreshed to it.
#include <gtest/gtest.h>

#include <vector>

#include "kernelsrc/kernel_backend.hpp"
#include "model/profile.hpp"
#include "support/kernel_tree.hpp"

namespace eevdf::kernelsrc {
namespace {

struct Recorder : Observer {
  struct Placed {
    int task;
    s64 saved_lag;
    bool on_rq;
    u64 vruntime;
  };
  std::vector<Placed> placed;
  std::vector<int> picks;
  bool pick_protected = true, pick_by_schedule = true, picked_queued = true;
  void on_placed(const CfsRq&, const SchedEntity& se, s64 saved_lag) override {
    placed.push_back({se.task_id, saved_lag, se.on_rq, se.vruntime});
  }
  void on_pick(const CfsRq& q, const SchedEntity* result, bool protect, PickCaller caller) override {
    picks.push_back(result ? result->task_id : -1);
    pick_protected = pick_protected && protect;
    pick_by_schedule = pick_by_schedule && caller == PickCaller::schedule;
    // the answer is one of the queue's entities as the pick saw them
    picked_queued = picked_queued && result && result->on_rq && result->cfs_rq == &q;
  }
};

TEST(KernelEvents, PlacementAndPickOfTheTreesOwnFunctions) {
  if (!available()) GTEST_SKIP() << "no kernel backend in this build";
  Profile p = *profile_by_name(test::kernel_tree_is("6.12.") ? "v6.12.118" : test::kernel_tree_is("6.18.") ? "v6.18" : "v7.0");
  // a sleeper is dequeued at once (not delayed), its lag saved
  ASSERT_EQ(apply_features(p, "NO_DELAY_DEQUEUE"), "");
  KernelBackend kb(p);
  Recorder rec;
  Rq& rq = kb.state().rq(0);
  rq.set_observer(&rec);
  const int a = kb.create_task("A", 0, Policy::normal, 0, -1);
  const int b = kb.create_task("B", 0, Policy::normal, 0, -1);
  const int c = kb.create_task("C", 5, Policy::normal, 0, -1);
  for (int t : {a, b, c}) ASSERT_EQ(kb.wake(t, false, -1), Refusal::none);
  // A joined an empty queue (no lag is used: no event); B and C joined A with a new task's lag, 0
  ASSERT_EQ(rec.placed.size(), 2u);
  EXPECT_EQ(rec.placed[0].task, b);
  EXPECT_EQ(rec.placed[1].task, c);
  EXPECT_EQ(rec.placed[1].saved_lag, 0);
  kb.run(7'300'000);
  EXPECT_FALSE(rec.picks.empty());
  EXPECT_TRUE(rec.pick_protected);
  EXPECT_TRUE(rec.pick_by_schedule);
  EXPECT_TRUE(rec.picked_queued);
  // the running task sleeps: its lag is saved; it wakes while the others run
  const int sleeper = rq.curr;
  ASSERT_GE(sleeper, 0);
  ASSERT_EQ(kb.sleep(sleeper), Refusal::none);
  kb.run(2'000'000);
  const SchedEntity& se = rq.tasks[static_cast<std::size_t>(sleeper)].se;
  ASSERT_FALSE(se.on_rq);
  const s64 saved = se.vlag;
  ASSERT_NE(saved, 0) << "a zero lag would not tell the saved lag from none";
  rec.placed.clear();
  ASSERT_EQ(kb.wake(sleeper, false, -1), Refusal::none);
  ASSERT_EQ(rec.placed.size(), 1u);
  EXPECT_EQ(rec.placed[0].task, sleeper);
  EXPECT_EQ(rec.placed[0].saved_lag, saved);
  EXPECT_TRUE(rec.placed[0].on_rq);  // told once it counts in V, as the model's on_placed()
}

TEST(KernelEvents, NoObserverNoEvent) {
  if (!available()) GTEST_SKIP() << "no kernel backend in this build";
  const Profile p = *profile_by_name(test::kernel_tree_is("6.12.") ? "v6.12.118" : test::kernel_tree_is("6.18.") ? "v6.18" : "v7.0");
  KernelBackend kb(p);
  Recorder rec;
  Rq& rq = kb.state().rq(0);
  const int a = kb.create_task("A", 0, Policy::normal, 0, -1);
  const int b = kb.create_task("B", 0, Policy::normal, 0, -1);
  ASSERT_EQ(kb.wake(a, false, -1), Refusal::none);
  ASSERT_EQ(kb.wake(b, false, -1), Refusal::none);
  kb.run(3'000'000);  // picks and placements with the mirror's null observer: nothing to hear, nothing breaks
  rq.set_observer(&rec);
  kb.run(3'000'000);
  EXPECT_FALSE(rec.picks.empty());
  EXPECT_TRUE(rec.placed.empty());  // nobody was placed in these 3 ms
}

}  // namespace
}  // namespace eevdf::kernelsrc
