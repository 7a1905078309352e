#!/usr/bin/env bash
# CTest vm/starvation-idle-to-normal (label vm, opt-in): on the booted 6.12.118
# kernel, SCHED_IDLE -> SCHED_NORMAL of a queued task A keeps the idle weight's
# deadline distance, so B gets no CPU for about 0.47 s (one 1.4 ms slice at
# weight 3, run at weight 1024); the control (A normal from the start) never
# keeps B off the CPU that long. One trial each, a 3 s window.
# Usage: tests/vm_starvation.sh EEVDF_CHECK OUT_DIR. Exit 77 (skip) when the VM pieces are missing.
set -uo pipefail
check="$1" out="$2"
here="$(cd "$(dirname "$0")/.." && pwd)"
rm -rf "$out"
bash "$here/scripts/vm-starvation.sh" --trials 1 --watch 3 --period-ms 10 --eevdf-check "$check" --out "$out" idle-default
rc=$?
[ $rc -eq 77 ] && exit 77
[ $rc -eq 0 ] || { echo "vm-starvation.sh failed ($rc)"; exit 1; }
renice=$(awk -F'\t' '$1 == "idle-default" && $2 == "renice" { print $4 }' "$out/summary.tsv")
control=$(awk -F'\t' '$1 == "idle-default" && $2 == "control" { print $4 }' "$out/summary.tsv")
echo "B's longest wait: after SCHED_IDLE -> SCHED_NORMAL ${renice:-?} s, control ${control:-?} s"
[ -n "$renice" ] && [ -n "$control" ] || { echo "no measurement"; exit 1; }
awk -v r="$renice" -v c="$control" 'BEGIN { exit !(r >= 0.3 && c < 0.2) }' ||
  { echo "expected the renice's wait >= 0.3 s and the control's < 0.2 s"; exit 1; }
echo "the booted kernel keeps B off the CPU for the idle weight's deadline distance"
