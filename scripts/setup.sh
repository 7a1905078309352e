#!/usr/bin/env bash
# Installs the Debian packages eevdf-check needs (only the missing ones) and
# builds it in build/ (Release with debug info). Usage: scripts/setup.sh [--with-vm] [build-dir] [extra cmake args]
# SETUP_TARGETS="eevdf-check": build only those targets (ci/sentinel-job.sh), not every test
set -euo pipefail
cd "$(dirname "$0")/.."

# --with-vm: also what `eevdf-check vm` needs (docs/bridges.md, "The QEMU runner"):
# QEMU, cpio, a static libc for the driver, the kernel build's tools, and Debian's 6.12.118 cloud kernel
# package, fetched with apt-get download into BUILD/vm (unpacked there, not installed)
with_vm=0
if [ "${1:-}" = "--with-vm" ]; then
  with_vm=1
  shift
fi

packages=(cmake ninja-build g++ clang libclang-rt-14-dev librapidcheck-dev googletest libgtest-dev
          libz3-dev libfmt-dev libbenchmark-dev libcli11-dev nlohmann-json3-dev
          chromium   # chromium: the HTML report test renders the page headless
          python3 linux-source-6.12)  # the kernel backend: extracts 6.12.118's fair.c at build time
# and what scripts/vm-kernel.sh needs to build a kernel from a tree (--kernel-tree)
[ $with_vm -eq 1 ] && packages+=(qemu-system-x86 cpio libc6-dev bc jq
                                 make gcc flex bison libelf-dev libssl-dev rsync patch xz-utils ccache)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

build_dir="${1:-build}"
shift || true
# later arguments win, so a caller can pass its own -DCMAKE_BUILD_TYPE
# -g1: line tables and function names (backtraces, perf), not the variables; it takes
# three quarters of -g's compile time at -O2 (70.7 s against 94.0 s of CPU on seven of the
# heaviest sources)
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" "$@" >/dev/null
ninja -C "$build_dir" ${SETUP_TARGETS:-}
if [ $with_vm -eq 1 ]; then
  mkdir -p "$build_dir/vm"
  pkg=linux-image-6.12.118+deb12-cloud-amd64-unsigned
  ls "$build_dir/vm/${pkg}"_*.deb >/dev/null 2>&1 || (cd "$build_dir/vm" && apt-get download "$pkg")
fi
