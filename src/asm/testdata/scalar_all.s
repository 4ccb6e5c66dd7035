# Every scalar instruction form and pseudo-instruction: assembled by
# `snr asm` and compared against `riscv64-linux-gnu-objdump -d -M no-aliases`
# by tests/e2e/test_isa_objdump.sh.
    .globl _start
    .text
_start:
    lui a0, 0x12345
    auipc t0, 0xfffff
    jal ra, helper
    jalr t1, -8(a2)
    beq a0, a1, _start
    bne s0, s1, .Lforward
    blt a2, a3, _start
    bge a4, a5, .Lforward
    bltu a6, a7, _start
    bgeu s2, s3, .Lforward
.Lforward:
    lb a0, -1(sp)
    lh a1, 2(sp)
    lw a2, 2047(sp)
    ld a3, -2048(sp)
    lbu a4, 0(gp)
    lhu a5, 6(tp)
    lwu a6, 8(fp)
    sb a0, 1(sp)
    sh a1, -2(sp)
    sw a2, 4(sp)
    sd a3, 8(sp)
    addi t0, t1, -7
    slti t2, s0, 9
    sltiu s1, a0, 100
    xori a1, a2, 0x7ff
    ori a3, a4, -2048
    andi a5, a6, 255
    slli a7, s2, 63
    srli s3, s4, 1
    srai s5, s6, 33
    add s7, s8, s9
    sub s10, s11, t3
    sll t4, t5, t6
    slt a0, a1, a2
    sltu a3, a4, a5
    xor a6, a7, s0
    srl s1, s2, s3
    sra s4, s5, s6
    or s7, s8, s9
    and s10, s11, ra
    addiw a0, a1, -1
    slliw a2, a3, 31
    srliw a4, a5, 0
    sraiw a6, a7, 17
    addw t0, t1, t2
    subw t3, t4, t5
    sllw t6, a0, a1
    srlw a2, a3, a4
    sraw a5, a6, a7
    fence
    fence rw, w
    fence.tso
    fence.i
    ecall
    ebreak
    mul a0, a1, a2
    mulh a3, a4, a5
    mulhsu a6, a7, s0
    mulhu s1, s2, s3
    div s4, s5, s6
    divu s7, s8, s9
    rem s10, s11, t0
    remu t1, t2, t3
    mulw t4, t5, t6
    divw a0, a1, a2
    divuw a3, a4, a5
    remw a6, a7, s0
    remuw s1, s2, s3
    csrrw a0, mhartid, a1
    csrrs a2, cycle, zero
    csrrc a3, instret, a4
    csrrwi a5, 0x7c1, 31
    csrrsi a6, 0xfc0, 0
    csrrci a7, 0x7c0, 7
    # pseudo-instructions
    nop
    li a0, 0x123456789abcdef0
    li a1, -1
    li a2, 0x80000000
    la a3, table
    mv a4, a5
    not a6, a7
    neg s0, s1
    negw s2, s3
    sext.w s4, s5
    seqz s6, s7
    snez s8, s9
    sltz s10, s11
    sgtz t3, t4
    beqz a0, helper
    bnez a0, helper
    blez a0, helper
    bgez a0, helper
    bltz a0, helper
    bgtz a0, helper
    bgt a0, a1, helper
    ble a0, a1, helper
    bgtu a0, a1, helper
    bleu a0, a1, helper
    j helper
    jal helper
    jr a0
    jalr a1
    call helper
    tail helper
    rdcycle t0
    rdinstret t1
    csrr t2, nchips
    csrw 0x7c1, t3
    csrs 0x7c1, t4
    csrc 0x7c1, t5
    csrwi 0x7c1, 3
    csrsi 0x7c1, 4
    csrci 0x7c1, 5
helper:
    ret
    .data
table: .dword 1, 2, 3
