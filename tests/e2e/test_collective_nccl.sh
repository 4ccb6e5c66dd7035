#!/usr/bin/env bash
# NCCL on the DGX systems: `--algorithm auto --protocol auto` is NCCL's own
# choice (algorithm, protocol, channels, threads) and reports NCCL's
# estimate beside the simulation; ring and tree name NCCL's algorithms
# there; every NCCL plan passes the data-movement check; LL128 is refused
# by the generic algorithms; the DGX presets are consistent (the GPU's SMs
# are the network's CU endpoints).
source "$(dirname "$0")/lib.sh"

field() {  # JSON FILE KEY: print one top-level value
  python3 -c "import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$1" "$2"
}

# NCCL's choice on 8 A100s: LL with 1 channel of 64 threads at 1 KiB
# (latency only), LL128 at 8 MiB; the JSON carries NCCL's estimate.
"$SNR" collective allreduce --gpus 8 --system dgx-a100 --size 1024 --json > "$WORK/small.json"
python3 - "$WORK/small.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert (r["algorithm"], r["protocol"], r["workgroups"], r["threads_per_workgroup"]) == ("nccl-ring", "LL", 1, 64), r
assert abs(r["nccl_tuning"]["estimated_time_ns"] - 15020.4) < 1.0, r["nccl_tuning"]
assert r["gpu_config"]["compute_units"] == 108 and r["gpu_config"]["unroll"] == 4, r["gpu_config"]
assert r["kernel_start_ns"] > 0 and r["time_ns"] > r["kernel_start_ns"], r
PY

# Forced algorithm and protocol, checked plans, on both systems.
for system in dgx-a100 dgx-h100; do
  for spec in "allreduce tree LL" "allreduce tree Simple" "allreduce ring LL128" "allgather ring Simple" \
              "reducescatter ring LL128" "reducescatter auto auto"; do
    read -r collective algorithm protocol <<< "$spec"
    "$SNR" collective "$collective" --gpus 4 --system "$system" --size 65536 --algorithm "$algorithm" \
      --protocol "$protocol" --check --json > "$WORK/run.json" || fail "$system $spec did not run"
    got=$(field "$WORK/run.json" algorithm)
    [[ "$algorithm" == auto || "$got" == "nccl-$algorithm" ]] || fail "$system $spec ran $got"
    [[ "$(field "$WORK/run.json" data_checked)" == True ]] || fail "$system $spec was not checked"
  done
done

# NVLS on 8 H100s: NCCL's choice at 4 MiB, through the switch (one
# reduce-load and one broadcast-store per line of every GPU's chunk);
# dgx-a100's switch has no multicast.
"$SNR" collective allreduce --gpus 8 --system dgx-h100 --size 4194304 --check --json > "$WORK/nvls.json"
python3 - "$WORK/nvls.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert (r["algorithm"], r["protocol"], r["workgroups"], r["threads_per_workgroup"]) == ("nccl-nvls", "Simple", 16, 640), r
assert r["data_checked"], r
m = r["network"]["multicast"]
lines = 4194304 // 128
assert m["reduce_loads"] == lines and m["broadcast_stores"] == lines, m
assert m["fanout_messages"] == 8 * 2 * lines, m
PY
# At flow level the network takes no multicast: expanded per member, said on stderr.
"$SNR" collective allreduce --gpus 8 --system dgx-h100 --size 4194304 --algorithm nvls --granularity flow --json \
  > "$WORK/nvls_flow.json" 2> "$WORK/nvls_flow.err"
expect_contains "$WORK/nvls_flow.err" "switch ranges run as one request per member GPU"
python3 -c "import json, sys; assert 'multicast' not in json.load(open(sys.argv[1]))['network']" "$WORK/nvls_flow.json"
expect_fail "$SNR" collective allreduce --gpus 8 --system dgx-a100 --size 4194304 --algorithm nvls
expect_contains "$WORK/expect_fail.out" "no nccl-nvls variant of allreduce"

# All-to-all is not tuned by NCCL: the generic rule and algorithm apply.
"$SNR" collective alltoall --gpus 4 --system dgx-h100 --size 65536 --json > "$WORK/a2a.json"
[[ "$(field "$WORK/a2a.json" algorithm)" == direct ]] || fail "alltoall on dgx-h100 did not run direct"

# The same NCCL plans run on the generic GPU when named.
"$SNR" collective allreduce --gpus 4 --system generic-448 --size 65536 --algorithm nccl-ring --protocol LL128 \
  --check --json > "$WORK/generic.json" || fail "nccl-ring on generic-448"

expect_fail "$SNR" collective allreduce --gpus 4 --system dgx-a100 --size 65536 --algorithm tree --transfer get
expect_contains "$WORK/expect_fail.out" "nccl-tree allreduce: no get-based variant"
expect_fail "$SNR" collective allgather --gpus 4 --system dgx-a100 --size 65536 --algorithm tree
expect_contains "$WORK/expect_fail.out" "no nccl-tree variant of allgather"
echo "PASS"
