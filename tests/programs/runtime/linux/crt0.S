// Linux start-up for the oracle build: a static, non-PIE executable, so nothing to relocate. SP is 16-aligned at
// entry (it points at argc, which the programs do not use).

    .section .text._start, "ax", %progbits
    .global _start
    .type _start, %function
    .balign 4
_start:
    mov x29, #0
    mov x30, #0
    bl main
    b exit_program
    .size _start, . - _start
