// Throughput of the model: operations per second of a deterministic
// pseudo-random mixed stream (wake, sleep, run of a few hundred µs, tick,
// schedule, yield, renice) on one runqueue with 4..256 tasks, mainline
// profile, no observer and no invariant checks.
//
// The stream is generated once, outside the timed loop, as intents: a kind,
// a random selector and an argument. The few state-dependent choices are
// resolved in O(1) when the operation runs, so that every operation is valid:
// sleep and yield act on rq.curr, wake picks one of the sleeping tasks (kept
// in a small array, swap-remove), and a kind that is impossible in the
// current state falls back to a tick. The Rq lives across iterations; nothing
// is allocated per operation.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "model/profile.hpp"
#include "model/rq.hpp"

namespace {

using eevdf::Refusal;
using eevdf::Rq;
using eevdf::u64;

enum class Kind : std::uint8_t { wake, sleep, run, tick, schedule, yield, renice };

struct Op {
  Kind kind;
  std::int8_t nice;   // renice
  std::uint32_t pick; // selector for wake / renice
  std::uint32_t ns;   // run length
};

constexpr std::size_t kStreamLen = std::size_t{1} << 16;
constexpr std::size_t kBatch = 1024;  // operations per benchmark iteration

std::vector<Op> make_stream(unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<Op> ops;
  ops.reserve(kStreamLen);
  for (std::size_t i = 0; i < kStreamLen; ++i) {
    Op op{};
    const unsigned r = rng() % 100;
    op.kind = r < 20   ? Kind::wake
              : r < 36 ? Kind::sleep
              : r < 60 ? Kind::run
              : r < 74 ? Kind::tick
              : r < 84 ? Kind::schedule
              : r < 93 ? Kind::yield
                       : Kind::renice;
    op.nice = static_cast<std::int8_t>(static_cast<int>(rng() % 40) - 20);
    op.pick = rng();
    op.ns = 100000 + rng() % 400001;  // 100 .. 500 µs
    ops.push_back(op);
  }
  return ops;
}

class Driver {
 public:
  explicit Driver(int ntasks) : rq_(*eevdf::profile_by_name("mainline")), n_(ntasks) {
    sleeping_.reserve(static_cast<std::size_t>(ntasks));
    for (int i = 0; i < ntasks; ++i) {
      const int id = rq_.create_task("t" + std::to_string(i), (i * 7) % 40 - 20, eevdf::Policy::normal, 0);
      rq_.wake(id, false);
    }
    rq_.schedule();
  }

  // Returns false if an entry point refused (an invalid operation slipped through).
  bool apply(const Op& op) {
    switch (op.kind) {
      case Kind::wake:
        if (sleeping_.empty()) return tick();
        {
          const std::size_t k = op.pick % sleeping_.size();
          const int id = sleeping_[k];
          sleeping_[k] = sleeping_.back();
          sleeping_.pop_back();
          return rq_.wake(id, false) == Refusal::none;
        }
      case Kind::sleep: {
        // Keep at least one task awake so that the CPU has work.
        if (rq_.curr < 0 || static_cast<int>(sleeping_.size()) >= n_ - 1) return tick();
        const int id = rq_.curr;
        if (rq_.sleep(id) != Refusal::none) return false;
        sleeping_.push_back(id);
        return true;
      }
      case Kind::run:
        rq_.run(op.ns);
        return true;
      case Kind::tick:
        return tick();
      case Kind::schedule:
        rq_.schedule();
        return true;
      case Kind::yield:
        if (rq_.curr < 0) return tick();
        return rq_.yield(rq_.curr) == Refusal::none;
      case Kind::renice:
        return rq_.set_nice(static_cast<int>(op.pick % static_cast<unsigned>(n_)), op.nice) == Refusal::none;
    }
    return false;
  }

  const Rq& rq() const { return rq_; }

 private:
  bool tick() {
    rq_.tick();
    return true;
  }
  Rq rq_;
  int n_;
  std::vector<int> sleeping_;
};

void BM_MixedStream(benchmark::State& state) {
  const int ntasks = static_cast<int>(state.range(0));
  const std::vector<Op> ops = make_stream(0xEEFD2026u);
  Driver driver(ntasks);
  std::size_t cursor = 0;
  bool ok = true;
  double queued_sum = 0;  // sampled once per batch: mean queue length
  for (auto _ : state) {
    for (std::size_t i = 0; i < kBatch; ++i) {
      ok &= driver.apply(ops[cursor]);
      cursor = (cursor + 1) & (kStreamLen - 1);
    }
    queued_sum += driver.rq().cfs.h_nr_runnable;
    benchmark::DoNotOptimize(driver.rq().clock_task);
  }
  if (!ok) state.SkipWithError("an entry point refused an operation");
  if (driver.rq().oops) state.SkipWithError("the modelled kernel oopsed");
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(kBatch));
  state.counters["runnable"] =
      state.iterations() ? queued_sum / static_cast<double>(state.iterations()) : 0.0;
}

BENCHMARK(BM_MixedStream)->ArgName("tasks")->Arg(4)->Arg(16)->Arg(64)->Arg(256);

}  // namespace

BENCHMARK_MAIN();
