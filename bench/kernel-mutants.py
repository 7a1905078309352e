#!/usr/bin/env python3
"""Kernel-tree mutation benchmark: plausible bugs planted in the kernel's own fair.c.

bench/mutants.py plants bugs in the model. This script plants the same sixteen
(bench/kernel-mutants-MAJOR.MINOR.json: 6.12 and 7.0) in a kernel tree's kernel/sched/fair.c, builds the
kernel backend from the mutated tree, and asks what a kernel developer with a
buggy patch would get from this tool:

  - the invariants on the kernel's own code (`fuzz --backend kernel`): the
    oracle alone, no model involved. A mutant is killed when the campaign
    reports an (invariant, site) pair that the unmutated tree's campaign, with
    the same seed and runs, does not report (a shipped tree has findings of its
    own: docs/findings.md), or does so in a second campaign that skips the
    invariants of those findings (they end runs early and hide what a mutant
    breaks in the same place: "unmasked");
  - lockstep against the model (`fuzz --lockstep`): killed at the first
    differing field.

The tree is copied (only the files the extractor reads) into OUT/tree and
mutated there; nothing of it enters the repository. Each mutant's anchors
must occur inside the named function exactly as often as stated (default
once), else the script stops before building, naming the mutant.

  bench/kernel-mutants.py [--tree /usr/src/linux-source-6.12.tar.xz] [--profile v6.12.118]
                          [--runs 100000] [--lockstep-runs 20000] [--configs one,groups]
                          [--only K01,K02] [--out build-kernel-mutants] [--jobs 2]

Results: OUT/results.csv and a table on stdout. Exit 0 when every mutant was
judged, 2 on bad input.
"""
import argparse
import csv
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "kernelsrc"))
import extract  # noqa: E402  (the extractor's tree reader and version parser)

CONFIGS = {
    "one": [],                                     # one CPU, task groups in every other run
    "groups": ["--groups"],                        # task groups in every run
    "groups2": ["--groups", "--runqueues", "2"],   # and two CPUs (a tree with the SMP code: 6.18 on)
}
# the racing debugfs reader is a documented finding of 6.12.118 (K2) that ends most runs early
COMMON = ["--no-debug-read", "--time", "3600", "--seed", "1", "--jobs", "1", "--minimize-time", "1"]


def fail(msg):
    print(f"kernel-mutants: {msg}", file=sys.stderr)
    sys.exit(2)


def run(cmd):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def blank_comments(text):
    """TEXT with every comment replaced by spaces (newlines kept): the same offsets, no braces in comments."""
    return re.sub(r"/\*.*?\*/|//[^\n]*", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)


def function_span(text, name):
    """[start, end) of the body of function NAME in TEXT (its definition), or None."""
    code = blank_comments(text)
    m = re.search(rf"^(?:[\w \t*]*[ \t*])?{re.escape(name)}\s*\([^;{{}}()]*\)\s*\{{", code, re.M)
    if not m:
        return None
    depth, i = 1, m.end()
    while i < len(code) and depth:
        depth += {"{": 1, "}": -1}.get(code[i], 0)
        i += 1
    return m.end(), i


def mutate(text, m):
    """TEXT with mutant M applied, or an error message."""
    span = function_span(text, m["function"])
    if span is None:
        return None, f"{m['id']}: function {m['function']}() not found in kernel/sched/fair.c"
    start, end = span
    body = text[start:end]
    for edit in m["edits"]:
        find, replace = edit[0], edit[1]
        times = edit[2] if len(edit) > 2 else 1
        # in the code only: an anchor inside a comment is not the statement
        code = blank_comments(body)
        at = [i.start() for i in re.finditer(re.escape(find), code)]
        if len(at) != times:
            return None, (f"{m['id']}: '{find}' occurs {len(at)} times in the code of {m['function']}() (the mutant "
                          f"expects {times}): the mutants are written for Linux {MUTANTS_TREE}")
        for i in reversed(at):
            body = body[:i] + replace + body[i + len(find):]
    return text[:start] + body + text[end:], None


def pairs_of(findings_dir):
    """The (invariant, site) pairs of a campaign's minimized findings (each file's first line)."""
    pairs = set()
    if not os.path.isdir(findings_dir):
        return pairs
    for name in sorted(os.listdir(findings_dir)):
        if not name.endswith(".scn"):
            continue
        with open(os.path.join(findings_dir, name)) as f:
            first = f.readline()
        m = re.match(r"# (I-[A-Z0-9]+) in (.*) \(found by", first)
        if m:
            pairs.add((m.group(1), m.group(2)))
    return pairs


MUTANTS_TREE = "?"


def main():
    global MUTANTS_TREE
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tree", default="/usr/src/linux-source-6.12.tar.xz", help="a kernel tree or linux-source tarball")
    ap.add_argument("--profile", default=None, help="default: the mutant list's (v6.12.118 for 6.12, v7.0 for 7.0)")
    ap.add_argument("--runs", type=int, default=100000, help="runs of each invariant campaign")
    ap.add_argument("--lockstep-runs", type=int, default=20000, help="runs of each lockstep campaign (0: none)")
    ap.add_argument("--configs", default=None, help=f"of {', '.join(CONFIGS)}; default: the mutant list's")
    ap.add_argument("--only", default="")
    ap.add_argument("--out", default=os.path.join(ROOT, "build-kernel-mutants"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="ninja -j")
    ap.add_argument("--mutants", default=None, help="default: bench/kernel-mutants-MAJOR.MINOR.json of the tree")
    a = ap.parse_args()
    for c in (a.configs or "").split(","):
        if c and c not in CONFIGS:
            fail(f"--configs: unknown configuration '{c}' (known: {', '.join(CONFIGS)})")
    if a.runs <= 0 or a.lockstep_runs < 0:
        fail("--runs must be positive and --lockstep-runs not negative")

    # the files the extractor reads, copied out of the tree
    tree = os.path.join(a.out, "tree")
    try:
        files = extract.read_tree(a.tree, None)
        version = extract.kernel_version(files["Makefile"])
    except extract.ExtractError as e:
        fail(str(e))
    major_minor = f"{version[0]}.{version[1]}"
    if a.mutants is None:
        a.mutants = os.path.join(HERE, f"kernel-mutants-{major_minor}.json")
        if not os.path.isfile(a.mutants):
            known = sorted(re.sub(r"kernel-mutants-(.*)\.json", r"\1", f) for f in os.listdir(HERE)
                           if re.fullmatch(r"kernel-mutants-.*\.json", f))
            fail(f"{a.tree}: Linux {major_minor}.{version[2]}: no mutant list for it (bench/kernel-mutants-"
                 f"{major_minor}.json; there are lists for {', '.join(known)})")
    try:
        with open(a.mutants) as f:
            spec = json.load(f)
        MUTANTS_TREE = spec["tree"]
        mutants = spec["mutants"]
        for i, m in enumerate(mutants):
            for key in ("id", "function", "what", "edits"):
                if key not in m:
                    fail(f"{a.mutants}: mutant {i + 1} has no '{key}'")
        profile = a.profile or spec["profile"]
        configs = [c for c in (a.configs or ",".join(spec["configs"])).split(",") if c]
    except (OSError, json.JSONDecodeError, KeyError, TypeError) as e:
        fail(f"{a.mutants}: {e}")
    for c in configs:
        if c not in CONFIGS:
            fail(f"{a.mutants}: unknown configuration '{c}' (known: {', '.join(CONFIGS)})")
    if major_minor != MUTANTS_TREE:
        fail(f"{a.tree}: Linux {major_minor}.{version[2]}, but the mutants of {a.mutants} are written for {MUTANTS_TREE}")
    only = [o for o in a.only.split(",") if o]
    for o in only:
        if o not in {m["id"] for m in mutants}:
            fail(f"--only: no mutant {o} in {a.mutants}")
    if only:
        mutants = [m for m in mutants if m["id"] in only]
    for rel, text in files.items():
        path = os.path.join(tree, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
    fair_path = os.path.join(tree, "kernel/sched/fair.c")
    original = files["kernel/sched/fair.c"]
    mutated = {}
    for m in mutants:  # every mutant applies before anything is built
        text, err = mutate(original, m)
        if err:
            fail(err)
        mutated[m["id"]] = text

    build = os.path.join(a.out, "build")
    r = run(["cmake", "-S", ROOT, "-B", build, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=RelWithDebInfo",
             "-DEEVDF_BENCH=OFF", f"-DEEVDF_KERNEL_SRC={tree}"])
    if r.returncode != 0:
        fail(f"cmake failed:\n{r.stdout[-2000:]}")
    binary = os.path.join(build, "cli", "eevdf-check")

    def set_fair(text):
        with open(fair_path, "w") as f:
            f.write(text)
        os.utime(tree)  # the extraction depends on the tree directory
        return run(["ninja", "-C", build, f"-j{a.jobs}", "eevdf-check"])

    def campaign(label, config, skip=()):
        out = os.path.join(a.out, "findings", label, config + ("-unmasked" if skip else ""))
        run(["rm", "-rf", out])
        r = run([binary, "fuzz", "--profile", profile, "--backend", "kernel", "--runs", str(a.runs),
                 "--findings", out] + COMMON + CONFIGS[config] + (["--skip", ",".join(sorted(skip))] if skip else []))
        if r.returncode not in (0, 1):
            return None, r.stdout[-400:]
        return pairs_of(out), None

    def lockstep(label):
        if a.lockstep_runs == 0:
            return "-"
        out = os.path.join(a.out, "findings", label, "lockstep")
        r = run([binary, "fuzz", "--profile", profile, "--lockstep", "--runs", str(a.lockstep_runs),
                 "--findings", out] + COMMON)
        m = re.search(r"^LOCKSTEP DIVERGENCE at operation (\d+) \((.*?)\): (.+?): model ", r.stdout, re.M)
        if m:
            return f"diverged ({m.group(3).strip()})"
        if re.search(r"0 divergence\(s\)", r.stdout):
            return "agreed"
        return "error: " + r.stdout[-200:].replace("\n", " ")

    b = set_fair(original)
    if b.returncode != 0:
        fail(f"the unmutated tree does not build:\n{b.stdout[-2000:]}")
    # Two campaigns a configuration. A run stops at its first violation, so the
    # tree's own findings hide whatever a mutant breaks later in the same runs,
    # and a mutant that breaks the same (invariant, site) cannot be told apart.
    # The second campaign skips the invariants of the tree's own findings
    # ("unmasked"); a mutant is killed by a pair new in either.
    baseline, unmasked_skip, baseline_unmasked = {}, {}, {}
    for c in configs:
        pairs, err = campaign("baseline", c)
        if pairs is None:
            fail(f"the unmutated tree's campaign failed ({c}): {err}")
        baseline[c] = pairs
        unmasked_skip[c] = {p[0] for p in pairs}
        shown = ", ".join(sorted(unmasked_skip[c])) or "none"
        print(f"baseline {c}: {len(pairs)} (invariant, site) pair(s): {shown}")
        if unmasked_skip[c]:
            pairs, err = campaign("baseline", c, unmasked_skip[c])
            if pairs is None:
                fail(f"the unmutated tree's unmasked campaign failed ({c}): {err}")
            baseline_unmasked[c] = pairs
            shown = ", ".join(sorted({p[0] for p in pairs})) or "none"
            print(f"baseline {c}, skipping them: {len(pairs)} pair(s): {shown}")
    base_lock = lockstep("baseline")
    print(f"baseline lockstep: {base_lock}")
    if a.lockstep_runs and base_lock != "agreed":
        fail("the unmutated tree diverges from the model in lockstep: a mutant could not be judged by lockstep")

    rows = []
    try:
        for m in mutants:
            b = set_fair(mutated[m["id"]])
            if b.returncode != 0:
                rows.append([m["id"], m.get("mirrors", ""), "-", "no-build", "", "", "", m["what"]])
                print(f"{m['id']}  does not build (counted apart): {m['what']}")
                continue
            lock = lockstep(m["id"])
            for c in configs:
                pairs, err = campaign(m["id"], c)
                unmasked = set()
                if pairs is not None and unmasked_skip[c]:
                    unmasked, err = campaign(m["id"], c, unmasked_skip[c])
                if pairs is None or unmasked is None:
                    state, new, new_unmasked = "error", err.replace("\n", " ")[-120:], ""
                else:
                    extra = pairs - baseline[c]
                    extra_unmasked = unmasked - baseline_unmasked.get(c, set())
                    state = "killed" if extra or extra_unmasked else "survived"
                    new = " ".join(sorted({p[0] for p in extra}))
                    new_unmasked = " ".join(sorted({p[0] for p in extra_unmasked}))
                rows.append([m["id"], m.get("mirrors", ""), c, state, new, new_unmasked, lock, m["what"]])
                print(f"{m['id']}  {c:7} {state:8} {new:28} unmasked: {new_unmasked:24} lockstep: {lock}")
    finally:
        set_fair(original)  # leave the build as the unmutated tree

    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "results.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["mutant", "mirrors", "config", "result", "new_invariants", "new_invariants_unmasked", "lockstep",
                    "what"])
        w.writerows(rows)
    judged = {r[0] for r in rows if r[3] in ("killed", "survived")}
    killed = {r[0] for r in rows if r[3] == "killed"}
    diverged = {r[0] for r in rows if r[6].startswith("diverged")}
    print(f"\nLinux {version[0]}.{version[1]}.{version[2]}, profile {profile}: "
          f"{len(killed)} of {len(judged)} mutants killed by the invariants on the kernel's own code "
          f"({a.runs} runs a configuration); {len(diverged)} of {len(judged)} diverge in lockstep "
          f"({a.lockstep_runs} runs); {os.path.join(a.out, 'results.csv')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
