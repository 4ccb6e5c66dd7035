# Assemble an NPU program, list it, list one symbol, check determinism and
# that the ELF reader rejects a truncated file.
source "$(dirname "$0")/lib.sh"
PROG="$SRC/src/asm/testdata/npu_matmul.s"

"$SNR" asm "$PROG" -o "$WORK/a.elf"
"$SNR" asm "$PROG" -o "$WORK/b.elf"
cmp "$WORK/a.elf" "$WORK/b.elf" || fail "assembler output is not deterministic"

"$SNR" disasm "$WORK/a.elf" >"$WORK/all.txt"
expect_contains "$WORK/all.txt" "Disassembly of section .text:"
expect_contains "$WORK/all.txt" "<layer0.mlp.matmul>:"
expect_contains "$WORK/all.txt" "	mxu.ldw	mxu0,s1,zero"
expect_contains "$WORK/all.txt" "	dma.issue	s0,s2,a2,sem0"
expect_contains "$WORK/all.txt" "	sem.wait	sem0,1"
expect_contains "$WORK/all.txt" "	vmax.f32	v4,v2,v3"
expect_contains "$WORK/all.txt" "	li	a7,93"

"$SNR" disasm "$WORK/a.elf" --symbol layer0.mlp.relu -o "$WORK/relu.txt"
expect_contains "$WORK/relu.txt" "<layer0.mlp.relu>:"
expect_contains "$WORK/relu.txt" "vbcast	v3,zero"
if grep -q "mxu.mul" "$WORK/relu.txt"; then fail "--symbol listed another symbol's code"; fi

expect_fail "$SNR" disasm "$WORK/a.elf" --symbol no.such.symbol
expect_contains "$WORK/expect_fail.out" "symbol 'no.such.symbol' is not defined"

head -c 100 "$WORK/a.elf" >"$WORK/cut.elf"
expect_fail "$SNR" disasm "$WORK/cut.elf"
expect_contains "$WORK/expect_fail.out" "cut.elf: byte offset"

# readelf agrees on the entry point and sees the op symbols.
if command -v riscv64-linux-gnu-readelf >/dev/null; then
  riscv64-linux-gnu-readelf -h -s "$WORK/a.elf" >"$WORK/readelf.txt"
  expect_contains "$WORK/readelf.txt" "Entry point address:               0x10000"
  expect_contains "$WORK/readelf.txt" "layer0.mlp.matmul"
fi
# A gcc-built program lists with its function symbols and without the
# psABI mapping symbols.
"$SNR" disasm "$SRC/src/elf/testdata/gcc_hello.elf" >"$WORK/gcc.txt"
expect_contains "$WORK/gcc.txt" "<fib>:"
expect_contains "$WORK/gcc.txt" "	jal	10120 <fib>"
if grep -q '<\$x' "$WORK/gcc.txt"; then fail "mapping symbols listed as labels"; fi
echo "asm/disasm ok"
