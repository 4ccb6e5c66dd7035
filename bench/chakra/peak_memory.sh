#!/usr/bin/env bash
# Streams a synthetic ~1 GB .et and reports read throughput and peak RSS
# (streaming: peak memory must stay far below the file size).
# Usage: bench/chakra/peak_memory.sh BUILD_DIR [TARGET_BYTES]
set -euo pipefail
BUILD_DIR="${1:?usage: $0 BUILD_DIR [TARGET_BYTES]}"
TARGET_BYTES="${2:-1000000000}"
TOOL="$BUILD_DIR/bench/chakra/chakra_stream_tool"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
"$TOOL" generate "$WORK/big.0.et" "$TARGET_BYTES"
ls -l "$WORK/big.0.et"
/usr/bin/time -v "$TOOL" read "$WORK/big.0.et" 2>"$WORK/time.txt"
grep -E "Maximum resident set size|Elapsed|User time|System time" "$WORK/time.txt"
