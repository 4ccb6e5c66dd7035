#!/usr/bin/env bash
# Wall time and peak RSS of the `snr infra` process on the 3-tier Clos
# example (astra-sim-service/clos_fabric.yaml) and on larger Clos blueprints:
# expand (--json), check, the hop histogram over all rank pairs, bisection
# (max flow) and translation to the analytical backend. Best of $REPS runs
# (default 3) by wall time; cpu_s (user + system) is printed beside it
# because wall time on a loaded machine says little.
# Usage: [REPS=n] bench/infra/run.sh SNR_BINARY [SHARED_DATA_DIR]
set -euo pipefail
SNR="${1:?snr binary}"
DATA="${2:-$(dirname "$0")/../../../shared/data}"
SCRATCH="$(mktemp -d)"
trap 'rm -rf "$SCRATCH"' EXIT

measure() {  # label, command...
  local label="$1" best="" rss="" cpu=""
  shift
  for ((i = 0; i < ${REPS:-3}; i++)); do
    /usr/bin/time -f "%e %M %U %S" -o "$SCRATCH/time" "$@" > "$SCRATCH/out"
    read -r secs kib user sys < "$SCRATCH/time"
    if [[ -z "$best" ]] || awk "BEGIN{exit !($secs < $best)}"; then
      best="$secs"
      rss="$kib"
      cpu=$(awk "BEGIN{print $user + $sys}")
    fi
  done
  printf '%-44s wall_s=%-6s cpu_s=%-6s peak_rss_mib=%s\n' "$label" "$best" "$cpu" "$((rss / 1024))"
}

inputs=("$DATA/infragraph/examples/astra-sim-service/clos_fabric.yaml")
for k in 16 32; do
  "$SNR" infra blueprint clos-fat-tree --set k=$k --set levels=3 -o "$SCRATCH/clos-k$k.yaml" > /dev/null
  inputs+=("$SCRATCH/clos-k$k.yaml")
done
for f in "${inputs[@]}"; do
  name=$(basename "$f" .yaml)
  counts=$("$SNR" infra expand "$f" --json | python3 -c 'import json,sys; j=json.load(sys.stdin); print(j["nodes"], "nodes,", j["edges"], "edges,", j["ranks"], "ranks")')
  echo "== $name: $counts"
  measure "$name expand --json" "$SNR" infra expand "$f" --json
  measure "$name query --bisection" "$SNR" infra query "$f" --bisection
  measure "$name query --hops" "$SNR" infra query "$f" --hops
  # The shared example states no NVLink bandwidth, which the analytical backend needs.
  if [[ "$name" == clos-k* ]]; then
    measure "$name translate --backend analytical" "$SNR" infra translate "$f" --backend analytical -o "$SCRATCH/t"
  fi
done
