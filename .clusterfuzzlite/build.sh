#!/bin/bash -eu
# Builds the libFuzzer targets of fuzz/targets for ClusterFuzzLite / OSS-Fuzz
# with the compiler, flags and engine they provide ($CXX, $CXXFLAGS,
# $LIB_FUZZING_ENGINE, $OUT). Only the standard library and fmt are needed.
# In the container the sources are $SRC/eevdf-check; run by hand, the repository holding this script.
if [ -d "${SRC:-}/eevdf-check" ]; then cd "$SRC/eevdf-check"; else cd "$(dirname "$0")/.."; fi

objdir=$(mktemp -d)
sources=$(ls model/*.cpp invariants/*.cpp fuzz/*.cpp | grep -v 'fuzz/rc_')
for src in $sources; do
  $CXX $CXXFLAGS -std=c++20 -I. -c "$src" -o "$objdir/$(echo "$src" | tr / _).o"
done
for target in parse_fuzzer scenario_fuzzer; do
  $CXX $CXXFLAGS -std=c++20 -I. "fuzz/targets/$target.cpp" "$objdir"/*.o $LIB_FUZZING_ENGINE -lfmt -o "$OUT/$target"
  cp "fuzz/targets/$target.dict" "$OUT/$target.dict"
done
# seed corpora
(cd corpus/seeds/mainline && zip -q -j "$OUT/scenario_fuzzer_seed_corpus.zip" ./*.bin)
(cd corpus/regressions && zip -q -j "$OUT/parse_fuzzer_seed_corpus.zip" ./*.scn)
