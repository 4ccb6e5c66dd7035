# Suggestion verification through `snr rewrite` on a recorded all-gather:
# the three setup chains rewritten level by level (chain heads issued
# together) are legal, replay to the device's end state and cut the setup
# phase's wait stalls about threefold; a move across the wait its own data
# depends on is rejected with the dependency named; bad moves files fail
# cleanly.
source "$(dirname "$0")/lib.sh"

"$SNR" compile "$SRC/examples/allgather.yaml" -o "$WORK/ag" >/dev/null
start_device 120 "$WORK/ag"
timeout 120 "$SNR" record --target "127.0.0.1:$port" --elf "$WORK/ag/chip0.elf" --break all_gather --count 100000 \
  --chips all --quiet -o "$WORK/ag.snr" >"$WORK/record.out" 2>&1 || { cat "$WORK/record.out" >&2; fail "record failed"; }
wait "$server"

# Level-by-level moves from the setup phase's listing: its 9 DMA issue
# groups (the instructions since the previous wait) and 9 waits, in chained
# order chain 0 levels 1-3, chain 1, chain 2.
"$SNR" disasm "$WORK/ag/chip0.elf" -s all_gather.setup >"$WORK/setup.txt"
awk -f "$SRC/bench/rewrite/level_by_level_moves.awk" "$WORK/setup.txt" >"$WORK/moves.json" || fail "could not build the moves from the listing"

"$SNR" rewrite "$WORK/ag.snr" --moves "$WORK/moves.json" -o "$WORK/ag-rw.snr" --verify >"$WORK/rewrite.out" ||
  { cat "$WORK/rewrite.out" >&2; fail "level-by-level rewrite rejected"; }
expect_contains "$WORK/rewrite.out" "legal: 32 instruction(s) moved by 6 move(s)"
expect_contains "$WORK/rewrite.out" "end state matched"
"$SNR" snapshot check "$WORK/ag-rw.snr" >"$WORK/check.out"
expect_contains "$WORK/check.out" "match: 340 instructions on 4 chip(s)"
"$SNR" replay "$WORK/ag.snr" -o "$WORK/ag.db" --quiet
"$SNR" replay "$WORK/ag-rw.snr" -o "$WORK/ag-rw.db" --quiet
stalls() { sqlite3 -batch -noheader "$1" "SELECT SUM(stall_cycles) FROM instructions WHERE op = 'all_gather.setup' AND mnemonic = 'sem.wait'"; }
cycles() { sqlite3 -batch -noheader "$1" "SELECT value FROM meta WHERE key = 'total_cycles'"; }
before=$(stalls "$WORK/ag.db")
after=$(stalls "$WORK/ag-rw.db")
((after * 5 < before * 2)) || fail "setup wait stalls $before -> $after: not cut by 2.5x or more"
((after * 7 > before * 2)) || fail "setup wait stalls $before -> $after: cut by more than the 3 chains allow"
(($(cycles "$WORK/ag-rw.db") < $(cycles "$WORK/ag.db"))) || fail "the rewritten all-gather is not faster"
expect_contains "$WORK/rewrite.out" "verified: $(cycles "$WORK/ag.db") -> $(cycles "$WORK/ag-rw.db") cycles"

# Chain 0's level-2 issue above the wait for its level-1 DMA: it would load
# the address before the DMA brought it in.
read -r -a level2 < <(awk '/^ *[0-9a-f]+:/ { a[++n] = "0x" substr($1, 1, length($1) - 1); m[n] = $3 }
  END { for (i = 1; i <= n; i++) if (m[i] == "sem.wait") { w = a[i]; for (j = i + 1; m[j] != "dma.issue"; j++) s = s " \"" a[j] "\","; print w, s "\"" a[j] "\""; exit } }' "$WORK/setup.txt")
echo "{\"moves\": [{\"pcs\": [${level2[*]:1}], \"before_pc\": \"${level2[0]}\"}]}" >"$WORK/bad.json"
expect_fail "$SNR" rewrite "$WORK/ag.snr" --moves "$WORK/bad.json" -o "$WORK/bad.snr"
expect_contains "$WORK/expect_fail.out" "illegal rewrite: chip 0: moving pc"
expect_contains "$WORK/expect_fail.out" "above pc ${level2[0]} (sem.wait"
expect_contains "$WORK/expect_fail.out" "breaks RAW on smem"
expect_contains "$WORK/expect_fail.out" "before the DMA issued by chip 0 at pc"
[[ ! -e "$WORK/bad.snr" ]] || fail "an illegal rewrite wrote its output"

echo '{"moves": [{"pcs": ["0x10"], "before": "0x0"}]}' >"$WORK/typo.json"
expect_fail "$SNR" rewrite "$WORK/ag.snr" --moves "$WORK/typo.json"
expect_contains "$WORK/expect_fail.out" "move 1: unknown key \"before\""
echo '{"moves": [{"pcs": ["0x4"], "before_pc": "0x0"}]}' >"$WORK/outside.json"
expect_fail "$SNR" rewrite "$WORK/ag.snr" --moves "$WORK/outside.json"
expect_contains "$WORK/expect_fail.out" "not in the recorded code"
# --hw and --set only choose --verify's hardware; without --verify they
# were dropped unread, a missing --hw file included.
expect_fail "$SNR" rewrite "$WORK/ag.snr" --moves "$WORK/moves.json" --hw "$WORK/no-such-hw.yaml"
expect_contains "$WORK/expect_fail.out" "--hw and --set choose the hardware of --verify's replays; add --verify"
expect_fail "$SNR" rewrite "$WORK/ag.snr" --moves "$WORK/moves.json" --set dma.base_latency=250ns
expect_contains "$WORK/expect_fail.out" "add --verify"
echo "rewrite compiled ok"
