#!/usr/bin/env bash
# NPU run data → Chakra traces (docs/formats/chakra-from-npu.md): the
# all-gather example, the default decode step and the prefill example are
# run with `snr run DIR --chakra`, the all-gather also recorded, replayed and
# exported from its run.db. Every trace validates, round-trips byte for byte
# through `et jsonize`/`unjsonize` and runs in `snr sim` on the exported
# network. A run.db of an older schema is refused with no output left.
source "$(dirname "$0")/lib.sh"

"$SNR" hw export-network --hw tpu-v4-like --chips 4 -o "$WORK/net" >/dev/null
for f in network.yml system.json remote_memory.json; do [[ -s "$WORK/net/$f" ]] || fail "net/$f missing"; done
# Every link speed `snr hw` accepts exports a network `snr sim` accepts, the
# slowest (1 MB/s) and the fastest (1 PB/s) included.
"$SNR" et generate --pattern allreduce --npus 4 --layers 1 --size 4096 -o "$WORK/ar4" >/dev/null
for bw in 1MB 1PB; do
  "$SNR" hw export-network --hw tpu-v4-like --chips 4 --set "ici.link_bandwidth=$bw/s" -o "$WORK/net_$bw" >/dev/null
  "$SNR" sim --workload-configuration="$WORK/ar4" --system-configuration="$WORK/net_$bw/system.json" \
    --network-configuration="$WORK/net_$bw/network.yml" --remote-memory-configuration="$WORK/net_$bw/remote_memory.json" \
    >"$WORK/sim_bw.out" 2>&1 || { cat "$WORK/sim_bw.out" >&2; fail "snr sim on the network exported at $bw/s"; }
  expect_contains "$WORK/sim_bw.out" "sys[3] finished"
done

check_trace() {  # PREFIX RANKS
  local prefix="$1" ranks="$2"
  "$SNR" et validate "$prefix" >"$WORK/validate.out" 2>&1 || { cat "$WORK/validate.out" >&2; fail "validate $prefix"; }
  for ((r = 0; r < ranks; r++)); do
    "$SNR" et jsonize "$prefix.$r.et" -o "$WORK/rank.json" >/dev/null
    "$SNR" et unjsonize "$WORK/rank.json" -o "$WORK/rank.et" >/dev/null
    cmp "$prefix.$r.et" "$WORK/rank.et" || fail "$prefix.$r.et does not round-trip through JSON"
  done
  [[ -e "$prefix.$ranks.et" ]] && fail "$prefix has more than $ranks ranks"
  "$SNR" sim --workload-configuration="$prefix" --system-configuration="$WORK/net/system.json" \
    --network-configuration="$WORK/net/network.yml" --remote-memory-configuration="$WORK/net/remote_memory.json" \
    >"$WORK/sim.out" 2>&1 || { cat "$WORK/sim.out" >&2; fail "snr sim on $prefix"; }
  expect_contains "$WORK/sim.out" "sys[$((ranks - 1))] finished"
}

for example in allgather llm-decode llm-prefill; do
  "$SNR" compile "$SRC/examples/$example.yaml" -o "$WORK/$example" >/dev/null
  "$SNR" run "$WORK/$example" --chakra "$WORK/$example.trace" >"$WORK/run.out" ||
    { cat "$WORK/run.out" >&2; fail "snr run --chakra $example"; }
  expect_contains "$WORK/run.out" "$WORK/$example.trace.<0..3>.et: 4 ranks"
  check_trace "$WORK/$example.trace" 4
done

# Collectives by formula: per layer, two all-reduces (a reduce-scatter and an
# all-gather each) on each of 4 ranks; the decode example has 2 layers.
"$SNR" et jsonize "$WORK/llm-decode.trace.1.et" -o "$WORK/decode1.json" >/dev/null
python3 - "$WORK/decode1.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
meta = {a["name"]: a.get("stringVal") for a in doc["globalMetadata"]["attr"]}
assert meta["source"] == "snr run compiled model", meta
assert meta["hw_preset"] == "tpu-v4-like" and meta["rank"] == "1", meta
assert len(meta["model_spec_fnv1a64"]) == 16, meta
colls = [n for n in doc["nodes"] if n.get("type") == "COMM_COLL_NODE"]
attrs = lambda n: {a["name"]: a for a in n.get("attr", [])}
types = [attrs(n)["comm_type"]["int64Val"] for n in colls]
assert len(colls) == 2 * 2 * 2, [n["name"] for n in colls]
assert types.count("7") == 4 and types.count("2") == 4, types  # REDUCE_SCATTER, ALL_GATHER
# Rows 16 x hidden 4096 x f32 = 256 KiB per chip: the reduce-scatter's size
# is the whole input, the all-gather's one member's quarter.
for n, t in zip(colls, types):
    size = int(attrs(n)["comm_size"]["int64Val"])
    assert size == (262144 if t == "7" else 65536), (n["name"], size)
# Program order: every node depends on the one before it.
for i, n in enumerate(doc["nodes"][1:], 1):
    assert n["dataDeps"] == [str(i - 1)], n
comps = [n for n in doc["nodes"] if n.get("type") == "COMP_NODE"]
qkv = [n for n in comps if n["name"] == "layer0.attn.qkv_matmul"][0]
assert int(attrs(qkv)["num_ops"]["int64Val"]) > 0 and int(attrs(qkv)["tensor_size"]["uint64Val"]) > 0, qkv
PY

# The same all-gather through record → replay → run.db → export.
start_device 120 "$WORK/allgather"
timeout 300 "$SNR" record --target "127.0.0.1:$port" --model "$WORK/allgather" --count 100000 --chips all \
  --quiet -o "$WORK/ag.snr" >"$WORK/record.out" 2>&1 || { cat "$WORK/record.out" >&2; fail "record"; }
wait "$server"
"$SNR" replay "$WORK/ag.snr" -o "$WORK/ag.db" --quiet
"$SNR" export "$WORK/ag.db" --chakra "$WORK/replayed" >"$WORK/export.out"
expect_contains "$WORK/export.out" "4 ranks"
check_trace "$WORK/replayed" 4
"$SNR" et jsonize "$WORK/replayed.0.et" -o "$WORK/replayed0.json" >/dev/null
python3 - "$WORK/replayed0.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
meta = {a["name"]: a.get("stringVal") for a in doc["globalMetadata"]["attr"]}
assert meta["source"] == "snr replay run.db" and "ag.snr" in meta["run_db_source"], meta
colls = [n for n in doc["nodes"] if n.get("type") == "COMM_COLL_NODE"]
assert [n["name"] for n in colls] == ["all_gather"], [n["name"] for n in doc["nodes"]]
names = [n["name"] for n in doc["nodes"]]
assert "all_gather.setup" in names, names
PY

# An older schema is refused, and nothing is written.
cp "$WORK/ag.db" "$WORK/old.db"
sqlite3 "$WORK/old.db" "PRAGMA user_version = 1"
expect_fail "$SNR" export "$WORK/old.db" --chakra "$WORK/old"
expect_contains "$WORK/expect_fail.out" "schema"
compgen -G "$WORK/old*.et" >/dev/null && fail "partial output after a refused run.db"
compgen -G "$WORK/.old*" >/dev/null && fail "staging left behind"
echo "ok"
