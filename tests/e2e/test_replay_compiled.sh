# Records windows of compiled workloads (the all-gather with its chained
# setup phase, and the default LLM decode step) from `snr device serve`,
# replays them, and checks the end state, a what-if replay and the timeline.
source "$(dirname "$0")/lib.sh"

record() {  # record MODEL_DIR OUTPUT BREAK COUNT
  start_device 120 "$1"
  timeout 120 "$SNR" record --target "127.0.0.1:$port" --elf "$1/chip0.elf" --break "$3" --count "$4" \
    --chips all --quiet -o "$2" >"$WORK/record.out" 2>&1 || { cat "$WORK/record.out" >&2; fail "record failed"; }
  wait "$server"
}
q() { sqlite3 -batch -noheader "$1" "$2"; }

"$SNR" compile "$SRC/examples/allgather.yaml" -o "$WORK/ag" >/dev/null
record "$WORK/ag" "$WORK/ag.snr" all_gather 100000
"$SNR" replay "$WORK/ag.snr" -o "$WORK/ag.db" >"$WORK/ag.out"
expect_contains "$WORK/ag.out" "pc sequence and end state match"
[[ "$(q "$WORK/ag.db" "SELECT COUNT(*) FROM instructions WHERE op = 'all_gather.setup'")" -gt 0 ]] || fail "op names"
# The setup phase's chain: a DMA lands a descriptor in SMEM, an ld reads the
# next address from it (smem edge), the next DMA issues with it (x edge).
chains=$(q "$WORK/ag.db" "SELECT COUNT(*) FROM dependencies s
  JOIN instructions p ON p.step = s.producer_step
  JOIN dependencies x ON x.producer_step = s.consumer_step AND x.kind = 'x'
  JOIN instructions c ON c.step = x.consumer_step
  WHERE s.kind = 'smem' AND p.mnemonic LIKE 'dma.issue%' AND c.mnemonic LIKE 'dma.issue%'")
(( chains > 0 )) || fail "no DMA -> ld -> DMA chain through SMEM in the all-gather setup"
# The setup phase's chained DMAs wait on each other: a cheaper base latency
# must shorten the run.
"$SNR" replay "$WORK/ag.snr" -o "$WORK/ag-fast.db" --set dma.base_latency=250ns --quiet
a=$(q "$WORK/ag.db" "SELECT value FROM meta WHERE key = 'total_cycles'")
b=$(q "$WORK/ag-fast.db" "SELECT value FROM meta WHERE key = 'total_cycles'")
(( b < a )) || fail "base latency 250ns did not shorten the all-gather ($a -> $b cycles)"
"$SNR" diff "$WORK/ag.db" "$WORK/ag-fast.db" >"$WORK/diff.out"
expect_contains "$WORK/diff.out" "all_gather.setup"
"$SNR" export "$WORK/ag.db" --perfetto "$WORK/ag.json" >/dev/null

"$SNR" compile "$SRC/examples/llm-decode.yaml" -o "$WORK/llm" >/dev/null
record "$WORK/llm" "$WORK/llm.snr" layer0.attn.qkv_matmul 3000
"$SNR" replay "$WORK/llm.snr" -o "$WORK/llm.db" >"$WORK/llm.out"
expect_contains "$WORK/llm.out" "12000 instructions on 4 chip(s)"
expect_contains "$WORK/llm.out" "end state match"
[[ "$(q "$WORK/llm.db" "SELECT COUNT(*) FROM unit_busy WHERE unit = 'matrix'")" -gt 0 ]] || fail "matrix unit busy"
"$SNR" export "$WORK/llm.db" --perfetto "$WORK/llm.json" >/dev/null
echo "replay compiled ok"
