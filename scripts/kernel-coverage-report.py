#!/usr/bin/env python3
"""Writes the coverage report of scripts/kernel-coverage.sh: runs gcov on the
kernel backend's fair_extract.c of a build configured with
-DEEVDF_KERNEL_COVERAGE=ON, after a campaign, and writes into OUT the tree's
own fair.c and pelt.c annotated (gcov's .gcov format, the tree's line numbers:
the extracted file's #line markers point into the tree) and summary.txt.

Usage: kernel-coverage-report.py BUILD OUT COMMAND...   (COMMAND: the campaign, for the summary)"""
import gzip
import json
import os
import shutil
import subprocess
import sys

FILES = ("kernel/sched/fair.c", "kernel/sched/pelt.c")


def gcov_program():
    """Debian's gcov of the gcc that compiled the build (gcov-12 for gcc 12)."""
    major = subprocess.run(["gcc", "-dumpversion"], capture_output=True, text=True).stdout.strip().split(".")[0]
    return shutil.which(f"gcov-{major}") or "gcov"


def pct(done, total):
    return f"{100.0 * done / total:.1f}%" if total else "-"


def main():
    build, out, command = sys.argv[1], sys.argv[2], " ".join(sys.argv[3:])
    gen = os.path.join(build, "kernelsrc", "gen")
    objdir = None
    for root, _, names in os.walk(os.path.join(build, "kernelsrc", "CMakeFiles", "eevdf_kernel_c.dir")):
        if "fair_extract.c.gcda" in names:
            objdir = root
    if objdir is None:
        sys.exit(f"kernel-coverage: no fair_extract.c.gcda under {build}/kernelsrc: did the campaign run "
                 "a build configured with -DEEVDF_KERNEL_COVERAGE=ON?")
    gcda = os.path.join(os.path.abspath(objdir), "fair_extract.c.gcda")
    # gcov reads the annotated sources by the #line names (kernel/sched/fair.c, ...) from
    # where it runs: the extractor's copy of the tree's files, BUILD/kernelsrc/gen/tree
    work = os.path.join(out, "gcov-work")
    os.makedirs(work, exist_ok=True)
    tree = os.path.abspath(os.path.join(gen, "tree"))
    gcov = gcov_program()
    for args in (["-b", "-c"], ["-b", "-c", "--json-format"]):
        proc = subprocess.run([gcov, *args, "-o", os.path.abspath(objdir), gcda], cwd=tree,
                              capture_output=True, text=True)
        if proc.returncode != 0:
            sys.exit(f"kernel-coverage: {gcov} failed: {proc.stderr.strip()}")
    for name in os.listdir(tree):
        if name.endswith(".gcov") or name.endswith(".gcov.json.gz"):
            shutil.move(os.path.join(tree, name), os.path.join(work, name))
    for rel in FILES:
        base = os.path.basename(rel) + ".gcov"
        if os.path.exists(os.path.join(work, base)):
            shutil.move(os.path.join(work, base), os.path.join(out, base))
    with gzip.open(os.path.join(work, "fair_extract.c.gcov.json.gz"), "rt") as f:
        data = json.load(f)
    shutil.rmtree(work)

    # the function definitions of the tree's files (their line ranges), and which the
    # extractor took: the rest is not compiled
    defined = {rel: [] for rel in FILES}
    with open(os.path.join(gen, "functions.txt")) as f:
        for line in f:
            if not line.startswith("#"):
                rel, first, last, name, taken = line.split()
                defined[rel].append((int(first), int(last), name, taken == "taken"))
    with open(os.path.join(gen, "version.h")) as f:
        version = f.readline().split('"')[1]

    report = [f"Coverage of the kernel's own code (Linux {version}) by:", f"  {command}", ""]
    rows = []  # (file, first line, name, lines, executed, branches, taken branches)
    for rel in FILES:
        entry = next((e for e in data["files"] if e["file"] == rel), {"lines": []})
        counted = {ln["line_number"]: ln for ln in entry["lines"]}
        taken = [d for d in defined[rel] if d[3]]
        left = len(defined[rel]) - len(taken)
        report.append(f"{rel}: {len(defined[rel])} function definitions in this configuration: "
                      f"{len(taken)} taken by the extractor (compiled), {left} left out (not reachable "
                      "from the backend's roots: out of scope, not counted below)")
        totals = [0, 0, 0, 0]
        reached = emitted = 0
        for first, last, name, _ in taken:
            lines = [counted[n] for n in range(first, last + 1) if n in counted]
            row = [len(lines), sum(ln["count"] > 0 for ln in lines),
                   sum(len(ln["branches"]) for ln in lines),
                   sum(b["count"] > 0 for ln in lines for b in ln["branches"])]
            totals = [a + b for a, b in zip(totals, row)]
            emitted += row[0] > 0
            reached += row[1] > 0
            rows.append((os.path.basename(rel), first, name, *row))
        report += [f"  functions executed: {reached} of {emitted} with code "
                   f"({len(taken) - emitted} taken with none: empty stubs of this configuration, or unused)",
                   f"  lines executed:     {totals[1]} of {totals[0]} ({pct(totals[1], totals[0])})",
                   f"  branches taken:     {totals[3]} of {totals[2]} ({pct(totals[3], totals[2])})", ""]

    report.append("Per function (the functions with unexecuted lines first; file:line name, "
                  "lines executed/total, branches taken/total):")
    rows.sort(key=lambda r: (r[4] == r[3], r[0], r[1]))
    for file, first, name, lines, executed, branches, btaken in rows:
        if lines:
            report.append(f"  {file}:{first} {name}  lines {executed}/{lines}  branches {btaken}/{branches}")
    report += ["", "Taken, with no line the compiler emitted code for (empty stubs of this configuration, or unused):"]
    report += ["  " + " ".join(f"{file}:{first}:{name}" for file, first, name, lines, *_ in rows if not lines)]
    report += ["", "Left out by the extractor (not compiled):"]
    for rel in FILES:
        names = [f"{name}:{first}" for first, _, name, taken in defined[rel] if not taken]
        report.append(f"  {os.path.basename(rel)}: " + (" ".join(names) if names else "none"))
    with open(os.path.join(out, "summary.txt"), "w") as f:
        f.write("\n".join(report) + "\n")


if __name__ == "__main__":
    main()
