#!/usr/bin/env bash
# Throughput of the libFuzzer target scenario_fuzzer as docs/fuzzing.md measures it:
# profile mainline, every invariant on, inputs of at most 64 operations, one
# process, -print_final_stats=1. Each repeat starts from a fresh copy of the
# named (hand-written) seeds of corpus/seeds/mainline with its own -seed. Prints per repeat libFuzzer's own
# figure (executions / wall-clock seconds) and executions per CPU second
# (user + sys of the process: what one dedicated core would do on a loaded
# machine), then the best and the range of each.
#
#   scripts/fuzz-bench.sh [BINARY] [SECONDS=30] [REPEATS=3]
#   BINARY defaults to build-fuzz/fuzz/targets/scenario_fuzzer (build it with
#   the cmake line in docs/fuzzing.md, "libFuzzer throughput").
#   MAX_LEN (default 257) and MAX_OPS (default 64, exported as EEVDF_MAX_OPS)
#   in the environment change the input bound: 1 + 64 x 4 bytes holds 64
#   operations of any kind; MAX_OPS caps the count for inputs of 1-byte ops.
#   FLAGS adds libFuzzer flags (e.g. FLAGS=-entropic=0).
#   PROFILE (default mainline) fuzzes another profile; on one with expected
#   findings (docs/profiles.md) a repeat ends at its first finding.
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${1:-build-fuzz/fuzz/targets/scenario_fuzzer}"
seconds="${2:-30}"
repeats="${3:-3}"
max_len="${MAX_LEN:-257}"
max_ops="${MAX_OPS:-64}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
wall=() cpu=()
for i in $(seq 1 "$repeats"); do
  rm -rf "$work/corpus" && mkdir "$work/corpus"
  for f in corpus/seeds/mainline/*.bin; do  # the named seeds only: a fixed start
    [[ "$(basename "$f")" =~ ^[0-9a-f]{40}\.bin$ ]] || cp "$f" "$work/corpus/"
  done
  EEVDF_PROFILE="${PROFILE:-mainline}" EEVDF_MAX_OPS="$max_ops" /usr/bin/time -f "cputime %U %S" -o "$work/time" \
    "$bin" "$work/corpus" -max_len="$max_len" -max_total_time="$seconds" -seed="$i" -print_final_stats=1 ${FLAGS:-} \
    >"$work/log" 2>&1 || { tail -40 "$work/log"; exit 1; }
  units=$(awk '/^stat::number_of_executed_units/ {print $2}' "$work/log")
  w=$(awk '/^stat::average_exec_per_sec/ {print $2}' "$work/log")
  c=$(awk -v u="$units" '/^cputime/ {printf "%d", u / ($2 + $3)}' "$work/time")
  cov=$(grep -E "^#[0-9]+[[:space:]]+DONE" "$work/log" | grep -oE "cov: [0-9]+ ft: [0-9]+" || true)
  echo "run $i: $units executions, $w exec/s (libFuzzer, wall clock), $c exec per CPU second, $cov"
  wall+=("$w") cpu+=("$c")
done
summary() { printf '%s\n' "${@:2}" | sort -n | awk -v what="$1" '{v[NR]=$1} END {printf "%s: best %d, range %d..%d\n", what, v[NR], v[1], v[NR]}'; }
summary "exec/s (wall clock)" "${wall[@]}"
summary "exec per CPU second" "${cpu[@]}"
echo "($bin, profile mainline, max_len $max_len, at most $max_ops operations, ${seconds}s x $repeats)"
