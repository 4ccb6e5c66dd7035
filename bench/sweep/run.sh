#!/usr/bin/env bash
# Times snr sweep: a 10,000-point pathfind sweep on one core (goal: <= 30 s),
# and a 2,000-point sweep in one process vs `mpirun -np 2` on two cores
# (goal: >= 1.8x faster inside the sweep; five alternating pairs, medians), each into a
# fresh database. Each pair also runs two independent one-process sweeps at once, one per
# core: their combined rate is the most any split of the work could reach on this machine
# (its two cores do not run two busy processes at full speed each), and the farm's
# speed-up is reported against that ceiling too.
# Usage: bench/sweep/run.sh [BUILD_DIR] (from the repository root).
set -euo pipefail
BUILD="${1:-build}"
SNR="$(cd "$BUILD" && pwd)/snr"
MODEL="$(pwd)/examples/pathfind/gpt3-175B-train.yaml"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# GPT-3 175B on A100-like devices: HBM and NVLink bandwidth and HBM
# capacity drawn per point (every point's device is distinct, so each one
# is read and predicted), and one of three parallelisms.
grid() {
  cat <<YAML
kind: pathfind
base:
  device: a100-80gb
  model: $MODEL
  parallelism: "tp=8,pp=8,sp,recompute=selective"
random:
  samples: $1
  seed: 1
  keys:
    device.hbm.bandwidth: {log-uniform: [1TB/s, 8TB/s]}
    device.hbm.capacity: {uniform: [40GiB, 160GiB]}
    device.nvlink3.bandwidth: {log-uniform: [150GB/s, 1.2TB/s]}
    parallelism: {choice: ["tp=8,pp=8,sp,recompute=selective", "tp=4,pp=16,sp,recompute=selective",
                           "tp=8,pp=16,sp,recompute=selective"]}
YAML
}
grid 10000 >"$work/g10k.yaml"
grid 2000 >"$work/g2k.yaml"
summary() { python3 -c "import json,sys; s=json.load(open(sys.argv[1])); print(f\"  {s['run']} points, {s['ranks']} rank(s), {s['seconds']:.2f} s in the sweep, {s['points_per_s']:.0f} points/s\")" "$1"; }

echo "== 10,000-point pathfind sweep on one core: taskset -c 0 snr sweep g10k.yaml -o g10k.sqlite --json"
/usr/bin/time -f "  %e s wall, %U s user, max RSS %M KiB" taskset -c 0 "$SNR" sweep "$work/g10k.yaml" \
  -o "$work/g10k.sqlite" --json >"$work/g10k.json"
summary "$work/g10k.json"

# Five alternating pairs: the medians resist a busy neighbour on the machine.
local_runs=()
mpi_runs=()
pair_runs=()
have_mpi=0
if command -v mpirun >/dev/null && "$SNR" version --json | grep -q '"mpi"'; then
  have_mpi=1
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader \
    OMPI_MCA_btl_vader_single_copy_mechanism=none
fi
for i in 1 2 3 4 5; do
  echo "== 2,000-point sweep, one process on cores 0-1 (run $i): taskset -c 0,1 snr sweep g2k.yaml -o local$i.sqlite --json"
  /usr/bin/time -f "  %e s wall, %U s user" taskset -c 0,1 "$SNR" sweep "$work/g2k.yaml" -o "$work/local$i.sqlite" \
    --json >"$work/local$i.json"
  summary "$work/local$i.json"
  local_runs+=("$work/local$i.json")
  ((have_mpi)) || continue
  echo "== the same with 2 ranks on cores 0-1 (run $i): mpirun --oversubscribe -np 2 --bind-to none taskset -c 0,1 snr sweep g2k.yaml -o mpi$i.sqlite --json"
  /usr/bin/time -f "  %e s wall, %U s user" mpirun --oversubscribe -np 2 --bind-to none taskset -c 0,1 "$SNR" sweep \
    "$work/g2k.yaml" -o "$work/mpi$i.sqlite" --json >"$work/mpi$i.json"
  summary "$work/mpi$i.json"
  mpi_runs+=("$work/mpi$i.json")
  echo "== two independent one-process sweeps at once (run $i): taskset -c 0 snr sweep ... & taskset -c 1 snr sweep ..."
  taskset -c 0 "$SNR" sweep "$work/g2k.yaml" -o "$work/a$i.sqlite" --json >"$work/a$i.json" &
  taskset -c 1 "$SNR" sweep "$work/g2k.yaml" -o "$work/b$i.sqlite" --json >"$work/b$i.json"
  wait
  summary "$work/a$i.json"
  summary "$work/b$i.json"
  pair_runs+=("$work/a$i.json" "$work/b$i.json")
done
if ((have_mpi)); then
  python3 - "${local_runs[@]}" "${mpi_runs[@]}" "${pair_runs[@]}" <<'PY'
import json, statistics, sys
runs = [json.load(open(f))["seconds"] for f in sys.argv[1:]]
n = len(runs) // 4
local, mpi, both = runs[:n], runs[n:2 * n], runs[2 * n:]
# Each pair ran back to back, so its ratio shares the machine's conditions.
ratios = [a / b for a, b in zip(local, mpi)]
# Two full sweeps side by side: together they finish 1/ta + 1/tb sweeps per second.
ceilings = [t * (1 / both[2 * k] + 1 / both[2 * k + 1]) for k, t in enumerate(local)]
print(f"  median sweep time: {statistics.median(local):.2f} s in one process, {statistics.median(mpi):.2f} s with 2 ranks")
print(f"  speed-up per pair: {' '.join(f'{r:.2f}x' for r in ratios)}; median {statistics.median(ratios):.2f}x")
print(f"  ceiling per pair (two independent processes): {' '.join(f'{c:.2f}x' for c in ceilings)}; "
      f"median {statistics.median(ceilings):.2f}x")
print(f"  farm / ceiling per pair: {' '.join(f'{r / c:.0%}' for r, c in zip(ratios, ceilings))}")
PY
  # What mpirun's start adds to any sweep, independent of its size.
  grid 10 >"$work/g10.yaml"
  echo "== launcher cost, a 10-point sweep: snr sweep g10.yaml, then mpirun --oversubscribe -np 2 --bind-to none snr sweep g10.yaml"
  /usr/bin/time -f "  %e s wall in one process" "$SNR" sweep "$work/g10.yaml" -o "$work/l10.sqlite" --json >/dev/null
  /usr/bin/time -f "  %e s wall with mpirun -np 2" mpirun --oversubscribe -np 2 --bind-to none "$SNR" sweep \
    "$work/g10.yaml" -o "$work/m10.sqlite" --json >/dev/null
else
  echo "== skipped the MPI comparison: mpirun or an MPI build of snr is missing"
fi
