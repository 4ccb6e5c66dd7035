# `snr asm` rejects bad input with file:line:column errors and writes nothing.
source "$(dirname "$0")/lib.sh"

check_error() {  # check_error SOURCE_TEXT EXPECTED_MESSAGE
  printf '%b' "$1" >"$WORK/bad.s"
  rm -f "$WORK/bad.elf"
  expect_fail "$SNR" asm "$WORK/bad.s" -o "$WORK/bad.elf"
  expect_contains "$WORK/expect_fail.out" "$2"
  [[ ! -e "$WORK/bad.elf" ]] || fail "output written despite errors"
}

check_error 'nop\n  frob a0, a1\n' "bad.s:2:3: unknown mnemonic 'frob'"
check_error 'addi a0, q9, 1\n' "bad.s:1:10: bad register 'q9'"
check_error 'addi a0, a0, 4096\n' "bad.s:1:14: addi: operand imm12: immediate 4096 out of range -2048..2047"
check_error 'beq a0, a1, nowhere\n' "bad.s:1:13: undefined symbol 'nowhere'"
check_error 'loop: nop\nloop: nop\n' "bad.s:2:1: duplicate label 'loop' (first defined at line 1)"
check_error 'sem.wait sem32, 1\n' "bad.s:1:10: bad semaphore 'sem32'"
check_error '.section .weird\n' "bad.s:1:10: section '.weird' needs flags"
# A shift by 64 or more used to assemble as 0 (li a0, 1 << 64 loaded 0).
check_error 'li a0, 1 << 64\n' "bad.s:1:8: li: shift count 64 out of range 0..63 in expression"
check_error 'addi a0, a0, 1 >> 99\n' "shift count 99 out of range 0..63"

# A missing input file is an error too.
expect_fail "$SNR" asm "$WORK/missing.s" -o "$WORK/x.elf"
echo "asm errors ok"
