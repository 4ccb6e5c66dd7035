#!/usr/bin/env bash
# replay-only: 1 (ASTRA-sim's issue_replay for every node): each node takes
# its trace duration (1 ns when it has none) on the lane ASTRA-sim's hardware
# resource gives it (CPU ops the CPU lane, compute the GPU compute lane,
# collectives, sends and metadata the communication lane, receives none);
# nothing is simulated, so no collective or message ties the ranks together.
source "$(dirname "$0")/lib.sh"

# Two ranks, hand-timed. Rank r: gpu (2 µs) -> coll (5 µs, comm_size and
# group never read) -> meta (METADATA, 1 ns); cpu (CPU op, 3 µs) and recv
# (4 µs, from the other rank, which never sends) start at 0 beside them.
# Finish: 2000 + 5000 + 1 = 7001 ns on both ranks; compute 2000 ns.
for r in 0 1; do
  python3 - "$r" "$WORK/job.$r.json" <<'PY'
import json, sys
rank, path = int(sys.argv[1]), sys.argv[2]
def node(id_, name, type_, deps, micros, attrs=()):
    n = {"id": str(id_), "name": name, "type": type_, "dataDeps": [str(d) for d in deps], "attr": list(attrs)}
    if micros:
        n["durationMicros"] = str(micros)
    return n
nodes = [
    node(1, "gpu", "COMP_NODE", [], 2),
    node(2, "coll", "COMM_COLL_NODE", [1], 5, [{"name": "comm_type", "int64Val": "0"},
                                                {"name": "comm_size", "int64Val": "1048576"},
                                                {"name": "pg_name", "stringVal": "no-such-group"}]),
    node(3, "meta", "METADATA_NODE", [2], 0),
    node(4, "cpu", "COMP_NODE", [], 3, [{"name": "is_cpu_op", "boolVal": True}]),
    node(5, "recv", "COMM_RECV_NODE", [], 4, [{"name": "comm_src", "int32Val": 1 - rank},
                                              {"name": "comm_size", "int64Val": "64"}]),
]
json.dump({"globalMetadata": {"version": "0.0.4"}, "nodes": nodes}, open(path, "w"))
PY
  "$SNR" et unjsonize "$WORK/job.$r.json" -o "$WORK/job.$r.et" >/dev/null
done
printf 'topology: [ Ring ]\nnpus_count: [ 2 ]\nbandwidth: [ 50.0 ]\nlatency: [ 500.0 ]\n' >"$WORK/net.yml"
echo '{"memory-type": "NO_MEMORY_EXPANSION"}' >"$WORK/mem.json"
echo '{"scheduling-policy": "LIFO", "endpoint-delay": 10, "local-mem-bw": 50, "replay-only": 1}' >"$WORK/replay.json"
echo '{"scheduling-policy": "LIFO", "endpoint-delay": 10, "local-mem-bw": 50}' >"$WORK/sim.json"
sim() {  # SYSTEM [options...]
  "$SNR" sim --workload-configuration="$WORK/job" --system-configuration="$1" --network-configuration="$WORK/net.yml" \
    --remote-memory-configuration="$WORK/mem.json" "${@:2}"
}
sim "$WORK/replay.json" -o "$WORK/out" >"$WORK/replay.txt"
expect_contains "$WORK/replay.txt" "sys[0] finished, 7001 cycles, exposed communication 5001 cycles."
expect_contains "$WORK/replay.txt" "sys[1] finished, 7001 cycles, exposed communication 5001 cycles."
python3 - "$WORK/out/timeline.json" <<'PY'
import json, sys
slices = {(e["pid"], e["name"]): e for e in json.load(open(sys.argv[1]))["traceEvents"] if e.get("ph") == "X"}
names = {e["name"] for e in slices.values()}
assert {"gpu", "coll", "meta", "cpu", "recv"} <= names, names
for (pid, name), e in slices.items():
    want = {"gpu": (0, 2), "coll": (2, 5), "meta": (7, 0.001), "cpu": (0, 3), "recv": (0, 4)}[name]
    assert abs(e["ts"] - want[0]) < 1e-9 and abs(e["dur"] - want[1]) < 1e-9, (name, e["ts"], e["dur"])
PY
# Simulated instead, the same traces need the group and a matching send.
expect_fail sim "$WORK/sim.json"
expect_contains "$WORK/expect_fail.out" "pg_name 'no-such-group'"
echo PASS
