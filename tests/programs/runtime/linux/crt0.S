// Linux start-up for the oracle build: a static, non-PIE executable, so nothing to relocate. SP is 16-aligned at
// entry and points at argc, then argv[], a null, envp[], a null: main gets (argc, argv, envp); most programs
// declare main(void) and ignore them.

    .section .text._start, "ax", %progbits
    .global _start
    .type _start, %function
    .balign 4
_start:
    mov x29, #0
    mov x30, #0
    ldr x0, [sp]
    add x1, sp, #8
    add x2, x1, x0, lsl #3
    add x2, x2, #8
    bl main
    b exit_program
    .size _start, . - _start
