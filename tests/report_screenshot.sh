#!/usr/bin/env bash
# The HTML report as a reader sees it: rendered by headless Chromium at
# 1400x900. The screenshot is a PNG of more than a blank page, and nothing is
# cut off: the page is no wider than the window, and the scenario panel ends
# inside it (measured by Chromium's layout, on a copy of the page with a probe
# script added; the report itself has no script). Skips (77) without Chromium.
# Usage: report_screenshot.sh EEVDF_CHECK SOURCE_DIR WORK_DIR
set -euo pipefail
bin="$1"; src="$2"; work="$3"
chromium_bin="$(command -v chromium || command -v chromium-browser || true)"
if [ -z "$chromium_bin" ]; then
  echo "skip: chromium not found (Debian package 'chromium')"
  exit 77
fi
rm -rf "$work"; mkdir -p "$work"
chrome() {  # a fresh profile each time; the page has no external reference, no network is used
  timeout 90 "$chromium_bin" --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking \
    --disable-component-update --disable-sync --user-data-dir="$work/profile-$1" --window-size=1400,900 \
    "${@:2}" 2>> "$work/chromium.log"
}
status=0
for name in victim k1-vm; do
  case $name in
    victim) "$bin" report "$src/tests/data/report-k1-victim.scn" --no-tolerance -o "$work/$name.html" 2>/dev/null ;;
    k1-vm) "$bin" report "$src/corpus/regressions/v6.12.118-renice-keeps-deadline.scn" --no-tolerance \
             --vm-results "$src/tests/data/vm/v6.12.118-renice-keeps-deadline.results.jsonl" -o "$work/$name.html" 2>/dev/null ;;
  esac
  chrome "$name-shot" --screenshot="$work/$name.png" "file://$work/$name.html" > /dev/null
  size=$(stat -c %s "$work/$name.png" 2>/dev/null || echo 0)
  if [ "$(head -c 8 "$work/$name.png" 2>/dev/null | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] && [ "$size" -gt 20000 ]; then
    echo "ok: $name: a $size-byte PNG at 1400x900 ($work/$name.png)"
  else
    echo "FAIL: $name: no screenshot, or a blank one ($size bytes)"; status=1
  fi
  # the layout Chromium computed, written into the DOM by a probe script
  sed 's|</body>|<script>var d=document.documentElement,r=document.getElementById("scenario").getBoundingClientRect();document.body.setAttribute("data-probe",d.scrollWidth+" "+d.clientWidth+" "+Math.ceil(r.right)+" "+Math.round(r.width))</script></body>|' \
    "$work/$name.html" > "$work/$name.probe.html"
  probe=$(chrome "$name-dom" --dump-dom "file://$work/$name.probe.html" | grep -o 'data-probe="[0-9 ]*"' | tr -dc '0-9 ')
  read -r scroll client right width <<< "$probe"
  if [ -z "${width:-}" ]; then
    echo "FAIL: $name: no layout measured"; status=1
  elif [ "$scroll" -le "$client" ] && [ "$right" -le "$client" ] && [ "$width" -gt 300 ]; then
    echo "ok: $name: page ${scroll} px wide in a ${client} px window, the scenario panel ${width} px, ends at ${right} px"
  else
    echo "FAIL: $name: cut off at 1400 px: page ${scroll} px in ${client} px, scenario panel ends at ${right} px"; status=1
  fi
done
exit $status
