# snr et link / snr et convert on the real PyTorch traces in ../shared/data.
# Expected numbers were read off the inputs with python/jq; comments say how.
source "$(dirname "$0")/lib.sh"
if [[ ! -d "$DATA/pytorch" || ! -d "$DATA/chakra" ]]; then
  echo "SKIP: shared data (../shared/data/pytorch, ../shared/data/chakra) not present"
  exit 0
fi

# summary.py FILE.et -> "type=count ..." plus per-node lines "id type dur data ctrl attrs"
summarize() {
  "$SNR" et jsonize "$1" -o "$WORK/summary.json" >/dev/null
  python3 - "$WORK/summary.json" <<'PY'
import collections, json, sys
doc = json.load(open(sys.argv[1]))
nodes = doc["nodes"]
counts = collections.Counter(n.get("type", "INVALID_NODE") for n in nodes)
print("types", " ".join(f"{k}={v}" for k, v in sorted(counts.items())))
for n in nodes:
    attrs = {}
    for a in n.get("attr", []):
        value = [v for k, v in a.items() if k.endswith("Val")]
        attrs[a["name"]] = value[0] if value else None
    print("node", n["id"], n.get("type"), n.get("durationMicros", "0"),
          ",".join(n.get("dataDeps", [])), ",".join(n.get("ctrlDeps", [])),
          json.dumps(attrs, sort_keys=True), n["name"])
PY
}

# --- HTA benchmark_simple_add: schema 1.0.1 ET + Kineto (µs) -------------------
"$SNR" et link --host "$DATA/pytorch/hta/benchmark_simple_add_et.json.gz" \
  --device "$DATA/pytorch/hta/benchmark_simple_add_trace.json.gz" -o "$WORK/hta.json" >"$WORK/link.out"
# 36 ops (38 nodes minus process/thread roots), all joined on External id.
expect_contains "$WORK/link.out" "host ops: 36 = 36 matched"
expect_contains "$WORK/link.out" "gpu activities: 4 = 4 linked"
"$SNR" et convert "$WORK/hta.json" -o "$WORK/hta" >"$WORK/convert.out"
expect_contains "$WORK/convert.out" "nodes: 10 CPU ops, 4 GPU ops, 0 COMM_COLL"
"$SNR" et validate "$WORK/hta.0.et" >"$WORK/validate.out"
expect_contains "$WORK/validate.out" "0 error(s), 0 warning(s)"
summarize "$WORK/hta.0.et" >"$WORK/hta.txt"
expect_contains "$WORK/hta.txt" "types COMP_NODE=14"
# aten::add (id 36, Kineto External id 22, dur 199 µs) waits for the uniform_
# kernel 60 because of the cudaDeviceSynchronize before it; its own kernel 61
# (correlation 53, dur 3 µs) is launched by it and follows kernel 60 on stream 7.
expect_contains "$WORK/hta.txt" 'node 36 COMP_NODE 199 4,9,26,60  {"is_cpu_op": true} aten::add'
expect_contains "$WORK/hta.txt" 'node 61 COMP_NODE 3 60 36 {"is_cpu_op": false} void at::native::vectorized_elementwise_kernel'

# Same inputs, same bytes.
"$SNR" et convert "$WORK/hta.json" -o "$WORK/again" >/dev/null
cmp "$WORK/hta.0.et" "$WORK/again.0.et" || fail "conversion is not deterministic"
"$SNR" et link --host "$DATA/pytorch/hta/benchmark_simple_add_et.json.gz" \
  --device "$DATA/pytorch/hta/benchmark_simple_add_trace.json.gz" -o "$WORK/hta2.json" >/dev/null
cmp "$WORK/hta.json" "$WORK/hta2.json" || fail "linking is not deterministic"

# --- Chakra's 1.0.2-chakra.0.0.4 host trace (2 ranks' all_gather, host only) ----
tar -xzf "$DATA/chakra/1.0.2-chakra.0.0.4.tgz" -C "$WORK" 2>/dev/null
"$SNR" et convert "$WORK/1.0.2-chakra.0.0.4.json" -o "$WORK/c102" --rank 1 >"$WORK/convert.out"
# 20 record_param_comms: 10 "all_gather" (-> COMM_COLL) and 10 "wait" (-> CPU op).
expect_contains "$WORK/convert.out" "10 COMM_COLL"
expect_contains "$WORK/convert.out" "10 collective->wait"
"$SNR" et validate "$WORK/c102.1.et" >/dev/null
summarize "$WORK/c102.1.et" >"$WORK/c102.txt"
expect_contains "$WORK/c102.txt" "types COMM_COLL_NODE=10 COMP_NODE=110 METADATA_NODE=1"
# record_param_comms id 30: inputs [[tensor of shape [1], float]], seq 12,
# group 82149104 (= backend_id of pg_name "0" in ## process_group:init ##),
# "all_gather" -> ALL_GATHER (2), 4 bytes. It reads tensor 14 made by aten::to
# (id 11) and follows CPU op 27 on the thread; the wait (id 40, seq 12) depends on it.
expect_contains "$WORK/c102.txt" 'node 30 COMM_COLL_NODE 0 11,27 '
expect_contains "$WORK/c102.txt" '{"comm_size": "4", "comm_type": "2", "is_cpu_op": false, "pg_name": "0"} record_param_comms'
grep -q '^node 40 COMP_NODE 0 .*30' "$WORK/c102.txt" || fail "wait 40 does not depend on all_gather 30"
[[ "$(grep -c '"comm_type": "2"' "$WORK/c102.txt")" == 10 ]] || fail "expected 10 ALL_GATHER nodes"

# Process groups from "## process_group:init ##": pg_name "0" with "ranks": []
# and group_size 2 is the world group -> ranks 0 and 1.
# It goes into the trace as the METADATA node snr sim reads (and ASTRA-sim),
# with the id after the largest (296).
expect_contains "$WORK/convert.out" "process groups: '0' (2 ranks, described by process_group:init) -> each rank's trace (process_group:init) and $WORK/c102.comm_groups.json"
python3 -c 'import json,sys; assert json.load(open(sys.argv[1])) == {"0": [0, 1]}' "$WORK/c102.comm_groups.json"
expect_contains "$WORK/c102.txt" "node 297 METADATA_NODE 0   {} ## process_group:init ##"

# No root "rank": the rank field of the collective records says it (0 here;
# rewritten to 1 in a copy), and the output says where the rank came from.
"$SNR" et convert "$WORK/1.0.2-chakra.0.0.4.json" -o "$WORK/c102auto" >"$WORK/convert.out"
expect_contains "$WORK/convert.out" "rank: 0 (inferred: the rank field of 10 collective record(s))"
[[ -e "$WORK/c102auto.0.et" ]] || fail "inferred rank 0 not used for the file name"
python3 - "$WORK/1.0.2-chakra.0.0.4.json" "$WORK/c102_rank1.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
for node in doc["nodes"]:
    if node["name"] == "record_param_comms":
        values, types = node["inputs"]["values"], node["inputs"]["types"]
        name_at = types.index("String")
        values[name_at - 1] = 1  # the rank field, right before the collective's name
json.dump(doc, open(sys.argv[2], "w"))
PY
"$SNR" et convert "$WORK/c102_rank1.json" -o "$WORK/c102r1" >"$WORK/convert.out"
expect_contains "$WORK/convert.out" "rank: 1 (inferred: the rank field of 10 collective record(s))"
[[ -e "$WORK/c102r1.1.et" ]] || fail "inferred rank 1 not used for the file name"

# --- param pt2_et: schema 1.1.1 with Triton kernels (host only) -----------------
tar -xzf "$DATA/pytorch/param/pt2_et.json.tar.gz" -C "$WORK" 2>/dev/null
"$SNR" et convert "$WORK/pt2_et.json" -o "$WORK/pt2" >"$WORK/convert.out"
summarize "$WORK/pt2.0.et" >"$WORK/pt2.txt"
# 20 nodes: roots and "## LOOP n ##"/ProfilerStep/CompiledFunction scopes are
# looked through; 2 x (Dynamo lookup, Pregraph bytecode, AOT prologue, aten::mm, triton kernel op).
expect_contains "$WORK/pt2.txt" "types COMP_NODE=10"
[[ "$(grep -c ' triton_poi_fused_add_cos_neg_sin_0$' "$WORK/pt2.txt")" == 2 ]] || fail "triton ops missing"

# --- param linear: 1.0.1 ET with a many-iteration Kineto trace -------------------
"$SNR" et link --host "$DATA/pytorch/param/linear_et.json.gz" \
  --device "$DATA/pytorch/param/linear_kineto.json.gz" -o "$WORK/linear.json" >"$WORK/link.out"
expect_contains "$WORK/link.out" "kineto cpu ops: 37078"
expect_contains "$WORK/link.out" "gpu activities: 10356"
"$SNR" et convert "$WORK/linear.json" -o "$WORK/linear" >/dev/null
"$SNR" et validate "$WORK/linear.0.et" >"$WORK/validate.out"
expect_contains "$WORK/validate.out" "0 error(s), 0 warning(s)"

# --- bad input: clear errors, no output left behind ------------------------------
printf '{"nodes": [ {"id": 1,, }]}' >"$WORK/broken.json"
expect_fail "$SNR" et convert "$WORK/broken.json" -o "$WORK/broken"
expect_contains "$WORK/expect_fail.out" "broken.json: line 1, column 23 (byte 22)"
[[ ! -e "$WORK/broken.0.et" ]] || fail "a failed conversion left an output file"
expect_fail "$SNR" et link --host "$WORK/broken.json" \
  --device "$DATA/pytorch/hta/benchmark_simple_add_trace.json.gz" -o "$WORK/broken_linked.json"
[[ ! -e "$WORK/broken_linked.json" ]] || fail "a failed link left an output file"
expect_fail "$SNR" et link --host "$WORK/hta.json" \
  --device "$DATA/pytorch/hta/benchmark_simple_add_trace.json.gz" -o "$WORK/twice.json"
expect_contains "$WORK/expect_fail.out" "already linked"
printf '{"nodes": [{"id": "x"}, {"id": 5, "name": "aten::relu"}]}' >"$WORK/skips.json"
"$SNR" et convert "$WORK/skips.json" -o "$WORK/skips" >"$WORK/convert.out"
expect_contains "$WORK/convert.out" "1 bad record(s) skipped (first: record 0: no non-negative integer \"id\")"
echo "et convert (pytorch) ok"
