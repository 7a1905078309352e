#!/usr/bin/env bash
# Rediscovery benchmark (docs/notes/rediscovery.md): for every bug switch, from an empty corpus,
# run each engine with several seeds and a time limit, and record whether it
# finds the switch's expected invariant, how fast, after how many executions,
# and how short the minimized scenario is.
#
#   bench/rediscover.sh [--quick] [--seeds N] [--limit S] [--engines "own own-groups rapidcheck libfuzzer"]
#                       [--bugs "B02 B20"] [--cpu N] [--minimize-time S] [--out DIR]
#   bench/rediscover.sh --summary DIR/results.csv     # re-print the summary of a CSV
#   bench/rediscover.sh --fixed [--fixed-time 600] [--profiles "mainline v7.1"] [--cpu N] [--out DIR]
#       no bug switch: `eevdf-check fuzz --profile P --time T --seed 1 --jobs 1`
#       on every fixed profile (default: every profile of `eevdf-check profiles`,
#       600 s each); writes DIR/fixed/P.log, DIR/fixed/P/ (minimized findings)
#       and DIR/fixed.md (the distinct findings of each profile)
#
# The same settings may come from the environment: SEEDS (10), LIMIT (60),
# ENGINES ("own own-groups rapidcheck libfuzzer"), BUGS (every switch of `eevdf-check
# profiles` that applies to mainline), CPU (pin every run to this core with
# taskset; default: no pinning), MINIMIZE_TIME (10), OUT (build-rediscover, ignored by git),
# EEVDF_CHECK (build/cli/eevdf-check), SCENARIO_FUZZER
# (build-fuzz/fuzz/targets/scenario_fuzzer; only needed for ENGINES with libfuzzer;
# without it and without ENGINES, libfuzzer is left out with a warning).
# --quick: SEEDS=1, LIMIT=5, MINIMIZE_TIME=2, BUGS="B20 B11" unless given.
# CHECK (full): the own engines' `fuzz --check` (full or incremental); RUNS (none):
# the own engines stop after this many runs as well (`fuzz --runs`: the same run
# budget whatever the machine's load, for comparing the two CHECK modes).
#
# Engines (profile mainline, seeds 1..SEEDS, one job each):
#   own        eevdf-check fuzz --bug B --until I-X --time LIMIT --seed S --jobs 1;
#              seconds and executions (runs) from its "until:" line, the
#              minimized finding of I-X counted as below.
#   own-groups the same with --groups (task groups, `cpu.shares` and `cpu.idle`
#              writes among the generated operations).
#   rapidcheck eevdf-check check --bug B --cases 100000000 --seed S
#              --shrink-time MINIMIZE_TIME under `timeout LIMIT+2*MINIMIZE_TIME`;
#              it stops at the first violation of any invariant; seconds are the
#              external wall clock of the whole command, SHRINKING INCLUDED (and
#              check's minimizer pass on the shrunk counterexample, up to
#              MINIMIZE_TIME more); executions = test cases; minimized = that
#              pass's scenario when it is shorter, else the shrunk counterexample.
#   libfuzzer  EEVDF_PROFILE=mainline EEVDF_BUG=B scenario_fuzzer EMPTYDIR
#              -seed=S -max_total_time=LIMIT (dictionary and -max_len=1024 as
#              scripts/fuzz-smoke.sh); it aborts at the first violation of any
#              invariant; seconds = external wall clock of the fuzzer process,
#              executions = stat::number_of_executed_units, minimized =
#              `eevdf-check minimize CRASH --bug B --time MINIMIZE_TIME`.
# found = 1 only when the expected invariant (the "expect I-X" of `profiles`)
# was violated; a violation of another invariant is recorded in the invariant
# column with found = 0.
#
# Output: OUT/results.csv (bug,engine,seed,found,invariant,seconds,executions,
# minimized_ops), OUT/summary.md, and OUT/runs/ (logs, findings, crash files).
# Operations are counted as in docs/scenario-language.md: lines that are not
# blank, comments, directives or expectations.
set -uo pipefail
cd "$(dirname "$0")/.."

summary_only=""
fixed=""
quick=""
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=1 ;;
    --seeds) SEEDS="$2"; shift ;;
    --limit) LIMIT="$2"; shift ;;
    --engines) ENGINES="$2"; shift ;;
    --bugs) BUGS="$2"; shift ;;
    --cpu) CPU="$2"; shift ;;
    --minimize-time) MINIMIZE_TIME="$2"; shift ;;
    --out) OUT="$2"; shift ;;
    --summary) summary_only="$2"; shift ;;
    --fixed) fixed=1 ;;
    --fixed-time) FIXED_TIME="$2"; shift ;;
    --profiles) PROFILES="$2"; shift ;;
    -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "rediscover: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done

if [ -n "$quick" ]; then
  SEEDS="${SEEDS:-1}"; LIMIT="${LIMIT:-5}"; MINIMIZE_TIME="${MINIMIZE_TIME:-2}"; BUGS="${BUGS:-B20 B11}"
fi
SEEDS="${SEEDS:-10}"
LIMIT="${LIMIT:-60}"
engines_given="${ENGINES:+1}"
ENGINES="${ENGINES:-own own-groups rapidcheck libfuzzer}"
MINIMIZE_TIME="${MINIMIZE_TIME:-10}"
OUT="${OUT:-build-rediscover}"
EC="${EEVDF_CHECK:-build/cli/eevdf-check}"
FZ="${SCENARIO_FUZZER:-build-fuzz/fuzz/targets/scenario_fuzzer}"
CPU="${CPU:-}"

# Operation lines of a scenario file (stdin).
count_ops() {
  awk '{ sub(/#.*/, ""); if (NF == 0) next
         if ($1 ~ /^(profile|features|bug|bug=.*|cpus|hz|base_slice|expect)$/) next
         n++ } END { print n + 0 }'
}

# Median of the numbers on stdin (mean of the two middle ones for an even count); "-" if none.
median() {
  sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) { print "-"; exit }
    if (NR % 2) print v[(NR + 1) / 2]; else printf "%g\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

regression_ops() {
  local f
  f=$(ls corpus/regressions/"$1"-*.scn 2>/dev/null | head -1)
  if [ -n "$f" ]; then count_ops <"$f"; else echo "-"; fi
}

summarize() {
  local csv="$1" bug engine rows n found others secs mins
  echo "| bug | expect | engine | found | min s | median s | max s | median execs | median minimized ops | regression ops | other invariants hit |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|"
  for bug in $(tail -n +2 "$csv" | cut -d, -f1 | awk '!seen[$0]++'); do
    for engine in $(tail -n +2 "$csv" | awk -F, -v b="$bug" '$1 == b { print $2 }' | awk '!seen[$0]++'); do
      rows=$(tail -n +2 "$csv" | awk -F, -v b="$bug" -v e="$engine" '$1 == b && $2 == e')
      n=$(printf '%s\n' "$rows" | grep -c .)
      found=$(printf '%s\n' "$rows" | awk -F, '$4 == 1' | grep -c .)
      secs=$(printf '%s\n' "$rows" | awk -F, '$4 == 1 { print $6 }')
      mins="- | - | -"
      if [ -n "$secs" ]; then
        mins="$(printf '%s\n' "$secs" | sort -g | head -1) | $(printf '%s\n' "$secs" | median) | $(printf '%s\n' "$secs" | sort -g | tail -1)"
      fi
      others=$(printf '%s\n' "$rows" | awk -F, '$4 == 0 && $5 != "-" { print $5 }' | sort | uniq -c | awk '{ printf "%s%s x%s", sep, $2, $1; sep = ", " }')
      printf '| %s | %s | %s | %s/%s | %s | %s | %s | %s | %s |\n' "$bug" "$(expected_of "$bug")" "$engine" "$found" "$n" "$mins" \
        "$(printf '%s\n' "$rows" | awk -F, '$4 == 1 { print $7 }' | median)" \
        "$(printf '%s\n' "$rows" | awk -F, '$4 == 1 && $8 != "-" { print $8 }' | median)" \
        "$(regression_ops "$bug")" "${others:--}"
    done
  done
}

# "Bxx I-XXX" for every switch that applies to mainline.
switch_table() {
  "$EC" profiles | awk '
    /^  B[0-9]+  / { id = $1; next }
    id != "" && /applies to/ {
      if (match($0, /expect I-[A-Z0-9]+/) && $0 ~ /applies to [^;]*mainline/) print id, substr($0, RSTART + 7, RLENGTH - 7)
      id = "" }'
}
expected_of() { printf '%s\n' "$SWITCHES" | awk -v b="$1" '$1 == b { print $2 }'; }

if [ ! -x "$EC" ]; then echo "rediscover: $EC not found; build it first (cmake --build build)" >&2; exit 2; fi
SWITCHES=$(switch_table)
if [ -z "$SWITCHES" ]; then echo "rediscover: no bug switch in '$EC profiles'" >&2; exit 2; fi

if [ -n "$summary_only" ]; then summarize "$summary_only"; exit 0; fi

pin=()
if [ -n "$CPU" ]; then pin=(taskset -c "$CPU"); fi

if [ -n "$fixed" ]; then
  FIXED_TIME="${FIXED_TIME:-600}"
  PROFILES="${PROFILES:-$("$EC" profiles | awk '/^[A-Za-z0-9._-]+$/ { printf "%s%s", sep, $1; sep = " " }')}"
  mkdir -p "$OUT/fixed"
  {
    echo "# fixed profiles, no bug switch"
    echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC'); host: nproc $(nproc), load $(cut -d' ' -f1-3 /proc/loadavg); CPU=${CPU:-none}"
    echo "git: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
  } >"$OUT/fixed.md"
  for p in $PROFILES; do
    rm -rf "$OUT/fixed/$p"
    echo "rediscover: fuzz --profile $p --time $FIXED_TIME --seed 1 --jobs 1" >&2
    "${pin[@]}" "$EC" fuzz --profile "$p" --time "$FIXED_TIME" --seed 1 --jobs 1 --findings "$OUT/fixed/$p" \
      >"$OUT/fixed/$p.log" 2>&1
    rc=$?
    {
      echo
      echo "## $p"
      echo
      echo "    eevdf-check fuzz --profile $p --time $FIXED_TIME --seed 1 --jobs 1   (exit $rc)"
      echo
      grep -E '^Summary: |distinct finding|^No invariant violated' "$OUT/fixed/$p.log" | sed 's/^/    /'
      grep -E '^  I-[A-Z0-9]+ ' "$OUT/fixed/$p.log" | sed 's/^/    /'
    } >>"$OUT/fixed.md"
  done
  cat "$OUT/fixed.md"
  exit 0
fi

BUGS="${BUGS:-$(printf '%s\n' "$SWITCHES" | awk '{ printf "%s%s", sep, $1; sep = " " }')}"
if [ -z "$engines_given" ] && [ ! -x "$FZ" ]; then
  echo "rediscover: $FZ not built, running without libfuzzer (ENGINES=\"own own-groups rapidcheck\")" >&2
  ENGINES="own own-groups rapidcheck"
fi
for engine in $ENGINES; do
  case "$engine" in
    own|own-groups|rapidcheck) ;;
    libfuzzer) if [ ! -x "$FZ" ]; then echo "rediscover: $FZ not found; build it (see docs/notes/rediscovery.md)" >&2; exit 2; fi ;;
    *) echo "rediscover: unknown engine '$engine'" >&2; exit 2 ;;
  esac
done
for bug in $BUGS; do
  if [ -z "$(expected_of "$bug")" ]; then echo "rediscover: $bug is not a bug switch of mainline" >&2; exit 2; fi
done

mkdir -p "$OUT/runs"
csv="$OUT/results.csv"
echo "bug,engine,seed,found,invariant,seconds,executions,minimized_ops" >"$csv"
{
  echo "# rediscover run"
  echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC'); host: nproc $(nproc), load $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "SEEDS=$SEEDS LIMIT=$LIMIT MINIMIZE_TIME=$MINIMIZE_TIME CPU=${CPU:-none} ENGINES=\"$ENGINES\" BUGS=\"$BUGS\" CHECK=${CHECK:-full} RUNS=${RUNS:-none}"
  echo "git: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
} >"$OUT/config.txt"

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }

run_own() {  # bug inv seed dir [extra fuzz flags] -> "found,invariant,seconds,executions,ops"
  local bug="$1" inv="$2" seed="$3" d="$4" log line file
  shift 4
  log="$d/fuzz.log"
  "${pin[@]}" "$EC" fuzz --profile mainline --bug "$bug" --until "$inv" --time "$LIMIT" --seed "$seed" --jobs 1 \
    --minimize-time "$MINIMIZE_TIME" --findings "$d/findings" --check "${CHECK:-full}" ${RUNS:+--runs "$RUNS"} \
    "$@" >"$log" 2>&1
  line=$(grep -m1 '^until: ' "$log")
  case "$line" in
    "until: first $inv after "*)
      file=$(awk -v inv="$inv" '$1 == inv && / ops / { print $NF; exit }' "$log")
      printf '1,%s,%s,%s,%s\n' "$inv" \
        "$(printf '%s\n' "$line" | sed -E 's/.* after ([0-9.]+)s, ([0-9]+) runs.*/\1/')" \
        "$(printf '%s\n' "$line" | sed -E 's/.* after ([0-9.]+)s, ([0-9]+) runs.*/\2/')" \
        "$(if [ -n "$file" ] && [ -f "$file" ]; then count_ops <"$file"; else echo -; fi)" ;;
    *)
      printf '0,-,-,%s,-\n' "$(sed -nE 's/^Summary: .*, ([0-9]+) runs .*/\1/p' "$log" | head -1)" ;;
  esac
}

run_own-groups() { run_own "$@" --groups; }

run_rapidcheck() {
  local bug="$1" inv="$2" seed="$3" d="$4" log t0 t1 got
  log="$d/check.log"
  t0=$(now)
  timeout $((LIMIT + 2 * MINIMIZE_TIME)) "${pin[@]}" "$EC" check --profile mainline --bug "$bug" --cases 100000000 \
    --seed "$seed" --shrink-time "$MINIMIZE_TIME" >"$log" 2>&1
  t1=$(now)
  got=$(sed -nE 's/^# rapidcheck counterexample on profile [^:]*: (I-[A-Z0-9]+) at operation.*/\1/p' "$log" | head -1)
  local cases
  cases=$(sed -nE 's/^FAILED on .* after ([0-9]+) case\(s\).*/\1/p' "$log" | head -1)
  if [ -z "$got" ]; then printf '0,-,-,-,-\n'; return; fi
  if grep -q '^minimized further' "$log"; then  # check's own minimizer pass went further
    awk '/^minimized further/ { on = 1; next } on && /^$/ { exit } on' "$log" >"$d/counterexample.scn"
  else
    awk '/^# rapidcheck counterexample/ { on = 1 } on && /^$/ { exit } on' "$log" >"$d/counterexample.scn"
  fi
  printf '%s,%s,%s,%s,%s\n' "$([ "$got" = "$inv" ] && echo 1 || echo 0)" "$got" "$(elapsed "$t0" "$t1")" "${cases:--}" \
    "$(count_ops <"$d/counterexample.scn")"
}

run_libfuzzer() {
  local bug="$1" inv="$2" seed="$3" d="$4" log t0 t1 got execs crash ops="-"
  log="$d/libfuzzer.log"
  mkdir -p "$d/corpus" "$d/artifacts"
  t0=$(now)
  EEVDF_PROFILE=mainline EEVDF_BUG="$bug" timeout $((LIMIT + 60)) "${pin[@]}" "$FZ" "$d/corpus" \
    -dict=fuzz/targets/scenario_fuzzer.dict -max_len=1024 -seed="$seed" -max_total_time="$LIMIT" \
    -print_final_stats=1 -artifact_prefix="$d/artifacts/" >"$log" 2>&1
  t1=$(now)
  got=$(sed -nE 's/^(I-[A-Z0-9]+) violated at .*/\1/p' "$log" | head -1)
  execs=$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+).*/\1/p' "$log" | tail -1)
  crash=$(ls "$d"/artifacts/crash-* 2>/dev/null | head -1)
  if [ -z "$got" ]; then printf '0,-,-,%s,-\n' "${execs:--}"; return; fi
  if [ "$got" = "$inv" ] && [ -n "$crash" ]; then
    "${pin[@]}" "$EC" minimize "$crash" --profile mainline --bug "$bug" --time "$MINIMIZE_TIME" -o "$d/minimized.scn" \
      >"$d/minimize.log" 2>&1
    if [ -s "$d/minimized.scn" ]; then ops=$(count_ops <"$d/minimized.scn"); fi
  fi
  printf '%s,%s,%s,%s,%s\n' "$([ "$got" = "$inv" ] && echo 1 || echo 0)" "$got" "$(elapsed "$t0" "$t1")" "${execs:--}" "$ops"
}

for bug in $BUGS; do
  inv=$(expected_of "$bug")
  for engine in $ENGINES; do
    for seed in $(seq 1 "$SEEDS"); do
      d="$OUT/runs/$bug/$engine/seed$seed"
      rm -rf "$d"; mkdir -p "$d"
      row=$("run_$engine" "$bug" "$inv" "$seed" "$d")
      echo "$bug,$engine,$seed,$row" | tee -a "$csv"
    done
  done
done

summarize "$csv" >"$OUT/summary.md"
{ echo; cat "$OUT/config.txt"; } >>"$OUT/summary.md"
cat "$OUT/summary.md"
