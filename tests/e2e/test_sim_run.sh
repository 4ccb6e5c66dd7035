#!/usr/bin/env bash
# `snr run`: timing and functional runs of a cross-compiled RV64IM program,
# JSON output, determinism, multi-chip, and clear errors for bad input.
source "$(dirname "$0")/lib.sh"

if ! command -v riscv64-linux-gnu-gcc >/dev/null; then
  echo "SKIP: riscv64-linux-gnu-gcc not installed"
  exit 0
fi
CFLAGS="-march=rv64im -mabi=lp64 -O1 -static -nostdlib -nostartfiles -I$SRC/src/sim/testdata/rv64im"
riscv64-linux-gnu-gcc $CFLAGS -o "$WORK/muldiv.elf" "$SRC/src/sim/testdata/rv64im/muldiv.S"
riscv64-linux-gnu-gcc $CFLAGS -o "$WORK/compiled.elf" "$SRC/src/sim/testdata/rv64im/compiled.c"

# Timing mode (default): summary with cycles, IPC, stalls, utilization.
"$SNR" run "$WORK/compiled.elf" >"$WORK/timing.txt"
expect_contains "$WORK/timing.txt" "mode      timing"
expect_contains "$WORK/timing.txt" "cycles    "
expect_contains "$WORK/timing.txt" "IPC "
expect_contains "$WORK/timing.txt" "stall cycles: data-hazard"
expect_contains "$WORK/timing.txt" "utilization: scalar"
expect_contains "$WORK/timing.txt" "exited (code 0)"

# Functional mode gives the same console bytes as timing mode.
"$SNR" run "$WORK/compiled.elf" --functional --json >"$WORK/functional.json"
"$SNR" run "$WORK/compiled.elf" --json >"$WORK/timing.json"
expect_contains "$WORK/functional.json" '"mode": "functional"'
python3 - "$WORK/functional.json" "$WORK/timing.json" <<'PY'
import json, sys
f, t = (json.load(open(p)) for p in sys.argv[1:3])
assert f["chips"][0]["console"] == t["chips"][0]["console"], "console differs between modes"
assert t["cycles"] > f["chips"][0]["instructions"] > 1000, (t["cycles"], f["chips"][0]["instructions"])
assert set(t["chips"][0]["utilization"]) == {"scalar", "vector", "matrix", "dma"}
PY

# Same inputs, byte-identical output.
"$SNR" run "$WORK/compiled.elf" --json >"$WORK/timing2.json"
cmp "$WORK/timing.json" "$WORK/timing2.json" || fail "two identical runs differ"

# Every chip runs the program; presets and overrides apply.
"$SNR" run "$WORK/muldiv.elf" --chips 4 --hw tpu-v5e-like --set dma.base_latency=1us >"$WORK/four.txt"
expect_contains "$WORK/four.txt" "4 chip(s), torus2d 2x2, preset tpu-v5e-like"
expect_contains "$WORK/four.txt" "chip 3:"

# A YAML config file, and its errors with file:line.
printf 'preset: tpu-v5e-like\nchips: 2\nhbm:\n  bandwidth: 1TB/s\n' >"$WORK/hw.yaml"
"$SNR" run "$WORK/muldiv.elf" --hw "$WORK/hw.yaml" >"$WORK/yaml.txt"
expect_contains "$WORK/yaml.txt" "2 chip(s)"
printf 'chips: 2\nhbm:\n  bandwith: 1TB/s\n' >"$WORK/bad.yaml"
expect_fail "$SNR" run "$WORK/muldiv.elf" --hw "$WORK/bad.yaml"
expect_contains "$WORK/expect_fail.out" "bad.yaml:3"
expect_contains "$WORK/expect_fail.out" "unknown hardware key 'hbm.bandwith'"

# Bad input is a clear error, never a crash.
expect_fail "$SNR" run "$WORK/muldiv.elf" --set vmem.blokcs=4
expect_contains "$WORK/expect_fail.out" "unknown hardware key 'vmem.blokcs'"
expect_fail "$SNR" run "$WORK/muldiv.elf" --set clock=940
expect_contains "$WORK/expect_fail.out" "clock"
expect_fail "$SNR" run "$WORK/muldiv.elf" --hw tpu-v9
expect_fail "$SNR" run "$WORK/missing.elf"
expect_contains "$WORK/expect_fail.out" "missing.elf"
head -c 100 "$WORK/muldiv.elf" >"$WORK/truncated.elf"
expect_fail "$SNR" run "$WORK/truncated.elf"
expect_contains "$WORK/expect_fail.out" "truncated.elf"

# A program that faults names the instruction and address.
cat >"$WORK/fault.S" <<'ASM'
  .globl _start
_start:
  li t0, 0x10000000
  ld t1, 0(t0)
ASM
riscv64-linux-gnu-gcc $CFLAGS -o "$WORK/fault.elf" "$WORK/fault.S"
expect_fail "$SNR" run "$WORK/fault.elf"
expect_contains "$WORK/expect_fail.out" "outside SMEM"
expect_contains "$WORK/expect_fail.out" "ld t1,0(t0)"

# A non-zero exit code of chip 0 is the command's failure (exit 3).
cat >"$WORK/exit7.S" <<'ASM'
  .globl _start
_start:
  li a0, 7
  li a7, 93
  ecall
ASM
riscv64-linux-gnu-gcc $CFLAGS -o "$WORK/exit7.elf" "$WORK/exit7.S"
set +e
"$SNR" run "$WORK/exit7.elf" >"$WORK/exit7.txt"
code=$?
set -e
[[ $code == 3 ]] || fail "expected exit code 3, got $code"
expect_contains "$WORK/exit7.txt" "exited (code 7)"
echo OK
