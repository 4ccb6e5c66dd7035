#!/usr/bin/env bash
# snr collective PLAN: every MSCCL++ plan in the shared data and ASTRA-sim's
# MSCCLang ring all-reduce run to completion on the load-store GPU model
# over the NoC-level network of the paper's GPU (no deadlock), report time
# and bandwidth with the contract keys, and respond to the GPU knobs the way
# §5.3 describes; info/check keep working beside the new form.
source "$(dirname "$0")/lib.sh"
P="$DATA/mscclpp"
if [[ ! -d "$P" ]]; then echo "SKIP: $P not present"; exit 77; fi

check_run() {  # JSON FILE: contract keys present, positive, bytes moved off-GPU
  python3 - "$1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for key in ("time_ns", "algbw_gbps", "busbw_gbps"):
    assert key in r and r[key] > 0, (key, r.get(key))
assert r["requests"] > 0 and r["data_bytes"] > 0 and r["control_bytes"] > 0, r
assert len(r["per_gpu"]) == r["gpus"], r
if r["gpus"] > 1:
    # Every GPU talks to another one over 1 us scale-up links.
    assert r["time_ns"] > 1000, r["time_ns"]
    assert all(g["remote_bytes"] > 0 for g in r["per_gpu"]), r["per_gpu"]
assert r["network"]["endpoints_per_gpu"] == 448, r["network"]
PY
}

plans=$(cd "$P" && find . -name '*.json' | sort)
ran=0
for plan in $plans; do
  if ! "$SNR" collective info "$P/$plan" > "$WORK/info.out" 2>&1; then
    # Plans the reader or the lowering refuses (a pre-August-2025 schema, a
    # 'concrete' experimental variant) fail the run the same clean way.
    expect_fail "$SNR" collective "$P/$plan"
    expect_contains "$WORK/expect_fail.out" "$(sed -n 's/^snr: error: //p' "$WORK/info.out" | head -c 60)"
    continue
  fi
  "$SNR" collective "$P/$plan" --json > "$WORK/run.json" || fail "collective $plan did not run"
  check_run "$WORK/run.json"
  "$SNR" collective "$P/$plan" --size 1048576 --json > "$WORK/run.json" || fail "collective $plan at 1 MiB did not run"
  check_run "$WORK/run.json"
  ran=$((ran + 1))
done
((ran >= 7)) || fail "only $ran shared plans ran"
# A plan file at a size that would run for days is refused before it runs.
expect_fail "$SNR" collective "$P/allreduce.json" --size 1099511627776
expect_contains "$WORK/expect_fail.out" "allreduce on 2 GPUs issues about 3.44e+10 cache-line requests, more than the 4.29e+09"

X="$DATA/astra-sim/system/custom_collectives/custom_ring_allreduce_8npus_1MB/custom_allreduce.xml"
if [[ -f "$X" ]] && "$SNR" collective info "$X" > /dev/null 2>&1; then
  "$SNR" collective "$X" --json > "$WORK/xml.json"
  check_run "$WORK/xml.json"
fi

# Text output and the `run` spelling.
"$SNR" collective run "$P/allreduce.json" --size 1048576 > "$WORK/run.txt"
expect_contains "$WORK/run.txt" "allreduce Simple over 2 GPUs, 1048576 B per GPU input"
expect_contains "$WORK/run.txt" "busbw"
expect_contains "$WORK/run.txt" "control"

# Loop unrolling (§4.4.4, §5.3): with one wavefront per workgroup the
# copy loop is latency-bound (a ~2 us remote round trip per group of lines),
# so 8 lines in flight instead of 1 is at least 4x faster; the limit on
# outstanding requests per CU caps the same way.
A=(collective "$P/allreduce.json" --size 8388608 --json)
"$SNR" "${A[@]}" --wavefront-threads 1024 --unroll 1 > "$WORK/u1.json"
"$SNR" "${A[@]}" --wavefront-threads 1024 --unroll 8 > "$WORK/u8.json"
"$SNR" "${A[@]}" --max-outstanding 4 > "$WORK/m4.json"
"$SNR" "${A[@]}" --max-outstanding 64 > "$WORK/m64.json"
python3 - "$WORK/u1.json" "$WORK/u8.json" "$WORK/m4.json" "$WORK/m64.json" <<'PY'
import json, sys
u1, u8, m4, m64 = (json.load(open(f)) for f in sys.argv[1:])
assert u1["time_ns"] > 4 * u8["time_ns"], (u1["time_ns"], u8["time_ns"])
assert u1["data_bytes"] == u8["data_bytes"], "unrolling must not change the bytes moved"
assert m4["time_ns"] > 4 * m64["time_ns"], (m4["time_ns"], m64["time_ns"])
PY

# A file-based GPU and network configuration give the preset's result.
"$SNR" collective "$P/allreduce.json" --gpu "$SRC/examples/collectives/generic-448-gpu.yaml" \
  --network-configuration "$SRC/examples/collectives/generic-448-network.yaml" --json > "$WORK/files.json"
"$SNR" collective "$P/allreduce.json" --json > "$WORK/preset.json"
python3 - "$WORK/files.json" "$WORK/preset.json" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
assert a["time_ns"] == b["time_ns"] and a["requests"] == b["requests"], (a["time_ns"], b["time_ns"])
PY

# Errors name what is wrong.
printf 'gpu:\n  unroll: 0\n' > "$WORK/bad_gpu.yaml"
expect_fail "$SNR" collective "$P/allreduce.json" --gpu "$WORK/bad_gpu.yaml"
expect_contains "$WORK/expect_fail.out" "'unroll' = 0 is out of range"
printf 'network:\n  hbm: {per_router: 0}\n' > "$WORK/bad_net.yaml"
expect_fail "$SNR" collective "$P/allreduce.json" --network-configuration "$WORK/bad_net.yaml"
expect_contains "$WORK/expect_fail.out" "'network.hbm.per_router'"
expect_fail "$SNR" collective "$P/allreduce.json" --protocol LL
expect_contains "$WORK/expect_fail.out" "Simple protocol"
expect_fail "$SNR" collective "$P/allreduce.json" --gpu no-such-gpu
expect_contains "$WORK/expect_fail.out" "neither a GPU preset"
# A GPU preset given alone runs on its own network preset (dgx-h100's 132
# SMs on the 132-CU network, not the 128 CUs of generic-448); a network of
# another GPU is refused naming the one to use.
"$SNR" collective "$P/allreduce.json" --gpu dgx-h100 --size 65536 --json > "$WORK/gpu_alone.json"
"$SNR" collective "$P/allreduce.json" --gpu dgx-h100 --network-configuration dgx-h100 --size 65536 --json \
  > "$WORK/gpu_and_network.json"
python3 - "$WORK/gpu_alone.json" "$WORK/gpu_and_network.json" <<'PY' || fail "--gpu dgx-h100 alone differs"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for d in (a, b):
    d["simulation"].pop("wall_s", None)
assert a == b, (a["time_ns"], b["time_ns"])
PY
expect_fail "$SNR" collective "$P/allreduce.json" --gpu dgx-h100 --network-configuration dgx-a100
expect_contains "$WORK/expect_fail.out" "'dgx-a100' has endpoints for 108: use --network-configuration dgx-h100"

# The inspecting subcommands still work beside the new form.
"$SNR" collective info "$P/allreduce.json" > "$WORK/info.txt"
expect_contains "$WORK/info.txt" "lowered at"
"$SNR" collective check "$P/allreduce.json" > "$WORK/check.txt"
expect_contains "$WORK/check.txt" "without deadlock or race"
echo "PASS"
