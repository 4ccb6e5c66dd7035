#!/usr/bin/env bash
# A collective on a communicator group moves data only between the group's
# members: NPUs {0, 2, 5, 7} of 8 all-reduce 1 MiB over a FullyConnected
# network and a Switch. links.csv shows traffic on the members' links
# alone, 2(n-1)/n of the buffer on each (a ring of the 4 members, in
# group order), the other NPUs finish at 0, and on FullyConnected the time
# is the 4-NPU ring's (ASTRA-sim's 43,000 ns reference).
source "$(dirname "$0")/lib.sh"
require_data astra-sim
for r in $(seq 0 7); do
  python3 - "$r" "$WORK/j.$r.json" <<'PY'
import json, sys
rank, path = int(sys.argv[1]), sys.argv[2]
nodes = []
if rank in (0, 2, 5, 7):
    nodes = [{"id": "1", "name": "ar", "type": "COMM_COLL_NODE",
              "attr": [{"name": "comm_type", "int64Val": "0"}, {"name": "comm_size", "int64Val": "1048576"},
                       {"name": "pg_name", "stringVal": "g"}]}]
json.dump({"globalMetadata": {"version": "0.0.4"}, "nodes": nodes}, open(path, "w"))
PY
  "$SNR" et unjsonize "$WORK/j.$r.json" -o "$WORK/j.$r.et" >/dev/null
done
echo '{"g": [0, 2, 5, 7]}' >"$WORK/groups.json"
for topo in FullyConnected Switch; do
  printf 'topology: [ %s ]\nnpus_count: [ 8 ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\n' "$topo" >"$WORK/net.yml"
  "$SNR" sim --workload-configuration="$WORK/j" \
    --system-configuration="$DATA/astra-sim/system/native_collectives/Ring_4chunks.json" \
    --network-configuration="$WORK/net.yml" \
    --remote-memory-configuration="$DATA/astra-sim/remote_memory/analytical/no_memory_expansion.json" \
    --comm-group-configuration="$WORK/groups.json" -o "$WORK/$topo" >"$WORK/$topo.txt"
  python3 - "$WORK/$topo/links.csv" "$topo" <<'PY' || fail "$topo: traffic outside the group or the wrong amount"
import csv, re, sys
path, topo = sys.argv[1], sys.argv[2]
members = {0, 2, 5, 7}
rows = [r for r in csv.DictReader(open(path)) if int(r["bytes"]) > 0]
expected = {"FullyConnected": {"npu0->npu2", "npu2->npu5", "npu5->npu7", "npu7->npu0"},
            "Switch": {f"npu{m}->switch(dim0)" for m in members} | {f"switch(dim0)->npu{m}" for m in members}}[topo]
assert {r["link"] for r in rows} == expected, sorted(r["link"] for r in rows)
assert all(int(r["bytes"]) == 1572864 for r in rows), rows  # 2 (4 - 1) / 4 of 1 MiB
PY
  for npu in 1 3 4 6; do expect_contains "$WORK/$topo.txt" "sys[$npu] finished, 0 cycles"; done
done
expect_contains "$WORK/FullyConnected.txt" "sys[0] finished, 43000 cycles"
echo ok
