#!/usr/bin/env bash
# Shrinking benchmark: the same libFuzzer crash of each bug switch,
# minimized by libFuzzer (-minimize_crash=1) and by `eevdf-check minimize`, with
# the same time budget. Prints, per bug, the operations of the crash, of both
# results, the seconds each took and the invariant each result still violates
# (libFuzzer keeps any crash; eevdf-check keeps the same invariant and site).
#
#   bench/minimize-compare.sh [--bugs "B02 B20"] [--time S] [--find-time S] [--out DIR]
#
# Needs build/cli/eevdf-check and a libFuzzer build of scenario_fuzzer
# (scripts/fuzz-smoke.sh builds build-fuzz/; EEVDF_CHECK and SCENARIO_FUZZER
# override the paths). Profile mainline, fuzzer seed 1, empty corpus.
set -uo pipefail
cd "$(dirname "$0")/.."

BUGS=${BUGS:-"B02 B06 B11 B16 B20 B23"}
TIME=${TIME:-20}
FIND_TIME=${FIND_TIME:-60}
OUT=${OUT:-build-minimize}
EC=${EEVDF_CHECK:-build/cli/eevdf-check}
FZ=${SCENARIO_FUZZER:-build-fuzz/fuzz/targets/scenario_fuzzer}
while [ $# -gt 0 ]; do
  case "$1" in
    --bugs) BUGS="$2"; shift ;;
    --time) TIME="$2"; shift ;;
    --find-time) FIND_TIME="$2"; shift ;;
    --out) OUT="$2"; shift ;;
    *) echo "minimize-compare: unknown argument '$1' (see the header of $0)" >&2; exit 2 ;;
  esac
  shift
done
for tool in "$EC" "$FZ"; do
  [ -x "$tool" ] || { echo "minimize-compare: $tool not found (see the header of $0)" >&2; exit 2; }
done

# "N operations, ..." and the first violated invariant of a replay
replay() {  # file bug -> "OPS INVARIANT"
  "$EC" replay "$1" --bug "$2" 2>&1 |
    awk '/ violated at / && !inv { inv = $1 } / operations, / { ops = $1 } END { print ops, (inv ? inv : "none") }'
}
seconds_since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }

echo "| bug | crash ops (invariant) | libFuzzer -minimize_crash: ops (invariant), s | eevdf-check minimize: ops (invariant), s |"
echo "|---|---|---|---|"
for bug in $BUGS; do
  d="$OUT/$bug"
  rm -rf "$d"
  mkdir -p "$d/corpus"
  EEVDF_PROFILE=mainline EEVDF_BUG="$bug" "$FZ" "$d/corpus" -seed=1 -max_total_time="$FIND_TIME" \
    -dict=fuzz/targets/scenario_fuzzer.dict -max_len=1024 -artifact_prefix="$d/" >"$d/find.log" 2>&1
  crash=$(ls "$d"/crash-* 2>/dev/null | head -1)
  if [ -z "$crash" ]; then
    echo "| $bug | no crash in ${FIND_TIME} s | | |"
    continue
  fi
  start=$(date +%s.%N)
  EEVDF_PROFILE=mainline EEVDF_BUG="$bug" "$FZ" -minimize_crash=1 -max_total_time="$TIME" \
    -exact_artifact_path="$d/libfuzzer-min" "$crash" >"$d/libfuzzer-min.log" 2>&1
  lf_s=$(seconds_since "$start")
  start=$(date +%s.%N)
  "$EC" minimize "$crash" --bug "$bug" --time "$TIME" -o "$d/eevdf-min.scn" >"$d/eevdf-min.log" 2>&1
  ec_s=$(seconds_since "$start")
  read -r c_ops c_inv <<<"$(replay "$crash" "$bug")"
  read -r l_ops l_inv <<<"$(replay "$d/libfuzzer-min" "$bug")"
  read -r e_ops e_inv <<<"$(replay "$d/eevdf-min.scn" "$bug")"
  echo "| $bug | $c_ops ($c_inv) | $l_ops ($l_inv), $lf_s | $e_ops ($e_inv), $ec_s |"
done
