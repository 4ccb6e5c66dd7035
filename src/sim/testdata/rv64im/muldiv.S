#include "dump.inc"
  START
  li x5, 0x8000000000000000   # INT64_MIN
  li x6, -1
  li x7, 0
  li x8, 0x7fffffffffffffff
  div x9, x5, x6              # overflow: INT64_MIN
  rem x10, x5, x6             # 0
  div x11, x8, x7             # by zero: -1
  rem x12, x8, x7             # by zero: dividend
  divu x13, x8, x7            # all ones
  remu x14, x5, x7            # dividend
  mul x15, x5, x6
  mulh x16, x5, x6
  mulhu x17, x5, x6
  mulhsu x18, x6, x8
  mulh x19, x8, x8
  li x20, -13
  li x21, 4
  div x22, x20, x21           # rounds toward zero: -3
  rem x23, x20, x21           # -1
  divu x24, x20, x21
  remu x25, x20, x21
  li x26, 0xffffffff80000000  # INT32_MIN in the low word
  divw x27, x26, x6           # overflow: INT32_MIN
  remw x28, x26, x6           # 0
  divw x29, x20, x7           # by zero: -1
  remw x30, x20, x7           # by zero: sign-extended dividend
  divuw x1, x20, x7
  remuw x3, x20, x21
  mulw x4, x26, x21
  DUMP_AND_EXIT
  DATA
