#!/usr/bin/env bash
# docs/findings/K2.md on the booted kernel: boots Debian's 6.12.118 cloud kernel
# in QEMU (as scripts/vm-run.sh does: TCG, 2 CPUs, isolcpus=1) with
# bridge/vm/debug_read_stress.c as /init. Two spinners and PAIRS ping-pong pairs
# run on CPU 1 while CPU 0 reads /sys/kernel/debug/sched/debug in a loop for
# SECONDS (--no-read: it does not, the control); then only the spinners stay and
# the file is read CHECKS times. The kernel's own eligibility column tells
# whether V still lies between the two spinners (see the C file). oops=panic:
# a NULL pick (K2's crash) ends the boot with a panic, reported here.
#
#   scripts/vm-debug-read.sh [--seconds 60] [--pairs 2] [--nice 0] [--no-read]
#                            [--checks 200] [--out DIR] [--cache DIR] [--timeout S]
#
# Exit codes: 0 the boot ran to its end (DIR/results.jsonl has the counts);
# 3 the kernel panicked (DIR/console.log); 4 no end within the timeout; 5 the
# program stopped early; 77 a piece is missing (QEMU, gcc, cpio, the kernel).
set -uo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
seconds=60 pairs=2 nice=0 read=1 checks=200 out="$here/build/vm/debug-read" cache="${EEVDF_VM_CACHE:-$here/build/vm}"
timeout=""
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --pairs) pairs="$2"; shift 2 ;;
    --nice) nice="$2"; shift 2 ;;
    --no-read) read=0; shift ;;
    --checks) checks="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --cache) cache="$2"; shift 2 ;;
    --timeout) timeout="$2"; shift 2 ;;
    *) echo "vm-debug-read: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[ -n "$timeout" ] || timeout=$((seconds + 240))
skip() { echo "vm-debug-read: SKIP: $*" >&2; exit 77; }
qemu="${EEVDF_VM_QEMU:-qemu-system-x86_64}"
. "$here/scripts/vm-lib.sh"
vm_probe_prepare "$qemu" "$cache" "$out" "$here/bridge/vm/debug_read_stress.c" "$cache/eevdf-debug-read-stress"
append="console=ttyS0 loglevel=4 isolcpus=1 irqaffinity=0 noautogroup panic=-1 oops=panic nowatchdog"
append="$append dr.seconds=$seconds dr.pairs=$pairs dr.nice=$nice dr.read=$read dr.checks=$checks"
start=$(date +%s)
vm_boot "$qemu" "$out" "$kernel" "$append" "$timeout" -cpu max -smp 2 -accel tcg,thread=multi
rc=$?
secs=$(( $(date +%s) - start ))
cat "$out/results.jsonl" 2>/dev/null
vm_probe_end vm-debug-read "$out" "$secs" "$rc" "$timeout"
echo "vm-debug-read: ran in ${secs}s" >&2
exit 0
