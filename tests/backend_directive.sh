#!/usr/bin/env bash
# The scenario directive `backend kernel|lockstep` end to end
# (docs/scenario-language.md, "Run settings"): run, replay and minimize read it,
# --backend / --lockstep override it, minimize and the lockstep campaign write
# it, and a build without the kernel backend refuses it with the file and line.
#   backend_directive.sh EEVDF_CHECK SOURCE_DIR WORK_DIR HAS_KERNEL(0|1) [KERNEL_SMP(0|1)]
set -u
bin=$1 src=$2 work=$3 has_kernel=$4 kernel_smp=${5:-0}
rm -rf "$work" && mkdir -p "$work" || exit 2
cd "$work" || exit 2
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
# expect_rc RC CMD...: runs CMD (stdout in out.txt, stderr in err.txt), checks its exit code
expect_rc() {
  local want=$1
  shift
  "$@" >out.txt 2>err.txt
  local rc=$?
  [ "$rc" -eq "$want" ] || { fail "exit $rc, not $want: $*"; sed 's/^/  | /' out.txt err.txt | tail -20; }
}
has() { grep -q -- "$2" "$1" || { fail "$1 lacks '$2'"; sed 's/^/  | /' "$1" | tail -20; }; }
lacks() { ! grep -q -- "$2" "$1" || fail "$1 has '$2'"; }

# An idle task's weight (corpus/lockstep/): the model and the kernel agree.
printf '%s\n' '# an idle task weighs 3072 (corpus/lockstep/new-idle-task-weight.scn)' 'profile v6.12.118' 'backend lockstep' 'task T2 nice=7 policy=idle slice=100us' \
  'wake T2' 'run 3ms' 'expect field T2.weight == 3072' 'expect no-violation' >lock.scn
sed 's/^backend lockstep$/backend kernel/' lock.scn >kernel.scn

# Parse errors: line and column, exit 2, in every build.
printf '%s\n' 'profile v6.12.118' 'backend qemu' 'task A' >bad.scn
expect_rc 2 "$bin" run bad.scn
has err.txt "bad.scn:2:9: error: expected a backend (model, kernel, lockstep) after 'backend', found 'qemu'"
printf '%s\n' 'task A' 'backend kernel' >late.scn
expect_rc 2 "$bin" run late.scn
has err.txt "late.scn:2:1: error: expected an operation or 'expect', found the directive 'backend'"
printf '%s\n' 'backend kernel' 'backend kernel' 'task A' >twice.scn
expect_rc 2 "$bin" run twice.scn
has err.txt "twice.scn:2:1: error: expected each directive at most once, found a second 'backend'"

# --backend model overrides the directive: the model alone, in every build.
expect_rc 0 "$bin" run --quiet --backend model lock.scn
lacks out.txt "^lockstep:"
lacks out.txt "^backend "
expect_rc 2 "$bin" run --quiet --backend qemu lock.scn
has err.txt "--backend qemu: not a backend"

# A campaign the backend cannot run is refused before its first run (it used
# to refuse every run and report "0 operations, no violation"); a 6.12 tree
# taken with CONFIG_SMP (EEVDF_KERNEL_SMP) runs it.
if [ "$has_kernel" = 1 ] && [ "$kernel_smp" != 1 ]; then
  expect_rc 2 "$bin" fuzz --profile v6.12.118 --lockstep --runqueues 2 --time 1
  has err.txt "fuzz --backend lockstep --runqueues 2: "
fi

if [ "$has_kernel" != 1 ]; then
  # No kernel backend in this build: a clear refusal naming the file and the
  # directive's line, from every command, before anything runs.
  for cmd in run replay minimize; do
    expect_rc 2 "$bin" $cmd lock.scn
    has err.txt "lock.scn:3: error: 'backend lockstep' needs the kernel backend, which this build does not have"
    expect_rc 2 "$bin" $cmd kernel.scn
    has err.txt "kernel.scn:3: error: 'backend kernel' needs the kernel backend"
  done
  expect_rc 2 "$bin" run --lockstep lock.scn
  has err.txt "--backend lockstep: needs the kernel backend"
  expect_rc 2 "$bin" fuzz --backend kernel --time 1
  has err.txt "--backend kernel: this build has no kernel backend"
  expect_rc 2 "$bin" fuzz --lockstep --time 1
  has err.txt "--backend lockstep: this build has no kernel backend"
  [ "$failures" -eq 0 ] && echo "OK (no kernel backend in this build)"
  exit $((failures > 0))
fi

# run and replay honour the directive; the flags override it.
for cmd in run replay; do
  expect_rc 0 "$bin" $cmd --quiet lock.scn
  has out.txt "lockstep: the model and the kernel agree on every field after every operation"
  expect_rc 0 "$bin" $cmd --quiet kernel.scn
  has out.txt "backend kernel: Linux"
  lacks out.txt "^lockstep:"
  expect_rc 0 "$bin" $cmd --quiet --backend kernel lock.scn
  has out.txt "backend kernel: Linux"
  expect_rc 0 "$bin" $cmd --quiet --lockstep kernel.scn
  has out.txt "lockstep: the model and the kernel agree"
done

# A divergence: B20 is re-created in the model only, so after its yield the
# model's deadline is not the kernel's.
printf '%s\n' 'profile v6.12.118 bug=B20' 'backend lockstep' 'task T0' 'task T1' 'task X nice=5' 'wake T1' 'wake T0' 'tick' \
  'yield T1' 'tick' 'run 7ms' >div.scn
expect_rc 1 "$bin" run --quiet div.scn
has out.txt "LOCKSTEP DIVERGENCE after line 9 (yield T1)"
# minimize: 'backend lockstep' implies --lockstep; the output says it, and replays alone
expect_rc 0 "$bin" minimize div.scn --time 20 -o min.scn
has min.scn "^backend lockstep$"
has min.scn "replay: eevdf-check run FILE (minimized from 9 to"
expect_rc 1 "$bin" run --quiet min.scn
has out.txt "LOCKSTEP DIVERGENCE after line"
# ... and so does the output of --lockstep on a scenario without the directive
grep -v '^backend ' div.scn >div-plain.scn
expect_rc 0 "$bin" minimize --lockstep div-plain.scn --time 20 -o min-flag.scn
has min-flag.scn "^backend lockstep$"
expect_rc 1 "$bin" run --quiet min-flag.scn
has out.txt "LOCKSTEP DIVERGENCE"
# --backend model overrides the directive: a violation (B20's I-DL) is shrunk on the model
expect_rc 0 "$bin" minimize --backend model div.scn --time 20 -o min-model.scn
lacks min-model.scn "^backend "
has min-model.scn "^expect violation I-DL$"

# minimize on the kernel's code: 6.12.118's own renice bug, shrunk there, and kept there.
sed 's/^keep_going$/backend kernel/' "$src/corpus/regressions/v6.12.118-renice-keeps-deadline.scn" >renice.scn
expect_rc 0 "$bin" minimize renice.scn --time 20 -o min-kernel.scn
has min-kernel.scn "^backend kernel$"
expect_rc 0 "$bin" run --quiet min-kernel.scn
has out.txt "backend kernel: Linux"

# The lockstep campaign prints the diverging scenario with 'backend lockstep'
# (the model's v6.12 against 6.12.118's code: zero_vruntime re-basing differs):
# a run of it diverges in the same field with the same values. The tree's own
# judge is v6.12.118, so both take --force-profile (without it: refused, exit 2).
expect_rc 2 "$bin" fuzz --profile v6.12 --lockstep --no-groups --time 20 --seed 1 --findings "$work/findings"
has err.txt "does not judge this build.s tree.*--force-profile"
expect_rc 1 "$bin" fuzz --profile v6.12 --force-profile --lockstep --no-groups --time 20 --seed 1 --findings "$work/findings"
has out.txt "LOCKSTEP DIVERGENCE at operation"
diverged=$(sed -n 's/^LOCKSTEP DIVERGENCE at operation [0-9]* (\(.*\)$/\1/p' out.txt)
sed -n '/^scenario (replay with: eevdf-check run FILE):$/,/^$/p' out.txt | sed '1d;/^$/d' >campaign.scn
has campaign.scn "^backend lockstep$"
expect_rc 2 "$bin" run --quiet campaign.scn
expect_rc 1 "$bin" run --quiet --force-profile campaign.scn
has out.txt "LOCKSTEP DIVERGENCE after line [0-9]* ($diverged"

[ "$failures" -eq 0 ] && echo "OK"
exit $((failures > 0))
