#!/usr/bin/env bash
# scripts/kernel-coverage.sh on this build's tree: a 3-second campaign on the
# kernel's own fair.c, then the report; and --replay of a few seed files. The tree's fair.c comes back annotated
# in its own line numbers, with enqueue_entity() executed and select_idle_core()
# (SMT only) not, and the summary's counts add up. Usage: kernel_coverage.sh SCRIPT COVERAGE_BUILD TREE
# (COVERAGE_BUILD is configured from TREE if it does not exist)
set -euo pipefail
script=$1 build=$2 tree=$3
out=$(mktemp -d) replayed=$(mktemp -d) seeds=$(mktemp -d)
trap 'rm -rf "$out" "$replayed" "$seeds"' EXIT
"$script" --build "$build" --src "$tree" --time 3 --seed 1 "$out" --runqueues 2 >/dev/null
fail() { echo "kernel-coverage test: $*" >&2; exit 1; }
for f in fair.c.gcov pelt.c.gcov summary.txt campaign.txt; do
  [ -s "$out/$f" ] || fail "no $f"
done
grep -q 'Source:kernel/sched/fair.c$' "$out/fair.c.gcov" || fail "fair.c.gcov does not annotate the tree's kernel/sched/fair.c"
# the annotation is in the tree's numbering: enqueue_entity's definition in fair.c.gcov
# is at the line the extractor read it from (functions.txt), and its body has counts
start=$(awk '$1 == "kernel/sched/fair.c" && $4 == "enqueue_entity" { print $2 }' "$build/kernelsrc/gen/functions.txt")
[ -n "$start" ] || fail "enqueue_entity not in functions.txt"
awk -F: -v s="$start" '$2 + 0 >= s && $2 + 0 <= s + 1 && $3 ~ /enqueue_entity\(/ { found = 1 } END { exit !found }' \
  "$out/fair.c.gcov" || fail "enqueue_entity( is not at line $start or the next in fair.c.gcov"
# ... and no count lands on a blank line of the tree (as it did past a resolved #if block
# before the extractor marked the gap)
awk -F: '$1 !~ /^ *-$/ && $2 + 0 > 0 { t = $0; sub(/^[^:]*:[^:]*:/, "", t); if (t ~ /^[ \t]*$/) { print; bad = 1 } }
     END { exit bad }' "$out/fair.c.gcov" || fail "a count on a blank line of fair.c: the numbering is off"
grep -Eq '^  fair\.c:[0-9]+ enqueue_entity  lines [1-9][0-9]*/' "$out/summary.txt" || fail "enqueue_entity has no executed line"
# without --smt each CPU is its own core: the idle-core scan is compiled but never reached
# (docs/kernel-backend.md, "SMT siblings")
grep -Eq '^  fair\.c:[0-9]+ select_idle_core  lines 0/[1-9]' "$out/summary.txt" || fail "select_idle_core ran without --smt"
# every function's executed lines and taken branches are at most its total
awk '/ lines [0-9]+\/[0-9]+ / { split($4, l, "/"); split($6, b, "/");
       if (l[1] + 0 > l[2] + 0 || b[1] + 0 > b[2] + 0) { print; bad = 1 } } END { exit bad }' \
  "$out/summary.txt" || fail "a function executed more lines than it has"
grep -Eq '^  lines executed: +[1-9][0-9]* of [1-9][0-9]* ' "$out/summary.txt" || fail "no line of fair.c executed"
# --replay: every file of the directories, each replayed on the tree's code; the seeds
# raise known findings and nothing else
repo=$(cd "$(dirname "$script")/.." && pwd)
find "$repo/corpus/seeds/mainline" -name '*.bin' | sort | awk 'NR <= 5' | xargs cp -t "$seeds"   # awk reads to the end: no SIGPIPE for sort under pipefail
"$script" --build "$build" --replay "$seeds" "$replayed" >/dev/null
grep -q '^replayed 5 files of .*: 5 OK, 0 with a violation, 0 not replayed$' "$replayed/replay.txt" ||
  fail "--replay: $(head -n 1 "$replayed/replay.txt")"
grep -q 'eevdf-check replay FILE --backend kernel' "$replayed/summary.txt" || fail "--replay: the summary names no replay"
grep -Eq '^  lines executed: +[1-9][0-9]* of [1-9][0-9]* ' "$replayed/summary.txt" || fail "--replay: no line of fair.c executed"
echo "kernel-coverage test: ok"
