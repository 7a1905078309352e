#!/bin/bash
# Builds the fuzz targets of fuzz/targets for ClusterFuzzLite / OSS-Fuzz through the
# project's CMake build (-DEEVDF_FUZZERS=ON: no kernel backend, no benchmarks), with
# the compilers, flags and engine they provide ($CC, $CXX, $CFLAGS, $CXXFLAGS,
# $LIB_FUZZING_ENGINE), and copies each target with its dictionary and seed corpus
# into $OUT. The targets and their seeds are the ones fuzz/targets/CMakeLists.txt
# lists (fuzz-targets.txt in the build directory). The build directory is $WORK/build
# ($WORK: OSS-Fuzz's scratch directory; a temporary one when unset).
# By hand, from the repository (docs/fuzzing.md, "ClusterFuzzLite"):
#   CC=clang CXX=clang++ CFLAGS='-O1 -g -fsanitize=address,fuzzer-no-link' \
#   CXXFLAGS='-O1 -g -fsanitize=address,fuzzer-no-link' LIB_FUZZING_ENGINE=-fsanitize=fuzzer \
#   OUT=$(mktemp -d) bash .clusterfuzzlite/build.sh
set -euo pipefail
# In the container the sources are $SRC/eevdf-check; run by hand, the repository holding this script.
if [ -d "${SRC:-}/eevdf-check" ]; then cd "$SRC/eevdf-check"; else cd "$(dirname "$0")/.."; fi
: "${OUT:?OUT: the directory for the fuzz targets}" "${CC:?}" "${CXX:?}" "${LIB_FUZZING_ENGINE:?}"
work="${WORK:-$(mktemp -d)}"
build="$work/build"

# OSS-Fuzz compiles C++ against libc++ (-stdlib=libc++ in $CXXFLAGS); fmt and the other
# libraries come from the distribution's packages, built against libstdc++: keep that one.
cxxflags="${CXXFLAGS:-}"
cxxflags="${cxxflags//-stdlib=libc++/}"

# Debug with empty per-configuration flags: the optimisation and debug information are
# the engine's ($CXXFLAGS), and assertions stay on. EEVDF_FUZZ_TRACE_CMP=ON: comparison
# tracing everywhere, as the engine's flags ask (docs/fuzzing.md, "Comparison tracing").
# shellcheck disable=SC2016  # $ORIGIN is the loader's, not the shell's
cmake -S . -B "$build" -G Ninja \
      -DCMAKE_C_COMPILER="$CC" -DCMAKE_CXX_COMPILER="$CXX" \
      -DCMAKE_C_FLAGS="${CFLAGS:-}" -DCMAKE_CXX_FLAGS="$cxxflags" \
      -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG= -DCMAKE_CXX_FLAGS_DEBUG= \
      -DEEVDF_FUZZERS=ON -DEEVDF_FUZZ_TRACE_CMP=ON -DEEVDF_BENCH=OFF \
      -DEEVDF_FUZZ_ENGINE="$LIB_FUZZING_ENGINE" -DCMAKE_BUILD_RPATH='$ORIGIN/lib'
list="$build/fuzz-targets.txt"
[ -s "$list" ] || { echo "build.sh: CMake listed no fuzz targets ($list)" >&2; exit 1; }
mapfile -t targets < <(cut -d' ' -f1 "$list")
ninja -C "$build" "${targets[@]}"

# one line per target: name, executable, dictionary, seed glob
mkdir -p "$OUT/lib"
while read -r name executable dict seeds; do
  cp "$executable" "$OUT/$name"
  # the shared libraries beyond the C and C++ runtimes (fmt), which the runner image
  # lacks, go to $OUT/lib, where the targets' run path ($ORIGIN/lib) finds them
  ldd "$executable" | awk '$3 ~ /^\// {print $3}' \
    | { grep -Ev '/(libc|libm|libstdc\+\+|libgcc_s|libpthread|libdl|librt)\.so' || true; } \
    | xargs -r cp -L -t "$OUT/lib"
  cp "$dict" "$OUT/$name.dict"
  rm -f "$OUT/${name}_seed_corpus.zip"
  # shellcheck disable=SC2086  # the seed glob expands here
  zip -q -j "$OUT/${name}_seed_corpus.zip" $seeds
done <"$list"
