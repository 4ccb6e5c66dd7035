#!/usr/bin/env bash
# Produces the run.db the analyzer benchmark reads and times the analyzer
# on it (docs/benchmarks.md, ## Analyzer): the default LLM decode, 150,000
# instructions per chip from layer0.attn.qkv_matmul on 4 chips (600,000
# instructions). Usage: bench/analyze/run.sh BUILD_DIR [WORK_DIR]
# (from the repository root). An existing WORK_DIR/llm.db is reused.
set -euo pipefail
BUILD="${1:-build}"
WORK="${2:-$(mktemp -d)}"
SNR="$BUILD/snr"
BENCH="$BUILD/bench/analyze/analyze_bench"
mkdir -p "$WORK"
source "$(dirname "$0")/../lib/record_window.sh"
if [[ ! -f "$WORK/llm.db" ]]; then
  record_compiled_window "$SNR" examples/llm-decode.yaml "$WORK/llm" layer0.attn.qkv_matmul 150000 "$WORK/llm.snr"
  "$SNR" replay "$WORK/llm.snr" -o "$WORK/llm.db" --quiet
fi
echo "== analyzer on $WORK/llm.db (CPU seconds per phase)"
/usr/bin/time -f "process: %U s user, %S s sys, max RSS %M KiB" "$BENCH" "$WORK/llm.db" "$WORK/tables"
du -sh "$WORK/tables"
