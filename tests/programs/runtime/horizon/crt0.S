// Horizon start-up for a homebrew NRO.
//
// At entry (Tandem's kernel, as Horizon's loader does for a main module): PC = module base (offset 0), x0 = 0,
// x1 = main thread handle, SP = 16-aligned top of the main thread's stack, TPIDRRO_EL0 = thread-local area.
//
// The first 0x80 bytes of .text are the module's start: word 0 branches to _start, word 1 holds the offset of the
// MOD0 header from the module base, and 0x10..0x80 stays zero for the NRO header that `tandem pack` writes there.
// _start relocates the module (R_AARCH64_RELATIVE entries found through _DYNAMIC's DT_RELA/DT_RELASZ/DT_RELAENT,
// relative to the load address found PC-relatively), clears .bss, calls main and passes its result to exit_program.

#define DT_NULL 0
#define DT_RELA 7
#define DT_RELASZ 8
#define DT_RELAENT 9
#define R_AARCH64_NONE 0
#define R_AARCH64_RELATIVE 1027

    .section .text.module_start, "ax", %progbits
    .global __module_start
    .type __module_start, %function
__module_start:
    b _start
    .word __tandem_mod0 - __module_start
    .fill 0x80 - 8, 1, 0
    .size __module_start, . - __module_start

    .section .text._start, "ax", %progbits
    .global _start
    .type _start, %function
    .balign 4
_start:
    mov x20, x1                         // main thread handle, saved once .bss is clear
    adrp x19, __module_start            // x19 = where we were loaded
    add x19, x19, :lo12:__module_start

    // Read the dynamic section: x2 = DT_RELA, x3 = DT_RELASZ, x4 = DT_RELAENT (default 24).
    adrp x0, _DYNAMIC
    add x0, x0, :lo12:_DYNAMIC
    mov x2, #0
    mov x3, #0
    mov x4, #24
1:  ldp x5, x6, [x0], #16
    cbz x5, 2f                          // DT_NULL ends the table
    cmp x5, #DT_RELA
    csel x2, x6, x2, eq
    cmp x5, #DT_RELASZ
    csel x3, x6, x3, eq
    cmp x5, #DT_RELAENT
    csel x4, x6, x4, eq
    b 1b

    // Apply each entry: *(base + r_offset) = base + r_addend.
2:  cbz x3, 5f
    add x2, x2, x19                     // the table, at run time
    add x3, x2, x3                      // its end
3:  cmp x2, x3
    b.hs 5f
    ldp x5, x6, [x2]                    // r_offset, r_info
    ldr x7, [x2, #16]                   // r_addend
    add x2, x2, x4
    cmp x6, #R_AARCH64_NONE
    b.eq 3b
    cmp x6, #R_AARCH64_RELATIVE         // type RELATIVE with symbol 0: the whole r_info
    b.ne 4f
    add x7, x7, x19
    str x7, [x19, x5]
    b 3b
4:  // A relocation this crt0 cannot apply: Break(reason 0 = panic, arg = r_info, size = r_offset).
    mov x0, #0
    mov x1, x6
    mov x2, x5
    svc #0x26
    svc #0x07

    // Check the work: __tandem_self (in .data, RELATIVE-relocated) must now hold the load address. Every module has
    // this one relocation, so the path above always runs.
5:  adrp x0, __tandem_self
    ldr x0, [x0, :lo12:__tandem_self]
    cmp x0, x19
    b.eq 8f
    mov x1, x0                          // Break(reason 0 = panic, arg = what it holds, size = the load address)
    mov x0, #0
    mov x2, x19
    svc #0x26
    svc #0x07

    // Clear .bss (the kernel maps it zeroed; do it anyway). Both ends are 8-aligned.
8:  adrp x0, __bss_start__
    add x0, x0, :lo12:__bss_start__
    adrp x1, __bss_end__
    add x1, x1, :lo12:__bss_end__
6:  cmp x0, x1
    b.hs 7f
    str xzr, [x0], #8
    b 6b

7:  adrp x0, __tandem_main_thread_handle
    str w20, [x0, :lo12:__tandem_main_thread_handle]
    mov x29, #0
    mov x30, #0
    bl main
    b exit_program
    .size _start, . - _start

// MOD0 (switchbrew "NSO" / "MOD"): magic, then offsets relative to the MOD0 header itself.
    .section .rodata.mod0, "a", %progbits
    .global __tandem_mod0
    .balign 4
__tandem_mod0:
    .ascii "MOD0"
    .word _DYNAMIC - __tandem_mod0
    .word __bss_start__ - __tandem_mod0
    .word __bss_end__ - __tandem_mod0
    .word __eh_frame_hdr_start - __tandem_mod0
    .word __eh_frame_hdr_end - __tandem_mod0
    .word __tandem_module_object - __tandem_mod0
    .size __tandem_mod0, . - __tandem_mod0

    .section .data.tandem_self, "aw", %progbits
    .balign 8
__tandem_self:
    .quad __module_start
    .size __tandem_self, 8

    .section .bss.tandem_start, "aw", %nobits
    .global __tandem_main_thread_handle
    .balign 8
__tandem_main_thread_handle:
    .space 8
    .size __tandem_main_thread_handle, 8
    // The module object Horizon's rtld would fill in to link modules; unused by a lone NRO, but MOD0 names one.
    .global __tandem_module_object
    .balign 16
__tandem_module_object:
    .space 0x100
    .size __tandem_module_object, 0x100
