#!/usr/bin/env bash
# `snr demo --builtin`: the built-in two-chip program runs, explains itself, checks
# its result against a host reference and is deterministic.
source "$(dirname "$0")/lib.sh"

"$SNR" demo --builtin >"$WORK/demo.txt"
expect_contains "$WORK/demo.txt" "What each chip does"
expect_contains "$WORK/demo.txt" "2 chip(s)"
expect_contains "$WORK/demo.txt" "cycles    "
expect_contains "$WORK/demo.txt" "utilization: scalar"
expect_contains "$WORK/demo.txt" "chip 1: done"
expect_contains "$WORK/demo.txt" "result check: max relative error"
expect_contains "$WORK/demo.txt" "(ok)"

"$SNR" demo --builtin >"$WORK/demo2.txt"
cmp "$WORK/demo.txt" "$WORK/demo2.txt" || fail "demo output differs between runs"

"$SNR" demo --builtin --chips 4 --hw tpu-v5e-like --json >"$WORK/demo.json"
python3 - "$WORK/demo.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["chips"]) == 4
for chip in d["chips"]:
    assert chip["exit_code"] == 0 and chip["dma"]["transfers"] == 4, chip
    assert chip["utilization"]["matrix"] > 0
PY

# A --hw file that gives chips keeps its count, as snr run --hw does (the
# demo used to run its default two); --chips still wins.
printf 'preset: tpu-v4-like\nchips: 4\n' >"$WORK/four.yaml"
"$SNR" demo --builtin --hw "$WORK/four.yaml" >"$WORK/four.txt"
expect_contains "$WORK/four.txt" "system    4 chip(s), ring of 4"
"$SNR" demo --builtin --hw "$WORK/four.yaml" --chips 3 >"$WORK/three.txt"
expect_contains "$WORK/three.txt" "system    3 chip(s), ring of 3"
echo OK
