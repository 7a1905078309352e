#!/usr/bin/env bash
# The whole test suite: install, build, run every test (unit tests, RapidCheck
# properties, regression scenarios, a short fuzz campaign), then the same tests
# built with AddressSanitizer + UndefinedBehaviorSanitizer, then a smoke run of
# each libFuzzer target.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

scripts/setup.sh build
# (kernel-long: the coverage report's test, which makes a second build: tests/CMakeLists.txt)
ctest --test-dir build --output-on-failure -j "$jobs" -LE kernel-long

# -O1: the usual optimisation for sanitizer builds, and much quicker to compile than -O2 -g
scripts/setup.sh build-asan -DEEVDF_SANITIZE=ON -DEEVDF_BENCH=OFF -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-O1
# (script: tests of the Python and shell scripts alone, nothing this build compiled runs)
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build-asan --output-on-failure -j "$jobs" -LE 'kernel-long|script'

# the targets fuzz/clusterfuzzlite-build made above (built again when that test was skipped)
scripts/fuzz-smoke.sh 15 build/clusterfuzzlite/out
