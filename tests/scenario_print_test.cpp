// Scenario language: the printer (canonical text, meaning equality) and the
// parse/print round trip of generated scenarios. The parser's examples and
// errors: scenario_test.cpp; the byte format: scenario_bytes_test.cpp.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <climits>
#include <set>
#include <string>
#include <vector>

#include "scenario/duration.hpp"
#include "scenario/expect_fields.hpp"
#include "scenario/op_table.hpp"
#include "scenario/scenario_parse.hpp"
#include "support/scenario_text.hpp"
#include "scenario/scenario_print.hpp"
#include "invariants/ids.hpp"
#include "model/profile.hpp"

namespace eevdf::scn {

// RapidCheck prints counterexamples through this.
inline void showValue(const Scenario& s, std::ostream& os) { os << "\n" << print_scenario(s); }

namespace {

using test::parse_ok;

// ---------------------------------------------------------------- generators

std::string gen_task_name(std::set<std::string>& used, int& counter) {
  static const std::string first = "ABCTXYZabcxyz_";
  static const std::string rest = "ABCabc0123456789_";
  std::string name(1, *rc::gen::elementOf(first));
  const auto tail = *rc::gen::container<std::string>(rc::gen::elementOf(rest));
  name += tail.substr(0, kMaxTaskNameLen - 1);
  while (used.count(name) || !valid_task_name(name)) name = "_n" + std::to_string(counter++);
  used.insert(name);
  return name;
}

s64 gen_duration() {
  return *rc::gen::oneOf(rc::gen::inRange<s64>(0, kMaxDurationNs + 1),
                         rc::gen::map(rc::gen::inRange<s64>(0, 100000), [](s64 v) { return v * 1000; }),
                         rc::gen::map(rc::gen::inRange<s64>(0, 1000), [](s64 v) { return v * 1'000'000; }),
                         rc::gen::element<s64>(0, 1, 999'999, 1'000'001, kMaxDurationNs));
}

s64 gen_slice() {
  return *rc::gen::oneOf(rc::gen::just<s64>(0), rc::gen::inRange<s64>(kMinSliceNs, kMaxSliceNs + 1),
                         rc::gen::map(rc::gen::inRange<s64>(100, 100001), [](s64 v) { return v * 1000; }));
}

Policy gen_policy() { return *rc::gen::element(Policy::normal, Policy::batch, Policy::idle); }

// A field of `expect field` (entity) or `expect queue` (queue) from the one table.
const FieldSpec& gen_field(FieldOwner owner) {
  std::vector<const FieldSpec*> fields;
  for (const FieldSpec& f : kFieldTable)
    if (f.owner == owner) fields.push_back(&f);
  return **rc::gen::elementOf(fields);
}

Scenario gen_scenario_now() {
  Scenario s;
  if (*rc::gen::arbitrary<bool>()) {
    std::string t = *rc::gen::container<std::string>(rc::gen::inRange<char>(0x20, 0x7f));
    while (!t.empty() && t.back() == ' ') t.pop_back();
    s.title = t;
  }
  s.profile = std::string(*rc::gen::elementOf(profile_names()));
  if (*rc::gen::arbitrary<bool>()) {
    const int n = *rc::gen::inRange(1, 5);
    for (int i = 0; i < n; ++i) {
      if (i) s.features += ",";
      if (*rc::gen::arbitrary<bool>()) s.features += "NO_";
      s.features += feature_name(static_cast<Feature>(*rc::gen::inRange<int>(0, kFeatureCount)));
    }
  }
  if (*rc::gen::arbitrary<bool>()) s.bug = "B" + std::to_string(*rc::gen::inRange(0, 100));
  s.cpus = *rc::gen::oneOf(rc::gen::just(8u), rc::gen::inRange(1u, kMaxCpus + 1));
  s.hz = *rc::gen::elementOf(kAllowedHz);
  if (*rc::gen::arbitrary<bool>()) s.base_slice = *rc::gen::inRange<s64>(kMinSliceNs, kMaxSliceNs + 1);
  if (*rc::gen::inRange(0, 4) == 0) {  // several CPUs: only where the parser allows them
    s.profile = *rc::gen::element(std::string("mainline"), std::string("v7.2"));
    s.runqueues = *rc::gen::inRange(2u, 9u);
  }
  if (*rc::gen::inRange(0, 3) == 0) {  // run settings: distinct ids in any order
    std::vector<std::size_t> left(inv::kIdCount);
    for (std::size_t i = 0; i < left.size(); ++i) left[i] = i;
    const std::size_t n = *rc::gen::inRange<std::size_t>(1, inv::kIdCount + 1);
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t pick = *rc::gen::inRange<std::size_t>(0, left.size());
      s.skip.emplace_back(inv::id_name(static_cast<inv::Id>(left[pick])));
      left.erase(left.begin() + static_cast<long>(pick));
    }
  }
  s.tolerate = *rc::gen::inRange(0, 3) != 0;
  s.keep_going = *rc::gen::inRange(0, 3) == 0;
  s.backend = *rc::gen::element(Backend::model, Backend::model, Backend::kernel, Backend::lockstep);

  std::set<std::string> used;
  std::vector<std::string> names;
  std::vector<std::string> groups;  // live groups
  std::size_t groups_created = 0;   // removed ones keep their slot (the parser's limit)
  int counter = 0;
  const int nops = *rc::gen::inRange(0, 40);
  for (int i = 0; i < nops; ++i) {
    Op op;
    // task groups exist on one runqueue only (the parser refuses them with 'runqueues N')
    const OpKind last_kind = s.runqueues > 1 ? OpKind::expect_field : OpKind::group_idle;
    op.kind = static_cast<OpKind>(*rc::gen::inRange(0, static_cast<int>(last_kind) + 1));
    const bool needs_task = op.kind != OpKind::create && op.kind != OpKind::run && op.kind != OpKind::tick &&
                            op.kind != OpKind::schedule && op.kind != OpKind::group_create &&
                            op.kind != OpKind::shares && op.kind != OpKind::group_idle;
    if (needs_task && names.empty()) op.kind = OpKind::create;
    const bool needs_group = op.kind == OpKind::shares || op.kind == OpKind::group_idle;
    if (needs_group && groups.empty()) op.kind = OpKind::group_create;
    if (*rc::gen::inRange(0, 12) == 0) op.kind = OpKind::base_slice;
    if (s.runqueues == 1 && !groups.empty() && *rc::gen::inRange(0, 12) == 0) op.kind = OpKind::group_destroy;
    if (!groups.empty() && *rc::gen::inRange(0, 12) == 0) op.kind = OpKind::quota;
    if (!names.empty() && *rc::gen::inRange(0, 16) == 0) op.kind = OpKind::return_to_user;
    if (op.kind == OpKind::group_create && groups_created >= kMaxScenarioGroups) op.kind = OpKind::schedule;
    if (op.kind == OpKind::fork && names.size() >= kMaxScenarioTasks) op.kind = OpKind::schedule;
    if (s.runqueues > 1 && !names.empty() && *rc::gen::inRange(0, 6) == 0) op.kind = OpKind::migrate;
    if (*rc::gen::inRange(0, 10) == 0) op.kind = OpKind::debug_read;
    if (!names.empty() && *rc::gen::inRange(0, 10) == 0) op.kind = OpKind::expect_queue;
    if (*rc::gen::inRange(0, 10) == 0) op.kind = *rc::gen::element(OpKind::run_notick, OpKind::tick_after);
    const int nrq = static_cast<int>(s.runqueues);
    auto some_task = [&] { return *rc::gen::elementOf(names); };
    // A group created earlier, or (allow_root) sometimes the root group (empty).
    auto some_group = [&](bool allow_root) {
      if (groups.empty() || (allow_root && *rc::gen::arbitrary<bool>())) return std::string();
      return *rc::gen::elementOf(groups);
    };
    auto gen_shares = [] {
      return *rc::gen::oneOf(rc::gen::just(kDefaultShares), rc::gen::inRange<s64>(kMinGroupShares, kMaxGroupShares + 1),
                             rc::gen::element<s64>(s64{kMinGroupShares}, s64{kMaxGroupShares}));
    };
    switch (op.kind) {
      case OpKind::create:
        op.task = gen_task_name(used, counter);
        names.push_back(op.task);
        if (*rc::gen::inRange(0, 8) == 0) {  // an RT task: no nice, slice or group
          op.policy = Policy::fifo;
          break;
        }
        op.value = *rc::gen::inRange(kMinNice, kMaxNice + 1);
        op.policy = gen_policy();
        op.slice = gen_slice();
        op.group = some_group(true);
        break;
      case OpKind::fork:
        op.task = some_task();
        op.child = gen_task_name(used, counter);
        op.racing = *rc::gen::arbitrary<bool>();
        names.push_back(op.child);
        break;
      case OpKind::wake:
        op.task = some_task();
        op.sync = *rc::gen::arbitrary<bool>();
        op.cpu = *rc::gen::inRange(-1, nrq);
        break;
      case OpKind::migrate:
        op.task = some_task();
        op.cpu = *rc::gen::inRange(0, nrq);
        break;
      case OpKind::sleep:
      case OpKind::yield:
      case OpKind::return_to_user:
      case OpKind::exit: op.task = some_task(); break;
      case OpKind::run:
      case OpKind::run_notick:
      case OpKind::tick_after: op.value = gen_duration(); break;
      case OpKind::tick: op.nopreempt = *rc::gen::arbitrary<bool>(); break;
      case OpKind::schedule: break;
      case OpKind::nice:
        op.task = some_task();
        op.value = *rc::gen::inRange(kMinNice, kMaxNice + 1);
        break;
      case OpKind::policy:
        op.task = some_task();
        op.policy = gen_policy();
        break;
      case OpKind::slice:
        op.task = some_task();
        op.value = gen_slice();
        break;
      case OpKind::expect_curr:
        op.task = *rc::gen::arbitrary<bool>() ? std::string("idle") : some_task();
        op.cpu = *rc::gen::inRange(-1, nrq);
        break;
      case OpKind::expect_field:
        op.task = some_task();
        op.field = std::string(gen_field(FieldOwner::entity).name);
        op.cmp = *rc::gen::element(CmpOp::eq, CmpOp::ne, CmpOp::lt, CmpOp::le, CmpOp::gt, CmpOp::ge);
        op.value = *rc::gen::oneOf(rc::gen::arbitrary<s64>(), rc::gen::element<s64>(INT64_MIN, INT64_MAX, 0, -1),
                                   rc::gen::map(rc::gen::inRange<s64>(-100000, 100000),
                                                [](s64 v) { return v * 1000; }));
        break;
      case OpKind::group_create:
        op.parent = some_group(true);
        op.group = gen_task_name(used, counter);
        groups.push_back(op.group);
        ++groups_created;
        op.value = gen_shares();
        break;
      case OpKind::group_destroy: {  // the name is gone from here on
        op.group = some_group(false);
        groups.erase(std::find(groups.begin(), groups.end(), op.group));
        break;
      }
      case OpKind::quota: {  // whole microseconds; max keeps the period (0), burst -1: not written
        op.group = some_group(false);
        const auto us = [] { return *rc::gen::inRange<s64>(0, 2'000'000) * 1000; };
        op.value = *rc::gen::arbitrary<bool>() ? s64{-1} : us();
        op.period = op.value < 0 ? 0 : us();
        op.burst = *rc::gen::arbitrary<bool>() ? s64{-1} : us();
        break;
      }
      case OpKind::base_slice:
        op.value = *rc::gen::oneOf(rc::gen::inRange<s64>(kMinSliceNs, kMaxSliceNs + 1),
                                   rc::gen::element<s64>(s64{kMinSliceNs}, s64{kMaxSliceNs}));
        break;
      case OpKind::move:
        op.task = some_task();
        op.group = some_group(true);
        break;
      case OpKind::shares:
        op.group = some_group(false);
        op.value = gen_shares();
        break;
      case OpKind::group_idle:
        op.group = some_group(false);
        op.value = *rc::gen::inRange(0, 2);
        break;
      case OpKind::debug_read:
        op.group = some_group(true);
        op.cpu = *rc::gen::inRange(-1, nrq);
        op.racing = *rc::gen::arbitrary<bool>();
        break;
      case OpKind::expect_queue: {
        op.group = some_group(true);
        const FieldSpec& f = gen_field(FieldOwner::queue);
        op.field = std::string(f.name);
        op.cpu = *rc::gen::inRange(-1, nrq);
        if (f.value == FieldValue::entity) {  // a task, a group or none
          op.cmp = *rc::gen::element(CmpOp::eq, CmpOp::ne);
          op.task = *rc::gen::arbitrary<bool>() ? some_task() : some_group(true);
        } else {
          op.cmp = *rc::gen::element(CmpOp::eq, CmpOp::ne, CmpOp::lt, CmpOp::le, CmpOp::gt, CmpOp::ge);
          op.value = *rc::gen::oneOf(rc::gen::arbitrary<s64>(), rc::gen::element<s64>(INT64_MIN, INT64_MAX, 0, -1),
                                     rc::gen::map(rc::gen::inRange<s64>(-100000, 100000),
                                                  [](s64 v) { return v * 1000; }));
        }
        break;
      }
    }
    op.line = 7 * i + 100;  // arbitrary source lines; the printer renumbers
    s.ops.push_back(std::move(op));
  }

  std::vector<int> op_lines;
  for (const Op& op : s.ops)
    if (!is_expectation(op.kind)) op_lines.push_back(op.line);
  switch (*rc::gen::inRange(0, 3)) {
    case 0: break;
    case 1: s.expectations.push_back(Expectation{Expectation::Kind::no_violation, "", 0, 0}); break;
    default: {
      const int n = *rc::gen::inRange(1, 4);
      for (int i = 0; i < n; ++i) {
        Expectation e;
        e.kind = Expectation::Kind::violation;
        e.invariant = "I-" + *rc::gen::nonEmpty(rc::gen::container<std::string>(
                                 rc::gen::elementOf(std::string("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"))));
        e.invariant = e.invariant.substr(0, 32);
        if (std::find(s.skip.begin(), s.skip.end(), e.invariant) != s.skip.end()) e.invariant = "I-NOTSKIPPED";
        if (!op_lines.empty() && *rc::gen::arbitrary<bool>()) e.at_line = *rc::gen::elementOf(op_lines);
        s.expectations.push_back(std::move(e));
      }
    }
  }
  return s;
}

rc::Gen<Scenario> gen_scenario() { return rc::gen::exec(gen_scenario_now); }

// ---------------------------------------------------------------- round trips

RC_GTEST_PROP(scenario_print, ParsePrintRoundTrip, ()) {
  const Scenario s = *gen_scenario();
  RC_CLASSIFY(s.ops.size() >= 10, "10+ ops");
  RC_CLASSIFY(!s.expectations.empty() && s.expectations[0].at_line != 0, "expect violation ... at");
  const std::string text = print_scenario(s);
  const ParseResult r = parse_scenario(text, "printed");
  if (const auto* e = std::get_if<ParseError>(&r)) {
    RC_LOG() << format_parse_error(*e) << "\n" << text;
    RC_FAIL("printed scenario does not parse");
  }
  const Scenario& back = std::get<Scenario>(r);
  RC_ASSERT(same_scenario(back, s));
  RC_ASSERT(print_scenario(back) == text);
}

TEST(scenario_print, CanonicalText) {
  Scenario s;
  s.title = "demo";
  Op a;
  a.kind = OpKind::create;
  a.task = "A";
  a.value = -5;
  a.slice = 3'000'000;
  s.ops.push_back(a);
  Op r;
  r.kind = OpKind::run;
  r.value = 1'000'001;
  r.line = 42;
  s.ops.push_back(r);
  Op f;
  f.kind = OpKind::expect_field;
  f.task = "A";
  f.field = "vlag";
  f.cmp = CmpOp::le;
  f.value = -700'000;
  s.ops.push_back(f);
  Op w;
  w.kind = OpKind::expect_field;
  w.task = "A";
  w.field = "weight";
  w.value = 3000;
  s.ops.push_back(w);
  s.expectations.push_back(Expectation{Expectation::Kind::violation, "I-LAG", 42, 0});
  EXPECT_EQ(print_scenario(s),
            "# demo\n"
            "profile mainline\n"
            "task A nice=-5 slice=3ms\n"
            "run 1000001ns\n"
            "expect field A.vlag <= -700us\n"
            "expect field A.weight == 3000\n"
            "expect violation I-LAG at 4\n");
  Op k;
  k.kind = OpKind::fork;
  k.task = "A";
  k.child = "B";
  EXPECT_EQ(print_op(k), "fork A -> B");
  k.kind = OpKind::wake;
  k.sync = true;
  EXPECT_EQ(print_op(k), "wake A sync");
  k.kind = OpKind::policy;
  k.policy = Policy::idle;
  EXPECT_EQ(print_op(k), "policy A idle");
  k.kind = OpKind::slice;
  k.value = 0;
  EXPECT_EQ(print_op(k), "slice A 0");
}

TEST(scenario_print, SameScenarioComparesMeaning) {
  const Scenario a = parse_ok("task A\nwake A\nrun 1ms\nexpect violation I-DL at 3\n");
  const Scenario b = parse_ok("\n\ntask A\nwake A\nrun 1ms\nexpect violation I-DL at 5\n");
  const Scenario c = parse_ok("\n\ntask A\nwake A\nrun 1ms\nexpect violation I-DL at 4\n");
  EXPECT_TRUE(same_scenario(a, b));
  EXPECT_FALSE(same_scenario(a, c));
  EXPECT_FALSE(same_scenario(a, parse_ok("task A\nwake A sync\nrun 1ms\nexpect violation I-DL at 3\n")));
}


}  // namespace
}  // namespace eevdf::scn
