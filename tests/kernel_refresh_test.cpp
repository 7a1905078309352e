// The kernel backend hands its state back incrementally (KernelBackend::refresh():
// only the entities whose struct sched_entity the kernel changed are copied).
// The mirror must be the one a full copy gives, after every entry point and at
// every event of the tree's own functions (where a checker listens, and the
// overflow shadow runs the model's functions on the mirror).
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "invariants/checker.hpp"
#include "kernelsrc/kernel_backend.hpp"
#include "model/profile.hpp"
#include "model/system.hpp"

namespace eevdf::kernelsrc {
namespace {

// An entity by what it is, not where it lives: a task id, or a group's id and CPU.
std::int64_t entity_id(const SchedEntity* se) {
  if (!se) return -1;
  if (se->task_id >= 0) return se->task_id;
  return 100000 + 1000 * static_cast<std::int64_t>(se->my_q ? se->my_q->rq->cpu : 99) + se->group_id;
}

std::int64_t queue_id(const CfsRq* q) {
  if (!q) return -1;
  return 1000 * static_cast<std::int64_t>(q->rq->cpu) + q->group_id;
}

// Every field refresh() copies into the mirror, as numbers.
void entity_fields(const SchedEntity& se, std::vector<std::int64_t>& out) {
  for (u64 v : {se.load.weight, u64{se.load.inv_weight}, se.deadline, se.min_vruntime, se.min_slice, se.min_deadline,
                se.exec_start, se.sum_exec_runtime, se.prev_sum_exec_runtime, se.vruntime, as_u64(se.vlag), se.vprot,
                se.max_slice, se.slice, se.avg.last_update_time, se.avg.load_sum, se.avg.runnable_sum,
                u64{se.avg.util_sum}, u64{se.avg.period_contrib}, se.avg.load_avg, se.avg.runnable_avg,
                se.avg.util_avg, se.runnable_weight})
    out.push_back(static_cast<std::int64_t>(v));
  for (bool b : {se.on_rq, se.sched_delayed, se.rel_deadline, se.custom_slice, se.rb_red}) out.push_back(b);
  out.push_back(se.depth);
  out.push_back(queue_id(se.cfs_rq));
  for (const SchedEntity* p : {se.parent, se.rb_parent, se.rb_left, se.rb_right}) out.push_back(entity_id(p));
}

void queue_fields(const CfsRq& q, std::vector<std::int64_t>& out) {
  for (u64 v : {q.load.weight, u64{q.nr_queued}, u64{q.h_nr_queued}, u64{q.h_nr_runnable}, as_u64(q.sum_w_vruntime),
                q.sum_weight, q.zero_vruntime})
    out.push_back(static_cast<std::int64_t>(v));
  for (const SchedEntity* p : {q.tasks_timeline.root(), q.tasks_timeline.leftmost(), q.curr, q.next})
    out.push_back(entity_id(p));
}

std::vector<std::int64_t> mirror_fields(const System& sys) {
  std::vector<std::int64_t> out;
  for (const Task& t : sys.rq(0).tasks) {
    out.push_back(t.cpu);
    out.push_back(t.on_rq);
    entity_fields(t.se, out);
  }
  for (unsigned c = 0; c < sys.size(); ++c) {
    const Rq& rq = sys.rq(c);
    queue_fields(rq.cfs, out);
    for (const TaskGroupCpu& g : rq.groups) {
      entity_fields(g.se, out);
      queue_fields(g.cfs_rq, out);
    }
  }
  return out;
}

enum class Handback { full, marks_checked, marks };  // every entity; the marks, checked at every export; as shipped

// A random stream of operations with task groups, renices and group shares
// (and with several CPUs: wake-ups the tree places, migrations); a checker
// with every invariant listens when `checked` (events, overflow shadow).
// Returns the mirror's fields after every operation.
std::vector<std::vector<std::int64_t>> run_stream(Handback how, bool checked, unsigned cpus) {
  KernelBackend kb(*profile_by_name(judge()), cpus);
  kb.set_incremental_refresh(how != Handback::full);
  if (how == Handback::marks_checked) kb.set_handback_check_every(1);
  std::vector<std::unique_ptr<inv::Checker>> checkers;  // one a CPU, as the executor's
  if (checked)
    for (unsigned c = 0; c < cpus; ++c) {
      checkers.push_back(std::make_unique<inv::Checker>());
      checkers.back()->attach(kb.state().rq(c));
    }
  std::vector<std::vector<std::int64_t>> states;
  std::mt19937_64 rng(7 + cpus);
  const int groups = 3, tasks = 24;
  for (int g = 0; g < groups; ++g) kb.create_group("g" + std::to_string(g), g == 2 ? 0 : -1, 1024);
  for (int i = 0; i < tasks; ++i) {
    kb.create_task("t" + std::to_string(i), static_cast<int>(rng() % 40) - 20, Policy::normal, 0,
                   static_cast<int>(rng() % (groups + 1)) - 1);
    try {
      kb.wake(i, false, cpus > 1 ? static_cast<int>(rng() % cpus) : -1);
    } catch (const std::logic_error& e) {
      ADD_FAILURE() << "waking new task " << i << ", " << cpus << " CPUs" << (checked ? ", checked" : "") << ": " << e.what();
      return {};
    }
    states.push_back(mirror_fields(kb.state()));
  }
  static constexpr Policy kPolicies[] = {Policy::normal, Policy::batch, Policy::idle};
  for (int op = 0; op < 1500; ++op) {
    const unsigned cpu = static_cast<unsigned>(rng() % cpus);
    const Rq& rq = kb.state().rq(cpu);
    const int task = static_cast<int>(rng() % tasks);
    const unsigned kind = static_cast<unsigned>(rng() % 15);
    try {
    switch (kind) {
      case 0: kb.wake(task, rng() % 2 == 0, cpus > 1 && rng() % 2 ? kTreeChoosesCpu : -1, static_cast<int>(cpu)); break;
      case 1: if (rq.curr >= 0) kb.sleep(rq.curr); break;
      case 2: kb.run(1 + rng() % 3000000); break;
      case 3: kb.tick(); break;
      case 4: kb.schedule(); break;
      case 5: if (rq.curr >= 0) kb.yield(rq.curr); break;
      case 6: kb.set_nice(task, static_cast<int>(rng() % 40) - 20); break;
      case 7: kb.move_task(task, static_cast<int>(rng() % (groups + 1)) - 1); break;
      case 8: kb.set_group_shares(static_cast<int>(rng() % groups), 2 + rng() % 4000); break;
      case 9: kb.migrate(task, static_cast<int>(cpu)); break;
      case 10: kb.wake(task, false, -1); break;
      case 11: kb.tick_after(1 + rng() % 500000); break;
      case 12: kb.set_policy(task, kPolicies[rng() % 3]); break;
      case 13: kb.set_slice(task, rng() % 2 ? 0 : 100000 + rng() % 5000000); break;
      case 14: kb.tick_nopreempt(); break;
    }
    } catch (const std::logic_error& e) {
      ADD_FAILURE() << "operation " << op << " (kind " << kind << ", task " << task << ", CPU " << cpu << "), "
                    << cpus << " CPUs" << (checked ? ", checked" : "") << ": " << e.what();
      return {};
    }
    states.push_back(mirror_fields(kb.state()));
  }
  return states;
}

// The mirror after every operation, with the marks (checked at every export,
// so that a change no mark names throws) and as shipped, is the full copy's:
// one CPU and two, unchecked and with a checker listening (events mid-operation).
TEST(KernelRefresh, IncrementalMirrorIsTheFullOne) {
  if (!available()) GTEST_SKIP() << "no kernel backend in this build";
  for (unsigned cpus : {1u, 2u}) {
    if (cpus > 1 && !refusal(*profile_by_name(judge()), cpus).empty()) continue;
    for (bool checked : {false, true}) {
      const auto full = run_stream(Handback::full, checked, cpus);
      for (Handback how : {Handback::marks_checked, Handback::marks}) {
        const auto incremental = run_stream(how, checked, cpus);
        ASSERT_EQ(full.size(), incremental.size());
        for (std::size_t i = 0; i < full.size(); ++i)
          ASSERT_EQ(full[i], incremental[i]) << "the mirror differs after operation " << i << " with " << cpus
                                             << " CPUs" << (checked ? " (checked)" : " (unchecked)")
                                             << (how == Handback::marks ? ", marks as shipped" : ", marks checked");
      }
    }
  }
}

// A change of the kernel's state that no mark names is found by the check,
// which names the entity: at the next export when it checks every time, within
// K entry points when every K.
TEST(KernelRefresh, UnmarkedChangeIsCaught) {
  if (!available()) GTEST_SKIP() << "no kernel backend in this build";
  for (unsigned every : {1u, 3u}) {
    KernelBackend kb(*profile_by_name(judge()));
    kb.set_handback_check_every(every);
    for (int i = 0; i < 4; ++i) {
      kb.create_task("t" + std::to_string(i), 0, Policy::normal, 0, -1);
      kb.wake(i, false, -1);
    }
    kb.schedule();
    kb.run(1000000);
    const int curr = kb.state().rq(0).curr;
    const int victim = curr == 0 ? 1 : 0;  // queued, not running: no tick names it
    kb.test_write_unmarked(victim);
    std::string what;
    for (unsigned op = 0; op < every && what.empty(); ++op) {
      try {
        kb.tick_nopreempt();  // no switch: only curr is written
      } catch (const std::logic_error& e) {
        what = e.what();
      }
    }
    EXPECT_NE(what.find("task " + std::to_string(victim) + "'s struct sched_entity on CPU 0"), std::string::npos)
        << "checked every " << every << ": " << (what.empty() ? "not caught" : what);
  }
}

}  // namespace
}  // namespace eevdf::kernelsrc
