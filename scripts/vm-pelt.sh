#!/usr/bin/env bash
# docs/findings/F10.md on the booted kernel: boots Debian's 6.12.118 cloud
# kernel in QEMU (2 CPUs, TCG by default, as scripts/vm-sched-idle.sh) with
# bridge/vm/pelt_probe.c as /init: N nice -20 spinners on CPU 1, one reniced
# to -19 and back, CPU 1's root cfs_rq .load_avg read from sched/debug every
# millisecond around the renice (see the C file). --mode rmdir: one spinner on
# CPU 1 in a cgroup of cpu.weight W (--weight, default 10000), and an empty
# cgroup created and removed each round, the load read around the rmdir.
#
#   scripts/vm-pelt.sh [--mode renice|rmdir] [--tasks 3] [--weight 10000]
#                      [--rounds 10] [--warm-ms 500]
#                      [--accel tcg|kvm] [--out DIR] [--cache DIR] [--timeout S]
#
# Exit codes: 0 the boot ran to its end (DIR/results.jsonl has the samples);
# 3 the kernel panicked; 4 no end within the timeout; 5 the program stopped
# early; 2 bad usage; 77 a piece is missing (QEMU, gcc, cpio, the kernel).
set -uo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
mode=renice weight=10000 tasks=3 rounds=10 warm=500 accel=tcg out="$here/build/vm/pelt" cache="${EEVDF_VM_CACHE:-$here/build/vm}" timeout=300
while [ $# -gt 0 ]; do
  case "$1" in
    --mode) mode="$2"; shift 2 ;;
    --weight) weight="$2"; shift 2 ;;
    --tasks) tasks="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --warm-ms) warm="$2"; shift 2 ;;
    --accel) accel="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --cache) cache="$2"; shift 2 ;;
    --timeout) timeout="$2"; shift 2 ;;
    *) echo "vm-pelt: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
case "$accel" in tcg|kvm) ;; *) echo "vm-pelt: --accel tcg or kvm" >&2; exit 2 ;; esac
case "$tasks" in [1-9]|1[0-6]) ;; *) echo "vm-pelt: --tasks 1 to 16" >&2; exit 2 ;; esac
case "$mode" in renice|rmdir) ;; *) echo "vm-pelt: --mode renice or rmdir" >&2; exit 2 ;; esac
case "$weight" in ''|*[!0-9]*) echo "vm-pelt: --weight 1 to 10000" >&2; exit 2 ;; esac
[ "$weight" -ge 1 ] && [ "$weight" -le 10000 ] || { echo "vm-pelt: --weight 1 to 10000" >&2; exit 2; }
skip() { echo "vm-pelt: SKIP: $*" >&2; exit 77; }
qemu="${EEVDF_VM_QEMU:-qemu-system-x86_64}"
. "$here/scripts/vm-lib.sh"
vm_accel_args "$accel"
vm_probe_prepare "$qemu" "$cache" "$out" "$here/bridge/vm/pelt_probe.c" "$cache/eevdf-pelt-probe"
append="console=ttyS0 loglevel=4 irqaffinity=0 noautogroup panic=-1 oops=panic nowatchdog"
append="$append pp.mode=$mode pp.weight=$weight pp.tasks=$tasks pp.rounds=$rounds pp.warm_ms=$warm"
start=$(date +%s)
vm_boot "$qemu" "$out" "$kernel" "$append" "$timeout" "${accel_args[@]}" -smp 2,sockets=1,cores=2,threads=1
rc=$?
secs=$(( $(date +%s) - start ))
vm_probe_end vm-pelt "$out" "$secs" "$rc" "$timeout"
echo "vm-pelt: ran in ${secs}s ($accel); samples in $out/results.jsonl" >&2
exit 0
