#!/usr/bin/env bash
# Issue 18, snr sim as an ASTRA-sim drop-in, each observed case reproduced:
# network numbers out of range, rank-count mismatches, duplicate YAML keys,
# a single-rank trace, --comm-group-configuration=empty, dangling
# dependencies (strict default, counted tolerant mode), ASTRA-sim's other
# options (the scales implemented, the rest accepted at their defaults or
# refused with the reason) and its system keys snr does not model.
source "$(dirname "$0")/lib.sh"
A="$DATA/astra-sim"
[[ -d "$A" ]] || { echo "SKIP: $A not present"; exit 77; }
SYS="$A/system/native_collectives/Ring_4chunks.json"
MEM="$A/remote_memory/analytical/no_memory_expansion.json"
AR4="$A/workload/microbenchmarks/all_reduce/4npus_1MB/all_reduce"

sim() {  # WORKLOAD NETWORK [options...]
  "$SNR" sim --workload-configuration="$1" --system-configuration="$SYS" --network-configuration="$2" \
    --remote-memory-configuration="$MEM" "${@:3}"
}
ring() {  # NPUS BANDWIDTH [LATENCY]
  printf 'topology: [ Ring ]\nnpus_count: [ %s ]\nbandwidth: [ %s ]\nlatency: [ %s ]\n' "$1" "$2" "${3:-500.0}" \
    >"$WORK/net.yml"
  echo "$WORK/net.yml"
}

# The reference result every accepted variant below must keep.
sim "$AR4" "$A/network/analytical/Ring_4npus.yml" >"$WORK/ref.txt"
expect_contains "$WORK/ref.txt" "sys[3] finished, 43000 cycles"

# --- bandwidth outside 10^-4 .. 10^6 GB/s: 1e-15 used to finish in 1,720 ns ---
for bw in 1e-15 1e-300 1e-12 0 -50 1e30 1e400 .nan; do
  expect_fail sim "$AR4" "$(ring 4 "$bw")" -o "$WORK/bw_out"
  expect_contains "$WORK/expect_fail.out" "net.yml: key 'bandwidth' entry 0 = $bw is out of range (line 3): valid 0.0001 .. 1e+06 GB/s"
  [[ ! -e "$WORK/bw_out" ]] || fail "output written for bandwidth $bw"
done
for lat in -1 1e10; do
  expect_fail sim "$AR4" "$(ring 4 50 "$lat")"
  expect_contains "$WORK/expect_fail.out" "key 'latency' entry 0 = $lat is out of range (line 4): valid 0 .. 1e+09 ns"
done
for n in 0 -4 2.5 1e9; do
  expect_fail sim "$AR4" "$(ring "$n" 50)"
  expect_contains "$WORK/expect_fail.out" "key 'npus_count' entry 0"
done
sim "$AR4" "$(ring 4 50.0)" | cmp - "$WORK/ref.txt" || fail "a valid network no longer gives the reference"

# --- rank count vs npus_count: 4 ranks on 2 NPUs used to simulate 2 ---------
expect_fail sim "$AR4" "$(ring 2 50)"
expect_contains "$WORK/expect_fail.out" "4 rank files, but the network configuration has 2 NPUs (the product of npus_count)"
expect_contains "$WORK/expect_fail.out" "all_reduce.2.et has no NPU to run on"
expect_fail sim "$A/workload/microbenchmarks/all_reduce/8npus_1MB/all_reduce" "$(ring 4 50)"
expect_contains "$WORK/expect_fail.out" "8 rank files, but the network configuration has 4 NPUs"
expect_fail sim "$AR4" "$A/network/analytical/Ring_8npus.yml"
expect_contains "$WORK/expect_fail.out" "has 8 NPUs (the product of npus_count); missing: "
expect_contains "$WORK/expect_fail.out" "all_reduce.4.et"

# --- duplicate keys in the network YAML: the last used to win silently ------
{ cat "$A/network/analytical/Ring_4npus.yml"; echo "bandwidth: [ 1e-15 ]"; } >"$WORK/dup.yml"
expect_fail sim "$AR4" "$WORK/dup.yml"
expect_contains "$WORK/expect_fail.out" "dup.yml:5: duplicate key 'bandwidth' (first at line 3)"
for backend in analytical-congestion-aware analytical-congestion-unaware; do
  expect_fail sim "$AR4" "$WORK/dup.yml" --network-backend=$backend
  expect_contains "$WORK/expect_fail.out" "duplicate key 'bandwidth'"
done

# --- a single-rank trace (a converted one-GPU PyTorch trace) runs on 1 NPU --
"$SNR" et link --host "$DATA/pytorch/hta/benchmark_simple_add_et.json.gz" \
  --device "$DATA/pytorch/hta/benchmark_simple_add_trace.json.gz" -o "$WORK/hta.json" >/dev/null
"$SNR" et convert "$WORK/hta.json" -o "$WORK/hta" >/dev/null
sim "$WORK/hta" "$(ring 1 50)" >"$WORK/one.txt"
expect_contains "$WORK/one.txt" "sys[0] finished, 19671845000 cycles"
[[ $(grep -c " finished, " "$WORK/one.txt") == 1 ]] || fail "one NPU expected"
# ASTRA-sim's statistics lines after it: a PyTorch step's CPU, GPU and communication time.
expect_contains "$WORK/one.txt" "sys[0], Wall time: 19671845000"
expect_contains "$WORK/one.txt" "sys[0], CPU time: "
printf 'topology: [ Ring, Switch ]\nnpus_count: [ 1, 4 ]\nbandwidth: [ 50, 50 ]\nlatency: [ 5, 5 ]\n' >"$WORK/net2.yml"
expect_fail sim "$AR4" "$WORK/net2.yml"
expect_contains "$WORK/expect_fail.out" "a dimension of one NPU is valid only as the only dimension"

# --- --comm-group-configuration=empty is ASTRA-sim's own default: no groups --
sim "$AR4" "$A/network/analytical/Ring_4npus.yml" --comm-group-configuration=empty | cmp - "$WORK/ref.txt" ||
  fail "--comm-group-configuration=empty changed the result"

# --- pg_name "0" is every NPU even where the group file has a group "0" -----
# (ASTRA-sim decides "" and "0" before it reads the file): the reference
# all-reduce with pg_name "0" and a group "0" of two NPUs runs on all four,
# with a note.
python3 - "$WORK/pg0" <<'PY'
import json, sys
node = {"id": "0", "name": "all_reduce_1MB", "type": "COMM_COLL_NODE",
        "attr": [{"name": "is_cpu_op", "boolVal": False}, {"name": "comm_type", "int64Val": "0"},
                 {"name": "comm_size", "int64Val": "1048576"}, {"name": "pg_name", "stringVal": "0"}]}
json.dump({"globalMetadata": {"version": "0.0.4"}, "nodes": [node]}, open(sys.argv[1] + ".json", "w"))
PY
for rank in 0 1 2 3; do "$SNR" et unjsonize "$WORK/pg0.json" -o "$WORK/pg0.$rank.et" >/dev/null; done
echo '{"0": [0, 1]}' >"$WORK/groups0.json"
sim "$WORK/pg0" "$A/network/analytical/Ring_4npus.yml" --comm-group-configuration="$WORK/groups0.json" \
  >"$WORK/pg0.out" 2>&1
expect_contains "$WORK/pg0.out" "sys[3] finished, 43000 cycles"
expect_contains "$WORK/pg0.out" "communicator group '0' is not the 4 NPUs in order (it lists 2)"

# --- dangling dependencies: Chakra's own feeder-test trace -------------------
if [[ -f "$DATA/chakra/feeder_tests_trace.tar.gz" ]]; then
  mkdir -p "$WORK/feeder"
  tar -xzf "$DATA/chakra/feeder_tests_trace.tar.gz" -C "$WORK/feeder" 2>/dev/null
  expect_fail sim "$WORK/feeder/tests/data/chakra" "$(ring 1 50)"
  expect_contains "$WORK/expect_fail.out" "chakra.0.et: node 216: depends on node 3, which is not in the trace (--dangling-dependencies=ignore drops such dependencies and counts them)"
  # Tolerant: its 1,277 dangling control dependencies are dropped; the trace
  # then stops at its first collective record, a CPU-side c10d::broadcast_
  # without comm_type or comm_size, which no simulator can run.
  expect_fail sim "$WORK/feeder/tests/data/chakra" "$(ring 1 50)" --dangling-dependencies=ignore
  expect_contains "$WORK/expect_fail.out" "node 432: collective without comm_type"
fi
# The tolerant result: the 4-NPU all-reduce with a dependency on a missing
# node added on every rank finishes exactly as the original, and the dropped
# dependencies are counted.
for r in 0 1 2 3; do
  "$SNR" et jsonize "$AR4.$r.et" -o "$WORK/j.$r.json" >/dev/null
  python3 - "$WORK/j.$r.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
doc["nodes"][0].setdefault("ctrlDeps", []).append("987654")
json.dump(doc, open(sys.argv[1], "w"))
PY
  "$SNR" et unjsonize "$WORK/j.$r.json" -o "$WORK/dangling.$r.et" >/dev/null
done
expect_fail sim "$WORK/dangling" "$A/network/analytical/Ring_4npus.yml"
expect_contains "$WORK/expect_fail.out" "depends on node 987654, which is not in the trace"
sim "$WORK/dangling" "$A/network/analytical/Ring_4npus.yml" --dangling-dependencies=ignore -o "$WORK/dangling_out" \
  >"$WORK/dangling.txt" 2>"$WORK/dangling.err"
cmp "$WORK/dangling.txt" "$WORK/ref.txt" || fail "dropping the dangling dependencies changed the result"
expect_contains "$WORK/dangling.err" "4 dependencies on nodes not in their trace were dropped"
expect_contains "$WORK/dangling_out/summary.json" '"dangling_dependencies_dropped": 4'
expect_fail sim "$AR4" "$A/network/analytical/Ring_4npus.yml" --dangling-dependencies=drop

# --- ASTRA-sim's other options ------------------------------------------------
# At ASTRA-sim's defaults, every option is accepted and changes nothing.
sim "$AR4" "$A/network/analytical/Ring_4npus.yml" --num-queues-per-dim=1 --compute-scale=1 --comm-scale=1 \
  --injection-scale=1 --rendezvous-protocol=false --logging-configuration=empty --logging-folder=log |
  cmp - "$WORK/ref.txt" || fail "ASTRA-sim's default options changed the result"
# --comm-scale multiplies communication sizes: the same as a trace of twice the size.
for r in 0 1 2 3; do
  "$SNR" et jsonize "$AR4.$r.et" -o "$WORK/c.$r.json" >/dev/null
  python3 - "$WORK/c.$r.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
for node in doc["nodes"]:
    for attr in node.get("attr", []):
        if attr["name"] == "comm_size":
            key = [k for k in attr if k.endswith("Val")][0]
            attr[key] = str(int(attr[key]) * 2)
json.dump(doc, open(sys.argv[1], "w"))
PY
  "$SNR" et unjsonize "$WORK/c.$r.json" -o "$WORK/double.$r.et" >/dev/null
done
sim "$WORK/double" "$A/network/analytical/Ring_4npus.yml" >"$WORK/double.txt"
sim "$AR4" "$A/network/analytical/Ring_4npus.yml" --comm-scale=2 | cmp - "$WORK/double.txt" ||
  fail "--comm-scale 2 differs from a trace of twice the size"
cmp -s "$WORK/double.txt" "$WORK/ref.txt" && fail "--comm-scale had no effect"
# --injection-scale multiplies endpoint-delay (ASTRA-sim): the same as endpoint-delay 25.
sed 's/"endpoint-delay": 10/"endpoint-delay": 25/' "$SYS" >"$WORK/ep25.json"
"$SNR" sim --workload-configuration="$AR4" --system-configuration="$WORK/ep25.json" \
  --network-configuration="$A/network/analytical/Ring_4npus.yml" --remote-memory-configuration="$MEM" >"$WORK/ep25.txt"
sim "$AR4" "$A/network/analytical/Ring_4npus.yml" --injection-scale=2.5 | cmp - "$WORK/ep25.txt" ||
  fail "--injection-scale 2.5 differs from endpoint-delay 25"
# --compute-scale multiplies compute durations: the one-NPU compute-only trace takes twice as long.
sim "$WORK/hta" "$(ring 1 50)" --compute-scale=2 >"$WORK/one2.txt"
expect_contains "$WORK/one2.txt" "sys[0] finished, 39343690000 cycles"
for bad in "--compute-scale=-1" "--compute-scale=nan" "--comm-scale=0" "--injection-scale=1e9"; do
  status=0
  sim "$AR4" "$A/network/analytical/Ring_4npus.yml" "$bad" >"$WORK/bad.txt" 2>&1 || status=$?
  ((status == 2)) || { cat "$WORK/bad.txt" >&2; fail "$bad: exit $status, expected the usage error 2"; }
done
# Not modelled: ASTRA-sim's default accepted, anything else refused with the reason.
expect_fail sim "$AR4" "$A/network/analytical/Ring_4npus.yml" --num-queues-per-dim=2
expect_contains "$WORK/expect_fail.out" "--num-queues-per-dim 2: not modelled by snr"
expect_fail sim "$AR4" "$A/network/analytical/Ring_4npus.yml" --rendezvous-protocol
expect_contains "$WORK/expect_fail.out" "--rendezvous-protocol: not modelled by snr"
echo '{}' >"$WORK/logging.json"
sim "$AR4" "$A/network/analytical/Ring_4npus.yml" --logging-configuration="$WORK/logging.json" \
  >"$WORK/log.txt" 2>"$WORK/log.err"
cmp "$WORK/log.txt" "$WORK/ref.txt" || fail "--logging-configuration changed the result"
expect_contains "$WORK/log.err" "accepted for compatibility and not applied"
expect_fail sim "$AR4" "$A/network/analytical/Ring_4npus.yml" --logging-configuration="$WORK/missing.json"

# --- ASTRA-sim system keys snr does not model; typos stay unknown keys -------
for key in L o g G local-reduction-delay; do
  sed "s/\"boost-mode\": 0/\"$key\": 0/" "$SYS" >"$WORK/key.json"
  expect_fail "$SNR" sim --workload-configuration="$AR4" --system-configuration="$WORK/key.json" \
    --network-configuration="$A/network/analytical/Ring_4npus.yml" --remote-memory-configuration="$MEM"
  expect_contains "$WORK/expect_fail.out" "key.json: known ASTRA-sim key, not modelled by snr: $key (a parameter of ASTRA-sim's shared memory-bus"
done
sed 's/"LIFO"/"EXPLICIT"/' "$SYS" >"$WORK/explicit.json"
expect_fail "$SNR" sim --workload-configuration="$AR4" --system-configuration="$WORK/explicit.json" \
  --network-configuration="$A/network/analytical/Ring_4npus.yml" --remote-memory-configuration="$MEM"
expect_contains "$WORK/expect_fail.out" "known ASTRA-sim key, not modelled by snr: scheduling-policy EXPLICIT"
sed 's/"boost-mode": 0/"local-reduction-dealy": 0/' "$SYS" >"$WORK/typo.json"
expect_fail "$SNR" sim --workload-configuration="$AR4" --system-configuration="$WORK/typo.json" \
  --network-configuration="$A/network/analytical/Ring_4npus.yml" --remote-memory-configuration="$MEM"
expect_contains "$WORK/expect_fail.out" "unknown key 'local-reduction-dealy'"
echo PASS
