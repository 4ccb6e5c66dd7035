#!/usr/bin/env bash
# Replay speed on the default LLM decode window (600k instructions on 4
# chips). Records the window once (about a minute) unless a snapshot is
# given, then reports CPU time (user + sys, one core) and peak memory of:
# decoding (`snr snapshot validate`), the functional re-execution
# (`snr snapshot check`), the replay with run data (`snr replay`) and the
# in-process breakdown of replay_window_bench.
#
# Usage: bench/replay/real_window.sh [BUILD_DIR] [SNAPSHOT]
#   BUILD_DIR defaults to build; SNAPSHOT is recorded into a scratch
#   directory when absent (pass it again to skip recording next time).
set -euo pipefail
cd "$(dirname "$0")/../.."
build="${1:-build}"
snapshot="${2:-}"
snr="$build/snr"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

if [[ -z "$snapshot" ]]; then
  snapshot="$work/llm.snr"
  "$snr" compile examples/llm-decode.yaml -o "$work/model" >/dev/null
  "$snr" device serve "$work/model" --port 0 --once >"$work/serve.out" 2>&1 &
  server=$!
  for _ in $(seq 600); do grep -q "listening on" "$work/serve.out" 2>/dev/null && break; sleep 0.5; done
  port="$(grep -o '127.0.0.1:[0-9]*' "$work/serve.out" | cut -d: -f2)"
  "$snr" record --target "127.0.0.1:$port" --model "$work/model" --break layer0.attn.rmsnorm --count 150000 \
    --chips all --quiet -o "$snapshot"
  wait "$server"
fi

measure() {  # LABEL COMMAND...: prints "label | user+sys s | peak MB"
  local label="$1"
  shift
  /usr/bin/time -f '%U %S %M' -o "$work/time" "$@" >/dev/null
  read -r user sys peak_kb <"$work/time"
  printf '| %s | %.2f s (%.2f user + %.2f sys) | %d MB |\n' "$label" "$(echo "$user + $sys" | bc)" "$user" "$sys" \
    "$((peak_kb / 1024))"
}

echo "snapshot: $snapshot ($(stat -c %s "$snapshot") bytes), load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| step | CPU | peak memory |"
echo "|---|---|---|"
measure "decode + validate (snr snapshot validate)" "$snr" snapshot validate "$snapshot"
measure "functional re-execution (snr snapshot check)" "$snr" snapshot check "$snapshot"
measure "replay + run data (snr replay)" "$snr" replay "$snapshot" -o "$work/run.db"
echo "run.db: $(stat -c %s "$work/run.db") bytes"
if [[ -x "$build/bench/replay/replay_window_bench" ]]; then
  SNR_REPLAY_SNAPSHOT="$snapshot" "$build/bench/replay/replay_window_bench"
fi
