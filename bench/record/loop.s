# A long scalar + vector loop for recording-rate measurements: every
# iteration loads, updates and stores a word of an SMEM array, and every
# 16th iteration moves a vector through VMEM.
    .text
    .globl _start
_start:
    la   s0, array
    li   s1, 0              # iteration
    li   s2, 1000000        # iterations
    li   s3, 0x10000000     # VMEM
    .globl loop
loop:
    andi t0, s1, 255
    slli t0, t0, 3
    add  t1, s0, t0
    ld   t2, 0(t1)
    add  t2, t2, s1
    xori t2, t2, 0x5a
    sd   t2, 0(t1)
    andi t3, s1, 15
    bnez t3, skip
    vld  v1, s3, zero
    vadd.i32 v1, v1, v1
    vst  v1, s3, zero
skip:
    addi s1, s1, 1
    blt  s1, s2, loop
    li   a0, 0
    li   a7, 93
    ecall
    .data
array: .zero 2048
