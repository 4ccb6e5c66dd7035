#!/usr/bin/env bash
# Real PyTorch jobs from collection to simulation with no hand edits:
# snr et link -> snr et convert (all ranks together) -> snr sim, on
#  - the DDP job in examples/pytorch/h100-ddp-gloo-2ranks (2 ranks, H100,
#    gloo: DDP's all-reduces appear only as c10d::allreduce_ ops),
#  - the 8-rank one beside it, grown to 512 ranks by snr et retarget,
#  - the one-rank NCCL DDP job beside it,
#  - the PARAM `linear` pair (../shared/data/pytorch/param, one rank),
#  - Chakra's 2-rank all_gather host trace (../shared/data/chakra) with its
#    second rank built from the first, once as recorded (process_group:init
#    describes the world group) and once as ET 1.0.1 writes it (per-rank
#    process-group pointers, no description), and as a BROADCAST job.
# Expected numbers were read off the inputs with python (comments say how).
source "$(dirname "$0")/lib.sh"
EX="$SRC/examples/pytorch"
if [[ ! -d "$DATA/pytorch" || ! -d "$DATA/chakra" || ! -d "$DATA/astra-sim" ]]; then
  echo "SKIP: shared data (../shared/data/pytorch, chakra, astra-sim) not present"
  exit 77
fi
SYS="$DATA/astra-sim/system/native_collectives/Ring_4chunks.json"
MEM="$DATA/astra-sim/remote_memory/analytical/no_memory_expansion.json"
network() {  # network NPUS -> a Ring of NPUS at 50 GB/s, 500 ns
  printf 'topology: [ Ring ]\nnpus_count: [ %s ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\n' "$1" >"$WORK/net$1.yml"
  echo "$WORK/net$1.yml"
}
sim() {  # sim PREFIX NPUS OUTDIR
  "$SNR" sim --workload-configuration "$1" --system-configuration "$SYS" \
    --network-configuration "$(network "$2")" --remote-memory-configuration "$MEM" -o "$3"
}
# column NPUS_CSV NPU FIELD -> the value
column() {
  python3 -c 'import csv,sys; print([r for r in csv.DictReader(open(sys.argv[1])) if r["npu"] == sys.argv[2]][0][sys.argv[3]])' "$@"
}

# --- DDP, 2 ranks (gloo) ---------------------------------------------------------
D="$EX/h100-ddp-gloo-2ranks"
for r in 0 1; do
  "$SNR" et link --host "$D/rank$r.host_et.json.gz" --device "$D/rank$r.kineto.json.gz" \
    -o "$WORK/ddp$r.json" >"$WORK/link$r.out"
  expect_contains "$WORK/link$r.out" "verdict: high"
done
"$SNR" et convert "$WORK/ddp0.json" "$WORK/ddp1.json" -o "$WORK/ddp" >"$WORK/convert.out"
# Each rank: DDP's two gradient buckets as c10d::allreduce_ (no record_param_comms).
[[ "$(grep -c '2 COMM_COLL' "$WORK/convert.out")" == 2 ]] || fail "expected 2 collectives per rank"
expect_contains "$WORK/convert.out" "2 c10d collective ops without record_param_comms"
# gloo's records of the two all-reduces (their execution on the host) are left out.
expect_contains "$WORK/convert.out" "2 gloo collective records left out"
expect_contains "$WORK/convert.out" "process groups: '0' (2 ranks, described by process_group:init (unused))"
"$SNR" et validate "$WORK/ddp" >"$WORK/validate.out"
expect_contains "$WORK/validate.out" "0 error(s)"
sim "$WORK/ddp" 2 "$WORK/ddp_out" >"$WORK/sim.out"
expect_contains "$WORK/sim.out" "sys[0] finished"
expect_contains "$WORK/sim.out" "sys[1] finished"
# Bucket sizes 262,656 and 6,304,768 floats: 26,269,696 bytes; a 2-NPU ring
# all-reduce sends each NPU's whole buffer once (two halves).
for r in 0 1; do
  [[ "$(column "$WORK/ddp_out/npus.csv" $r bytes_sent)" == 26269696 ]] || fail "rank $r bytes sent"
done
# Every node of both traces ran (627 and 626, the METADATA node included).
[[ "$(column "$WORK/ddp_out/npus.csv" 0 nodes_completed)" == 627 ]] || fail "rank 0 nodes"
[[ "$(column "$WORK/ddp_out/npus.csv" 1 nodes_completed)" == 626 ]] || fail "rank 1 nodes"

# --- DDP, 8 ranks (gloo), grown to 512 -------------------------------------------
D="$EX/h100-ddp-gloo-8ranks"
ranks8=()
for r in 0 1 2 3 4 5 6 7; do
  "$SNR" et link --host "$D/rank$r.host_et.json.gz" --device "$D/rank$r.kineto.json.gz" \
    -o "$WORK/ddp8_$r.json" >/dev/null
  ranks8+=("$WORK/ddp8_$r.json")
done
# Rank 0 has a gloo:all_reduce whose id is below an op that started before
# it; its sync call must not make that op wait for its own kernel.
"$SNR" et convert "${ranks8[@]}" -o "$WORK/ddp8" >"$WORK/convert.out"
expect_contains "$WORK/convert.out" "process groups: '0' (8 ranks, described by process_group:init (unused))"
# The ranks are read and converted at once (--jobs); one at a time writes
# the same traces and prints the same report, in input order.
"$SNR" et convert -j 1 "${ranks8[@]}" -o "$WORK/ddp8serial" >"$WORK/convert_serial.out"
for r in 0 1 2 3 4 5 6 7; do
  cmp "$WORK/ddp8.$r.et" "$WORK/ddp8serial.$r.et" || fail "convert -j 1 changed rank $r"
done
diff <(sed "s|$WORK/ddp8serial\.|PREFIX.|" "$WORK/convert_serial.out") <(sed "s|$WORK/ddp8\.|PREFIX.|" "$WORK/convert.out") ||
  fail "convert -j 1 printed another report"
"$SNR" et validate "$WORK/ddp8" >"$WORK/validate.out"
expect_contains "$WORK/validate.out" "0 error(s)"
# DDP's group is data-parallel: --input-tp 1. M = N is the input byte for byte.
"$SNR" et retarget "$WORK/ddp8" --input-tp 1 --npus 8 -o "$WORK/ddp8same" >/dev/null
for r in 0 1 2 3 4 5 6 7; do
  cmp "$WORK/ddp8.$r.et" "$WORK/ddp8same.$r.et" || fail "retarget at M = N changed rank $r"
done
"$SNR" et retarget "$WORK/ddp8" --input-tp 1 --npus 512 -o "$WORK/ddp512" >"$WORK/retarget.out"
expect_contains "$WORK/retarget.out" "512 ranks (tp 1, dp 512) from 8 ranks (tp 1, dp 8)"
# No comm-group file: the one data-parallel group spans every rank.
sim "$WORK/ddp8" 8 "$WORK/ddp8_out" >/dev/null
sim "$WORK/ddp512" 512 "$WORK/ddp512_out" >"$WORK/sim.out"
expect_contains "$WORK/sim.out" "sys[511] finished"
python3 - "$WORK/ddp8_out/npus.csv" "$WORK/ddp512_out/npus.csv" <<'PY'
import csv, sys
small = list(csv.DictReader(open(sys.argv[1])))
big = list(csv.DictReader(open(sys.argv[2])))
assert len(big) == 512, len(big)
# Two buckets, 26,269,696 bytes per rank; a ring all-reduce over n ranks
# sends 2 (n - 1) / n of it from each rank.
bucket_bytes = 26269696
for n, rows in ((8, small), (512, big)):
    for row in rows:
        assert int(row["bytes_sent"]) == bucket_bytes * 2 * (n - 1) // n, (n, row)
# Rank r of 512 runs the graph of rank r mod 8, every node of it.
for row in big:
    assert row["nodes_completed"] == small[int(row["npu"]) % 8]["nodes_completed"], row
# The bigger ring takes longer to reduce the same buckets.
assert int(big[0]["total_ns"]) > int(small[0]["total_ns"]), (big[0], small[0])
PY

# --- DDP, 1 rank (NCCL): record_param_comms "allreduce" on group "0" ---------------
D="$EX/h100-ddp-nccl-1rank"
"$SNR" et link --host "$D/rank0.host_et.json.gz" --device "$D/rank0.kineto.json.gz" -o "$WORK/nccl.json" >"$WORK/link.out"
# 4 cudaStreamWaitEvent calls, 2 inside matched ops; no cuda_sync event names
# their streams (the profiler did not record CUDA sync activities), so the
# converter counts them instead of guessing a dependency.
expect_contains "$WORK/link.out" "stream waits (cudaStreamWaitEvent): 4 = 2 linked (0 with both streams from cuda_sync) + 2 outside matched ops"
"$SNR" et convert "$WORK/nccl.json" -o "$WORK/nccl" >"$WORK/convert.out"
expect_contains "$WORK/convert.out" "2 COMM_COLL"
expect_contains "$WORK/convert.out" "stream waits: 0 placed across streams, 2 not placed (streams not named by the trace)"
sim "$WORK/nccl" 1 "$WORK/nccl_out" >"$WORK/sim.out"
expect_contains "$WORK/sim.out" "sys[0] finished"
[[ "$(column "$WORK/nccl_out/npus.csv" 0 bytes_sent)" == 0 ]] || fail "one rank sends nothing"

# --- PARAM linear (one rank, no communication) -----------------------------------
"$SNR" et link --host "$DATA/pytorch/param/linear_et.json.gz" \
  --device "$DATA/pytorch/param/linear_kineto.json.gz" -o "$WORK/linear.json" >/dev/null
"$SNR" et convert "$WORK/linear.json" -o "$WORK/linear" >/dev/null
sim "$WORK/linear" 1 "$WORK/linear_out" >"$WORK/sim.out"
expect_contains "$WORK/sim.out" "sys[0] finished"
python3 - "$WORK/linear_out/npus.csv" <<'PY'
import csv, sys
row = next(csv.DictReader(open(sys.argv[1])))
assert int(row["total_ns"]) > 0 and int(row["compute_ns"]) > 0, row
PY

# --- Chakra's all_gather job: rank 1 built from rank 0 ---------------------------
tar -xzf "$DATA/chakra/1.0.2-chakra.0.0.4.tgz" -C "$WORK" 2>/dev/null
# make_rank IN OUT RANK [POINTER] [OPNAME]: the rank field of every
# record_param_comms set to RANK; with POINTER, the group (two before the
# name) becomes that integer and process_group:init is removed (ET 1.0.1);
# with OPNAME, the collective is renamed.
make_rank() {
  python3 - "$@" <<'PY'
import json, sys
src, dst, rank = sys.argv[1], sys.argv[2], int(sys.argv[3])
pointer = int(sys.argv[4]) if len(sys.argv) > 4 and sys.argv[4] else None
opname = sys.argv[5] if len(sys.argv) > 5 else None
doc = json.load(open(src))
nodes = []
for node in doc["nodes"]:
    if node["name"] == "## process_group:init ##" and pointer is not None:
        continue
    if node["name"] == "record_param_comms":
        values, types = node["inputs"]["values"], node["inputs"]["types"]
        at = types.index("String")
        values[at - 1] = rank
        if pointer is not None:
            values[at - 2] = pointer
        if opname and values[at] == "all_gather":
            values[at] = opname
            # PyTorch records a rooted collective's root (0 here) where the
            # others have the recording rank; the rank is then the root's field.
            if opname in ("broadcast", "reduce", "gather", "scatter"):
                values[at - 1] = 0
                doc["rank"] = rank
    nodes.append(node)
doc["nodes"] = nodes
json.dump(doc, open(dst, "w"))
PY
}
T="$WORK/1.0.2-chakra.0.0.4.json"
make_rank "$T" "$WORK/ag0.json" 0
make_rank "$T" "$WORK/ag1.json" 1
"$SNR" et convert "$WORK/ag0.json" "$WORK/ag1.json" -o "$WORK/ag" >"$WORK/convert.out"
expect_contains "$WORK/convert.out" "process groups: '0' (2 ranks, described by process_group:init)"
sim "$WORK/ag" 2 "$WORK/ag_out" >"$WORK/sim.out"
# 10 all_gathers of 4 bytes each: a 2-NPU ring sends the 4-byte block once each.
[[ "$(column "$WORK/ag_out/npus.csv" 0 bytes_sent)" == 40 ]] || fail "all_gather bytes"

# ET 1.0.1: the group is a pointer that differs per rank and nothing describes it.
make_rank "$T" "$WORK/p0.json" 0 94594108284448
make_rank "$T" "$WORK/p1.json" 1 94398426290464
"$SNR" et convert "$WORK/p0.json" "$WORK/p1.json" -o "$WORK/ptr" >"$WORK/convert.out"
expect_contains "$WORK/convert.out" "process groups: '1' (2 ranks, by collective order and size)"
expect_contains "$WORK/convert.out" "20 communication node(s) renamed"
python3 -c 'import json,sys; assert json.load(open(sys.argv[1])) == {"1": [0, 1]}' "$WORK/ptr.comm_groups.json"
# No comm-group file: snr sim reads the groups from the traces.
sim "$WORK/ptr" 2 "$WORK/ptr_out" >"$WORK/sim.out"
cmp "$WORK/ag_out/npus.csv" "$WORK/ptr_out/npus.csv" || fail "pointer-named groups simulate differently"
# Converted one rank at a time, the pointers stay unresolved and snr sim says which.
"$SNR" et convert "$WORK/p0.json" -o "$WORK/alone" >/dev/null
"$SNR" et convert "$WORK/p1.json" -o "$WORK/alone" >/dev/null
expect_fail sim "$WORK/alone" 2 "$WORK/alone_out"
expect_contains "$WORK/expect_fail.out" "pg_name '94594108284448' is neither in the communicator-group configuration"

# BROADCAST (comm_type 5, in every DDP trace) simulates: root 0 sends to rank 1 10 times.
make_rank "$T" "$WORK/b0.json" 0 "" broadcast
make_rank "$T" "$WORK/b1.json" 1 "" broadcast
"$SNR" et convert "$WORK/b0.json" "$WORK/b1.json" -o "$WORK/bc" >/dev/null
"$SNR" et jsonize "$WORK/bc.0.et" -o "$WORK/bc.json" >/dev/null
[[ "$(grep -c '"int64Val": "5"' "$WORK/bc.json")" == 10 ]] || fail "expected 10 BROADCAST nodes"
# Each names its root (the record's rank field) as comm_src; rank 1's trace
# is rank 1 although its records say 0 (that 0 is the root).
python3 - "$WORK/bc.json" <<'PY' || fail "broadcast roots"
import json, sys
for node in json.load(open(sys.argv[1]))["nodes"]:
    attrs = {a["name"]: [v for k, v in a.items() if k != "name"][0] for a in node.get("attr", [])}
    if attrs.get("comm_type") == "5":
        assert int(attrs.get("comm_src", -1)) == 0, node
PY
[[ -e "$WORK/bc.1.et" ]] || fail "rank 1's broadcast trace was not written as rank 1"
sim "$WORK/bc" 2 "$WORK/bc_out" >"$WORK/sim.out"
# 4 bytes in 4 chunks (Ring_4chunks) is below one byte per NPU: the chunking
# rule (as for all-reduce) pads each chunk to 2 bytes, 8 bytes per broadcast.
[[ "$(column "$WORK/bc_out/npus.csv" 0 bytes_sent)" == 80 ]] || fail "broadcast root bytes"
[[ "$(column "$WORK/bc_out/npus.csv" 1 bytes_sent)" == 0 ]] || fail "broadcast leaf sends nothing"
# --- Other models, PyTorch 2.11 on an H200: a CNN under bf16 autocast (NCCL, 1 rank),
# a Transformer under torch.compile (NCCL, 1 rank), a CNN on 2 ranks (gloo) -------
for set in h200-cnn-bf16-nccl-1rank h200-transformer-compiled-nccl-1rank h200-cnn-gloo-2ranks; do
  D="$EX/$set"
  ranks=()
  for host in "$D"/rank*.host_et.json.gz; do
    r=${host##*/rank}; r=${r%%.*}
    "$SNR" et link --host "$host" --device "$D/rank$r.kineto.json.gz" -o "$WORK/$set.$r.json" >"$WORK/link.out"
    expect_contains "$WORK/link.out" "verdict: high"
    # Every GPU activity reaches a host op: "gpu activities: N = N linked + 0 ...".
    grep -Eq '^gpu activities: ([0-9]+) = \1 linked ' "$WORK/link.out" || fail "$set rank $r: GPU activities left unlinked"
    ranks+=("$WORK/$set.$r.json")
  done
  "$SNR" et convert "${ranks[@]}" -o "$WORK/$set" >"$WORK/convert.out"
  "$SNR" et validate "$WORK/$set" >"$WORK/validate.out"
  expect_contains "$WORK/validate.out" "0 error(s)"
  sim "$WORK/$set" "${#ranks[@]}" "$WORK/$set.out" >"$WORK/sim.out"
  for ((r = 0; r < ${#ranks[@]}; r++)); do
    "$SNR" et jsonize "$WORK/$set.$r.et" -o "$WORK/$set.$r.et.json" >/dev/null
    # Every node ran, and a rank sends what its collectives require on a 2-NPU
    # ring (nothing on one NPU): each all-reduce's buffer once, each broadcast's
    # buffer once from the root (rank 0).
    python3 - "$WORK/$set.$r.et.json" "$WORK/$set.out/npus.csv" "$r" "${#ranks[@]}" <<'PY' || fail "$set rank $r"
import csv, json, sys
trace, npus_csv, rank, world = json.load(open(sys.argv[1])), sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
row = [r for r in csv.DictReader(open(npus_csv)) if int(r["npu"]) == rank][0]
assert int(row["nodes_completed"]) == len(trace["nodes"]), (row, len(trace["nodes"]))
expected = 0
for node in trace["nodes"]:
    if node["type"] != "COMM_COLL_NODE" or world == 1:
        continue
    attrs = {a["name"]: a for a in node["attr"]}
    kind, size = int(attrs["comm_type"]["int64Val"]), int(attrs["comm_size"]["int64Val"])
    assert kind in (0, 5), node["name"]  # all-reduce, broadcast
    if kind == 0 or rank == 0:
        expected += size
assert int(row["bytes_sent"]) == expected, (row["bytes_sent"], expected)
PY
  done
done
echo "pytorch link -> convert -> sim ok"
