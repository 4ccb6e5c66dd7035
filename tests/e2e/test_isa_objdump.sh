# `snr disasm --no-aliases` prints the same scalar instructions as
# `riscv64-linux-gnu-objdump -d -M no-aliases` (mnemonic and operands; the
# "<symbol>" and "# comment" annotations are stripped), for a program
# assembled by `snr asm` and for one compiled by gcc.
source "$(dirname "$0")/lib.sh"
OBJDUMP=riscv64-linux-gnu-objdump
if ! command -v "$OBJDUMP" >/dev/null; then
  echo "SKIP: $OBJDUMP not installed (apt-get install binutils-riscv64-linux-gnu)"
  exit 0
fi

# "addr word mnemonic operands" for every instruction line; custom-opcode
# words (accelerator instructions objdump does not know) are dropped.
normalize() {
  sed -n -E 's/^ *([0-9a-f]+):\t([0-9a-f]{8}) +\t([^\t]+)\t?([^ ]*).*$/\1 \2 \3 \4/p' "$1" |
    grep -v -E '^[0-9a-f]+ [0-9a-f]{6}(0b|8b|2b|ab|5b|db|7b|fb) ' || true
}

compare() {  # compare ELF NAME MIN_LINES
  "$OBJDUMP" -d -M no-aliases "$1" >"$WORK/$2.objdump"
  "$SNR" disasm --no-aliases "$1" >"$WORK/$2.snr"
  normalize "$WORK/$2.objdump" >"$WORK/$2.objdump.norm"
  normalize "$WORK/$2.snr" >"$WORK/$2.snr.norm"
  local lines
  lines=$(wc -l <"$WORK/$2.objdump.norm")
  [[ "$lines" -ge "$3" ]] || fail "$2: only $lines instructions compared"
  diff -u "$WORK/$2.objdump.norm" "$WORK/$2.snr.norm" || fail "$2: snr disasm differs from objdump"
  echo "$2: $lines instructions identical"
}

"$SNR" asm "$SRC/src/asm/testdata/scalar_all.s" -o "$WORK/scalar_all.elf"
compare "$WORK/scalar_all.elf" scalar_all 120

compare "$SRC/src/elf/testdata/gcc_hello.elf" gcc_hello_committed 20

if command -v riscv64-linux-gnu-gcc >/dev/null; then
  riscv64-linux-gnu-gcc -march=rv64im -mabi=lp64 -O1 -static -nostdlib \
    "$SRC/src/elf/testdata/gcc_hello.c" -o "$WORK/gcc_hello.elf"
  compare "$WORK/gcc_hello.elf" gcc_hello_fresh 20
  riscv64-linux-gnu-gcc -march=rv64im -mabi=lp64 -O2 -static -nostdlib \
    "$SRC/src/elf/testdata/gcc_hello.c" -o "$WORK/gcc_hello_o2.elf"
  compare "$WORK/gcc_hello_o2.elf" gcc_hello_o2 20
else
  echo "SKIP: riscv64-linux-gnu-gcc not installed; compared the committed gcc build only"
fi
echo "objdump agreement ok"
