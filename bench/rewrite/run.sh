#!/usr/bin/env bash
# Records the default LLM decode window (150,000 instructions per chip from
# layer0.attn.rmsnorm on 4 chips) and times verifying two suggestions on it
# (docs/benchmarks.md, "Suggestion verification"): the mlp all-gather's
# setup chains issued level by level (legal), and a far prefetch of 60 of
# the down projection's weight DMAs to the start of the mlp (illegal: the
# compiler reuses its DMA scratch registers).
# Usage: bench/rewrite/run.sh BUILD_DIR [WORK_DIR] (from the repository
# root). An existing WORK_DIR/llm.snr is reused.
set -euo pipefail
BUILD="${1:-build}"
WORK="${2:-$(mktemp -d)}"
SNR="$BUILD/snr"
BENCH="$BUILD/bench/rewrite/verify_bench"
HERE="$(dirname "$0")"
mkdir -p "$WORK"
source "$(dirname "$0")/../lib/record_window.sh"
if [[ ! -f "$WORK/llm.snr" ]]; then
  record_compiled_window "$SNR" examples/llm-decode.yaml "$WORK/llm" layer0.attn.rmsnorm 150000 "$WORK/llm.snr"
fi
"$SNR" disasm "$WORK/llm/chip0.elf" -s layer0.mlp.all_gather.setup >"$WORK/setup.txt"
awk -f "$HERE/level_by_level_moves.awk" "$WORK/setup.txt" >"$WORK/moves-setup.json"
"$SNR" disasm "$WORK/llm/chip0.elf" -s layer0.mlp.down_matmul >"$WORK/down.txt"
mlp_start=$("$SNR" disasm "$WORK/llm/chip0.elf" -s layer0.mlp.rmsnorm | awk '/^ *[0-9a-f]+:/ && !seen++ { print "0x" substr($1, 1, length($1) - 1) }')
awk -v GROUPS=60 -v BEFORE="$mlp_start" -f "$HERE/prefetch_moves.awk" "$WORK/down.txt" >"$WORK/moves-far.json"
for moves in setup far; do
  echo "== $moves: $WORK/moves-$moves.json"
  /usr/bin/time -f "process: %U s user, %S s sys, max RSS %M KiB" "$BENCH" "$WORK/llm.snr" "$WORK/moves-$moves.json"
done
