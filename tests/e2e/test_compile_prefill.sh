#!/usr/bin/env bash
# A (shrunk) prefill step and the standalone collectives compile and run.
source "$(dirname "$0")/lib.sh"
"$SNR" compile "$SRC/examples/llm-prefill.yaml" -o "$WORK/p" --set model.hidden=256 --set model.heads=8 \
  --set model.kv_heads=4 --set model.ffn=1024 --set sequence=16 --set batch=2 >"$WORK/compile.out"
"$SNR" run "$WORK/p" >"$WORK/run.out"
expect_contains "$WORK/run.out" "layer0.attn.attention"
for spec in reducescatter allreduce alltoall; do
  "$SNR" compile "$SRC/examples/$spec.yaml" -o "$WORK/$spec" >/dev/null
  "$SNR" run "$WORK/$spec" --json >"$WORK/$spec.json"
  expect_contains "$WORK/$spec.json" '"matrix_utilization"'
done
