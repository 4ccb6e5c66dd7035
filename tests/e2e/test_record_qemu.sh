# A second, real target: records a 10k+ instruction window of a RISC-V
# program from QEMU's gdbstub and re-executes it in snr's simulator.
source "$(dirname "$0")/lib.sh"
for tool in qemu-riscv64 riscv64-linux-gnu-gcc; do
  if ! command -v "$tool" >/dev/null; then
    echo "SKIP: $tool is not installed (Debian packages qemu-user, gcc-riscv64-linux-gnu)"
    exit 0
  fi
done
riscv64-linux-gnu-gcc -march=rv64im -mabi=lp64 -static -nostdlib -fno-pie -no-pie -Wl,--no-warn-rwx-segments -O2 \
  -o "$WORK/checksum.elf" "$SRC/src/record/testdata/checksum.c"
qemu-riscv64 "$WORK/checksum.elf" && status=0 || status=$?
[[ $status -ne 0 ]] || fail "the test program should exit with its checksum"

# QEMU needs a port up front: try a few random ones, bounded.
recorded=""
for attempt in 1 2 3 4 5; do
  port=$((20000 + (RANDOM * 7 + attempt * 131) % 40000))
  timeout 120 qemu-riscv64 -g "$port" "$WORK/checksum.elf" >"$WORK/qemu.out" 2>&1 &
  qemu=$!
  for _ in $(seq 1 50); do
    if timeout 120 "$SNR" record --target "127.0.0.1:$port" --elf "$WORK/checksum.elf" --break work --count 12000 \
         -o "$WORK/qemu.snr" >"$WORK/record.out" 2>"$WORK/record.err"; then
      recorded=1
      break
    fi
    grep -q "cannot connect" "$WORK/record.err" || { cat "$WORK/record.err" >&2; fail "record from QEMU failed"; }
    kill -0 "$qemu" 2>/dev/null || break
    sleep 0.1
  done
  wait "$qemu" || true
  [[ -n "$recorded" ]] && break
done
[[ -n "$recorded" ]] || fail "could not connect to qemu-riscv64 -g"
cat "$WORK/record.out"
expect_contains "$WORK/record.out" "recorded 12000 instructions on 1 chip(s)"
"$SNR" snapshot validate "$WORK/qemu.snr" >/dev/null
"$SNR" snapshot check "$WORK/qemu.snr" >"$WORK/check.out"
expect_contains "$WORK/check.out" "match: 12000 instructions"
echo "record qemu ok"
