#!/usr/bin/env bash
# Which lines of a kernel tree's own fair.c (and the pelt.c functions it calls) a
# `fuzz --backend kernel` campaign executed, and which it never reached.
#
# Usage: scripts/kernel-coverage.sh [--build DIR] [--src TREE] [--time N] [--seed S] OUT [fuzz options...]
#   --build DIR  a build configured with -DEEVDF_KERNEL_COVERAGE=ON (default build-kernel-coverage;
#                configured here, with the benchmarks off, if it does not exist yet)
#   --src TREE   the kernel tree or linux-source-*.tar.xz of a build configured here
#                (default /usr/src/linux-source-6.12.tar.xz)
#   --time N, --seed S  the campaign's (default 60 and 1); further options go to
#                `eevdf-check fuzz --backend kernel` (e.g. --groups --runqueues 2)
# OUT receives fair.c.gcov and pelt.c.gcov (the tree's files annotated with gcov's
# counts, in the tree's own line numbers), summary.txt, and campaign.txt and
# findings/ (the campaign's output). OUT holds the kernel's code: keep it out of
# this repository.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=build-kernel-coverage src=/usr/src/linux-source-6.12.tar.xz time=60 seed=1
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --src) src=$2; shift 2 ;;
    --time) time=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) break ;;
  esac
done
[ $# -ge 1 ] || { echo "usage: scripts/kernel-coverage.sh [--build DIR] [--src TREE] [--time N] [--seed S] OUT [fuzz options...]" >&2; exit 2; }
out=$1; shift

if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$repo" -B "$build" -G Ninja -DEEVDF_KERNEL_COVERAGE=ON -DEEVDF_BENCH=OFF \
        -DEEVDF_KERNEL_SRC="$src" >/dev/null
elif ! grep -q '^EEVDF_KERNEL_COVERAGE:BOOL=ON$' "$build/CMakeCache.txt"; then
  echo "kernel-coverage: $build is not configured with -DEEVDF_KERNEL_COVERAGE=ON" >&2
  exit 2
fi
ninja -C "$build" eevdf-check >/dev/null

# counters from zero: the report is this campaign's alone
find "$build/kernelsrc" -name '*.gcda' -delete
mkdir -p "$out"
build=$(cd "$build" && pwd) out=$(cd "$out" && pwd)
# run in OUT: the campaign's findings/ go there too
rc=0
(cd "$out" && "$build/cli/eevdf-check" fuzz --backend kernel --time "$time" --seed "$seed" "$@") \
  >"$out/campaign.txt" 2>&1 || rc=$?
python3 "$repo/scripts/kernel-coverage-report.py" "$build" "$out" \
  eevdf-check fuzz --backend kernel --time "$time" --seed "$seed" "$@"
[ $rc -eq 0 ] || echo "(the campaign exited with status $rc: $out/campaign.txt)" >>"$out/summary.txt"
sed -n '1,/^Per function/p' "$out/summary.txt" | sed '$d'
echo "kernel-coverage: $out/fair.c.gcov, $out/pelt.c.gcov, $out/summary.txt"
