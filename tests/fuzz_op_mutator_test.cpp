#include <gtest/gtest.h>

#include <vector>

#include "scenario/bytes.hpp"
#include "fuzz/op_mutator.hpp"
#include "scenario/scenario_print.hpp"

namespace eevdf::fuzz {

using namespace scn;
namespace {

std::vector<std::uint8_t> seed_bytes() {
  // create, create, wake T0, wake T1, run 1ms, yield T0
  return {kBytesFormatVersion, 0, 20, 0, 0, 0, 20, 0, 0, 2, 0, 0, 2, 1, 0, 4, 5, 0, 0, 7, 0};
}

TEST(OpMutator, KeepsTheVersionByteAndTheCapacity) {
  for (unsigned seed = 0; seed < 2000; ++seed) {
    auto b = seed_bytes();
    const std::size_t max = 64;
    b.resize(max);
    const std::size_t n = mutate_ops(b.data(), seed_bytes().size(), max, seed);
    ASSERT_LE(n, max);
    ASSERT_GE(n, 1u);
    EXPECT_EQ(b[0], kBytesFormatVersion);
  }
}

TEST(OpMutator, ChangesWholeOperations) {
  const Scenario original = decode_bytes(seed_bytes());
  int changed_count = 0, same_ops_changed_args = 0;
  for (unsigned seed = 0; seed < 500; ++seed) {
    auto b = seed_bytes();
    b.resize(4096);
    b.resize(mutate_ops(b.data(), seed_bytes().size(), 4096, seed));
    const Scenario m = decode_bytes(b);
    if (m.ops.size() != original.ops.size()) ++changed_count;
    else if (!same_scenario(m, original)) ++same_ops_changed_args;
  }
  EXPECT_GT(changed_count, 100);        // inserts, deletes, duplicates
  EXPECT_GT(same_ops_changed_args, 50);  // swaps and argument mutations
}

TEST(OpMutator, IsDeterministicInTheSeed) {
  auto a = seed_bytes(), b = seed_bytes();
  a.resize(256);
  b.resize(256);
  const std::size_t na = mutate_ops(a.data(), seed_bytes().size(), 256, 77);
  const std::size_t nb = mutate_ops(b.data(), seed_bytes().size(), 256, 77);
  ASSERT_EQ(na, nb);
  EXPECT_TRUE(std::equal(a.begin(), a.begin() + static_cast<long>(na), b.begin()));
}

TEST(OpMutator, CrossOverSplicesOperationsOfBoth) {
  const auto a = seed_bytes();
  const std::vector<std::uint8_t> b = {kBytesFormatVersion, 6, 6, 6, 6, 6, 6};  // schedule x6
  bool saw_both = false;
  for (unsigned seed = 0; seed < 200; ++seed) {
    std::vector<std::uint8_t> out(512);
    out.resize(cross_over_ops(a.data(), a.size(), b.data(), b.size(), out.data(), out.size(), seed));
    const Scenario s = decode_bytes(out);
    bool has_create = false, has_schedule = false;
    for (const auto& op : s.ops) {
      has_create = has_create || op.kind == OpKind::create;
      has_schedule = has_schedule || op.kind == OpKind::schedule;
    }
    saw_both = saw_both || (has_create && has_schedule);
  }
  EXPECT_TRUE(saw_both);
}

}  // namespace
}  // namespace eevdf::fuzz
