x: .byte 1
x: addi a0,a0,99999
.frob
