#!/usr/bin/env bash
# The generated kSTEP drivers are valid C: each is compiled (-fsyntax-only,
# -Wall -Wextra -Werror) against tests/data/kstep-stub/, a stub of the kSTEP API
# and of the kernel fields the drivers read, once with the first kernel version
# of the driver's own guard (the checks) and once with v2.6 (the #else branch).
# The findings' drivers are not kept in the repository (`export --kstep SCENARIO`
# writes one when wanted): each scenario in `findings` must be there, be exported
# (not refused) and compile, or the test fails.
# Usage: kstep_syntax.sh EEVDF_CHECK SOURCE_DIR WORK_DIR
set -uo pipefail
bin="$1"; src="$2"; work="$3"
mkdir -p "$work"
cc="$(command -v gcc || command -v cc)"
status=0
findings="F1-vprot-not-rescaled-by-renice F2-next-buddy-sync-wakeup-never-preempts
  F3-short-preemption-runs-the-buddy F4-place-entity-lag-times-load-overflow"
compiled=" "
for scn in "$src"/corpus/regressions/*.scn "$src/tests/data/kstep-all-ops.scn"; do
  name="$(basename "$scn" .scn)"
  if grep -q '^runqueues ' "$scn"; then  # one CPU only: the export must refuse, naming why
    if "$bin" export --kstep "$scn" -o "$work/$name.c" 2> "$work/$name.err"; then
      echo "FAIL: export of $name (several runqueues) was not refused"; status=1
    elif grep -q "one CPU" "$work/$name.err"; then echo "ok: $name refused (several runqueues)"
    else echo "FAIL: export of $name: $(cat "$work/$name.err")"; status=1; fi
    continue
  fi
  if grep -qE 'policy=fifo|^tick nopreempt' "$scn"; then  # an RT task: the export must refuse, naming it
    if "$bin" export --kstep "$scn" -o "$work/$name.c" 2> "$work/$name.err"; then
      echo "FAIL: export of $name (an RT task) was not refused"; status=1
    elif grep -q "does not export" "$work/$name.err"; then echo "ok: $name refused (an RT task)"
    else echo "FAIL: export of $name: $(cat "$work/$name.err")"; status=1; fi
    continue
  fi
  if ! "$bin" export --kstep "$scn" -o "$work/$name.c" 2> "$work/$name.err"; then
    echo "FAIL: export of $name: $(cat "$work/$name.err")"; status=1; continue
  fi
  # "#if LINUX_VERSION_CODE >= KERNEL_VERSION(7, 2, 0)[ && ...]": 7.2.0 takes the checks
  guard="$(grep -m1 -o '^#if LINUX_VERSION_CODE >= KERNEL_VERSION([0-9]*, [0-9]*, [0-9]*)' "$work/$name.c" |
           grep -o '[0-9]*, [0-9]*, [0-9]*')"
  if [ -z "$guard" ]; then echo "FAIL: $name.c has no version guard"; status=1; continue; fi
  IFS=', ' read -r major minor sub <<< "$guard"
  both=1
  for version in "(($major << 16) + ($minor << 8) + $sub)" '((2 << 16) + (6 << 8))'; do
    if "$cc" -std=gnu11 -fsyntax-only -Wall -Wextra -Werror -I"$src/tests/data/kstep-stub" \
         "-DSTUB_VERSION_CODE=$version" "$work/$name.c" 2> "$work/$name.cc.log"; then
      echo "ok: $name.c compiles (LINUX_VERSION_CODE $version)"
    else
      echo "FAIL: $name.c (LINUX_VERSION_CODE $version):"; cat "$work/$name.cc.log"; status=1; both=0
    fi
  done
  [ "$both" = 1 ] && compiled="$compiled$name "
done
for finding in $findings; do
  case "$compiled" in
    *" $finding "*) echo "ok: finding $finding exported and compiled" ;;
    *) echo "FAIL: finding $finding: no driver compiled (scenario missing, refused or broken)"; status=1 ;;
  esac
done
exit $status
