# Shell helpers of the tests that feed a tool input it must refuse
# (kernelsrc_extract.sh, kernel_mutants_input.sh). Source it; it uses $work
# (a scratch directory) and sets fail=1 on a failed check.

# refused NAME PATTERN ABSENT -- COMMAND...: COMMAND exits non-zero, prints a
# line matching PATTERN, and leaves no file or directory ABSENT.
refused() {
  local name=$1 pattern=$2 absent=$3 out rc
  shift 4
  out=$("$@" 2>&1)
  rc=$?
  if [ $rc -eq 0 ] || ! grep -q -- "$pattern" <<<"$out" || [ -e "$absent" ]; then
    echo "FAIL $name: exit $rc, output: $out"
    fail=1
  else
    echo "ok   $name: $out"
  fi
}

# make_tree DIR VERSION PATCHLEVEL: the files the extractor reads, empty, with a top Makefile of that version
make_tree() {
  mkdir -p "$1/kernel/sched" "$1/lib" "$1/include/linux"
  printf 'VERSION = %s\nPATCHLEVEL = %s\nSUBLEVEL = 0\n' "$2" "$3" > "$1/Makefile"
  for f in kernel/sched/fair.c kernel/sched/core.c kernel/sched/sched.h kernel/sched/features.h kernel/sched/debug.c \
           kernel/sched/pelt.c kernel/sched/pelt.h kernel/sched/sched-pelt.h \
           lib/rbtree.c include/linux/rbtree.h include/linux/rbtree_augmented.h include/linux/rbtree_types.h; do
    : > "$1/$f"
  done
}
