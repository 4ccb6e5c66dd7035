#!/usr/bin/env bash
# NPUs in different sets of communicator groups: NPU 0 runs an all-reduce
# on group "1" = {0, 1}, then one on group "2" = {0, 2}; NPU 1 and NPU 2
# run only theirs. A collective's stream tags are counted per group (as
# ASTRA-sim numbers a group's streams), so NPU 2's first collective on
# group "2" matches NPU 0's second one. With one counter per NPU for all
# groups, NPU 0 tagged it as its second collective and both waited forever.
source "$(dirname "$0")/lib.sh"
require_data astra-sim
for r in 0 1 2; do
  python3 - "$r" "$WORK/j.$r.json" <<'PY'
import json, sys
rank, path = int(sys.argv[1]), sys.argv[2]
def coll(id_, group, deps):
    return {"id": str(id_), "name": f"ar{group}", "type": "COMM_COLL_NODE", "dataDeps": [str(d) for d in deps],
            "attr": [{"name": "comm_type", "int64Val": "0"}, {"name": "comm_size", "int64Val": "65536"},
                     {"name": "pg_name", "stringVal": group}]}
nodes = {0: [coll(1, "1", []), coll(2, "2", [1])], 1: [coll(1, "1", [])], 2: [coll(2, "2", [])]}[rank]
json.dump({"globalMetadata": {"version": "0.0.4"}, "nodes": nodes}, open(path, "w"))
PY
  "$SNR" et unjsonize "$WORK/j.$r.json" -o "$WORK/j.$r.et" >/dev/null
done
echo '{"1": [0, 1], "2": [0, 2]}' >"$WORK/groups.json"
printf 'topology: [ FullyConnected ]\nnpus_count: [ 3 ]\nbandwidth: [ 50.0 ]\nlatency: [ 500.0 ]\n' >"$WORK/net.yml"
# One 64 KiB all-reduce over two NPUs takes 5396 ns; NPU 0 runs two in a
# row. ASTRA-sim gives the same under FIFO and LIFO. Under LIFO NPU 0 queues
# its second collective's chunks while its first one's last chunk is still
# counted as running; they keep their order because a collective's chunks
# share one priority (with a priority per chunk the last went first there,
# the first on NPU 2, and both waited forever).
sed 's/"LIFO"/"FIFO"/' "$DATA/astra-sim/system/native_collectives/Ring_4chunks.json" >"$WORK/fifo.json"
for system in "$WORK/fifo.json" "$DATA/astra-sim/system/native_collectives/Ring_4chunks.json"; do
  "$SNR" sim --workload-configuration="$WORK/j" --system-configuration="$system" \
    --network-configuration="$WORK/net.yml" \
    --remote-memory-configuration="$DATA/astra-sim/remote_memory/analytical/no_memory_expansion.json" \
    --comm-group-configuration="$WORK/groups.json" >"$WORK/out.txt"
  expect_contains "$WORK/out.txt" "sys[0] finished, 10792 cycles"
  expect_contains "$WORK/out.txt" "sys[1] finished, 5396 cycles"
  expect_contains "$WORK/out.txt" "sys[2] finished, 10272 cycles"
done

# Direct on a group smaller than the network: ASTRA-sim runs a group's
# collectives on a ring topology of the members, where direct counts N-1
# network packets per round; a 1 MiB all-reduce on 4 of 8 NPUs takes
# 15,608 ns there (all-gather 21,608, reduce-scatter 7,824 ns).
cat >"$WORK/direct.json" <<'JSON'
{"scheduling-policy": "LIFO", "endpoint-delay": 10, "active-chunks-per-dimension": 1,
 "preferred-dataset-splits": 4, "all-reduce-implementation": ["direct"], "all-gather-implementation": ["direct"],
 "reduce-scatter-implementation": ["direct"], "all-to-all-implementation": ["direct"],
 "collective-optimization": "localBWAware", "local-mem-bw": 900}
JSON
echo '{"5": [0, 2, 4, 6], "6": [1, 3, 5, 7]}' >"$WORK/groups8.json"
printf 'topology: [ FullyConnected ]\nnpus_count: [ 8 ]\nbandwidth: [ 50.0 ]\nlatency: [ 500.0 ]\n' >"$WORK/net8.yml"
for ct in 0:15608 2:21608 7:7824; do
  for r in 0 1 2 3 4 5 6 7; do
    python3 - "$r" "${ct%%:*}" "$WORK/d.$r.json" <<'PY'
import json, sys
rank, comm_type, path = int(sys.argv[1]), sys.argv[2], sys.argv[3]
node = {"id": "1", "name": "c", "type": "COMM_COLL_NODE",
        "attr": [{"name": "comm_type", "int64Val": comm_type}, {"name": "comm_size", "int64Val": "1048576"},
                 {"name": "pg_name", "stringVal": "5" if rank % 2 == 0 else "6"}]}
json.dump({"globalMetadata": {"version": "0.0.4"}, "nodes": [node]}, open(path, "w"))
PY
    "$SNR" et unjsonize "$WORK/d.$r.json" -o "$WORK/d.$r.et" >/dev/null
  done
  "$SNR" sim --workload-configuration="$WORK/d" --system-configuration="$WORK/direct.json" \
    --network-configuration="$WORK/net8.yml" \
    --remote-memory-configuration="$DATA/astra-sim/remote_memory/analytical/no_memory_expansion.json" \
    --comm-group-configuration="$WORK/groups8.json" >"$WORK/d.txt"
  expect_contains "$WORK/d.txt" "sys[0] finished, ${ct##*:} cycles"
done
echo PASS
