#!/usr/bin/env bash
# snr sim on workloads as Symbolic Tensor Graph (ASTRA-sim's LLM trace
# generator) writes them, with the system keys its configs set:
# - "inputs"/"outputs" attributes of (tensor, "N.0" bytes) pairs and
#   track-local-mem: 1 → ASTRA-sim's peak line per NPU and a memory trace
#   per NPU under local-mem-trace-filename (folders created);
# - a communicator-group file with one-NPU groups (one per rank for a
#   parallel dimension of 1): accepted, and a collective on one finishes at
#   once;
# - trace-enabled: 1: accepted, with a note (ASTRA-sim's debug lines only).
# The traces are written here (snr et unjsonize), hand-timed so that the
# peak is known.
source "$(dirname "$0")/lib.sh"

# Per rank: fwd (1 µs) reads the weight w (4096 B) and the input x (1024 B),
# which no node writes, and writes y (2048 B); an all-reduce of y over both
# ranks (group "1"); bwd (2 µs) reads y, writes g (4096 B); an all-reduce of
# g over the rank's own one-NPU group ("2" on rank 0, "3" on rank 1).
# Live bytes: 0 ns: w + x + y = 7168 (the peak); 1000 ns (fwd ends): 2048;
# bwd start: 6144; bwd end: 0.
write_rank() {  # RANK PREFIX WITH_SINGLE_GROUP_COLLECTIVE
  python3 - "$1" "$2.$1.json" "$3" <<'PY'
import json, sys
rank, path, single = int(sys.argv[1]), sys.argv[2], sys.argv[3] == "1"
def lst(name, pairs):
    values = [v for name_, size in pairs for v in (name_, f"{size}.0")]
    return {"name": name, "stringList": {"values": values}} if pairs else {"name": name}
def node(id_, name, type_, deps, reads, writes, extra):
    return {"id": str(id_), "name": name, "type": type_, "dataDeps": [str(d) for d in deps],
            "attr": [lst("inputs", reads), lst("outputs", writes)] + extra, **({} if type_ != "COMP_NODE" else {})}
def coll(size, group):
    return [{"name": "comm_type", "int64Val": "0"}, {"name": "comm_size", "int64Val": str(size)},
            {"name": "pg_name", "stringVal": group}, {"name": "is_cpu_op", "int32Val": 0}]
nodes = [
    dict(node(1, "fwd", "COMP_NODE", [], [("w", 4096), ("x", 1024)], [("y", 2048)], []), durationMicros="1"),
    node(2, "ar_y", "COMM_COLL_NODE", [1], [("y", 2048)], [], coll(2048, "1")),
    dict(node(3, "bwd", "COMP_NODE", [2], [("y", 2048)], [("g", 4096)], []), durationMicros="2"),
]
if single:
    nodes.append(node(4, "ar_g", "COMM_COLL_NODE", [3], [("g", 4096)], [], coll(4096, str(2 + rank))))
json.dump({"globalMetadata": {"version": "0.0.4"}, "nodes": nodes}, open(path, "w"))
PY
  "$SNR" et unjsonize "$2.$1.json" -o "$2.$1.et" >/dev/null
}
for r in 0 1; do
  write_rank $r "$WORK/stg" 1
  write_rank $r "$WORK/plain" 0
done
echo '{"1": [0, 1], "2": [0], "3": [1]}' >"$WORK/groups.json"
printf 'topology: [ FullyConnected ]\nnpus_count: [ 2 ]\nbandwidth: [ 50.0 ]\nlatency: [ 500.0 ]\n' >"$WORK/net.yml"
echo '{"memory-type": "NO_MEMORY_EXPANSION"}' >"$WORK/mem.json"
system() {  # FILE EXTRA_KEYS
  cat >"$1" <<JSON
{"scheduling-policy": "LIFO", "endpoint-delay": 10, "active-chunks-per-dimension": 1,
 "preferred-dataset-splits": 4, "all-reduce-implementation": ["direct"], "all-gather-implementation": ["direct"],
 "reduce-scatter-implementation": ["direct"], "all-to-all-implementation": ["direct"],
 "collective-optimization": "localBWAware", "boost-mode": 0, "local-mem-bw": 900$2}
JSON
}
system "$WORK/sys.json" ""
system "$WORK/sys_mem.json" ', "trace-enabled": 1, "track-local-mem": 1, "local-mem-trace-filename": "mem_trace/local_memory_trace"'
sim() {  # PREFIX SYSTEM [options...]; GROUP_FILE: the communicator-group file
  "$SNR" sim --workload-configuration="$1" --system-configuration="$2" --network-configuration="$WORK/net.yml" \
    --remote-memory-configuration="$WORK/mem.json" --comm-group-configuration="${GROUP_FILE:-$WORK/groups.json}" "${@:3}"
}

# A collective on a one-NPU group finishes when it starts: the same finish
# as the traces without it.
sim "$WORK/plain" "$WORK/sys.json" >"$WORK/plain.txt"
sim "$WORK/stg" "$WORK/sys.json" >"$WORK/stg.txt"
cmp "$WORK/plain.txt" "$WORK/stg.txt" || fail "the one-NPU group's collective took time"
grep -q "peak memory" "$WORK/stg.txt" && fail "peak memory printed without track-local-mem"

# The tracker: the same finish lines, each followed by its peak; the
# traces where local-mem-trace-filename says, relative to the working folder.
(cd "$WORK" && sim "$WORK/stg" "$WORK/sys_mem.json" -o "$WORK/out" >"$WORK/mem.txt" 2>"$WORK/mem.err")
grep -v "peak memory" "$WORK/mem.txt" | cmp - "$WORK/stg.txt" || fail "track-local-mem changed a result"
expect_contains "$WORK/mem.txt" "sys[0] peak memory usage: 7.00 KB"
expect_contains "$WORK/mem.txt" "sys[1] peak memory usage: 7.00 KB"
# As in ASTRA-sim, the peak closes its NPU's lines (after the statistics).
[[ $(grep -B1 -m1 '^sys\[1\] finished' "$WORK/mem.txt" | head -1) == "sys[0] peak memory usage: 7.00 KB" ]] ||
  fail "the peak line closes its NPU's lines"
expect_contains "$WORK/mem.err" "4 tensors are read before any node writes them"
expect_contains "$WORK/mem.err" "trace-enabled: 1 asks ASTRA-sim for a debug line"
expect_contains "$WORK/mem.err" "mem_trace/local_memory_trace.0.json .. mem_trace/local_memory_trace.1.json"
python3 - "$WORK" <<'PY'
import json, sys
work = sys.argv[1]
summary = json.load(open(f"{work}/out/summary.json"))["memory"]
assert summary["peak_bytes"] == 7168 and summary["tensors"] == 8, summary
assert summary["tensors_read_before_write"] == 4 and summary["tensors_written_again"] == 0, summary
npu = json.load(open(f"{work}/out/npus.json"))[1]
assert npu["peak_memory_bytes"] == 7168 and npu["peak_memory_ns"] == 0, npu
trace = json.load(open(f"{work}/mem_trace/local_memory_trace.1.json"))["traceEvents"]
live = [e["args"] for e in trace if e.get("ph") == "C"]
values = [list(a.values())[0] for a in live]
assert values[0] == 7168 and values[1] == 2048 and values[-1] == 0 and max(values) == 7168, values
lifetimes = {e["name"]: e for e in trace if e.get("ph") == "X"}
assert set(lifetimes) == {"w", "x", "y", "g"}, lifetimes.keys()
assert lifetimes["w"]["args"]["written_by"].startswith("(none"), lifetimes["w"]
assert lifetimes["y"]["args"]["written_by"] == "fwd (node 1)" and lifetimes["y"]["args"]["reads"] == 2
assert lifetimes["g"]["args"]["last_read_by"] == "ar_g (node 4)"
PY

# A trace folder that cannot be made: an error naming the file and setting.
touch "$WORK/a_file"
system "$WORK/sys_blocked.json" ', "track-local-mem": 1, "local-mem-trace-filename": "'"$WORK"'/a_file/m"'
expect_fail sim "$WORK/stg" "$WORK/sys_blocked.json"
expect_contains "$WORK/expect_fail.out" "a_file/m.0.json (local-mem-trace-filename): cannot create folder"

# Malformed lists name the node and the attribute.
python3 - "$WORK/stg.0.json" "$WORK/bad.0.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
doc["nodes"][0]["attr"][0]["stringList"]["values"][1] = "-4096"
json.dump(doc, open(sys.argv[2], "w"))
PY
"$SNR" et unjsonize "$WORK/bad.0.json" -o "$WORK/bad.0.et" >/dev/null
cp "$WORK/stg.1.et" "$WORK/bad.1.et"
expect_fail sim "$WORK/bad" "$WORK/sys_mem.json"
expect_contains "$WORK/expect_fail.out" "bad.0.et: node 1: attribute 'inputs': tensor 'w' has size '-4096'"
# Without the tracker the lists are not read.
sim "$WORK/bad" "$WORK/sys.json" | cmp - "$WORK/stg.txt" || fail "the lists were read with the tracker off"

# Groups: an empty one is an error; a group of one that a collective's
# rank is not in, too.
echo '{"1": [0, 1], "2": []}' >"$WORK/empty.json"
GROUP_FILE="$WORK/empty.json" expect_fail sim "$WORK/stg" "$WORK/sys.json"
expect_contains "$WORK/expect_fail.out" "group '2' must list at least one NPU id"
echo '{"1": [0, 1], "2": [1], "3": [0]}' >"$WORK/swapped.json"
GROUP_FILE="$WORK/swapped.json" expect_fail sim "$WORK/stg" "$WORK/sys.json"
expect_contains "$WORK/expect_fail.out" "NPU 0 runs a collective on a communicator group it is not in"
echo PASS
