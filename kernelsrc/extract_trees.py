"""What the extractor knows of the kernel versions it takes, and what it reads
from a tree's own text: the files read, the configuration, the roots a
version adds or lacks (VERSIONS), the --smp variants, and the facts
version.h gives the shim and the glue (tree_facts() and the two core.c and
debug.c readings), with the few C-text helpers they use.  The extraction
machinery itself is kernelsrc/extract.py.

No kernel text is kept in this repository.
"""
import re
import sys


# The files the backend reads from a tree (relative to its top).
TREE_FILES = [
    "Makefile",
    "kernel/sched/fair.c",
    "kernel/sched/core.c",
    "kernel/sched/sched.h",
    "kernel/sched/features.h",
    "kernel/sched/debug.c",
    "kernel/sched/pelt.c",
    "kernel/sched/pelt.h",
    "kernel/sched/sched-pelt.h",
    "lib/rbtree.c",
    "include/linux/rbtree.h",
    "include/linux/rbtree_augmented.h",
    "include/linux/rbtree_types.h",
]

# The configuration the tree's conditionals are resolved with: one CPU, task
# groups, SCHED_DEBUG; every other option off (PELT, bandwidth, NUMA, hrtick,
# schedstats and uclamp are cut points, docs/kernel-backend.md).
CONFIG_ON = ["CONFIG_64BIT", "CONFIG_FAIR_GROUP_SCHED", "CONFIG_CGROUP_SCHED", "CONFIG_GROUP_SCHED_WEIGHT",
             "CONFIG_SCHED_DEBUG"]

# Per version: the hooks the backend's core.c side calls (the roots of the
# extraction).  Version differences live here only.
ROOTS_COMMON = [
    "enqueue_task_fair", "dequeue_task_fair", "pick_next_task_fair", "put_prev_task_fair",
    "set_next_task_fair", "task_tick_fair", "yield_task_fair",
    "reweight_task_fair", "task_fork_fair", "prio_changed_fair", "switched_from_fair",
    "switched_to_fair", "update_curr_fair", "avg_vruntime", "entity_eligible",
    "init_cfs_rq", "init_tg_cfs_entry", "sched_group_set_shares", "sched_group_set_idle",
    "task_change_group_fair", "sched_idle_rq",
]
VERSIONS = {
    # (major, minor): extra roots, roots that version lacks
    # 6.6: the fair class's wakeup_preempt hook is check_preempt_wakeup() (renamed
    # check_preempt_wakeup_fair() in v6.7), the weight change of a task is
    # fair.c's reweight_task(p, prio), not a class hook; pick_task_fair() exists
    # with CONFIG_SMP only (core scheduling), so the glue picks through
    # pick_next_task_fair() there
    (6, 6): {"extra": ["check_preempt_wakeup", "reweight_task"], "lacks": ["reweight_task_fair"]},
    (6, 12): {"extra": ["pick_task_fair", "check_preempt_wakeup_fair"], "lacks": []},
    # 6.18: the scheduler has no !CONFIG_SMP code left; shim_smp.h cuts PELT,
    # util_est and the newidle balance off where 6.12's own stubs did
    # (both SMP trees are resolved with CONFIG_SCHED_SMT too: SMT siblings in
    # select_idle_sibling(), kernelsrc/shim_smp.h)
    (6, 18): {"extra": ["pick_task_fair", "check_preempt_wakeup_fair"], "lacks": [], "shim": "shim_smp.h",
              "config": ["CONFIG_SCHED_SMT"]},
    # 7.0: SMP-only as 6.18; check_preempt_wakeup_fair() is wakeup_preempt_fair()
    # (704069649b5b)
    (7, 0): {"extra": ["pick_task_fair", "wakeup_preempt_fair"], "lacks": [], "shim": "shim_smp.h",
             "config": ["CONFIG_SCHED_SMT"]},
    (7, 1): {"extra": ["pick_task_fair", "wakeup_preempt_fair"], "lacks": [], "shim": "shim_smp.h",
             "config": ["CONFIG_SCHED_SMT"]},
}

# --smp: the versions whose scheduler still has !CONFIG_SMP code are taken
# with CONFIG_SMP, under the same cut points as 6.18 and 7.0 (shim_smp.h);
# without it, uniprocessor (docs/kernel-backend.md, "6.12.118 with
# CONFIG_SMP"). The build passes it unless EEVDF_KERNEL_SMP is OFF.
SMP_VARIANTS = {(6, 12): {"shim": "shim_smp.h", "config": ["CONFIG_SMP", "CONFIG_SCHED_SMT"]},
                (6, 6): {"shim": "shim_smp.h", "config": ["CONFIG_SMP", "CONFIG_SCHED_SMT"]}}

# CPU bandwidth control (cgroup cpu.max): the trees whose bandwidth code the
# glue's core.c side (tg_set_cfs_bandwidth(), the hrtimers, the CSD) was
# written against, taken with CONFIG_SMP only.  Their conditionals are resolved
# with CONFIG_CFS_BANDWIDTH, and fair.c's alone with CONFIG_JUMP_LABEL too, so
# that cfs_bandwidth_used() is the static key's count (shim_smp.h counts it)
# rather than the constant true of a kernel without jump labels; sched.h is
# not, its sched_feat() stays the sysctl's bit test.  Every other tree is
# built without it, and the glue's bandwidth entry points refuse
# (EEVDF_TREE_BANDWIDTH 0 in version.h).  In each of these trees core.c's
# tg_set_cfs_bandwidth(), __cfs_schedulable() and online_fair_sched_group()
# do the same (6.6.0's take and drop the locks by hand, 6.12's by guards); their
# cpu_max_write() differs (EEVDF_TREE_CPU_MAX_BURST_US, tree_facts()).
BANDWIDTH_TREES = {(6, 6, 0), (6, 12, 0), (6, 12, 10), (6, 12, 118)}
BANDWIDTH_VARIANT = {"config": ["CONFIG_CFS_BANDWIDTH"], "file_config": {"kernel/sched/fair.c": ["CONFIG_JUMP_LABEL"]},
                     "bandwidth": True}


class ExtractError(Exception):
    pass


def kernel_version(makefile):
    v = {}
    for key in ("VERSION", "PATCHLEVEL", "SUBLEVEL"):
        m = re.search(rf"^{key}\s*=\s*(\d+)", makefile, re.M)
        if not m:
            raise ExtractError(f"Makefile: no {key} line: not a kernel tree")
        v[key] = int(m.group(1))
    return v["VERSION"], v["PATCHLEVEL"], v["SUBLEVEL"]


def strip_comments(text):
    """Blanks comments, keeps strings and every newline (line numbers stay)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "/" and i + 1 < n and text[i + 1] == "*":
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "/" and i + 1 < n and text[i + 1] == "/":
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def version_defines(version, key, facts=None):
    """The macros version.h gives the shim and the glue: the kernel version as a
    number (EEVDF_KERNEL_VERSION_CODE >= EEVDF_KV(6, 18)), whether the
    version's cut points include shim_smp.h, and the facts read from the tree
    (tree_facts())."""
    return {
        "EEVDF_KV(a, b)": "((a) * 256 + (b))",
        "EEVDF_KERNEL_VERSION_CODE": str(version[0] * 256 + version[1]),
        "EEVDF_KERNEL_SUBLEVEL": str(version[2]),
        "EEVDF_SHIM_SMP": "1" if VERSIONS.get(key, {}).get("shim") == "shim_smp.h" else "0",
        "EEVDF_TREE_BANDWIDTH": "1" if VERSIONS.get(key, {}).get("bandwidth") else "0",
        **{name: str(int(value)) for name, (value, _) in (facts or {}).items()},
    }


def function_signature(text, name):
    """(return type, parameter list) of the definition of NAME in TEXT (comments
    stripped), or None."""
    m = re.search(rf"^([\w \t\*]*?)\b{name}\s*\(([^)]*)\)\s*\{{", text, re.M)
    if not m:
        m = re.search(rf"^([\w \t\*]*?)\n\s*{name}\s*\(([^)]*)\)\s*\{{", text, re.M)
    return (m.group(1).split(), m.group(2)) if m else None


def braced(text, start):
    """The text from START (just after an opening brace) to its closing brace."""
    depth, i = 1, start
    while i < len(text) and depth:
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        i += 1
    return text[start:i]


def struct_has_field(text, struct, field):
    m = re.search(rf"\bstruct\s+{struct}\s*\{{", text)
    return m is not None and re.search(rf"\b{field}\s*(?:\[[^\]]*\])?\s*;", braced(text, m.end())) is not None


def tree_facts(files):
    """The differences between trees the glue and the shim follow, read from
    the tree itself rather than from its version number: {macro: (value, what
    it says)}.  Each names the upstream commit that made the difference."""
    fair = strip_comments(files["kernel/sched/fair.c"])
    sched_h = strip_comments(files["kernel/sched/sched.h"])
    pick = function_signature(fair, "pick_eevdf")
    lag = function_signature(fair, "update_entity_lag")
    util_est = function_signature(fair, "util_est_update")
    features_h = strip_comments(files["kernel/sched/features.h"])
    core = strip_comments(files["kernel/sched/core.c"])
    set_load_weight = re.search(r"\bvoid\s+set_load_weight\s*\([^)]*\)\s*\{", core)
    idle_branch = set_load_weight and re.search(r"if\s*\(\s*task_has_idle_policy\s*\(\s*p\s*\)\s*\)\s*\{([^{}]*)\}",
                                                braced(core, set_load_weight.end()))
    reweight = re.search(r"\breweight_entity\s*\([^)]*\)\s*\{", fair)
    reweight_body = braced(fair, reweight.end()) if reweight else ""  # a tree without it is refused later
    rescale = re.search(r"\brescale_entity\s*\([^)]*\)\s*\{", fair)
    rescale_body = braced(fair, rescale.end()) if rescale else ""
    dequeue_task = function_signature(fair, "dequeue_task_fair")
    put_prev = function_signature(fair, "put_prev_task_fair")
    cpu_max_write = re.search(r"\bcpu_max_write\s*\([^)]*\)\s*\{", core)
    cpu_max_body = braced(core, cpu_max_write.end()) if cpu_max_write else ""

    def defines(text, macro):
        return re.search(rf"^\s*#\s*define\s+{macro}\b", text, re.M) is not None

    return {
        # 6.6 against 6.12 (the glue's core.c side and the shim follow these; 6.12 on has each)
        "EEVDF_TREE_DELAY_DEQUEUE": (re.search(r"\bsched_delayed\b", fair) is not None,
                                     "entities can stay queued as sched_delayed (152e11f6df29, v6.12)"),
        "EEVDF_TREE_REL_DEADLINE": (re.search(r"\brel_deadline\b", fair) is not None,
                                    "a dequeued entity can keep its deadline relative, se->rel_deadline "
                                    "(82e9d0456e06, v6.12)"),
        "EEVDF_TREE_CUSTOM_SLICE": (re.search(r"\bcustom_slice\b", fair) is not None,
                                    "a fair task can ask for its own slice, se->custom_slice (857b158dc5e8, v6.12)"),
        "EEVDF_TREE_MIN_DEADLINE": (re.search(r"\bmin_deadline\b", fair) is not None,
                                    "the tree is ordered by vruntime with the min_deadline augment (v6.6; "
                                    "2227a957e1d5, v6.8, orders it by deadline)"),
        "EEVDF_TREE_PREEMPT_SHORT": (re.search(r"\bSCHED_FEAT\s*\(\s*PREEMPT_SHORT\b", features_h) is not None,
                                     "features.h has PREEMPT_SHORT (85e511df3cec, v6.12)"),
        "EEVDF_TREE_SIS_PROP": (re.search(r"\bSCHED_FEAT\s*\(\s*SIS_PROP\b", features_h) is not None,
                                "features.h still has SIS_PROP, whose code select_idle_cpu() compiles in "
                                "(removed in v6.8)"),
        "EEVDF_TREE_CHECK_PREEMPT_CURR": (function_signature(fair, "check_preempt_wakeup") is not None,
                                          "the fair class's wakeup_preempt hook is check_preempt_wakeup() and "
                                          "core.c's caller check_preempt_curr() (both renamed in v6.7)"),
        "EEVDF_TREE_REWEIGHT_TASK_HOOK": (function_signature(fair, "reweight_task_fair") is not None,
                                          "a task's new weight goes through the class hook reweight_task_fair() "
                                          "(v6.12; before it fair.c's reweight_task(p, prio))"),
        "EEVDF_TREE_IDLE_WEIGHT_RETURNS": (bool(idle_branch and re.search(r"\breturn\s*;", idle_branch.group(1))),
                                           "core.c's set_load_weight() writes a SCHED_IDLE task's weight and returns "
                                           "without a reweight (before d32960528702)"),
        "EEVDF_TREE_DEQUEUE_TASK_BOOL": (dequeue_task is not None and "bool" in dequeue_task[0],
                                         "dequeue_task_fair() says whether the task left its queue (v6.12, "
                                         "delayed dequeue); before, core.c's deactivate_task() clears "
                                         "p->on_rq first"),
        "EEVDF_TREE_PUT_PREV_NEXT": (put_prev is not None and put_prev[1].count(",") >= 2,
                                     "put_prev_task_fair() takes the next task, and sched.h has "
                                     "put_prev_set_next_task() (v6.12)"),
        "EEVDF_TREE_WF_RQ_SELECTED": (defines(sched_h, "WF_RQ_SELECTED"), "sched.h defines WF_RQ_SELECTED (v6.12)"),
        "EEVDF_TREE_DEQUEUE_SPECIAL": (defines(sched_h, "DEQUEUE_SPECIAL"),
                                       "sched.h defines DEQUEUE_SPECIAL (v6.12)"),
        "EEVDF_TREE_NEWIDLE_BALANCE": (function_signature(fair, "newidle_balance") is not None,
                                       "the balancer's functions have their names before the sched_balance_*() "
                                       "renames of v6.10 (newidle_balance(), find_idlest_cpu(), "
                                       "update_overutilized_status())"),
        "EEVDF_TREE_UTIL_EST_STRUCT": (re.search(r"\butil_est\s*\.\s*enqueued\b",
                                                 strip_comments(files["kernel/sched/pelt.h"])) is not None,
                                       "struct sched_avg's util_est is a struct with `enqueued` (before v6.8)"),
        "EEVDF_TREE_RD_OVERLOAD": (re.search(r"\brd\s*->\s*overload\b", sched_h) is not None,
                                   "add_nr_running() sets rd->overload (renamed overloaded in v6.10)"),
        "EEVDF_TREE_REWEIGHT_UPDATES_CURR_ONLY": (
            re.search(r"if\s*\(\s*(?:curr|cfs_rq\s*->\s*curr\s*==\s*se)\s*\)\s*update_curr\s*\(",
                      reweight_body) is not None,
            "reweight_entity() runs update_curr() only when the entity is its queue's curr (6.6; later trees "
            "for every queued entity)"),
        "EEVDF_TREE_REWEIGHT_RESCALES_RELATIVE": (
            re.search(r"if\s*\(\s*se\s*->\s*rel_deadline\s*\)\s*se\s*->\s*deadline\s*=\s*div",
                      reweight_body + rescale_body) is not None,
            "reweight_entity() (7.1: rescale_entity()) rescales a relative deadline with the weight "
            "(6d71a9c61604, v6.14; K1's fix in 6.12.y, kernelsrc/fixes.json)"),
        "EEVDF_TREE_PICK_PROTECT": (pick is not None and "protect" in pick[1],
                                    "pick_eevdf() takes `protect` (7.1: __pick_eevdf() folded into it)"),
        "EEVDF_TREE_LAG_RETURNS_BOOL": (lag is not None and "bool" in lag[0],
                                        "update_entity_lag() says whether it clipped the lag "
                                        "(059258b0d424, v7.1)"),
        "EEVDF_TREE_SUM_SHIFT": (struct_has_field(sched_h, "cfs_rq", "sum_shift"),
                                 "struct cfs_rq has sum_shift (4823725d9d1d, v7.1: full-weight sums)"),
        "EEVDF_TREE_UTIL_EST_UPDATE_SE": (util_est is not None and "sched_entity" in util_est[1],
                                          "util_est_update() takes the entity (v7.1)"),
        "EEVDF_TREE_TASK_DL_SERVER": (re.search(r"\bp->dl_server\b", fair) is not None,
                                      "update_curr() reads the task's p->dl_server (6.12.0; later 6.12.y and "
                                      "6.13 ask dl_server_active(&rq->fair_server))"),
        "EEVDF_TREE_H_NR_QUEUED": (struct_has_field(sched_h, "cfs_rq", "h_nr_queued"),
                                   "struct cfs_rq counts h_nr_queued, not h_nr_running (7b8a702d9438, "
                                   "v6.14; in 6.12.y too by 6.12.118)"),
        "EEVDF_TREE_H_NR_RUNNABLE": (struct_has_field(sched_h, "cfs_rq", "h_nr_runnable"),
                                     "struct cfs_rq counts h_nr_runnable (c2a295bffeaf, v6.14; in 6.12.y too "
                                     "by 6.12.118)"),
        "EEVDF_TREE_CPU_MAX_BURST_US": (re.search(r"\btg_get_cfs_burst\s*\(", cpu_max_body) is not None,
                                        "a cpu.max write keeps the group's burst as tg_get_cfs_burst() reads it, "
                                        "in microseconds, and passes that on as nanoseconds (before "
                                        "49217ea147df, v6.10)"),
        "EEVDF_TREE_ZERO_VRUNTIME": (struct_has_field(sched_h, "cfs_rq", "zero_vruntime"),
                                     "the key base is zero_vruntime, not min_vruntime (79f3f9bedd14, v7.0; in "
                                     "6.12.y too by 6.12.118)"),
    }


def version_key(version, quiet=False):
    """The VERSIONS entry a tree is taken with: its own major.minor, or for a
    version the extractor has no entry for (a newer release, a developer's
    tree) the nearest known one (the newest older one; below the oldest, the
    oldest), with a note on stderr.  The differences the tree itself shows
    (tree_facts()) follow the tree either way; a mismatch that remains stops
    the extraction or the build at the first function, field or hook that
    does not fit, naming the file."""
    key = version[:2]
    if key in VERSIONS:
        return key
    older = [k for k in VERSIONS if k < key]
    near = max(older) if older else min(VERSIONS)
    known = ", ".join(f"{a}.{b}" for a, b in sorted(VERSIONS))
    if not quiet:
        print(f"kernel backend: kernel {version[0]}.{version[1]}.{version[2]} is not a version the extractor knows "
              f"({known}): taking it as {near[0]}.{near[1]}, the nearest", file=sys.stderr)
    return near


def debug_reader_unlocked(debug_c):
    """Whether print_cfs_rq() in kernel/sched/debug.c calls avg_vruntime()
    after it has dropped the rq lock (6.12.y) or while holding it (mainline
    since e08d007f9d81).  The backend's `debug_read racing` follows it."""
    text = strip_comments(debug_c)
    m = re.search(r"\bvoid\s+print_cfs_rq\s*\([^)]*\)\s*\{", text)
    if not m:
        raise ExtractError("kernel/sched/debug.c: print_cfs_rq() not found: the backend's debugfs reader "
                           "(debug_read) has no code to follow")
    body = braced(text, m.end())
    call = re.search(r"\bavg_vruntime\s*\(", body)
    if not call:
        raise ExtractError("kernel/sched/debug.c: print_cfs_rq() does not call avg_vruntime(): the backend's "
                           "debugfs reader (debug_read) has no code to follow")
    before = body[:call.start()]
    locks = [x.end() for x in re.finditer(r"\braw_spin_rq_lock(?:_irqsave|_irq)?\s*\(", before)]
    if not locks:
        return True
    after_lock = body[locks[-1]:]
    unlock = re.search(r"\braw_spin_rq_unlock(?:_irqrestore|_irq)?\s*\(", after_lock)
    return bool(unlock) and locks[-1] + unlock.start() < call.start()


def function_body(text, name, rel):
    """The body of function NAME in TEXT (comments stripped), or an error naming the file."""
    text = strip_comments(text)
    m = re.search(rf"\b{name}\s*\([^)]*\)\s*\{{", text)
    if not m:
        raise ExtractError(f"{rel}: {name}() not found: the backend's core.c side has no code to follow")
    return braced(text, m.end())


def fork_clears_rel_deadline(core_c):
    """Whether __sched_fork() in kernel/sched/core.c clears p->se.rel_deadline
    (3da56dc063cd: v7.1-rc2, backported to 6.12.y and 6.18.y; 6.18.0 lacks it).
    The glue's copy_process() follows the tree."""
    body = function_body(core_c, "__sched_fork", "kernel/sched/core.c")
    return re.search(r"\bp\s*->\s*se\s*\.\s*rel_deadline\s*=\s*0\s*;", body) is not None
