#!/usr/bin/env bash
# Frama-C/WP on a kernel tree's own vruntime_eligible(): the no-overflow of its
# s64 key·load under the premises of `eevdf-check prove` (docs/notes/frama-c-wp.md).
# The tree's entity_key() and vruntime_eligible() are copied at run time into a
# scratch directory (no kernel text in the repository); vruntime_eligible.c has
# the types they touch and the contract.
#
#   bash smt/frama-c/run.sh [TREE] [groups|tasks]
#     TREE: a kernel tree or linux-source-*.tar.xz (default Debian's 6.12 tarball)
#     groups: sum weights [2, 2^18] (MIN_SHARES .. scale_load_down(2^28)), the
#             premise of `prove`; tasks: [3, 88761] (SCHED_IDLE .. nice -20)
# Needs frama-c-base, why3 and z3 (Debian packages) and `why3 config detect`.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tree=${1:-/usr/src/linux-source-6.12.tar.xz}
domain=${2:-groups}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [[ -d $tree ]]; then
  cp "$tree/kernel/sched/fair.c" "$work/fair.c"
else
  tar -xOf "$tree" --wildcards '*/kernel/sched/fair.c' > "$work/fair.c"
fi
awk '/^static inline s64 entity_key\(/,/^}/' "$work/fair.c" > "$work/tree_functions.c"
awk '/^static int vruntime_eligible\(/,/^}/' "$work/fair.c" >> "$work/tree_functions.c"
grep -q 'vruntime_eligible' "$work/tree_functions.c" || { echo "run.sh: no vruntime_eligible() in $tree" >&2; exit 2; }
case $domain in
  groups) defs="-DW_MIN=2 -DW_MAX=262144" ;;
  tasks) defs="-DW_MIN=3 -DW_MAX=88761" ;;
  *) echo "run.sh: domain groups or tasks" >&2; exit 2 ;;
esac
cp "$here/vruntime_eligible.c" "$work/"
cd "$work"
frama-c -wp -wp-rte -wp-prover z3 -wp-timeout 60 -wp-fct vruntime_eligible \
  -cpp-extra-args="$defs" vruntime_eligible.c 2>&1 | grep -E 'signed_overflow|Proved goals' -A1
