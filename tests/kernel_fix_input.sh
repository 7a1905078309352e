#!/usr/bin/env bash
# scripts/kernel-fix.py and scripts/vm-kernel.sh on small trees made here (no
# kernel text): a fix applies where its anchors are, as a patch and in place
# (a hard link's other name keeps the old text); input they cannot use gives
# a clear error and exit 2.
# Usage: kernel_fix_input.sh SOURCE_DIR [DEBIAN_6.12_TARBALL]
set -uo pipefail
src=$1 debian=${2:-}
fix="$src/scripts/kernel-fix.py"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
source "$(dirname "$0")/support/refusals.sh"
check() {  # name, condition...
  local name=$1
  shift
  if "$@"; then echo "ok   $name"; else echo "FAIL $name"; fail=1; fi
}
exit2() { "$@" >/dev/null 2>&1; [ $? -eq 2 ]; }

# a 6.12 tree whose reweight_entity() has K1's anchor once
make_tree "$work/t612" 6 12
printf 'static void reweight_entity(struct cfs_rq *cfs_rq, struct sched_entity *se, unsigned long weight)\n{\n\tif (se->on_rq) {\n\t\tx();\n\t} else {\n\t\tse->vlag = div_s64(se->vlag * se->load.weight, weight);\n\t}\n}\n' \
  > "$work/t612/kernel/sched/fair.c"
cp -l "$work/t612/kernel/sched/fair.c" "$work/fair.c.link"
out=$(python3 "$fix" K1 --tree "$work/t612" --diff)
check diff-adds-the-rescale grep -q '^+		if (se->rel_deadline)$' <<<"$out"
check diff-names-the-file grep -q '^+++ b/kernel/sched/fair.c$' <<<"$out"
check files-lists-fair.c test "$(python3 "$fix" K1 --tree "$work/t612" --files)" = kernel/sched/fair.c
python3 "$fix" K1 --tree "$work/t612" --apply 2>/dev/null
check apply-rewrites grep -q 'se->deadline = div_s64(se->deadline \* se->load.weight, weight);' "$work/t612/kernel/sched/fair.c"
check apply-leaves-the-hard-link test "$(grep -c deadline "$work/fair.c.link")" = 0

refused unknown-fix "no fix K9 (known: K1" "$work/none" -- python3 "$fix" K9 --tree "$work/t612" --diff
check unknown-fix-exit-2 exit2 python3 "$fix" K9 --tree "$work/t612" --diff
make_tree "$work/t70" 7 0
refused other-version "K1: written for Linux 6.12; the tree is Linux 7.0.0" "$work/none" -- python3 "$fix" K1 --tree "$work/t70" --diff
make_tree "$work/t612b" 6 12
printf 'static void reweight_entity(int w)\n{\n\t/* se->vlag = div_s64(se->vlag * se->load.weight, weight); */\n}\n' > "$work/t612b/kernel/sched/fair.c"
refused anchor-in-a-comment-only "occurs 0 times in the code of reweight_entity()" "$work/none" -- \
  python3 "$fix" K1 --tree "$work/t612b" --diff
refused no-function "K2: function print_cfs_rq() not found in kernel/sched/debug.c" "$work/none" -- \
  python3 "$fix" K2 --tree "$work/t612b" --diff
refused no-struct "F9: struct cfs_rq not found in kernel/sched/sched.h" "$work/none" -- \
  python3 "$fix" F9 --tree "$work/t612b" --diff
refused no-tree "no such kernel tree" "$work/none" -- python3 "$fix" K1 --tree "$work/nothing" --diff
check no-tree-exit-2 exit2 python3 "$fix" K1 --tree "$work/nothing" --diff

# every fix on Debian's 6.12.118, where the tarball is installed: each anchor there as the entry says
# (one read of the tarball: the fixes in one diff, each file's part checked)
if [ -n "$debian" ] && [ -f "$debian" ]; then
  all=$(python3 "$fix" K1 K2 F10 F9 F12 --tree "$debian" --diff)
  check fix-K1-on-6.12.118 grep -q '^+			se->deadline = div_s64(se->deadline \* se->load.weight, weight);$' <<<"$all"
  check fix-K2-on-6.12.118 grep -q '^+	avruntime = avg_vruntime(cfs_rq);$' <<<"$all"
  check fix-F10-on-6.12.118 test "$(grep -c '^+.*max_t(u64, ' <<<"$all")" = 7
  # F9: the new count in struct cfs_rq (sched.h), kept in 11 places, read by sched_idle_rq()
  check fix-F9-struct-field grep -q '^+	unsigned int		idle_h_nr_delayed; /\* SCHED_IDLE, delayed \*/$' <<<"$all"
  check fix-F9-kept-everywhere test "$(grep -c '^+.*idle_h_nr_delayed [-+]= ' <<<"$all")" = 11
  check fix-F9-sched-idle-rq grep -q '^+			rq->nr_running - rq->cfs.h_nr_delayed);$' <<<"$all"
  # F12: enqueue_entity() places curr, then charges it, once reweighted; update_curr() first for the others only
  check fix-F12-update-curr-first-if-not-curr grep -q '^+	if (!curr)$' <<<"$all"
  check fix-F12-place-every-entity-after-reweight test "$(grep -c '^+	place_entity(cfs_rq, se, flags);$' <<<"$all")" = 1
  check fix-F12-curr-charged-after-placement test "$(grep -c '^+		update_curr(cfs_rq);$' <<<"$all")" = 2
fi

# vm-kernel.sh: what it refuses before building anything
vmk="$src/scripts/vm-kernel.sh"
refused vm-kernel-no-tree "no such directory or file" "$work/cache/kbuild" -- bash "$vmk" --tree "$work/nothing" --cache "$work/cache"
refused vm-kernel-partial-tree "not a full kernel source tree (arch/x86/Kconfig is missing" "$work/cache/kbuild" -- \
  bash "$vmk" --tree "$work/t612" --cache "$work/cache"
refused vm-kernel-not-a-tarball "neither a directory nor a tarball" "$work/cache/kbuild" -- \
  bash "$vmk" --tree "$work/fair.c.link" --cache "$work/cache"
refused vm-kernel-no-patch "--patch $work/none.patch: no such file" "$work/cache/kbuild" -- \
  bash "$vmk" --tree "$work/t612" --patch "$work/none.patch" --cache "$work/cache"
check vm-kernel-exit-2 exit2 bash "$vmk" --tree "$work/t612" --cache "$work/cache"
exit $fail
