#!/usr/bin/env bash
# Issue 18, the GDB server: a second debugger is told the device is busy and
# closed instead of hanging; a debugger that sent half a packet and went
# quiet is dropped after --idle-timeout, freeing the device; --bind to a
# non-loopback address needs --allow-remote and warns; snr record's reply
# timeout is in seconds, shows progress while it waits, and leaves no output.
source "$(dirname "$0")/lib.sh"
"$SNR" asm "$SRC/src/record/testdata/ring_exchange.s" -o "$WORK/ring.elf"

# A server that serves session after session, with a 2 s idle timeout.
: >"$WORK/serve.out"
timeout 60 "$SNR" device serve "$WORK/ring.elf" --chips 2 --port 0 --idle-timeout 2 \
  >"$WORK/serve.out" 2>"$WORK/serve.err" &
server=$!
trap 'kill "$server" 2>/dev/null || true; rm -rf "$WORK"' EXIT
port=""
for _ in $(seq 1 100); do
  port=$(sed -n 's/^listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$WORK/serve.out")
  [[ -n "$port" ]] && break
  sleep 0.1
done
[[ -n "$port" ]] || { cat "$WORK/serve.err" >&2; fail "no port"; }

# The first debugger sends half a packet and goes quiet.
exec 3<>"/dev/tcp/127.0.0.1/$port"
printf '$qSupp' >&3
sleep 0.3
# Meanwhile every other debugger gets the busy error at once, and a close.
for i in 1 2 3 4 5; do
  exec 4<>"/dev/tcp/127.0.0.1/$port"
  printf '$qSupported#37' >&4
  reply=$(timeout 5 cat <&4) || fail "client $i: no reply or no close within 5 s (got '$reply')"
  exec 4>&-
  [[ "$reply" == '$E.snr device is busy: a debugger from 127.0.0.1:'*' is connected; try again when it detaches#'* ]] ||
    fail "client $i: unexpected reply '$reply'"
done
# After its 2 s of silence the first debugger is dropped: its stream ends.
rest=$(timeout 10 cat <&3) || fail "the idle debugger was not disconnected"
exec 3>&-
grep -q "idle for too long" "$WORK/serve.err" || { cat "$WORK/serve.err" >&2; fail "no idle-timeout line"; }
[[ $(grep -c "refused debugger from 127.0.0.1" "$WORK/serve.err") == 5 ]] || fail "refusals not logged"
# The device is free again: a real session records from it.
"$SNR" record --target "127.0.0.1:$port" --count 10 -o "$WORK/w.snr" --quiet >"$WORK/record.out"
expect_contains "$WORK/record.out" "wrote $WORK/w.snr"
kill "$server" 2>/dev/null || true
wait "$server" 2>/dev/null || true

# --bind to a non-loopback address: refused without --allow-remote, warned with it.
expect_fail "$SNR" device serve "$WORK/ring.elf" --chips 2 --port 0 --bind 0.0.0.0
expect_contains "$WORK/expect_fail.out" "--bind 0.0.0.0: not a loopback address"
expect_contains "$WORK/expect_fail.out" "Add --allow-remote"
timeout 60 "$SNR" device serve "$WORK/ring.elf" --chips 2 --port 0 --bind 0.0.0.0 --allow-remote --once \
  >"$WORK/remote.out" 2>"$WORK/remote.err" &
remote=$!
for _ in $(seq 1 100); do
  grep -q "^listening on 0.0.0.0:" "$WORK/remote.out" && break
  sleep 0.1
done
kill "$remote" 2>/dev/null || true
wait "$remote" 2>/dev/null || true
expect_contains "$WORK/remote.err" "warning: listening on 0.0.0.0, reachable from other machines"
expect_contains "$WORK/remote.out" "listening on 0.0.0.0:"

# A stub that accepts and never answers: snr record shows that it waits, gives
# up after --timeout seconds naming the request, and writes nothing.
python3 - "$WORK/silent.port" <<'PY' &
import socket, sys, time
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(1)
open(sys.argv[1], "w").write(str(s.getsockname()[1]))
c, _ = s.accept()
time.sleep(30)
PY
silent=$!
for _ in $(seq 1 100); do [[ -s "$WORK/silent.port" ]] && break; sleep 0.1; done
expect_fail "$SNR" record --target "127.0.0.1:$(cat "$WORK/silent.port")" --count 10 --timeout 6 -o "$WORK/never.snr"
expect_contains "$WORK/expect_fail.out" "waiting for the stub's reply to 'qSupported"
expect_contains "$WORK/expect_fail.out" "of --timeout 6 s"
expect_contains "$WORK/expect_fail.out" "within 6000 ms"
[[ ! -e "$WORK/never.snr" ]] || fail "output written by a failed recording"
kill "$silent" 2>/dev/null || true
echo PASS
