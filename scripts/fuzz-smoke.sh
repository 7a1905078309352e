#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan + UBSan) and runs each for a short
# while from the seed corpus; any crash (an invariant violation on mainline,
# or a sanitizer report) fails.
# Usage: scripts/fuzz-smoke.sh [seconds per target] [DIR]
# DIR: targets already built, as the ClusterFuzzLite build leaves them in its $OUT
# (ASan, libFuzzer; the test suite's fuzz/clusterfuzzlite-build makes them in
# build/clusterfuzzlite/out): run those instead of building build-fuzz.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-20}"
targets_dir="${2:-}"
if [ -n "$targets_dir" ] && [ -x "$targets_dir/parse_fuzzer" ] && [ -x "$targets_dir/scenario_fuzzer" ]; then
  echo "fuzz-smoke: the targets of $targets_dir"
else
  [ -n "$targets_dir" ] && echo "fuzz-smoke: no parse_fuzzer and scenario_fuzzer in $targets_dir; building build-fuzz"
  cmake -S . -B build-fuzz -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g" \
        -DEEVDF_FUZZERS=ON -DEEVDF_SANITIZE=ON -DEEVDF_BENCH=OFF >/dev/null
  ninja -C build-fuzz parse_fuzzer scenario_fuzzer
  targets_dir=build-fuzz/fuzz/targets
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/scenario" "$work/parse"
cp corpus/seeds/mainline/*.bin "$work/scenario/"
cp corpus/regressions/*.scn "$work/parse/"
for target in scenario_fuzzer parse_fuzzer; do
  corpus="$work/${target%_fuzzer}"
  echo "fuzz-smoke: $target for ${seconds}s (profile mainline)"
  if ! EEVDF_PROFILE=mainline "$targets_dir/$target" "$corpus" -dict=fuzz/targets/$target.dict \
        -max_len=1024 -max_total_time="$seconds" -seed=1 -print_final_stats=1 -artifact_prefix="$work/" \
        >"$work/$target.log" 2>&1; then
    cat "$work/$target.log" | tail -60
    echo "fuzz-smoke: $target FAILED; crash files:" "$work"/crash-* 2>/dev/null
    exit 1
  fi
  grep -E "^stat::(number_of_executed_units|average_exec_per_sec)" "$work/$target.log" | sed "s/^/  $target /"
done
echo "fuzz-smoke: 2 passed, 0 failed"
