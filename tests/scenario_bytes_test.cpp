// Scenario language: the byte format (decode, encode, their round trips).
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "scenario/bytes.hpp"
#include "scenario/scenario_parse.hpp"
#include "support/scenario_text.hpp"
#include "scenario/scenario_print.hpp"

namespace eevdf::scn {

// RapidCheck prints counterexamples through this.
inline void showValue(const Scenario& s, std::ostream& os) { os << "\n" << print_scenario(s); }

namespace {

using test::parse_ok;

Policy gen_policy() { return *rc::gen::element(Policy::normal, Policy::batch, Policy::idle); }

// ---------------------------------------------------------------- bytes

TEST(scenario_bytes, DecodesTheDocumentedFormat) {
  const std::vector<std::uint8_t> b = {
      1,                 // version
      0, 15, 1, 4,       // create T0 nice -5, batch, slice 3ms
      2, 0, 1,           // wake T0 sync
      4, 8, 0, 0,        // run 3ms
      4, 12, 0x01, 0x00, // run 256us (raw)
      1, 7,              // fork T0 -> T1
      1, 240,            // fork T0 -> T2 racing (a parent byte >= 240; 240 % 2 tasks = T0)
      10, 1, 0,          // slice T1 0
      5,                 // tick
      23,                // 23 % 12 = 11: exit T?, missing argument byte reads as 0 -> T0
  };
  const Scenario s = decode_bytes(b);
  ASSERT_TRUE(bytes_version_supported(b.data(), b.size()));
  EXPECT_EQ(print_scenario(s),
            "profile mainline\n"
            "task T0 nice=-5 policy=batch slice=3ms\n"
            "wake T0 sync\n"
            "run 3ms\n"
            "run 256us\n"
            "fork T0 -> T1\n"
            "fork T0 -> T2 racing\n"
            "slice T1 0\n"
            "tick\n"
            "exit T0\n");
  const auto enc = encode_bytes(s);
  ASSERT_TRUE(enc.has_value());
  EXPECT_TRUE(same_scenario(decode_bytes(*enc), s));
}

// Version 7: create's policy byte from 240 on is an RT task;
// the same bytes in version 6 decode as before (240 % 3 = 0: normal).
TEST(scenario_bytes, Version7CreatesFifoTasks) {
  const std::vector<std::uint8_t> v7 = {kBytesFormatVersion7, 0, 0, 25, 240, 4, 0, 25, 239, 4, 5};
  EXPECT_EQ(print_scenario(decode_bytes(v7)),
            "profile mainline\ntask T0 policy=fifo\ntask T1 nice=5 policy=idle slice=3ms\ntick\n");
  std::vector<std::uint8_t> v6 = v7;
  v6[0] = kBytesFormatVersion6;
  EXPECT_EQ(print_scenario(decode_bytes(v6)),
            "profile mainline\ntask T0 nice=5 slice=3ms\ntask T1 nice=5 policy=idle slice=3ms\ntick\n");
  const auto enc = encode_bytes(parse_ok("task T0 policy=fifo\ntask T1\nwake T0\n"));
  ASSERT_TRUE(enc.has_value());
  EXPECT_EQ((*enc)[0], kBytesFormatVersion7);
  EXPECT_TRUE(bytes_version_supported(enc->data(), enc->size()));
  EXPECT_EQ(print_scenario(decode_bytes(*enc)), "profile mainline\ntask T0 policy=fifo\ntask T1\nwake T0\n");
  std::string why;
  EXPECT_FALSE(encode_bytes(parse_ok("task T0\ntick nopreempt\n"), false, &why).has_value());
  EXPECT_NE(why.find("tick nopreempt"), std::string::npos) << why;
}

// Version 8: a wake's or sleep's task byte from kBytesFanOut (64) on
// is every task: a fan-out wake from one CPU (creation order round from the
// byte's task) and a sleep of every task; the same bytes in version 7 decode
// as before, one task each.
TEST(scenario_bytes, Version8FansOutWakesAndSleeps) {
  const std::vector<std::uint8_t> v8 = {kBytesFormatVersion8, bytes_runqueue_byte(4), 0, 20, 0, 0, 0, 20, 0, 0,
                                        0, 20, 0, 0, 2, 65, 5, 3, 200, 2, 1, 0};
  EXPECT_TRUE(bytes_version_supported(v8.data(), v8.size()));
  EXPECT_EQ(print_scenario(decode_bytes(v8)),
            "profile mainline\nrunqueues 4\ntask T0\ntask T1\ntask T2\nwake T2 sync from=1\nwake T0 sync from=1\n"
            "wake T1 sync from=1\nsleep T0\nsleep T1\nsleep T2\nwake T1 from=0\n");
  std::vector<std::uint8_t> v7 = v8;
  v7[0] = kBytesFormatVersion7;
  EXPECT_EQ(print_scenario(decode_bytes(v7)),
            "profile mainline\nrunqueues 4\ntask T0\ntask T1\ntask T2\nwake T2 sync from=1\nsleep T2\n"
            "wake T1 from=0\n");
  // a set stops at the operation limit
  Scenario s;
  decode_bytes_into(v8.data(), v8.size(), s, 5);
  EXPECT_EQ(print_scenario(s), "profile mainline\nrunqueues 4\ntask T0\ntask T1\ntask T2\nwake T2 sync from=1\n"
                               "wake T0 sync from=1\n");
}

TEST(scenario_bytes, Substitutions) {
  // wake with no task -> create T0 (defaults); its argument bytes are consumed.
  const std::vector<std::uint8_t> b = {1, 2, 9, 9, 6};
  EXPECT_EQ(print_scenario(decode_bytes(b)), "profile mainline\ntask T0\nschedule\n");
  // 17 creates: the 17th becomes schedule.
  std::vector<std::uint8_t> c = {1};
  for (int i = 0; i < 17; ++i) c.insert(c.end(), {0, 20, 0, 0});
  const Scenario s = decode_bytes(c);
  ASSERT_EQ(s.ops.size(), 17u);
  EXPECT_EQ(s.ops[15].task, "T15");
  EXPECT_EQ(s.ops[16].kind, OpKind::schedule);
  // Unsupported version: refused by the check, still decoded as payload.
  const std::vector<std::uint8_t> v = {18};  // 18 % 12: schedule
  EXPECT_FALSE(bytes_version_supported(v.data(), v.size()));
  EXPECT_EQ(decode_bytes(v).ops.size(), 1u);
  EXPECT_EQ(decode_bytes(v).ops[0].kind, OpKind::schedule);
  EXPECT_TRUE(decode_bytes(nullptr, 0).ops.empty());
  // 256 operations at most.
  const std::vector<std::uint8_t> ticks(1000, 5);
  EXPECT_EQ(decode_bytes(ticks).ops.size(), kMaxBytesOps);
}

TEST(scenario_bytes, EncodeRefusesWhatItCannotRepresent) {
  std::string why;
  EXPECT_FALSE(encode_bytes(parse_ok("task A\n"), false, &why).has_value());
  EXPECT_NE(why.find("T<n>"), std::string::npos) << why;
  EXPECT_FALSE(encode_bytes(parse_ok("task T1\n")).has_value());
  EXPECT_FALSE(encode_bytes(parse_ok("task T0\nrun 1500ns\n")).has_value());
  EXPECT_FALSE(encode_bytes(parse_ok("task T0 slice=2ms\n")).has_value());
  EXPECT_FALSE(encode_bytes(parse_ok("profile v7.1\ntask T0\n")).has_value());
  EXPECT_FALSE(encode_bytes(parse_ok("task T0\nexpect curr T0\n")).has_value());
  // run settings come from the command line, like the profile
  EXPECT_FALSE(encode_bytes(parse_ok("skip I-AUG\ntask T0\n"), false, &why).has_value());
  EXPECT_NE(why.find("skip, tolerate, keep_going or backend"), std::string::npos) << why;
  EXPECT_FALSE(encode_bytes(parse_ok("tolerate none\ntask T0\n")).has_value());
  EXPECT_FALSE(encode_bytes(parse_ok("keep_going\ntask T0\n")).has_value());
  EXPECT_FALSE(encode_bytes(parse_ok("backend lockstep\ntask T0\n"), false, &why).has_value());
  EXPECT_NE(why.find("backend"), std::string::npos) << why;
  EXPECT_FALSE(encode_bytes(parse_ok("backend kernel\ntask T0\n")).has_value());
  EXPECT_TRUE(encode_bytes(parse_ok("backend model\ntask T0\n")).has_value());  // the default: nothing to refuse
  EXPECT_TRUE(
      encode_bytes(parse_ok("skip I-AUG\ntolerate none\nkeep_going\nbackend lockstep\ntask T0\n"), true).has_value());
  const auto ops_only = encode_bytes(parse_ok("# t\nprofile v7.1\ntask T0\nexpect curr T0\nrun 65535us\n"
                                              "expect no-violation\n"),
                                     true);
  ASSERT_TRUE(ops_only.has_value());
  EXPECT_EQ(print_scenario(decode_bytes(*ops_only)), "profile mainline\ntask T0\nrun 65535us\n");
}

RC_GTEST_PROP(scenario_bytes, EveryByteStringDecodesToAValidScenario, (const std::vector<std::uint8_t>& b)) {
  const Scenario s = decode_bytes(b.data(), b.size());
  RC_ASSERT(s.ops.size() <= kMaxBytesOps);
  RC_ASSERT(s.profile == "mainline");
  const std::string text = print_scenario(s);
  const ParseResult r = parse_scenario(text, "decoded");
  if (const auto* e = std::get_if<ParseError>(&r)) {
    RC_LOG() << format_parse_error(*e) << "\n" << text;
    RC_FAIL("decoded scenario does not parse");
  }
  RC_ASSERT(same_scenario(std::get<Scenario>(r), s));
  // Decoded scenarios are always representable, and encoding is the inverse.
  const auto enc = encode_bytes(s);
  RC_ASSERT(enc.has_value());
  RC_ASSERT(same_scenario(decode_bytes(*enc), s));
  // The encoding is canonical: encoding its decoding gives it back.
  RC_ASSERT(encode_bytes(decode_bytes(*enc)) == enc);
}

namespace {
// Every field, not only the ones that matter for the kind (decode_bytes_into
// must leave nothing behind from the scenario it reuses).
bool identical_ops(const std::vector<Op>& a, const std::vector<Op>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const Op &x = a[i], &y = b[i];
    if (x.kind != y.kind || x.task != y.task || x.child != y.child || x.value != y.value || x.policy != y.policy ||
        x.sync != y.sync || x.field != y.field || x.cmp != y.cmp || x.line != y.line || x.slice != y.slice ||
        x.nopreempt != y.nopreempt)
      return false;
  }
  return true;
}
}  // namespace

// The engines decode every input into the same Scenario; that must give
// exactly what a fresh decode gives, and max_ops a prefix of it.
RC_GTEST_PROP(scenario_bytes, DecodeIntoAReusedScenarioIsAFreshDecode,
              (const std::vector<std::vector<std::uint8_t>>& inputs, std::uint8_t cap)) {
  Scenario reused = parse_ok("# leftovers\nprofile v7.1\nskip I-AUG\ntolerate none\nkeep_going\nbackend kernel\n"
                             "task A nice=3\nexpect field A.vlag >= 5\n"
                             "expect no-violation\n");
  for (const auto& b : inputs) {
    const Scenario fresh = decode_bytes(b.data(), b.size());
    decode_bytes_into(b.data(), b.size(), reused);
    RC_ASSERT(identical_ops(reused.ops, fresh.ops));
    RC_ASSERT(print_scenario(reused) == print_scenario(fresh));
    decode_bytes_into(b.data(), b.size(), reused, cap);
    const std::size_t k = std::min<std::size_t>(cap, fresh.ops.size());
    RC_ASSERT(identical_ops(reused.ops, std::vector<Op>(fresh.ops.begin(), fresh.ops.begin() + static_cast<long>(k))));
  }
}

RC_GTEST_PROP(scenario_bytes, EncodeDecodeRoundTripForRepresentableScenarios, ()) {
  Scenario s;
  std::size_t ntasks = 0;
  // version 3 half of the time: several runqueues, migrate and wake cpu=
  const bool v3 = *rc::gen::arbitrary<bool>();
  if (v3) s.runqueues = *rc::gen::inRange(1u, 9u);
  const int nrq = static_cast<int>(s.runqueues);
  const int n = *rc::gen::inRange(0, 80);
  for (int i = 0; i < n; ++i) {
    Op op;
    op.kind = static_cast<OpKind>(*rc::gen::inRange(0, 12));
    if (v3 && *rc::gen::inRange(0, 8) == 0) op.kind = OpKind::migrate;
    if (*rc::gen::inRange(0, 10) == 0) op.kind = OpKind::debug_read;
    if (*rc::gen::inRange(0, 10) == 0) op.kind = *rc::gen::element(OpKind::run_notick, OpKind::tick_after);  // version 6
    if (*rc::gen::inRange(0, 12) == 0) op.kind = OpKind::base_slice;  // version 7
    const bool needs_task = op.kind != OpKind::create && op.kind != OpKind::run && op.kind != OpKind::tick &&
                            op.kind != OpKind::schedule && op.kind != OpKind::debug_read &&
                            op.kind != OpKind::run_notick && op.kind != OpKind::tick_after &&
                            op.kind != OpKind::base_slice;
    if (needs_task && ntasks == 0) op.kind = OpKind::create;
    if ((op.kind == OpKind::create || op.kind == OpKind::fork) && ntasks >= kMaxBytesTasks)
      op.kind = OpKind::tick;
    auto some = [&] { return "T" + std::to_string(*rc::gen::inRange<std::size_t>(0, ntasks)); };
    switch (op.kind) {
      case OpKind::create:
        op.task = "T" + std::to_string(ntasks++);
        if (*rc::gen::inRange(0, 8) == 0) {  // version 7: an RT task (nice 0, slice 0)
          op.policy = Policy::fifo;
          break;
        }
        op.value = *rc::gen::inRange(-20, 20);
        op.policy = gen_policy();
        op.slice = *rc::gen::elementOf(kBytesSlices);
        break;
      case OpKind::fork:
        op.task = some();
        op.child = "T" + std::to_string(ntasks++);
        op.racing = *rc::gen::arbitrary<bool>();
        break;
      case OpKind::wake:
        op.task = some();
        op.sync = *rc::gen::arbitrary<bool>();
        if (v3) op.cpu = *rc::gen::inRange(-1, nrq);
        break;
      case OpKind::migrate:
        op.task = some();
        op.cpu = *rc::gen::inRange(0, nrq);
        break;
      case OpKind::run:
      case OpKind::run_notick:
      case OpKind::tick_after:
        op.value = *rc::gen::oneOf(rc::gen::elementOf(kBytesDurations),
                                   rc::gen::map(rc::gen::inRange<s64>(0, 65536), [](s64 v) { return v * 1000; }));
        break;
      case OpKind::nice:
        op.task = some();
        op.value = *rc::gen::inRange(-20, 20);
        break;
      case OpKind::policy:
        op.task = some();
        op.policy = gen_policy();
        break;
      case OpKind::slice:
        op.task = some();
        op.value = *rc::gen::elementOf(kBytesSlices);
        break;
      case OpKind::tick:
      case OpKind::schedule: break;
      case OpKind::debug_read:  // the root queue (no group here), any CPU
        op.racing = *rc::gen::arbitrary<bool>();
        op.cpu = *rc::gen::inRange(-1, nrq);
        break;
      case OpKind::base_slice: op.value = *rc::gen::elementOf(kBytesBaseSlices); break;  // version 7
      default: op.task = some(); break;
    }
    s.ops.push_back(std::move(op));
  }
  const auto enc = encode_bytes(s);
  RC_ASSERT(enc.has_value());
  RC_ASSERT(bytes_version_supported(enc->data(), enc->size()));
  RC_ASSERT(same_scenario(decode_bytes(*enc), s));
}

}  // namespace
}  // namespace eevdf::scn
