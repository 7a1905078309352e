#!/usr/bin/env python3
"""Markdown tables from scripts/vm-sched-idle.sh runs (docs/notes/vm-sched-idle-f9.md).

    scripts/vm-sched-idle-table.py DIR [DIR...]
    scripts/vm-sched-idle-table.py --summary DIR [DIR...]

Each DIR holds one boot's results.jsonl. Prints, per DIR and summed over all:
W's wakes by X's state at W's deadline, the CPU they got (all wakes, and the
"tight" ones: run within tight_us of the deadline, X in the same state at both
ends), then the diagnostic reads of CPU 1's counters. --summary prints one line
instead: the tight wakes made while X had been blocked under 6 ms (F9's window)
that stayed on CPU 0, per DIR and in all (the figure of docs/findings.md).
"""
import json
import sys


def load(d):
    rows = [json.loads(l) for l in open(f"{d}/results.jsonl", errors="replace") if l.startswith("{")]
    return rows


def pct(a, b):
    return f"{100.0 * a / (a + b):.0f}%" if a + b else "-"


def table(title, tables, diags, runs):
    print(f"### {title}\n")
    for r in runs:
        print(f"- {r}")
    print()
    three = any(v[4] or v[5] for v in tables.values())
    if three:  # the target mode: CPU 2 is the idle CPU the scan finds
        print("| X at W's deadline | all: CPU0 | all: CPU1 | all: CPU2 | all: CPU2 share | tight: CPU0 | tight: CPU1 | tight: CPU2 | tight: CPU2 share |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        for c, v in tables.items():
            print(f"| {c} | {v[0]} | {v[1]} | {v[4]} | {pct(v[4], v[0] + v[1])} | {v[2]} | {v[3]} | {v[5]} | {pct(v[5], v[2] + v[3])} |")
        blocked = [sum(v[i] for c, v in tables.items() if c != "x_running") for i in range(6)]
        print(f"| **X blocked, any age** | {blocked[0]} | {blocked[1]} | {blocked[4]} | {pct(blocked[4], blocked[0] + blocked[1])} | "
              f"{blocked[2]} | {blocked[3]} | {blocked[5]} | {pct(blocked[5], blocked[2] + blocked[3])} |")
        print()
    else:
        print("| X at W's deadline | all: CPU0 | all: CPU1 | all: CPU0 share | tight: CPU0 | tight: CPU1 | tight: CPU0 share |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        for c, v in tables.items():
            print(f"| {c} | {v[0]} | {v[1]} | {pct(v[0], v[1])} | {v[2]} | {v[3]} | {pct(v[2], v[3])} |")
        blocked = [sum(v[i] for c, v in tables.items() if c != "x_running") for i in range(4)]
        print(f"| **X blocked, any age** | {blocked[0]} | {blocked[1]} | {pct(blocked[0], blocked[1])} | "
              f"{blocked[2]} | {blocked[3]} | {pct(blocked[2], blocked[3])} |")
        print()
    if diags:
        print("| X at the read (diagnostic) | reads | h_nr_delayed=1 | sched_idle_cpu(1) true | F9 state: delayed task + only SCHED_IDLE runnable, sched_idle_cpu(1) false |")
        print("|---|---:|---:|---:|---:|")
        for c, v in diags.items():
            print(f"| {c} | {v[0]} | {v[1]} | {v[2]} | {v[3]} |")
        print()


WINDOW = ("x_blocked_lt_0.5ms", "x_blocked_0.5_1ms", "x_blocked_1_1.5ms", "x_blocked_1.5_2ms",
          "x_blocked_2_3ms", "x_blocked_3_4ms", "x_blocked_4_6ms")


def summary(dirs):
    """One line: tight wakes in F9's window that stayed on CPU 0, per boot and in all."""
    per, stay, all_ = [], 0, 0
    for d in dirs:
        rows = [r for r in load(d) if r.get("type") == "table" and r["class"] in WINDOW]
        if not rows:
            print(f"vm-sched-idle-table: {d}/results.jsonl has no counts (the boot did not end)", file=sys.stderr)
            return 1
        s0 = sum(r["tight_cpu0"] for r in rows)
        n = s0 + sum(r["tight_cpu1"] for r in rows)
        per.append(f"{s0}/{n}")
        stay, all_ = stay + s0, all_ + n
    share = f"{100.0 * stay / all_:.1f} %" if all_ else "-"
    print(f"{stay} of {all_} tight wakes in F9's window stayed on CPU 0 ({share}; per boot {', '.join(per)})")
    return 0


def main():
    dirs = sys.argv[1:]
    if dirs[:1] == ["--summary"]:
        return summary(dirs[1:]) if dirs[1:] else 2
    if not dirs:
        print(__doc__, file=sys.stderr)
        return 2
    tot_t, tot_d, runs = {}, {}, []
    for d in dirs:
        rows = load(d)
        hello = next((r for r in rows if r.get("type") == "hello"), {})
        run = next((r for r in rows if r.get("type") == "run"), {})
        t, dg = {}, {}
        for r in rows:
            if r.get("type") == "table":
                t[r["class"]] = [r["cpu0"], r["cpu1"], r["tight_cpu0"], r["tight_cpu1"],
                                 r.get("cpu2", 0), r.get("tight_cpu2", 0)]
            if r.get("type") == "diag":
                dg[r["class"]] = [r["reads"], r["h_nr_delayed_1"], r["idle_only"], r.get("f9_state", 0)]
        for k, v in t.items():
            tot_t[k] = [a + b for a, b in zip(tot_t.get(k, [0] * 6), v)]
        for k, v in dg.items():
            tot_d[k] = [a + b for a, b in zip(tot_d.get(k, [0] * 4), v)]
        desc = (f"{d}: dd={hello.get('dd')} sisutil={hello.get('sisutil')} seed={hello.get('seed')} "
                f"seconds={hello.get('seconds')} xnice={hello.get('xnice')} xslice_us={hello.get('xslice_us')} "
                f"spin_us={hello.get('spin_us')} sleep_us={hello.get('sleep_us')}; W wakes {run.get('w_wakes')}, "
                f"tight {run.get('tight')}, mean W latency {run.get('w_mean_wake_latency_us')} us, "
                f"X cycles {run.get('x_cycles')} (mean run {run.get('x_mean_run_us')} us, "
                f"mean blocked {run.get('x_mean_blocked_us')} us)")
        runs.append(desc)
    table("sum of " + ", ".join(dirs), tot_t, tot_d, runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
