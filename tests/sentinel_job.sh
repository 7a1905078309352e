#!/usr/bin/env bash
# The CI job a kernel tree copies (ci/sentinel-job.sh) on a tree, as its CI runs
# it: the README's setup builds the tool on the tree in WORK/build, the sentinel
# writes TAP (read by prove), JUnit (read by Python) and its report; then the
# before/after form with the tree as its own base: nothing new, exit 0.
# Usage: sentinel_job.sh JOB_SCRIPT WORK TREE
set -uo pipefail
job=$1 work=$2 tree=$3
fail() { echo "FAIL: $*"; exit 1; }
mkdir -p "$work"
export EEVDF_BUILD=${EEVDF_BUILD:-$work/build} SENTINEL_TIME=${SENTINEL_TIME:-20}
start=$(date +%s)
SENTINEL_OUT=$work/out bash "$job" "$tree" >"$work/job.tap" 2>"$work/job.err"; rc=$?
echo "sentinel-job: exit $rc after $(( $(date +%s) - start )) s"
[ $rc -eq 0 ] || fail "exit $rc: $(tail -20 "$work/job.err")"
prove --exec cat "$work/job.tap" >"$work/prove" 2>&1 || fail "prove: $(cat "$work/prove")"
grep -q "^ok [0-9]* [0-9.]*: lockstep$" "$work/job.tap" || fail "no lockstep point: $(head "$work/job.tap")"
grep -q "^# | K1 | \*\*present\*\*" "$work/job.tap" || fail "no K1 row in the report"
[ -s "$work/out/report.json" ] && [ -s "$work/out/report.md" ] || fail "no report in $work/out"
python3 -c "import sys, xml.etree.ElementTree as ET; r = ET.parse(sys.argv[1]).getroot(); assert r.tag == 'testsuites' and int(r.get('tests')) > 3" \
  "$work/out/junit.xml" || fail "JUnit"
start=$(date +%s)
SENTINEL_OUT=$work/out2 bash "$job" "$tree" "$tree" >"$work/job2.tap" 2>"$work/job2.err"; rc=$?
echo "sentinel-job with a base: exit $rc after $(( $(date +%s) - start )) s"
[ $rc -eq 0 ] || fail "before/after: exit $rc: $(tail -20 "$work/job2.tap")"
prove --exec cat "$work/job2.tap" >"$work/prove" 2>&1 || fail "prove (before/after): $(cat "$work/prove")"
grep -q "^# nothing changed since" "$work/job2.tap" || fail "before/after: $(tail "$work/job2.tap")"
echo "sentinel-job: ok"
