#!/usr/bin/env bash
# A BARRIER collective (Chakra comm_type 9, which snr et convert writes for
# a PyTorch barrier and Chakra's generator writes without a size) runs as
# NCCL runs a process group's barrier: an all-reduce of its comm_size, one
# byte when it has none. ASTRA-sim stops at it; snr used to refuse it.
source "$(dirname "$0")/lib.sh"
require_data astra-sim
write_traces() {  # PREFIX COMM_TYPE [COMM_SIZE]
  for r in 0 1 2 3; do
    python3 - "$1.$r.json" "$2" "${3:-}" <<'PY'
import json, sys
path, comm_type, size = sys.argv[1], sys.argv[2], sys.argv[3]
attr = [{"name": "comm_type", "int64Val": comm_type}]
if size:
    attr.append({"name": "comm_size", "int64Val": size})
nodes = [{"id": "1", "name": "sync", "type": "COMM_COLL_NODE", "attr": attr},
         {"id": "2", "name": "grad", "type": "COMM_COLL_NODE", "dataDeps": ["1"],
          "attr": [{"name": "comm_type", "int64Val": "0"}, {"name": "comm_size", "int64Val": "65536"}]}]
json.dump({"globalMetadata": {"version": "0.0.4"}, "nodes": nodes}, open(path, "w"))
PY
    "$SNR" et unjsonize "$1.$r.json" -o "$1.$r.et" >/dev/null
  done
}
sim() {  # PREFIX OUT
  "$SNR" sim --workload-configuration="$1" \
    --system-configuration="$DATA/astra-sim/system/native_collectives/Ring_4chunks.json" \
    --network-configuration="$DATA/astra-sim/network/analytical/Ring_4npus.yml" \
    --remote-memory-configuration="$DATA/astra-sim/remote_memory/analytical/no_memory_expansion.json" \
    >"$2" 2>"$2.err" || { cat "$2.err" >&2; fail "snr sim $1"; }
}
write_traces "$WORK/barrier" 9
write_traces "$WORK/one_byte" 0 1
write_traces "$WORK/sized_barrier" 9 4096
write_traces "$WORK/sized_all_reduce" 0 4096
"$SNR" et validate "$WORK/barrier" >"$WORK/validate.out" 2>&1 || { cat "$WORK/validate.out" >&2; fail "validate"; }
for t in barrier one_byte sized_barrier sized_all_reduce; do sim "$WORK/$t" "$WORK/$t.out"; done
cmp "$WORK/barrier.out" "$WORK/one_byte.out" || fail "a BARRIER without a size is not a one-byte all-reduce"
cmp "$WORK/sized_barrier.out" "$WORK/sized_all_reduce.out" || fail "a sized BARRIER is not an all-reduce of its size"
expect_contains "$WORK/barrier.out.err" "4 BARRIER collective(s) ran as all-reduces of their comm_size"
# The barrier takes time: the all-reduce after it finishes later than alone.
grep -q "sys\[0\] finished" "$WORK/barrier.out" || fail "no finish line"
# Fitting the communication model takes the barrier too, and the traces it
# samples simulate.
"$SNR" et synthesize fit "$WORK/barrier" -o "$WORK/model.json" >"$WORK/fit.out" 2>&1 \
  || { cat "$WORK/fit.out" >&2; fail "synthesize fit with a BARRIER"; }
"$SNR" et synthesize sample "$WORK/model.json" --npus 4 -o "$WORK/sampled/s" >/dev/null
sim "$WORK/sampled/s" "$WORK/sampled.out"
