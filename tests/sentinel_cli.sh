#!/usr/bin/env bash
# sentinel, --tap and --junit through the CLI (docs/sentinel.md): a tree it
# cannot use, a recorded report rendered and compared (--since), and the TAP of
# run, fuzz and sentinel read by Perl's TAP parser (prove), their JUnit XML by
# Python's. With a kernel backend in the build: the sentinel on the build's own
# tree, then again with --since that report (nothing new, exit 0).
# Usage: sentinel_cli.sh EEVDF_CHECK SOURCE_DIR [KERNEL_TREE]
set -uo pipefail
bin=$1 src=$2 tree=${3:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
recorded=$src/tests/data/sentinel/report-6.12.118.json

# a tree that is not there: usage error; a directory that is no kernel tree: reported, exit 1
"$bin" sentinel /nonexistent/linux --out "$work/o0" 2>"$work/err"; rc=$?
[ $rc -eq 2 ] || fail "missing tree: exit $rc"
grep -q "/nonexistent/linux: no such directory or tarball" "$work/err" || fail "missing tree: $(cat "$work/err")"
mkdir "$work/empty"
"$bin" sentinel "$work/empty" --out "$work/o1" >"$work/out" 2>"$work/err"; rc=$?
[ $rc -eq 1 ] || fail "empty tree: exit $rc"
grep -q "cannot build" "$work/out" || fail "empty tree: no 'cannot build' in the report"
grep -q "Makefile: missing" "$work/out" || fail "empty tree: the reason is not in the report"
"$bin" sentinel --report "$work/out" 2>"$work/err"; [ $? -eq 2 ] || fail "a report that is not JSON accepted"

# a recorded report against itself: nothing changed, exit 0
"$bin" sentinel --report "$recorded" --since "$recorded" >"$work/out"; rc=$?
[ $rc -eq 0 ] || fail "--since itself: exit $rc"
grep -q "^nothing changed since" "$work/out" || fail "--since itself: $(cat "$work/out")"
# F1 absent then, present now; K2 present then, absent now: one new, one gone, exit 1
python3 - "$recorded" "$work/newer.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
t = r["trees"][0]
assert t["findings"]["F1"] == "absent" and t["findings"]["K2"] == "present", t["findings"]
t["findings"]["F1"] = "present"
t["findings"]["K2"] = "absent"
json.dump(r, open(sys.argv[2], "w"))
PY
"$bin" sentinel --report "$work/newer.json" --since "$recorded" >"$work/out"; rc=$?
[ $rc -eq 1 ] || fail "--since with a new finding: exit $rc"
grep -qx "new: 6.12.118: F1: absent -> present" "$work/out" || fail "--since: $(cat "$work/out")"
grep -qx "gone: 6.12.118: K2: present -> absent" "$work/out" || fail "--since: $(cat "$work/out")"
[ "$(wc -l <"$work/out")" -eq 2 ] || fail "--since printed more than the changes: $(cat "$work/out")"

# TAP: prove parses each; a passing one passes, a failing one fails without a parse error
tap_ok() {  # FILE NAME
  prove --exec cat "$1" >"$work/prove" 2>&1 || fail "$2: prove failed: $(cat "$work/prove")"
  grep -q "Parse errors" "$work/prove" && fail "$2: TAP parse errors: $(cat "$work/prove")"
  head -1 "$1" | grep -qx "TAP version 13" || fail "$2: no 'TAP version 13' first line"
}
tap_fails() {
  prove --exec cat "$1" >"$work/prove" 2>&1 && fail "$2: prove passed a failing run: $(cat "$1")"
  grep -q "Parse errors" "$work/prove" && fail "$2: TAP parse errors: $(cat "$work/prove")"
  grep -q "Failed test:  1" "$work/prove" || fail "$2: $(cat "$work/prove")"
}
junit_ok() {  # FILE TESTS FAILURES SKIPPED
  python3 - "$@" <<'PY' || fail "JUnit $1"
import sys, xml.etree.ElementTree as ET
f, tests, failures, skipped = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
root = ET.parse(f).getroot()
assert root.tag == "testsuites", root.tag
cases = root.findall("testsuite/testcase")
assert len(cases) == tests == int(root.get("tests")), (len(cases), tests, root.get("tests"))
assert len(root.findall("testsuite/testcase/failure")) == failures == int(root.get("failures")), failures
assert len(root.findall("testsuite/testcase/skipped")) == skipped == int(root.get("skipped")), skipped
for s in root.findall("testsuite"):
    assert int(s.get("tests")) == len(s.findall("testcase")), s.get("name")
    assert all(c.get("name") and c.get("classname") for c in s.findall("testcase"))
PY
}
"$bin" run "$src/corpus/regressions/F1-vprot-not-rescaled-by-renice.scn" --tap --junit "$work/run.xml" >"$work/run.tap" \
  || fail "run --tap: exit $?"
tap_ok "$work/run.tap" "run --tap"
junit_ok "$work/run.xml" 1 0 0
# (the F1 file says 'tolerate none'; without its expect lines the violation fails the run)
grep -v '^expect' "$src/corpus/regressions/F1-vprot-not-rescaled-by-renice.scn" >"$work/violating.scn"
"$bin" run "$work/violating.scn" --tap --junit "$work/bad.xml" >"$work/bad.tap" 2>"$work/err"; rc=$?
[ $rc -eq 1 ] || fail "a violating run: exit $rc $(cat "$work/err")"
grep -q "^# I-PROT" "$work/bad.tap" || fail "run --tap: the violation is not among the comments: $(cat "$work/bad.tap")"
tap_fails "$work/bad.tap" "run --tap (violation)"
junit_ok "$work/bad.xml" 1 1 0
# a scenario that does not parse is a failed point too (exit 2), not an empty TAP stream
echo "wake" >"$work/broken.scn"
"$bin" run "$work/broken.scn" --tap >"$work/broken.tap" 2>/dev/null; [ $? -eq 2 ] || fail "a broken scenario: not exit 2"
tap_fails "$work/broken.tap" "run --tap (a scenario that does not parse)"
"$bin" fuzz --profile mainline --time 1 --seed 1 --findings "$work/f" --tap --junit "$work/fuzz.xml" >"$work/fuzz.tap" 2>/dev/null \
  || fail "fuzz --tap: exit $?"
tap_ok "$work/fuzz.tap" "fuzz --tap"
grep -q "^ok 1 fuzz profile mainline backend model" "$work/fuzz.tap" || fail "fuzz --tap: $(head -3 "$work/fuzz.tap")"
junit_ok "$work/fuzz.xml" 1 0 0
"$bin" sentinel --report "$recorded" --tap --junit "$work/sentinel.xml" >"$work/sentinel.tap" || fail "sentinel --tap: exit $?"
tap_ok "$work/sentinel.tap" "sentinel --tap"
points=$(python3 -c "import json,sys; t=json.load(open(sys.argv[1]))['trees'][0]; print(3 + len(t['scenarios']))" "$recorded")
skips=$(python3 -c "import json,sys; t=json.load(open(sys.argv[1]))['trees'][0]; print(sum(s['result']=='not expressible' for s in t['scenarios']))" "$recorded")
grep -qx "1..$points" "$work/sentinel.tap" || fail "sentinel --tap: not $points points"
[ "$(grep -c '# SKIP not expressible' "$work/sentinel.tap")" -eq "$skips" ] || fail "sentinel --tap: not $skips skips"
junit_ok "$work/sentinel.xml" "$points" 0 "$skips"
"$bin" sentinel --report "$work/newer.json" --since "$recorded" --tap >"$work/since.tap"
prove --exec cat "$work/since.tap" >"$work/prove" 2>&1 && fail "sentinel --since --tap with a new finding passed"
grep -q "Parse errors" "$work/prove" && fail "sentinel --since --tap: parse errors"

# the build's own tree (no second build): a report, then nothing new against it
if [ -n "$tree" ]; then
  "$bin" sentinel "$tree" --time 2 --out "$work/s1" >"$work/out" 2>"$work/err" || fail "sentinel $tree: exit $? $(cat "$work/err")"
  grep -q "^| K1 | \*\*present\*\*" "$work/out" || fail "sentinel $tree: no K1 row: $(cat "$work/out")"
  grep -q "lockstep against" "$work/err" || fail "sentinel $tree: no progress line per stage"
  "$bin" sentinel "$tree" --time 2 --out "$work/s2" --since "$work/s1/report.json" >"$work/out" 2>"$work/err"; rc=$?
  [ $rc -eq 0 ] || fail "sentinel $tree --since an identical run: exit $rc: $(cat "$work/out")"
  grep -q "^nothing changed since" "$work/out" || fail "sentinel --since: $(cat "$work/out")"
fi
echo "sentinel_cli: ok"
