# Records compiled models served by `snr device serve OUTDIR`: the all-gather
# collective (whole program, every chip) and a window of the LLM decode step
# from its first QKV matmul; both re-execute exactly.
source "$(dirname "$0")/lib.sh"
specs="$SRC/examples"
for spec in allgather llm-decode; do
  [[ -f "$specs/$spec.yaml" ]] || { echo "SKIP: $specs/$spec.yaml is missing"; exit 0; }
done

serve_and_record() {  # OUTDIR SNAPSHOT RECORD-ARGS...
  local outdir="$1" snapshot="$2"
  shift 2
  start_device 300 "$outdir"  # loading a model's HBM can take a while
  timeout 300 "$SNR" record --target "127.0.0.1:$port" --model "$outdir" --quiet -o "$snapshot" "$@" \
    >"$WORK/record.out" 2>&1 || { cat "$WORK/record.out" >&2; fail "record from $outdir failed"; }
  wait "$server"
  cat "$WORK/record.out"
}

"$SNR" compile "$specs/allgather.yaml" -o "$WORK/allgather" >/dev/null
serve_and_record "$WORK/allgather" "$WORK/allgather.snr" --count 100000
expect_contains "$WORK/record.out" "on 4 chip(s)"
expect_contains "$WORK/record.out" "window ended by exit"
"$SNR" snapshot check "$WORK/allgather.snr" >"$WORK/check.out"
expect_contains "$WORK/check.out" "match"

"$SNR" compile "$specs/llm-decode.yaml" -o "$WORK/decode" >/dev/null
serve_and_record "$WORK/decode" "$WORK/decode.snr" --break layer0.attn.qkv_matmul --count 5000
expect_contains "$WORK/record.out" "recorded 20000 instructions on 4 chip(s)"
"$SNR" snapshot info "$WORK/decode.snr" >"$WORK/info.out"
expect_contains "$WORK/info.out" "breakpoint: layer0.attn.qkv_matmul"
"$SNR" snapshot check "$WORK/decode.snr" >"$WORK/check.out"
expect_contains "$WORK/check.out" "match: 20000 instructions"
echo "record compiled ok"
