#!/usr/bin/env python3
"""Kernel-tree mutation benchmark: bugs planted in, and real fixes taken out of, the kernel's own fair.c.

bench/mutants.py plants bugs in the model. This script changes a kernel tree's
scheduler code (bench/kernel-mutants-MAJOR.MINOR.json: 6.12 and 7.0), builds
the kernel backend from the changed tree, and asks what a kernel developer
with a buggy patch would get from this tool. Two kinds of entries:

  - planted (K01-K16, "mirrors": the model's M01-M16): the sixteen plausible
    bugs of bench/mutants.json (a forgotten counter, a missing clamp, an
    off-by-one, a dropped term);
  - reverts (R01-...; "reverts": an upstream commit): a real EEVDF fix that
    the tree contains, undone as a small edit: the pre-fix code, as the
    commit's patch shows it, a bug a patch could bring back.

Plain mode (the default: what a user of `eevdf-check fuzz` has). For each
configuration, campaigns on the unchanged tree

    eevdf-check fuzz --backend kernel --time T --seed S --jobs 1 [config flags]

(no --profile: the tree is judged by the profile of its version, whose known
findings do not end runs and are not reported as findings), each writing
FINDINGS_DIR/campaign.known, every finding identity it saw; the first alone,
then each with the earlier ones as --baseline, until one reports nothing new
(--baseline-rounds, default at most 5; 1 is a single campaign). One is not
enough where the unchanged tree has findings its profile does not know: a new
finding ends its run, so the campaign never sees what the same run raises
after it, and a campaign that knows it (every entry's, through --baseline)
runs on and meets that. Then, for each entry, the same campaign on the
changed tree with --baseline those files: an entry is KILLED when that
campaign reports a new finding (exit status 1: not known to the profile, not
seen on the unchanged tree), SURVIVED on exit 0. A run of the tool that dies
(a signal, another status) is counted apart, as "crashed" or "error". The
minimized scenarios of a kill's new findings are copied to
OUT/kills/ID-CONFIG/; each campaign's output is FINDINGS_DIR/campaign.log.
A control campaign (the unchanged tree again, with the same baseline) shows
what the budget alone can make look new: with --time, a campaign that gets
through more runs than the baseline's meets findings the baseline did not
reach (with --runs, runs are the same from campaign to campaign).

Masked mode (--masked, the measurement of 2026-12-04, docs/notes/mutants.md):
the judging profile given by --profile, an entry killed by an (invariant,
site) pair that the unchanged tree's campaign with the same runs does not
report, or does so in a second campaign that skips the invariants of those
pairs ("unmasked"). It needs nothing from the tool but --skip; no user runs
it this way.

Lockstep against the model (`fuzz --lockstep --profile P`, killed at the
first differing field) runs beside either mode with --lockstep-runs N.

The tree is copied (only the files the extractor reads) into OUT/tree and
changed there; nothing of it enters the repository. Each edit's anchor must
occur inside its function exactly as often as stated (default once), else
the script stops before building, naming the entry.

  bench/kernel-mutants.py [--tree /usr/src/linux-source-6.12.tar.xz] [--masked]
                          [--time 60 | --runs N] [--seed 1] [--configs one,two] [--baseline-rounds 5]
                          [--only K01,R03] [--kind planted|revert|all]
                          [--lockstep-runs 0] [--out build-kernel-mutants] [--jobs 2] [--show]

The measurement (hours on a 2-core machine: 26 or 27 entries x 2 configurations x
(60 s + minimizing + one incremental build), a tree):

  python3 bench/kernel-mutants.py --time 60 --configs one,two --jobs 2 --out out-kmut-6.12
  python3 bench/kernel-mutants.py --tree /path/to/linux-7.0 --time 60 --configs one,two --jobs 2 --out out-kmut-7.0

Results: OUT/results.csv and a table on stdout. Exit 0 when every entry was
judged (killed or survived), 1 when one could not be (crashed, error, no
build), 2 on bad input.
"""
import argparse
import csv
import difflib
import glob
import json
import os
import re
import shlex
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "kernelsrc"))
import extract  # noqa: E402  (the extractor's tree reader and version parser)
import tree_edit  # noqa: E402  (edits by function and anchor, shared with scripts/kernel-fix.py)

CONFIGS = {
    "one": [],                                     # one CPU, task groups in every other run
    "two": ["--runqueues", "2"],                   # two CPUs, task groups in every other run
    "groups": ["--groups"],                        # task groups in every run
    "groups2": ["--groups", "--runqueues", "2"],   # and two CPUs
}
PLAIN_CONFIGS = ["one", "two"]
# masked mode: the racing debugfs reader is a documented finding of 6.12.118 (K2) that ends most runs early
MASKED_COMMON = ["--no-debug-read", "--time", "3600", "--seed", "1", "--jobs", "1", "--minimize-time", "1"]
KNOWN_FILE = "campaign.known"


def entry_kind(m):
    """An entry's kind ("planted" or "revert") and what it mirrors or undoes."""
    return ("revert" if "reverts" in m else "planted"), m.get("reverts", m.get("mirrors", ""))


def fail(msg):
    print(f"kernel-mutants: {msg}", file=sys.stderr)
    sys.exit(2)


def run(cmd):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")


def mutate(texts, m):
    """TEXTS (path -> text) with entry M applied (the files it changes only), or an error message."""
    return tree_edit.apply_entry(texts, m, f"Linux {MUTANTS_TREE}")


def pairs_of(findings_dir):
    """The (invariant, site) pairs of a campaign's minimized findings (each file's first line)."""
    pairs = set()
    for path in sorted(glob.glob(os.path.join(findings_dir, "*.scn"))):
        with open(path, errors="replace") as f:
            first = f.readline()
        m = re.match(r"# (I-[A-Z0-9]+) in (.*) \(found by", first)
        if m:
            pairs.add((m.group(1), m.group(2)))
    return pairs


def read_known(path):
    """The rows of a campaign.known file (tab-separated, '#' comments skipped): each as a dict of its name (the
    first field), its invariant (the field that is an invariant's id), its scenario (the field that names a .scn
    file) and all its fields. A campaign lists the known findings it counted, under their names and with their
    regression scenarios, and each finding it minimized, with the scenario it wrote into its directory."""
    rows = []
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            fields = line.split("\t")
            rows.append({"name": fields[0],
                         "invariant": next((x for x in fields[1:] if re.fullmatch(r"I-[A-Z0-9]+", x)), "?"),
                         "scenario": next((x for x in fields[1:] if x.endswith(".scn")), ""),
                         "fields": fields})
    return rows


def key_of(row):
    """A finding identity of campaign.known: the row's fields but its name and its scenario."""
    return tuple(x for i, x in enumerate(row["fields"]) if i > 0 and x != row["scenario"])


def campaign_findings(findings_dir):
    """The findings a campaign minimized into FINDINGS_DIR, from its campaign.known: the rows whose scenario lies
    there (a known finding's, the profile's or a baseline's, lies elsewhere), as (invariant, scenario path,
    identity)."""
    here = os.path.realpath(findings_dir)
    found = []
    for row in read_known(os.path.join(findings_dir, KNOWN_FILE)):
        base = os.path.basename(row["scenario"])
        if os.path.realpath(os.path.dirname(row["scenario"]) or ".") == here and \
                os.path.isfile(os.path.join(here, base)):
            found.append((row["invariant"], os.path.join(here, base), key_of(row)))
    return found


MUTANTS_TREE = "?"


def main():
    global MUTANTS_TREE
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tree", default="/usr/src/linux-source-6.12.tar.xz", help="a kernel tree or linux-source tarball")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--plain", dest="masked", action="store_false",
                      help="(default) campaigns as a user runs them: the unchanged tree's campaign.known as --baseline")
    mode.add_argument("--masked", dest="masked", action="store_true",
                      help="the 2026-12-04 measurement: --profile, (invariant, site) pairs, unmasked campaigns")
    ap.set_defaults(masked=False)
    ap.add_argument("--profile", default=None,
                    help="masked mode and lockstep: the profile (default: the list's, v6.12.118 or v7.0)")
    ap.add_argument("--time", type=int, default=None, help="plain mode: seconds a campaign (default 60 without --runs)")
    ap.add_argument("--runs", type=int, default=None,
                    help="runs a campaign (plain mode: instead of --time; masked mode: default 100000)")
    ap.add_argument("--seed", type=int, default=1, help="plain mode: the seed of every campaign")
    ap.add_argument("--baseline-rounds", type=int, default=5,
                    help="plain mode: campaigns on the unchanged tree, each with the earlier ones as --baseline, until "
                         "one reports nothing new (default at most 5; 1: a single campaign)")
    ap.add_argument("--baseline-time", type=int, default=None,
                    help="plain mode with --time: seconds of the unchanged tree's campaign (default: --time)")
    ap.add_argument("--minimize-time", type=int, default=5, help="plain mode: seconds to minimize each new finding")
    ap.add_argument("--fuzz-args", default="", help="plain mode: more flags for every campaign, e.g. '--rt'")
    ap.add_argument("--no-control", action="store_true", help="plain mode: no control campaign")
    ap.add_argument("--lockstep-runs", type=int, default=None,
                    help="runs of each lockstep campaign (0: none; default 0 plain, 20000 masked)")
    ap.add_argument("--configs", default=None,
                    help=f"of {', '.join(CONFIGS)}; default: one,two (plain), the list's (masked)")
    ap.add_argument("--only", default="", help="these entries only: K04,R01")
    ap.add_argument("--kind", default="all", choices=["all", "planted", "revert"])
    ap.add_argument("--out", default=os.path.join(ROOT, "build-kernel-mutants"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="ninja -j")
    ap.add_argument("--mutants", default=None, help="default: bench/kernel-mutants-MAJOR.MINOR.json of the tree")
    ap.add_argument("--show", action="store_true",
                    help="apply every entry, print the lines each changes (a diff against the tree), build nothing")
    a = ap.parse_args()
    a.out = os.path.abspath(a.out)  # the build reads the tree from there
    for c in (a.configs or "").split(","):
        if c and c not in CONFIGS:
            fail(f"--configs: unknown configuration '{c}' (known: {', '.join(CONFIGS)})")
    if a.runs is not None and a.runs <= 0:
        fail("--runs must be positive")
    if a.time is not None and a.time <= 0:
        fail("--time must be positive")
    if a.masked and a.time is not None:
        fail("--time: masked mode counts runs (--runs)")
    if a.runs is not None and a.time is not None:
        fail("--time and --runs: one budget or the other")
    if a.lockstep_runs is not None and a.lockstep_runs < 0:
        fail("--lockstep-runs must not be negative")
    if a.baseline_time is not None and (a.baseline_time <= 0 or a.runs is not None or a.masked):
        fail("--baseline-time: a positive number of seconds, in plain mode with --time")
    if a.baseline_rounds <= 0:
        fail("--baseline-rounds must be positive")
    if a.minimize_time <= 0:
        fail("--minimize-time must be positive")
    try:
        fuzz_args = shlex.split(a.fuzz_args)
    except ValueError as e:
        fail(f"--fuzz-args: {e}")
    lockstep_runs = a.lockstep_runs if a.lockstep_runs is not None else (20000 if a.masked else 0)

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
            for e in m["edits"]:
                if not (isinstance(e, dict) and "find" in e and "replace" in e) and \
                        not (isinstance(e, list) and 2 <= len(e) <= 3):
                    fail(f"{a.mutants}: {m['id']}: an edit is [find, replace(, times)] or an object with find and "
                         f"replace: {e!r}")
        profile = a.profile or spec["profile"]
        default_configs = spec["configs"] if a.masked else PLAIN_CONFIGS
        configs = [c for c in (a.configs or ",".join(default_configs)).split(",") if c]
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
    if a.kind != "all":
        mutants = [m for m in mutants if entry_kind(m)[0] == a.kind]
    changed = {}
    for m in mutants:  # every entry applies before anything is built
        texts, err = mutate(files, m)
        if err:
            fail(err)
        changed[m["id"]] = texts
    if a.show:
        for m in mutants:
            print(f"== {m['id']} ({m.get('reverts') or m.get('mirrors', '')}): {m['what']}")
            for rel, text in changed[m["id"]].items():
                sys.stdout.writelines(difflib.unified_diff(files[rel].splitlines(True), text.splitlines(True),
                                                           f"a/{rel}", f"b/{rel}", n=1))
        return 0
    for rel, text in files.items():
        path = os.path.join(tree, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)

    build = os.path.join(a.out, "build")
    r = run(["cmake", "-S", ROOT, "-B", build, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=RelWithDebInfo",
             "-DEEVDF_BENCH=OFF", f"-DEEVDF_KERNEL_SRC={tree}"])
    if r.returncode != 0:
        fail(f"cmake failed:\n{r.stdout[-2000:]}")
    binary = os.path.join(build, "cli", "eevdf-check")
    written = set()

    def set_tree(texts):
        """The tree's files as TEXTS says (the others as read), then an incremental build."""
        for rel in written | set(texts):
            with open(os.path.join(tree, rel), "w") as f:
                f.write(texts.get(rel, files[rel]))
        written.clear()
        written.update(texts)
        os.utime(tree)  # the extraction depends on the tree directory
        return run(["ninja", "-C", build, f"-j{a.jobs}", "eevdf-check"])

    def lockstep(label):
        if lockstep_runs == 0:
            return "-"
        out = os.path.join(a.out, "findings", label, "lockstep")
        r = run([binary, "fuzz", "--profile", profile, "--lockstep", "--runs", str(lockstep_runs),
                 "--findings", out] + MASKED_COMMON)
        m = re.search(r"^LOCKSTEP DIVERGENCE at operation (\d+) \((.*?)\): (.+?): model ", r.stdout, re.M)
        if m:
            return f"diverged ({m.group(3).strip()})"
        if re.search(r"0 divergence\(s\)", r.stdout):
            return "agreed"
        return "error: " + r.stdout[-200:].replace("\n", " ")

    b = set_tree({})
    if b.returncode != 0:
        fail(f"the unchanged tree does not build:\n{b.stdout[-2000:]}")
    base_lock = lockstep("baseline")
    if lockstep_runs:
        print(f"baseline lockstep: {base_lock}")
        if base_lock != "agreed":
            fail("the unchanged tree diverges from the model in lockstep: an entry could not be judged by lockstep")

    if a.masked:
        rows, header = masked(a, mutants, configs, profile, binary, set_tree, changed, lockstep)
    else:
        rows, header = plain(a, mutants, configs, binary, set_tree, changed, lockstep, fuzz_args)

    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "results.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)
    col = {name: i for i, name in enumerate(header)}
    print()
    for kind, label in (("planted", "planted bugs"), ("revert", "reverted fixes")):
        ids = [m["id"] for m in mutants if entry_kind(m)[0] == kind]
        if not ids:
            continue
        mine = [r for r in rows if r[0] in ids]
        killed = {r[0] for r in mine if r[col["result"]] == "killed"}
        judged = {r[0] for r in mine if r[col["result"]] in ("killed", "survived")}
        apart = sorted({r[0] for r in mine if r[col["result"]] not in ("killed", "survived")})
        per = ", ".join(f"{c} {len({r[0] for r in mine if r[col['config']] == c and r[col['result']] == 'killed'})}"
                        for c in configs)
        line = f"{label}: {len(killed)} of {len(judged)} killed in at least one configuration ({per})"
        if "new_also_in_control" in col and any(r[0] == "control" for r in rows):
            beyond = {r[0] for r in mine if r[col["result"]] == "killed" and
                      int(r[col["new_findings"]]) > int(r[col["new_also_in_control"]])}
            line += f", {len(beyond)} by a finding the control campaign did not also report"
        line += f"; not judged: {', '.join(apart) or 'none'}"
        if lockstep_runs:
            diverged = {r[0] for r in mine if r[col["lockstep"]].startswith("diverged")}
            line += f"; {len(diverged)} diverge in lockstep ({lockstep_runs} runs)"
        print(line)
    budget = f"{a.runs} runs" if a.runs else f"{a.time or 60} s"
    how = "masked mode, profile " + profile if a.masked else "plain mode, --baseline the unchanged tree's campaign"
    print(f"Linux {version[0]}.{version[1]}.{version[2]}, {how}, {budget} a campaign: "
          f"{os.path.join(a.out, 'results.csv')}")
    bad = [r for r in rows if r[col["kind"]] != "control" and r[col["result"]] not in ("killed", "survived")]
    return 1 if bad else 0


def plain(a, mutants, configs, binary, set_tree, changed, lockstep, fuzz_args):
    """Plain mode: the rows of results.csv and their header."""
    help_text = run([binary, "fuzz", "--help"]).stdout
    if "--baseline" not in help_text:
        fail(f"{binary}: 'fuzz' has no --baseline: plain mode needs an eevdf-check whose fuzz writes "
             f"{KNOWN_FILE} and takes --baseline (or use --masked)")
    if a.runs:
        budget = ["--time", "86400", "--runs", str(a.runs)]
    else:
        budget = ["--time", str(a.time or 60)]
    kills_dir = os.path.join(a.out, "kills")

    def campaign(label, config, baseline=None, seconds=None):
        """One campaign: (state, its new findings as campaign_findings() gives them, runs, the judging profile,
        a note)."""
        out = os.path.join(a.out, "findings", label, config)
        shutil.rmtree(out, ignore_errors=True)
        cmd = [binary, "fuzz", "--backend", "kernel", "--seed", str(a.seed), "--jobs", "1",
               "--minimize-time", str(a.minimize_time), "--findings", out] + \
            (["--time", str(seconds)] if seconds else budget) + CONFIGS[config] + fuzz_args
        for known in baseline or []:
            cmd += ["--baseline", known]
        r = run(cmd)
        if os.path.isdir(out):
            with open(os.path.join(out, "campaign.log"), "w") as f:
                f.write(" ".join(shlex.quote(x) for x in cmd) + "\n" + r.stdout)
        m = re.search(r"^Summary: profile (\S+), (\d+) runs", r.stdout, re.M)  # informative only
        runs, judged_by = (m.group(2), m.group(1).rstrip(",")) if m else ("", "")
        tail = r.stdout[-300:].replace("\n", " ")
        if r.returncode < 0:
            return "crashed", [], runs, judged_by, f"signal {-r.returncode}: {tail}"
        if r.returncode not in (0, 1):
            return "error", [], runs, judged_by, f"exit {r.returncode}: {tail}"
        if not os.path.isfile(os.path.join(out, KNOWN_FILE)):
            return "error", [], runs, judged_by, f"no {KNOWN_FILE} in {out}"
        new = campaign_findings(out)
        note = ""
        if r.returncode == 1 and not new:
            note = "; ".join(x for x in (note, f"exit 1 but no new finding named in {KNOWN_FILE}") if x)
        if r.returncode == 0 and new:
            note = "; ".join(x for x in (note, f"exit 0 but {len(new)} new finding(s) named in {KNOWN_FILE}") if x)
        said = re.search(r"^(\d+) new finding\(s\)", r.stdout, re.M)  # a cross-check of the reading above
        if said and int(said.group(1)) != len(new):
            note = "; ".join(x for x in (note, f"the summary says {said.group(1)} new, {KNOWN_FILE} names {len(new)}")
                             if x)
        return ("killed" if r.returncode == 1 else "survived"), new, runs, judged_by, note

    # The unchanged tree's campaign, again with its own campaign.known as --baseline until it reports nothing
    # new (at most --baseline-rounds): a new finding ends its run, so one campaign never sees what the same run
    # raises after it, which a campaign that knows it (an entry's, with --baseline) goes on to meet.
    baseline, base_runs = {}, {}
    for c in configs:
        baseline[c] = []
        for k in range(1, a.baseline_rounds + 1):
            label = "baseline" if k == 1 else f"baseline-{k}"
            state, new, runs, judged_by, detail = campaign(label, c, baseline[c], seconds=a.baseline_time)
            if state not in ("killed", "survived"):
                fail(f"the unchanged tree's campaign failed ({c}, round {k}): {detail}")
            baseline[c].append(os.path.join(a.out, "findings", label, c, KNOWN_FILE))
            base_runs[c] = runs
            ids = read_known(baseline[c][-1])
            print(f"baseline {c}, round {k}: judged by {judged_by or '?'}, {runs or '?'} runs, {len(ids)} finding "
                  f"identities ({len(new)} new: {' '.join(sorted({i for i, _, _ in new})) or 'none'}"
                  f"{'; ' + detail if detail else ''})")
            if state == "survived":
                break
        else:
            if a.baseline_rounds > 1:
                print(f"baseline {c}: still new findings after {a.baseline_rounds} rounds")

    header = ["mutant", "kind", "source", "config", "result", "new_findings", "new_invariants",
              "new_also_in_control", "scenarios", "runs", "baseline_runs", "lockstep", "what"]
    rows = []
    control_new = {c: set() for c in configs}
    if not a.no_control:
        for c in configs:
            state, new, runs, _, detail = campaign("control", c, baseline[c])
            shown = "clean" if state == "survived" else f"{state}: {len(new)} new finding(s) " + \
                " ".join(sorted({i for i, _, _ in new})) + (f" {detail}" if detail else "")
            control_new[c] = {key for _, _, key in new}
            print(f"control {c} (the unchanged tree against its own baseline): {shown}")
            rows.append(["control", "control", "", c, "control" if state == "survived" else f"control-{state}",
                         len(new), " ".join(sorted({i for i, _, _ in new})), "", "", runs, base_runs[c], "", detail])
    try:
        for m in mutants:
            kind, source = entry_kind(m)
            b = set_tree(changed[m["id"]])
            if b.returncode != 0:
                rows.append([m["id"], kind, source, "-", "no-build"] + [""] * 7 + [m["what"]])
                print(f"{m['id']}  does not build (counted apart): {m['what']}\n{b.stdout[-1500:]}")
                continue
            lock = lockstep(m["id"])
            for c in configs:
                state, new, runs, _, detail = campaign(m["id"], c, baseline[c])
                invariants = " ".join(sorted({i for i, _, _ in new}))
                also = sum(1 for _, _, key in new if key in control_new[c])
                kept = []
                dest = os.path.join(kills_dir, f"{m['id']}-{c}")
                shutil.rmtree(dest, ignore_errors=True)  # an earlier run's
                if state == "killed":
                    os.makedirs(dest, exist_ok=True)
                    for _, p, _ in new:
                        if p and os.path.isfile(p):
                            shutil.copy2(p, dest)
                            kept.append(os.path.relpath(os.path.join(dest, os.path.basename(p)), a.out))
                rows.append([m["id"], kind, source, c, state, len(new), invariants, also, " ".join(kept), runs,
                             base_runs[c], lock, m["what"] + (f" [{detail}]" if detail else "")])
                print(f"{m['id']}  {c:5} {state:8} {len(new):3} new ({also} also in the control)  {invariants:32} "
                      f"runs {runs or '?':>8} (baseline {base_runs[c] or '?'})" +
                      (f"  lockstep: {lock}" if lock != "-" else "") + (f"  {detail}" if detail else ""))
    finally:
        set_tree({})  # leave the build as the unchanged tree
    return rows, header


def masked(a, mutants, configs, profile, binary, set_tree, changed, lockstep):
    """Masked mode (the measurement of 2026-12-04): the rows of results.csv and their header."""
    runs = a.runs or 100000

    def campaign(label, config, skip=()):
        out = os.path.join(a.out, "findings", label, config + ("-unmasked" if skip else ""))
        shutil.rmtree(out, ignore_errors=True)
        r = run([binary, "fuzz", "--profile", profile, "--backend", "kernel", "--runs", str(runs),
                 "--findings", out] + MASKED_COMMON + CONFIGS[config] +
                (["--skip", ",".join(sorted(skip))] if skip else []))
        if r.returncode not in (0, 1):
            return None, r.stdout[-400:]
        return pairs_of(out), None

    # Two campaigns a configuration. A run stops at its first violation, so the
    # tree's own findings hide whatever an entry breaks later in the same runs,
    # and an entry that breaks the same (invariant, site) cannot be told apart.
    # The second campaign skips the invariants of the tree's own findings
    # ("unmasked"); an entry is killed by a pair new in either.
    baseline, unmasked_skip, baseline_unmasked = {}, {}, {}
    for c in configs:
        pairs, err = campaign("baseline", c)
        if pairs is None:
            fail(f"the unchanged tree's campaign failed ({c}): {err}")
        baseline[c] = pairs
        unmasked_skip[c] = {p[0] for p in pairs}
        shown = ", ".join(sorted(unmasked_skip[c])) or "none"
        print(f"baseline {c}: {len(pairs)} (invariant, site) pair(s): {shown}")
        if unmasked_skip[c]:
            pairs, err = campaign("baseline", c, unmasked_skip[c])
            if pairs is None:
                fail(f"the unchanged tree's unmasked campaign failed ({c}): {err}")
            baseline_unmasked[c] = pairs
            shown = ", ".join(sorted({p[0] for p in pairs})) or "none"
            print(f"baseline {c}, skipping them: {len(pairs)} pair(s): {shown}")

    header = ["mutant", "kind", "source", "config", "result", "new_invariants", "new_invariants_unmasked", "lockstep",
              "what"]
    rows = []
    try:
        for m in mutants:
            kind, source = entry_kind(m)
            b = set_tree(changed[m["id"]])
            if b.returncode != 0:
                rows.append([m["id"], kind, source, "-", "no-build", "", "", "", m["what"]])
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
                rows.append([m["id"], kind, source, c, state, new, new_unmasked, lock, m["what"]])
                print(f"{m['id']}  {c:7} {state:8} {new:28} unmasked: {new_unmasked:24} lockstep: {lock}")
    finally:
        set_tree({})  # leave the build as the unchanged tree
    return rows, header


if __name__ == "__main__":
    sys.exit(main())
