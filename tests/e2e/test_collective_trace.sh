#!/usr/bin/env bash
# snr collective --trace / --csv, both forms (built-in algorithm, plan file):
# the timeline loads (slices nested per track, one slice per workgroup, a
# process per GPU, link counter tracks), the CSV has a row per kernel, the
# JSON's `kernels` and `occupancy` are consistent, and asking for the files
# changes no result (every key but the host wall time is identical).
source "$(dirname "$0")/lib.sh"

check_outputs() {  # PLAIN.json TRACED.json TRACE.json KERNELS.csv
  python3 - "$@" <<'PY'
import csv, json, sys
from decimal import Decimal
plain, traced = (json.load(open(f)) for f in sys.argv[1:3])
trace = json.load(open(sys.argv[3]), parse_float=Decimal)
rows = list(csv.DictReader(open(sys.argv[4])))

# Results do not depend on --trace/--csv.
def strip(r):
    r = dict(r)
    r.pop("trace", None); r.pop("csv", None)
    r["simulation"] = {k: v for k, v in r["simulation"].items() if k != "wall_s"}
    return r
assert strip(plain) == strip(traced), "a result changed with --trace/--csv"
for key in ("time_ns", "algbw_gbps", "busbw_gbps", "kernels", "occupancy"):
    assert key in plain, key

gpus = plain["gpus"]
kernels, occ = plain["kernels"], plain["occupancy"]
workgroups = sum(k["workgroups"] for k in kernels)
assert len(occ) == gpus and sum(o["workgroups"] for o in occ) == workgroups, (occ, workgroups)
for k in kernels:
    assert 0 <= k["start_ns"] <= k["end_ns"] <= plain["time_ns"] + 1e-6, k
    assert abs(k["time_ns"] - (k["end_ns"] - k["start_ns"])) < 1e-6, k
for o in occ:
    assert 0 < o["cus_used"] <= o["compute_units"], o
    assert 0 < o["mean_busy_fraction"] <= o["max_busy_fraction"] <= 1 + 1e-9, o
    assert o["mean_resident_workgroups"] > 0, o
# A GPU's stored payload is its kernels' (the GPU model counts it as it runs).
for g in plain["per_gpu"]:
    assert sum(k["stored_bytes"] for k in kernels if k["gpu"] == g["gpu"]) == g["stored_bytes"], g

# CSV: one row per kernel, the JSON's figures.
assert len(rows) == len(kernels), (len(rows), len(kernels))
assert list(rows[0].keys()) == ["gpu", "kernel", "kernel_name", "workgroups", "start_ns", "end_ns", "time_ns",
                                "stored_bytes", "busbw_gbps"], rows[0].keys()
for row, k in zip(rows, kernels):
    assert int(row["gpu"]) == k["gpu"] and row["kernel_name"] == k["name"], (row, k)
    assert abs(float(row["time_ns"]) - k["time_ns"]) < 1e-3, (row, k)
    assert (row["busbw_gbps"] == "") == (k["busbw_gbps"] is None), (row, k)

# Trace: processes, tracks, one slice per workgroup, nesting per track, counters.
events = trace["traceEvents"]
procs = {e["pid"]: e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "process_name"}
names = set(procs.values())
assert {f"GPU {g}" for g in range(gpus)} <= names and "NoC links" in names, names
wg_slices = [e for e in events if e["ph"] == "X" and e.get("cat") == "workgroup"]
assert len(wg_slices) == workgroups == trace["otherData"]["workgroup_slices"], (len(wg_slices), workgroups)
assert trace["otherData"]["workgroups_left_out"] == 0
assert traced["trace"]["workgroup_slices"] == workgroups
threads = {(e["pid"], e["tid"]): e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "thread_name"}
for e in wg_slices:
    assert threads[(e["pid"], e["tid"])].startswith("CU"), threads[(e["pid"], e["tid"])]
    assert {"cu", "workgroup", "ops"} <= set(e["args"]), e
per_gpu_tracks = {}
for (pid, tid), name in threads.items():
    if name.startswith("CU") and " #" not in name:
        per_gpu_tracks[pid] = per_gpu_tracks.get(pid, 0) + 1
assert per_gpu_tracks and max(per_gpu_tracks.values()) <= 16, per_gpu_tracks
by_track = {}
for e in events:
    if e["ph"] == "X":
        by_track.setdefault((e["pid"], e["tid"]), []).append((e["ts"], e["ts"] + e["dur"]))
for track, spans in by_track.items():
    spans.sort(key=lambda s: (s[0], -s[1]))
    stack = []
    for start, end in spans:
        while stack and stack[-1] <= start:
            stack.pop()
        assert not stack or end <= stack[-1], f"overlapping slices on {threads.get(track)}"
        stack.append(end)
counters = {e["name"] for e in events if e["ph"] == "C"}
for kind in ("router", "cu", "hbm", "io", "scale_up"):
    for what in ("links busy (fraction)", "links GB/s", "messages waiting"):
        assert f"{kind} {what}" in counters, (kind, what, counters)
busy = [e["args"]["value"] for e in events if e["ph"] == "C" and e["name"] == "scale_up links busy (fraction)"]
assert 100 <= len(busy) - 1 <= 200, len(busy)  # bins plus the closing sample
assert max(busy) > 0 and all(0 <= v <= 1 for v in busy), max(busy)
PY
}

# Built-in algorithm: all-gather over 8 GPUs (one kernel per GPU).
B=(collective allgather --gpus 8 --size 1048576 --json)
"$SNR" "${B[@]}" > "$WORK/b_plain.json"
"$SNR" "${B[@]}" --trace "$WORK/b_trace.json" --csv "$WORK/b.csv" > "$WORK/b_traced.json"
check_outputs "$WORK/b_plain.json" "$WORK/b_traced.json" "$WORK/b_trace.json" "$WORK/b.csv"
# Symmetric GPUs share one occupancy line in the text report.
"$SNR" collective allgather --gpus 8 --size 1048576 --trace "$WORK/t.json" > "$WORK/b.txt"
expect_contains "$WORK/b.txt" "GPUs 0-7: "
expect_contains "$WORK/b.txt" "CUs used, busy"
expect_contains "$WORK/b.txt" "timeline: $WORK/t.json"

# The queue counters' area is each kind's queued_ns, at request and at flow
# level (where striped HBM and I/O lines wait without entering a queue).
for granularity in request flow; do
  "$SNR" collective alltoall --gpus 16 --size 1048576 --granularity "$granularity" --json \
    --trace "$WORK/q_$granularity.json" >"$WORK/q_$granularity.out"
  python3 - "$WORK/q_$granularity.out" "$WORK/q_$granularity.json" <<'PY' || fail "$granularity: queue counters differ from queued_ns"
import json, sys
links = json.load(open(sys.argv[1]))["network"]["links"]
events = json.load(open(sys.argv[2]))["traceEvents"]
for kind in ("hbm", "io", "scale_up", "router", "cu"):
    samples = sorted((e["ts"], e["args"]["value"]) for e in events if e["ph"] == "C" and e["name"] == f"{kind} messages waiting")
    area_ns = sum((samples[i + 1][0] - samples[i][0]) * samples[i][1] for i in range(len(samples) - 1)) * 1000
    queued_ns = links[kind]["queued_ns"]
    assert abs(area_ns - queued_ns) <= 1e-3 * max(queued_ns, 1.0), (kind, area_ns, queued_ns)
    if kind in ("hbm", "io"):
        assert queued_ns > 0, (kind, queued_ns)
PY
done

# An output that cannot be written fails before the run, naming the option.
expect_fail "$SNR" collective allgather --gpus 2 --size 65536 --trace "$WORK"
expect_contains "$WORK/expect_fail.out" "--trace"
expect_fail "$SNR" collective allgather --gpus 2 --size 65536 --csv "$WORK"
expect_contains "$WORK/expect_fail.out" "--csv"

# A plan file (shared data).
require_data mscclpp/allreduce.json
P=(collective "$DATA/mscclpp/allreduce.json" --size 1048576 --json)
"$SNR" "${P[@]}" > "$WORK/p_plain.json"
"$SNR" "${P[@]}" --trace "$WORK/p_trace.json" --csv "$WORK/p.csv" > "$WORK/p_traced.json"
check_outputs "$WORK/p_plain.json" "$WORK/p_traced.json" "$WORK/p_trace.json" "$WORK/p.csv"
echo "ok"
