# Stock gdb-multiarch against `snr device serve`: breakpoint on a symbol,
# continue, named registers, stepi, memory reads of VMEM/HBM and the
# vector-register window, threads = chips.
source "$(dirname "$0")/lib.sh"
if ! command -v gdb-multiarch >/dev/null; then
  echo "SKIP: gdb-multiarch is not installed (Debian package gdb-multiarch)"
  exit 0
fi
"$SNR" asm "$SRC/src/record/testdata/ring_exchange.s" -o "$WORK/ring.elf"

start_device 120 "$WORK/ring.elf" --chips 2

timeout 120 gdb-multiarch -nx -batch \
  -ex "set pagination off" \
  -ex "target remote 127.0.0.1:$port" \
  -ex "break window_start" \
  -ex "continue" \
  -ex "info registers pc sp a0 s0" \
  -ex "info registers sem1" \
  -ex "stepi" \
  -ex "info registers pc" \
  -ex "x/4xw 0x10000000" \
  -ex "x/2xg 0x100000000" \
  -ex "x/4xw 0xf0000000" \
  -ex "info threads" \
  -ex "detach" \
  "$WORK/ring.elf" >"$WORK/gdb.out" 2>&1 || { cat "$WORK/gdb.out" >&2; fail "gdb session failed"; }
wait "$server" || { cat "$WORK/serve.err" >&2; fail "device server exited with an error"; }


expect_contains "$WORK/gdb.out" "hit Breakpoint 1"
expect_contains "$WORK/gdb.out" "in window_start ()"
expect_contains "$WORK/gdb.out" "sem1"
grep -Eq '^pc .*<window_start\+16>' "$WORK/gdb.out" || fail "stepi did not move past window_start"
expect_contains "$WORK/gdb.out" "0x10000000:"
expect_contains "$WORK/gdb.out" "0x100000000:"
expect_contains "$WORK/gdb.out" "0xf0000000:"
grep -Eq 'Thread 2' "$WORK/gdb.out" || fail "chip 1 is not listed as thread 2"
expect_contains "$WORK/serve.err" "detached"
echo "device gdb ok"
