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

// ---- memory -------------------------------------------------------------------------------------------------------

// Result svc_set_memory_permission(void *address, uint64_t size, uint32_t permission): x0, x1, w2 -> w0.
SVC_FUNCTION svc_set_memory_permission
    svc #0x02
    ret
SVC_END svc_set_memory_permission

// Result svc_set_memory_attribute(void *address, uint64_t size, uint32_t mask, uint32_t attribute): x0-x1, w2-w3.
SVC_FUNCTION svc_set_memory_attribute
    svc #0x03
    ret
SVC_END svc_set_memory_attribute

// Result svc_map_memory(void *destination, void *source, uint64_t size): x0-x2 -> w0.
SVC_FUNCTION svc_map_memory
    svc #0x04
    ret
SVC_END svc_map_memory

// Result svc_unmap_memory(void *destination, void *source, uint64_t size): x0-x2 -> w0.
SVC_FUNCTION svc_unmap_memory
    svc #0x05
    ret
SVC_END svc_unmap_memory

// ---- threads ------------------------------------------------------------------------------------------------------

// Result svc_create_thread(Handle *out, ThreadEntry entry, void *argument, void *stack_top, int32_t priority,
// int32_t core): x1-x3, w4-w5 are already where the SVC wants them -> w0, w1 = handle.
SVC_FUNCTION svc_create_thread
    str x0, [sp, #-16]!
    svc #0x08
    ldr x2, [sp], #16
    str w1, [x2]
    ret
SVC_END svc_create_thread

SVC_FUNCTION svc_start_thread
    svc #0x09
    ret
SVC_END svc_start_thread

SVC_FUNCTION svc_exit_thread
    svc #0x0A
1:  b 1b
SVC_END svc_exit_thread

// void svc_sleep_thread(int64_t ns): x0 (0, -1, -2: yields).
SVC_FUNCTION svc_sleep_thread
    svc #0x0B
    ret
SVC_END svc_sleep_thread

// Result svc_get_thread_priority(int32_t *out, Handle thread): w1 -> w0, w1 = priority.
SVC_FUNCTION svc_get_thread_priority
    str x0, [sp, #-16]!
    svc #0x0C
    ldr x2, [sp], #16
    str w1, [x2]
    ret
SVC_END svc_get_thread_priority

// Result svc_set_thread_priority(Handle thread, int32_t priority): w0, w1 -> w0.
SVC_FUNCTION svc_set_thread_priority
    svc #0x0D
    ret
SVC_END svc_set_thread_priority

// Result svc_get_thread_core_mask(int32_t *core, uint64_t *mask, Handle thread): w2 -> w0, w1 = core, x2 = mask.
SVC_FUNCTION svc_get_thread_core_mask
    stp x0, x1, [sp, #-16]!
    svc #0x0E
    ldp x3, x4, [sp], #16
    str w1, [x3]
    str x2, [x4]
    ret
SVC_END svc_get_thread_core_mask

// Result svc_set_thread_core_mask(Handle thread, int32_t core, uint64_t mask): w0, w1, x2 -> w0.
SVC_FUNCTION svc_set_thread_core_mask
    svc #0x0F
    ret
SVC_END svc_set_thread_core_mask

// int32_t svc_get_current_processor_number(void): -> w0.
SVC_FUNCTION svc_get_current_processor_number
    svc #0x10
    ret
SVC_END svc_get_current_processor_number

// Result svc_get_process_id(uint64_t *out, Handle handle): w1 -> w0, x1 = process id.
SVC_FUNCTION svc_get_process_id
    str x0, [sp, #-16]!
    svc #0x24
    ldr x2, [sp], #16
    str x1, [x2]
    ret
SVC_END svc_get_process_id

// Result svc_get_thread_id(uint64_t *out, Handle thread): w1 -> w0, x1 = thread id.
SVC_FUNCTION svc_get_thread_id
    str x0, [sp, #-16]!
    svc #0x25
    ldr x2, [sp], #16
    str x1, [x2]
    ret
SVC_END svc_get_thread_id

// Result svc_set_thread_activity(Handle thread, uint32_t activity): w0, w1 -> w0.
SVC_FUNCTION svc_set_thread_activity
    svc #0x32
    ret
SVC_END svc_set_thread_activity

// Result svc_get_thread_context3(ThreadContext *out, Handle thread): x0, w1 -> w0.
SVC_FUNCTION svc_get_thread_context3
    svc #0x33
    ret
SVC_END svc_get_thread_context3

// ---- handles, events, waits ---------------------------------------------------------------------------------------

SVC_FUNCTION svc_signal_event
    svc #0x11
    ret
SVC_END svc_signal_event

SVC_FUNCTION svc_clear_event
    svc #0x12
    ret
SVC_END svc_clear_event

SVC_FUNCTION svc_close_handle
    svc #0x16
    ret
SVC_END svc_close_handle

SVC_FUNCTION svc_reset_signal
    svc #0x17
    ret
SVC_END svc_reset_signal

// Result svc_wait_synchronization(int32_t *index, const Handle *handles, int32_t count, int64_t timeout):
// x1, w2, x3 -> w0, w1 = index.
SVC_FUNCTION svc_wait_synchronization
    str x0, [sp, #-16]!
    svc #0x18
    ldr x2, [sp], #16
    str w1, [x2]
    ret
SVC_END svc_wait_synchronization

SVC_FUNCTION svc_cancel_synchronization
    svc #0x19
    ret
SVC_END svc_cancel_synchronization

// Result svc_create_event(Handle *writable, Handle *readable): -> w0, w1 = writable, w2 = readable.
SVC_FUNCTION svc_create_event
    stp x0, x1, [sp, #-16]!
    svc #0x45
    ldp x3, x4, [sp], #16
    str w1, [x3]
    str w2, [x4]
    ret
SVC_END svc_create_event

// ---- shared and transfer memory -----------------------------------------------------------------------------------

// Result svc_create_shared_memory(Handle *out, uint64_t size, uint32_t owner_perm, uint32_t remote_perm):
// x1, w2, w3 -> w0, w1 = handle.
SVC_FUNCTION svc_create_shared_memory
    str x0, [sp, #-16]!
    svc #0x50
    ldr x2, [sp], #16
    str w1, [x2]
    ret
SVC_END svc_create_shared_memory

// Result svc_map_shared_memory(Handle memory, void *address, uint64_t size, uint32_t perm): w0, x1, x2, w3 -> w0.
SVC_FUNCTION svc_map_shared_memory
    svc #0x13
    ret
SVC_END svc_map_shared_memory

// Result svc_unmap_shared_memory(Handle memory, void *address, uint64_t size): w0, x1, x2 -> w0.
SVC_FUNCTION svc_unmap_shared_memory
    svc #0x14
    ret
SVC_END svc_unmap_shared_memory

// Result svc_create_transfer_memory(Handle *out, void *address, uint64_t size, uint32_t perm):
// x1, x2, w3 -> w0, w1 = handle.
SVC_FUNCTION svc_create_transfer_memory
    str x0, [sp, #-16]!
    svc #0x15
    ldr x2, [sp], #16
    str w1, [x2]
    ret
SVC_END svc_create_transfer_memory

// Result svc_map_physical_memory(void *address, uint64_t size): x0, x1 -> w0.
SVC_FUNCTION svc_map_physical_memory
    svc #0x2c
    ret
SVC_END svc_map_physical_memory

// Result svc_unmap_physical_memory(void *address, uint64_t size): x0, x1 -> w0.
SVC_FUNCTION svc_unmap_physical_memory
    svc #0x2d
    ret
SVC_END svc_unmap_physical_memory

// Result svc_map_transfer_memory(Handle memory, void *address, uint64_t size, uint32_t perm): w0, x1, x2, w3 -> w0.
SVC_FUNCTION svc_map_transfer_memory
    svc #0x51
    ret
SVC_END svc_map_transfer_memory

// Result svc_unmap_transfer_memory(Handle memory, void *address, uint64_t size): w0, x1, x2 -> w0.
SVC_FUNCTION svc_unmap_transfer_memory
    svc #0x52
    ret
SVC_END svc_unmap_transfer_memory

// Result svc_create_code_memory(Handle *out, void *address, uint64_t size): x1, x2 -> w0, w1 = handle.
SVC_FUNCTION svc_create_code_memory
    str x0, [sp, #-16]!
    svc #0x4b
    ldr x2, [sp], #16
    str w1, [x2]
    ret
SVC_END svc_create_code_memory

// Result svc_control_code_memory(Handle memory, uint32_t operation, void *address, uint64_t size, uint32_t perm):
// w0, w1, x2, x3, w4 -> w0.
SVC_FUNCTION svc_control_code_memory
    svc #0x4c
    ret
SVC_END svc_control_code_memory

// ---- IPC -----------------------------------------------------------------------------------------------------------

// Result svc_connect_to_named_port(Handle *out, const char *name): x1 = name -> w0, w1 = session handle.
SVC_FUNCTION svc_connect_to_named_port
    str x0, [sp, #-16]!
    svc #0x1F
    ldr x2, [sp], #16
    str w1, [x2]
    ret
SVC_END svc_connect_to_named_port

// Result svc_send_sync_request(Handle session): w0 -> w0.
SVC_FUNCTION svc_send_sync_request
    svc #0x21
    ret
SVC_END svc_send_sync_request

// Result svc_send_sync_request_with_user_buffer(void *buffer, uint64_t size, Handle session): x0, x1, w2 -> w0.
SVC_FUNCTION svc_send_sync_request_with_user_buffer
    svc #0x22
    ret
SVC_END svc_send_sync_request_with_user_buffer

// Result svc_accept_session(Handle *out, Handle port): w1 = port -> w0, w1 = session.
SVC_FUNCTION svc_accept_session
    str x0, [sp, #-16]!
    svc #0x41
    ldr x2, [sp], #16
    str w1, [x2]
    ret
SVC_END svc_accept_session

// Result svc_reply_and_receive(int32_t *index, const Handle *handles, int32_t count, Handle reply_target,
// int64_t timeout): x1, w2, w3, x4 -> w0, w1 = index.
SVC_FUNCTION svc_reply_and_receive
    str x0, [sp, #-16]!
    svc #0x43
    ldr x2, [sp], #16
    str w1, [x2]
    ret
SVC_END svc_reply_and_receive

// Result svc_manage_named_port(Handle *out, const char *name, int32_t max_sessions): x1, w2 -> w0, w1 = port.
SVC_FUNCTION svc_manage_named_port
    str x0, [sp, #-16]!
    svc #0x71
    ldr x2, [sp], #16
    str w1, [x2]
    ret
SVC_END svc_manage_named_port

// ---- mutexes, condition variables, address arbiters ---------------------------------------------------------------

// Result svc_arbitrate_lock(Handle owner, volatile uint32_t *mutex, Handle tag): w0, x1, w2 -> w0.
SVC_FUNCTION svc_arbitrate_lock
    svc #0x1A
    ret
SVC_END svc_arbitrate_lock

// Result svc_arbitrate_unlock(volatile uint32_t *mutex): x0 -> w0.
SVC_FUNCTION svc_arbitrate_unlock
    svc #0x1B
    ret
SVC_END svc_arbitrate_unlock

// Result svc_wait_process_wide_key_atomic(volatile uint32_t *mutex, volatile uint32_t *key, Handle tag,
// int64_t timeout): x0, x1, w2, x3 -> w0.
SVC_FUNCTION svc_wait_process_wide_key_atomic
    svc #0x1C
    ret
SVC_END svc_wait_process_wide_key_atomic

// void svc_signal_process_wide_key(volatile uint32_t *key, int32_t count): x0, w1.
SVC_FUNCTION svc_signal_process_wide_key
    svc #0x1D
    ret
SVC_END svc_signal_process_wide_key

// Result svc_wait_for_address(volatile void *address, uint32_t type, int64_t value, int64_t timeout): x0, w1, x2, x3.
SVC_FUNCTION svc_wait_for_address
    svc #0x34
    ret
SVC_END svc_wait_for_address

// Result svc_signal_to_address(volatile void *address, uint32_t type, int32_t value, int32_t count): x0, w1-w3.
SVC_FUNCTION svc_signal_to_address
    svc #0x35
    ret
SVC_END svc_signal_to_address
