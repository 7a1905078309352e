#!/usr/bin/env bash
# Each confirmed finding on a booted kernel built from a tree, without and with
# its fix (docs/findings.md, "On the booted kernel, with and without the fix"):
# scripts/vm-kernel.sh builds the tree as it is and with `--fix ID`
# (kernelsrc/fixes.json), and the finding's probe runs on each:
#
#   K1   scripts/vm-starvation.sh nice19-default: B's longest wait after A's
#        renice 19 -> -20 (control: A starts at -20)
#   K2   scripts/vm-debug-read.sh: kernel crashes (K2's NULL pick) in BOOTS boots
#        of SECONDS of sched/debug reads beside 2 spinners and 2 ping-pong pairs
#   F10  scripts/vm-pelt.sh: CPU 1's load_avg before a renice of one of three
#        nice -20 spinners, and its lowest within 40 ms after
#   F9   scripts/vm-sched-idle.sh (SIS_UTIL off), BOOTS boots of SECONDS, seeds
#        1..BOOTS: W's wake-ups while X's entity may be delayed that stay on the
#        busy CPU 0 (scripts/vm-sched-idle-table.py --summary)
#
#   scripts/vm-findings.sh [--tree TREE] [--findings K1,K2,F10,F9] [--trials 3]
#                          [--boots 3] [--seconds 60] [--rounds 6] [--out DIR] [--cache DIR]
#
# TREE: default Debian's /usr/src/linux-source-6.12.tar.xz. A table on stdout
# (one line per finding and kernel); each probe's output under DIR. Long: under
# TCG about 20 minutes for K1, K2 and F10 on a 2-core machine, F9 about
# 2 x BOOTS x (SECONDS + 30) s more.
set -uo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
tree=/usr/src/linux-source-6.12.tar.xz findings=K1,K2,F10,F9 trials=3 boots=3 seconds=60 rounds=6
out="$here/build/vm-findings" cache="${EEVDF_VM_CACHE:-$here/build/vm}"
while [ $# -gt 0 ]; do
  case "$1" in
    --tree) tree="$2"; shift 2 ;;
    --findings) findings="$2"; shift 2 ;;
    --trials) trials="$2"; shift 2 ;;
    --boots) boots="$2"; shift 2 ;;
    --seconds) seconds="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --cache) cache="$2"; shift 2 ;;
    *) echo "vm-findings: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
command -v jq >/dev/null || { echo "vm-findings: needs jq (scripts/setup.sh --with-vm)" >&2; exit 77; }
mkdir -p "$out" || exit 2
export EEVDF_VM_CACHE="$cache"

kernel_of() {  # [fix]: the bzImage's path (built or cached)
  local args=(--tree "$tree" --cache "$cache")
  [ -n "${1:-}" ] && args+=(--fix "$1")
  bash "$here/scripts/vm-kernel.sh" "${args[@]}" | tail -1
}

k1() {  # kernel label image dir
  EEVDF_VM_KERNEL_IMAGE="$2" bash "$here/scripts/vm-starvation.sh" --trials "$trials" --out "$3" nice19-default \
    > "$3.log" 2>&1
  # per trial: B's longest wait (s), when it started (s after the change), A's deadline distance after it (s)
  local row
  for mode in renice control; do
    row=$(awk -F'\t' -v m=$mode '$2 == m && $4 ~ /^[0-9.]+$/ {
            w = w sep sprintf("%.2f", $4); at = at sep sprintf("%.1f", $8); d = d sep sprintf("%.4f", $10); sep = ", " }
          END { printf "B waits %s s at most, from %s s after the change; A keeps %s s of deadline", w, at, d }' \
          "$3/summary.tsv")
    printf '| K1 | %s | %s: %s |\n' "$1" "$mode" "$row"
  done
}

k2() {
  local crashes=0 ends=0 times="" b rc
  mkdir -p "$3" || exit 2
  for b in $(seq 1 "$boots"); do
    EEVDF_VM_KERNEL_IMAGE="$2" bash "$here/scripts/vm-debug-read.sh" --seconds "$seconds" --out "$3/boot$b" \
      > "$3/boot$b.log" 2>&1
    rc=$?
    if [ $rc -eq 3 ]; then
      crashes=$((crashes + 1))
      times+="$(grep -o 'after [0-9]*s' "$3/boot$b.log" | head -1 | tr -dc '0-9') s, "
    elif [ $rc -eq 0 ]; then
      ends=$((ends + 1))
    fi
  done
  printf '| K2 | %s | %d crashes in %d boots of %d s of reads%s; %d ran to the end |\n' "$1" "$crashes" "$boots" \
    "$seconds" "${times:+ (after ${times%, })}" "$ends"
}

f10() {
  EEVDF_VM_KERNEL_IMAGE="$2" bash "$here/scripts/vm-pelt.sh" --tasks 3 --rounds "$rounds" --out "$3" > "$3.log" 2>&1
  # per round after the first: the last load before the renice, the lowest within 40 ms after it
  jq -rs '[.[] | select(.type == "sample" and .round > 0)] | group_by(.round)
          | map({before: ([.[] | select(.t_us < 0)] | max_by(.t_us) | .load_avg),
                 low: ([.[] | select(.t_us >= 0 and .t_us <= 40000)] | min_by(.load_avg) | .load_avg)})
          | map(. + {drop: (100 * (.before - .low) / .before)})
          | "load \(map(.before) | min)-\(map(.before) | max) before, lowest \(map(.low) | min)-\(map(.low) | max) after: "
            + "drop \(map(.drop) | min | . * 10 | round / 10)-\(map(.drop) | max | . * 10 | round / 10) % in \(length) rounds"' \
    "$3/results.jsonl" 2>/dev/null | sed "s/^/| F10 | $1 | /; s/\$/ |/" || printf '| F10 | %s | no samples (%s.log) |\n' "$1" "$3"
}

f9() {
  local b dirs=()
  mkdir -p "$3" || exit 2
  for b in $(seq 1 "$boots"); do
    EEVDF_VM_KERNEL_IMAGE="$2" bash "$here/scripts/vm-sched-idle.sh" --seconds "$seconds" --seed "$b" \
      --out "$3/boot$b" > "$3/boot$b.log" 2>&1 && dirs+=("$3/boot$b")
  done
  local line
  line=$(python3 "$here/scripts/vm-sched-idle-table.py" --summary "${dirs[@]}" 2>&1) || line="no counts ($3)"
  printf '| F9 | %s | %s (%d of %d boots ran to the end) |\n' "$1" "$line" "${#dirs[@]}" "$boots"
}

echo "| finding | kernel | measured on the booted kernel |"
echo "|---|---|---|"
plain=$(kernel_of) || { echo "vm-findings: no kernel from $tree" >&2; exit 2; }
version=$(sed -n 's/^version //p' "$(dirname "$plain")/manifest")
for f in ${findings//,/ }; do
  fixed=$(kernel_of "$f") || { echo "vm-findings: no kernel from $tree with fix $f" >&2; exit 2; }
  fn=$(echo "$f" | tr 'A-Z' 'a-z')
  declare -F "$fn" >/dev/null || { echo "vm-findings: no probe for $f" >&2; exit 2; }
  "$fn" "$version" "$plain" "$out/$f-plain"
  "$fn" "$version + fix $f" "$fixed" "$out/$f-fixed"
done
