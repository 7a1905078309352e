#!/usr/bin/env python3
"""Takes the EEVDF code of a Linux kernel tree by name, for the kernel backend.

Reads kernel/sched/fair.c (and helpers of kernel/sched/sched.h) from a kernel
tree or a linux-source-*.tar.xz, resolves the tree's #if/#ifdef blocks for
the backend's configuration (uniprocessor, CONFIG_FAIR_GROUP_SCHED), and
writes the definitions reachable from the fair class hooks that the backend
calls, in the file's order, with #line markers into the tree.  Everything
that is called but neither extracted nor provided by the shim (shim.h) is an
error that names the function and the file: nothing is written half-way.

No kernel text is kept in this repository: the output goes to the build
directory only.

What differs between versions and trees (the roots, the configuration, the
facts version.h carries) is kernelsrc/extract_trees.py; this file is the
machinery.

Usage: extract.py --src TREE_OR_TARBALL --shim shim.h --glue glue.c --out DIR
       extract.py --src TREE_OR_TARBALL --print-version
       extract.py --src TREE_OR_TARBALL [--smp] --print-version --print-bandwidth
"""
import argparse
import os
import re
import subprocess
import sys
import tarfile
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source directory
from extract_trees import (BANDWIDTH_TREES, BANDWIDTH_VARIANT, CONFIG_ON, ROOTS_COMMON, SMP_VARIANTS,  # noqa: E402
                           TREE_FILES, VERSIONS, ExtractError, debug_reader_unlocked, fork_clears_rel_deadline,
                           kernel_version, strip_comments, tree_facts, version_defines, version_key)

KEYWORDS = set("""auto break case char const continue default do double else enum extern float for goto if
inline int long register restrict return short signed sizeof static struct switch typedef union unsigned
void volatile while _Bool __attribute__ typeof __typeof__ __builtin_expect asm __asm__ bool true false
NULL""".split())


# The files the fair.c extraction reads definitions from, in the order they
# are emitted.
MAIN_FILES = ("kernel/sched/sched.h", "kernel/sched/sched-pelt.h", "kernel/sched/pelt.h", "kernel/sched/core.c",
              "kernel/sched/fair.c", "kernel/sched/pelt.c")

# The only definitions taken from core.c (its code is ours): facts the glue reads.
CORE_TABLES = {"sched_prio_to_weight", "sched_prio_to_wmult"}

# The C library functions the glue and the tree's code call (setjmp/longjmp: a
# NULL pick ends the pick as the kernel's NULL dereference would,
# kernelsrc/glue/schedule.c, memcpy to keep its return point (glue/wake.c); memset: init_entity_runnable_average()).
LIBC = {"memset", "memcpy", "setjmp", "longjmp"}

# Functions of the tree that the glue interposes on: the tree's definition is
# emitted under the new name (its text otherwise unchanged), a prototype of the
# old name comes before it, and the glue defines the old name, calling the new
# one.  pick_eevdf(): a NULL answer inside a pick is the kernel's crash (the
# caller, pick_next_entity(), dereferences it); the glue stops the pick there
# instead of faulting.  __enqueue_entity(), __dequeue_entity(), min_vruntime_update()
# (6.6: min_deadline_update()): the hand-back's marks of the nodes a tree's
# rebalancing writes (kernelsrc/glue/state.h, events.c).  throttle_cfs_rq(),
# unthrottle_cfs_rq() (a tree built with CONFIG_CFS_BANDWIDTH): the marks of
# the group entity each dequeues or enqueues and of those above it (glue/bandwidth.c);
# __assign_cfs_rq_runtime(): the period timer it starts goes to the queue's CPU.
INTERPOSED = {"pick_eevdf": "kb_tree_pick_eevdf",
              "place_entity": "kb_tree_place_entity", "enqueue_entity": "kb_tree_enqueue_entity",
              "set_next_entity": "kb_tree_set_next_entity", "set_next_task_fair": "kb_tree_set_next_task_fair",
              "dequeue_entity": "kb_tree_dequeue_entity",
              "account_entity_dequeue": "kb_tree_account_entity_dequeue",
              "reweight_entity": "kb_tree_reweight_entity", "update_entity_lag": "kb_tree_update_entity_lag",
              "__pick_eevdf": "kb_tree___pick_eevdf",
              "select_idle_cpu": "kb_tree_select_idle_cpu",
              "update_curr": "kb_tree_update_curr", "do_preempt_short": "kb_tree_do_preempt_short",
              "preempt_sync": "kb_tree_preempt_sync", "avg_vruntime": "kb_tree_avg_vruntime",
              "__enqueue_entity": "kb_tree___enqueue_entity", "__dequeue_entity": "kb_tree___dequeue_entity",
              "min_vruntime_update": "kb_tree_min_vruntime_update",
              "min_deadline_update": "kb_tree_min_deadline_update",
              "throttle_cfs_rq": "kb_tree_throttle_cfs_rq", "unthrottle_cfs_rq": "kb_tree_unthrottle_cfs_rq",
              "__assign_cfs_rq_runtime": "kb_tree___assign_cfs_rq_runtime"}

# Macros whose invocation at top level declares a name (the argument at this index).
DECLARATION_MACROS = {"RB_DECLARE_CALLBACKS": 1}


def read_tree(src, workdir, wanted=None):
    """Returns {relative path: text} for TREE_FILES (or WANTED) from a directory or a tarball."""
    rels = wanted or TREE_FILES
    files = {}
    if os.path.isdir(src):
        for rel in rels:
            path = os.path.join(src, rel)
            if not os.path.isfile(path):
                raise ExtractError(f"{path}: missing: the kernel tree lacks {rel}")
            with open(path, encoding="utf-8", errors="replace") as f:
                files[rel] = f.read()
        return files
    if not os.path.isfile(src):
        raise ExtractError(f"{src}: no such kernel tree or tarball")
    try:
        with tarfile.open(src) as tar:
            want = set(rels)
            for member in tar:
                parts = member.name.split("/", 1)
                if len(parts) == 2 and parts[1] in want and member.isfile():
                    files[parts[1]] = tar.extractfile(member).read().decode("utf-8", "replace")
                    if len(files) == len(want):
                        break
    except (tarfile.TarError, OSError, EOFError) as e:
        raise ExtractError(f"{src}: cannot read the tarball: {e}")
    for rel in rels:
        if rel not in files:
            raise ExtractError(f"{src}: missing: the tarball lacks {rel}")
    return files


def resolve_conditionals(text, name, workdir, cc, defines=None, config=()):
    """Runs the C preprocessor in directives-only mode: the tree's #if blocks
    are resolved for CONFIG_ON and `config` (a version's own options), macros are kept as #define lines and not
    expanded.  #include lines are blanked first (the shim stands in for them).
    Returns [(line in the tree's file, text line)]."""
    blanked = re.sub(r"^[ \t]*#[ \t]*include\b.*$", "", strip_comments(text), flags=re.M)
    src = os.path.join(workdir, os.path.basename(name) + ".noinc")
    with open(src, "w") as f:
        f.write(blanked)
    cfg = os.path.join(workdir, "extract-config.h")
    with open(cfg, "w") as f:
        for opt in CONFIG_ON + list(config):
            f.write(f"#define {opt} 1\n")
        for macro, value in (defines or {}).items():
            f.write(f"#define {macro} {value}\n")
        # IS_ENABLED() of a symbol defined to 1, else 0 (the usual placeholder trick)
        f.write("#define __eevdf_placeholder_1 0,\n"
                "#define __eevdf_take_second(ignored, val, ...) val\n"
                "#define __eevdf_is_defined3(arg) __eevdf_take_second(arg 1, 0, 0)\n"
                "#define __eevdf_is_defined2(val) __eevdf_is_defined3(__eevdf_placeholder_##val)\n"
                "#define IS_ENABLED(option) __eevdf_is_defined2(option)\n")
    proc = subprocess.run([cc, "-E", "-fdirectives-only", "-dD", "-include", cfg, "-x", "c", src],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise ExtractError(f"{name}: the preprocessor failed: {proc.stderr.strip()[:2000]}")
    lines = []
    current, lineno = None, 0
    for raw in proc.stdout.split("\n"):
        m = re.match(r'^# (\d+) "([^"]*)"', raw)
        if m:
            lineno = int(m.group(1))
            current = m.group(2)
            continue
        if current == src:
            lines.append((lineno, raw))
        lineno += 1
    return lines


def split_items(lines, fname):
    """Splits the resolved text into top-level items: #define lines, function
    definitions, declarations and type definitions.  Each item is a dict with
    kind, name, first line, text."""
    items = []
    buf, start, depth, paren = [], None, 0, 0
    linenos = []  # the tree's line of each line of buf
    i = 0
    while i < len(lines):
        lineno, line = lines[i]
        if depth == 0 and not buf and line.lstrip().startswith("#"):
            text = [line]
            while text[-1].rstrip().endswith("\\") and i + 1 < len(lines):
                i += 1
                text.append(lines[i][1])
            directive = "\n".join(text)
            m = re.match(r"\s*#\s*(define|undef)\s+(\w+)", directive)
            if m:
                items.append({"kind": "macro", "name": m.group(2), "line": lineno, "text": directive})
            i += 1
            continue
        if not buf and not line.strip():
            i += 1
            continue
        if start is None:
            start = lineno
        buf_line = []
        j = 0
        ended = False
        while j < len(line):
            c = line[j]
            if c in "\"'":
                k = j + 1
                while k < len(line) and line[k] != c:
                    k += 2 if line[k] == "\\" else 1
                buf_line.append(line[j:k + 1])
                j = k + 1
                continue
            buf_line.append(c)
            if c == "(":
                paren += 1
            elif c == ")":
                paren -= 1
                # a top-level macro invocation with no ';' (DEFINE_LOCK_GUARD_1(...)) ends the item
                if paren == 0 and depth == 0 and not line[j + 1:].strip():
                    head = "".join(buf) + "".join(buf_line)
                    if re.match(r"\s*[A-Z_][A-Z0-9_]*\s*\(", head):
                        ended = True
            elif c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
                if depth == 0 and paren == 0:
                    head = "".join(buf) + "".join(buf_line)
                    head = head[:head.find("{")]
                    if "(" in head and "=" not in re.sub(r"\([^()]*\)", "", head):
                        ended = True
            elif c == ";" and depth == 0 and paren == 0:
                ended = True
            if ended:
                buf_line_text = "".join(buf_line)
                buf.append(buf_line_text)
                linenos.append(lineno)
                items.append(classify("".join(buf), start, fname))
                items[-1]["lines"] = linenos
                buf, start, linenos = [], None, []
                rest = line[j + 1:]
                buf_line = []
                ended = False
                if rest.strip():
                    start = lineno
                    line = rest
                    j = 0
                    continue
                break
            j += 1
        else:
            buf.append("".join(buf_line) + "\n")
            linenos.append(lineno)
        i += 1
    return items


def with_line_markers(text, linenos, rel):
    """TEXT (an item, whose lines came from LINENOS of the tree's REL) with a
    #line marker wherever a resolved #if block left a gap, so that the compiler
    (and gcov) number every line as the tree does."""
    lines = text.split("\n")
    if len(lines) != len(linenos):
        return text
    out = [lines[0]]
    for k in range(1, len(lines)):
        if linenos[k] != linenos[k - 1] + 1:
            out.append(f'#line {linenos[k]} "{rel}"')
        out.append(lines[k])
    return "\n".join(out)


# The arguments of an annotation after a declarator: __printf(1, 2), or, since
# 7.0's context analysis, one nested call: __must_hold(__rq_lockp(rq)).
ANNOTATION_ARGS = r"(?:\([^()]*(?:\([^()]*\)[^()]*)*\))"


def classify(text, line, fname):
    body = text.strip()
    head = body.split("{", 1)[0]
    flat_head = re.sub(r"\s+", " ", head)
    if "{" in body and "(" in head and "=" not in re.sub(r"\([^()]*\)", "", head):
        m = re.search(r"(\w+)\s*\((?:[^()]|\([^()]*\))*\)\s*(?:__\w+(?:\([^()]*\))?\s*)*$", flat_head.strip())
        names = re.findall(r"(\w+)\s*\(", flat_head)
        name = names[0] if names else None
        # skip attribute-like leading macros: the declarator is the last name before the parameter list
        m2 = re.search(r"(\w+)\s*\([^()]*(?:\([^()]*\)[^()]*)*\)\s*(?:\w+\s*" + ANNOTATION_ARGS + r"?\s*)*$", flat_head.strip())
        if m2:
            name = m2.group(1)
        return {"kind": "function", "name": name, "line": line, "text": text}
    m = re.match(r"(?:typedef\s+)?(struct|union|enum)\s+(\w+)\s*\{", body)
    if m and re.search(r"\}\s*;\s*$", body):
        return {"kind": "type", "name": m.group(2), "line": line, "text": text}
    m = re.match(r"(\w+)\s*\((.*)\)\s*;\s*$", body, re.S)
    if m and m.group(1) in DECLARATION_MACROS:
        args = [a.strip() for a in m.group(2).split(",")]
        return {"kind": "variable", "name": args[DECLARATION_MACROS[m.group(1)]], "line": line, "text": text}
    if "(" in flat_head and re.search(r"\)\s*(?:__\w+\s*" + ANNOTATION_ARGS + r"?\s*)*;\s*$", body) and "=" not in flat_head:
        m = re.search(r"(\w+)\s*\((?:[^()]|\([^()]*\))*\)\s*(?:__\w+\s*" + ANNOTATION_ARGS + r"?\s*)*;\s*$", body)
        return {"kind": "prototype", "name": m.group(1) if m else None, "line": line, "text": text}
    decl = body.split("=", 1)[0]
    # annotations after the declarator (static const u32 table[] __maybe_unused = ...)
    decl = strip_annotations(decl.rstrip())
    names = re.findall(r"\b(\w+)\b(?:\s*\[[^\]]*\])*\s*$", decl.rstrip(";").strip())
    return {"kind": "variable", "name": names[-1] if names else None, "line": line, "text": text}


TYPE_WORDS = {"int", "long", "char", "short", "unsigned", "signed", "bool", "void", "u8", "u16", "u32", "u64",
              "s8", "s16", "s32", "s64", "size_t"}


def strip_annotations(decl):
    """DECL without the annotations after its declarator (`__maybe_unused`,
    `__read_mostly`), one at a time from the end, as long as what is left still
    ends in a name: a word like one (`static struct static_key
    __cfs_bandwidth_used`) is the declarator itself."""
    while True:
        m = re.search(r"\s+__\w+\s*" + ANNOTATION_ARGS + r"?\s*;?\s*$", decl)
        if not m:
            return decl
        rest = decl[:m.start()]
        if re.search(r"\b(?:struct|union|enum)\s+\w+\s*$", rest):
            return decl
        last = re.search(r"(\w+)\s*$", rest)
        if last and last.group(1) in TYPE_WORDS:
            return decl
        decl = rest


IDENT = re.compile(r"\b([A-Za-z_]\w*)\b")


def identifiers(text):
    return set(IDENT.findall(strip_comments(text)))


def called(text):
    """Identifiers used as calls, not members (p->f(), s.f()), nor macros the text defines, nor words
    of a string literal (6.12's sched_cfs_period_timer() logs "scaling up (new ...")."""
    clean = re.sub(r'"(?:[^"\\\n]|\\.)*"', '""', strip_comments(text))
    out = set()
    local_macros = set(re.findall(r"#\s*define\s+(\w+)", clean))
    for m in re.finditer(r"(->|\.)?\s*\b([A-Za-z_]\w*)\s*\(", clean):
        if not m.group(1):
            out.add(m.group(2))
    return out - KEYWORDS - local_macros


def shim_names(shim_text):
    shim_text = strip_comments(shim_text)
    # conditionals and includes name no function (#if EEVDF_KV(6, 18) must not read as a call)
    shim_text = re.sub(r"^[ \t]*#[ \t]*(?:if|ifdef|ifndef|elif|else|endif|include)\b.*$", "", shim_text, flags=re.M)
    names = set(re.findall(r"^\s*#\s*define\s+(\w+)", shim_text, re.M))
    names |= set(re.findall(r"\b(\w+)\s*\([^;{)]*\)\s*\{", shim_text))
    names |= set(re.findall(r"\b(\w+)\s*\([^;{]*\)\s*;", shim_text))
    names |= set(re.findall(r"^extern\s+[\w\s\*]+?\b(\w+)\s*(?:\[[^\]]*\])?\s*;", shim_text, re.M))
    return names


def extract(files, shim_text, workdir, cc, glue_text="", shim_dir=None):
    version = kernel_version(files["Makefile"])
    key = version_key(version)
    roots = [r for r in ROOTS_COMMON + VERSIONS[key]["extra"] if r not in VERSIONS[key]["lacks"]]
    interposed = INTERPOSED
    facts = tree_facts(files)
    # our side's own version conditionals (#if EEVDF_KERNEL_VERSION_CODE ...), resolved
    # for this tree, so that only the code compiled for it names the tree's functions
    if glue_text:
        glue_text = "\n".join(line for _, line in resolve_conditionals(
            glue_text, "kernelsrc/glue.c", workdir, cc, version_defines(version, key, facts)))
    sources = {}
    # sched.h first (its helpers come before fair.c's code), then fair.c.  From
    # sched.h only functions and macros: its structs are the shim's.
    # (pelt.h and sched-pelt.h before fair.c, which includes them; pelt.c's
    # functions, declared in pelt.h, after it)
    for rel in MAIN_FILES:
        config = list(VERSIONS[key].get("config", ())) + list(VERSIONS[key].get("file_config", {}).get(rel, ()))
        lines = resolve_conditionals(files[rel], rel, workdir, cc, config=config)
        sources[rel] = split_items(lines, rel)
    provided = shim_names(shim_text)
    if "shim" in VERSIONS[key]:
        # its version conditionals resolved for this tree, as the glue's: a name
        # the shim provides for one version only (core.c's available_idle_cpu()
        # up to 6.18, the tree's sched.h one in 7.0) is taken from the tree in the other
        with open(os.path.join(shim_dir, VERSIONS[key]["shim"])) as f:
            shim_smp = "\n".join(line for _, line in resolve_conditionals(
                f.read(), "kernelsrc/" + VERSIONS[key]["shim"], workdir, cc, version_defines(version, key, facts)))
        provided |= shim_names(shim_smp)
    for rel in ("include/linux/rbtree.h", "include/linux/rbtree_augmented.h"):
        text = strip_comments(files[rel])
        provided |= shim_names(text)
        provided |= {it["name"] for it in split_items(list(enumerate(text.split("\n"), 1)), rel) if it["name"]}
    index = {}
    # fair.c: everything; sched.h: its helpers (functions); core.c: its tables only
    # (the weight tables; core.c's code is ours, kernelsrc/glue.c)
    for rel in ("kernel/sched/fair.c", "kernel/sched/sched.h", "kernel/sched/core.c", "kernel/sched/pelt.h",
                "kernel/sched/sched-pelt.h", "kernel/sched/pelt.c"):
        for it in sources[rel]:
            if not it["name"] or it["kind"] not in ("function", "variable", "type"):
                continue
            if rel in ("kernel/sched/sched.h", "kernel/sched/pelt.h") and it["kind"] != "function":
                continue
            if rel == "kernel/sched/core.c" and (it["kind"] != "variable" or it["name"] not in CORE_TABLES):
                continue
            index.setdefault(it["name"], (rel, it))
            if it["kind"] == "variable" and it["text"].lstrip().startswith("RB_DECLARE_CALLBACKS"):
                for suffix in ("_propagate", "_copy", "_rotate"):
                    index.setdefault(it["name"] + suffix, (rel, it))
    macros = {}
    for rel in ("kernel/sched/fair.c", "kernel/sched/sched.h", "kernel/sched/pelt.h", "kernel/sched/sched-pelt.h"):
        for it in sources[rel]:
            if it["kind"] == "macro":
                macros.setdefault(it["name"], it)
    wanted, queue = set(), []
    for r in roots:
        if r not in index:
            raise ExtractError(f"kernel/sched/fair.c: hook {r}() not found (kernel {version[0]}.{version[1]}."
                               f"{version[2]}): the extractor's root list does not fit this tree")
        queue.append((r, "the backend's root list"))
    # every identifier of the tree that the glue (our core.c side) uses is a root too,
    # and every function it calls must be in the tree, the shim or the glue itself
    glue_defined = {it["name"] for it in split_items(list(enumerate(strip_comments(glue_text).split("\n"), 1)),
                                                     "kernelsrc/glue.c") if it["name"]}
    for ident in sorted(identifiers(glue_text)):
        if ident in index and ident not in provided:
            queue.append((ident, "kernelsrc/glue.c"))
    close_over(index, macros, provided, queue, wanted, "fair.c")
    glue_missing = sorted(c for c in called(glue_text) - glue_defined - provided - set(index) - set(macros)
                          - LIBC - set(interposed.values()) if not c.startswith("__builtin"))
    if glue_missing:
        raise ExtractError("\n".join(f"kernelsrc/glue.c: {c}() (called by the backend's core.c side) is not in "
                                      f"this tree's fair.c/sched.h (kernel {version[0]}.{version[1]}.{version[2]})"
                                      for c in glue_missing))
    used_macros = macros_used(index, macros, provided, wanted, glue_text)
    out = emit(sources, index, macros, provided, wanted, used_macros, interposed)
    # every function definition of fair.c and pelt.c for this configuration, and whether it
    # was taken: what a coverage report (scripts/kernel-coverage.sh) can and cannot reach
    functions = [(rel, it["line"], it["lines"][-1], it["name"], it["name"] in wanted and index[it["name"]][1] is it)
                 for rel in ("kernel/sched/fair.c", "kernel/sched/pelt.c") for it in sources[rel]
                 if it["kind"] == "function"]
    return version, sorted(wanted), "".join(out), avg_vruntime_stores(index), functions


def emit(sources, index, macros, provided, wanted, used_macros, interposed):
    """The kept items of SOURCES ({file: items}, in order) with #line markers
    into the tree: the WANTED definitions, their prototypes and the macros they
    use; a function in INTERPOSED under its new name, after a prototype of the
    old one."""
    out = []
    for rel, items in sources.items():
        for it in items:
            if it["name"] in provided:
                continue
            if it["kind"] == "macro":
                keep = it["name"] in used_macros and macros.get(it["name"]) is it
            elif it["kind"] == "prototype":
                keep = it["name"] in wanted
            else:
                keep = it["name"] in wanted and index[it["name"]][1] is it
            if keep and it["kind"] == "function" and it["name"] in interposed:
                text = with_line_markers(it["text"], it.get("lines", []), rel)
                brace = text.find("{")
                head, body = text[:brace], text[brace:]
                renamed, n = re.subn(rf"\b{it['name']}(\s*\()", interposed[it["name"]] + r"\1", head, count=1)
                if n != 1:
                    raise ExtractError(f"{rel}:{it['line']}: cannot interpose on {it['name']}(): its name is not in "
                                       "its definition's head")
                out.append(f'#line {it["line"]} "{rel}"\n{head.strip()};\n')
                out.append(f'#line {it["line"]} "{rel}"\n{renamed}{body}\n')
            elif keep:
                out.append(f'#line {it["line"]} "{rel}"\n{with_line_markers(it["text"], it.get("lines", []), rel)}\n')
    return out


def close_over(index, macros, provided, queue, wanted, where):
    """Adds to WANTED every definition of INDEX reachable from QUEUE [(name,
    why)] through the identifiers each uses (and the macros those expand to);
    a call that is neither in INDEX nor PROVIDED is an error naming the callee,
    its caller and the place."""
    missing = []
    while queue:
        name, why = queue.pop()
        if name in wanted:
            continue
        if name in index:
            wanted.add(name)
            rel, it = index[name]
            refs = identifiers(it["text"])
            # expand the macros it uses, transitively, for their references
            seen_macros, mq = set(), [r for r in refs if r in macros]
            while mq:
                mname = mq.pop()
                if mname in seen_macros:
                    continue
                seen_macros.add(mname)
                mrefs = identifiers(macros[mname]["text"])
                refs |= mrefs
                mq += [r for r in mrefs if r in macros]
            for ref in refs:
                if ref in index and ref not in wanted and ref not in provided:
                    queue.append((ref, name))
            if it["kind"] == "function":
                for c in called(it["text"]):
                    if (c in index or c in provided or c in macros or c in KEYWORDS or c in LIBC
                            or c.startswith("__builtin")):
                        continue
                    missing.append((c, name, rel, it["line"]))
    if missing:
        lines = [f"{rel}:{line}: {c}() called from {fn}() is neither in {where} nor a cut point of the shim"
                 for c, fn, rel, line in sorted(set(missing))]
        raise ExtractError("\n".join(lines))


def macros_used(index, macros, provided, wanted, extra_text=""):
    """The macros the WANTED definitions (and EXTRA_TEXT) use, transitively."""
    used = set()
    mq = [m for n in wanted for m in identifiers(index[n][1]["text"]) if m in macros]
    mq += [m for m in identifiers(extra_text) if m in macros]
    while mq:
        m = mq.pop()
        if m in used or m in provided:
            continue
        used.add(m)
        mq += [r for r in identifiers(macros[m]["text"]) if r in macros]
    return used


# The tree's PELT arithmetic (pelt.c) and clock (pelt.h), compiled apart from fair.c for
# tests/kernel_pelt_test.cpp: its entry points, and the files it is taken from
# in the order they are emitted (sched.h's helpers, the decay table, pelt.h's
# helpers, pelt.c).  Resolved with CONFIG_SMP: 6.12's pelt.h has its real
# helpers only there.
PELT_ROOTS = ["__update_load_avg_blocked_se", "__update_load_avg_se", "__update_load_avg_cfs_rq",
              "update_rt_rq_load_avg", "update_rq_clock_pelt", "update_idle_rq_clock_pelt", "rq_clock_pelt"]
PELT_FILES = ["kernel/sched/sched.h", "kernel/sched/sched-pelt.h", "kernel/sched/pelt.h", "kernel/sched/pelt.c"]


def extract_pelt(files, pelt_shim_text, workdir, cc):
    """The text of pelt_extract.c's tree part: the definitions PELT_ROOTS reach,
    in the files' order, with #line markers into the tree."""
    sources = {}
    for rel in PELT_FILES:
        lines = resolve_conditionals(files[rel], rel, workdir, cc, config=["CONFIG_SMP"])
        sources[rel] = split_items(lines, rel)
    provided = shim_names(pelt_shim_text)
    index, macros = {}, {}
    for rel in PELT_FILES:
        for it in sources[rel]:
            if not it["name"]:
                continue
            if it["kind"] == "macro":
                macros.setdefault(it["name"], it)
            elif it["kind"] == "function" or (it["kind"] == "variable" and rel != "kernel/sched/sched.h"):
                index.setdefault(it["name"], (rel, it))
    for r in PELT_ROOTS:
        if r not in index:
            raise ExtractError(f"kernel/sched/pelt.c: {r}() not found (nor in pelt.h): the PELT arithmetic the backend "
                               "compares with the model is not in this tree")
    wanted = set()
    close_over(index, macros, provided, [(r, "PELT_ROOTS") for r in PELT_ROOTS], wanted, "pelt.c")
    used_macros = macros_used(index, macros, provided, wanted)
    # the unit is linked beside fair_extract.c, which has pelt.c's external
    # functions too: here they go by other names
    out = [f"#define {name} kb_pelt_unit{name}\n" for name in sorted(wanted)
           if index[name][1]["kind"] == "function" and not index[name][1]["text"].lstrip().startswith("static")]
    return "".join(out + emit(sources, index, macros, provided, wanted, used_macros, {}))


STORE_TO_QUEUE = re.compile(r"\bcfs_rq\s*->\s*\w+\s*(?:[-+*/|&^]|<<|>>)?=(?!=)")


def avg_vruntime_stores(index):
    """Whether the tree's avg_vruntime() (or a fair.c function it calls, the
    calls followed) stores to its cfs_rq: 6.12.118 re-bases zero_vruntime
    there (update_zero_vruntime()), 6.18 only reads.  A reader racing without
    the rq lock loses updates only in the first case (EEVDF_AVG_VRUNTIME_STORES)."""
    seen, todo = set(), ["avg_vruntime"]
    while todo:
        name = todo.pop()
        if name in seen or name not in index or index[name][1]["kind"] != "function":
            continue
        seen.add(name)
        text = strip_comments(index[name][1]["text"])
        if STORE_TO_QUEUE.search(text):
            return True
        todo += [c for c in called(text) if c in index]
    return False


GLUE_PART = re.compile(r'^[ \t]*#[ \t]*include[ \t]+"(glue/[^"]+)".*$', re.M)


def read_glue(path):
    """The text of our core.c side: glue.c with each of its parts (an
    `#include "glue/..."` line) in place of the line, as the compiler sees
    them in the one translation unit."""
    with open(path) as f:
        text = f.read()

    def part(m):
        with open(os.path.join(os.path.dirname(os.path.abspath(path)), m.group(1))) as f:
            return f.read()
    return GLUE_PART.sub(part, text)


def split_patch(text):
    """A unified diff as {relative path (-p1): its part}; the lines before the first part are dropped."""
    parts, rel, lines = {}, None, text.splitlines(True)
    for i, line in enumerate(lines):
        if line.startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ "):
            target = lines[i + 1][4:].split("\t")[0].strip()
            rel = target.split("/", 1)[1] if "/" in target else target
            parts.setdefault(rel, "")
        if rel is not None and not line.startswith("diff --git") and not line.startswith("index "):
            parts[rel] += line
    return parts


def apply_changes(files, fix_ids, patch_paths, workdir):
    """FILES (path -> text) changed in place by this project's fixes (kernelsrc/fixes.json, kernelsrc/tree_edit.py)
    and by patches (patch -p1, the parts for files read here only). Returns what was applied, as notes."""
    notes = []
    if fix_ids:
        import tree_edit
        fixes = tree_edit.load_fixes()
        version = kernel_version(files["Makefile"])
        for fid in fix_ids:
            if fid not in fixes:
                raise ExtractError(f"--fix {fid}: no such fix (kernelsrc/fixes.json: {', '.join(fixes)})")
            e = fixes[fid]
            err = tree_edit.fix_version_error(e, version)
            if err:
                raise ExtractError(f"--fix {err}")
            changed, err = tree_edit.apply_entry(files, e, f"Linux {', '.join(e['trees'])}")
            if err:
                raise ExtractError(f"--fix {err}")
            files.update(changed)
            notes.append(f"fix {fid}")
    for path in patch_paths:
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                parts = split_patch(f.read())
        except OSError as e:
            raise ExtractError(f"--patch {path}: {e.strerror}")
        used = {rel: part for rel, part in parts.items() if rel in files}
        if not used:
            raise ExtractError(f"--patch {path}: changes none of the files the kernel backend reads "
                               f"({', '.join(sorted(parts)) or 'no unified diff found'})")
        for rel, part in used.items():
            with tempfile.TemporaryDirectory(dir=workdir) as tmp:
                target = os.path.join(tmp, "file")
                with open(target, "w") as f:
                    f.write(files[rel])
                r = subprocess.run(["patch", "--batch", "--forward", "-s", target], input=part, text=True,
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
                if r.returncode != 0:
                    raise ExtractError(f"--patch {path}: does not apply to {rel}: {r.stdout.strip()}")
                with open(target) as f:
                    files[rel] = f.read()
        left = sorted(set(parts) - set(used))
        notes.append(f"patch {os.path.basename(path)}" + (f" (left out: {', '.join(left)})" if left else ""))
    return notes


def changes_note(changes):
    return f", with {'; '.join(changes)}" if changes else ""


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--src", required=True, help="a kernel tree or a linux-source-*.tar.xz")
    ap.add_argument("--print-version", action="store_true",
                    help="print the tree's kernel version (its top Makefile) and exit")
    ap.add_argument("--print-bandwidth", action="store_true",
                    help="print 1 if the tree is taken with CONFIG_CFS_BANDWIDTH (BANDWIDTH_TREES, with --smp), "
                         "else 0 (after the version with --print-version), and exit")
    ap.add_argument("--shim")
    ap.add_argument("--glue", help="our core.c side: its identifiers are roots")
    ap.add_argument("--out")
    ap.add_argument("--pelt-shim", help="with --pelt-glue: also write pelt_extract.c, the tree's pelt.c")
    ap.add_argument("--pelt-glue")
    ap.add_argument("--cc", default=os.environ.get("CC", "cc"))
    ap.add_argument("--smp", action="store_true",
                    help="take a tree that still has !CONFIG_SMP code (6.12) with CONFIG_SMP")
    ap.add_argument("--fix", action="append", default=[],
                    help="apply this project's fix of a finding (kernelsrc/fixes.json) to the files read")
    ap.add_argument("--patch", action="append", default=[],
                    help="apply this patch (patch -p1) to the files read; parts for other files are left out")
    args = ap.parse_args()
    if args.print_version or args.print_bandwidth:
        try:
            version = kernel_version(read_tree(args.src, None, ["Makefile"])["Makefile"])
        except ExtractError as e:
            print(f"kernel backend: {e}", file=sys.stderr)
            return 1
        if args.print_version:
            print(f"{version[0]}.{version[1]}.{version[2]}")
        if args.print_bandwidth:
            print(1 if args.smp and version in BANDWIDTH_TREES else 0)
        return 0
    if not (args.shim and args.glue and args.out):
        ap.error("--shim, --glue and --out are required")
    os.makedirs(args.out, exist_ok=True)
    try:
        files = read_tree(args.src, args.out)
        changes = apply_changes(files, args.fix, args.patch, args.out)
        if args.smp:
            key = kernel_version(files["Makefile"])[:2]
            if key in SMP_VARIANTS:
                VERSIONS[key] = {**VERSIONS[key], **SMP_VARIANTS[key]}
                if kernel_version(files["Makefile"]) in BANDWIDTH_TREES:
                    VERSIONS[key] = {**VERSIONS[key], **BANDWIDTH_VARIANT,
                                     "config": VERSIONS[key]["config"] + BANDWIDTH_VARIANT["config"]}
            elif key in VERSIONS and VERSIONS[key].get("shim") != "shim_smp.h":
                raise ExtractError(f"Makefile: kernel {key[0]}.{key[1]}: --smp is known for "
                                   + ", ".join(f"{a}.{b}" for a, b in SMP_VARIANTS) + " only")
        with open(args.shim) as f:
            shim = f.read()
        glue = read_glue(args.glue)
        version, names, text, avg_stores, functions = extract(files, shim, args.out, args.cc, glue, os.path.dirname(os.path.abspath(args.shim)))
        unlocked = debug_reader_unlocked(files["kernel/sched/debug.c"])
        fork_clears = fork_clears_rel_deadline(files["kernel/sched/core.c"])
        pelt_text = None
        if args.pelt_shim and args.pelt_glue:
            with open(args.pelt_shim) as f:
                pelt_text = extract_pelt(files, f.read(), args.out, args.cc)
    except ExtractError as e:
        print(f"kernel backend: {e}", file=sys.stderr)
        return 1
    tree = os.path.join(args.out, "tree")
    # (the rbtree, compiled from here; and the files fair_extract.c's #line markers name,
    # for gcov's annotated sources: scripts/kernel-coverage.sh)
    for rel in ("lib/rbtree.c", "include/linux/rbtree.h", "include/linux/rbtree_augmented.h",
                "include/linux/rbtree_types.h") + MAIN_FILES:
        path = os.path.join(tree, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(files[rel])
    with open(os.path.join(args.out, "fair_extract.c"), "w") as f:
        f.write(f"/* Generated by kernelsrc/extract.py from {args.src} (Linux {version[0]}.{version[1]}.{version[2]}"
                f"{changes_note(changes)}). */\n")
        f.write('#include "version.h"\n#include "shim.h"\n')
        f.write(text)
        f.write('#line 1 "kernelsrc/glue.c"\n#include "glue.c"\n')
    if pelt_text is not None:
        with open(os.path.join(args.out, "pelt_extract.c"), "w") as f:
            f.write(f"/* Generated by kernelsrc/extract.py from {args.src} (Linux {version[0]}.{version[1]}.{version[2]}). */\n")
            f.write('#include "version.h"\n#include "pelt_shim.h"\n')
            f.write(pelt_text)
            f.write(f'#line 1 "kernelsrc/pelt_glue.c"\n#include "{os.path.basename(args.pelt_glue)}"\n')
    # the tree's features.h under a name no system header uses
    with open(os.path.join(args.out, "sched_features.h"), "w") as f:
        f.write(files["kernel/sched/features.h"])
    with open(os.path.join(args.out, "version.h"), "w") as f:
        f.write(f'#define EEVDF_KERNEL_VERSION "{version[0]}.{version[1]}.{version[2]}"\n')
        f.write("/* the fixes and patches applied to the tree's files (--fix, --patch), or empty */\n")
        f.write(f'#define EEVDF_KERNEL_CHANGES "{"; ".join(changes)}"\n')
        for macro, value in version_defines(version, version_key(version, quiet=True)).items():
            f.write(f"#define {macro} {value}\n")
        for macro, (value, what) in tree_facts(files).items():
            f.write(f"/* {what} */\n#define {macro} {int(value)}\n")
        f.write("/* print_cfs_rq() calls avg_vruntime() after dropping the rq lock (kernel/sched/debug.c) */\n")
        f.write(f"#define EEVDF_DEBUG_READ_UNLOCKED {1 if unlocked else 0}\n")
        f.write("/* avg_vruntime() stores to its cfs_rq (kernel/sched/fair.c): a racing reader can lose updates */\n")
        f.write(f"#define EEVDF_AVG_VRUNTIME_STORES {1 if avg_stores else 0}\n")
        f.write("/* __sched_fork() clears p->se.rel_deadline (kernel/sched/core.c; 3da56dc063cd) */\n")
        f.write(f"#define EEVDF_FORK_CLEARS_REL_DEADLINE {1 if fork_clears else 0}\n")
    with open(os.path.join(args.out, "extracted.txt"), "w") as f:
        f.write("\n".join(names) + "\n")
    with open(os.path.join(args.out, "functions.txt"), "w") as f:
        f.write("# file first-line last-line function taken|left: the function definitions of fair.c and pelt.c\n")
        f.writelines(f"{rel} {first} {last} {name} {'taken' if taken else 'left'}\n"
                     for rel, first, last, name, taken in functions)
    return 0


if __name__ == "__main__":
    sys.exit(main())
