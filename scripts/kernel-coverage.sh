#!/usr/bin/env bash
# Which lines of a kernel tree's own fair.c (and the pelt.c functions it calls) a
# `fuzz --backend kernel` campaign executed, and which it never reached; or, with
# --replay, a set of inputs (a libFuzzer corpus of kernel_fuzzer and its seeds).
#
# Usage: scripts/kernel-coverage.sh [--build DIR] [--src TREE] [--time N] [--seed S] OUT [fuzz options...]
#        scripts/kernel-coverage.sh [--build DIR] [--src TREE] --replay DIR [--replay DIR...] OUT [replay options...]
#   --build DIR  a build configured with -DEEVDF_KERNEL_COVERAGE=ON (default build-kernel-coverage;
#                configured here, with the benchmarks off, if it does not exist yet)
#   --src TREE   the kernel tree or linux-source-*.tar.xz of a build configured here
#                (default /usr/src/linux-source-6.12.tar.xz)
#   --time N, --seed S  the campaign's (default 60 and 1); further options go to
#                `eevdf-check fuzz --backend kernel` (e.g. --groups --runqueues 2)
#   --replay DIR instead of a campaign, every file of DIR, each with `eevdf-check replay FILE
#                --backend kernel --quiet` (repeatable); OUT/replay.txt counts the files that
#                replayed OK, with a violation, or not at all, and the files that raised each
#                known finding
# OUT receives fair.c.gcov and pelt.c.gcov (the tree's files annotated with gcov's
# counts, in the tree's own line numbers), summary.txt, and campaign.txt and
# findings/ (the campaign's output) or replay.txt. OUT holds the kernel's code: keep
# it out of this repository.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=build-kernel-coverage src=/usr/src/linux-source-6.12.tar.xz time=60 seed=1
replay=()
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --src) src=$2; shift 2 ;;
    --time) time=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --replay) [ -d "$2" ] || { echo "kernel-coverage: --replay $2: no such directory" >&2; exit 2; }
              replay+=("$(cd "$2" && pwd)"); shift 2 ;;
    -h|--help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) break ;;
  esac
done
[ $# -ge 1 ] || { echo "usage: scripts/kernel-coverage.sh [--build DIR] [--src TREE] [--time N] [--seed S] [--replay DIR...] OUT [options...]" >&2; exit 2; }
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
rc=0
if [ ${#replay[@]} -gt 0 ]; then
  # each file in a process of its own: a file that aborts or fails to parse costs
  # only itself (gcov writes the counters at each process's exit)
  ok=0 violated=0 failed=0
  : >"$out/replay.log"; : >"$out/known.txt"
  while IFS= read -r -d '' f; do
    st=0
    "$build/cli/eevdf-check" replay "$f" --backend kernel --quiet "$@" >"$out/one.txt" 2>&1 || st=$?
    case $st in
      0) ok=$((ok + 1)) ;;
      1) violated=$((violated + 1)); echo "violation: $f" >>"$out/replay.log" ;;
      *) failed=$((failed + 1)); echo "status $st: $f" >>"$out/replay.log" ;;
    esac
    sed -n 's/^ *known: \([^,]*\), a known finding.*/\1/p' "$out/one.txt" | sort -u >>"$out/known.txt"
  done < <(find "${replay[@]}" -type f -print0 | sort -z)
  rm -f "$out/one.txt"
  {
    echo "replayed $((ok + violated + failed)) files of ${replay[*]}: $ok OK, $violated with a violation, $failed not replayed"
    echo "files that raised each known finding:"
    sort "$out/known.txt" | uniq -c | sort -rn
    cat "$out/replay.log"
  } >"$out/replay.txt"
  rm -f "$out/known.txt" "$out/replay.log"
  [ $violated -eq 0 ] && [ $failed -eq 0 ] || rc=1
  python3 "$repo/scripts/kernel-coverage-report.py" "$build" "$out" \
    eevdf-check replay FILE --backend kernel "$@" "(each file of ${replay[*]})"
  [ $rc -eq 0 ] || echo "(some files replayed with a violation or not at all: $out/replay.txt)" >>"$out/summary.txt"
else
  # run in OUT: the campaign's findings/ go there too
  (cd "$out" && "$build/cli/eevdf-check" fuzz --backend kernel --time "$time" --seed "$seed" "$@") \
    >"$out/campaign.txt" 2>&1 || rc=$?
  python3 "$repo/scripts/kernel-coverage-report.py" "$build" "$out" \
    eevdf-check fuzz --backend kernel --time "$time" --seed "$seed" "$@"
  [ $rc -eq 0 ] || echo "(the campaign exited with status $rc: $out/campaign.txt)" >>"$out/summary.txt"
fi
sed -n '1,/^Per function/p' "$out/summary.txt" | sed '$d'
echo "kernel-coverage: $out/fair.c.gcov, $out/pelt.c.gcov, $out/summary.txt"
