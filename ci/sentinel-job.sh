#!/usr/bin/env bash
# The job a kernel tree's CI copies (ci/github-workflow.yml, ci/gitlab-ci.yml;
# docs/sentinel.md): installs eevdf-check with the README's setup, built on the
# tree under test, and runs its sentinel on the tree: TAP on stdout, JUnit and
# the Markdown and JSON report in SENTINEL_OUT.
#
# Usage: ci/sentinel-job.sh TREE [BASE_TREE]
#   TREE       the kernel tree under test: a directory (a checkout; only Makefile,
#              kernel/sched, include and lib/rbtree.c are read) or linux-source-*.tar.xz
#   BASE_TREE  the same tree before a patch series: then only what the series
#              brings is reported (sentinel --since the base's report)
# Environment: SENTINEL_TIME seconds of fuzzing a tree (default 120),
#   SENTINEL_OUT the reports (default sentinel-out), EEVDF_BUILD the tool's
#   build directory (default build-sentinel in this repository).
# Exit: 0 nothing undocumented (with BASE_TREE: nothing new), 1 something is,
#   2 a tree it cannot use.
set -euo pipefail
[ $# -ge 1 ] && [ $# -le 2 ] || { sed -n '2,18p' "$0"; exit 2; }
here=$(cd "$(dirname "$0")/.." && pwd)
tree=$(realpath "$1")
base=${2:+$(realpath "$2")}
time=${SENTINEL_TIME:-120}
out=$(realpath -m "${SENTINEL_OUT:-sentinel-out}")
build=$(realpath -m "${EEVDF_BUILD:-$here/build-sentinel}")
mkdir -p "$out"

# the README's setup (scripts/setup.sh), the tool alone, built on the tree under test
SETUP_TARGETS=eevdf-check "$here/scripts/setup.sh" "$build" -DEEVDF_KERNEL_SRC="$tree" -DEEVDF_BENCH=OFF
bin=$build/cli/eevdf-check
common=(--time "$time" --builds "$out/builds" --source "$here")
if [ -z "$base" ]; then
  exec "$bin" sentinel "$tree" "${common[@]}" --out "$out" --tap --junit "$out/junit.xml"
fi
# before the series: its findings are the tree's, not the series' (a second build, on the base)
rc=0
"$bin" sentinel "$base" "${common[@]}" --out "$out/base" >"$out/base.md" || rc=$?
[ $rc -le 1 ] || { cat "$out/base.md"; exit $rc; }
exec "$bin" sentinel "$tree" "${common[@]}" --out "$out/tree" --since "$out/base/report.json" --tap \
  --junit "$out/junit.xml"
