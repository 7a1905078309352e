// The checker on the kernel's own code judges as it judges the model: for
// generated inputs, the kernel backend (the tree's fair.c, its events sent by
// kernelsrc/glue.c's wrappers of the tree's functions) raises the same
// violations, invariant, operation and site, as the model of the tree's
// profile. Lockstep shows the two states equal after every operation; this
// shows the oracle sees the same moments inside them. I-OVF runs on both
// sides: on the kernel's code the model's shadow of reweight_entity() and
// place_entity() only, so the generated inputs, which overflow nowhere on these
// trees, show that the shadow raises nothing false (their count is printed).
//
// EEVDF_PARITY_RUNS=N sets the number of inputs of each test, EEVDF_PARITY_WHAT=1
// prints each violation's text, EEVDF_PARITY_DUMP=DIR writes a differing input
// as a file `eevdf-check replay` takes.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "kernelsrc/kernel_backend.hpp"
#include "scenario/bytes.hpp"
#include "scenario/executor.hpp"
#include "scenario/scenario_print.hpp"
#include "support/kernel_tree.hpp"

namespace eevdf {
namespace {

std::string tree_profile() {
  if (test::kernel_tree_is("6.12.")) return "v6.12.118";
  if (test::kernel_tree_is("6.18.")) return "v6.18";
  if (test::kernel_tree_is("6.6.")) return kernelsrc::judge();  // v6.6 on 6.6.0, v6.6.9 on 6.6.9
  return "v7.0";
}

std::vector<std::string> summary(const scn::ExecResult& r) {
  std::vector<std::string> out;
  for (const inv::Violation& v : r.violations)
    out.push_back(std::string(inv::id_name(v.id)) + " at " + std::to_string(v.op_index) + " in " + v.where +
                  (std::getenv("EEVDF_PARITY_WHAT") ? ": " + v.what : std::string()));
  if (r.oops) out.push_back("oops");
  return out;
}

// Inputs of byte format `format` on `runqueues` CPUs (formats 3 on: a
// runqueue byte), every CPU checked after every operation on both sides.
void expect_parity(std::uint8_t first_format, std::uint8_t formats, unsigned runqueues, std::uint64_t default_runs,
                   unsigned smt = 1, const char* features = "", bool skip_aug = false) {
  std::string error;
  scn::ProfileOverride o;
  o.profile = tree_profile();
  o.features = features;
  // Several CPUs, default features: a wake-up without a CPU is chosen by the
  // model and by the tree's select_task_rq_fair(), and refused by both where
  // it would read PELT (WA_WEIGHT, SIS_UTIL's budget).
  const auto profile = scn::build_profile(o, error);
  ASSERT_TRUE(profile) << error;
  const char* env = std::getenv("EEVDF_PARITY_RUNS");
  const std::uint64_t runs = env ? std::strtoull(env, nullptr, 10) : default_runs;
  scn::ExecOptions model;
  model.strict = false;
  model.keep_going = true;
  if (skip_aug) model.selection.set(inv::Id::AUG, false);
  // and I-PELT on a tree that keeps no PELT (6.12.118, built !CONFIG_SMP)
  if (!kernelsrc::smp()) model.selection.set(inv::Id::PELT, false);
  model.sweep_period = 1;
  scn::ExecOptions kernel = model;
  kernel.backend = scn::Backend::kernel;
  std::mt19937_64 rng(runqueues);
  std::vector<std::uint8_t> bytes;
  std::uint64_t with_violations = 0, mismatches = 0, wakepick = 0, overflows = 0;
  for (std::uint64_t run = 0; run < runs; ++run) {
    bytes.resize(8 + rng() % 300);
    for (auto& b : bytes) b = static_cast<std::uint8_t>(rng());
    bytes[0] = static_cast<std::uint8_t>(first_format + run % formats);
    if (scn::bytes_header_size(bytes.data(), bytes.size()) == 2) bytes[1] = scn::bytes_runqueue_byte(runqueues);
    scn::Scenario s = scn::decode_bytes(bytes.data(), bytes.size());
    s.smt = smt;  // as fuzz --smt N
    const scn::ExecResult m = scn::execute(s, *profile, model);
    const scn::ExecResult k = scn::execute(s, *profile, kernel);
    ASSERT_TRUE(m.error.empty() && k.error.empty()) << m.error << k.error;
    ASSERT_EQ(m.executed, k.executed) << "run " << run;
    const auto ms = summary(m), ks = summary(k);
    with_violations += !ms.empty();
    for (const inv::Violation& v : m.violations) {
      wakepick += v.id == inv::Id::WAKEPICK;
      overflows += v.id == inv::Id::OVF;
    }
    if (ms == ks) continue;
    ++mismatches;
    // the first difference, and what each side raised from there
    std::size_t at = 0;
    while (at < ms.size() && at < ks.size() && ms[at] == ks[at]) ++at;
    std::string text = "run " + std::to_string(run) + " (" + std::to_string(ms.size()) + " and " + std::to_string(ks.size()) + " violations): the same first " + std::to_string(at) + ", then model";
    for (std::size_t i = at; i < ms.size() && i < at + 4; ++i) text += "\n  " + ms[i];
    text += "\nkernel";
    for (std::size_t i = at; i < ks.size() && i < at + 4; ++i) text += "\n  " + ks[i];
    // the states: lockstep of the same input (no checker)
    scn::ExecOptions lockstep = model;
    lockstep.backend = scn::Backend::lockstep;
    lockstep.check = false;
    const scn::ExecResult l = scn::execute(s, *profile, lockstep);
    text += l.divergence ? "\nlockstep diverges at operation " + std::to_string(l.divergence->op_index) + ", " +
                               l.divergence->field + ": model " + l.divergence->model + ", kernel " +
                               l.divergence->kernel
                         : "\nlockstep: the states agree after every operation";
    // EEVDF_PARITY_DUMP=DIR: the input as a file `eevdf-check replay` takes
    if (const char* dir = std::getenv("EEVDF_PARITY_DUMP")) {
      const std::string path = std::string(dir) + "/parity-" + std::to_string(runqueues) + "-" + std::to_string(run);
      if (std::FILE* f = std::fopen(path.c_str(), "wb")) {
        std::fwrite(bytes.data(), 1, bytes.size(), f);
        std::fclose(f);
        text += "\nwritten to " + path;
      }
    }
    ADD_FAILURE() << text << "\n" << scn::print_scenario(s);
    if (mismatches >= 3) break;
  }
  std::printf("parity on %s%s%s%s, %u runqueue(s), smt %u: %llu inputs, %llu with violations (%llu I-WAKEPICK, "
              "%llu I-OVF), %llu differing\n",
              profile->name.c_str(), *features ? " " : "", features, skip_aug ? " without I-AUG" : "", runqueues, smt,
              static_cast<unsigned long long>(runs), static_cast<unsigned long long>(with_violations),
              static_cast<unsigned long long>(wakepick), static_cast<unsigned long long>(overflows),
              static_cast<unsigned long long>(mismatches));
  // the inputs must raise violations, or the comparison shows nothing (fewer
  // without the stale augments, which most inputs reach)
  EXPECT_GT(with_violations, runs / (skip_aug ? 50 : 20));
}

TEST(KernelOracleParity, OneCpu) {
  if (!kernelsrc::available()) GTEST_SKIP() << "no kernel backend in this build";
  expect_parity(1, 2, 1, 2000);  // format 1: tasks; 2: task groups too
}

// NEXT_BUDDY (off by default): the buddy set by the wake-up decision, and on
// 7.0 its sync shortcut (preempt_sync()), for I-WAKEPICK's reasons
TEST(KernelOracleParity, OneCpuNextBuddy) {
  if (!kernelsrc::available()) GTEST_SKIP() << "no kernel backend in this build";
  expect_parity(1, 2, 1, 1000, 1, "NEXT_BUDDY");
}

// Without I-AUG: 7.0.0's stale max_slice augment (the v7.0 profile's expected
// finding) fires at almost every operation, and a run keeps at most
// inv::Checker::kMaxViolations violations, so with it on 7.0 compares little
// else; the stale min_slice of 6.12.118 and 6.18.0 less often.
TEST(KernelOracleParity, OneCpuWithoutAug) {
  if (!kernelsrc::available()) GTEST_SKIP() << "no kernel backend in this build";
  expect_parity(1, 2, 1, 2000, 1, "", true);
  expect_parity(1, 2, 1, 1000, 1, "NEXT_BUDDY", true);
}

TEST(KernelOracleParity, TwoCpus) {
  if (!kernelsrc::available() || !kernelsrc::smp()) GTEST_SKIP() << "no kernel backend on several CPUs in this build";
  expect_parity(3, 2, 2, 1000);  // formats 3 and 4: runqueue byte, groups
}

TEST(KernelOracleParity, TwoCpusFanOut) {
  if (!kernelsrc::available() || !kernelsrc::smp()) GTEST_SKIP() << "no kernel backend on several CPUs in this build";
  expect_parity(8, 1, 2, 500);  // format 8: fan-out wakes and sleeps, many wake-up CPU choices
}

TEST(KernelOracleParity, FourCpusSmtPairs) {
  if (!kernelsrc::available() || !kernelsrc::smp()) GTEST_SKIP() << "no kernel backend on several CPUs in this build";
  expect_parity(8, 1, 4, 500, 2);  // two cores of two siblings, fan-out wakes
}

TEST(KernelOracleParity, FourCpus) {
  if (!kernelsrc::available() || !kernelsrc::smp()) GTEST_SKIP() << "no kernel backend on several CPUs in this build";
  expect_parity(3, 2, 4, 500);
}

}  // namespace
}  // namespace eevdf
