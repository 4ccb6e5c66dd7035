#!/usr/bin/env bash
# Records a compiled model's window from `snr device serve` over loopback
# and prints the recorder's figures: instructions/s, bytes captured, the
# snapshot against a naive full-state dump, wall and CPU time of recorder
# and device, and the snapshot write. Usage:
#   bench/record/record_window.sh BUILD_DIR decode|allgather [EXTRA RECORD ARGS...]
# decode: the default LLM decode (examples/llm-decode.yaml), one layer's
# window per chip from the first op of layer 1, every chip.
# allgather: examples/allgather.yaml, the whole program, every chip.
set -euo pipefail
cd "$(dirname "$0")/../.."
build="${1:?usage: record_window.sh BUILD_DIR decode|allgather [EXTRA RECORD ARGS...]}"
window="${2:?usage: record_window.sh BUILD_DIR decode|allgather [EXTRA RECORD ARGS...]}"
shift 2
snr="$build/snr"
work="$(mktemp -d)"
server=""
cleanup() {
  if [[ -n "$server" ]]; then kill "$server" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

case "$window" in
  decode)
    spec=examples/llm-decode.yaml
    # One layer's window, as the compiler counts it (fallback: the
    # default example's figure in docs/benchmarks.md).
    count=130380
    if [[ -x "$build/bench/compiler/bench_compiler" ]]; then
      count=$("$build/bench/compiler/bench_compiler" window "$spec" | sed -n 's/^layer_instructions_per_chip //p')
    fi
    record_args=(--break layer1.attn.rmsnorm --count "$count")
    ;;
  allgather)
    spec=examples/allgather.yaml
    record_args=(--count 100000)
    ;;
  *) echo "unknown window '$window' (decode or allgather)" >&2; exit 2 ;;
esac

"$snr" compile "$spec" -o "$work/model" >/dev/null
: >"$work/serve.out"
/usr/bin/time -f '%e %U %S %M' -o "$work/serve.time" \
  "$snr" device serve "$work/model" --port 0 --once >"$work/serve.out" 2>"$work/serve.err" &
server=$!
port=""
for _ in $(seq 1 3000); do
  port=$(sed -n 's/^listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$work/serve.out")
  [[ -n "$port" ]] && break
  sleep 0.1
done
[[ -n "$port" ]] || { cat "$work/serve.err" >&2; exit 1; }

load_before=$(cut -d' ' -f1 /proc/loadavg)
/usr/bin/time -f '%e %U %S %M' -o "$work/record.time" \
  "$snr" record --target "127.0.0.1:$port" --model "$work/model" --chips all "${record_args[@]}" "$@" --quiet \
  -o "$work/window.snr" >"$work/record.out"
wait "$server"
server=""
load_after=$(cut -d' ' -f1 /proc/loadavg)
"$snr" snapshot check "$work/window.snr" >"$work/check.out"

read -r rec_wall rec_user rec_sys rec_rss <"$work/record.time"
read -r srv_wall srv_user srv_sys srv_rss <"$work/serve.time"
echo "window: $window ($spec), record args: ${record_args[*]} $*"
echo "load average: $load_before before, $load_after after"
grep -E '^(recorded|captured|recorder CPU)' "$work/record.out"
echo "snapshot file: $(stat -c %s "$work/window.snr") bytes"
echo "debugger requests: $("$snr" snapshot info "$work/window.snr" | sed -n 's/^debugger requests: //p')"
echo "snr record: ${rec_wall} s wall, ${rec_user} s user + ${rec_sys} s sys CPU, ${rec_rss} KB max RSS"
echo "snr device serve: ${srv_wall} s wall, ${srv_user} s user + ${srv_sys} s sys CPU in all (loading the model included)"
sed -n 's/.*debugger .* \(detached\|disconnected\|killed\): /device session: /p' "$work/serve.err"
grep -E 'match' "$work/check.out"
