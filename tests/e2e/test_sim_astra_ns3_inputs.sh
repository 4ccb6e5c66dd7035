#!/usr/bin/env bash
# ASTRA-sim's ns-3 run script, unchanged but for the binary: its fork's
# config.txt (naming ../../scratch/topology/... relative to build/scratch),
# the topology file and --logical-topology-configuration, run on snr's ns-3
# backend. The result equals the same network written as snr's own ns-3
# configuration; the fork's RDMA settings are named in a note; what snr
# cannot model (lossy links, links taken down) and misuse are errors.
source "$(dirname "$0")/lib.sh"
require_data astra-sim
A="$DATA/astra-sim"
if ! "$SNR" version --json | grep -q '"ns3"'; then echo "SKIP: snr built without ns-3"; exit 77; fi
SYS="$A/system/native_collectives/Ring_4chunks.json"
MEM="$A/remote_memory/analytical/no_memory_expansion.json"
AR8="$A/workload/microbenchmarks/all_reduce/8npus_1MB/all_reduce"

# The fork's layout.
NS3="$WORK/extern/network_backend/ns-3"
mkdir -p "$NS3/scratch/config" "$NS3/scratch/topology" "$NS3/build/scratch" "$WORK/examples/network/ns3"
{
  echo "9 1 8"
  echo "8"
  for n in 0 1 2 3 4 5 6 7; do echo "8 $n 400Gbps 0.0005ms 0"; done
} >"$NS3/scratch/topology/8_nodes_1_switch_topology.txt"
cat >"$NS3/scratch/config/config_clos.txt" <<'TXT'
ENABLE_QCN 1
USE_DYNAMIC_PFC_THRESHOLD 1

PACKET_PAYLOAD_SIZE 1000

TOPOLOGY_FILE ../../scratch/topology/8_nodes_1_switch_topology.txt
FLOW_FILE ../../scratch/output/flow.txt
TRACE_FILE ../../scratch/output/trace.txt
FCT_OUTPUT_FILE ../../scratch/output/fct.txt
SIMULATOR_STOP_TIME 40000000000000.00

CC_MODE 12
RATE_AI 50Mb/s
ERROR_RATE_PER_LINK 0.0000
LINK_DOWN 0 0 0
KMAX_MAP 2 25000000000 400 400000000000 3200
BUFFER_SIZE 32
TXT
echo '{"logical-dims": ["8"]}' >"$WORK/examples/network/ns3/sample_8nodes_1D.json"

sim() {  # NETWORK [options...]
  "$SNR" sim --workload-configuration="$AR8" --system-configuration="$SYS" --network-configuration="$1" \
    --remote-memory-configuration="$MEM" --network-backend=ns3 "${@:2}"
}
# As the run script does it: from build/scratch.
(cd "$NS3/build/scratch" &&
  sim "$NS3/scratch/config/config_clos.txt" \
    --logical-topology-configuration="$WORK/examples/network/ns3/sample_8nodes_1D.json" -o "$WORK/out" \
    >"$WORK/astra.txt" 2>"$WORK/astra.err")
expect_contains "$WORK/astra.txt" "sys[7] finished"
expect_contains "$WORK/astra.err" "5 RDMA transport settings of ASTRA-sim's ns-3 fork (ENABLE_QCN, USE_DYNAMIC_PFC_THRESHOLD, CC_MODE, RATE_AI"
expect_contains "$WORK/astra.err" "KMAX_MAP) are not modelled"
# The same network in snr's own ns-3 configuration: the same result.
{
  echo "npus: 8"
  echo "switches: 1"
  echo "links:"
  for n in 0 1 2 3 4 5 6 7; do echo "  - [8, $n, 400, 500]"; done
  echo "packet_payload_bytes: 1000"
  echo "port_queue_bytes: 33554432"
  echo "logical_dims: [8]"
} >"$WORK/own.yaml"
sim "$WORK/own.yaml" >"$WORK/own.txt"
cmp "$WORK/astra.txt" "$WORK/own.txt" || fail "ASTRA-sim's ns-3 inputs and snr's own configuration differ"
# The translation is kept beside the results, and a re-run reads it.
expect_contains "$WORK/out/network.ns3.yaml" "Read from ASTRA-sim's ns-3 inputs"
expect_contains "$WORK/out/inputs.json" "network.ns3.yaml"
"$SNR" et critical-path "$WORK/out" >"$WORK/cp.txt"
expect_contains "$WORK/cp.txt" "critical path"
# Without the logical topology: one dimension of every NPU (the same here).
(cd "$NS3/build/scratch" && sim "$NS3/scratch/config/config_clos.txt" 2>/dev/null) | cmp - "$WORK/own.txt" ||
  fail "without --logical-topology-configuration the run differs"

# What snr cannot model, and misuse, are errors that say so.
sed 's/LINK_DOWN 0 0 0/LINK_DOWN 1000 8 3/' "$NS3/scratch/config/config_clos.txt" >"$NS3/scratch/config/down.txt"
expect_fail sim "$NS3/scratch/config/down.txt"
expect_contains "$WORK/expect_fail.out" "LINK_DOWN: only \"0 0 0\" (no link taken down) is modelled"
echo '{"logical-dims": ["4", "4"]}' >"$WORK/dims16.json"
expect_fail sim "$NS3/scratch/config/config_clos.txt" --logical-topology-configuration="$WORK/dims16.json"
expect_contains "$WORK/expect_fail.out" "the logical dimensions [4, 4] hold 16 NPUs, the topology only 8"
# Fewer NPUs than hosts (ASTRA-sim's 16-NPU scripts on its 128-host Clos):
# NPU i on node i, the other hosts idle.
"$SNR" et generate --pattern allreduce --npus 4 --layers 1 -o "$WORK/ar4" >/dev/null
echo '{"logical-dims": ["4"]}' >"$WORK/dims4.json"
(cd "$NS3/build/scratch" && "$SNR" sim --workload-configuration="$WORK/ar4" --system-configuration="$SYS" \
  --network-configuration="$NS3/scratch/config/config_clos.txt" --remote-memory-configuration="$MEM" \
  --network-backend=ns3 --logical-topology-configuration="$WORK/dims4.json" >"$WORK/four.txt" 2>"$WORK/four.err")
expect_contains "$WORK/four.txt" "sys[3] finished"
expect_contains "$WORK/four.err" "the logical dimensions hold 4 NPUs: hosts 4..7 of the topology's 8 run none"
expect_fail "$SNR" sim --workload-configuration="$AR8" --system-configuration="$SYS" \
  --network-configuration="$NS3/scratch/config/config_clos.txt" --remote-memory-configuration="$MEM"
expect_contains "$WORK/expect_fail.out" "is ASTRA-sim's ns-3 network configuration: run it with --network-backend ns3"
expect_fail sim "$WORK/own.yaml" --logical-topology-configuration="$WORK/examples/network/ns3/sample_8nodes_1D.json"
expect_contains "$WORK/expect_fail.out" "--logical-topology-configuration goes with ASTRA-sim's ns-3 network configuration"
sed 's#TOPOLOGY_FILE .*#TOPOLOGY_FILE ../../scratch/topology/missing.txt#' "$NS3/scratch/config/config_clos.txt" \
  >"$NS3/scratch/config/missing.txt"
expect_fail sim "$NS3/scratch/config/missing.txt"
expect_contains "$WORK/expect_fail.out" "TOPOLOGY_FILE '../../scratch/topology/missing.txt' was not found"
echo PASS
