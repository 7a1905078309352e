# Sourced by the scripts that boot a kernel in QEMU (Debian's cloud kernel by default) (vm-run.sh,
# vm-debug-read.sh, vm-sched-idle.sh, vm-pelt.sh): the pieces they share. The caller
# defines skip() (prints why and exits 77) before calling these.

# vm_require_tools QEMU: QEMU, gcc and cpio are on PATH.
vm_require_tools() {
  command -v "$1" >/dev/null || skip "$1 is missing (apt-get install qemu-system-x86, or scripts/setup.sh --with-vm)"
  command -v gcc >/dev/null || skip "gcc is missing (apt-get install gcc libc6-dev)"
  command -v cpio >/dev/null || skip "cpio is missing (apt-get install cpio, or scripts/setup.sh --with-vm)"
}

# vm_fetch_kernel CACHE KDIR VERSION: the Debian package
# linux-image-VERSION-unsigned, fetched with apt-get download into CACHE and
# unpacked into KDIR (not installed into /boot), once. Prints the vmlinuz path.
vm_fetch_kernel() {
  local cache="$1" kdir="$2" ver="$3"
  local pkg="linux-image-$ver-unsigned" kernel="$2/boot/vmlinuz-$3" deb
  if [ ! -f "$kernel" ]; then
    deb=$(ls "$cache"/${pkg}_*.deb 2>/dev/null | head -1)
    if [ -z "$deb" ]; then
      (cd "$cache" && apt-get download "$pkg" >/dev/null 2>"$cache/apt-download.log") ||
        skip "the kernel package $pkg could not be fetched with apt-get download ($cache/apt-download.log); scripts/setup.sh --with-vm fetches it"
      deb=$(ls "$cache"/${pkg}_*.deb | head -1)
    fi
    rm -rf "$kdir"
    dpkg-deb -x "$deb" "$kdir" >&2 || skip "dpkg-deb -x $deb failed"
    [ -f "$kernel" ] || skip "$deb has no boot/vmlinuz-$ver"
  fi
  echo "$kernel"
}

# vm_static_program SRC OUT: OUT is SRC built with gcc -static, rebuilt when SRC
# or a header beside it (bridge/vm/probe_common.h) is newer.
vm_static_program() {
  local src="$1" prog="$2" stale=0 h
  [ -x "$prog" ] && [ ! "$src" -nt "$prog" ] || stale=1
  for h in "$(dirname "$src")"/*.h; do
    [ -f "$h" ] && [ "$h" -nt "$prog" ] && stale=1
  done
  if [ $stale -eq 1 ]; then
    gcc -static -O2 -Wall -Wextra -o "$prog.tmp" "$src" 2>"$prog.build.log" ||
      { cat "$prog.build.log" >&2; skip "$(basename "$src") does not build statically (gcc -static needs libc6-dev)"; }
    mv "$prog.tmp" "$prog"
  fi
}

# vm_initramfs STAGE OUT.cpio: the files of the directory STAGE as a newc archive.
vm_initramfs() {
  (cd "$1" && find . | LC_ALL=C sort | cpio -o -H newc --quiet > "$2")
}

# vm_probe_initramfs SRC PROG OUT.cpio: SRC built as PROG (vm_static_program)
# and packed as the /init of the archive OUT.cpio; the staging directory beside
# PROG is removed when the script exits. Exits 2 when the archive cannot be made.
vm_probe_initramfs() {
  local src="$1" prog="$2" cpio="$3"
  vm_static_program "$src" "$prog"
  vm_stage=$(mktemp -d "$prog.initramfs.XXXXXX") || exit 2
  trap 'rm -rf "$vm_stage"' EXIT
  cp "$prog" "$vm_stage/init"
  vm_initramfs "$vm_stage" "$cpio" || exit 2
}

# vm_accel_args ACCEL: the QEMU arguments of ACCEL (tcg, or kvm when /dev/kvm
# is usable) in the array accel_args.
vm_accel_args() {
  if [ "$1" = kvm ]; then
    [ -r /dev/kvm ] && [ -w /dev/kvm ] || skip "/dev/kvm is not usable (--accel tcg works without it)"
    accel_args=(-accel kvm -cpu host)
  else
    accel_args=(-accel tcg,thread=multi -cpu max)
  fi
}

# vm_probe_prepare QEMU CACHE OUT SRC PROG: what a probe's boot needs: the tools,
# the kernel (its path in `kernel`): $EEVDF_VM_KERNEL_IMAGE when set (a bzImage,
# e.g. from scripts/vm-kernel.sh), else Debian's 6.12.118 cloud kernel in CACHE; SRC built as
# PROG and packed as OUT/initramfs.cpio; the last boot's results and console
# log in OUT removed.
vm_probe_prepare() {
  local qemu="$1" cache="$2" out="$3" src="$4" prog="$5"
  vm_require_tools "$qemu"
  mkdir -p "$cache" "$out" || exit 2
  if [ -n "${EEVDF_VM_KERNEL_IMAGE:-}" ]; then
    [ -f "$EEVDF_VM_KERNEL_IMAGE" ] || { echo "EEVDF_VM_KERNEL_IMAGE=$EEVDF_VM_KERNEL_IMAGE: no such file" >&2; exit 2; }
    kernel="$EEVDF_VM_KERNEL_IMAGE"
  else
    kernel=$(vm_fetch_kernel "$cache" "$cache/kernel" "6.12.118+deb12-cloud-amd64") || exit 77  # as scripts/vm-run.sh
  fi
  vm_probe_initramfs "$src" "$prog" "$out/initramfs.cpio"
  rm -f "$out/results.jsonl" "$out/console.log"
}

# vm_boot QEMU OUT KERNEL APPEND TIMEOUT ARGS...: boots KERNEL with the command
# line APPEND and OUT/initramfs.cpio (512 MiB, no display, network or reboot;
# ARGS: the CPUs and the accelerator), the console in OUT/console.log, the second
# serial port in OUT/results.jsonl, QEMU's own output in OUT/qemu.log; QEMU is
# killed after TIMEOUT seconds. Returns QEMU's exit code (124 or 137: killed).
vm_boot() {
  local qemu="$1" out="$2" kernel="$3" append="$4" timeout="$5"
  shift 5
  timeout --kill-after=5 "$timeout" "$qemu" -nodefaults -M pc "$@" -m 512M -display none -no-reboot -nic none \
    -kernel "$kernel" -initrd "$out/initramfs.cpio" -append "$append" \
    -serial "file:$out/console.log" -serial "file:$out/results.jsonl" </dev/null >"$out/qemu.log" 2>&1
}

# vm_probe_end NAME OUT SECS RC TIMEOUT: how a probe's boot ended, from
# OUT/console.log, QEMU's exit code RC and OUT/results.jsonl: exit 3 when the
# kernel crashed (its report on stderr), 4 when QEMU was stopped at TIMEOUT,
# 5 when the probe never wrote its "done" line; returns when it ran to its end.
vm_probe_end() {
  local name="$1" out="$2" secs="$3" rc="$4" timeout="$5"
  if grep -qE "Kernel panic|BUG: kernel NULL pointer" "$out/console.log" 2>/dev/null; then
    echo "$name: the kernel crashed after ${secs}s:" >&2
    grep -E -A12 "BUG: kernel NULL pointer|Oops|Kernel panic" "$out/console.log" | head -40 >&2
    exit 3
  fi
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then echo "$name: no end within ${timeout}s" >&2; exit 4; fi
  grep -q '"type":"done"' "$out/results.jsonl" 2>/dev/null || { echo "$name: stopped early (QEMU exit $rc)" >&2; exit 5; }
}
