#!/usr/bin/env bash
# Renders the F1 report in headless Chromium and checks the DOM it built:
# the timeline SVG with a lane per task, the four charts, the violation
# marker, the highlighted scenario line. Fails when Chromium is missing.
# Usage: report_chromium.sh EEVDF_CHECK SOURCE_DIR WORK_DIR
set -euo pipefail
bin="$1"; src="$2"; work="$3"
mkdir -p "$work"
chromium_bin="$(command -v chromium || command -v chromium-browser || true)"
if [ -z "$chromium_bin" ]; then
  echo "FAIL: chromium not found (Debian package 'chromium'; scripts/setup.sh installs it)"
  exit 1
fi
html="$work/F1-report.html"
"$bin" report "$src/corpus/regressions/F1-vprot-not-rescaled-by-renice.scn" --no-tolerance -o "$html"
dom="$work/F1-report.dom.html"
# a fresh profile each time; no network is needed or used (the page has no external reference)
timeout 90 "$chromium_bin" --headless --no-sandbox --disable-gpu --no-first-run \
  --user-data-dir="$work/chromium-profile" --dump-dom "file://$html" > "$dom" 2> "$work/chromium.log"
status=0
check() {
  if grep -q -- "$1" "$dom"; then echo "ok: $2"; else echo "FAIL: $2 (no '$1' in the rendered DOM)"; status=1; fi
}
check '<svg id="timeline"' "timeline svg"
check 'id="lane-A"' "lane of task A"
check 'id="lane-B"' "lane of task B"
check '<rect class="run"' "a running bar"
check 'id="violation-marker"' "violation marker"
check 'id="chart-vruntime"' "vruntime chart"
check 'id="chart-deadline"' "deadline chart"
check 'id="chart-lag"' "lag chart"
check 'id="chart-V"' "V chart"
check '<polyline class="series"' "a plotted series"
check 'class="violating-line" id="line-15"' "the violating scenario line"
check '<td>I-PROT</td>' "the violation table"
# the DOM is Chromium's: it must have parsed the page (it adds nothing we wrote twice)
[ "$(grep -c '</html>' "$dom")" -eq 1 ] || { echo "FAIL: not one document"; status=1; }
exit $status
