#!/usr/bin/env bash
# snr pathfind generate / predict through the CLI: the generated device and
# its bounds, the --json contract of predict, the output directory, the
# mapping option, generated vs preset devices, and clean failures that name
# the field (budgets over 1, impossible voltages, parallelism that does not
# fill the system, a model that does not fit).
source "$(dirname "$0")/lib.sh"
EX="$SRC/examples/pathfind"

# AGE on the built-ins: the A100's organisation, every component with a bound.
"$SNR" pathfind generate --json >"$WORK/gen.json"
python3 - "$WORK/gen.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
assert j["bundles"] == 108 and j["mcus"] == 432, (j["bundles"], j["mcus"])
assert abs(j["peak_flops_per_s"] / 312e12 - 1) < 0.005, j["peak_flops_per_s"]
names = [c["name"] for c in j["components"]]
assert names == ["core", "reg", "smem", "l2", "hbm", "intra_package", "inter_package"], names
for c in j["components"]:
    assert c["bound"] in ("area", "power", "perimeter", "min_voltage", "max_voltage", "bank_ports",
                          "package_area", "controller_area"), c
    assert c["area_used_mm2"] <= c["area_budget_mm2"] * (1 + 1e-9), c
    assert c["power_used_w"] <= c["power_budget_w"] * (1 + 1e-9), c
PY
"$SNR" pathfind generate -o "$WORK/chip.yaml" >"$WORK/gen.txt"
expect_contains "$WORK/gen.txt" "equation 1"
"$SNR" pathfind gemm 8192 8192 8192 --hw "$WORK/chip.yaml" --json >"$WORK/chip_gemm.json"

# What-if: 30% more HBM area cannot add a stack when the package is full;
# a bigger package can.
"$SNR" pathfind generate --print-input a100-like >"$WORK/budget.yaml"
sed 's/node_area_budget: 1400mm2/node_area_budget: 1600mm2/; s/  hbm: 0.075/  hbm: 0.0975/; s/  hbm: 0.41/  hbm: 0.5/; s/  hbm: 0.17/  hbm: 0.2/' \
  "$WORK/budget.yaml" >"$WORK/bigger.yaml"
"$SNR" pathfind generate --budget "$WORK/bigger.yaml" --json >"$WORK/bigger.json"
python3 - "$WORK/gen.json" "$WORK/bigger.json" <<'PY'
import json, sys
base, big = (json.load(open(f)) for f in sys.argv[1:])
hbm = lambda j: next(c for c in j["components"] if c["name"] == "hbm")
assert hbm(base)["units"] == 5 and hbm(big)["units"] == 6, (hbm(base)["units"], hbm(big)["units"])
assert hbm(big)["capacity_bytes"] == 96 * 2**30
PY

# Bad budgets and technology name the field.
sed 's/  core: 0.40/  core: 0.80/' "$WORK/budget.yaml" >"$WORK/over.yaml"
expect_fail "$SNR" pathfind generate --budget "$WORK/over.yaml"
expect_contains "$WORK/expect_fail.out" "area_breakdown: fractions sum to"
"$SNR" pathfind generate --print-input n7 | sed '0,/min_voltage: 0.55V/s//min_voltage: 0.2V/' >"$WORK/bad_tech.yaml"
expect_fail "$SNR" pathfind generate --tech "$WORK/bad_tech.yaml"
expect_contains "$WORK/expect_fail.out" "min_voltage"
expect_fail "$SNR" pathfind generate --print-input nothing

# predict: the JSON contract.
"$SNR" pathfind predict --hw a100-80gb --model "$EX/gpt3-175B-train.yaml" \
  --parallelism tp=8,pp=8,dp=1,sp,recompute=selective --json >"$WORK/p.json"
python3 - "$WORK/p.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
for key in ("time_s", "time_name", "bottleneck", "causes", "mapping", "kernels", "memory", "devices", "mfu"):
    assert key in j, key
assert j["devices"] == 64 and j["time_name"] == "iteration"
assert len(j["mapping"]["orderings"]) == 24
assert abs(sum(c["seconds"] for c in j["causes"]) / j["time_s"] - 1) < 1e-9
dims = {d["dimension"]: d for d in j["mapping"]["dimensions"]}
assert dims["kernel_row"]["tier"].endswith("nvlink3"), dims["kernel_row"]
assert dims["pipeline"]["tier"].endswith("ib-hdr"), dims["pipeline"]
assert j["memory"]["fits"] is True
# Korthikanti et al. Table 5 measured 13.75 s for this run.
assert 11 < j["time_s"] < 17, j["time_s"]
PY
# The same run with the tensor-parallel ring forced across boards is slower.
"$SNR" pathfind predict --hw a100-80gb --model "$EX/gpt3-175B-train.yaml" \
  --parallelism tp=8,pp=8,dp=1,sp,recompute=selective --mapping p,r,c,d --json >"$WORK/p2.json"
python3 - "$WORK/p.json" "$WORK/p2.json" <<'PY'
import json, sys
best, forced = (json.load(open(f)) for f in sys.argv[1:])
assert forced["time_s"] > 1.2 * best["time_s"], (forced["time_s"], best["time_s"])
assert len(forced["mapping"]["orderings"]) == 1
PY

# A generated device, an output directory, decode and a GEMM.
"$SNR" pathfind predict --tech n7 --arch gpu-16x16 --budget a100-like --model "$EX/llama-7b-decode.yaml" \
  --parallelism tp=2 -o "$WORK/out" >"$WORK/d.txt"
expect_contains "$WORK/d.txt" "decode step"
# At batch 32 a decode step's kernels are mostly their launch cost, then HBM.
expect_contains "$WORK/d.txt" "bottleneck: kernel overhead"
expect_contains "$WORK/d.txt" "  memory:hbm "
expect_contains "$WORK/d.txt" "package_area-bound"
python3 -c "import json,sys; j=json.load(open(sys.argv[1])); assert [c['name'] for c in j['generated']][0] == 'core'" "$WORK/out/prediction.json"
for f in prediction.json kernels.csv device.yaml; do [[ -s "$WORK/out/$f" ]] || fail "missing $f"; done
head -1 "$WORK/out/kernels.csv" | grep -q '^part,name,kind,bound,forward_s,backward_s,recompute_s$' || fail "csv header"
"$SNR" pathfind gemm 4096 4096 4096 --hw "$WORK/out/device.yaml" >/dev/null
"$SNR" pathfind predict --hw a100-80gb --model "$EX/gemm-8k.yaml" --parallelism RC-4-2-d1-p1 --json >"$WORK/g.json"
python3 -c "import json,sys; j=json.load(open(sys.argv[1])); assert j['time_name']=='gemm' and j['kernels'][1]['name']=='all_gather', j" "$WORK/g.json"

# The LSTM language model: scheduled by events, two stages overlap.
"$SNR" pathfind predict --hw v100 --model "$EX/lstm-lm.yaml" --parallelism d1-p1 --json >"$WORK/l1.json"
"$SNR" pathfind predict --hw v100 --model "$EX/lstm-lm.yaml" --parallelism d1-p2 --json >"$WORK/l2.json"
python3 - "$WORK/l1.json" "$WORK/l2.json" <<'PY'
import json, sys
one, two = (json.load(open(f)) for f in sys.argv[1:])
assert one["time_s"] / 2 < two["time_s"] < one["time_s"], (one["time_s"], two["time_s"])
assert abs(sum(c["seconds"] for c in two["causes"]) / two["time_s"] - 1) < 1e-9
PY

# Failures that name the field; out of memory is exit 3 with the verdict.
expect_fail "$SNR" pathfind predict --hw a100-80gb --model "$EX/gemm-8k.yaml" --parallelism d12-p1
expect_contains "$WORK/expect_fail.out" "packages"
expect_fail "$SNR" pathfind predict --hw a100-80gb --model "$EX/gemm-8k.yaml" --parallelism RC-4-2-d2-p1 --devices 8
expect_contains "$WORK/expect_fail.out" "uses 16 devices but the system has 8"
expect_fail "$SNR" pathfind predict --hw a100-80gb --model "$EX/gpt3-175B-train.yaml" --parallelism RC-4-2-d1-p8
expect_contains "$WORK/expect_fail.out" "CR-8-d1-p8"
expect_fail "$SNR" pathfind predict --hw a100-80gb --model "$EX/gpt3-175B-train.yaml" --parallelism tp=8,pp=8 --mapping r,r,p,d
expect_contains "$WORK/expect_fail.out" "--mapping"
expect_fail "$SNR" pathfind predict --hw a100-80gb --tech n7 --model "$EX/gemm-8k.yaml" --parallelism d1-p1
sed 's/heads: 96/heads: 95/' "$EX/gpt3-175B-train.yaml" >"$WORK/bad_model.yaml"
expect_fail "$SNR" pathfind predict --hw a100-80gb --model "$WORK/bad_model.yaml" --parallelism tp=8,pp=8
expect_contains "$WORK/expect_fail.out" "heads"
# emit: the same design as traces and configs that validate and simulate;
# the simulator's time stays near the prediction (it adds store-and-forward
# switches and the exact 1F1B interleaving of transfers).
cat >"$WORK/small.yaml" <<'YAML'
workload:
  name: small
  kind: transformer
  model: {hidden: 2048, heads: 16, head_dim: 128, ffn: 8192, layers: 8}
  phase: training
  batch: 16
  microbatch: 1
  sequence: 1024
  dtype: fp16
YAML
"$SNR" pathfind emit --hw a100-80gb --model "$WORK/small.yaml" --parallelism tp=2,pp=2,dp=4 -o "$WORK/emit" >"$WORK/emit.txt"
expect_contains "$WORK/emit.txt" "run: snr sim"
"$SNR" et validate "$WORK/emit/trace" >"$WORK/validate.txt"
expect_contains "$WORK/validate.txt" "OK: 16 rank(s), 0 error(s)"
"$SNR" sim --workload-configuration="$WORK/emit/trace" --system-configuration="$WORK/emit/system.json" \
  --network-configuration="$WORK/emit/network.yml" --remote-memory-configuration="$WORK/emit/remote_memory.json" \
  --comm-group-configuration="$WORK/emit/trace.comm_groups.json" -o "$WORK/emit/sim" >/dev/null
python3 - "$WORK/emit/prediction.json" "$WORK/emit/sim/summary.json" <<'PY'
import json, sys
predicted = json.load(open(sys.argv[1]))["time_s"]
simulated = json.load(open(sys.argv[2]))["finish_ns"] * 1e-9
assert 0.8 < simulated / predicted < 1.3, (predicted, simulated)
PY
"$SNR" pathfind emit --hw a100-80gb --model "$EX/llama-7b-decode.yaml" --parallelism tp=4,pp=2 -o "$WORK/emit_decode" >/dev/null
"$SNR" et validate "$WORK/emit_decode/trace" >/dev/null
# A generated NPU: the emitted hardware config compiles and runs the decode step.
"$SNR" pathfind emit --tech n7 --arch npu-128x128 --budget npu-v4-like --model "$EX/npu-decode.yaml" \
  --parallelism tp=4 -o "$WORK/npu" >"$WORK/npu.txt"
expect_contains "$WORK/npu.txt" "NPU config"
"$SNR" compile "$SRC/examples/llm-decode.yaml" -o "$WORK/npu_model" --set hardware="$WORK/npu/npu.yaml" >/dev/null
"$SNR" run "$WORK/npu_model" --json >"$WORK/npu_run.json"
python3 - "$WORK/npu_run.json" "$WORK/npu/prediction.json" <<'PY'
import json, sys
run, predicted = (json.load(open(f)) for f in sys.argv[1:])
assert run["chips"] == 4 and run["cycles"] > 0, run["chips"]
assert abs(run["clock_hz"] / 1.05e9 - 1) < 0.005, run["clock_hz"]
assert predicted["time_name"] == "decode step" and predicted["time_s"] > 0
PY
expect_fail "$SNR" pathfind emit --hw a100-80gb --model "$WORK/small.yaml" --parallelism tp=2,pp=2,dp=4,interleave=2 -o "$WORK/emit_bad"
expect_contains "$WORK/expect_fail.out" "interleave"

status=0
"$SNR" pathfind predict --hw a100-80gb --model "$EX/gpt3-175B-train.yaml" --parallelism tp=8 >"$WORK/oom.txt" || status=$?
((status == 3)) || fail "expected exit 3 for out of memory, got $status"
expect_contains "$WORK/oom.txt" "OUT OF MEMORY"

# A network tier's latency once per operation and its traffic factors:
# the written device.yaml carries them (the presets' 10 us per operation),
# Calculon's 1.5x reduce-scatter makes a sequence-parallel step slower, and
# factors or latencies out of range are refused at their key.
"$SNR" pathfind predict --hw a100-80gb --model "$EX/gpt3-175B-train.yaml" \
  --parallelism tp=8,pp=8,dp=1,sp,recompute=selective -o "$WORK/tiers" >/dev/null
expect_contains "$WORK/tiers/device.yaml" "operation_latency: 10000000ps"
sed 's/operation_latency: 10000000ps}/operation_latency: 10000000ps, traffic: {reduce_scatter: {scalar: 1.5, offset: -1}, all_gather: {scalar: 1.5, offset: -1}}}/' \
  "$WORK/tiers/device.yaml" >"$WORK/calculon_tiers.yaml"
"$SNR" pathfind predict --hw "$WORK/calculon_tiers.yaml" --model "$EX/gpt3-175B-train.yaml" \
  --parallelism tp=8,pp=8,dp=1,sp,recompute=selective --json >"$WORK/calculon_tiers.json"
python3 - "$WORK/tiers/prediction.json" "$WORK/calculon_tiers.json" <<'PY'
import json, sys
ring, calculon = (json.load(open(f))["time_s"] for f in sys.argv[1:])
assert calculon > ring, (ring, calculon)
PY
for bad in "traffic: {all_reduce: {scalar: 0}}" "traffic: {all_reduce: {scalar: 2, offset: -3}}" "operation_latency: 10"; do
  sed "s/operation_latency: 10000000ps}/$bad}/" "$WORK/tiers/device.yaml" >"$WORK/bad_tier.yaml"
  expect_fail "$SNR" pathfind predict --hw "$WORK/bad_tier.yaml" --model "$EX/gemm-8k.yaml" --parallelism RC-4-2-d1-p1
  expect_contains "$WORK/expect_fail.out" "device.network[0]."
done
# The example device file is the preset written out: GPT-3's iteration
# (its communication included) is the same to the last digit.
for hw in a100-80gb "$EX/a100-80gb.yaml"; do
  "$SNR" pathfind predict --hw "$hw" --model "$EX/gpt3-175B-train.yaml" --parallelism tp=8,pp=8,sp,recompute=selective \
    --json | python3 -c 'import json, sys; print(repr(json.load(sys.stdin)["time_s"]))'
done >"$WORK/preset_vs_example.txt"
if [[ $(sort -u "$WORK/preset_vs_example.txt" | wc -l) != 1 ]]; then
  fail "preset and example device predict differently: $(tr '\n' ' ' <"$WORK/preset_vs_example.txt")"
fi
# The generated A100-like device charges NVLink's and InfiniBand's latency
# once per collective, as the preset: GPT-3 within 0.1% of it (its chip
# differs a little), where a per-step latency made it 2.9% slower.
"$SNR" pathfind predict --tech n7 --arch gpu-16x16 --budget a100-like --model "$EX/gpt3-175B-train.yaml" \
  --parallelism tp=8,pp=8,sp,recompute=selective --json >"$WORK/gen_gpt3.json"
python3 - "$WORK/gen_gpt3.json" "$(head -1 "$WORK/preset_vs_example.txt")" <<'PY' || fail "generated A100-like vs preset"
import json, sys
generated, preset = json.load(open(sys.argv[1]))["time_s"], float(sys.argv[2])
assert abs(generated / preset - 1) < 1e-3, (generated, preset)
PY
# Llama's untied embeddings: unpipelined, a device holds the input embedding
# and the output layer, 6.74 B parameters in bf16; tied, one matrix less.
"$SNR" pathfind predict --hw a100-80gb --model "$EX/llama-7b-decode.yaml" --parallelism tp=1 --json >"$WORK/untied.json"
sed 's/tied_embeddings: false/tied_embeddings: true/' "$EX/llama-7b-decode.yaml" >"$WORK/tied.yaml"
"$SNR" pathfind predict --hw a100-80gb --model "$WORK/tied.yaml" --parallelism tp=1 --json >"$WORK/tied.json"
python3 - "$WORK/untied.json" "$WORK/tied.json" <<'PY' || fail "untied embeddings"
import json, sys
untied, tied = (json.load(open(p))["memory"]["weights_bytes"] for p in sys.argv[1:3])
assert untied == 2 * 6738415616, untied  # Llama-2-7B's published count, its 65 RMSNorm gains included
assert untied - tied == 32000 * 4096 * 2, (untied, tied)
assert json.load(open(sys.argv[1]))["parameters"] == 6738415616
PY
"$SNR" pathfind predict --hw a100-80gb --model "$EX/llama-7b-decode.yaml" --parallelism tp=1 >"$WORK/untied.txt"
expect_contains "$WORK/untied.txt" "workload llama-7b (decode, 6.738 B parameters)"
sed 's/tied_embeddings: false/tied_embeddings: false, norm: groupnorm/' "$EX/llama-7b-decode.yaml" >"$WORK/groupnorm.yaml"
expect_fail "$SNR" pathfind predict --hw a100-80gb --model "$WORK/groupnorm.yaml" --parallelism tp=1
expect_contains "$WORK/expect_fail.out" "model.norm: 'groupnorm' is not layernorm or rmsnorm"
sed 's/tied_embeddings: false/tied_embeddings: no/' "$EX/llama-7b-decode.yaml" >"$WORK/no.yaml"
expect_fail "$SNR" pathfind predict --hw a100-80gb --model "$WORK/no.yaml" --parallelism tp=1
expect_contains "$WORK/expect_fail.out" "tied_embeddings: 'no' is not a boolean: expected true or false"

# An input kept in the -o directory under a name the run writes there is
# refused before anything is written (it was replaced by the output).
mkdir -p "$WORK/inplace"
cp "$EX/a100-80gb.yaml" "$WORK/inplace/device.yaml"
cp "$EX/gemm-8k.yaml" "$WORK/inplace/network.yml"
expect_fail "$SNR" pathfind predict --hw "$WORK/inplace/device.yaml" --model "$EX/gemm-8k.yaml" \
  --parallelism RC-4-2-d1-p1 -o "$WORK/inplace"
expect_contains "$WORK/expect_fail.out" "is the input file"
cmp -s "$EX/a100-80gb.yaml" "$WORK/inplace/device.yaml" || fail "predict -o replaced its --hw input"
expect_fail "$SNR" pathfind emit --hw a100-80gb --model "$WORK/inplace/network.yml" --parallelism RC-4-2-d1-p1 \
  -o "$WORK/inplace"
cmp -s "$EX/gemm-8k.yaml" "$WORK/inplace/network.yml" || fail "emit -o replaced its --model input"
"$SNR" pathfind generate --print-input a100-like >"$WORK/inplace/best_budget.yaml"
cp "$WORK/inplace/best_budget.yaml" "$WORK/inplace/budget_copy.yaml"
expect_fail "$SNR" pathfind search --tech n7 --arch gpu-16x16 --budget "$WORK/inplace/best_budget.yaml" \
  --model "$EX/gemm-8k.yaml" --parallelism CR-8-d1-p1 --starts 1 --steps 1 -o "$WORK/inplace"
cmp -s "$WORK/inplace/budget_copy.yaml" "$WORK/inplace/best_budget.yaml" || fail "search -o replaced its --budget"
expect_fail "$SNR" pathfind generate --budget "$WORK/inplace/budget_copy.yaml" -o "$WORK/inplace/budget_copy.yaml"
cmp -s "$WORK/inplace/budget_copy.yaml" "$WORK/inplace/best_budget.yaml" || fail "generate -o replaced its --budget"
echo ok
