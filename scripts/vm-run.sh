#!/usr/bin/env bash
# Boots Debian's 6.12.118 cloud kernel (or the bzImage of --kernel, e.g. one
# that scripts/vm-kernel.sh built) in QEMU (TCG, 2 CPUs, no network) with
# a one-file initramfs whose /init is bridge/vm/driver.c, runs a plan (the
# operations of a scenario, see that file) and collects the driver's JSON lines.
# `eevdf-check vm` writes the plan and calls this; it can be called by hand:
#
#   scripts/vm-run.sh --plan FILE.plan --out DIR [--cache DIR] [--timeout SECONDS] [--kernel BZIMAGE]
#
# Writes DIR/results.jsonl (the driver's lines, second serial port),
# DIR/console.log (the kernel's console) and DIR/outcome (one word).
# Exit codes: 0 the plan ran to its end; 3 the kernel panicked; 4 the machine
# hung (no end within the timeout; QEMU is killed); 5 the driver stopped early;
# 2 bad usage; 77 a piece is missing (QEMU, gcc, cpio, the kernel package):
# the message says which and how to install it (scripts/setup.sh --with-vm).
set -uo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
plan="" out="" image="${EEVDF_VM_KERNEL_IMAGE:-}" cache="${EEVDF_VM_CACHE:-$here/build/vm}" timeout=120
# EEVDF_VM_KERNEL: another Debian cloud kernel (e.g. 6.12.107+deb12-cloud-amd64), fetched the same way
kernel_ver="${EEVDF_VM_KERNEL:-6.12.118+deb12-cloud-amd64}"
append_extra="${EEVDF_VM_APPEND:-}"
qemu="${EEVDF_VM_QEMU:-qemu-system-x86_64}"  # another binary, or a missing one to see the skip

while [ $# -gt 0 ]; do
  case "$1" in
    --plan) plan="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --cache) cache="$2"; shift 2 ;;
    --timeout) timeout="$2"; shift 2 ;;
    --kernel) image="$2"; shift 2 ;;
    --append) append_extra="$append_extra $2"; shift 2 ;;
    *) echo "vm-run: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[ -n "$plan" ] && [ -f "$plan" ] && [ -n "$out" ] || {
  echo "usage: scripts/vm-run.sh --plan FILE --out DIR [--cache DIR] [--timeout S] [--append 'KERNEL ARGS']" >&2
  exit 2
}

skip() { echo "vm-run: SKIP: $*" >&2; mkdir -p "$out"; echo skipped > "$out/outcome"; exit 77; }
. "$here/scripts/vm-lib.sh"
vm_require_tools "$qemu"

mkdir -p "$cache" "$out" || exit 2
if [ -n "$image" ]; then
  [ -f "$image" ] || { echo "vm-run: --kernel $image: no such file" >&2; exit 2; }
  kernel="$image"
else
  kdir="$cache/kernel"
  [ "$kernel_ver" = "6.12.118+deb12-cloud-amd64" ] || kdir="$cache/kernel-$kernel_ver"
  kernel=$(vm_fetch_kernel "$cache" "$kdir" "$kernel_ver") || exit 77
fi

driver="$cache/eevdf-vm-driver"
vm_static_program "$here/bridge/vm/driver.c" "$driver"

# the initramfs: /init (the driver) and /plan, nothing else
stage=$(mktemp -d "$cache/initramfs.XXXXXX")
trap 'rm -rf "$stage"' EXIT
cp "$driver" "$stage/init"
cp "$plan" "$stage/plan"
vm_initramfs "$stage" "$out/initramfs.cpio" || exit 2

rm -f "$out/results.jsonl" "$out/console.log"
# isolcpus=1: no load balancing onto CPU 1, unbound kernel threads and init stay
# on CPU 0; irqaffinity=0: device interrupts on CPU 0; noautogroup: the tasks
# are in the root task group as in the model; panic=-1: a panic reboots at
# once, and -no-reboot turns that into QEMU's exit.
append="console=ttyS0 loglevel=4 isolcpus=1 irqaffinity=0 noautogroup panic=-1 nowatchdog $append_extra"
start=$(date +%s.%N)
vm_boot "$qemu" "$out" "$kernel" "$append" "$timeout" -cpu max -smp 2 -accel tcg,thread=multi
rc=$?
secs=$(echo "$(date +%s.%N) - $start" | bc 2>/dev/null || echo "?")
if grep -q "Kernel panic" "$out/console.log" 2>/dev/null; then
  echo panic > "$out/outcome"
  echo "vm-run: the kernel panicked after ${secs}s:" >&2
  grep -A3 "Kernel panic" "$out/console.log" | head -8 >&2
  exit 3
fi
if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
  echo hang > "$out/outcome"
  echo "vm-run: no end within ${timeout}s: the machine hung or the plan is too long (QEMU killed)" >&2
  exit 4
fi
if ! grep -q '"type":"done"' "$out/results.jsonl" 2>/dev/null; then
  echo incomplete > "$out/outcome"
  echo "vm-run: the driver stopped before the end of the plan (QEMU exit $rc; see $out/console.log, $out/qemu.log)" >&2
  exit 5
fi
echo done > "$out/outcome"
echo "vm-run: ran in ${secs}s" >&2
exit 0
