#!/usr/bin/env bash
# How ASTRA-sim plans and issues collectives, three rules at once, on 8 NPUs
# (FullyConnected 4 x Switch 2, all-reduce-implementation [direct, ring]):
#  - a communicator group holding every NPU runs as the whole system's
#    collective (both dimensions, localBWAware), not as one ring of members;
#  - on a group smaller than the system, a list of more than one native
#    algorithm falls back to ring;
#  - ready nodes are issued in node-id order, not file order: the file lists
#    the group's all-reduce (id 9) before the global one (id 4), both wait
#    for the lane behind the whole-system group's all-reduce (id 2), and id 4
#    goes first.
# ASTRA-sim's analytical congestion-unaware binary (snapshot 518bd51) on the
# same files: whole_group ends at 30,008 ns, global at 50,380, half_group at
# 64,628 on every NPU. Before these rules snr gave 35,624 / 60,820 / 40,448
# (half_group first, as direct).
source "$(dirname "$0")/lib.sh"
require_data astra-sim
for r in 0 1 2 3 4 5 6 7; do
  python3 - "$r" "$WORK/j.$r.json" <<'PY'
import json, sys
rank, path = int(sys.argv[1]), sys.argv[2]
def coll(id_, name, size, group, deps):
    attr = [{"name": "comm_type", "int64Val": "0"}, {"name": "comm_size", "int64Val": str(size)}]
    if group:
        attr.append({"name": "pg_name", "stringVal": group})
    return {"id": str(id_), "name": name, "type": "COMM_COLL_NODE", "dataDeps": [str(d) for d in deps], "attr": attr}
compute = {"id": "1", "name": "compute", "type": "COMP_NODE", "durationMicros": "1"}
half = "2" if rank < 4 else "3"
nodes = [compute, coll(2, "whole_group", 1048576, "1", []), coll(9, "half_group", 65536, half, [1]),
         coll(4, "global", 262144, None, [1])]
json.dump({"globalMetadata": {"version": "0.0.4"}, "nodes": nodes}, open(path, "w"))
PY
  "$SNR" et unjsonize "$WORK/j.$r.json" -o "$WORK/j.$r.et" >/dev/null
done
echo '{"1": [0, 1, 2, 3, 4, 5, 6, 7], "2": [0, 1, 2, 3], "3": [4, 5, 6, 7]}' >"$WORK/groups.json"
printf 'topology: [ FullyConnected, Switch ]\nnpus_count: [ 4, 2 ]\nbandwidth: [ 50.0, 25.0 ]\nlatency: [ 500.0, 1000.0 ]\n' \
  >"$WORK/net.yml"
cat >"$WORK/sys.json" <<'JSON'
{"scheduling-policy": "LIFO", "endpoint-delay": 10, "active-chunks-per-dimension": 1,
 "preferred-dataset-splits": 4, "all-reduce-implementation": ["direct", "ring"],
 "all-gather-implementation": ["direct", "ring"], "reduce-scatter-implementation": ["direct", "ring"],
 "all-to-all-implementation": ["direct", "ring"], "collective-optimization": "localBWAware", "local-mem-bw": 900}
JSON
"$SNR" sim --network-backend=analytical-congestion-unaware --workload-configuration="$WORK/j" \
  --system-configuration="$WORK/sys.json" --network-configuration="$WORK/net.yml" \
  --remote-memory-configuration="$DATA/astra-sim/remote_memory/analytical/no_memory_expansion.json" \
  --comm-group-configuration="$WORK/groups.json" -o "$WORK/out" >"$WORK/out.txt"
for r in 0 1 2 3 4 5 6 7; do expect_contains "$WORK/out.txt" "sys[$r] finished, 64628 cycles"; done
python3 - "$WORK/out/timeline.json" <<'PY' || fail "per-node times differ from ASTRA-sim's"
import json, sys
slices = [e for e in json.load(open(sys.argv[1]))["traceEvents"] if e.get("ph") == "X"]
for npu in range(8):
    got = [(e["name"], round(e["ts"] * 1000), round((e["ts"] + e["dur"]) * 1000))
           for e in sorted(slices, key=lambda e: e["ts"]) if e["pid"] == npu + 1]
    want = [("compute", 0, 1000), ("whole_group", 0, 30008), ("global", 30008, 50380), ("half_group", 50380, 64628)]
    if sorted(got, key=lambda s: (s[1], s[2])) != sorted(want, key=lambda s: (s[1], s[2])):
        sys.exit(f"NPU {npu}: {got}, want {want}")
PY

# Two NPUs, two groups of both, each NPU's lower node id on the other group:
# one collective at a time per NPU, so each holds its lane for the
# collective the other has not started. ASTRA-sim stops there too, listing
# node 1 unreleased on both; the stall names what each NPU waits in.
for r in 0 1; do
  python3 - "$r" "$WORK/d.$r.json" <<'PY'
import json, sys
rank, path = int(sys.argv[1]), sys.argv[2]
def coll(id_, group, name):
    return {"id": str(id_), "name": name, "type": "COMM_COLL_NODE",
            "attr": [{"name": "comm_type", "int64Val": "0"}, {"name": "comm_size", "int64Val": "65536"},
                     {"name": "pg_name", "stringVal": group}]}
nodes = [coll(1, "1", "grad_sync"), coll(2, "2", "activations")]
if rank == 1:
    nodes = [coll(1, "2", "activations"), coll(2, "1", "grad_sync")]
json.dump({"globalMetadata": {"version": "0.0.4"}, "nodes": nodes}, open(path, "w"))
PY
  "$SNR" et unjsonize "$WORK/d.$r.json" -o "$WORK/d.$r.et" >/dev/null
done
echo '{"1": [0, 1], "2": [0, 1]}' >"$WORK/d_groups.json"
printf 'topology: [ FullyConnected ]\nnpus_count: [ 2 ]\nbandwidth: [ 50.0 ]\nlatency: [ 500.0 ]\n' >"$WORK/d_net.yml"
expect_fail "$SNR" sim --workload-configuration="$WORK/d" \
  --system-configuration="$DATA/astra-sim/system/native_collectives/Ring_4chunks.json" \
  --network-configuration="$WORK/d_net.yml" \
  --remote-memory-configuration="$DATA/astra-sim/remote_memory/analytical/no_memory_expansion.json" \
  --comm-group-configuration="$WORK/d_groups.json"
expect_contains "$WORK/expect_fail.out" "2 of 2 NPUs unfinished: NPU 0 waits in collective 1 'grad_sync' on a group of 2"
expect_contains "$WORK/expect_fail.out" "NPU 1 waits in collective 1 'activations' on a group of 2"
expect_contains "$WORK/expect_fail.out" "An NPU runs one collective or send at a time"

# A dependency cycle leaves nothing in flight: the stall says so.
python3 - "$WORK/cycle.0.json" <<'PY'
import json, sys
nodes = [{"id": "1", "name": "a", "type": "COMP_NODE", "durationMicros": "1", "dataDeps": ["2"]},
         {"id": "2", "name": "b", "type": "COMP_NODE", "durationMicros": "1", "dataDeps": ["1"]}]
json.dump({"globalMetadata": {"version": "0.0.4"}, "nodes": nodes}, open(sys.argv[1], "w"))
PY
"$SNR" et unjsonize "$WORK/cycle.0.json" -o "$WORK/cycle.0.et" >/dev/null
printf 'topology: [ Ring ]\nnpus_count: [ 1 ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\n' >"$WORK/one.yml"
expect_fail "$SNR" sim --workload-configuration="$WORK/cycle" \
  --system-configuration="$DATA/astra-sim/system/native_collectives/Ring_4chunks.json" \
  --network-configuration="$WORK/one.yml" \
  --remote-memory-configuration="$DATA/astra-sim/remote_memory/analytical/no_memory_expansion.json"
expect_contains "$WORK/expect_fail.out" "NPU 0 has no node in flight and 2 waiting for parents that never finish"
if grep -q "scheduling-policy LIFO" "$WORK/expect_fail.out"; then fail "a cycle's stall blames LIFO"; fi
echo PASS
