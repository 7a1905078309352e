#!/usr/bin/env bash
# The main job: install, build, show the demo scenario step by step, then a
# short fuzz campaign on the default profile (mainline) with a summary.
# Usage: scripts/main-job.sh [seconds]   (default 30)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh build
echo
./build/cli/eevdf-check demo
echo
# exit code 1 means findings: they are printed with their minimized scenarios
./build/cli/eevdf-check fuzz --profile mainline --time "${1:-30}" --seed 1 --jobs "$(nproc)" --findings findings
