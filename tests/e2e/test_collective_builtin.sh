#!/usr/bin/env bash
# snr collective allreduce|allgather|reducescatter|alltoall: the built-in
# algorithms expanded into load-store plans run on the GPU model over the
# NoC-level network, with the contract keys of `snr collective PLAN`; the
# generated plans pass the data-movement check; auto picks the algorithm
# and (by seed 003 §3.2's α–β rule) the protocol; only real systems are
# accepted; errors name what is wrong.
source "$(dirname "$0")/lib.sh"

check_run() {  # JSON FILE COLLECTIVE ALGORITHM GPUS: contract keys, bus bandwidth factor
  python3 - "$@" <<'PY'
import json, sys
path, collective, algorithm, gpus = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
r = json.load(open(path))
for key in ("time_ns", "algbw_gbps", "busbw_gbps"):
    assert key in r and r[key] > 0, (key, r.get(key))
assert r["collective"] == collective and r["algorithm"] == algorithm and r["gpus"] == gpus, r
assert r["data_checked"] is True, r
# Every GPU sends to and receives from others over the 1 us scale-up links.
assert r["time_ns"] > 1000, r["time_ns"]
assert all(g["remote_bytes"] > 0 for g in r["per_gpu"]), r["per_gpu"]
factor = 2 * (gpus - 1) / gpus if collective == "allreduce" else (gpus - 1) / gpus
assert abs(r["busbw_gbps"] - r["algbw_gbps"] * factor) < 1e-9 * r["busbw_gbps"], r
assert abs(r["algbw_gbps"] - r["buffer_bytes"] / r["time_ns"]) < 1e-9 * r["algbw_gbps"], r
PY
}

for c in allreduce:ring allgather:ring reducescatter:ring alltoall:direct; do
  collective=${c%%:*}
  for transfer in put get; do
    for protocol in Simple LL; do
      "$SNR" collective "$collective" --gpus 4 --system generic-448 --size 65536 --workgroups 4 \
        --transfer "$transfer" --protocol "$protocol" --check --json > "$WORK/$collective.json" \
        || fail "$collective $transfer $protocol did not run"
      check_run "$WORK/$collective.json" "$collective" "${c##*:}" 4
    done
  done
done

# halving-doubling and double-binary-tree all-reduce over 8 GPUs run, pass
# the data check and report like the others.
for algorithm in halving-doubling double-binary-tree; do
  "$SNR" collective allreduce --gpus 8 --size 1048576 --algorithm "$algorithm" --check --json \
    > "$WORK/$algorithm.json" || fail "$algorithm allreduce did not run"
  check_run "$WORK/$algorithm.json" allreduce "$algorithm" 8
done
# At a latency-bound 4 KiB over 8 GPUs the step count decides:
# halving-doubling's 2 log2 8 = 6 steps take well under the ring's
# 2(8-1) = 14, with either protocol. The double binary tree pipelines 8
# pieces per tree through 2 x 3 levels: with Simple's signal per piece that
# is about the ring's time, with LL (no signals) close to halving-doubling.
for protocol in Simple LL; do
  for algorithm in ring halving-doubling double-binary-tree; do
    "$SNR" collective allreduce --gpus 8 --size 4096 --algorithm "$algorithm" --protocol "$protocol" --json \
      > "$WORK/small-$algorithm-$protocol.json" || fail "$algorithm $protocol allreduce at 4 KiB did not run"
  done
done
python3 - "$WORK"/small-{ring,halving-doubling,double-binary-tree}-{Simple,LL}.json <<'PY'
import json, sys
# small-ALGORITHM-PROTOCOL.json -> time_ns
times = {f.rsplit("/", 1)[1][len("small-"):-len(".json")]: json.load(open(f))["time_ns"] for f in sys.argv[1:]}
for protocol in ("Simple", "LL"):
    ring, hd, dbt = (times[f"{a}-{protocol}"] for a in ("ring", "halving-doubling", "double-binary-tree"))
    assert 0 < hd < 0.6 * ring, (protocol, ring, hd)
    assert hd < dbt, (protocol, hd, dbt)
assert times["double-binary-tree-LL"] < times["ring-LL"], times
PY

# LL carries a flag beside every data word: twice the data bytes of Simple
# for the same all-gather, and no semaphore traffic.
A=(collective allgather --gpus 4 --size 262144 --workgroups 8 --json)
"$SNR" "${A[@]}" --protocol Simple > "$WORK/simple.json"
"$SNR" "${A[@]}" --protocol LL > "$WORK/ll.json"
"$SNR" "${A[@]}" --protocol LL --transfer get > "$WORK/ll_get.json"
python3 - "$WORK/simple.json" "$WORK/ll.json" "$WORK/ll_get.json" <<'PY'
import json, sys
simple, ll, ll_get = (json.load(open(f)) for f in sys.argv[1:])
assert simple["protocol"] == "Simple" and ll["protocol"] == "LL", (simple["protocol"], ll["protocol"])
# The off-GPU wire bytes of LL's stores are twice Simple's (data + flags).
assert ll["network"]["links"]["scale_up"]["bytes"] > 1.8 * simple["network"]["links"]["scale_up"]["bytes"], (
    ll["network"]["links"]["scale_up"], simple["network"]["links"]["scale_up"])
assert ll_get["transfer"] == "get" and ll_get["protocol"] == "LL"
PY

# --protocol auto: LL while a step's bytes are below 2 x latency x bandwidth
# of the scale-up network. With 10 ns links that is about 22 KB per GPU.
sed 's/latency_ns: 1000/latency_ns: 10/' "$SRC/examples/collectives/generic-448-network.yaml" > "$WORK/fast.yaml"
"$SNR" collective reducescatter --gpus 4 --size 16384 --network-configuration "$WORK/fast.yaml" --json > "$WORK/a1.json"
"$SNR" collective reducescatter --gpus 4 --size 262144 --network-configuration "$WORK/fast.yaml" --json > "$WORK/a2.json"
python3 - "$WORK/a1.json" "$WORK/a2.json" <<'PY'
import json, sys
small, large = (json.load(open(f)) for f in sys.argv[1:])
assert small["protocol"] == "LL", small["protocol"]      # 4 KiB per ring step
assert large["protocol"] == "Simple", large["protocol"]  # 64 KiB per ring step
PY

# The system's GPU and network files give the preset's result.
"$SNR" collective alltoall --gpus 4 --size 65536 --json > "$WORK/preset.json"
"$SNR" collective alltoall --gpus 4 --size 65536 --gpu "$SRC/examples/collectives/generic-448-gpu.yaml" \
  --network-configuration "$SRC/examples/collectives/generic-448-network.yaml" --json > "$WORK/files.json"
python3 - "$WORK/preset.json" "$WORK/files.json" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
assert a["time_ns"] == b["time_ns"] and a["requests"] == b["requests"], (a["time_ns"], b["time_ns"])
PY

# Text output.
"$SNR" collective allreduce --gpus 2 --system generic-448 --size 4096 > "$WORK/run.txt"
expect_contains "$WORK/run.txt" "ring allreduce (put, LL) over 2 GPUs of generic-448, 32 workgroups per GPU, 4096 B"
expect_contains "$WORK/run.txt" "busbw"

# Flow-level mode: named in the JSON, the same lines, within 2% of the
# request level on a bandwidth-bound all-gather.
"$SNR" collective allgather --gpus 4 --size 1048576 --protocol Simple --json > "$WORK/request.json"
"$SNR" collective allgather --gpus 4 --size 1048576 --protocol Simple --granularity flow --json > "$WORK/flow.json"
python3 - "$WORK/request.json" "$WORK/flow.json" <<'PY'
import json, sys
request, flow = (json.load(open(p)) for p in sys.argv[1:])
assert request["gpu_config"]["granularity"] == "request", request["gpu_config"]
assert flow["gpu_config"]["granularity"] == "flow", flow["gpu_config"]
assert flow["requests"] == request["requests"], (flow["requests"], request["requests"])
assert abs(flow["time_ns"] / request["time_ns"] - 1) < 0.02, (request["time_ns"], flow["time_ns"])
assert flow["simulation"]["events"] < 0.75 * request["simulation"]["events"], "flow level saves no events"
PY

# Errors name what is wrong.
expect_error() {  # MESSAGE ARGS...: `snr collective ARGS` fails, naming MESSAGE
  local message="$1"
  shift
  expect_fail "$SNR" collective "$@"
  expect_contains "$WORK/expect_fail.out" "$message"
}
expect_error "unknown system 'dgx-b200' (known: generic-448, dgx-a100, dgx-h100)" allreduce --gpus 8 --system dgx-b200 --size 4096
expect_error "algorithm 'direct' does not implement 'reducescatter'" reducescatter --gpus 4 --size 4096 --algorithm direct
expect_error "unknown collective algorithm 'tree' (registered: ring, direct, nccl-ring, nccl-tree, halving-doubling, double-binary-tree, nccl-nvls)" allgather --gpus 4 --size 4096 --algorithm tree
expect_error "halving-doubling allreduce: 6 GPUs is not a power of two" allreduce --gpus 6 --size 6144 --algorithm halving-doubling
expect_error "use 4 or 8 GPUs" reducescatter --gpus 6 --size 6144 --algorithm halving-doubling
expect_error "double-binary-tree allreduce: no get-based variant" allreduce --gpus 4 --size 4096 --algorithm double-binary-tree --transfer get
expect_error "does not split into 3 chunks" alltoall --gpus 3 --size 1000
expect_error "unknown transfer 'push' (put or get)" allgather --gpus 4 --size 4096 --transfer push
expect_error "'2TiB' is 2199023255552 bytes, out of range" allgather --gpus 4 --size 2TiB
expect_error "unknown size unit 'M'" allgather --gpus 4 --size 1M
# Sizes take a unit as in every other snr option: 64KiB is 65536 bytes.
"$SNR" collective allgather --gpus 4 --size 64KiB --json | grep -v wall_s >"$WORK/unit.json"
"$SNR" collective allgather --gpus 4 --size 65536 --json | grep -v wall_s >"$WORK/plain.json"
cmp -s "$WORK/unit.json" "$WORK/plain.json" || fail "--size 64KiB differs from --size 65536"
expect_error "unknown protocol 'LL64' (Simple, LL or LL128)" allgather --gpus 4 --size 4096 --protocol LL64
expect_error "ring allgather: no put-based variant with the LL128 protocol" allgather --gpus 4 --size 4096 --protocol LL128
expect_error "--gpus" allgather --gpus 1 --size 4096
expect_error "--gpus is required" allgather --size 4096
expect_error "--granularity" allgather --gpus 4 --size 4096 --granularity packet
# Options that would be silently ignored or wrap around are refused.
expect_error "--kernel-start-ns: only the NCCL plans" allreduce --gpus 8 --size 8192 --kernel-start-ns 100000
expect_error "--kernel-start-ns: nan is not a number in 0 .. 1e+09" allreduce --gpus 8 --size 8192 --algorithm nccl-ring --kernel-start-ns nan
printf 'gpu:\n  clock_ghz: 5\n' >"$WORK/g5ghz.yaml"
expect_error "more than the 4294967295 a kernel start can hold" allreduce --gpus 2 --size 1024 --algorithm nccl-ring \
  --gpu "$WORK/g5ghz.yaml" --kernel-start-ns 900000000
expect_error "--scale-up-latency-ns: nan is not a number in 0 .. 1e+09" allreduce --gpus 4 --size 65536 --scale-up-latency-ns nan
expect_error "--port-bandwidth-gib-per-s: nan is not a number in 0.001 .. 1e+06" allreduce --gpus 4 --size 65536 --port-bandwidth-gib-per-s nan
expect_error "--trace and --csv name the same file" allreduce --gpus 4 --size 4096 --trace "$WORK/same.out" --csv "$WORK/same.out"
# Runs of days are refused at once, naming their size (GPU 0's share tells it).
expect_error "alltoall of 1073741824 B per GPU on 4096 GPUs issues about 6.88e+10 cache-line requests, more than the 4.29e+09" \
  alltoall --gpus 4096 --size 1073741824
expect_error "more than the 1.72e+10" alltoall --gpus 4096 --size 1073741824 --granularity flow
expect_error "allreduce of 1099511627776 B per GPU on 8 GPUs issues about 4.21e+11 cache-line requests" allreduce --gpus 8 --size 1099511627776
expect_error "--trace and --csv name the same file" allreduce --gpus 4 --size 4096 --trace "$WORK/same.out" --csv "$WORK/./same.out"
# More workgroups than elements: the report says how many had data.
"$SNR" collective allreduce --gpus 4 --size 4096 --workgroups 1024 --json >"$WORK/wg.json"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert (d["workgroups"], d["workgroups_with_data"]) == (1024, 256), d' \
  "$WORK/wg.json" || fail "workgroups_with_data"
"$SNR" collective allreduce --gpus 4 --size 4096 --workgroups 1024 >"$WORK/wg.txt"
expect_contains "$WORK/wg.txt" "1024 workgroups per GPU (256 with data)"
# An algorithm without LL at a small size runs with what it has.
"$SNR" collective allreduce --algorithm nccl-nvls --gpus 8 --size 65536 --json >"$WORK/nvls.json" \
  || fail "nccl-nvls with --protocol auto at 64 KiB"
echo "PASS"
