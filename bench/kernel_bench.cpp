// The kernel backend beside the model on the same operation stream, in one
// run (docs/kernel-backend.md): operations per second of the model's System and
// of 6.12.118's own fair.c (kernelsrc/), both unchecked. The kernel backend's
// figure includes handing its state back in the model's types after every
// operation (KernelBackend::refresh), which every check and lockstep needs:
// BM_kernel the entities that changed, BM_kernel_full every entity.
//   ./build/bench/kernel_bench --benchmark_min_time=0.5
#include <benchmark/benchmark.h>

#include <random>
#include <string>
#include <vector>

#include "kernelsrc/kernel_backend.hpp"
#include "model/profile.hpp"
#include "model/system.hpp"

namespace {

using namespace eevdf;

enum class Kind { wake, sleep, run, tick, yield, renice };
struct Op {
  Kind kind;
  unsigned pick;
  int nice;
  u64 ns;
};

constexpr std::size_t kStreamLen = 1 << 14;

std::vector<Op> make_stream(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Op> ops;
  ops.reserve(kStreamLen);
  for (std::size_t i = 0; i < kStreamLen; ++i) {
    const unsigned r = static_cast<unsigned>(rng() % 100);
    const Kind k = r < 25 ? Kind::wake : r < 50 ? Kind::sleep : r < 75 ? Kind::run : r < 88 ? Kind::tick
                 : r < 95 ? Kind::yield : Kind::renice;
    ops.push_back({k, static_cast<unsigned>(rng()), static_cast<int>(rng() % 40) - 20, 1 + rng() % 4000000});
  }
  return ops;
}

// The model as a target with the kernel backend's entry points.
struct ModelTarget {
  explicit ModelTarget(const Profile& p) : sys(p, 1) {}
  System sys;
  int create_task(const std::string& n, int nice) { return sys.rq(0).create_task(n, nice, Policy::normal, 0, -1); }
  Refusal wake(int id) { return sys.wake(id, false, -1); }
  Refusal sleep(int id) { return sys.rq(0).sleep(id); }
  Refusal yield(int id) { return sys.rq(0).yield(id); }
  Refusal set_nice(int id, int nice) { return sys.rq(0).set_nice(id, nice); }
  void run(u64 ns) { sys.run(ns); }
  void tick() { sys.tick(); }
  void schedule() { sys.schedule(); }
  const Rq& rq() { return sys.rq(0); }
};

struct KernelTarget {
  explicit KernelTarget(const Profile& p) : kb(p) {}
  // BM_kernel_full: every entity copied back after every operation (as before
  // the incremental hand-back; KernelBackend::set_incremental_refresh())
  KernelTarget(const Profile& p, bool incremental) : kb(p) { kb.set_incremental_refresh(incremental); }
  kernelsrc::KernelBackend kb;
  int create_task(const std::string& n, int nice) { return kb.create_task(n, nice, Policy::normal, 0, -1); }
  Refusal wake(int id) { return kb.wake(id, false, -1); }
  Refusal sleep(int id) { return kb.sleep(id); }
  Refusal yield(int id) { return kb.yield(id); }
  Refusal set_nice(int id, int nice) { return kb.set_nice(id, nice); }
  void run(u64 ns) { kb.run(ns); }
  void tick() { kb.tick(); }
  void schedule() { kb.schedule(); }
  const Rq& rq() { return kb.state().rq(0); }
};

template <class Target, class... Args>
void stream(benchmark::State& state, Args... args) {
  if (!kernelsrc::available()) {
    state.SkipWithError("this build has no kernel backend");
    return;
  }
  const int n = static_cast<int>(state.range(0));
  Target t(*profile_by_name("v6.12.118"), args...);
  std::vector<int> sleeping;
  for (int i = 0; i < n; ++i) t.wake(t.create_task("t" + std::to_string(i), (i * 7) % 40 - 20));
  t.schedule();
  const std::vector<Op> ops = make_stream(42);
  std::size_t cursor = 0;
  bool ok = true;
  for (auto _ : state) {
    const Op& op = ops[cursor];
    cursor = (cursor + 1) & (kStreamLen - 1);
    const int curr = t.rq().curr;
    switch (op.kind) {
      case Kind::wake:
        if (sleeping.empty()) {
          t.tick();
        } else {
          const std::size_t k = op.pick % sleeping.size();
          ok &= t.wake(sleeping[k]) == Refusal::none;
          sleeping[k] = sleeping.back();
          sleeping.pop_back();
        }
        break;
      case Kind::sleep:
        if (curr < 0 || static_cast<int>(sleeping.size()) >= n - 1) {
          t.tick();
        } else {
          ok &= t.sleep(curr) == Refusal::none;
          sleeping.push_back(curr);
        }
        break;
      case Kind::run: t.run(op.ns); break;
      case Kind::tick: t.tick(); break;
      case Kind::yield:
        if (curr >= 0) ok &= t.yield(curr) == Refusal::none;
        break;
      case Kind::renice:
        ok &= t.set_nice(static_cast<int>(op.pick % static_cast<unsigned>(n)), op.nice) == Refusal::none;
        break;
    }
  }
  if (!ok) state.SkipWithError("an entry point refused an operation");
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}

void BM_model(benchmark::State& state) { stream<ModelTarget>(state); }
void BM_kernel(benchmark::State& state) { stream<KernelTarget>(state); }
void BM_kernel_full(benchmark::State& state) { stream<KernelTarget>(state, false); }
BENCHMARK(BM_model)->ArgName("tasks")->Arg(4)->Arg(16)->Arg(64);
BENCHMARK(BM_kernel)->ArgName("tasks")->Arg(4)->Arg(16)->Arg(64);
BENCHMARK(BM_kernel_full)->ArgName("tasks")->Arg(4)->Arg(16)->Arg(64);

}  // namespace

BENCHMARK_MAIN();
