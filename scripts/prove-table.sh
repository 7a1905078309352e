#!/usr/bin/env bash
# The per-profile table of docs/proofs.md ("Verdicts on every profile"):
# `eevdf-check prove --profile P --json` for every profile (or those given),
# one Markdown row each: proved (and how many of them under a premise a known
# finding of the profile breaks), refuted, unknown, the run's wall time, and
# the slowest obligation.
#
#   bash scripts/prove-table.sh [BUILD] [PROFILE...]      (BUILD defaults to ./build)
set -euo pipefail
build=${1:-build}
shift || true
tool="$build/cli/eevdf-check"
[[ -x $tool ]] || { echo "prove-table.sh: no $tool (build first)" >&2; exit 2; }
command -v jq > /dev/null || { echo "prove-table.sh: needs jq" >&2; exit 2; }
if (($# == 0)); then
  mapfile -t profiles < <("$tool" profiles | awk '/^$/ { exit } !/^ / { print }')
else
  profiles=("$@")
fi
echo "| profile | proved | of them under a broken premise | refuted | unknown | time | slowest obligation |"
echo "|---|---|---|---|---|---|---|"
for p in "${profiles[@]}"; do
  "$tool" prove --profile "$p" --json | jq -r --arg p "$p" '
    def n(v): [.obligations[] | select(.verdict == v)] | length;
    (.obligations | max_by(.seconds)) as $slow
    | "| \($p) | \(n("proved")) | \([.obligations[] | select(.under_broken_premise)] | length) | \(n("refuted")) | \(n("unknown")) | \(.seconds * 10 | round / 10) s | `\($slow.obligation)` \($slow.seconds * 100 | round / 100) s |"'
done
