# Every chip stages a buffer SMEM -> HBM -> VMEM with DMAs, doubles it in
# the vector unit, sends it to the next chip's HBM with a remote DMA,
# meets its neighbours with remote semaphore signals, pulls what the
# previous chip sent back into SMEM and checks it. Exit code = mismatches.
    .text
    .globl _start
_start:
    csrr s0, mhartid
    csrr s1, nchips
    addi s2, s0, 1
    remu s2, s2, s1            # next chip
    add  s3, s0, s1
    addi s3, s3, -1
    remu s3, s3, s1            # previous chip
    la   a0, buf
    li   t0, 1000
    mul  t1, s0, t0
    li   t2, 0
    li   t3, 64
fill:
    add  t4, t1, t2
    sw   t4, 0(a0)
    addi a0, a0, 4
    addi t2, t2, 1
    blt  t2, t3, fill
    .globl window_start
window_start:
    la   a1, buf
    li   a2, 0x100000000       # local HBM
    li   a3, 256
    dma.issue a2, a1, a3, sem1
    sem.wait sem1, 1
    li   a4, 0x10000000        # VMEM
    dma.issue a4, a2, a3, sem2
    sem.wait sem2, 1
    vld  v1, a4, zero
    vadd.i32 v2, v1, v1
    li   a5, 0x10002000
    vst  v2, a5, zero
    li   t0, 1
    slli t0, t0, 55            # remote flag
    slli t1, s2, 56            # next chip id
    or   t0, t0, t1
    li   t1, 0x100001000
    slli t2, s0, 8
    add  t1, t1, t2
    or   t0, t0, t1            # next chip's HBM + 0x1000 + id*256
    dma.issue t0, a5, a3, sem3
    sem.wait sem3, 2           # my DMA done and the previous chip's arrived
    sem.signal.remote sem4, s3, 1
    sem.wait sem4, 1
    li   t1, 0x100001000
    slli t2, s3, 8
    add  t1, t1, t2
    la   a6, recv
    dma.issue a6, t1, a3, sem5
    sem.wait sem5, 1
    li   t0, 1000
    mul  t1, s3, t0
    li   t2, 0
    li   t3, 64
    li   a0, 0
check:
    lw   t4, 0(a6)
    add  t5, t1, t2
    slli t5, t5, 1
    beq  t4, t5, check_ok
    addi a0, a0, 1
check_ok:
    addi a6, a6, 4
    addi t2, t2, 1
    blt  t2, t3, check
    li   a7, 93
    ecall
    .data
buf:  .zero 256
recv: .zero 256
