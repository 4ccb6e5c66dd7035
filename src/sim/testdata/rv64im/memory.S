#include "dump.inc"
  START
  la x5, buffer
  li x6, 0xfedcba9876543210
  sd x6, 0(x5)
  sw x6, 8(x5)
  sh x6, 12(x5)
  sb x6, 14(x5)
  lb x7, 7(x5)                # 0xfe sign-extended
  lbu x8, 7(x5)
  lh x9, 6(x5)
  lhu x10, 6(x5)
  lw x11, 4(x5)
  lwu x12, 4(x5)
  ld x13, 8(x5)
  ld x14, 0(x5)
  # loop with every branch kind: sums 0..19, counts signed/unsigned cases
  li x15, 0
  li x16, 0
  li x17, 20
  li x18, 0
  li x19, 0
loop:
  add x15, x15, x16
  li x20, 10
  blt x16, x20, 1f
  addi x18, x18, 1
1:
  bge x16, x20, 2f
  addi x19, x19, 3
2:
  li x21, -1
  bltu x16, x21, 3f
  addi x19, x19, 100
3:
  bgeu x16, x21, 4f
  addi x19, x19, 1
4:
  beq x16, x20, 5f
  j 6f
5:
  addi x18, x18, 1000
6:
  addi x16, x16, 1
  bne x16, x17, loop
  jal x1, func
  mv x22, x1
  la x23, func
  jalr x1, 0(x23)
  mv x24, x1
  sub x25, x22, x24
  j done
func:
  addi x26, x26, 7
  ret
done:
  lb x27, 14(x5)
  lh x28, 12(x5)
  lw x29, 8(x5)
  ld x30, 3(x5)               # misaligned load (allowed)
  DUMP_AND_EXIT
  DATA
  .data
  .balign 8
buffer: .space 64
