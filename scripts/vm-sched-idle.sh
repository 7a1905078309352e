#!/usr/bin/env bash
# docs/findings/F9.md on the booted kernel: boots Debian's 6.12.118 cloud kernel
# in QEMU (2 CPUs in one socket, so one LLC, 3 with --mode target; TCG by
# default, as scripts/vm-debug-read.sh; --accel kvm did not work on the machine
# where this was written, nested KVM) with bridge/vm/sched_idle_probe.c as
# /init. Results and commands: docs/notes/vm-sched-idle-f9.md. A normal
# spinner on CPU 0, a SCHED_IDLE spinner and a normal spin/sleep task X on CPU 1,
# and a task W that sleeps on CPU 0 and may wake on either CPU; each of W's wakes
# is counted by the CPU it got and X's state at that time (see the C file).
# F9 predicts: while X has just blocked (its entity delayed), W stays on CPU 0;
# with --no-delay-dequeue (the control) W takes CPU 1 whenever X is blocked.
#
#   scripts/vm-sched-idle.sh [--seconds 30] [--no-delay-dequeue] [--sis-util]
#                            [--seed 1] [--spin-us 450] [--sleep-us 8000] [--x-nice 19]
#                            [--x-slice-us 500] [--w-slice-us 100] [--hogs 1]
#                            [--mode timer|pipe|target]
#                            [--accel tcg|kvm] [--out DIR]
#                            [--cache DIR] [--timeout S]
#
# --mode timer: W sleeps on CPU 0 and its timer wakes it there (prev = target =
# 0): select_idle_cpu() decides. --mode pipe: W blocks on CPU 1 and N writes to
# its pipe from CPU 0 (WF_SYNC, target 0, prev 1): select_idle_sibling()'s
# check of prev (idle or sched_idle_cpu(prev)) decides; SIS_UTIL plays no part.
# --mode target: 3 CPUs, CPU 2 idle; W sleeps on CPU 1 and its timer fires
# there (prev = target = 1): W stays if sched_idle_cpu(1), else the LLC scan
# (which SIS_UTIL allows while CPU 2 is idle) should find CPU 2.
# --sis-util keeps the SIS_UTIL feature (default on in the kernel; by default
# this script writes NO_SIS_UTIL, see the notes page docs/notes/vm-sched-idle-f9.md).
# Exit codes: 0 the boot ran to its end (DIR/results.jsonl has the counts);
# 3 the kernel panicked (DIR/console.log); 4 no end within the timeout; 5 the
# program stopped early; 2 bad usage; 77 a piece is missing (QEMU, gcc, cpio,
# the kernel, /dev/kvm with --accel kvm).
set -uo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
seconds=30 dd=1 sisutil=0 seed=1 spin_us=450 sleep_us=8000 xnice=19 xslice_us=500 wslice_us=100 hogs=1 mode=timer accel=tcg out="$here/build/vm/sched-idle" cache="${EEVDF_VM_CACHE:-$here/build/vm}"
timeout=""
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --no-delay-dequeue) dd=0; shift ;;
    --sis-util) sisutil=1; shift ;;
    --seed) seed="$2"; shift 2 ;;
    --spin-us) spin_us="$2"; shift 2 ;;
    --sleep-us) sleep_us="$2"; shift 2 ;;
    --x-nice) xnice="$2"; shift 2 ;;
    --hogs) hogs="$2"; shift 2 ;;
    --x-slice-us) xslice_us="$2"; shift 2 ;;
    --w-slice-us) wslice_us="$2"; shift 2 ;;
    --mode) mode="$2"; shift 2 ;;
    --accel) accel="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --cache) cache="$2"; shift 2 ;;
    --timeout) timeout="$2"; shift 2 ;;
    *) echo "vm-sched-idle: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
case "$accel" in tcg|kvm) ;; *) echo "vm-sched-idle: --accel tcg or kvm" >&2; exit 2 ;; esac
case "$mode" in timer) modenum=0 ncpus=2 ;; pipe) modenum=1 ncpus=2 ;; target) modenum=2 ncpus=3 ;;
  *) echo "vm-sched-idle: --mode timer, pipe or target" >&2; exit 2 ;; esac
[ -n "$timeout" ] || timeout=$((seconds + 240))
skip() { echo "vm-sched-idle: SKIP: $*" >&2; exit 77; }
qemu="${EEVDF_VM_QEMU:-qemu-system-x86_64}"
. "$here/scripts/vm-lib.sh"
vm_accel_args "$accel"
vm_probe_prepare "$qemu" "$cache" "$out" "$here/bridge/vm/sched_idle_probe.c" "$cache/eevdf-sched-idle-probe"
# no isolcpus: CPU 1 must stay in CPU 0's scheduling domains (the wake-up scan)
append="console=ttyS0 loglevel=4 sched_verbose irqaffinity=0 noautogroup panic=-1 oops=panic nowatchdog"
append="$append sip.seconds=$seconds sip.dd=$dd sip.sisutil=$sisutil sip.seed=$seed sip.spin_us=$spin_us sip.sleep_us=$sleep_us sip.xnice=$xnice sip.hogs=$hogs sip.xslice_us=$xslice_us sip.wslice_us=$wslice_us sip.mode=$modenum"
uptime > "$out/host-load"  # TCG timing depends on the host: its load before and after
start=$(date +%s)
vm_boot "$qemu" "$out" "$kernel" "$append" "$timeout" "${accel_args[@]}" -smp $ncpus,sockets=1,cores=$ncpus,threads=1
rc=$?
secs=$(( $(date +%s) - start ))
uptime >> "$out/host-load"
cat "$out/results.jsonl" 2>/dev/null
vm_probe_end vm-sched-idle "$out" "$secs" "$rc" "$timeout"
echo "vm-sched-idle: ran in ${secs}s ($accel)" >&2
exit 0
