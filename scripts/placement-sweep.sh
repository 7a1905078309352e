#!/usr/bin/env bash
# The v7.3 regression report's configurations on the schbench-like rt-app
# workload, for several amounts of work per request and both `cpus` settings:
# the p99 of the wait of every wake-up (us), one row per configuration.
# Usage: scripts/placement-sweep.sh [EEVDF_CHECK] [DURATION]   (docs/bridges.md)
set -euo pipefail
bin="${1:-build/cli/eevdf-check}"
duration="${2:-5s}"
src="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
sides=(v7.2:NO_SIS_UTIL v7.3:NO_SIS_UTIL v7.3:NO_SIS_UTIL,NO_WA_WEIGHT v7.3:NO_SIS_UTIL,cgroup_mode=smp)
echo "| work per request | cpus | v7.2 | v7.3 (concur) | v7.3 NO_WA_WEIGHT | v7.3 cgroup_mode=smp |"
echo "|---|---|---|---|---|---|"
for run in 500 550 600 650; do
  sed "s/\"run\" : 550/\"run\" : $run/g" "$src/tests/data/rtapp/schbench_like.json" > "$work/w.json"
  for cpus in 4 8; do
    args=(--features "${sides[0]}")
    for s in "${sides[@]:1}"; do args+=(--vs "$s"); done
    # exit 1: v7.2's stale augments (I-AUG, docs/profiles.md) are reported; the numbers stand
    "$bin" compare "$work/w.json" "${args[@]}" --runqueues 4 --cpus "$cpus" --duration "$duration" > "$work/out.txt" || [ $? -eq 1 ]
    # the last field of the row per side: p50/p99/max
    p99=$(grep '^wait p50/p99/max' "$work/out.txt" | awk -v n="${#sides[@]}" \
          '{ for (i = NF - n + 1; i <= NF; i++) { split($i, v, "/"); printf "%s%s", (i > NF - n + 1 ? " | " : ""), v[2] } }')
    echo "| $run us | $cpus | $p99 |"
  done
done
