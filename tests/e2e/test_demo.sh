#!/usr/bin/env bash
# `snr demo`, the main job, on a short window: every stage reports progress
# and its wall time, and the summary names the top stalls, the suggestions
# with predicted and verified savings, the VMEM medians and the report.
source "$(dirname "$0")/lib.sh"

"$SNR" demo -o "$WORK/demo" --count 4000 --verify-top 1 >"$WORK/demo.out" 2>"$WORK/demo.err" ||
  { cat "$WORK/demo.out" "$WORK/demo.err" >&2; fail "snr demo failed"; }
cat "$WORK/demo.out"
for stage in compile record "save snapshot" replay "save run data" analyze tables timeline report; do
  grep -qE "^\[demo\] $stage: .*\([0-9]+\.[0-9] s\)$" "$WORK/demo.out" || fail "no progress line for $stage"
done
expect_contains "$WORK/demo.out" "breaking at layer1.attn.rmsnorm and recording 4000 instructions per chip"
expect_contains "$WORK/demo.out" "16000 instructions on 4 chip(s)"
expect_contains "$WORK/demo.out" "pc sequence and end state match"
expect_contains "$WORK/demo.out" "dependency edges -> $WORK/demo/run.db"
expect_contains "$WORK/demo.out" "DMA WAIT stalls:"
expect_contains "$WORK/demo.out" "VMEM chip 0: median unused"
grep -qE "^(top suggestions|suggestions: none)" "$WORK/demo.out" || fail "no suggestion summary"
expect_contains "$WORK/demo.out" "stage wall times: compile"
expect_contains "$WORK/demo.out" "report: $WORK/demo/report/index.html"
for f in model/manifest.json window.snr run.db report/index.html report/timeline.json; do
  [[ -s "$WORK/demo/$f" ]] || fail "$f missing"
done
# Predicted and verified savings agree within 25%; verified ones rank first, by verified saving.
python3 "$SRC/tests/e2e/check_suggestions.py" "$WORK/demo/report/tables" 0 || fail "predicted vs verified savings"
# The run it wrote re-analyzes, finding the snapshot beside run.db.
"$SNR" analyze "$WORK/demo/run.db" -o "$WORK/again" --verify-top 0 --quiet >"$WORK/again.out"
expect_contains "$WORK/again.out" "report: $WORK/again/index.html"

expect_fail "$SNR" demo -o "$WORK/bad" --break no.such.op --count 10
expect_contains "$WORK/expect_fail.out" "no.such.op"
echo "demo ok"
