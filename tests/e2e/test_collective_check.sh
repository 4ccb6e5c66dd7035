#!/usr/bin/env bash
# snr collective info/check: every current-schema MSCCL++ plan in the shared
# data and ASTRA-sim's MSCCLang ring all-reduce lower to the load-store
# representation and move exactly their collective's bytes; legacy schemas,
# unknown ops, dangling references, deadlocks and races fail naming where.
source "$(dirname "$0")/lib.sh"
P="$DATA/mscclpp"
if [[ ! -d "$P" ]]; then echo "SKIP: $P not present"; exit 77; fi
T="$SRC/src/formats/mscclpp/testdata"

for plan in allreduce allreduce_packet multi_node_transfer reduce reduce_nvls reduce_pack transfer_pack \
            legacy/allgather; do
  "$SNR" collective check "$P/$plan.json" > "$WORK/check.out"
  expect_contains "$WORK/check.out" "ops ran without deadlock or race; all"
  expect_contains "$WORK/check.out" "hold exactly what the"
done

# The same at a realistic size, as JSON.
"$SNR" collective check "$P/allreduce.json" --size 1048576 --json > "$WORK/check.json"
python3 - "$WORK/check.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["ok"] and r["collective_checked"] and r["size_bytes"] == 1048576, r
assert r["errors"] == [], r
PY

# The collective's name decides what is checked: its spelling (case, _ and -)
# does not matter, a misspelt one checks synchronization only and says
# which name was meant.
python3 - "$P/allreduce.json" "$WORK" <<'PY'
import json, sys
plan = json.load(open(sys.argv[1]))
for name in ("All_Reduce", "allredcue", "allgather"):
    plan["collective"] = name
    json.dump(plan, open(f"{sys.argv[2]}/{name}.json", "w"))
PY
"$SNR" collective check "$WORK/All_Reduce.json" > "$WORK/spelled.out"
expect_contains "$WORK/spelled.out" "hold exactly what the All_Reduce requires"
"$SNR" collective check "$WORK/allredcue.json" --json > "$WORK/typo.json"
python3 -c "import json,sys; r=json.load(open(sys.argv[1])); assert r['ok'] and not r['collective_checked'] and r['collective_did_you_mean'] == 'allreduce', r" "$WORK/typo.json" \
  || fail "a misspelt collective name gave no hint"
# A plan that does not do the collective it names is not timed (no busbw for
# a wrong result) unless --no-check says so.
expect_fail "$SNR" collective "$WORK/allgather.json"
expect_contains "$WORK/expect_fail.out" "the plan fails the data check at 256 B per GPU (1 error, the first: gpu 0: input 256 B and output 256 B do not have the shape of an allgather over 2 GPUs)"
"$SNR" collective run "$WORK/allgather.json" --no-check --json > "$WORK/unchecked.json"
python3 -c "import json,sys; r=json.load(open(sys.argv[1])); assert r['data_checked'] is False and r['time_ns'] > 0, r" "$WORK/unchecked.json" \
  || fail "--no-check did not time the plan"
"$SNR" collective "$WORK/All_Reduce.json" --json > "$WORK/checked.json"
python3 -c "import json,sys; r=json.load(open(sys.argv[1])); assert r['data_checked'] is True, r" "$WORK/checked.json" \
  || fail "a checked run does not say so"

# info: op counts and bytes per GPU (2-GPU LL allreduce, 1 MiB per GPU).
"$SNR" collective info "$P/allreduce_packet.json" --size 1048576 > "$WORK/info.txt"
expect_contains "$WORK/info.txt" "plan allreduce_pkt (MSCCL++): collective allreduce, protocol LL"
expect_contains "$WORK/info.txt" "lowered at 1048576 B per GPU input:"
"$SNR" collective info "$P/allreduce_packet.json" --size 1048576 --json > "$WORK/info.json"
python3 - "$WORK/info.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
g0 = r["lowered"]["gpus"][0]
# The peer's half goes out as packets (ppkt), then the reduced own half (respkt):
# 1 MiB of payload, twice that on the wire (LL flags), and no semaphores.
assert g0["remote_store_bytes"] == 1048576, g0
assert g0["off_gpu_wire_bytes"] == 2097152, g0
assert g0["ops"]["SemaphoreReleaseOp"] == 0, g0
assert r["plan"]["ops"]["respkt"] == 4, r["plan"]
PY

# MSCCLang XML (ASTRA-sim's public custom collective).
X="$DATA/astra-sim/system/custom_collectives/custom_ring_allreduce_8npus_1MB/custom_allreduce.xml"
if [[ -f "$X" ]]; then
  "$SNR" collective check "$X" > "$WORK/xml.out"
  expect_contains "$WORK/xml.out" "allreduce over 8 GPUs"
  expect_contains "$WORK/xml.out" "hold exactly what the allreduce requires"
  # A generator's printed output after </algo> (msccl-tools' PCIe example
  # prints its failed Check() there) is named, not dropped.
  { cat "$X"; echo "Check failed: chunk reduced twice"; } > "$WORK/trailing.xml"
  expect_fail "$SNR" collective "$WORK/trailing.xml"
  expect_contains "$WORK/expect_fail.out" 'text outside <algo> ("Check failed: chunk reduced twice")'
fi

# Rejected schema variants and malformed plans.
expect_fail "$SNR" collective check "$P/legacy/allreduce_nvls.json"
expect_contains "$WORK/expect_fail.out" "pre-August-2025 schema (GPU key 'inputChunks')"
expect_fail "$SNR" collective info "$P/concrete_alltoallv_plan_0_3867294770437475.json"
expect_contains "$WORK/expect_fail.out" "is a 'concrete' variant"

sed 's/"name": "wait"/"name": "teleport"/' "$T/allgather_put.json" > "$WORK/unknown_op.json"
expect_fail "$SNR" collective check "$WORK/unknown_op.json"
expect_contains "$WORK/expect_fail.out" "gpu 0 threadblock 0 op 3: unknown op 'teleport'"

python3 - "$T/allgather_put.json" "$WORK" <<'PY'
import json, sys
src, work = sys.argv[1], sys.argv[2]
plan = json.load(open(src))
bad = json.loads(json.dumps(plan))
bad["gpus"][1]["threadblocks"][0]["ops"][1]["dst_buff"][0]["buffer_id"] = 5
json.dump(bad, open(work + "/dangling.json", "w"))
dead = json.loads(json.dumps(plan))
del dead["gpus"][1]["threadblocks"][0]["ops"][2]  # gpu 1 never signals
json.dump(dead, open(work + "/deadlock.json", "w"))
PY
expect_fail "$SNR" collective check "$WORK/dangling.json"
expect_contains "$WORK/expect_fail.out" "gpu 1 threadblock 0 op 1 ('put') dst_buff[0]: buffer_id 5 is dangling"
expect_fail "$SNR" collective check "$WORK/deadlock.json"
expect_contains "$WORK/expect_fail.out" "deadlock: gpu 0 threadblock 0 op 3 ('wait') waits on semaphore"
expect_contains "$WORK/expect_fail.out" "a wait without a matching signal"
# Plans as MSCCL++'s own DSL writes them: a multicast packet store with the
# owning GPU on its source ('rank'), reused scratch (the fixed 64 MiB buffer,
# here in chunks of 32 MiB under 128 MiB message chunks), and a plan that
# only synchronizes (no chunks at all).
"$SNR" collective check "$T/allgather_packet_multicast_self.json" > "$WORK/self.out"
expect_contains "$WORK/self.out" "without deadlock or race; all 4 output granules"
"$SNR" collective check "$T/reuse_scratch_pipeline.json" --size 268435456 > "$WORK/reuse.out"
expect_contains "$WORK/reuse.out" "16 ops ran without deadlock or race"
"$SNR" collective "$T/signal_wait_only.json" --json --size 4096 > "$WORK/sync.json" 2> "$WORK/sync.err"
expect_contains "$WORK/sync.err" "has no buffers (it only synchronizes): --size is ignored"
python3 - "$WORK/sync.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
# A signal each way over 1 us links, nothing else: time is the handshake.
assert r["size_bytes"] == 0 and r["data_bytes"] == 0 and r["control_bytes"] > 0, r
assert 2000 < r["time_ns"] < 3000, r["time_ns"]
PY
# MSCCLang's in-place shapes: an all-gather without input chunks starts from
# its slice of the output; a reduce-scatter without output chunks ends in its
# slice of the input.
X="$SRC/src/formats/msccllang/testdata"
"$SNR" collective check "$X/ring_allgather_inplace_3.xml" > "$WORK/ag.out"
expect_contains "$WORK/ag.out" "all 9 output granules of 16 B hold exactly what the allgather requires"
"$SNR" collective check "$X/ring_reducescatter_inplace_3.xml" > "$WORK/rs.out"
expect_contains "$WORK/rs.out" "all 3 output granules of 16 B hold exactly what the reducescatter requires"
# What the MSCCL runtime refuses is refused, naming the threadblock: a
# negative channel, and two threadblocks on one (peer, channel) connection.
sed '0,/chan="0"/s//chan="-1"/' "$X/ring_allreduce_3.xml" > "$WORK/chan_negative.xml"
expect_fail "$SNR" collective check "$WORK/chan_negative.xml"
expect_contains "$WORK/expect_fail.out" "chan_negative.xml:3: <tb>: gpu 0 threadblock 0: 'chan' = -1 is not a channel"
sed '0,/<tb id="1" send="-1"/s//<tb id="1" send="1"/' "$X/ring_allreduce_3.xml" > "$WORK/two_senders.xml"
expect_fail "$SNR" collective check "$WORK/two_senders.xml"
expect_contains "$WORK/expect_fail.out" "two_senders.xml:11: gpu 0: threadblocks 0 and 1 both send to gpu 1 on channel 0"
# A plan with more workgroups than the check tracks (12,000: 2 GPUs, a ring
# threadblock and 5,999 empty ones each): refused with what to do, and
# timed with --no-check.
python3 - "$WORK/wide.xml" <<'PY'
import sys
lines = ['<algo name="wide" proto="Simple" nchannels="1" nchunksperloop="2" ngpus="2" coll="allreduce" inplace="1">']
step = '      <step s="{}" type="{}" srcbuf="i" srcoff="{}" dstbuf="i" dstoff="{}" cnt="{}" depid="-1" deps="-1" hasdep="0"/>'
for gpu in range(2):
    peer = 1 - gpu
    lines += [f'  <gpu id="{gpu}" i_chunks="2" o_chunks="0" s_chunks="0">',
              f'    <tb id="0" send="{peer}" recv="{peer}" chan="0">',
              step.format(0, "s", peer, peer, 1), step.format(1, "rrs", gpu, gpu, 1), step.format(2, "r", peer, peer, 1),
              '    </tb>']
    for tb in range(1, 6000):
        lines += [f'    <tb id="{tb}" send="-1" recv="-1" chan="0">', step.format(0, "nop", 0, 0, 0), '    </tb>']
    lines.append('  </gpu>')
open(sys.argv[1], "w").write("\n".join(lines + ['</algo>']) + "\n")
PY
expect_fail "$SNR" collective "$WORK/wide.xml"
expect_contains "$WORK/expect_fail.out" "12000 workgroups and 0 barriers are too many to track; --no-check times the plan without the data check"
"$SNR" collective "$WORK/wide.xml" --no-check --json >"$WORK/wide.json"
expect_contains "$WORK/wide.json" '"time_ns"'
echo "collective check: OK"
