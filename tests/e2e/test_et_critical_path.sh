#!/usr/bin/env bash
# snr et critical-path on a simulated job with one straggler (the path runs
# through its compute; a what-if halving compute shortens the step), on a
# sim result directory and on the same trace with configs (same answer), on
# the measured times of converted PyTorch jobs (the H100 DDP example and
# PARAM's linear pair from ../shared/data), and its refusals.
source "$(dirname "$0")/lib.sh"
A="$DATA/astra-sim"
if [[ ! -d "$A" ]]; then echo "SKIP: $A not present"; exit 77; fi
# FIFO: with LIFO and one active chunk, a straggler's overlapping gradient
# all-reduces deadlock snr sim (each NPU schedules its chunks on its own;
# docs/simulator-distributed.md, "Deviations and limits").
sed 's/"LIFO"/"FIFO"/' "$A/system/native_collectives/Ring_4chunks.json" >"$WORK/sys.json"
SYS="$WORK/sys.json"
MEM="$A/remote_memory/analytical/no_memory_expansion.json"
printf 'topology: [ Ring ]\nnpus_count: [ 8 ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\n' >"$WORK/net8.yml"

# Data parallel, 8 ranks, 4 layers of 100 us; NPU 5 computes 3x slower.
"$SNR" et generate --pattern dp --npus 8 --layers 4 --compute-us 100 -o "$WORK/dp" >/dev/null
echo '{"compute": [{"npu": 5, "slowdown": 3.0}]}' >"$WORK/straggler.json"
"$SNR" sim --workload-configuration "$WORK/dp" --system-configuration "$SYS" --network-configuration "$WORK/net8.yml" \
  --remote-memory-configuration "$MEM" --perturbation-configuration "$WORK/straggler.json" -o "$WORK/run" >/dev/null
[[ -f "$WORK/run/inputs.json" ]] || fail "snr sim -o did not write inputs.json"

"$SNR" et critical-path "$WORK/run" --json --perfetto "$WORK/path.json" >"$WORK/cp.json"
"$SNR" et critical-path "$WORK/dp" --system-configuration "$SYS" --network-configuration "$WORK/net8.yml" \
  --remote-memory-configuration "$MEM" --perturbation-configuration "$WORK/straggler.json" --json >"$WORK/cp2.json"
cmp "$WORK/cp.json" "$WORK/cp2.json" || fail "a sim result directory and the same inputs given as options differ"
"$SNR" et critical-path "$WORK/run" --what-if-compute-scale 0.5 --json >"$WORK/whatif.json"
"$SNR" et critical-path "$WORK/run" --what-if-compute-scale 0.5 >"$WORK/whatif.txt"
expect_contains "$WORK/whatif.txt" "what-if (compute x0.5, communication x1)"
python3 - "$WORK/cp.json" "$WORK/run/summary.json" "$WORK/whatif.json" "$WORK/path.json" <<'PY'
import json, sys
cp = json.load(open(sys.argv[1]))
summary = json.load(open(sys.argv[2]))
whatif = json.load(open(sys.argv[3]))
assert cp["source"] == "simulated" and cp["ranks"] == 8, cp
# The path ends when the job does and every ns lies on one category.
assert cp["makespan_ns"] == summary["finish_ns"], (cp["makespan_ns"], summary["finish_ns"])
assert sum(cp["categories"].values()) == cp["makespan_ns"], cp["categories"]
seg = cp["segments"]
assert seg[0]["start_ns"] == 0 and seg[-1]["end_ns"] == cp["makespan_ns"]
assert all(a["end_ns"] == b["start_ns"] for a, b in zip(seg, seg[1:])), "segments are not contiguous"
# The straggler holds the path's compute: 8 forward + backward layers of
# 100 us (backward 2x) at 3x on NPU 5 is far more than any other rank's.
by_rank = {row["rank"]: row for row in cp["per_rank"]}
assert 5 in by_rank, by_rank
assert by_rank[5]["compute_ns"] == max(row["compute_ns"] for row in cp["per_rank"]), by_rank
assert by_rank[5]["compute_ns"] >= 0.9 * cp["categories"]["compute_ns"], by_rank
# Halving compute shortens the step, by at most half of the path's compute.
w = whatif["what_if"]
assert w["compute_scale"] == 0.5 and w["makespan_ns"] < cp["makespan_ns"], w
assert cp["makespan_ns"] - w["makespan_ns"] <= cp["categories"]["compute_ns"] / 2 + 1, (w, cp["categories"])
assert abs(w["speedup"] - cp["makespan_ns"] / w["makespan_ns"]) < 1e-9
# The timeline: every rank has a critical-path track, arrows where it changes rank.
trace = json.load(open(sys.argv[4]))["traceEvents"]
names = {e["args"]["name"] for e in trace if e.get("ph") == "M" and e.get("name") == "thread_name"}
assert "critical path" in names, names
path_slices = [e for e in trace if e.get("ph") == "X" and e.get("cat") == "critical_path"]
assert len(path_slices) == len(seg), (len(path_slices), len(seg))
flows = [e for e in trace if e.get("ph") == "s"]
assert len(flows) == cp["rank_changes"], (len(flows), cp["rank_changes"])
PY

# Pipeline parallel, 2 stages x 2 micro-batches of 2 layers of 100 us: each
# backward receive is posted at 0 and stays open until its gradient comes,
# near the end, while the forward sends run; it held nothing back. The path
# is fwd_stage0_mb0 (200 us), a 1 MiB transfer (20,031 ns at 50 GB/s plus
# 500 ns), stage 1's forwards and its backward of mb1 (200 + 200 + 400 us),
# the gradient's transfer, and stage 0's two backwards (400 + 400 us).
printf 'topology: [ Ring ]\nnpus_count: [ 2 ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\n' >"$WORK/net2.yml"
"$SNR" et generate --pattern pp --npus 2 --layers 2 --microbatches 2 --compute-us 100 --size 1MiB -o "$WORK/pp" >/dev/null
"$SNR" sim --workload-configuration "$WORK/pp" --system-configuration "$SYS" --network-configuration "$WORK/net2.yml" \
  --remote-memory-configuration "$MEM" -o "$WORK/pprun" >/dev/null
"$SNR" et critical-path "$WORK/pprun" --json >"$WORK/pp.json"
python3 - "$WORK/pp.json" <<'PY'
import json, sys
cp = json.load(open(sys.argv[1]))
c = cp["categories"]
assert (c["compute_ns"], c["communication_ns"]) == (1_800_000, 40_062), c
assert cp["segments"][0]["name"] == "fwd_stage0_mb0", cp["segments"][0]
PY

# Measured: the 2-rank DDP job, converted with its Kineto times.
D="$SRC/examples/pytorch/h100-ddp-gloo-2ranks"
for r in 0 1; do
  "$SNR" et link --host "$D/rank$r.host_et.json.gz" --device "$D/rank$r.kineto.json.gz" -o "$WORK/ddp$r.json" >/dev/null
done
"$SNR" et convert "$WORK/ddp0.json" "$WORK/ddp1.json" -o "$WORK/ddp" >/dev/null
"$SNR" et critical-path "$WORK/ddp" --json >"$WORK/measured.json"
"$SNR" et critical-path "$WORK/ddp" --top 3 >"$WORK/measured.txt"
expect_contains "$WORK/measured.txt" "critical path (measured, 2 ranks)"
python3 - "$WORK/measured.json" <<'PY'
import json, sys
cp = json.load(open(sys.argv[1]))
assert cp["source"] == "measured" and cp["ranks"] == 2, cp
assert sum(cp["categories"].values()) == cp["makespan_ns"] > 0, cp["categories"]
# A PyTorch step spends time in host ops and their kernels.
assert cp["categories"]["host_ns"] > 0, cp["categories"]
assert len(cp["top_ops"]) == 10, cp["top_ops"]
PY

# Measured, from ../shared/data: the PARAM `linear` pair (one rank). The
# path holds host ops (aten::mm, aten::linear, ...) and GPU kernels.
P="$DATA/pytorch/param"
if [[ -d "$P" ]]; then
  "$SNR" et link --host "$P/linear_et.json.gz" --device "$P/linear_kineto.json.gz" -o "$WORK/lin.json" >/dev/null 2>&1
  "$SNR" et convert "$WORK/lin.json" -o "$WORK/lin" >/dev/null
  "$SNR" et critical-path "$WORK/lin" --json --perfetto "$WORK/lin_path.json" >"$WORK/lin_cp.json"
  python3 - "$WORK/lin_cp.json" <<'PY'
import json, sys
cp = json.load(open(sys.argv[1]))
assert cp["source"] == "measured" and cp["ranks"] == 1 and cp["rank_changes"] == 0, cp
c = cp["categories"]
assert sum(c.values()) == cp["makespan_ns"] > 0, c
assert c["host_ns"] > 0 and c["compute_ns"] > 0 and c["communication_ns"] == 0, c
assert "aten::mm" in [op["name"] for op in cp["top_ops"]], cp["top_ops"]
PY
fi

# Refusals: a what-if needs a simulation; a directory must come from snr sim;
# configs come together; no start times and no configs.
expect_fail "$SNR" et critical-path "$WORK/ddp" --what-if-compute-scale 0.5
expect_contains "$WORK/expect_fail.out" "a what-if re-simulates the job"
mkdir -p "$WORK/notsim"
expect_fail "$SNR" et critical-path "$WORK/notsim"
expect_contains "$WORK/expect_fail.out" "not one written by \`snr sim -o\`"
expect_fail "$SNR" et critical-path "$WORK/dp" --system-configuration "$SYS"
expect_contains "$WORK/expect_fail.out" "--network-configuration and --remote-memory-configuration together"
expect_fail "$SNR" et critical-path "$WORK/dp"
expect_contains "$WORK/expect_fail.out" "no node carries a measured start time"
expect_fail "$SNR" et critical-path "$WORK/run" --what-if-comm-scale 0
expect_contains "$WORK/expect_fail.out" "--what-if-comm-scale: 0 is not a number above 0 .. 1e+06"
expect_fail "$SNR" et critical-path "$WORK/run" --what-if-compute-scale nan
expect_contains "$WORK/expect_fail.out" "--what-if-compute-scale"
sed -i 's/"compute_scale": 1.0/"compute_scale": -1/' "$WORK/run/inputs.json"
expect_fail "$SNR" et critical-path "$WORK/run"
expect_contains "$WORK/expect_fail.out" "inputs.json"
echo "critical path ok"
