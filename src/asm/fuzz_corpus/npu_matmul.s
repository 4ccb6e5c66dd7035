# A small NPU program: DMA a weight tile and an activation block from HBM to
# VMEM, run one 8x128 x 128x128 matmul, apply a ReLU-like max, and store the
# result. Op labels (with dots) become symbols for breakpoints.
    .equ VMEM, 0x10000000
    .equ HBM, 0x100000000
    .globl _start
    .text
_start:
    li s0, VMEM                 # activations
    li s1, VMEM + 0x1000        # weights
    li s2, HBM
    li a2, 4096
layer0.load_inputs:
    dma.issue s0, s2, a2, sem0
    li t0, HBM + 0x10000
    li a3, 32768
    dma.issue s1, t0, a3, sem1
    dma.wait sem0, 1
    sem.wait sem1, 1
layer0.mlp.matmul:
    mxu.ldw mxu0, s1, zero
    vld v1, s0, zero
    mxu.mul mxu0, v1
    mxu.pop v2, mxu0
layer0.mlp.relu:
    vbcast v3, zero
    vmax.f32 v4, v2, v3
    vst v4, s0, zero
    fence.vec
    csrr a0, mhartid
    li a7, 93
    ecall
