#!/usr/bin/env bash
# The checked-throughput table (docs/notes/benchmarks.md): for each stream, the model's
# operations per second unchecked and with every invariant checked, and their
# ratio, from ONE run of model_bench pinned to one core (ratios within one run
# are what counts on a shared machine).
#
#   bash bench/checked-table.sh [MODEL_BENCH=build/bench/model_bench] [MIN_TIME=0.5] [CPU=1]
#
# Streams: BM_MixedStream vs BM_checked at 4, 16, 64 tasks; BM_groups (4 groups
# x 16 tasks, mainline) and BM_smp_groups (the same on 4 CPUs), unchecked vs checked;
# and, where the binary has them, the same checked with --check incremental's checker
# (BM_checked_incremental, checked:2).
set -euo pipefail
bench="${1:-build/bench/model_bench}"
min_time="${2:-0.5}"
cpu="${3:-1}"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
filter='^BM_MixedStream/tasks:(4|16|64)$|^BM_checked(_incremental)?/tasks:(4|16|64)$|^BM_groups/flat:0/checked:[012]$|^BM_smp_groups/flat:0/checked:[012]$'
taskset -c "$cpu" "$bench" --benchmark_filter="$filter" --benchmark_min_time="$min_time" \
  --benchmark_format=json --benchmark_out="$out" --benchmark_out_format=json >/dev/null
python3 - "$out" <<'EOF'
import json, sys
runs = {b["name"]: b for b in json.load(open(sys.argv[1]))["benchmarks"]}
def rate(name):
    b = runs.get(name)
    if b is None or b.get("error_occurred"):
        return None
    return b["items_per_second"]
rows = [("4 tasks", "BM_MixedStream/tasks:4", "BM_checked/tasks:4", "BM_checked_incremental/tasks:4"),
        ("16 tasks", "BM_MixedStream/tasks:16", "BM_checked/tasks:16", "BM_checked_incremental/tasks:16"),
        ("64 tasks", "BM_MixedStream/tasks:64", "BM_checked/tasks:64", "BM_checked_incremental/tasks:64"),
        ("4 groups × 16 tasks", "BM_groups/flat:0/checked:0", "BM_groups/flat:0/checked:1", "BM_groups/flat:0/checked:2"),
        ("4 groups × 16 tasks, 4 CPUs", "BM_smp_groups/flat:0/checked:0", "BM_smp_groups/flat:0/checked:1",
         "BM_smp_groups/flat:0/checked:2")]
incremental = any(r[3] in runs for r in rows)
fmt = lambda x: "error" if x is None else f"{x / 1e6:.2f} M"
ratio = lambda c, u: "-" if u is None or c is None else f"{c / u:.3f}"
if incremental:
    print("| stream | unchecked ops/s | checked ops/s | checked / unchecked | incremental ops/s | incremental / unchecked |")
    print("|---|---|---|---|---|---|")
else:
    print("| stream | unchecked ops/s | checked ops/s | checked / unchecked |")
    print("|---|---|---|---|")
for label, plain, checked, inc in rows:
    u, c, i = rate(plain), rate(checked), rate(inc)
    line = f"| {label} | {fmt(u)} | {fmt(c)} | {ratio(c, u)} |"
    if incremental:
        line += f" {fmt(i)} | {ratio(i, u)} |"
    print(line)
EOF
