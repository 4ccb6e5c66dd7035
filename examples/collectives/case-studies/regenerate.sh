#!/usr/bin/env bash
# Regenerates the tables and plots of docs/collective-case-studies.md: each
# figure on 4 GPUs at SHORT_SIZES (a ring step or a direct exchange moves
# the same bytes per link as at the paper's GPU count, at 1/64 to 1/16 of
# the simulation cost, so the bandwidth-bound sizes are affordable), then at
# the paper's shape up to PAPER_MAX_SIZE.
#   usage: examples/collectives/case-studies/regenerate.sh [OUT_DIR]
# SNR names the binary (default: snr on PATH); JOBS runs at once (default 2).
# Tables go to OUT_DIR/figNN*.txt, results to .json, plots to .svg
# (default OUT_DIR: docs/collective-case-studies).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here/../../../docs/collective-case-studies}"
jobs="${JOBS:-2}"
paper_max="${PAPER_MAX_SIZE:-4MiB}"
short_sizes="${SHORT_SIZES:-1KiB,16KiB,256KiB,1MiB,4MiB,16MiB}"
figures=(fig10_reducescatter_get_put fig11_allgather_get_put fig12_alltoall_unroll fig13_allgather_outstanding)
mkdir -p "$out/paper-shape" "$out/4-gpus"
for figure in "${figures[@]}"; do
  name="${figure%%_*}"
  "$here/$figure.py" --gpus 4 --sizes "$short_sizes" --jobs "$jobs" --json "$out/4-gpus/$name.json" \
    | tee "$out/4-gpus/$name.txt"
done
for figure in "${figures[@]}"; do
  name="${figure%%_*}"
  "$here/$figure.py" --max-size "$paper_max" --jobs "$jobs" --json "$out/paper-shape/$name.json" \
    | tee "$out/paper-shape/$name.txt"
done
"$here/plot_case_studies.py" "$out"/paper-shape/*.json --out-dir "$out/paper-shape"
"$here/plot_case_studies.py" "$out"/4-gpus/*.json --out-dir "$out/4-gpus"
