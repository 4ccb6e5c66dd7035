#!/usr/bin/env bash
# snr pathfind train against Calculon itself on every model Calculon ships,
# on its A100 and H100 systems: one execution per model (tp 8, pp the
# largest divisor of the blocks up to 16, dp 4, microbatch 1, 8 microbatches
# per pipeline stage, full recompute, otherwise Calculon's own example
# execution). Prints one row per (model, system): both iteration times,
# snr's difference, and both memory figures (Calculon's tier-1 requirement).
#
# Usage: bench/pathfind/calculon_crosscheck.sh SNR CALCULON_CHECKOUT [PYTHON]
#   CALCULON_CHECKOUT: a clone of calculon-ai/calculon (its bin/calculon,
#   models/, systems/, examples/); PYTHON needs numpy (default python3).
set -euo pipefail
SNR="$(realpath "${1:?snr binary}")"
CALCULON="$(realpath "${2:?Calculon checkout}")"
PYTHON="${3:-python3}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
# Calculon imports pandas only for its search over executions.
mkdir -p "$WORK/stub" && : >"$WORK/stub/pandas.py"
printf '%-16s %-14s %10s %10s %8s %10s %10s\n' model system calculon_s snr_s diff calc_GiB snr_GiB
for model in "$CALCULON"/models/*.json; do
  name="$(basename "$model" .json)"
  "$PYTHON" - "$model" "$CALCULON/examples/3072_t4_p64_d12_mbs4_full.json" >"$WORK/exec_$name.json" <<'PY'
import json, sys
model, execution = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
blocks = model["num_blocks"]
pp = max(d for d in range(1, 17) if blocks % d == 0)
tp, dp = 8, 4
execution.update(num_procs=tp * pp * dp, tensor_par=tp, pipeline_par=pp, data_par=dp, batch_size=dp * pp * 8,
                 microbatch_size=1, tensor_par_net=0, pipeline_par_net=1, data_par_net=1)
print(json.dumps(execution))
PY
  for system in a100_80g h100_80g_nvl8; do
    calc="$WORK/calc_${name}_$system.json"
    ours="$WORK/snr_${name}_$system.json"
    (cd "$CALCULON" && PYTHONPATH="$CALCULON:$WORK/stub" "$PYTHON" ./bin/calculon llm "$model" \
      "$WORK/exec_$name.json" "systems/$system.json" "$calc" >/dev/null 2>&1) || { echo "$name $system: Calculon failed"; continue; }
    "$SNR" pathfind train --model "$model" --system "$CALCULON/systems/$system.json" \
      --execution "$WORK/exec_$name.json" --json >"$ours" 2>/dev/null || true
    "$PYTHON" - "$name" "$system" "$calc" "$ours" <<'PY'
import json, sys
name, system, calc, ours = sys.argv[1:]
c = json.load(open(calc))
try:
    s = json.load(open(ours))
except ValueError:
    print(f"{name} {system}: snr failed"); sys.exit()
gib = 2 ** 30
print(f"{name:16s} {system:14s} {c['total_time']:10.3f} {s['iteration_s']:10.3f} "
      f"{100 * (s['iteration_s'] / c['total_time'] - 1):+7.1f}% {c['proc_mem_tier1_cap_req'] / gib:10.1f} "
      f"{s['memory']['total_bytes'] / gib:10.1f}")
PY
  done
done
