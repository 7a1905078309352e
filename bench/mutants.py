#!/usr/bin/env python3
"""Mutation benchmark: how many plausible bugs the checker finds from nothing.

Each mutant of bench/mutants.json is one small change to the model (a kernel
bug that could have been written: a forgotten counter, a missing clamp, an
off-by-one), described nowhere else in this repository. For every mutant the
script builds eevdf-check from a copy of the committed tree with that one
change and runs the own fuzzer on mainline for a fixed number of runs (so the
result does not depend on the machine's speed), once per configuration. A
mutant is killed when a campaign reports a finding; the unmutated tree must
report none (checked first).

  bench/mutants.py [--runs 100000] [--configs one,groups2] [--only M01,M02]
                   [--out build-mutants] [--jobs 2]

Results: OUT/results.csv (mutant, configuration, killed, invariants) and a
table on stdout. Exit 0 when every mutant was judged, 2 on bad input (a
mutant whose text is not found exactly once names the mutant and the file).
"""
import argparse
import csv
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CONFIGS = {
    "one": [],                                  # one CPU, task groups in every other run
    "groups2": ["--groups", "--runqueues", "2"],  # task groups in every run, two CPUs
}


def fail(msg):
    print(f"mutants: {msg}", file=sys.stderr)
    sys.exit(2)


def load_mutants(path, only):
    try:
        with open(path) as f:
            mutants = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        fail(f"{path}: {e}")
    for i, m in enumerate(mutants):
        for key in ("id", "file", "what", "find", "replace"):
            if key not in m:
                fail(f"{path}: entry {i + 1} has no '{key}'")
    if only:
        ids = {m["id"] for m in mutants}
        for o in only:
            if o not in ids:
                fail(f"--only: no mutant {o} in {path}")
        mutants = [m for m in mutants if m["id"] in only]
    return mutants


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)


def campaign(binary, config, runs, findings_dir):
    cmd = [binary, "fuzz", "--profile", "mainline", "--runs", str(runs), "--time", "3600", "--seed", "1",
           "--jobs", "1", "--findings", findings_dir] + CONFIGS[config]
    r = run(cmd)
    if r.returncode not in (0, 1):
        return None, f"exit {r.returncode}: {r.stdout[-300:]}"
    invariants = sorted(set(re.findall(r"^  (I-[A-Z0-9]+) ", r.stdout, re.M)))
    return r.returncode == 1, " ".join(invariants)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=100000)
    ap.add_argument("--configs", default="one,groups2")
    ap.add_argument("--only", default="")
    ap.add_argument("--out", default=os.path.join(ROOT, "build-mutants"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="ninja -j")
    ap.add_argument("--mutants", default=os.path.join(HERE, "mutants.json"))
    a = ap.parse_args()
    configs = [c for c in a.configs.split(",") if c]
    for c in configs:
        if c not in CONFIGS:
            fail(f"--configs: unknown configuration '{c}' (known: {', '.join(CONFIGS)})")
    if a.runs <= 0:
        fail("--runs must be positive")
    mutants = load_mutants(a.mutants, [o for o in a.only.split(",") if o])

    # a copy of the committed tree, built without the kernel backend and the benchmarks
    src = os.path.join(a.out, "src")
    build = os.path.join(a.out, "build")
    shutil.rmtree(src, ignore_errors=True)
    os.makedirs(src)
    archive = subprocess.run(["git", "-C", ROOT, "archive", "HEAD"], stdout=subprocess.PIPE, check=True).stdout
    subprocess.run(["tar", "-x", "-C", src], input=archive, check=True)
    for m in mutants:  # every mutant applies to the tree before anything is built
        path = os.path.join(src, m["file"])
        if not os.path.isfile(path):
            fail(f"{m['id']}: no file {m['file']}")
        n = open(path).read().count(m["find"])
        if n != 1:
            fail(f"{m['id']}: its text occurs {n} times in {m['file']} (must be exactly once)")
    r = run(["cmake", "-S", src, "-B", build, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=RelWithDebInfo", "-DEEVDF_BENCH=OFF",
             f"-DEEVDF_KERNEL_SRC={os.path.join(a.out, 'no-kernel-tree')}"])
    if r.returncode != 0:
        fail(f"cmake failed:\n{r.stdout[-2000:]}")
    binary = os.path.join(build, "cli", "eevdf-check")

    def build_cli():
        return run(["ninja", "-C", build, f"-j{a.jobs}", "eevdf-check"])

    b = build_cli()
    if b.returncode != 0:
        fail(f"the unmutated tree does not build:\n{b.stdout[-2000:]}")
    for c in configs:
        killed, info = campaign(binary, c, a.runs, os.path.join(a.out, "findings", "baseline", c))
        if killed is None or killed:
            fail(f"the unmutated tree is not clean in configuration {c} ({info}); a mutant could not be judged")
    print(f"baseline: no finding in {', '.join(configs)} ({a.runs} runs each, mainline, seed 1)")

    rows = []
    for m in mutants:
        path = os.path.join(src, m["file"])
        original = open(path).read()
        with open(path, "w") as f:
            f.write(original.replace(m["find"], m["replace"], 1))
        try:
            b = build_cli()
            if b.returncode != 0:
                rows.append([m["id"], "-", "no-build", "", m["what"]])
                print(f"{m['id']}  does not build (counted apart): {m['what']}")
                continue
            for c in configs:
                killed, info = campaign(binary, c, a.runs, os.path.join(a.out, "findings", m["id"], c))
                state = "error" if killed is None else ("killed" if killed else "survived")
                rows.append([m["id"], c, state, info, m["what"]])
                print(f"{m['id']}  {c:8} {state:8} {info}")
        finally:
            with open(path, "w") as f:
                f.write(original)
    build_cli()  # leave the copy built as committed

    with open(os.path.join(a.out, "results.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["mutant", "config", "result", "invariants", "what"])
        w.writerows(rows)
    judged = {m["id"] for m in mutants if any(r[0] == m["id"] and r[2] in ("killed", "survived") for r in rows)}
    killed = {r[0] for r in rows if r[2] == "killed"}
    print(f"\n{len(killed)} of {len(judged)} mutants killed in at least one configuration "
          f"({a.runs} runs a configuration); {os.path.join(a.out, 'results.csv')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
