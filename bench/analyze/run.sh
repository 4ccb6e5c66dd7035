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
if [[ ! -f "$WORK/llm.db" ]]; then
  "$SNR" compile examples/llm-decode.yaml -o "$WORK/llm" >/dev/null
  "$SNR" device serve "$WORK/llm" --port 0 --once >"$WORK/serve.out" 2>"$WORK/serve.err" &
  server=$!
  port=""
  for _ in $(seq 600); do
    port=$(sed -n 's/^listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$WORK/serve.out")
    [[ -n "$port" ]] && break
    sleep 0.1
  done
  [[ -n "$port" ]] || { cat "$WORK/serve.err" >&2; exit 1; }
  "$SNR" record --target "127.0.0.1:$port" --elf "$WORK/llm/chip0.elf" --break layer0.attn.qkv_matmul \
    --count 150000 --chips all --quiet -o "$WORK/llm.snr"
  wait "$server"
  "$SNR" replay "$WORK/llm.snr" -o "$WORK/llm.db" --quiet
fi
echo "== analyzer on $WORK/llm.db (CPU seconds per phase)"
/usr/bin/time -f "process: %U s user, %S s sys, max RSS %M KiB" "$BENCH" "$WORK/llm.db" "$WORK/tables"
du -sh "$WORK/tables"
