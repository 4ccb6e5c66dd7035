# A second, real target: records windows of RISC-V programs from QEMU's
# gdbstub through `snr record` and re-executes them with `snr snapshot
# check`: a program with its stack in .bss, a deep recursion on QEMU's own
# stack, and a glibc -O2 static program (break symbol read through --elf).
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

# record_from ELF SYMBOL COUNT OUT — QEMU needs a port up front: try a few
# random ones, bounded.
record_from() {
  local elf=$1 symbol=$2 count=$3 out=$4 recorded="" attempt port qemu
  for attempt in 1 2 3 4 5; do
    port=$((20000 + (RANDOM * 7 + attempt * 131) % 40000))
    timeout 120 qemu-riscv64 -g "$port" "$elf" >"$WORK/qemu.out" 2>&1 &
    qemu=$!
    for _ in $(seq 1 50); do
      if timeout 120 "$SNR" record --target "127.0.0.1:$port" --elf "$elf" --break "$symbol" --count "$count" \
           -o "$out" >"$WORK/record.out" 2>"$WORK/record.err"; then
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
  expect_contains "$WORK/record.out" "recorded $count instructions on 1 chip(s)"
  "$SNR" snapshot validate "$out" >/dev/null
  "$SNR" snapshot check "$out" >"$WORK/check.out"
  expect_contains "$WORK/check.out" "match: $count instructions"
}

record_from "$WORK/checksum.elf" work 12000 "$WORK/qemu.snr"

# Programs as users write them, on QEMU's own stack: a deep recursion, and
# glibc at -O2 (static; its own symbols read through --elf).
riscv64-linux-gnu-gcc -march=rv64im -mabi=lp64 -static -nostdlib -fno-pie -no-pie -Wl,--no-warn-rwx-segments -O1 \
  -o "$WORK/recursion.elf" "$SRC/src/record/testdata/recursion.c"
record_from "$WORK/recursion.elf" walk 15000 "$WORK/recursion.snr"
if riscv64-linux-gnu-gcc -march=rv64imfd -mabi=lp64d -static -O2 -fno-tree-loop-distribute-patterns \
     -o "$WORK/libc_sort.elf" "$SRC/src/record/testdata/libc_sort.c" 2>/dev/null; then
  record_from "$WORK/libc_sort.elf" work 20000 "$WORK/libc_sort.snr"
else
  echo "note: no static glibc for riscv64 (Debian libc6-dev-riscv64-cross); the glibc recording is left out"
fi
echo "record qemu ok"
