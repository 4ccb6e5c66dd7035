#include "dump.inc"
  START
  li x5, 0x123456789abcdef0
  li x6, -7
  add x7, x5, x6
  sub x8, x6, x5
  and x9, x5, x6
  or x10, x5, x6
  xor x11, x5, x6
  slt x12, x6, x5
  sltu x13, x6, x5
  slti x14, x6, -8
  sltiu x15, x6, -1
  xori x16, x5, -1
  ori x17, x6, 0x7ff
  andi x18, x5, -2048
  slli x19, x5, 63
  srli x20, x6, 63
  srai x21, x6, 63
  li x22, 65
  sll x23, x5, x22      # shift amount uses the low 6 bits
  srl x24, x5, x22
  sra x25, x6, x22
  lui x26, 0x80000      # sign-extended to 64 bits
  auipc x27, 0
  addiw x28, x5, 1      # W forms sign-extend bit 31
  slliw x29, x5, 31
  srliw x30, x6, 1
  sraiw x9, x6, 31
  addw x10, x5, x5
  subw x11, x6, x5
  sllw x12, x6, x22
  srlw x13, x5, x22
  sraw x14, x26, x22
  lui x15, 0x7ffff
  addiw x15, x15, 2047
  addiw x15, x15, 1     # 0x7fffffff + 1 wraps to INT32_MIN
  DUMP_AND_EXIT
  DATA
