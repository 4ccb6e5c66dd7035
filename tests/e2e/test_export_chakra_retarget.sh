#!/usr/bin/env bash
# `snr et retarget` (docs/et-retarget.md): the exported decode step grows
# 4 → 64 → 1,024 ranks and an 8-NPU Chakra trace from ASTRA-sim's examples
# 8 → 512; every result runs in `snr sim` on a ring of its size. Node
# counts, collective sizes and group membership are checked by formula;
# the same layout gives the input byte for byte; impossible targets are
# refused with nothing written.
source "$(dirname "$0")/lib.sh"

"$SNR" compile "$SRC/examples/llm-decode.yaml" -o "$WORK/decode" >/dev/null
"$SNR" run "$WORK/decode" --chakra "$WORK/d4" >/dev/null

# The hardware config models up to 256 chips; larger systems are the same
# ICI links on a longer ring.
"$SNR" hw export-network --hw tpu-v4-like --chips 4 -o "$WORK/net4" >/dev/null
sim() {  # PREFIX NPUS
  mkdir -p "$WORK/net$2"
  cp "$WORK/net4/system.json" "$WORK/net4/remote_memory.json" "$WORK/net$2/"
  sed "s/^npus_count: \[ 4 \]/npus_count: [ $2 ]/" "$WORK/net4/network.yml" >"$WORK/net$2/network.yml"
  local groups=()
  [[ -e "$1.comm_groups.json" ]] && groups=(--comm-group-configuration="$1.comm_groups.json")
  "$SNR" sim --workload-configuration="$1" --system-configuration="$WORK/net$2/system.json" \
    --network-configuration="$WORK/net$2/network.yml" --remote-memory-configuration="$WORK/net$2/remote_memory.json" \
    "${groups[@]}" >"$WORK/sim.out" 2>&1 || { cat "$WORK/sim.out" >&2; fail "snr sim $1"; }
  expect_contains "$WORK/sim.out" "sys[$(($2 - 1))] finished"
}

# M = N: byte for byte.
"$SNR" et retarget "$WORK/d4" --npus 4 -o "$WORK/same" >/dev/null
for r in 0 1 2 3; do cmp "$WORK/d4.$r.et" "$WORK/same.$r.et" || fail "rank $r changed at M = N"; done

"$SNR" et retarget "$WORK/d4" --npus 64 -o "$WORK/d64" >"$WORK/rt.out"
expect_contains "$WORK/rt.out" "64 ranks (tp 4, dp 16) from 4 ranks (tp 4, dp 1)"
"$SNR" et retarget "$WORK/d64" --npus 1024 -o "$WORK/d1024" >"$WORK/rt.out"
expect_contains "$WORK/rt.out" "1024 ranks (tp 4, dp 256) from 64 ranks (tp 4, dp 16)"
sim "$WORK/d64" 64
sim "$WORK/d1024" 1024
"$SNR" et jsonize "$WORK/d4.1.et" -o "$WORK/in.json" >/dev/null
"$SNR" et jsonize "$WORK/d1024.1017.et" -o "$WORK/out.json" >/dev/null
python3 - "$WORK/in.json" "$WORK/out.json" "$WORK/d1024.comm_groups.json" <<'PY'
import json, sys
src, out, groups = (json.load(open(p)) for p in sys.argv[1:4])
assert len(out["nodes"]) == len(src["nodes"])  # rank 1017 = position 1 of replica 254
attrs = lambda n: {a["name"]: a for a in n.get("attr", [])}
for a, b in zip(src["nodes"], out["nodes"]):
    if a.get("type") == "COMM_COLL_NODE":
        assert attrs(b)["pg_name"]["stringVal"] == "255", b
        assert attrs(a)["comm_size"] == attrs(b)["comm_size"]
assert len(groups) == 256 and all(groups[str(d + 1)] == [4 * d + t for t in range(4)] for d in range(256))
PY

# An 8-NPU trace of ASTRA-sim's examples, 8 → 512.
ag="$DATA/astra-sim/workload/microbenchmarks/all_gather/8npus_1MB/all_gather"
require_data astra-sim/workload/microbenchmarks/all_gather/8npus_1MB/all_gather.0.et
"$SNR" et retarget "$ag" --npus 512 -o "$WORK/ag512" >"$WORK/rt.out"
expect_contains "$WORK/rt.out" "512 ranks (tp 8, dp 64) from 8 ranks (tp 8, dp 1)"
sim "$WORK/ag512" 512

# Pipeline stages: 4 → 64 as tp 4 x dp 4 x pp 4. Rank r = t + 4 (d + 4 s);
# every stage runs the decode step and stage s sends its activation (the
# last all-gather's output: 65,536 B x 4 members = the 256 KiB hidden state
# load_input reads) to rank r + 16.
"$SNR" et retarget "$WORK/d4" --npus 64 --tp 4 --pp 4 -o "$WORK/pp64" >"$WORK/rt.out"
expect_contains "$WORK/rt.out" "64 ranks (tp 4, dp 4, pp 4) from 4 ranks (tp 4, dp 1)"
"$SNR" et validate "$WORK/pp64" >/dev/null || fail "pipelined trace does not validate"
sim "$WORK/pp64" 64
cp "$WORK/sim.out" "$WORK/pp64.sim"
for r in 0 5 21 42 63; do "$SNR" et jsonize "$WORK/pp64.$r.et" -o "$WORK/pp64.$r.json" >/dev/null; done
python3 - "$WORK" <<'PY'
import json, sys
w = sys.argv[1]
src = json.load(open(f"{w}/in.json"))  # rank 1 of the input; every rank has the same node count
n = len(src["nodes"])
attrs = lambda node: {a["name"]: a for a in node.get("attr", [])}
val = lambda a: int(next(v for k, v in a.items() if k != "name"))
first_tensor = val(attrs(src["nodes"][0])["tensor_size"])
groups = json.load(open(f"{w}/pp64.comm_groups.json"))
assert len(groups) == 16 and all(groups[str(g + 1)] == [4 * g + t for t in range(4)] for g in range(16)), groups
for r in (0, 5, 21, 42, 63):
    s = r // 16
    nodes = json.load(open(f"{w}/pp64.{r}.json"))["nodes"]
    assert len(nodes) == n + (s > 0) + (s < 3), (r, len(nodes))
    sends = [x for x in nodes if x.get("type") == "COMM_SEND_NODE"]
    recvs = [x for x in nodes if x.get("type") == "COMM_RECV_NODE"]
    assert len(sends) == (s < 3) and len(recvs) == (s > 0), r
    for x in sends:
        a = attrs(x)
        assert val(a["comm_dst"]) == r + 16 and val(a["comm_size"]) == 65536 * 4 == first_tensor, x
    for x in recvs:
        a = attrs(x)
        assert val(a["comm_src"]) == r - 16 and val(a["comm_size"]) == 65536 * 4, x
    for x in nodes:
        if x.get("type") == "COMM_COLL_NODE":
            assert attrs(x)["pg_name"]["stringVal"] == str(r // 4 + 1), (r, x)
PY
# The last stage finishes about 4 decode steps after the first (each waits for the previous).
t0=$(sed -n 's/^sys\[0\] finished, \([0-9]*\) cycles.*/\1/p' "$WORK/pp64.sim")
t63=$(sed -n 's/^sys\[63\] finished, \([0-9]*\) cycles.*/\1/p' "$WORK/pp64.sim")
((t63 > 3 * t0 && t63 < 5 * t0)) || fail "pipeline of 4 stages: rank 63 at $t63 ns, rank 0 at $t0 ns"

# Refusals, with nothing written.
expect_fail "$SNR" et retarget "$WORK/d4" --npus 10 -o "$WORK/bad"
expect_contains "$WORK/expect_fail.out" "not divisible"
expect_fail "$SNR" et retarget "$WORK/d4" --npus 16 --pp 3 -o "$WORK/bad"
expect_fail "$SNR" et retarget "$WORK/d4" --npus 16 --tp 4 --dp 2 -o "$WORK/bad"
expect_fail "$SNR" et retarget "$WORK/d4" --npus 0 -o "$WORK/bad"
for option in --tp --dp --pp --input-tp --activation-bytes; do
  expect_fail "$SNR" et retarget "$WORK/d4" --npus 4 "$option" 0 -o "$WORK/bad"
  expect_contains "$WORK/expect_fail.out" "$option"
done
expect_fail "$SNR" et retarget "$WORK/d4" --npus 8 --pp 2 --activation-bytes 1e30 -o "$WORK/bad"
expect_fail "$SNR" et retarget "$WORK/d4" --npus 2000000 -o "$WORK/bad"
expect_contains "$WORK/expect_fail.out" "2000000"
# Groups that break the symmetry (the 2-replica trace with its groups
# edited): a group that does not list a rank running on it, and one that is
# neither 4 consecutive ranks nor a stride.
"$SNR" et retarget "$WORK/d4" --npus 8 -o "$WORK/t8" >/dev/null
echo '{"1": [0, 1, 2, 5], "2": [3, 4, 6, 7]}' >"$WORK/t8.comm_groups.json"
expect_fail "$SNR" et retarget "$WORK/t8" --npus 16 -o "$WORK/bad"
expect_contains "$WORK/expect_fail.out" "which does not list it"
echo '{"1": [0, 1, 2, 3, 5], "2": [4, 5, 6, 7]}' >"$WORK/t8.comm_groups.json"
expect_fail "$SNR" et retarget "$WORK/t8" --npus 16 -o "$WORK/bad"
expect_contains "$WORK/expect_fail.out" "process group '1' is neither a tensor-parallel group"
compgen -G "$WORK/bad*" >/dev/null && fail "partial output after a refusal"

# ZeRO-3 style hybrid job: growing the replicas keeps the model, so a
# rank's shard in the data-parallel parameter all-gather halves from 2 to 4
# replicas and matches the same job generated on 16 ranks; the
# reduce-scatters keep their whole buffer.
"$SNR" et generate --pattern hybrid --npus 8 --tp-size 4 --layers 3 --size 1MiB -o "$WORK/h8" >/dev/null
"$SNR" et generate --pattern hybrid --npus 16 --tp-size 4 --layers 3 --size 1MiB -o "$WORK/h16" >/dev/null
"$SNR" et retarget "$WORK/h8" --npus 16 -o "$WORK/r16" >/dev/null
for t in h8 h16 r16; do "$SNR" et jsonize "$WORK/$t.5.et" -o "$WORK/$t.5.json" >/dev/null; done
python3 - "$WORK/h8.5.json" "$WORK/h16.5.json" "$WORK/r16.5.json" <<'PY' || fail "hybrid retarget sizes"
import json, sys
def sizes(path):
    out = {}
    for n in json.load(open(path))["nodes"]:
        attrs = {a["name"]: next(v for k, v in a.items() if k != "name") for a in n.get("attr", [])}
        if "comm_size" in attrs and ("allgather" in n["name"] or "reducescatter" in n["name"]):
            out[n["name"]] = int(attrs["comm_size"])
    return out
h8, h16, r16 = (sizes(p) for p in sys.argv[1:4])
assert r16 == h16, (r16, h16)
for name, size in h8.items():
    assert r16[name] == (size // 2 if name.startswith("allgather") else size), (name, size, r16[name])
PY
echo "ok"
