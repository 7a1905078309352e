#!/usr/bin/env bash
# The kernel backend's extractor on trees it cannot handle: each gives a clear
# error that names the file and the reason, exits non-zero, and writes nothing.
# Usage: kernelsrc_extract.sh EXTRACT_PY SHIM GLUE PELT_SHIM PELT_GLUE [TREE]
# TREE (the build's kernel tree or tarball, optional): a copy of it whose
# pelt.c lacks the PELT arithmetic is refused after its fair.c was taken.
set -uo pipefail
extract=$1 shim=$2 glue=$3 pelt_shim=$4 pelt_glue=$5 tree=${6:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
source "$(dirname "$0")/support/refusals.sh"
expect_error() {  # name, tree, pattern
  refused "$1" "$3" "$work/out-$1/fair_extract.c" -- \
    python3 "$extract" --src "$2" --shim "$shim" --glue "$glue" --out "$work/out-$1"
}
expect_error no-tree "$work/nothing-here" "no such kernel tree"
# a version the extractor has no entry for is tried as the nearest known one
# (said aloud), and refused where the tree does not fit: here, its hooks
make_tree "$work/old" 5 15
expect_error old-version "$work/old" "not a version the extractor knows (6.6, 6.12, 6.18, 7.0, 7.1): taking it as 6.6"
make_tree "$work/new" 7 4
expect_error new-version "$work/new" "hook .*() not found (kernel 7.4.0)"
make_tree "$work/empty" 6 12
expect_error no-hook "$work/empty" "hook .*() not found"
make_tree "$work/partial" 6 12
rm "$work/partial/kernel/sched/sched.h"
expect_error missing-file "$work/partial" "lacks kernel/sched/sched.h"
echo 'garbage' > "$work/bad.tar.xz"
expect_error bad-tarball "$work/bad.tar.xz" "cannot read the tarball"
# a callee that is neither in the tree nor a cut point of the shim is named with its caller
make_tree "$work/callee" 6 12
python3 - "$extract" > "$work/callee/kernel/sched/fair.c" <<'PY'
import os, sys
sys.path.insert(0, os.path.dirname(sys.argv[1]))
import extract
roots = extract.ROOTS_COMMON + extract.VERSIONS[(6, 12)]["extra"]
for r in roots:
    body = "mystery_function(x);" if r == "enqueue_task_fair" else ""
    print(f"static void {r}(int x)\n{{\n\t{body}\n}}")
PY
expect_error unknown-callee "$work/callee" "mystery_function() called from enqueue_task_fair() is neither in fair.c nor a cut point"
# a tree whose fair.c has the hooks but not what the core.c side calls (update_sysctl, init_cfs_rq, ...)
make_tree "$work/noglue" 6 12
python3 - "$extract" > "$work/noglue/kernel/sched/fair.c" <<'PY'
import os, sys
sys.path.insert(0, os.path.dirname(sys.argv[1]))
import extract
for r in extract.ROOTS_COMMON + extract.VERSIONS[(6, 12)]["extra"]:
    print(f"static void {r}(int x)\n{{\n}}")
PY
expect_error glue-callee "$work/noglue" "kernelsrc/glue.c: .*() (called by the backend's core.c side) is not in this tree"
# 6.18 is a version the extractor knows (its own root list and shim_smp.h): an
# empty 6.18 tree is refused for its hooks, not for its version
make_tree "$work/empty618" 6 18
expect_error no-hook-618 "$work/empty618" "hook .*() not found (kernel 6.18.0)"
# and so is 7.0 (its own root list: wakeup_preempt_fair())
make_tree "$work/empty70" 7 0
expect_error no-hook-70 "$work/empty70" "hook .*() not found (kernel 7.0.0)"
# a tree whose fair.c extracts but whose pelt.c lacks the PELT arithmetic
if [ -n "$tree" ] && [ -e "$tree" ]; then
  python3 - "$extract" "$tree" "$work/nopelt" <<'PY'
import os, sys
sys.path.insert(0, os.path.dirname(sys.argv[1]))
import extract
for rel, text in extract.read_tree(sys.argv[2], None).items():
    path = os.path.join(sys.argv[3], rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write("" if rel == "kernel/sched/pelt.c" else text)
PY
  # (a tree that runs PELT in fair.c, 6.18 on, misses it there first; 6.12 in the PELT unit)
  refused no-pelt "__update_load_avg_[a-z_]*() \(called from\|not found\)" "$work/out-no-pelt/fair_extract.c" -- \
    python3 "$extract" --src "$work/nopelt" --shim "$shim" --glue "$glue" --pelt-shim "$pelt_shim" \
      --pelt-glue "$pelt_glue" --out "$work/out-no-pelt"
  [ -e "$work/out-no-pelt/pelt_extract.c" ] && { echo "FAIL no-pelt: pelt_extract.c written"; fail=1; }
else
  echo "skip no-pelt: no kernel tree given"
fi
# --print-version (CMake's configure step) names the tree it cannot read
out=$(python3 "$extract" --print-version --src "$work/nothing-here" 2>&1)
if [ $? -eq 0 ] || ! grep -q "no such kernel tree" <<<"$out"; then
  echo "FAIL print-version: $out"; fail=1
else
  echo "ok   print-version: $out"
fi
[ "$(python3 "$extract" --print-version --src "$work/empty618")" = 6.18.0 ] || { echo "FAIL print-version 6.18.0"; fail=1; }
[ "$(python3 "$extract" --print-version --src "$work/empty70")" = 7.0.0 ] || { echo "FAIL print-version 7.0.0"; fail=1; }
exit $fail
