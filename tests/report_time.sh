#!/usr/bin/env bash
# The HTML report draws simulated time, as a reader sees it in the SVG:
# - K1 with a victim (tests/data/report-k1-victim.scn, 17 s): the axis is
#   labelled in seconds, and B's wait (24 ms .. 16.596 s) is one bar whose
#   width is its duration on the axis' scale (the tick labels' own spacing);
# - the K1 regression (keep_going): drawn past its violation to its end,
#   the violation marked, each operation a mark at its time;
# - a run that takes no simulated time (F1) is drawn over its steps;
# - with --vm-results (a recorded boot of 6.12.118): a "booted kernel" lane
#   under each task, A on the CPU for the whole `run 1s`, B not at all.
# Usage: report_time.sh EEVDF_CHECK SOURCE_DIR WORK_DIR
set -euo pipefail
bin="$1"; src="$2"; work="$3"
mkdir -p "$work"
"$bin" report "$src/tests/data/report-k1-victim.scn" --no-tolerance -o "$work/victim.html" 2>/dev/null
"$bin" report "$src/corpus/regressions/v6.12.118-renice-keeps-deadline.scn" --no-tolerance -o "$work/k1.html" \
  --vm-results "$src/tests/data/vm/v6.12.118-renice-keeps-deadline.results.jsonl" 2>/dev/null
"$bin" report "$src/corpus/regressions/F1-vprot-not-rescaled-by-renice.scn" --no-tolerance -o "$work/f1.html" 2>/dev/null
# a missing recording is bad input
if "$bin" report "$src/tests/data/report-k1-victim.scn" -o "$work/x.html" --vm-results "$work/none.jsonl" 2>/dev/null; then
  echo "FAIL: a missing --vm-results file accepted"; exit 1
fi
python3 - "$work" <<'PY'
import re, sys
work = sys.argv[1]
status = 0
def check(ok, what):
    global status
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok: status = 1
def attrs(tag):
    return dict(re.findall(r'([\w-]+)="([^"]*)"', tag))
def timeline(html):
    m = re.search(r'<svg id="timeline".*?</svg>', html, re.S)
    return m.group(0) if m else ""
def ticks(svg):
    return [(attrs(t)["data-at"], float(attrs(t)["x"]), label) for t, label in
            re.findall(r'(<text class="tick time-tick"[^>]*>)([^<]*)</text>', svg)]

# K1 with a victim
svg = timeline(open(f"{work}/victim.html").read())
end = int(attrs(re.search(r'<svg id="timeline"[^>]*>', svg).group(0))["data-end"])
check(end == 17_020_000_000, f"the axis ends at the scenario's end, 17.02 s ({end} ns)")
tk = ticks(svg)
labels = [l for _, _, l in tk]
check("16 s" in labels and "0 s" in labels, f"time labels in seconds: {labels}")
px_per_ns = (tk[-1][1] - tk[0][1]) / (int(tk[-1][0]) - int(tk[0][0]))
lane_b = re.search(r'<g class="lane" id="lane-B".*?</g>', svg, re.S).group(0)
waits = [attrs(t) for t in re.findall(r'<rect class="queued"[^>]*>', lane_b)]
longest = max(waits, key=lambda a: int(a["data-to"]) - int(a["data-from"]))
frm, to = int(longest["data-from"]), int(longest["data-to"])
check((frm, to) == (24_000_000, 16_596_000_000), f"B waits from 24 ms to 16.596 s ({frm} .. {to} ns)")
want = (to - frm) * px_per_ns
check(abs(float(longest["width"]) - want) < 0.2, f"B's wait is {longest['width']} px wide, its duration on the axis: {want:.1f} px")
check(float(longest["width"]) > 800, "B's wait spans most of the timeline")
runs_b = [attrs(t) for t in re.findall(r'<rect class="run"[^>]*>', lane_b)]
check(any(int(a["data-from"]) == 16_596_000_000 for a in runs_b), "B runs again at 16.596 s")

# the K1 regression: past the violation, and the booted kernel beside the model
html = open(f"{work}/k1.html").read()
svg = timeline(html)
end = int(attrs(re.search(r'<svg id="timeline"[^>]*>', svg).group(0))["data-end"])
check(end == 1_024_000_000, f"drawn past the violation to the end, 1.024 s ({end} ns)")
marker = re.search(r'<line id="violation-marker"[^>]*>', svg)
check(marker is not None, "the violation is marked")
steps = [attrs(t) for t in re.findall(r'<line class="step-mark"[^>]*>', svg)]
check(len(steps) == 9, f"a mark for each operation that is not an expectation ({len(steps)})")
check(any((s["data-from"], s["data-to"]) == ("24000000", "1024000000") for s in steps),
      "the last operation, `run 1s`, after the violation: from 24 ms to 1.024 s")
runs_a = [attrs(t) for t in re.findall(r'<rect class="run"[^>]*>', re.search(r'<g class="lane" id="lane-A".*?</g>', svg, re.S).group(0))]
check(any(int(a["data-to"]) == 1_024_000_000 and float(a["width"]) > 800 for a in runs_a),
      "A's run after the violation drawn to the end")
check('<td>I-DL</td>' in html, "the violation table names I-DL")
check("booted kernel" in svg and "6.12.118+deb12-cloud-amd64" in html, "a booted-kernel lane, its release named")
def vm(task, cls):
    lane = re.search(rf'<g class="lane-vm" id="vm-lane-{task}".*?</g>', svg, re.S)
    return [attrs(t) for t in re.findall(rf'<rect class="{cls}"[^>]*>', lane.group(0))] if lane else []
a_runs = vm("A", "vm-run")
check(any(float(a["width"]) > 800 for a in a_runs), "on the booted kernel A runs through `run 1s`")
check(not any(float(a["width"]) > 100 for a in vm("B", "vm-run")), "on the booted kernel B does not")
check(any(float(a["width"]) > 800 for a in vm("B", "vm-queued")), "on the booted kernel B waits, queued")

# no simulated time: over the steps
svg = timeline(open(f"{work}/f1.html").read())
head = attrs(re.search(r'<svg id="timeline"[^>]*>', svg).group(0))
check((head["data-unit"], head["data-end"]) == ("steps", "6"), f"F1, no simulated time: drawn over its 7 steps ({head['data-unit']}, end {head['data-end']})")
check(re.search(r'<rect class="run"', svg) is not None and "#6" in [l for _, _, l in ticks(svg)], "its bars, and its steps labelled")
sys.exit(status)
PY
