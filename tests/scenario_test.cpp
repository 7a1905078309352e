// Scenario language: durations, parser (examples and exact error positions),
// printer round trip, byte encoding.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <climits>
#include <set>
#include <string>
#include <vector>

#include "scenario/bytes.hpp"
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

ParseError parse_err(std::string_view text) {
  ParseResult r = parse_scenario(text, "t.scn");
  if (auto* e = std::get_if<ParseError>(&r)) return *e;
  ADD_FAILURE() << "expected a parse error for:\n" << text;
  return {};
}

// ---------------------------------------------------------------- durations

TEST(scenario_duration, ParsesUnitsAndDecimals) {
  EXPECT_EQ(parse_duration("700us"), 700'000);
  EXPECT_EQ(parse_duration("3ms"), 3'000'000);
  EXPECT_EQ(parse_duration("2s"), 2'000'000'000);
  EXPECT_EQ(parse_duration("1500ns"), 1500);
  EXPECT_EQ(parse_duration("1500"), 1500);
  EXPECT_EQ(parse_duration("0"), 0);
  EXPECT_EQ(parse_duration("1.5ms"), 1'500'000);
  EXPECT_EQ(parse_duration("0.1ms"), 100'000);
  EXPECT_EQ(parse_duration("0.000000001s"), 1);
  EXPECT_EQ(parse_duration("1.250us"), 1250);
  EXPECT_EQ(parse_duration("2.0"), 2);
  EXPECT_EQ(parse_duration("4611686018427387904"), s64{1} << 62);
  EXPECT_EQ(parse_duration("4611686018.427387904s"), s64{1} << 62);
}

TEST(scenario_duration, RejectsNegativeOverflowAndGarbage) {
  for (const char* bad : {"", "-1", "-3ms", "1.5", "1.5ns", "0.0001us", "1.", ".5ms", "3 ms", "3h", "ms", "1e3",
                          "+3ms", "3msx", "4611686018427387905", "4611686019s", "99999999999999999999999999999",
                          "0x10", "3MS", "1..5ms", "\xff"}) {
    std::string why;
    EXPECT_FALSE(parse_duration(bad, &why).has_value()) << bad;
    EXPECT_NE(why.find("expected"), std::string::npos) << bad << ": " << why;
  }
  std::string why;
  parse_duration("1.5ns", &why);
  EXPECT_NE(why.find("whole number of nanoseconds"), std::string::npos) << why;
  parse_duration("-3ms", &why);
  EXPECT_NE(why.find("not negative"), std::string::npos) << why;
  parse_duration("5000000000s", &why);
  EXPECT_NE(why.find("2^62"), std::string::npos) << why;
  parse_duration("3h", &why);
  EXPECT_NE(why.find("unit"), std::string::npos) << why;
}

TEST(scenario_duration, PrintsInTheLargestExactUnit) {
  EXPECT_EQ(format_duration(0), "0");
  EXPECT_EQ(format_duration(3'000'000), "3ms");
  EXPECT_EQ(format_duration(700'000), "700us");
  EXPECT_EQ(format_duration(1500), "1500ns");
  EXPECT_EQ(format_duration(1'500'000), "1500us");
  EXPECT_EQ(format_duration(2'000'000'000), "2s");
  EXPECT_EQ(format_duration(999'999), "999999ns");
  EXPECT_EQ(format_duration(-3'000'000), "-3ms");
  EXPECT_EQ(format_duration(INT64_MIN), "-9223372036854775808ns");
}

RC_GTEST_PROP(scenario_duration, PrintParseRoundTrip, ()) {
  const s64 ns = *rc::gen::oneOf(rc::gen::inRange<s64>(0, kMaxDurationNs + 1),
                                 rc::gen::map(rc::gen::inRange<s64>(0, 5000),
                                              [](s64 v) { return v * 1000; }),
                                 rc::gen::map(rc::gen::inRange<s64>(0, 5000),
                                              [](s64 v) { return v * 1'000'000; }));
  const auto back = parse_duration(format_duration(ns));
  RC_ASSERT(back.has_value());
  RC_ASSERT(*back == ns);
}

// ---------------------------------------------------------------- parsing

TEST(scenario_parse, ArchitectureExample) {
  const Scenario s = parse_ok(
      "# rel_deadline survives fork (B01)\n"
      "profile v7.1 bug=B01\n"
      "cpus 8\n"
      "task A nice=0\n"
      "wake A\n"
      "run 3ms\n"
      "fork A -> B\n"
      "wake B\n"
      "schedule\n"
      "yield B\n"
      "wake A\n"
      "expect violation I-DL\n");
  EXPECT_EQ(s.title, "rel_deadline survives fork (B01)");
  EXPECT_EQ(s.profile, "v7.1");
  EXPECT_EQ(s.bug, "B01");
  EXPECT_EQ(s.cpus, 8u);
  ASSERT_EQ(s.ops.size(), 8u);
  EXPECT_EQ(s.ops[0].kind, OpKind::create);
  EXPECT_EQ(s.ops[0].task, "A");
  EXPECT_EQ(s.ops[0].line, 4);
  EXPECT_EQ(s.ops[2].kind, OpKind::run);
  EXPECT_EQ(s.ops[2].value, 3'000'000);
  EXPECT_EQ(s.ops[3].kind, OpKind::fork);
  EXPECT_EQ(s.ops[3].task, "A");
  EXPECT_EQ(s.ops[3].child, "B");
  EXPECT_EQ(s.ops[5].kind, OpKind::schedule);
  EXPECT_EQ(s.ops[6].kind, OpKind::yield);
  ASSERT_EQ(s.expectations.size(), 1u);
  EXPECT_EQ(s.expectations[0].kind, Expectation::Kind::violation);
  EXPECT_EQ(s.expectations[0].invariant, "I-DL");
  EXPECT_EQ(s.expectations[0].at_line, 0);
  EXPECT_EQ(s.expectations[0].line, 12);
}

TEST(scenario_parse, EveryOperationAndDirective) {
  const Scenario s = parse_ok(
      "\n"
      "  # title with  spaces  \t\n"
      "# second comment is not the title\n"
      "profile mainline\n"
      "features NO_NEXT_BUDDY,PARANOID_AVG\n"
      "bug B05\n"
      "cpus 4096\n"
      "hz 250\n"
      "base_slice 1.5ms   # trailing comment\n"
      "\ttask A nice=-20 policy=batch slice=0.1ms\n"
      "task _b2 slice=0 nice=+19 policy=idle\n"
      "fork A -> C\n"
      "wake A sync\n"
      "wake C\n"
      "sleep A\n"
      "run 1500\n"
      "tick\n"
      "schedule\n"
      "yield C\n"
      "nice C -3\n"
      "policy C normal\n"
      "slice C 0\n"
      "slice C 100ms\n"
      "expect curr idle\n"
      "expect pick C\n"
      "expect field C.vlag >= -3ms\n"
      "expect field C.weight != 1024\n"
      "expect field C.vruntime < -9223372036854775808\n"
      "exit C\r\n"
      "expect violation I-AVG0 at 16\n"
      "expect violation I-KEY\n");
  EXPECT_EQ(s.title, "title with  spaces");
  EXPECT_EQ(s.profile, "mainline");
  EXPECT_EQ(s.features, "NO_NEXT_BUDDY,PARANOID_AVG");
  EXPECT_EQ(s.bug, "B05");
  EXPECT_EQ(s.cpus, 4096u);
  EXPECT_EQ(s.hz, 250u);
  EXPECT_EQ(s.base_slice, 1'500'000);
  ASSERT_EQ(s.ops.size(), 20u);
  const Op& a = s.ops[0];
  EXPECT_EQ(a.kind, OpKind::create);
  EXPECT_EQ(a.value, -20);
  EXPECT_EQ(a.policy, Policy::batch);
  EXPECT_EQ(a.slice, 100'000);
  EXPECT_EQ(a.line, 10);
  EXPECT_EQ(s.ops[1].task, "_b2");
  EXPECT_EQ(s.ops[1].value, 19);
  EXPECT_EQ(s.ops[1].policy, Policy::idle);
  EXPECT_EQ(s.ops[1].slice, 0);
  EXPECT_EQ(s.ops[3].kind, OpKind::wake);
  EXPECT_TRUE(s.ops[3].sync);
  EXPECT_FALSE(s.ops[4].sync);
  EXPECT_EQ(s.ops[5].kind, OpKind::sleep);
  EXPECT_EQ(s.ops[6].value, 1500);
  EXPECT_EQ(s.ops[7].kind, OpKind::tick);
  EXPECT_EQ(s.ops[8].kind, OpKind::schedule);
  EXPECT_EQ(s.ops[9].kind, OpKind::yield);
  EXPECT_EQ(s.ops[10].kind, OpKind::nice);
  EXPECT_EQ(s.ops[10].value, -3);
  EXPECT_EQ(s.ops[11].kind, OpKind::policy);
  EXPECT_EQ(s.ops[11].policy, Policy::normal);
  EXPECT_EQ(s.ops[12].kind, OpKind::slice);
  EXPECT_EQ(s.ops[12].value, 0);
  EXPECT_EQ(s.ops[13].value, 100'000'000);
  EXPECT_EQ(s.ops[14].kind, OpKind::expect_curr);
  EXPECT_EQ(s.ops[14].task, "idle");
  EXPECT_EQ(s.ops[15].kind, OpKind::expect_curr);
  EXPECT_EQ(s.ops[15].task, "C");
  EXPECT_EQ(s.ops[16].kind, OpKind::expect_field);
  EXPECT_EQ(s.ops[16].field, "vlag");
  EXPECT_EQ(s.ops[16].cmp, CmpOp::ge);
  EXPECT_EQ(s.ops[16].value, -3'000'000);
  EXPECT_EQ(s.ops[17].cmp, CmpOp::ne);
  EXPECT_EQ(s.ops[18].cmp, CmpOp::lt);
  EXPECT_EQ(s.ops[18].value, INT64_MIN);
  EXPECT_EQ(s.ops[19].kind, OpKind::exit);
  ASSERT_EQ(s.expectations.size(), 2u);
  EXPECT_EQ(s.expectations[0].invariant, "I-AVG0");
  EXPECT_EQ(s.expectations[0].at_line, 16);
  EXPECT_EQ(s.expectations[1].at_line, 0);

  // Printing renumbers `at 16` (the `run 1500` line) to its printed line.
  const std::string text = print_scenario(s);
  const Scenario back = parse_ok(text);
  EXPECT_TRUE(same_scenario(s, back)) << text;
  EXPECT_EQ(print_scenario(back), text);
  EXPECT_NE(text.find("run 1500ns\n"), std::string::npos) << text;
}

TEST(scenario_parse, TitleOnlyFromTheFirstCommentBeforeAnything) {
  EXPECT_EQ(parse_ok("profile mainline\n# late\ntask A\n").title, "");
  EXPECT_EQ(parse_ok("#no space\n").title, "no space");
  EXPECT_EQ(parse_ok("#\n# second\n").title, "");
  EXPECT_EQ(parse_ok("cpus 2 # not a title\n").title, "");
  EXPECT_EQ(parse_ok("").title, "");
  EXPECT_EQ(parse_ok("\xEF\xBB\xBF# bom\r\n").title, "bom");
}

TEST(scenario_parse, ErrorPositions) {
  struct Case {
    const char* text;
    int line;
    int column;
    const char* expected;  // substring of the message
    const char* found;     // substring of the message
  };
  const Case cases[] = {
      {"profile v5.15\n", 1, 9, "expected a profile name", "found 'v5.15'"},
      {"profile\n", 1, 8, "expected a profile name", "found end of line"},
      {"task A\nwake B\n", 2, 6, "expected the name of a task created earlier", "found 'B'"},
      {"task A\ntask A\n", 2, 6, "expected a new task name", "already exists (created on line 1)"},
      {"task A\ncpus 4\n", 2, 1, "expected an operation or 'expect'", "found the directive 'cpus'"},
      {"task A nice=25\n", 1, 13, "expected a nice level between -20 and 19", "found '25'"},
      {"task A nice=1 nice=2\n", 1, 15, "at most once", "nice="},
      {"task A slice=50us\n", 1, 14, "between 0.1ms and 100ms", "found '50us'"},
      {"task A prio=3\n", 1, 8, "expected nice=N, policy=normal|batch|idle or slice=DUR", "found 'prio=3'"},
      {"task idle\n", 1, 6, "expected a new task name", "found 'idle'"},
      {"\ttask 1A\n", 1, 7, "expected a task name", "found '1A'"},
      {"task ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456\n", 1, 6, "at most 32 characters", "found 'ABCDEF"},
      {"task A\nrun 1.5ns\n", 2, 5, "whole number of nanoseconds", "found '1.5ns'"},
      {"run -3ms\n", 1, 5, "not negative", "found '-3ms'"},
      {"run\n", 1, 4, "expected a duration", "found end of line"},
      {"task A\nfork A B\n", 2, 8, "expected '->'", "found 'B'"},
      {"task A\nfork A -> A\n", 2, 11, "expected a new task name", "already exists"},
      {"task A\nfork X -> B\n", 2, 6, "created earlier", "found 'X'"},
      {"task A\nfork A -> B race\n", 2, 13, "expected 'racing' or end of line", "found 'race'"},
      {"task A\nfork A -> B racing now\n", 2, 20, "expected end of line after 'racing'", "found 'now'"},
      {"wake\n", 1, 5, "expected a task name", "found end of line"},
      // v7.3's cgroup_mode on another profile (the parse fuzzer found the message without "expected")
      {"features cgroup_mode=smp\n", 1, 10, "expected 'profile v7.3' before 'features' for cgroup_mode",
       "not on 'mainline'"},
      {"task A\nwake A now\n", 2, 8, "expected 'sync', 'cpu=N', 'from=N' or end of line", "found 'now'"},
      {"tick extra\n", 1, 6, "expected a duration", "found 'extra'"},  // tick DUR
      {"task A\nexpect field A.foo == 1\n", 2, 16, "expected a field (vruntime", "found 'foo'"},
      {"task A\nexpect field A.vruntime = 1\n", 2, 25, "expected a comparison", "found '='"},
      {"task A\nexpect field A.vruntime == 1.5\n", 2, 28, "whole number of nanoseconds", "found '1.5'"},
      {"task A\nexpect field A.vruntime == 9223372036854775808\n", 2, 28, "expected an integer", "out of range"},
      {"task A\nexpect field A.vruntime ==\n", 2, 27, "expected a value", "found end of line"},
      {"task A\nexpect field vruntime == 1\n", 2, 14, "expected NAME.FIELD", "found 'vruntime'"},
      {"task A\nexpect curr B\n", 2, 13, "created earlier", "found 'B'"},
      {"expect nothing\n", 1, 8, "expected violation, no-violation, curr, pick, field or queue", "found 'nothing'"},
      {"hz 200\n", 1, 4, "expected HZ of 100, 250, 300 or 1000", "found '200'"},
      {"cpus 0\n", 1, 6, "expected a CPU count between 1 and 4096", "found '0'"},
      {"cpus 4097\n", 1, 6, "expected a CPU count", "found '4097'"},
      {"cpus 2\ncpus 3\n", 2, 1, "at most once", "the first is on line 1"},
      {"base_slice 200ms\n", 1, 12, "between 0.1ms and 100ms", "found '200ms'"},
      {"features NO_NEXT_BUDDY,FOO\n", 1, 24, "expected a scheduler feature", "found 'FOO'"},
      {"features NEXT_BUDDY,,PICK_BUDDY\n", 1, 21, "expected a scheduler feature name", "found an empty name"},
      {"features NEXT_BUDDY, PICK_BUDDY\n", 1, 22, "without spaces", "found 'PICK_BUDDY'"},
      {"features NEXT_BUDDY PICK_BUDDY\n", 1, 21, "expected end of line after the feature list",
       "found 'PICK_BUDDY'"},
      {"features NEXT_BUDDY,\n", 1, 21, "expected a scheduler feature name", "found an empty name"},
      {"bug=\n", 1, 5, "expected a bug id", "found nothing"},
      {"profile mainline bug=B01\nbug B02\n", 2, 1, "at most once", "'bug'"},
      {"profile mainline cpus=3\n", 1, 18, "expected 'bug=ID' or end of line", "found 'cpus=3'"},
      {"expect violation DL\n", 1, 18, "expected an invariant id", "found 'DL'"},
      {"expect violation I-dl\n", 1, 18, "expected an invariant id", "found 'I-dl'"},
      {"expect violation I-DL on 3\n", 1, 23, "expected 'at LINE'", "found 'on'"},
      {"expect violation I-DL at x\n", 1, 26, "expected a line number", "found 'x'"},
      {"task A\nexpect violation I-DL at 5\n", 2, 26, "expected the line number of an operation", "found 5"},
      {"task A\n# c\nexpect violation I-DL at 2\n", 3, 26, "expected the line number of an operation",
       "line 2 holds no operation"},
      {"expect no-violation\nexpect violation I-X\n", 2, 8, "either 'expect violation' or 'expect no-violation'",
       "found both"},
      {"expect no-violation\nexpect no-violation\n", 2, 8, "at most once", "found a second one"},
      {"task A\n\nwake A\n  bogus 1\n", 4, 3, "expected an operation (task, fork", "found 'bogus'"},
      {"bogus\n", 1, 1, "expected a directive (profile", "found 'bogus'"},
      {std::string_view("\x00\xff\n", 3).data(), 1, 1, "expected a directive", "found '\\x00\\xff'"},
      {"task A\nnice A -21\n", 2, 8, "between -20 and 19", "found '-21'"},
      {"task A\npolicy A fifo\n", 2, 10, "expected a fair policy (normal, batch or idle)", "found 'fifo'"},
      {"task A\npolicy A rr\n", 2, 10, "expected a policy (normal, batch or idle)", "found 'rr'"},
      {"task R policy=fifo nice=1\n", 1, 20, "expected no 'nice=' for a SCHED_FIFO task", "no nice level"},
      {"task R slice=1ms policy=fifo\n", 1, 8, "expected no 'slice=' for a SCHED_FIFO task", "custom slice"},
      {"task R policy=rr\n", 1, 15, "expected a policy (normal, batch, idle or fifo)", "found 'rr'"},
      {"tick nopreempt now\n", 1, 16, "expected end of line after 'nopreempt'", "found 'now'"},
      {"task A\nslice A 200ms\n", 2, 9, "between 0.1ms and 100ms", "found '200ms'"},
      {"task A\nslice A\n", 2, 8, "expected a slice", "found end of line"},
      {"task A\nsleep A A\n", 2, 9, "expected end of line", "found 'A'"},
      // run settings
      {"skip\n", 1, 5, "expected a comma-separated list of invariants", "found end of line"},
      {"skip I-AUG,I-NOPE\n", 1, 12, "expected an invariant id (I-NULLPICK, I-SUM", "found 'I-NOPE'"},
      {"skip AUG\n", 1, 6, "expected an invariant id", "found 'AUG'"},
      {"skip I-aug\n", 1, 6, "expected an invariant id", "found 'I-aug'"},
      {"skip I-AUG,,I-KEY\n", 1, 12, "expected an invariant id (e.g. I-AUG) in the skip list", "found an empty name"},
      {"skip I-AUG,\n", 1, 12, "expected an invariant id (e.g. I-AUG) in the skip list", "found an empty name"},
      {"skip I-AUG, I-KEY\n", 1, 13, "without spaces", "found 'I-KEY' after a space"},
      {"skip I-AUG I-KEY\n", 1, 12, "expected end of line after the invariant list", "found 'I-KEY'"},
      {"skip I-AUG,I-KEY,I-AUG\n", 1, 18, "at most once in the skip list", "found a second 'I-AUG'"},
      {"skip I-AUG\nskip I-KEY\n", 2, 1, "at most once", "the first is on line 1"},
      {"task A\nskip I-AUG\n", 2, 1, "expected an operation or 'expect'", "found the directive 'skip'"},
      {"tolerate\n", 1, 9, "expected 'none' after 'tolerate'", "found end of line"},
      {"tolerate F1,F6\n", 1, 10, "expected 'none' after 'tolerate'", "found 'F1,F6'"},
      {"tolerate none now\n", 1, 15, "expected end of line after 'tolerate none'", "found 'now'"},
      {"tolerate none\ntolerate none\n", 2, 1, "at most once", "the first is on line 1"},
      {"task A\ntolerate none\n", 2, 1, "expected an operation or 'expect'", "found the directive 'tolerate'"},
      {"keep_going 1\n", 1, 12, "expected end of line after 'keep_going'", "found '1'"},
      {"keep_going\nkeep_going\n", 2, 1, "at most once", "the first is on line 1"},
      {"task A\nkeep_going\n", 2, 1, "expected an operation or 'expect'", "found the directive 'keep_going'"},
      {"keep-going\n", 1, 1, "expected a directive (profile, features, bug, cpus, hz, base_slice, runqueues, smt, "
                            "skip, tolerate, keep_going, backend)", "found 'keep-going'"},
      {"backend\n", 1, 8, "expected a backend (model, kernel, lockstep) after 'backend'", "found end of line"},
      {"backend qemu\n", 1, 9, "expected a backend (model, kernel, lockstep)", "found 'qemu'"},
      {"backend Kernel\n", 1, 9, "expected a backend (model, kernel, lockstep)", "found 'Kernel'"},
      {"backend kernel,lockstep\n", 1, 9, "expected a backend", "found 'kernel,lockstep'"},
      {"backend kernel now\n", 1, 16, "expected end of line after the backend", "found 'now'"},
      {"backend kernel\nbackend lockstep\n", 2, 1, "at most once", "found a second 'backend' (the first is on line 1)"},
      {"backend model\ntask A\nbackend model\n", 3, 1, "expected an operation or 'expect'",
       "found the directive 'backend' (directives must come before the first operation, which is on line 2)"},
      {"profile mainline\nskip I-PROT,I-DL\ntask A\nexpect violation I-DL\n", 4, 18,
       "expected an invariant the scenario checks", "'skip' directive on line 2"},
  };
  for (const Case& c : cases) {
    // The NUL case needs its explicit length.
    const std::string_view text =
        c.text[0] == '\0' ? std::string_view("\x00\xff\n", 3) : std::string_view(c.text);
    const ParseError e = parse_err(text);
    SCOPED_TRACE(std::string(text));
    EXPECT_EQ(e.file, "t.scn");
    EXPECT_EQ(e.line, c.line) << e.message;
    EXPECT_EQ(e.column, c.column) << e.message;
    EXPECT_NE(e.message.find(c.expected), std::string::npos) << e.message;
    EXPECT_NE(e.message.find(c.found), std::string::npos) << e.message;
  }
}

TEST(scenario_parse, RunSettingsDirectives) {
  const Scenario d = parse_ok("task A\n");
  EXPECT_TRUE(d.skip.empty());
  EXPECT_TRUE(d.tolerate);
  EXPECT_FALSE(d.keep_going);
  EXPECT_EQ(d.backend, Backend::model);
  EXPECT_EQ(d.backend_line, 0);
  const Scenario s = parse_ok(
      "# F6 on two CPUs\n"
      "tolerate none   # report F1, F6, F7\n"
      "profile v7.0\n"
      "backend lockstep  # model and kernel side by side\n"
      "skip I-PROT,I-AUG\n"
      "runqueues 2\n"
      "keep_going\n"
      "task A\n"
      "expect violation I-OVF\n");
  EXPECT_TRUE(s.keep_going);
  EXPECT_EQ(s.backend, Backend::lockstep);
  EXPECT_EQ(s.backend_line, 4);
  EXPECT_EQ(s.skip, (std::vector<std::string>{"I-PROT", "I-AUG"}));  // as written, not sorted
  EXPECT_FALSE(s.tolerate);
  // The printer puts them after the other directives; parse(print(s)) is s.
  const std::string text = print_scenario(s);
  EXPECT_EQ(text,
            "# F6 on two CPUs\n"
            "profile v7.0\n"
            "runqueues 2\n"
            "skip I-PROT,I-AUG\n"
            "tolerate none\n"
            "keep_going\n"
            "backend lockstep\n"
            "task A\n"
            "expect violation I-OVF\n");
  const Scenario back = parse_ok(text);
  EXPECT_TRUE(same_scenario(s, back));
  EXPECT_EQ(print_scenario(back), text);
  // Each setting is part of the meaning.
  Scenario other = s;
  other.tolerate = true;
  EXPECT_FALSE(same_scenario(s, other));
  other = s;
  other.skip = {"I-AUG", "I-PROT"};
  EXPECT_FALSE(same_scenario(s, other));
  other = s;
  other.keep_going = false;
  EXPECT_FALSE(same_scenario(s, other));
  other = s;
  other.backend = Backend::kernel;
  EXPECT_FALSE(same_scenario(s, other));
  // ... but not the line it is written on
  other = s;
  other.backend_line = 9;
  EXPECT_TRUE(same_scenario(s, other));
  // Every backend reads back; `backend model` is the default, which the printer leaves out.
  for (const Backend b : {Backend::model, Backend::kernel, Backend::lockstep}) {
    const Scenario k = parse_ok("backend " + std::string(backend_name(b)) + "\ntask A\n");
    EXPECT_EQ(k.backend, b);
    EXPECT_EQ(k.backend_line, 1);
  }
  EXPECT_EQ(print_scenario(parse_ok("backend model\ntask A\n")), "profile mainline\ntask A\n");
  EXPECT_EQ(print_scenario(parse_ok("backend kernel\ntask A\n")), "profile mainline\nbackend kernel\ntask A\n");
  // Every invariant of the catalogue can be skipped.
  std::string all;
  for (std::size_t i = 0; i < inv::kIdCount; ++i)
    all += (i ? "," : "") + std::string(inv::id_name(static_cast<inv::Id>(i)));
  EXPECT_EQ(parse_ok("skip " + all + "\n").skip.size(), inv::kIdCount);
}

TEST(scenario_parse, ErrorFormat) {
  const ParseError e = parse_err("task A\nwake B\n");
  EXPECT_EQ(format_parse_error(e).rfind("t.scn:2:6: error: expected ", 0), 0u) << format_parse_error(e);
}

TEST(scenario_parse, HostileInputDoesNotCrash) {
  const std::string long_line(1 << 20, 'x');
  EXPECT_EQ(parse_err(long_line).column, 1);
  EXPECT_LT(parse_err(long_line).message.size(), 400u);
  std::string many_tasks;
  for (int i = 0; i < 600; ++i) many_tasks += "task t" + std::to_string(i) + "\n";
  const ParseError e = parse_err(many_tasks);
  EXPECT_EQ(e.line, 513);
  EXPECT_NE(e.message.find("at most 512 tasks"), std::string::npos) << e.message;
  std::string all_bytes;
  for (int i = 0; i < 256; ++i) all_bytes += static_cast<char>(i);
  (void)parse_scenario(all_bytes, "bytes");
  (void)parse_scenario(std::string(1000, '\n') + "# x", "nl");
  EXPECT_EQ(parse_err(std::string(1000, '\n') + "run x").line, 1001);
}

RC_GTEST_PROP(scenario_parse, ArbitraryTextNeverCrashes, (const std::string& text)) {
  const ParseResult r = parse_scenario(text, "rc");
  if (const auto* e = std::get_if<ParseError>(&r)) {
    RC_ASSERT(e->line >= 1);
    RC_ASSERT(e->column >= 1);
    RC_ASSERT(e->message.rfind("expected", 0) == 0);
  } else {
    const Scenario& s = std::get<Scenario>(r);
    const ParseResult again = parse_scenario(print_scenario(s), "rc2");
    RC_ASSERT(std::holds_alternative<Scenario>(again));
    RC_ASSERT(same_scenario(std::get<Scenario>(again), s));
  }
}

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

// Version 7 (issue 21 part 4): create's policy byte from 240 on is an RT task;
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

// Version 8 (issue 26): a wake's or sleep's task byte from kBytesFanOut (64) on
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
