#!/usr/bin/env bash
# examples/scale-out/run.sh end to end at 64 chips: the decode step is
# compiled, run cycle by cycle on 4 chips, exported, re-targeted to a 8x8
# torus and simulated; with a 2x straggler the slowest chip's step grows.
# Checks the printed figures against the result files.
source "$(dirname "$0")/lib.sh"

echo '{"description": "chip 5 computes at half speed", "compute": [{"npu": 5, "slowdown": 2}]}' >"$WORK/slow5.json"
SNR="$SNR" bash "$SRC/examples/scale-out/run.sh" --chips 64 --perturbation "$WORK/slow5.json" -o "$WORK/so" \
  >"$WORK/out.txt" 2>&1 || { cat "$WORK/out.txt" >&2; fail "run.sh"; }
cat "$WORK/out.txt"
expect_contains "$WORK/out.txt" "64 ranks (tp 4, dp 16) from 4 ranks (tp 4, dp 1)"
expect_contains "$WORK/out.txt" "4 chips, measured"
expect_contains "$WORK/out.txt" "4 chips, simulated (ring of 4)"
expect_contains "$WORK/out.txt" "64 chips, simulated (torus 8x8)"
expect_contains "$WORK/out.txt" "64 chips, slow5.json"
for d in sim4 sim64 sim64-perturbed; do [[ -s "$WORK/so/$d/npus.csv" ]] || fail "missing $d/npus.csv"; done
python3 - "$WORK/so" "$WORK/out.txt" <<'PY'
import csv, json, re, sys
so, out = sys.argv[1], open(sys.argv[2]).read()
def rows(d):
    return list(csv.DictReader(open(f"{so}/{d}/npus.csv")))
def printed(label):
    m = re.search(re.escape(label) + r"\s+([\d.]+) us per chip(?: \(slowest ([\d.]+) us\) = compute ([\d.]+) us)?", out)
    assert m, label
    return [float(x) if x else None for x in m.groups()]
run = json.load(open(f"{so}/run4.json"))
measured_us = run["cycles"] / run["clock_hz"] * 1e6
assert abs(printed("4 chips, measured")[0] - measured_us) < 0.1
s4, s64, slow = rows("sim4"), rows("sim64"), rows("sim64-perturbed")
assert len(s4) == 4 and len(s64) == 64 and len(slow) == 64
mean = lambda rs, k: sum(int(r[k]) for r in rs) / len(rs) / 1e3
t4 = printed("4 chips, simulated (ring of 4)")
t64 = printed("64 chips, simulated (torus 8x8)")
tslow = printed("64 chips, slow5.json")
assert abs(t4[0] - mean(s4, "total_ns")) < 0.1 and abs(t64[0] - mean(s64, "total_ns")) < 0.1
# The cross-check of docs/crosscheck.md: the 4-chip simulation within 10% of the cycle-level run.
assert abs(t4[0] - measured_us) / measured_us < 0.10, (t4, measured_us)
# Data-parallel replicas: every chip computes what a chip of the 4-chip step computes.
assert abs(mean(s64, "compute_ns") - mean(s4, "compute_ns")) < 1e-6, (mean(s64, "compute_ns"), mean(s4, "compute_ns"))
# The straggler doubles chip 5's compute; its replica (chips 4-7) waits for it, the other replicas do not.
c5, c4 = int(slow[5]["compute_ns"]), int(s64[5]["compute_ns"])
assert c5 == 2 * c4, (c5, c4)
assert abs(tslow[1] - max(int(r["total_ns"]) for r in slow) / 1e3) < 0.1, tslow
assert tslow[1] > t64[1] + 0.5 * c4 / 1e3, (tslow, t64)
for r in (4, 6, 7):
    assert int(slow[r]["total_ns"]) > int(s64[r]["total_ns"]) + 0.5 * c4, r
for r in (0, 12, 63):
    assert int(slow[r]["total_ns"]) == int(s64[r]["total_ns"]), r
PY
echo "ok"
