#!/usr/bin/env python3
"""The fixes of documented findings, applied to a kernel tree.

Each fix (kernelsrc/fixes.json) is a list of edits by function and anchor
(kernelsrc/tree_edit.py); this project keeps the anchors and the new
statements, never the kernel's text. The tree is read here and changed here.

  scripts/kernel-fix.py --list
  scripts/kernel-fix.py ID... --tree TREE --diff     # the fix as a patch (stdout), TREE a directory or a tarball
  scripts/kernel-fix.py ID... --tree DIR --apply     # the files rewritten in DIR (each a new file: a hard link's
                                                     # other name keeps the old text)
  scripts/kernel-fix.py ID... --tree TREE --files    # the files the fixes change, one a line

A fix is written for the versions its entry lists ("trees"); another
version, or an anchor that does not occur as the entry says, is an error
naming the fix, the function and the anchor (exit 2).
"""
import argparse
import difflib
import os
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "kernelsrc"))
import extract  # noqa: E402  (the tree reader and the version parser)
import tree_edit  # noqa: E402


def fail(msg):
    print(f"kernel-fix: {msg}", file=sys.stderr)
    sys.exit(2)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("ids", nargs="*", metavar="ID")
    ap.add_argument("--tree")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--list", action="store_true")
    mode.add_argument("--diff", action="store_true")
    mode.add_argument("--apply", action="store_true")
    mode.add_argument("--files", action="store_true")
    a = ap.parse_args()
    fixes = tree_edit.load_fixes()
    if a.list:
        for e in fixes.values():
            print(f"{e['id']:4} {', '.join(e['trees']):10} {e['title']}\n     upstream: {e['upstream']}")
        return 0
    if not a.ids:
        fail("name at least one fix (--list shows them)")
    if not a.tree:
        fail("--tree TREE is required")
    if not (a.diff or a.apply or a.files):
        fail("say --diff, --apply or --files")
    unknown = [i for i in a.ids if i not in fixes]
    if unknown:
        fail(f"no fix {', '.join(unknown)} (known: {', '.join(fixes)})")
    if a.apply and not os.path.isdir(a.tree):
        fail(f"{a.tree}: --apply needs a directory (a tarball is read, never written)")
    entries = [fixes[i] for i in a.ids]
    rels = []
    for e in entries:
        rels += [r for r in tree_edit.files_of(e) if r not in rels]
    try:
        with tempfile.TemporaryDirectory() as work:
            texts = extract.read_tree(a.tree, work, wanted=["Makefile"] + rels)
    except extract.ExtractError as err:
        fail(str(err))
    try:
        version = extract.kernel_version(texts["Makefile"])
    except extract.ExtractError as err:
        fail(f"{a.tree}: {err}")
    for e in entries:
        err = tree_edit.fix_version_error(e, version)
        if err:
            fail(f"{a.tree}: {err}")
    current = {r: texts[r] for r in rels}
    for e in entries:
        changed, err = tree_edit.apply_entry(current, e, f"Linux {', '.join(e['trees'])}")
        if err:
            fail(f"{a.tree}: {err}")
        current.update(changed)
    touched = [r for r in rels if current[r] != texts[r]]
    if a.files:
        print("\n".join(touched))
    elif a.diff:
        for r in touched:
            sys.stdout.writelines(difflib.unified_diff(texts[r].splitlines(True), current[r].splitlines(True),
                                                       f"a/{r}", f"b/{r}"))
    else:
        for r in touched:
            path = os.path.join(a.tree, r)
            fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".kernel-fix-")
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(current[r])
            os.chmod(tmp, os.stat(path).st_mode & 0o777)
            os.replace(tmp, path)
            print(f"kernel-fix: {', '.join(a.ids)}: rewrote {r}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
