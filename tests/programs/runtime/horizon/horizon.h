/* Horizon system calls for the Horizon-only test programs (svc.c, the crash programs). Numbers, registers and types
 * from switchbrew's "SVC" page; the wrappers are in svc.S, one function per SVC, so callers treat x0-x18 as clobbered
 * just as for any call. */
#ifndef TANDEM_HORIZON_H
#define TANDEM_HORIZON_H

#include <stdint.h>

typedef uint32_t Result;
typedef uint32_t Handle;

/* Pseudo-handles the kernel resolves to the calling process and thread. */
#define CURRENT_PROCESS_HANDLE 0xFFFF8001u
#define CURRENT_THREAD_HANDLE 0xFFFF8000u

/* Kernel results: module 1, description in bits 9 and up. */
#define RESULT_SUCCESS 0u
#define RESULT_INVALID_SIZE 0xCA01u        /* description 101 */
#define RESULT_INVALID_HANDLE 0xE401u      /* description 114 */
#define RESULT_INVALID_COMBINATION 0xE801u /* description 116 */
#define RESULT_INVALID_ENUM_VALUE 0xF001u  /* description 120 */

/* svcQueryMemory's output (switchbrew "MemoryInfo"), 0x28 bytes. */
typedef struct {
    uint64_t address;
    uint64_t size;
    uint32_t type; /* MemoryState's low 8 bits: MEMORY_TYPE_* */
    uint32_t attribute;
    uint32_t permission; /* PERMISSION_* bits */
    uint32_t ipc_refcount;
    uint32_t device_refcount;
    uint32_t padding;
} MemoryInfo;

_Static_assert(sizeof(MemoryInfo) == 0x28, "MemoryInfo is 0x28 bytes");

#define MEMORY_TYPE_UNMAPPED 0x00u
#define MEMORY_TYPE_CODE_STATIC 0x03u
#define MEMORY_TYPE_CODE_MUTABLE 0x04u
#define MEMORY_TYPE_HEAP 0x05u
#define MEMORY_TYPE_MODULE_CODE_STATIC 0x08u
#define MEMORY_TYPE_MODULE_CODE_MUTABLE 0x09u
#define MEMORY_TYPE_STACK 0x0Bu /* "MappedMemory": svcMapMemory, and the main thread's stack */
#define MEMORY_TYPE_THREAD_LOCAL 0x0Cu
/* What QueryMemory reports past the end of the address space: one block from there to 2^64. */
#define MEMORY_TYPE_INACCESSIBLE 0x10u

#define PERMISSION_READ 1u
#define PERMISSION_WRITE 2u
#define PERMISSION_EXECUTE 4u

/* svcGetInfo ids (switchbrew "InfoType"); ids 0..25 take a process handle and sub id 0. */
#define INFO_CORE_MASK 0
#define INFO_PRIORITY_MASK 1
#define INFO_ALIAS_REGION_ADDRESS 2
#define INFO_ALIAS_REGION_SIZE 3
#define INFO_HEAP_REGION_ADDRESS 4
#define INFO_HEAP_REGION_SIZE 5
#define INFO_TOTAL_MEMORY_SIZE 6
#define INFO_USED_MEMORY_SIZE 7
#define INFO_DEBUGGER_ATTACHED 8
#define INFO_RESOURCE_LIMIT 9
#define INFO_IDLE_TICK_COUNT 10
#define INFO_RANDOM_ENTROPY 11
#define INFO_ASLR_REGION_ADDRESS 12
#define INFO_ASLR_REGION_SIZE 13
#define INFO_STACK_REGION_ADDRESS 14
#define INFO_STACK_REGION_SIZE 15
#define INFO_SYSTEM_RESOURCE_SIZE_TOTAL 16
#define INFO_SYSTEM_RESOURCE_SIZE_USED 17
#define INFO_PROGRAM_ID 18

/* 0x01: x1 = size (a multiple of 2 MiB) -> w0 result, x1 heap address. */
Result svc_set_heap_size(uint64_t *out_address, uint64_t size);
/* 0x06: x0 = MemoryInfo*, x2 = address -> w0 result, w1 page info. */
Result svc_query_memory(MemoryInfo *info, uint32_t *out_page_info, uint64_t address);
/* 0x07: never returns. */
_Noreturn void svc_exit_process(void);
/* 0x1E: -> x0 ticks at 19.2 MHz. */
uint64_t svc_get_system_tick(void);
/* 0x26: x0 = reason, x1 = arg, x2 = size -> w0 (only returns when reason has bit 31, "notification only"). */
Result svc_break(uint64_t reason, uint64_t arg, uint64_t size);
/* 0x27: x0 = string, x1 = length -> w0 result. */
Result svc_output_debug_string(const char *s, uint64_t length);
/* 0x29: x1 = info id, x2 = handle, x3 = sub id -> w0 result, x1 value. */
Result svc_get_info(uint64_t *out, uint32_t id, Handle handle, uint64_t sub_id);

/* The handle the kernel passed in x1 at entry (saved by crt0). */
extern Handle __tandem_main_thread_handle;
/* The module's own first byte (the branch at offset 0) and its MOD0 header, as linked. */
extern char __module_start[];
extern char __tandem_mod0[];

/* TPIDRRO_EL0: the thread-local area's address. */
static inline uint64_t thread_local_area(void) {
    uint64_t value;
    __asm__ volatile("mrs %0, tpidrro_el0" : "=r"(value));
    return value;
}

#endif
