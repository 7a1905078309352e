#!/usr/bin/env bash
# The bridge commands from the command line: exit codes, error messages,
# export -> import round trip, compare. Usage: bridge_cli.sh EEVDF_CHECK SOURCE_DIR WORK_DIR
set -uo pipefail
bin="$1"; src="$2"; work="$3"
mkdir -p "$work"
data="$src/tests/data/rtapp"
f1="$src/corpus/regressions/F1-vprot-not-rescaled-by-renice.scn"
status=0
expect_rc() {  # expect_rc RC DESCRIPTION -- command...
  local want="$1" what="$2"; shift 3
  "$@" > "$work/out.txt" 2> "$work/err.txt"; local rc=$?
  if [ "$rc" -eq "$want" ]; then echo "ok: $what (exit $rc)"; else echo "FAIL: $what: exit $rc, expected $want"; cat "$work/err.txt"; status=1; fi
}
expect_text() {  # expect_text FILE TEXT DESCRIPTION
  if grep -qF -- "$2" "$1"; then echo "ok: $3"; else echo "FAIL: $3: no '$2' in $1"; status=1; fi
}
for f in run_sleep timer phases_yield suspend_resume; do
  expect_rc 0 "run --rt-app $f" -- "$bin" run --rt-app "$data/$f.json" --duration 100ms
  expect_text "$work/out.txt" "invariant violations: none" "$f: no violation"
done
expect_rc 2 "unsupported event" -- "$bin" run --rt-app "$data/unsupported_lock.json"
expect_text "$work/err.txt" "task 't1': unsupported rt-app event 'lock'" "the error names the event and the task"
expect_rc 2 "unsupported policy" -- "$bin" run --rt-app "$data/unsupported_policy.json"
expect_text "$work/err.txt" "SCHED_FIFO" "the error names the policy"
expect_rc 2 "bad duration" -- "$bin" run --rt-app "$data/timer.json" --duration 3parsecs
expect_rc 2 "run without a workload" -- "$bin" run
expect_rc 0 "run --rt-app --scenario-out" -- "$bin" run --rt-app "$data/timer.json" --duration 20ms --scenario-out "$work/timer.scn"
expect_rc 0 "the written scenario replays" -- "$bin" run --quiet "$work/timer.scn"
expect_rc 0 "export --kstep F1" -- "$bin" export --kstep "$f1" -o "$work/F1.c"
expect_text "$work/F1.c" "KSTEP_DRIVER_DEFINE" "a kSTEP driver"
expect_rc 2 "export needs one format" -- "$bin" export "$f1"
expect_rc 0 "export --rt-app F1" -- "$bin" export --rt-app "$f1" -o "$work/F1.json"
expect_rc 0 "the exported rt-app file imports" -- "$bin" run --rt-app "$work/F1.json" --duration 10ms
expect_rc 0 "compare an rt-app file" -- "$bin" compare "$data/run_sleep.json" --vs RFC_SAME_PRIO_NO_WAKEUP_PREEMPT --duration 100ms
expect_text "$work/out.txt" "wakeup preemptions" "compare prints the counters"
expect_text "$work/out.txt" "latency p50/p99/max" "compare prints latency percentiles"
expect_rc 1 "compare a scenario with a violation" -- "$bin" compare "$f1" --features mainline --vs v7.1
expect_rc 2 "compare with an unknown feature" -- "$bin" compare "$f1" --vs NO_SUCH_THING
expect_text "$work/err.txt" "NO_SUCH_THING" "the error names it"
expect_rc 0 "compare three sides on four CPUs" -- "$bin" compare "$data/schbench_like.json" --features mainline:NO_SIS_UTIL \
  --vs v7.3:NO_SIS_UTIL,NO_WA_WEIGHT --vs v7.3:NO_SIS_UTIL,NO_WA_WEIGHT,cgroup_mode=smp --runqueues 4 --duration 50ms
expect_text "$work/out.txt" "v7.3 NO_SIS_UTIL,NO_WA_WEIGHT,cgroup_mode=smp" "a column for each side"
expect_text "$work/out.txt" "wake-ups: waker's/prev/other CPU" "where wake-ups landed"
expect_text "$work/out.txt" "4 CPUs" "the CPU count is printed"
expect_rc 2 "compare: cgroup_mode on a hierarchical profile" -- "$bin" compare "$data/schbench_like.json" --vs v7.2:cgroup_mode=smp --runqueues 2
expect_text "$work/err.txt" "cgroup_mode exists only on the single runqueue" "the error says why"
expect_rc 2 "compare: too many runqueues" -- "$bin" compare "$data/schbench_like.json" --vs v7.3 --runqueues 9
expect_rc 2 "run --rt-app: affinity on several CPUs" -- "$bin" run --rt-app "$work/F1.json" --runqueues 2 --duration 1ms
expect_rc 0 "run --rt-app on four CPUs" -- "$bin" run --rt-app "$data/schbench_like.json" --features NO_SIS_UTIL --runqueues 4 --duration 20ms --scenario-out "$work/sb.scn"
expect_text "$work/sb.scn" "runqueues 4" "the written scenario has its CPUs"
expect_text "$work/sb.scn" "cpus 4" "and as many online CPUs (tg_cpus, the base slice)"
expect_rc 0 "the four-CPU scenario replays" -- "$bin" run --quiet "$work/sb.scn"
expect_rc 0 "report on four CPUs" -- "$bin" report "$work/sb.scn" -o "$work/sb.html"
expect_text "$work/sb.html" "V CPU 3" "a V line for each CPU"
expect_text "$work/sb.html" " on CPU 2 from " "running bars say their CPU"
expect_rc 0 "report" -- "$bin" report "$f1" -o "$work/F1.html"
cp "$work/F1.html" "$work/F1-first.html"
"$bin" report "$f1" -o "$work/F1.html" 2>/dev/null
cmp -s "$work/F1.html" "$work/F1-first.html" && echo "ok: the report is deterministic" || { echo "FAIL: report differs between runs"; status=1; }
exit $status
