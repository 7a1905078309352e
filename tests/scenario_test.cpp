// Scenario language: durations and the parser (examples and exact error
// positions). The printer and the parse/print round trip:
// scenario_print_test.cpp; the byte format: scenario_bytes_test.cpp.
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

}  // namespace
}  // namespace eevdf::scn
