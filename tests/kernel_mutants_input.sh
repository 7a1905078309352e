#!/usr/bin/env bash
# bench/kernel-mutants.py on input it cannot use: each gives a clear error
# naming the reason and exits 2 before anything is configured or built.
# Usage: kernel_mutants_input.sh KERNEL_MUTANTS_PY
set -uo pipefail
script=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
source "$(dirname "$0")/support/refusals.sh"
expect_error() {  # name, pattern, args...: exit 2 before anything is configured
  local name=$1 pattern=$2
  shift 2
  refused "$name" "$pattern" "$work/out-$name/build" -- python3 "$script" --out "$work/out-$name" "$@"
  if [ "$(python3 "$script" --out "$work/out-$name" "$@" >/dev/null 2>&1; echo $?)" != 2 ]; then
    echo "FAIL $name: not exit 2"
    fail=1
  fi
}
expect_error no-tree "no such kernel tree" --tree "$work/nothing-here"
make_tree "$work/t618" 6 18
expect_error no-list "Linux 6.18.0: no mutant list for it (bench/kernel-mutants-6.18.json; there are lists for 6.12, 7.0)" \
  --tree "$work/t618"
expect_error other-version "but the mutants of .*kernel-mutants-6.12.json are written for 6.12" --tree "$work/t618" \
  --mutants "$(dirname "$script")/kernel-mutants-6.12.json"
make_tree "$work/t612" 6 12
expect_error no-function "K01: function avg_vruntime_sub() not found" --tree "$work/t612"
# the function is there, its anchor is not
printf 'static void\navg_vruntime_sub(struct cfs_rq *cfs_rq, struct sched_entity *se)\n{\n\t/* cfs_rq->avg_load -= weight; */\n}\n' \
  > "$work/t612/kernel/sched/fair.c"
expect_error no-anchor "K01: 'cfs_rq->avg_load -= weight;' occurs 0 times in the code of avg_vruntime_sub()" --tree "$work/t612" --only K01
expect_error bad-config "unknown configuration 'smp'" --tree "$work/t612" --configs smp
expect_error bad-only "no mutant K99" --tree "$work/t612" --only K99
echo '{"tree": "6.12", "profile": "v6.12.118", "configs": ["one"], "mutants": [{"id": "K01"}]}' > "$work/bad.json"
expect_error bad-spec "mutant 1 has no 'function'" --tree "$work/t612" --mutants "$work/bad.json"
exit $fail
