// Horizon SVC wrappers (switchbrew "SVC"): one function per call; C prototypes and register use in horizon.h.

.macro SVC_FUNCTION name
    .section .text.\name, "ax", %progbits
    .global \name
    .type \name, %function
    .balign 4
\name:
.endm

.macro SVC_END name
    .size \name, . - \name
.endm

// Result svc_set_heap_size(uint64_t *out_address, uint64_t size): x1 = size -> w0, x1 = address.
SVC_FUNCTION svc_set_heap_size
    mov x2, x0
    svc #0x01
    str x1, [x2]
    ret
SVC_END svc_set_heap_size

// Result svc_query_memory(MemoryInfo *info, uint32_t *out_page_info, uint64_t address):
// x0 = info, x2 = address -> w0, w1 = page info. x1 carries the out pointer in, so keep it across the call.
SVC_FUNCTION svc_query_memory
    str x1, [sp, #-16]!
    svc #0x06
    ldr x2, [sp], #16
    str w1, [x2]
    ret
SVC_END svc_query_memory

SVC_FUNCTION svc_exit_process
    svc #0x07
    // ExitProcess does not return; if it did, stop here rather than run on.
1:  b 1b
SVC_END svc_exit_process

SVC_FUNCTION svc_get_system_tick
    svc #0x1E
    ret
SVC_END svc_get_system_tick

SVC_FUNCTION svc_break
    svc #0x26
    ret
SVC_END svc_break

SVC_FUNCTION svc_output_debug_string
    svc #0x27
    ret
SVC_END svc_output_debug_string

// Result svc_get_info(uint64_t *out, uint32_t id, Handle handle, uint64_t sub_id):
// x1 = id, x2 = handle, x3 = sub id -> w0, x1 = value.
SVC_FUNCTION svc_get_info
    str x0, [sp, #-16]!
    svc #0x29
    ldr x2, [sp], #16
    str x1, [x2]
    ret
SVC_END svc_get_info
