#!/usr/bin/env bash
# Replays a fuzz target's committed inputs once: its corpus and its
# reproducers (inputs that once crashed it), whichever of the two exist.
# Works with both builds of a target: the libFuzzer binary (pass -runs=0) and
# the plain replay driver (src/common/fuzz_replay_main.cc).
# Usage: scripts/fuzz_replay.sh BINARY CORPUS_DIR REPRO_DIR [BINARY_ARGS...]
# ("-" or a missing directory: none).
set -euo pipefail
binary="$1"
shift
dirs=()
for dir in "$1" "$2"; do
  if [[ "$dir" != - && -d "$dir" ]]; then dirs+=("$dir"); fi
done
shift 2
if ((${#dirs[@]} == 0)); then
  echo "no corpus or reproducer directory; replaying the empty input only"
fi
exec "$binary" "$@" "${dirs[@]}"
