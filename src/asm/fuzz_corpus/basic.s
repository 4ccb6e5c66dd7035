    .globl _start
_start:
    li a0, 0x123456789
    la a1, msg
    beqz a0, done
    vadd.f32 v1, v2, v3
    dma.issue a1, a0, a2, sem3
    sem.wait sem3, 1
done: ret
    .data
msg: .asciz "hi\n"
    .word 1, 2, %lo(msg)
