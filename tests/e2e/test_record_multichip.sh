# Records every chip of a 4-chip program with DMAs, remote DMAs and
# semaphores from `snr device serve`, then validates and re-executes it.
source "$(dirname "$0")/lib.sh"
"$SNR" asm "$SRC/src/record/testdata/ring_exchange.s" -o "$WORK/ring.elf"

start_device 120 "$WORK/ring.elf" --chips 4
timeout 120 "$SNR" record --target "127.0.0.1:$port" --elf "$WORK/ring.elf" --break window_start --count 5000 \
  --chips all -o "$WORK/ring.snr" >"$WORK/record.out" 2>"$WORK/record.err" || { cat "$WORK/record.err" >&2; fail "record failed"; }
wait "$server"
cat "$WORK/record.out"
expect_contains "$WORK/record.out" "on 4 chip(s)"
expect_contains "$WORK/record.out" "window ended by exit"
"$SNR" snapshot validate "$WORK/ring.snr" >"$WORK/validate.out"
expect_contains "$WORK/validate.out" "valid"
"$SNR" snapshot info "$WORK/ring.snr" >"$WORK/info.out"
expect_contains "$WORK/info.out" "recorded: 0 1 2 3"
expect_contains "$WORK/info.out" "saved SPACE_SMEM"
"$SNR" snapshot check "$WORK/ring.snr" >"$WORK/check.out"
expect_contains "$WORK/check.out" "match"

# A subset of chips: chip 1 alone blocks on its neighbours' semaphores;
# the window ends there without hanging, and still re-executes.
start_device 120 "$WORK/ring.elf" --chips 4
timeout 120 "$SNR" record --target "127.0.0.1:$port" --elf "$WORK/ring.elf" --break window_start --count 5000 \
  --chips 1 --quiet -o "$WORK/one.snr" >"$WORK/one.out" 2>&1 || { cat "$WORK/one.out" >&2; fail "subset record failed"; }
wait "$server"
expect_contains "$WORK/one.out" "window ended by blocked"
"$SNR" snapshot check "$WORK/one.snr" >/dev/null
# Replayed and analyzed, the unrecorded chips count nowhere: the summary
# names the recorded chip, utilization is chip 1's own, no VMEM line or
# utilization series belongs to chips 0, 2 or 3.
"$SNR" replay "$WORK/one.snr" -o "$WORK/one.db" >"$WORK/one-replay.out"
expect_contains "$WORK/one-replay.out" "on 1 of 4 chip(s)"
grep -q "^chip [023]:" "$WORK/one-replay.out" && fail "replay listed an unrecorded chip"
chip1_scalar=$(sed -n 's/^  utilization: scalar \([0-9.]*\)%.*/\1/p' "$WORK/one-replay.out")
"$SNR" analyze "$WORK/one.db" -o "$WORK/one-analysis" >"$WORK/one-analyze.out" 2>&1
expect_contains "$WORK/one-analyze.out" "window: 1 of 4 chip(s) (1),"
grep -q "^VMEM chip [023]" "$WORK/one-analyze.out" && fail "analyze listed VMEM of an unrecorded chip"
python3 - "$WORK/one-analysis/tables" "$chip1_scalar" <<'PY'
import json, sys
tables, chip1_scalar = sys.argv[1], float(sys.argv[2])
summary = {row["key"]: row["value"] for row in json.load(open(f"{tables}/summary.json"))}
assert summary["chips"] == 1 and summary["machine_chips"] == 4 and summary["recorded_chips"] == [1], summary
assert abs(100 * summary["utilization.scalar"] - chip1_scalar) < 0.05, (summary["utilization.scalar"], chip1_scalar)
PY

# A window in which no instruction runs (every chip blocks at its first
# one) is refused and writes nothing, instead of a snapshot replay refuses.
printf '_start:\n  sem.wait sem1, 1\n  li a7, 93\n  ecall\n' >"$WORK/blocked.s"
"$SNR" asm "$WORK/blocked.s" -o "$WORK/blocked.elf"
start_device 120 "$WORK/blocked.elf" --chips 2
expect_fail timeout 120 "$SNR" record --target "127.0.0.1:$port" --count 100 -o "$WORK/blocked.snr"
wait "$server" || true
expect_contains "$WORK/expect_fail.out" "no instruction ran in the window"
[[ ! -e "$WORK/blocked.snr" ]] || fail "an empty window was written"

# An --elf that is not the program the target runs is refused: its
# window_start lies elsewhere in the served program, and the window used to
# be recorded there with the other program's op names.
printf '    .globl _start\n_start:\n    li a0, 0\n    .globl window_start\nwindow_start:\n    li a7, 93\n    ecall\n' \
  >"$WORK/other.s"
"$SNR" asm "$WORK/other.s" -o "$WORK/other.elf"
start_device 120 "$WORK/ring.elf" --chips 4
expect_fail timeout 120 "$SNR" record --target "127.0.0.1:$port" --elf "$WORK/other.elf" --break window_start \
  --count 20 --quiet -o "$WORK/other.snr"
wait "$server" || true
expect_contains "$WORK/expect_fail.out" "the target runs another program than the one that named the breakpoint"
expect_contains "$WORK/expect_fail.out" "where $WORK/other.elf has"
[[ ! -e "$WORK/other.snr" ]] || fail "a window of another program was written"

# An empty --chips list is named as such (it used to record nothing and
# blame --break and --count).
start_device 120 "$WORK/ring.elf" --chips 4
expect_fail timeout 120 "$SNR" record --target "127.0.0.1:$port" --count 20 --chips '' --quiet -o "$WORK/none.snr"
kill "$server" 2>/dev/null || true
wait "$server" 2>/dev/null || true
expect_contains "$WORK/expect_fail.out" "--chips '': expected 'all' or a list like 0,2,3"
# A chip listed twice is named (it was recorded once, without a word).
expect_fail "$SNR" record --target "127.0.0.1:1" --count 20 --chips 0,2,0 --quiet -o "$WORK/twice.snr"
expect_contains "$WORK/expect_fail.out" "--chips '0,2,0': chip 0 is listed twice"

# Corrupt and truncated snapshots are rejected with the section and offset.
size=$(stat -c %s "$WORK/ring.snr")
head -c $((size - 7)) "$WORK/ring.snr" >"$WORK/truncated.snr"
expect_fail "$SNR" snapshot validate "$WORK/truncated.snr"
expect_contains "$WORK/expect_fail.out" "(truncated)"
cp "$WORK/ring.snr" "$WORK/flipped.snr"
printf '\xff' | dd of="$WORK/flipped.snr" bs=1 seek=$((size - 20)) conv=notrunc status=none
expect_fail "$SNR" snapshot check "$WORK/flipped.snr"
expect_contains "$WORK/expect_fail.out" "checksum"
expect_contains "$WORK/expect_fail.out" "at byte"
echo "record multichip ok"
