#!/usr/bin/env bash
# Grows the scenario_fuzzer seed corpus with a fresh libFuzzer campaign and
# keeps it small with -merge=1:
#   1. fuzz for SECONDS from corpus/seeds/PROFILE (profile PROFILE, inputs up to
#      257 bytes, the dictionary), into a scratch corpus;
#   2. merge: the named seeds (hand-written, from corpus/seeds/src or encoded
#      regression scenarios) are always kept; of the generated seeds
#      (<sha1>.bin) and the campaign's inputs, -merge=1 keeps only those that
#      add coverage the others lack;
#   3. replace the generated seeds with the merged ones, named <sha1>.bin.
# Prints the counts before and after. Needs the fuzzer build (docs/fuzzing.md, "The
# libFuzzer targets"); builds scenario_fuzzer if it is missing.
#
#   scripts/merge-seeds.sh [SECONDS=120] [PROFILE=mainline]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-120}"
profile="${2:-mainline}"
seeds="corpus/seeds/$profile"
bin=build-fuzz/fuzz/targets/scenario_fuzzer
if [ ! -x "$bin" ]; then
  cmake -S . -B build-fuzz -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DEEVDF_FUZZERS=ON -DCMAKE_BUILD_TYPE=Release \
        -DEEVDF_BENCH=OFF >/dev/null
  ninja -C build-fuzz scenario_fuzzer
fi
mkdir -p "$seeds"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/campaign" "$work/named" "$work/merged"
is_generated() { [[ "$(basename "$1")" =~ ^[0-9a-f]{40}\.bin$ ]]; }
named=0 generated=0
for f in "$seeds"/*.bin; do
  [ -e "$f" ] || continue
  cp "$f" "$work/campaign/"
  if is_generated "$f"; then generated=$((generated + 1)); else cp "$f" "$work/named/"; named=$((named + 1)); fi
done
echo "merge-seeds: $seeds holds $((named + generated)) seeds ($named named, $generated generated)"
echo "merge-seeds: fuzzing profile $profile for ${seconds}s"
EEVDF_PROFILE="$profile" "$bin" "$work/campaign" -dict=fuzz/targets/scenario_fuzzer.dict -max_len=257 \
  -max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="$work/" >"$work/fuzz.log" 2>&1 ||
  { tail -40 "$work/fuzz.log"; echo "merge-seeds: the campaign failed (a finding?)"; exit 1; }
campaign=$(ls "$work/campaign" | wc -l)
grep -E "^#[0-9]+[[:space:]]+DONE" "$work/fuzz.log" | sed 's/^/  /'
echo "merge-seeds: the campaign corpus holds $campaign inputs; merging"
cp "$work/named/"* "$work/merged/" 2>/dev/null || true
EEVDF_PROFILE="$profile" "$bin" -merge=1 "$work/merged" "$work/campaign" >"$work/merge.log" 2>&1 ||
  { tail -20 "$work/merge.log"; exit 1; }
grep -E "MERGE-OUTER: [0-9]+ new files" "$work/merge.log" | sed 's/^/  /' || true
for f in "$seeds"/*.bin; do
  if [ -e "$f" ] && is_generated "$f"; then rm "$f"; fi
done
added=0
for f in "$work/merged"/*; do
  if [ -e "$work/named/$(basename "$f")" ]; then continue; fi
  cp "$f" "$seeds/$(sha1sum "$f" | cut -c1-40).bin"
  added=$((added + 1))
done
echo "merge-seeds: $seeds now holds $((named + added)) seeds ($named named, $added generated)," \
     "$(cat "$seeds"/*.bin | wc -c) bytes"
