"""Edits of a kernel tree's C text by function and statement, the one place
that applies them: bench/kernel-mutants.py (bugs planted, fixes reverted) and
scripts/kernel-fix.py (the fixes of documented findings, kernelsrc/fixes.json).

An edit names a file, a function, an anchor (a piece of the function's code,
comments excluded) that must occur there exactly `times` times, and its
replacement. No kernel text is kept in this repository: an entry holds the
anchors and the new statements only.
"""
import json
import os
import re

FAIR = "kernel/sched/fair.c"
FIXES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixes.json")


def load_fixes():
    """The fixes of documented findings (kernelsrc/fixes.json), by id."""
    with open(FIXES) as f:
        return {e["id"]: e for e in json.load(f)["fixes"]}


def fix_version_error(entry, version):
    """None when ENTRY is written for VERSION's major.minor, else the reason."""
    if f"{version[0]}.{version[1]}" in entry["trees"]:
        return None
    return f"{entry['id']}: written for Linux {', '.join(entry['trees'])}; the tree is Linux {'.'.join(map(str, version))}"


def blank_comments(text):
    """TEXT with every comment replaced by spaces (newlines kept): the same offsets, no braces in comments."""
    return re.sub(r"/\*.*?\*/|//[^\n]*", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)


def function_span(text, name):
    """[start, end) of the body of function NAME in TEXT (its definition), or None.
    NAME "struct X" is the body of struct X's definition."""
    code = blank_comments(text)
    if name.startswith("struct "):
        m = re.search(rf"^struct\s+{re.escape(name[7:].strip())}\s*\{{", code, re.M)
    else:
        m = re.search(rf"^(?:[\w \t*]*[ \t*])?{re.escape(name)}\s*\([^;{{}}()]*\)\s*\{{", code, re.M)
    if not m:
        return None
    depth, i = 1, m.end()
    while i < len(code) and depth:
        depth += {"{": 1, "}": -1}.get(code[i], 0)
        i += 1
    return m.end(), i


def edits_of(entry):
    """ENTRY's edits as dicts: find, replace, times (occurrences the anchor must have), which (the
    1-based occurrence to replace, None: all), function, file. An edit is [find, replace] or
    [find, replace, times], or an object with those keys and optionally which, function, file."""
    out = []
    for e in entry["edits"]:
        if isinstance(e, dict):
            d = dict(e)
        else:
            d = {"find": e[0], "replace": e[1]}
            if len(e) > 2:
                d["times"] = e[2]
        d.setdefault("times", 1)
        d.setdefault("which", None)
        d.setdefault("function", entry.get("function"))
        d.setdefault("file", entry.get("file", FAIR))
        out.append(d)
    return out


def files_of(entry):
    """The files ENTRY changes, in order."""
    out = []
    for e in edits_of(entry):
        if e["file"] not in out:
            out.append(e["file"])
    return out


def apply_entry(texts, entry, written_for):
    """TEXTS (path -> text) with ENTRY applied (the files it changes only), or (None, an error message).
    WRITTEN_FOR names the trees the entries are written for, for the message of an anchor not found."""
    changed = {}
    for edit in edits_of(entry):
        rel, fn = edit["file"], edit["function"]
        text = changed.get(rel, texts.get(rel))
        if text is None:
            return None, f"{entry['id']}: {rel} is not one of the files read from the tree"
        span = function_span(text, fn)
        if span is None:
            what = fn if fn.startswith("struct ") else f"function {fn}()"
            return None, f"{entry['id']}: {what} not found in {rel}"
        start, end = span
        body = text[start:end]
        # in the code only: an anchor inside a comment is not the statement
        code = blank_comments(body)
        at = [i.start() for i in re.finditer(re.escape(edit["find"]), code)]
        if len(at) != edit["times"]:
            where = fn if fn.startswith("struct ") else f"{fn}()"
            return None, (f"{entry['id']}: '{edit['find']}' occurs {len(at)} times in the code of {where} (the entry "
                          f"expects {edit['times']}): the entries are written for {written_for}")
        if edit["which"] is not None:
            if not 1 <= edit["which"] <= len(at):
                return None, f"{entry['id']}: occurrence {edit['which']} of '{edit['find']}' asked, {len(at)} found"
            at = [at[edit["which"] - 1]]
        for i in reversed(at):
            body = body[:i] + edit["replace"] + body[i + len(edit["find"]):]
        changed[rel] = text[:start] + body + text[end:]
    return changed, None
