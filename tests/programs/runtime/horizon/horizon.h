/* Horizon system calls for the Horizon-only test programs (svc.c, threads.c, sync.c, memory.c, the crash programs),
 * and the threads, mutexes, condition variables and events built on them (sync.c in this folder). Numbers,
 * registers and types from switchbrew's "SVC" page; the wrappers are in svc.S, one function per SVC, so callers
 * treat x0-x18 as clobbered just as for any call. */
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
#define RESULT_INVALID_SIZE 0xCA01u                   /* description 101 */
#define RESULT_INVALID_ADDRESS 0xCC01u                /* 102 */
#define RESULT_OUT_OF_RESOURCE 0xCE01u                /* 103 */
#define RESULT_INVALID_CURRENT_MEMORY 0xD401u         /* 106 */
#define RESULT_INVALID_NEW_MEMORY_PERMISSION 0xD801u  /* 108 */
#define RESULT_INVALID_MEMORY_REGION 0xDC01u          /* 110 */
#define RESULT_INVALID_PRIORITY 0xE001u               /* 112 */
#define RESULT_INVALID_CORE_ID 0xE201u                /* 113 */
#define RESULT_INVALID_HANDLE 0xE401u                 /* 114 */
#define RESULT_INVALID_POINTER 0xE601u                /* 115 */
#define RESULT_INVALID_COMBINATION 0xE801u            /* 116 */
#define RESULT_TIMED_OUT 0xEA01u                      /* 117 */
#define RESULT_CANCELLED 0xEC01u                      /* 118 */
#define RESULT_OUT_OF_RANGE 0xEE01u                   /* 119 */
#define RESULT_INVALID_ENUM_VALUE 0xF001u             /* 120 */
#define RESULT_BUSY 0xF401u                           /* 122 */
#define RESULT_INVALID_STATE 0xFA01u                  /* 125 */
#define RESULT_NOT_FOUND 0xF201u                      /* 121 */
#define RESULT_SESSION_CLOSED 0xF601u                 /* 123 */
#define RESULT_MESSAGE_TOO_LARGE 0x20801u             /* 260 */
#define RESULT_OUT_OF_SESSIONS 0xE01u                 /* 7 */
#define RESULT_OUT_OF_MEMORY 0xD001u                  /* 104 */
#define RESULT_LIMIT_REACHED 0x10801u                 /* 132 */

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
#define MEMORY_TYPE_SHARED 0x06u
/* What QueryMemory reports past the end of the address space: one block from there to 2^64. */
#define MEMORY_TYPE_INACCESSIBLE 0x10u

#define PERMISSION_READ 1u
#define PERMISSION_WRITE 2u
#define PERMISSION_EXECUTE 4u

/* MemoryInfo.attribute bits. */
#define MEMORY_ATTRIBUTE_LOCKED 0x01u
#define MEMORY_ATTRIBUTE_UNCACHED 0x08u
#define MEMORY_ATTRIBUTE_PERMISSION_LOCKED 0x10u

/* The mutex word's "threads wait in the kernel" bit. */
#define HANDLE_WAIT_MASK 0x40000000u

/* CreateThread's core meaning "the process's default core". */
#define CORE_USE_PROCESS_VALUE (-2)

/* WaitForAddress's and SignalToAddress's types. */
#define ARBITRATION_WAIT_IF_LESS_THAN 0u
#define ARBITRATION_DECREMENT_AND_WAIT_IF_LESS_THAN 1u
#define ARBITRATION_WAIT_IF_EQUAL 2u
#define ARBITRATION_WAIT_IF_EQUAL_64 3u
#define SIGNAL_ONLY 0u
#define SIGNAL_AND_INCREMENT_IF_EQUAL 1u
#define SIGNAL_AND_MODIFY_BY_WAITING_COUNT_IF_EQUAL 2u

/* GetThreadContext3's output, 0x320 bytes. */
typedef struct {
    uint64_t x[29];
    uint64_t fp, lr, sp, pc;
    uint32_t pstate, padding;
    uint64_t v[64]; /* 32 128-bit registers, as pairs of words */
    uint32_t fpcr, fpsr;
    uint64_t tpidr;
} ThreadContext;

_Static_assert(sizeof(ThreadContext) == 0x320, "ThreadContext is 0x320 bytes");

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
#define INFO_USER_EXCEPTION_CONTEXT_ADDRESS 20

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

/* 0x02: x0 = address, x1 = size, w2 = permission (0, r, rw). */
Result svc_set_memory_permission(void *address, uint64_t size, uint32_t permission);
/* 0x03: x0 = address, x1 = size, w2 = mask, w3 = attribute. */
Result svc_set_memory_attribute(void *address, uint64_t size, uint32_t mask, uint32_t attribute);
/* 0x04 / 0x05: x0 = destination (stack region), x1 = source, x2 = size. */
Result svc_map_memory(void *destination, void *source, uint64_t size);
Result svc_unmap_memory(void *destination, void *source, uint64_t size);

typedef void (*ThreadEntry)(void *argument);
/* 0x08: x1 = entry, x2 = argument (x0 at entry), x3 = stack top, w4 = priority, w5 = core -> w0, w1 = handle. */
Result svc_create_thread(Handle *out, ThreadEntry entry, void *argument, void *stack_top, int32_t priority,
                         int32_t core);
/* 0x09, 0x0A. */
Result svc_start_thread(Handle thread);
_Noreturn void svc_exit_thread(void);
/* 0x0B: ns > 0 sleeps; 0, -1, -2 yield (same core; with core migration; to any thread). */
void svc_sleep_thread(int64_t ns);
/* 0x0C-0x10. */
Result svc_get_thread_priority(int32_t *out, Handle thread);
Result svc_set_thread_priority(Handle thread, int32_t priority);
Result svc_get_thread_core_mask(int32_t *core, uint64_t *mask, Handle thread);
Result svc_set_thread_core_mask(Handle thread, int32_t core, uint64_t mask);
int32_t svc_get_current_processor_number(void);
/* 0x11, 0x12, 0x16, 0x17: event and handle calls. */
Result svc_signal_event(Handle writable);
Result svc_clear_event(Handle event);
Result svc_close_handle(Handle handle);
Result svc_reset_signal(Handle readable);
/* 0x18: x1 = handles, w2 = count, x3 = timeout ns (0 polls, < 0 forever) -> w0, w1 = index. */
Result svc_wait_synchronization(int32_t *index, const Handle *handles, int32_t count, int64_t timeout);
/* 0x19. */
Result svc_cancel_synchronization(Handle thread);
/* 0x1A-0x1D: the mutex and condition variable calls. */
Result svc_arbitrate_lock(Handle owner, volatile uint32_t *mutex, Handle tag);
Result svc_arbitrate_unlock(volatile uint32_t *mutex);
Result svc_wait_process_wide_key_atomic(volatile uint32_t *mutex, volatile uint32_t *key, Handle tag, int64_t timeout);
void svc_signal_process_wide_key(volatile uint32_t *key, int32_t count);
/* 0x24, 0x25. */
Result svc_get_process_id(uint64_t *out, Handle handle);
Result svc_get_thread_id(uint64_t *out, Handle thread);
/* 0x32: activity 0 = runnable, 1 = paused. 0x33: the registers of a paused thread. */
Result svc_set_thread_activity(Handle thread, uint32_t activity);
Result svc_get_thread_context3(ThreadContext *out, Handle thread);
/* 0x34, 0x35: address arbiters. */
Result svc_wait_for_address(volatile void *address, uint32_t type, int64_t value, int64_t timeout);
Result svc_signal_to_address(volatile void *address, uint32_t type, int32_t value, int32_t count);
/* 0x45: -> w0, w1 = writable handle, w2 = readable handle. */
Result svc_create_event(Handle *writable, Handle *readable);

/* 0x50: x1 = size, w2 = the owner's permission (r or rw), w3 = others' (r, rw or 0x10000000 "don't care"). */
Result svc_create_shared_memory(Handle *out, uint64_t size, uint32_t owner_perm, uint32_t remote_perm);
/* 0x13, 0x14. */
Result svc_map_shared_memory(Handle memory, void *address, uint64_t size, uint32_t perm);
Result svc_unmap_shared_memory(Handle memory, void *address, uint64_t size);
/* 0x15: x1 = heap address, x2 = size, w3 = the permission the owner keeps (0, r, rw) -> w1 = handle. */
Result svc_create_transfer_memory(Handle *out, void *address, uint64_t size, uint32_t perm);
/* 0x2C, 0x2D: pages of the alias region, for processes with a system resource (an NPDM's). */
Result svc_map_physical_memory(void *address, uint64_t size);
Result svc_unmap_physical_memory(void *address, uint64_t size);
/* 0x51, 0x52: the permission must be the one the creator kept; the mapping is read-write whatever it is. */
Result svc_map_transfer_memory(Handle memory, void *address, uint64_t size, uint32_t perm);
Result svc_unmap_transfer_memory(Handle memory, void *address, uint64_t size);
/* 0x4B: x1 = heap address, x2 = size -> w1 = handle. */
Result svc_create_code_memory(Handle *out, void *address, uint64_t size);
/* 0x4C: operations 0/2 map/unmap the read-write view (rw-, then ---), 1/3 the read-only or executable one
 * (r-- or r-x, then ---). libnx calls 0 and 1 MapOwner and MapSlave. */
Result svc_control_code_memory(Handle memory, uint32_t operation, void *address, uint64_t size, uint32_t perm);
#define CODE_MEMORY_MAP 0
#define CODE_MEMORY_MAP_TO_OWNER 1
#define CODE_MEMORY_UNMAP 2
#define CODE_MEMORY_UNMAP_FROM_OWNER 3

/* 0x1F: x1 = name (at most 11 characters and a NUL) -> w0, w1 = session handle. */
Result svc_connect_to_named_port(Handle *out, const char *name);
/* 0x21: the message in the thread-local area's first 0x100 bytes; the reply replaces it. */
Result svc_send_sync_request(Handle session);
/* 0x41: the oldest session waiting on a port the program serves. 0x43: reply on `reply_target` (0: none), then
 * wait for one of the handles (sessions, ports, events, threads); a session hands over its request. 0x71: a named
 * port the program serves (max_sessions 0 removes the name). */
Result svc_accept_session(Handle *out, Handle port);
Result svc_reply_and_receive(int32_t *index, const Handle *handles, int32_t count, Handle reply_target,
                             int64_t timeout);
Result svc_manage_named_port(Handle *out, const char *name, int32_t max_sessions);
/* 0x22: the message in a page-aligned buffer of `size` bytes (a multiple of the page size). */
Result svc_send_sync_request_with_user_buffer(void *buffer, uint64_t size, Handle session);

/* ---- sync.c: threads, mutexes, condition variables on top of the SVCs ---------------------------------------------- */

/* The calling thread's handle: the kernel writes it into the thread-local area at 0x110. */
Handle current_thread_handle(void);

typedef struct {
    Handle handle;
    ThreadEntry entry;
    void *argument;
} Thread;

/* Creates a thread that runs entry(argument) on the given stack, then exits. Started by thread_start. */
Result thread_create(Thread *thread, ThreadEntry entry, void *argument, void *stack_top, int32_t priority, int32_t core);
Result thread_start(Thread *thread);
/* Waits for the thread's exit, then closes its handle. */
Result thread_join(Thread *thread);

/* A mutex word: 0 when free, else the owner's handle (| HANDLE_WAIT_MASK while threads wait in the kernel). */
typedef struct {
    volatile uint32_t tag;
} Mutex;

/* Locks; returns how many times the caller waited in the kernel (ArbitrateLock) before it got the mutex. */
int mutex_lock(Mutex *mutex);
void mutex_unlock(Mutex *mutex);

/* A condition variable word: 1 while threads may wait on it, 0 once a signal took the last. */
typedef struct {
    volatile uint32_t has_waiters;
} CondVar;

/* Releases the mutex, waits for a signal (or the timeout: RESULT_TIMED_OUT) and holds the mutex again on return. */
Result condvar_wait_timeout(CondVar *condvar, Mutex *mutex, int64_t timeout);
void condvar_wait(CondVar *condvar, Mutex *mutex);
void condvar_signal(CondVar *condvar);
void condvar_broadcast(CondVar *condvar);

/* WaitSynchronization on one handle. */
Result wait_one(Handle handle, int64_t timeout);

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
