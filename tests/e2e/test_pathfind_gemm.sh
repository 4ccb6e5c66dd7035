#!/usr/bin/env bash
# snr pathfind gemm / train through the CLI: the --json contract, presets,
# YAML devices, Calculon inputs from the shared data, and clean failures.
source "$(dirname "$0")/lib.sh"

"$SNR" pathfind gemm 8192 8192 8192 --hw a100-80gb --json >"$WORK/g.json"
python3 - "$WORK/g.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
for key in ("time_s", "bound", "tile", "dataflow"):
    assert key in j, key
assert j["bound"] == "compute", j["bound"]
assert j["dataflow"] in ("ws", "as", "os"), j["dataflow"]
assert all(j["tile"][d] > 0 for d in "mnk")
# 2*8192^3 flop at 312 TFLOP/s is 3.52 ms; the prediction must not beat the peak.
assert 3.52e-3 < j["time_s"] < 5e-3, j["time_s"]
PY

"$SNR" pathfind gemm 64 12288 12288 --hw a100-80gb >"$WORK/g.txt"
expect_contains "$WORK/g.txt" "bound by hbm"
for hw in v100 a100-80gb h100-sxm tpu-v4-like tpu-v5e-like; do
  "$SNR" pathfind gemm 4096 4096 4096 --hw "$hw" --dtype fp16 --json >/dev/null
done
"$SNR" pathfind gemm 4096 4096 4096 --hw "$SRC/examples/pathfind/a100-80gb.yaml" --json >"$WORK/y.json"
"$SNR" pathfind gemm 4096 4096 4096 --hw a100-80gb --json >"$WORK/p.json"
python3 - "$WORK/y.json" "$WORK/p.json" <<'PY'
import json, sys
y, p = (json.load(open(f)) for f in sys.argv[1:])
assert y["time_s"] == p["time_s"], (y["time_s"], p["time_s"])
PY

expect_fail "$SNR" pathfind gemm 0 1 1 --hw a100-80gb
expect_fail "$SNR" pathfind gemm 64 64 64 --hw b200
expect_fail "$SNR" pathfind gemm 64 64 64 --hw v100 --dtype bf16
expect_contains "$WORK/expect_fail.out" "no bf16 matrix path"
printf 'device:\n  name: x\n  colour: red\n' >"$WORK/bad.yaml"
expect_fail "$SNR" pathfind gemm 64 64 64 --hw "$WORK/bad.yaml"
# bf16 used to be false for anything but "true": "yes" gave "no bf16 matrix path".
sed 's/bf16: true/bf16: yes/' "$SRC/examples/pathfind/a100-80gb.yaml" >"$WORK/yes.yaml"
expect_fail "$SNR" pathfind gemm 64 64 64 --hw "$WORK/yes.yaml" --dtype bf16
expect_contains "$WORK/expect_fail.out" "yes.yaml:16: device.bf16: 'yes' is not a boolean: expected true or false"

C="$DATA/pathfinder/calculon"
if [[ -d "$C" ]]; then
  "$SNR" pathfind train --vocab 51200 --model "$C/models/gpt3-175B.json" --system "$C/systems/a100_80g.json" \
    --execution "$C/validation/seqsel/tab5/gpt3-175B_seqsel.json" >"$WORK/t.txt"
  expect_contains "$WORK/t.txt" "iteration"
  expect_contains "$WORK/t.txt" "fits"
  # GPT-3 with the paper's vocabulary: 96 (12h^2 + 13h) + 51200 h + 2h.
  expect_contains "$WORK/t.txt" "gpt3-175B (174.6 B parameters): 64 devices"
  # --json: the iteration is pipeline + DP all-reduce + optimizer, MFU is
  # model flops (with the output layer's share) over time x the 312 TFLOP/s peak.
  "$SNR" pathfind train --vocab 51200 --model "$C/models/gpt3-175B.json" --system "$C/systems/a100_80g.json" \
    --execution "$C/validation/seqsel/tab5/gpt3-175B_seqsel.json" --json >"$WORK/t.json"
  python3 - "$WORK/t.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
assert abs(j["pipeline_s"] + j["dp_allreduce_s"] + j["optimizer_s"] - j["iteration_s"]) < 1e-9 * j["iteration_s"], j
assert abs(j["model_flops_per_device"] / (j["iteration_s"] * 312e12) - j["mfu"]) < 1e-9, j
assert j["head_s"] > 0 and [k["name"] for k in j["head_kernels"]] == ["head.logits", "head.cross_entropy"], j
h = 12288
assert j["parameters"] == 96 * (12 * h * h + 13 * h) + 51200 * h + 2 * h, j["parameters"]
PY
  # A parallelism whose product differs from the device count names the field.
  sed 's/"num_procs": 64/"num_procs": 65/' "$C/validation/seqsel/tab5/gpt3-175B_seqsel.json" >"$WORK/bad_exec.json"
  expect_fail "$SNR" pathfind train --vocab 51200 --model "$C/models/gpt3-175B.json" --system "$C/systems/a100_80g.json" \
    --execution "$WORK/bad_exec.json"
  expect_contains "$WORK/expect_fail.out" "differs from the device count 65"
  # The 175B model on 8 devices does not fit: exit 3 with the verdict.
  sed 's/"num_procs": 64/"num_procs": 8/; s/"pipeline_par": 8/"pipeline_par": 1/; s/"pipeline_interleaving": 3/"pipeline_interleaving": 1/' \
    "$C/validation/seqsel/tab5/gpt3-175B_seqsel.json" >"$WORK/oom_exec.json"
  status=0
  "$SNR" pathfind train --vocab 51200 --model "$C/models/gpt3-175B.json" --system "$C/systems/a100_80g.json" \
    --execution "$WORK/oom_exec.json" >"$WORK/oom.txt" || status=$?
  ((status == 3)) || fail "expected exit 3 for out of memory, got $status"
  expect_contains "$WORK/oom.txt" "OUT OF MEMORY"
  # A system of H100's matrix rate runs on the h100-sxm preset's insides
  # unless --hw names another chip, and the note says which.
  sed 's/"tflops": 312/"tflops": 1000/' "$C/systems/a100_80g.json" >"$WORK/h100_rate.json"
  grep -q '"tflops": 1000' "$WORK/h100_rate.json" || fail "the system file's matrix rate was not replaced"
  for hw in "" h100-sxm a100-80gb; do
    "$SNR" pathfind train --model "$C/models/gpt3-175B.json" --system "$WORK/h100_rate.json"       --execution "$C/validation/seqsel/tab5/gpt3-175B_seqsel.json" ${hw:+--hw "$hw"} --json       >"$WORK/h100_$hw.json" 2>"$WORK/h100_$hw.err"
  done
  expect_contains "$WORK/h100_.err" "the chip's insides are h100-sxm's"
  cmp <(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["iteration_s"])' "$WORK/h100_.json")     <(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["iteration_s"])' "$WORK/h100_h100-sxm.json")     || fail "the default chip for an H100-rate system is not h100-sxm"
  expect_contains "$WORK/h100_a100-80gb.err" "run 3.21x as fast"
fi
echo ok
