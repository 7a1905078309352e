// run_stateful_check (fuzz/rc_commands.hpp): RapidCheck's stateful check over
// the commands of fuzz/rc_commands.cpp, with the shrinking budget and the
// replay of a recorded shrink path.
#include "fuzz/rc_commands.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <exception>
#include <ostream>
#include <random>
#include <sstream>
#include <thread>
#include <unordered_map>
#include <variant>

#include <rapidcheck/detail/Configuration.h>
#include <rapidcheck/detail/TestListener.h>

#include "scenario/executor.hpp"
#include "scenario/scenario_print.hpp"
#include "invariants/ids.hpp"

namespace eevdf::fuzz {

using namespace scn;  // the scenario layer the engines drive


namespace {

using Clock = std::chrono::steady_clock;

struct CheckContext {
  std::shared_ptr<const RcSetup> setup;
  bool budget_enabled = true;
  Clock::duration budget{};
  std::chrono::milliseconds slow{0};  // CheckConfig::slow_shrink
  std::optional<Clock::time_point> deadline;  // set at the first failure
  bool budget_hit = false;

  // The last failing evaluation: RapidCheck accepts every failing shrink, so
  // this is the smallest failure so far and, at the end, the counterexample.
  // Recognised by content (key()), not by pointers: RapidCheck regenerates the
  // commands of an unshrunk case each time it evaluates it.
  std::string best_key;
  Scenario best_scenario;
  std::string best_failure;
  std::string best_id;

  long long commands = 0, executed = 0, skipped = 0;
};

class Listener final : public rc::detail::TestListener {
 public:
  void onTestCaseFinished(const rc::detail::CaseDescription&) override { ++cases; }
  void onShrinkTried(const rc::detail::CaseDescription&, bool accepted) override {
    ++tried;
    if (accepted) ++accepted_;
  }
  void onTestFinished(const rc::detail::TestMetadata&, const rc::detail::TestResult&) override {}
  int cases = 0, tried = 0, accepted_ = 0;
};

constexpr const char* kTestId = "eevdf-check stateful";

// A command sequence's identity: the shown commands, which carry every
// parameter a command has.
std::string key(const RcCommands& cmds) {
  std::ostringstream os;
  for (const auto& c : cmds) {
    c->show(os);
    os << '\n';
  }
  return os.str();
}

// The property: generate a command sequence, run it on a fresh system.
void evaluate(CheckContext& ctx) {
  const RcModel initial{ctx.setup};
  const RcCommands cmds = *rc::state::gen::commands(initial, [](const RcModel& m) { return gen_rc_command(m); });
  if (ctx.deadline && Clock::now() >= *ctx.deadline) {
    // Shrinking budget spent: run nothing more. The best failure fails again
    // as it did (the model is deterministic); every other candidate passes,
    // so RapidCheck accepts no further shrink.
    ctx.budget_hit = true;
    if (key(cmds) == ctx.best_key) RC_FAIL(ctx.best_failure);
    return;
  }
  if (ctx.deadline && ctx.slow.count() > 0) std::this_thread::sleep_for(ctx.slow);
  RcSystem sut(ctx.setup);
  auto account = [&] {
    ctx.commands += sut.commands;
    ctx.skipped += sut.skipped;
    ctx.executed += sut.commands - sut.skipped;
  };
  try {
    rc::state::runAll(cmds, initial, sut);
  } catch (...) {
    account();
    if (sut.failed) {
      if (ctx.budget_enabled && !ctx.deadline) ctx.deadline = Clock::now() + ctx.budget;
      ctx.best_key = key(cmds);
      ctx.best_scenario = sut.scenario();
      ctx.best_failure = sut.failure;
      ctx.best_id = sut.failure_id;
    }
    throw;
  }
  account();
}

}  // namespace

CheckOutcome run_stateful_check(const CheckConfig& config) {
  const auto start = Clock::now();
  CheckOutcome out;
  auto finish = [&]() -> CheckOutcome {
    out.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return std::move(out);
  };

  std::string error;
  auto base_setup = make_rc_setup(config.profile, error);
  if (!base_setup) {
    out.message = error;
    return finish();
  }
  auto group_setup = std::make_shared<RcSetup>(*base_setup);
  group_setup->groups = config.groups;
  group_setup->rt = config.rt;
  group_setup->runqueues = config.runqueues;
  group_setup->header.runqueues = config.runqueues;
  group_setup->backend = config.backend;
  if (config.backend != Backend::model) {
    if (!kernelsrc::available() || config.backend != Backend::lockstep) {
      out.message = config.backend != Backend::lockstep ? "check drives the kernel backend in lockstep only (--lockstep)"
                                                        : "this build has no kernel backend";
      return finish();
    }
    if (std::string why = kernelsrc::refusal(config.profile, config.runqueues); !why.empty()) {
      out.message = why;
      return finish();
    }
  }
  if (std::string why = runqueues_refusal(config.profile.name, config.runqueues); !why.empty()) {
    out.message = why;
    return finish();
  }
  const std::shared_ptr<const RcSetup> setup = group_setup;
  if (config.cases < 1 || config.max_ops < 1) {
    out.message = "cases and max_ops must be at least 1";
    return finish();
  }

  std::unordered_map<std::string, rc::detail::Reproduce> reproduce_map;
  if (!config.reproduce.empty()) {
    try {
      reproduce_map = rc::detail::configFromString(config.reproduce).reproduce;
    } catch (const std::exception& e) {
      out.message = fmt::format("bad reproduce string: {}", e.what());
      return finish();
    }
    if (reproduce_map.find(kTestId) == reproduce_map.end()) {
      out.message = "bad reproduce string: it does not name this check (expected the string a failed check printed)";
      return finish();
    }
  }

  auto ctx = std::make_shared<CheckContext>();
  ctx->setup = setup;
  ctx->budget_enabled = reproduce_map.empty();
  ctx->budget = std::chrono::duration_cast<Clock::duration>(config.shrink_budget);
  ctx->slow = config.slow_shrink;

  rc::detail::TestParams params;
  if (config.seed != 0) {
    params.seed = config.seed;
  } else {
    std::random_device rd;
    params.seed = (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
    if (params.seed == 0) params.seed = 1;
  }
  params.maxSuccess = config.cases;
  params.maxSize = config.max_ops - 1;  // a sequence has 1 .. size + 1 commands
  out.seed = params.seed;

  rc::detail::TestMetadata metadata;
  metadata.id = kTestId;
  metadata.description = kTestId;
  Listener listener;
  const auto property = rc::detail::toProperty([ctx] { evaluate(*ctx); });
  const rc::detail::TestResult result =
      rc::detail::checkProperty(property, metadata, params, listener, reproduce_map);

  out.cases_run = listener.cases;
  out.commands_run = ctx->commands;
  out.ops_executed = ctx->executed;
  out.ops_skipped = ctx->skipped;
  out.shrinks_tried = listener.tried;
  out.shrinks_accepted = listener.accepted_;
  out.shrink_budget_exhausted = ctx->budget_hit;

  rc::detail::SuccessResult success;
  rc::detail::FailureResult failure;
  rc::detail::GaveUpResult gave_up;
  rc::detail::Error rc_error;
  if (result.match(success)) {
    out.passed = true;
    if (!reproduce_map.empty()) {
      out.passed = false;
      out.message = "the reproduce string matched no test case";
    } else {
      out.message = fmt::format("OK, passed {} case(s) on profile {} (seed {})", success.numSuccess,
                                setup->profile.name, out.seed);
    }
  } else if (result.match(failure)) {
    rc::detail::Configuration rc_config;
    rc_config.testParams.seed = params.seed;
    rc_config.reproduce[kTestId] = failure.reproduce;
    out.reproduce = rc::detail::configToMinimalString(rc_config);
    if (ctx->best_scenario.ops.empty()) {
      // Not a system failure (e.g. an exception in the test machinery).
      out.message = "property failed without a counterexample: " + failure.description;
    } else {
      Scenario s = ctx->best_scenario;
      s.title = fmt::format("rapidcheck counterexample on profile {}: {} at operation {}", setup->profile.name,
                            ctx->best_id, s.ops.size());
      out.counterexample = std::move(s);
      out.message = fmt::format(
          "FAILED on profile {} (seed {}) after {} case(s) and {} shrink(s){}:\n{}", setup->profile.name, out.seed,
          reproduce_map.empty() ? failure.numSuccess + 1 : 0, out.shrinks_accepted,
          out.shrink_budget_exhausted ? fmt::format(", shrinking stopped by the {}s budget", config.shrink_budget.count())
                                      : std::string(),
          ctx->best_failure);
      // RapidCheck re-ran the counterexample last; it must have failed the same way.
      if (failure.description.find(ctx->best_failure) == std::string::npos)
        out.message += "warning: RapidCheck's final run of the counterexample did not fail the same way:\n" +
                       failure.description + "\n";
    }
  } else if (result.match(gave_up)) {
    out.message = "gave up: " + gave_up.description;
  } else if (result.match(rc_error)) {
    out.message = "rapidcheck error: " + rc_error.description;
  }
  return finish();
}

}  // namespace eevdf::fuzz

