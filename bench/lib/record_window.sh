# Sourced by bench scripts: compiles a spec, serves it with `snr device
# serve --once` on an ephemeral loopback port and records a window of every
# chip through it.
#   record_compiled_window SNR SPEC MODEL_DIR BREAK_SYMBOL COUNT OUT_SNAPSHOT
record_compiled_window() {
  local snr="$1" spec="$2" model="$3" break_at="$4" count="$5" out="$6"
  "$snr" compile "$spec" -o "$model" >/dev/null
  "$snr" device serve "$model" --port 0 --once >"$model.serve.out" 2>"$model.serve.err" &
  local server=$! port=""
  for _ in $(seq 600); do
    port=$(sed -n 's/^listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$model.serve.out")
    [[ -n "$port" ]] && break
    sleep 0.1
  done
  [[ -n "$port" ]] || { cat "$model.serve.err" >&2; return 1; }
  "$snr" record --target "127.0.0.1:$port" --elf "$model/chip0.elf" --break "$break_at" \
    --count "$count" --chips all --quiet -o "$out"
  wait "$server"
}
