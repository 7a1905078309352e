#!/usr/bin/env bash
# Runs .clusterfuzzlite/build.sh as ClusterFuzzLite / OSS-Fuzz would (address
# sanitizer, libFuzzer, their flags), with the local clang, into WORK_DIR; checks
# that every target fuzz/targets/CMakeLists.txt lists (fuzz-targets.txt), and
# every fuzz/targets/NAME.cpp, is in $OUT with its dictionary and seed corpus;
# then runs each target for 3 s on its seed corpus with its dictionary.
# Skipped (77) without clang, libFuzzer or zip.
# Usage: clusterfuzzlite_build.sh SOURCE_DIR WORK_DIR
set -euo pipefail
src="$1"; work="$2"
rm -rf "$work"
mkdir -p "$work/out"

skip() { echo "SKIP: $1"; exit 77; }
command -v clang >/dev/null && command -v clang++ >/dev/null || skip "clang/clang++ not found (Debian package 'clang')"
command -v zip >/dev/null && command -v unzip >/dev/null || skip "zip/unzip not found (Debian packages 'zip', 'unzip')"
echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }' \
  | clang++ -x c++ - -fsanitize=fuzzer,address -o "$work/probe" 2>"$work/probe.log" \
  || skip "clang cannot link libFuzzer (-fsanitize=fuzzer; Debian package libclang-rt-NN-dev): $(tail -1 "$work/probe.log")"

# what OSS-Fuzz's base images set for SANITIZER=address, FUZZING_ENGINE=libfuzzer
export CC=clang CXX=clang++ OUT="$work/out" WORK="$work"
export CFLAGS="-O1 -fno-omit-frame-pointer -gline-tables-only -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION -fsanitize=address -fsanitize-address-use-after-scope -fsanitize=fuzzer-no-link"
export CXXFLAGS="$CFLAGS -stdlib=libc++"
export LIB_FUZZING_ENGINE="-fsanitize=fuzzer"
if ! bash "$src/.clusterfuzzlite/build.sh" >"$work/build.log" 2>&1; then
  tail -40 "$work/build.log"
  echo "FAIL: .clusterfuzzlite/build.sh failed (log: $work/build.log)"
  exit 1
fi

status=0
fail() { echo "FAIL: $1"; status=1; }
list="$work/build/fuzz-targets.txt"
[ -s "$list" ] || fail "CMake listed no fuzz targets ($list)"
targets=$(cut -d' ' -f1 "$list")
for cpp in "$src"/fuzz/targets/*.cpp; do
  name=$(basename "$cpp" .cpp)
  # kernel_fuzzer.cpp is built only with a kernel tree (CMake says when it is not)
  [ "$name" = kernel_fuzzer ] && grep -q 'kernel_fuzzer, kernel_lockstep_fuzzer: not built' "$work/build.log" && continue
  grep -qx "$name" <<<"$targets" || fail "fuzz/targets/$name.cpp is not in fuzz/targets/CMakeLists.txt's list of targets to fuzz"
done
for name in $targets; do
  for file in "$name" "$name.dict" "${name}_seed_corpus.zip"; do
    [ -s "$OUT/$file" ] || fail "$name: no $file in \$OUT"
  done
  [ -x "$OUT/$name" ] || continue
  # the runner image has the C and C++ runtimes only: any other library comes from $OUT/lib
  extra=$(ldd "$OUT/$name" | awk '$3 ~ /^\// {print $3} /not found/ {print $1 " (not found)"}' \
          | { grep -Ev "^$OUT/lib/|/(libc|libm|libstdc\+\+|libgcc_s|libpthread|libdl|librt)\.so" || true; })
  [ -z "$extra" ] || fail "$name needs libraries outside \$OUT/lib: $extra"
  corpus="$work/corpus-$name"
  mkdir -p "$corpus"
  unzip -q "$OUT/${name}_seed_corpus.zip" -d "$corpus"
  seeds=$(find "$corpus" -type f | wc -l)
  if (cd "$work" && "$OUT/$name" -dict="$OUT/$name.dict" -max_total_time=3 -seed=1 -print_final_stats=1 \
        "$corpus" >"$work/$name.log" 2>&1); then
    echo "ok: $name: $seeds seeds, $(grep -m1 -o 'stat::number_of_executed_units: [0-9]*' "$work/$name.log")"
  else
    tail -40 "$work/$name.log"
    fail "$name failed on its seed corpus (log: $work/$name.log)"
  fi
done
exit $status
