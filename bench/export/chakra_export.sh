#!/usr/bin/env bash
# Speed of `snr export run.db --chakra` on the default LLM decode window
# (600k instructions on 4 chips, docs/formats/chakra-from-npu.md; goal
# <= 1 s). Records and replays the window once (a few minutes) unless a
# run.db is given, then reports wall time, CPU time and peak memory of the
# export over three runs.
#
# Usage: bench/export/chakra_export.sh [BUILD_DIR] [RUN_DB]
set -euo pipefail
cd "$(dirname "$0")/../.."
build="${1:-build}"
run_db="${2:-}"
snr="$build/snr"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
source bench/lib/record_window.sh

if [[ -z "$run_db" ]]; then
  record_compiled_window "$snr" examples/llm-decode.yaml "$work/model" layer0.attn.rmsnorm 150000 "$work/llm.snr"
  run_db="$work/run.db"
  "$snr" replay "$work/llm.snr" -o "$run_db" --quiet
fi
instructions=$(sqlite3 "$run_db" "SELECT COUNT(*) FROM instructions")
echo "run.db: $instructions instructions, $(($(stat -c %s "$run_db") / 1048576)) MB"
echo "| run | wall | user + sys | peak RSS |"
echo "|---|---:|---:|---:|"
for i in 1 2 3; do
  /usr/bin/time -f '%e %U %S %M' -o "$work/time" "$snr" export "$run_db" --chakra "$work/trace" >"$work/out"
  read -r wall user sys peak_kb <"$work/time"
  printf '| %d | %.2f s | %.2f s | %d MB |\n' "$i" "$wall" "$(echo "$user + $sys" | bc)" "$((peak_kb / 1024))"
done
cat "$work/out"
