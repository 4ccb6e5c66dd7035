#!/usr/bin/env bash
# snr compile of a (shrunk) decode spec: output files, symbols, PC map,
# determinism, and the profile of snr run on the output directory.
source "$(dirname "$0")/lib.sh"
small=(--set model.hidden=256 --set model.heads=8 --set model.kv_heads=4 --set model.ffn=1024
       --set batch=2 --set context=100 --set model.layers=2)

"$SNR" compile "$SRC/examples/llm-decode.yaml" -o "$WORK/a" "${small[@]}" >"$WORK/compile.out"
expect_contains "$WORK/compile.out" "for 4 chips"
expect_contains "$WORK/compile.out" "one layer's window:"
for f in manifest.json pc_map.tsv chip0.elf chip3.elf hbm.chip0.bin.zst hbm.chip3.bin.zst; do
  [[ -s "$WORK/a/$f" ]] || fail "missing $f"
done
expect_contains "$WORK/a/pc_map.tsv" "layer1.attn.qkv_matmul	matmul"
expect_contains "$WORK/a/pc_map.tsv" "layer0.mlp.all_gather	all_gather"

# A symbol per op, where a debugger can break.
"$SNR" disasm "$WORK/a/chip0.elf" >"$WORK/disasm.out"
expect_contains "$WORK/disasm.out" "<layer0.attn.attention>:"
expect_contains "$WORK/disasm.out" "<layer1.mlp.all_gather.setup>:"

# Same spec, same bytes.
"$SNR" compile "$SRC/examples/llm-decode.yaml" -o "$WORK/b" "${small[@]}" >/dev/null
for f in manifest.json pc_map.tsv chip0.elf chip2.elf hbm.chip1.bin.zst; do
  cmp -s "$WORK/a/$f" "$WORK/b/$f" || fail "$f differs between two compiles"
done

# The K/V schedule knobs compile and run; hoisting the K/V reads one head
# group earlier shortens the attention.
"$SNR" compile "$SRC/examples/llm-decode.yaml" -o "$WORK/ahead" "${small[@]}" --set schedule.kv_prefetch=ahead \
  --set schedule.kv_staging=op >/dev/null
attention_cycles() { "$SNR" run "$1" --json | python3 -c "import json,sys; print(next(o['cycles'] for o in json.load(sys.stdin)['ops'] if o['name'] == 'layer1.attn.attention'))"; }
late=$(attention_cycles "$WORK/a")
ahead=$(attention_cycles "$WORK/ahead")
python3 -c "import sys; sys.exit(0 if $ahead < $late else 1)" || fail "kv_prefetch=ahead did not shorten attention ($late -> $ahead cycles)"

# snr run on the directory: the coarse per-op profile.
"$SNR" run "$WORK/a" >"$WORK/run.out"
expect_contains "$WORK/run.out" "layer0.attn.qkv_matmul"
expect_contains "$WORK/run.out" "GFLOP/s"
expect_contains "$WORK/run.out" "HBM GB/s"
expect_contains "$WORK/run.out" "matrix-unit utilization"
