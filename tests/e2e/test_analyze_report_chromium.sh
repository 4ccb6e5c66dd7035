#!/usr/bin/env bash
# The report of a real replay renders in headless Chromium: every plot is
# in the DOM after the page's scripts ran, no script raised an error and
# the console logged none. The screenshot is kept for people to look at
# (its path is printed). Skips (exit 77) only when chromium is not installed.
source "$(dirname "$0")/lib.sh"
command -v chromium >/dev/null || { echo "SKIP: chromium is not installed"; exit 77; }

"$SNR" compile "$SRC/examples/allgather.yaml" -o "$WORK/model" >/dev/null
start_device 120 "$WORK/model"
timeout 300 "$SNR" record --target "127.0.0.1:$port" --model "$WORK/model" --count 100000 --quiet \
  -o "$WORK/window.snr" >"$WORK/record.out" 2>&1 || { cat "$WORK/record.out" >&2; fail "record failed"; }
wait "$server"
"$SNR" replay "$WORK/window.snr" -o "$WORK/run.db" --quiet
"$SNR" analyze "$WORK/run.db" -o "$WORK/report" --verify-top 1 --quiet >"$WORK/analyze.out"
report="$WORK/report/index.html"
[[ -s "$report" ]] || fail "no report"
size=$(stat -c %s "$report")
((size < 5 * 1024 * 1024)) || fail "report is $size bytes"
plots=$(grep -o 'class="plot"' "$report" | wc -l)
((plots >= 7)) || fail "only $plots plots in the report"

# Chromium needs a writable home for its profile.
export HOME="$WORK/home"
mkdir -p "$HOME"
chrome=(timeout 120 chromium --headless=new --disable-gpu --no-sandbox --no-first-run --enable-logging=stderr --v=0
  --user-data-dir="$WORK/profile")
"${chrome[@]}" --dump-dom "file://$report" >"$WORK/dom.html" 2>"$WORK/dom.err" ||
  { cat "$WORK/dom.err" >&2; fail "chromium --dump-dom failed"; }
grep -q 'data-ready="1"' "$WORK/dom.html" || { tail -20 "$WORK/dom.err" >&2; fail "the report's scripts did not finish"; }
grep -q "data-plots=\"$plots\"" "$WORK/dom.html" || fail "the DOM does not hold all $plots plots"
grep -q 'data-js-errors=' "$WORK/dom.html" && fail "script errors: $(grep -o 'script error: [^<]*' "$WORK/dom.html")"
if grep -E 'CONSOLE|Uncaught' "$WORK/dom.err" | grep -viE 'dbus|gpu|sandbox' >"$WORK/console.txt"; then
  cat "$WORK/console.txt" >&2
  fail "console messages while loading the report"
fi

# The screenshot outlives the scratch directory: it goes beside the binary.
artifacts="$(cd "$(dirname "$SNR")" && pwd)/test-artifacts"
mkdir -p "$artifacts"
shot="$artifacts/report-screenshot.png"
"${chrome[@]}" --screenshot="$shot" --window-size=1400,4000 --hide-scrollbars "file://$report" >/dev/null 2>"$WORK/shot.err" ||
  { cat "$WORK/shot.err" >&2; fail "chromium --screenshot failed"; }
[[ -s "$shot" ]] || fail "no screenshot"
cp "$report" "$artifacts/report.html"
echo "screenshot: $shot"
echo "report renders ok ($plots plots)"
