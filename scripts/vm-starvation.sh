#!/usr/bin/env bash
# The booted-kernel measurement of docs/findings/K1.md (docs/notes/
# findings-history.md, "K1 on the booted kernel"): on Debian's 6.12.118 kernel in QEMU
# (scripts/vm-run.sh), task A spins alone on CPU 1 for 1 s, task B (SCHED_BATCH,
# so its arrival does not preempt) is woken on CPU 1, 200 ms later A's weight is
# raised (setpriority or sched_setscheduler from CPU 0), and the driver samples
# /proc/PID/schedstat of both every PERIOD for WATCH seconds: B's longest
# stretch without the CPU and each task's share. A control starts A at the
# target weight and does the same. Also prints the model's prediction
# (eevdf-check run, v6.12.118 profile, cpus 2, the same operations in 4 ms steps).
#
#   scripts/vm-starvation.sh [--trials 3] [--watch 20] [--period-ms 10] [--out DIR]
#                            [--eevdf-check PATH] [--summary-only] [VARIANT ...]
#
# VARIANT is WEIGHT-SLICE[-activity]: WEIGHT nice19 (19 -> -20), nice0 (0 -> -20)
# or idle (SCHED_IDLE -> SCHED_NORMAL); SLICE default (1.4 ms: 0.7 ms x 2 CPUs)
# or 100ms (debugfs base_slice_ns); -activity adds a task C on CPU 1 that wakes
# every 100 ms and runs 1 ms. Default: every WEIGHT-SLICE pair, no activity.
# One boot per trial, run one after another. Results: DIR/summary.tsv, one line a
# trial; DIR/RUN/ holds each run's plan, results.jsonl and console.log.
set -uo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
trials=3 watch=20 period_ms=10 out="$here/build/vm/starvation" check="$here/build/cli/eevdf-check" summary_only=0
variants=()
while [ $# -gt 0 ]; do
  case "$1" in
    --trials) trials="$2"; shift 2 ;;
    --watch) watch="$2"; shift 2 ;;
    --period-ms) period_ms="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --eevdf-check) check="$2"; shift 2 ;;
    --summary-only) summary_only=1; shift ;;  # rebuild DIR/summary.tsv from the runs in DIR, boot nothing
    -*) echo "vm-starvation: unknown option $1" >&2; exit 2 ;;
    *) variants+=("$1"); shift ;;
  esac
done
[ ${#variants[@]} -gt 0 ] || variants=(nice19-default nice19-100ms idle-default idle-100ms nice0-default nice0-100ms)
command -v jq >/dev/null || { echo "vm-starvation: needs jq (apt-get install jq)" >&2; exit 77; }
mkdir -p "$out"
summary="$out/summary.tsv"
header='variant\tmode\ttrial\tB_longest_s\tB_share\tA_share\tB_stretches_over_100ms\tB_longest_starts_s\topen_at_end\tA_kept_distance_s\tA_on_cpu_at_change\tC_longest_s\tsample_late_max_ms\tcpu1_other_switches'
[ -f "$summary" ] && [ $summary_only -eq 0 ] || printf "$header\n" > "$summary"

# the operations of a variant: A's first and second setting (driver words)
variant_ops() {  # $1 weight, $2 mode -> "TASK_A_LINE|CHANGE_LINE"
  case "$1:$2" in
    nice19:renice) echo "task A 19 normal 0|nice A -20" ;;
    nice19:control) echo "task A -20 normal 0|nice A -20" ;;
    nice0:renice) echo "task A 0 normal 0|nice A -20" ;;
    nice0:control) echo "task A -20 normal 0|nice A -20" ;;
    idle:renice) echo "task A 0 idle 0|policy A normal" ;;
    idle:control) echo "task A 0 normal 0|policy A normal" ;;
    *) return 1 ;;
  esac
}
model_ops() {  # the same in the scenario language
  case "$1:$2" in
    nice19:renice) echo "task A nice=19|nice A -20" ;;
    nice19:control) echo "task A nice=-20|" ;;
    nice0:renice) echo "task A|nice A -20" ;;
    nice0:control) echo "task A nice=-20|" ;;
    idle:renice) echo "task A policy=idle|policy A normal" ;;
    idle:control) echo "task A|" ;;
  esac
}

# the model's prediction: B's longest stretch off the CPU and its share over the watch
model_prediction() {  # $1 weight $2 slice $3 mode $4 activity(0/1)
  [ -x "$check" ] || { echo "-"; return; }
  local ops first change scn
  ops=$(model_ops "$1" "$3"); first=${ops%%|*}; change=${ops#*|}
  scn=$(mktemp /tmp/vm-starvation-XXXXXX.scn)
  {
    echo "profile v6.12.118"; echo "hz 250"; echo "cpus 2"; echo "keep_going"
    [ "$2" = 100ms ] && echo "base_slice 50ms"  # x 2 CPUs = 100 ms
    echo "$first"; echo "task B policy=batch"
    echo "wake A"; echo "run 1s"; echo "wake B"; echo "run 200ms"
    [ -n "$change" ] && echo "$change"
    for _ in $(seq 1 $((watch * 250))); do echo "run 4ms"; done
  } > "$scn"
  "$check" run "$scn" 2>/dev/null | awk -v n=$((watch * 250)) '
    $2 == "run" && $3 == "4ms" { i++; if ($5 == "B") { b++; if (gap > longest) longest = gap; gap = 0 } else gap++ }
    END { if (gap > longest) longest = gap; printf "%.3f\t%.4f", longest * 0.004, b / n }'
  rm -f "$scn"
}

# one line of the summary from a run's results.jsonl. A_kept_distance_s: A's
# d - v just after the change, in real time at its new weight, (d - v) * w / 2^20:
# how long A can run before its vruntime reaches that deadline (read by the
# driver a few ms after the change)
summarize() {  # $1 run dir, $2 variant, $3 mode, $4 trial
  jq -r --arg v "$2" --arg m "$3" --arg t "$4" -s '
    (map(select(.type == "watch")) | .[0]) as $w
    | (map(select(.type == "step" and (.op | test("^(nice|policy) A")))) | .[0]) as $s
    | (map(select(.type == "cpu_tasks" and .label == "before watch")) | .[0].tasks
       | map(select(.comm != "A" and .comm != "B" and .comm != "C")) | map({(.comm): .switches}) | add // {}) as $b
    | (map(select(.type == "cpu_tasks" and .label == "after watch")) | .[0].tasks
       | map(select(.comm != "A" and .comm != "B" and .comm != "C"))) as $a
    | ($a | map(select(.switches > ($b[.comm] // 0))) | map("\(.comm)+\(.switches - ($b[.comm] // 0))") | join(",")) as $other
    | [$v, $m, $t, ($w.tasks.B.longest_without_cpu_ns / 1e9 | tostring), ($w.tasks.B.share | tostring),
       ($w.tasks.A.share | tostring), ($w.tasks.B.stretches_over_100ms | tostring),
       ($w.tasks.B.longest_starts_at_ns / 1e9 | tostring), ($w.tasks.B.longest_open_at_end | tostring),
       (($s.tasks.A.deadline - $s.tasks.A.vruntime) * $s.tasks.A.weight / 1048576 / 1e9 | tostring), $s.curr,
       (if $w.tasks.C then ($w.tasks.C.longest_without_cpu_ns / 1e9 | tostring) else "-" end),
       ($w.late_max_ns / 1e6 | tostring), (if $other == "" then "none" else $other end)] | @tsv' \
    "$1/results.jsonl" | tee -a "$summary"
}

if [ $summary_only -eq 1 ]; then
  for run in "$out"/*/; do
    [ -f "$run/results.jsonl" ] || continue
    n=$(basename "$run"); trial=${n##*-}; rest=${n%-*}; mode=${rest##*-}; v=${rest%-*}
    summarize "$run" "$v" "$mode" "$trial" >/dev/null
  done
  column -t -s $'\t' "$summary"
  exit 0
fi

printf 'variant\tmode\tmodel: B_longest_s\tB_share\n'
for v in "${variants[@]}"; do
  weight=${v%%-*}; rest=${v#*-}; slice=${rest%%-*}; activity=0
  [[ "$v" == *-activity ]] && activity=1
  for mode in renice control; do
    printf '%s\t%s\t%s\n' "$v" "$mode" "$(model_prediction "$weight" "$slice" "$mode" "$activity")"
  done
done

for v in "${variants[@]}"; do
  weight=${v%%-*}; rest=${v#*-}; slice=${rest%%-*}; activity=0
  [[ "$v" == *-activity ]] && activity=1
  for mode in renice control; do
    ops=$(variant_ops "$weight" "$mode") || { echo "vm-starvation: unknown variant $v" >&2; exit 2; }
    for trial in $(seq 1 "$trials"); do
      run="$out/$v-$mode-$trial"
      mkdir -p "$run"
      {
        echo "note $v $mode trial $trial"
        [ "$slice" = 100ms ] && echo "base_slice 100000000"
        echo "${ops%%|*}"
        echo "task B 0 batch 0"
        [ $activity -eq 1 ] && echo "ticker C 100000000 1000000"
        echo "wake A"
        echo "run 1000000000"
        echo "wake B"
        echo "run 200000000"
        echo "${ops#*|}"
        echo "watch $((watch * 1000000000)) $((period_ms * 1000000))"
      } > "$run/plan"
      bash "$here/scripts/vm-run.sh" --plan "$run/plan" --out "$run" --timeout $((watch + 90)) 2>"$run/vm-run.log"
      rc=$?
      if [ $rc -ne 0 ]; then
        printf '%s\t%s\t%s\t%s\n' "$v" "$mode" "$trial" "$(cat "$run/outcome" 2>/dev/null || echo failed) (vm-run exit $rc)" | tee -a "$summary"
        [ $rc -eq 77 ] && exit 77
        continue
      fi
      summarize "$run" "$v" "$mode" "$trial"
    done
  done
done
