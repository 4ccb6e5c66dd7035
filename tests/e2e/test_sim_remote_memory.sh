#!/usr/bin/env bash
# ASTRA-sim's analytical remote memory: MEM_LOAD / MEM_STORE nodes on the
# communication lane (a CPU op's on the CPU's), each request
# remote-mem-latency + tensor_size / remote-mem-bw; per NPU, per node of
# NPUs (one request at a time) or one pool. Four NPUs, each: compute
# (1 + rank us), a load of (rank + 1) MiB, a store of 512 KiB, an
# all-reduce of 1 MiB, a 64 KiB load after it and a last compute.
# ASTRA-sim's congestion-aware binary (snapshot 518bd51) on the same files
# gives the finish times asserted here; NO_MEMORY_EXPANSION makes it stop
# at the first such node ("not supported"), snr runs them in no time.
source "$(dirname "$0")/lib.sh"
require_data astra-sim/system/native_collectives/Ring_4chunks.json
for r in 0 1 2 3; do
  python3 - "$r" "$WORK/t.$r.json" "$WORK/u.$r.json" <<'PY'
import json, sys
rank, path, cpu_path = int(sys.argv[1]), sys.argv[2], sys.argv[3]
def mem(id_, kind, size, deps):
    return {"id": str(id_), "name": f"mem{id_}", "type": kind, "dataDeps": [str(d) for d in deps],
            "attr": [{"name": "tensor_size", "uint64Val": str(size)}]}
nodes = [{"id": "1", "name": "compute", "type": "COMP_NODE", "durationMicros": str(1 + rank)},
         mem(2, "MEM_LOAD_NODE", 1048576 * (rank + 1), [1]), mem(3, "MEM_STORE_NODE", 524288, [2]),
         {"id": "4", "name": "all_reduce", "type": "COMM_COLL_NODE",
          "attr": [{"name": "comm_type", "int64Val": "0"}, {"name": "comm_size", "int64Val": "1048576"}]},
         mem(5, "MEM_LOAD_NODE", 65536, [4]),
         {"id": "6", "name": "compute2", "type": "COMP_NODE", "durationMicros": "2", "dataDeps": ["5", "3"]}]
json.dump({"globalMetadata": {"version": "0.0.4"}, "nodes": nodes}, open(path, "w"))
nodes[2]["attr"].append({"name": "is_cpu_op", "int32Val": 1})  # the store as a CPU op
json.dump({"globalMetadata": {"version": "0.0.4"}, "nodes": nodes}, open(cpu_path, "w"))
PY
  "$SNR" et unjsonize "$WORK/t.$r.json" -o "$WORK/t.$r.et" >/dev/null
  "$SNR" et unjsonize "$WORK/u.$r.json" -o "$WORK/u.$r.et" >/dev/null
done
printf 'topology: [ Ring ]\nnpus_count: [ 4 ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\n' >"$WORK/net.yml"
echo '{"memory-type": "PER_NPU_MEMORY_EXPANSION", "remote-mem-latency": 500, "remote-mem-bw": 100}' >"$WORK/npu.json"
echo '{"memory-type": "PER_NODE_MEMORY_EXPANSION", "num-nodes": 2, "num-npus-per-node": 2,
 "remote-mem-latency": 700, "remote-mem-bw": 50}' >"$WORK/node.json"
echo '{"memory-type": "MEMORY_POOL", "remote-mem-latency": 300, "remote-mem-bw": 200}' >"$WORK/pool.json"
run() {  # workload memory-file
  "$SNR" sim --workload-configuration="$WORK/$1" \
    --system-configuration="$DATA/astra-sim/system/native_collectives/Ring_4chunks.json" \
    --network-configuration="$WORK/net.yml" --remote-memory-configuration="$2" >"$WORK/out.txt"
}
expect_finish() {  # times of NPUs 0..3
  local r=0 t
  for t in "$@"; do
    expect_contains "$WORK/out.txt" "sys[$r] finished, $t cycles"
    r=$((r + 1))
  done
}
run t "$WORK/npu.json"
expect_finish 62882 73368 83854 94340
run t "$WORK/node.json"
expect_finish 133694 135704 217580 219590
run t "$WORK/pool.json"
expect_finish 110937 111564 112191 112818
run u "$WORK/pool.json"
expect_finish 102174 105722 109270 112818

# NO_MEMORY_EXPANSION: the memory nodes take no time and no lane; each NPU
# is the all-reduce (43,000 ns, ASTRA-sim's reference on Ring 4) and the
# last compute.
run t "$DATA/astra-sim/remote_memory/analytical/no_memory_expansion.json"
expect_finish 45000 45000 45000 45000
# Nodes that do not cover the network are an error naming both counts.
echo '{"memory-type": "PER_NODE_MEMORY_EXPANSION", "num-nodes": 1, "num-npus-per-node": 2, "remote-mem-bw": 5}' \
  >"$WORK/short.json"
expect_fail run t "$WORK/short.json"
expect_contains "$WORK/expect_fail.out" "num-nodes 1 x num-npus-per-node 2 covers 2 NPUs, the network has 4"
echo PASS
