/* Shared, transfer and code memory with the results Horizon gives (switchbrew "SVC"; mesosphère's checks, in its
 * order): a shared memory object keeps its bytes across mappings and shows one set of bytes in all of them at once;
 * transfer memory locks heap pages until its handle closes and MapTransferMemory shows them read-write elsewhere;
 * code memory locks heap pages (filled with 0xFF), and a JIT writes code through its read-write view and runs it
 * through its executable view, rewriting it between runs. QueryMemory's types: SharedTransfered 0x0E, CodeOut
 * 0x15, GeneratedCode 0x14 (mesosphère's KMemoryState). */
#include "ipc.h"
#include "tandem.h"

/* Free addresses inside the ASLR region, outside the heap, alias and stack regions. */
#define SHARED_A ((void *)0x4000000000ull)
#define SHARED_B ((void *)0x4000100000ull)
#define SHARED_C ((void *)0x4000200000ull)
#define SIZE 0x2000u

static MemoryInfo query(const void *address) {
    MemoryInfo info;
    uint32_t page_info;
    check(svc_query_memory(&info, &page_info, (uint64_t)address) == RESULT_SUCCESS, "QueryMemory");
    return info;
}

static void print_block(const char *what, const void *address) {
    MemoryInfo info = query(address);
    print(what);
    print(": type ");
    print_hex(info.type);
    print(", permission ");
    print_u64(info.permission);
    print(", attribute ");
    print_u64(info.attribute);
    print(", size ");
    print_hex(info.size);
    print("\n");
}

/* Checks the block holding `address` (type, permission, attribute) and prints it. */
static void expect_block(const char *what, const void *address, uint32_t type, uint32_t permission,
                         uint32_t attribute) {
    print_block(what, address);
    MemoryInfo info = query(address);
    check(info.type == type && info.permission == permission && info.attribute == attribute, what);
}

/* `mov w0, #value; ret` at `writable`, then the cache maintenance a JIT does (libnx's jitTransitionToExecutable):
 * clean the data cache to the point of unification, invalidate the instruction cache at the executable address. */
static void write_function(volatile uint32_t *writable, const void *executable, uint32_t value) {
    writable[0] = 0x52800000u | value << 5;
    writable[1] = 0xd65f03c0u;
    __asm__ volatile("dc cvau, %0\n\tdsb ish\n\tic ivau, %1\n\tdsb ish\n\tisb" : : "r"(writable), "r"(executable)
                     : "memory");
}

int main(void) {
    Handle memory;
    print("-- shared memory\n");
    expect("CreateSharedMemory(size 0)", svc_create_shared_memory(&memory, 0, 3, 1), RESULT_INVALID_SIZE);
    expect("CreateSharedMemory(owner rwx)", svc_create_shared_memory(&memory, SIZE, 7, 1),
           RESULT_INVALID_NEW_MEMORY_PERMISSION);
    expect("CreateSharedMemory", svc_create_shared_memory(&memory, SIZE, 3, 1), RESULT_SUCCESS);
    expect("MapSharedMemory(misaligned)", svc_map_shared_memory(memory, (char *)SHARED_A + 8, SIZE, 3),
           RESULT_INVALID_ADDRESS);
    expect("MapSharedMemory(r-x)", svc_map_shared_memory(memory, SHARED_A, SIZE, 5),
           RESULT_INVALID_NEW_MEMORY_PERMISSION);
    expect("MapSharedMemory(a thread handle)", svc_map_shared_memory(__tandem_main_thread_handle, SHARED_A, SIZE, 3),
           RESULT_INVALID_HANDLE);
    uint64_t heap_region;
    check(svc_get_info(&heap_region, INFO_HEAP_REGION_ADDRESS, CURRENT_PROCESS_HANDLE, 0) == 0, "heap region");
    expect("MapSharedMemory(in the heap region)", svc_map_shared_memory(memory, (void *)heap_region, SIZE, 3),
           RESULT_INVALID_MEMORY_REGION);
    expect("MapSharedMemory(wrong size)", svc_map_shared_memory(memory, SHARED_A, 2 * SIZE, 3), RESULT_INVALID_SIZE);
    /* The stack region is no obstacle: libnx's virtmemFindAslr avoids the heap and alias regions alone. */
    uint64_t stack_region = 0, stack_size = 0;
    check(svc_get_info(&stack_region, INFO_STACK_REGION_ADDRESS, CURRENT_PROCESS_HANDLE, 0) == 0 &&
              svc_get_info(&stack_size, INFO_STACK_REGION_SIZE, CURRENT_PROCESS_HANDLE, 0) == 0,
          "stack region");
    void *top_of_stack_region = (void *)(stack_region + stack_size - SIZE);
    expect("MapSharedMemory(in the stack region)", svc_map_shared_memory(memory, top_of_stack_region, SIZE, 3),
           RESULT_SUCCESS);
    expect("UnmapSharedMemory(in the stack region)", svc_unmap_shared_memory(memory, top_of_stack_region, SIZE),
           RESULT_SUCCESS);
    expect("MapSharedMemory(over the code)", svc_map_shared_memory(memory, __module_start, SIZE, 3),
           RESULT_INVALID_CURRENT_MEMORY);
    expect("MapSharedMemory", svc_map_shared_memory(memory, SHARED_A, SIZE, 3), RESULT_SUCCESS);
    print_block("mapped", SHARED_A);
    volatile uint32_t *words = (volatile uint32_t *)SHARED_A;
    check(words[0] == 0 && words[SIZE / 4 - 1] == 0, "new shared memory is zero");
    for (uint32_t i = 0; i < SIZE / 4; i++) words[i] = i * 0x9e3779b9u;
    /* mesosphère's answers: a size not the object's is InvalidSize, an address that is no mapping of it
     * InvalidCurrentMemory, and a mapping takes exactly the owner's permission. */
    expect("UnmapSharedMemory(elsewhere)", svc_unmap_shared_memory(memory, SHARED_B, SIZE),
           RESULT_INVALID_CURRENT_MEMORY);
    expect("UnmapSharedMemory(wrong size)", svc_unmap_shared_memory(memory, SHARED_A, 2 * SIZE), RESULT_INVALID_SIZE);
    expect("UnmapSharedMemory", svc_unmap_shared_memory(memory, SHARED_A, SIZE), RESULT_SUCCESS);
    print_block("unmapped", SHARED_A);
    expect("MapSharedMemory(read-only, the owner's being read-write)", svc_map_shared_memory(memory, SHARED_B, SIZE, 1),
           RESULT_INVALID_NEW_MEMORY_PERMISSION);
    expect("MapSharedMemory(elsewhere)", svc_map_shared_memory(memory, SHARED_B, SIZE, 3), RESULT_SUCCESS);
    print_block("mapped again", SHARED_B);
    words = (volatile uint32_t *)SHARED_B;
    uint32_t kept = 1;
    for (uint32_t i = 0; i < SIZE / 4; i++) kept &= words[i] == i * 0x9e3779b9u;
    check(kept, "the object kept its bytes");
    expect("MapSharedMemory(a second mapping)", svc_map_shared_memory(memory, SHARED_A, SIZE, 3), RESULT_SUCCESS);
    ((volatile uint32_t *)SHARED_A)[3] = 0x600dcafe;
    check(words[3] == 0x600dcafe, "both mappings show the same bytes");
    expect("UnmapSharedMemory(the second)", svc_unmap_shared_memory(memory, SHARED_A, SIZE), RESULT_SUCCESS);
    check(words[3] == 0x600dcafe, "the first mapping keeps them");
    expect("UnmapSharedMemory", svc_unmap_shared_memory(memory, SHARED_B, SIZE), RESULT_SUCCESS);
    expect("CloseHandle", svc_close_handle(memory), RESULT_SUCCESS);

    /* Shared memory counts against the application's memory (GetInfo's TotalMemorySize), with the heap. */
    uint64_t total;
    check(svc_get_info(&total, INFO_TOTAL_MEMORY_SIZE, CURRENT_PROCESS_HANDLE, 0) == 0, "TotalMemorySize");
    Handle all, more;
    expect("CreateSharedMemory(all the application's memory)", svc_create_shared_memory(&all, total, 3, 1),
           RESULT_SUCCESS);
    expect("CreateSharedMemory(a page more)", svc_create_shared_memory(&more, 0x1000, 3, 1), RESULT_LIMIT_REACHED);
    uint64_t heap_address;
    /* Past the memory limit: LimitReached, as mesosphere's KPageTableBase::SetHeapSize answers. */
    expect("SetHeapSize(2 MiB) beside it", svc_set_heap_size(&heap_address, 0x200000), RESULT_LIMIT_REACHED);
    expect("CloseHandle", svc_close_handle(all), RESULT_SUCCESS);

    print("-- transfer memory\n");
    uint64_t heap;
    check(svc_set_heap_size(&heap, 0x200000) == 0, "SetHeapSize");
    volatile uint8_t *bytes = (volatile uint8_t *)heap;
    bytes[0x1000] = 0x5a;
    Handle transfer;
    expect("CreateTransferMemory(r-x)", svc_create_transfer_memory(&transfer, (void *)heap, 0x2000, 5),
           RESULT_INVALID_NEW_MEMORY_PERMISSION);
    expect("CreateTransferMemory(the stack)", svc_create_transfer_memory(&transfer, (void *)((uint64_t)&transfer & ~0xfffull), 0x1000, 0),
           RESULT_INVALID_CURRENT_MEMORY);
    expect("CreateTransferMemory", svc_create_transfer_memory(&transfer, (void *)heap, 0x2000, 0), RESULT_SUCCESS);
    print_block("transferred", (void *)heap);
    Handle again;
    expect("CreateTransferMemory(the same pages)", svc_create_transfer_memory(&again, (void *)heap, 0x1000, 0),
           RESULT_INVALID_CURRENT_MEMORY);
    expect("CloseHandle", svc_close_handle(transfer), RESULT_SUCCESS);
    print_block("given back", (void *)heap);
    check(bytes[0x1000] == 0x5a, "the heap kept its bytes");
    /* A module's data and bss can be lent too (mesosphere's LockForTransferMemory takes any state with
     * FlagCanTransfer: Normal and CodeData). */
    static uint8_t lent_bss[0x2000] __attribute__((aligned(0x1000)));
    lent_bss[0] = 0x77;
    expect("CreateTransferMemory(the program's bss)", svc_create_transfer_memory(&transfer, lent_bss, 0x1000, 0),
           RESULT_SUCCESS);
    expect_block("the lent bss", lent_bss, 0x04, 0, 1);
    expect("CloseHandle", svc_close_handle(transfer), RESULT_SUCCESS);
    expect_block("the bss given back", lent_bss, 0x04, 3, 0);
    check(lent_bss[0] == 0x77, "the bss kept its bytes");

    print("-- transfer memory, mapped\n");
    Handle lent;
    void *in_heap_region = (void *)(heap_region + 0x1000000);
    expect("CreateTransferMemory(r--)", svc_create_transfer_memory(&lent, (void *)heap, SIZE, 1), RESULT_SUCCESS);
    expect("MapTransferMemory(r-x)", svc_map_transfer_memory(lent, SHARED_A, SIZE, 5), RESULT_INVALID_STATE);
    expect("MapTransferMemory(a thread handle)", svc_map_transfer_memory(__tandem_main_thread_handle, SHARED_A, SIZE, 1),
           RESULT_INVALID_HANDLE);
    expect("MapTransferMemory(in the heap region)", svc_map_transfer_memory(lent, in_heap_region, SIZE, 1),
           RESULT_INVALID_MEMORY_REGION);
    expect("MapTransferMemory(wrong size)", svc_map_transfer_memory(lent, SHARED_A, SIZE / 2, 1), RESULT_INVALID_SIZE);
    expect("MapTransferMemory(not the creator's permission)", svc_map_transfer_memory(lent, SHARED_A, SIZE, 3),
           RESULT_INVALID_STATE);
    expect("MapTransferMemory", svc_map_transfer_memory(lent, SHARED_A, SIZE, 1), RESULT_SUCCESS);
    expect_block("transfer memory's view", SHARED_A, 0x0e, 3, 0);
    expect_block("its heap", (void *)heap, 0x05, 1, 1);
    expect("MapTransferMemory(twice)", svc_map_transfer_memory(lent, SHARED_B, SIZE, 1), RESULT_INVALID_STATE);
    volatile uint8_t *view = (volatile uint8_t *)SHARED_A;
    check(view[0x1000] == 0x5a, "the view shows the heap's bytes");
    view[0x1001] = 0x33;
    check(bytes[0x1001] == 0x33, "the heap shows what was written through the view");
    expect("UnmapTransferMemory(elsewhere)", svc_unmap_transfer_memory(lent, SHARED_B, SIZE),
           RESULT_INVALID_CURRENT_MEMORY);
    expect("UnmapTransferMemory", svc_unmap_transfer_memory(lent, SHARED_A, SIZE), RESULT_SUCCESS);
    expect_block("unmapped", SHARED_A, 0, 0, 0);
    expect("CloseHandle", svc_close_handle(lent), RESULT_SUCCESS);
    expect_block("given back", (void *)heap, 0x05, 3, 0);

    print("-- code memory\n");
    void *source = (void *)(heap + 0x10000);
    Handle code;
    expect("CreateCodeMemory(misaligned)", svc_create_code_memory(&code, (char *)source + 8, SIZE),
           RESULT_INVALID_ADDRESS);
    expect("CreateCodeMemory(size 0)", svc_create_code_memory(&code, source, 0), RESULT_INVALID_SIZE);
    expect("CreateCodeMemory(the program's code)", svc_create_code_memory(&code, __module_start, 0x1000),
           RESULT_INVALID_CURRENT_MEMORY);
    expect("CreateCodeMemory", svc_create_code_memory(&code, source, SIZE), RESULT_SUCCESS);
    expect_block("code memory's heap", source, 0x05, 0, 1);
    Handle twice;
    expect("CreateCodeMemory(the same pages)", svc_create_code_memory(&twice, source, SIZE),
           RESULT_INVALID_CURRENT_MEMORY);
    void *writable = SHARED_A, *executable = SHARED_B;
    expect("ControlCodeMemory(operation 4)", svc_control_code_memory(code, 4, writable, SIZE, 3),
           RESULT_INVALID_ENUM_VALUE);
    expect("ControlCodeMemory(a thread handle)",
           svc_control_code_memory(__tandem_main_thread_handle, CODE_MEMORY_MAP, writable, SIZE, 3),
           RESULT_INVALID_HANDLE);
    expect("ControlCodeMemory(map in the heap region)",
           svc_control_code_memory(code, CODE_MEMORY_MAP, in_heap_region, SIZE, 3), RESULT_INVALID_MEMORY_REGION);
    expect("ControlCodeMemory(map r-x)", svc_control_code_memory(code, CODE_MEMORY_MAP, writable, SIZE, 5),
           RESULT_INVALID_NEW_MEMORY_PERMISSION);
    expect("ControlCodeMemory(map, wrong size)", svc_control_code_memory(code, CODE_MEMORY_MAP, writable, SIZE / 2, 3),
           RESULT_INVALID_SIZE);
    expect("ControlCodeMemory(map)", svc_control_code_memory(code, CODE_MEMORY_MAP, writable, SIZE, 3), RESULT_SUCCESS);
    expect("ControlCodeMemory(map twice)", svc_control_code_memory(code, CODE_MEMORY_MAP, SHARED_C, SIZE, 3),
           RESULT_INVALID_STATE);
    expect("ControlCodeMemory(map to owner rw-)",
           svc_control_code_memory(code, CODE_MEMORY_MAP_TO_OWNER, executable, SIZE, 3),
           RESULT_INVALID_NEW_MEMORY_PERMISSION);
    expect("ControlCodeMemory(map to owner over the other view)",
           svc_control_code_memory(code, CODE_MEMORY_MAP_TO_OWNER, writable, SIZE, 5), RESULT_INVALID_CURRENT_MEMORY);
    expect("ControlCodeMemory(map to owner)",
           svc_control_code_memory(code, CODE_MEMORY_MAP_TO_OWNER, executable, SIZE, 5), RESULT_SUCCESS);
    expect_block("writable view", writable, 0x15, 3, 0);
    expect_block("executable view", executable, 0x14, 5, 0);
    volatile uint32_t *code_words = (volatile uint32_t *)writable;
    check(code_words[0] == 0xffffffffu && code_words[SIZE / 4 - 1] == 0xffffffffu, "code memory starts as 0xFF");
    /* Each function runs often enough for the fast path to want to compile it; each rewrite must still show. */
    uint32_t (*function)(void) = (uint32_t (*)(void))executable;
    uint32_t sum = 0;
    for (uint32_t value = 1; value <= 3; value++) {
        write_function(code_words, executable, value);
        for (int i = 0; i < 20; i++) sum += function();
    }
    print("the JIT's functions returned ");
    print_u64(sum);
    print("\n");
    check(sum == 20 * (1 + 2 + 3), "the executable view runs what the writable view wrote, every time");
    expect("ControlCodeMemory(unmap elsewhere)", svc_control_code_memory(code, CODE_MEMORY_UNMAP, SHARED_C, SIZE, 0),
           RESULT_INVALID_CURRENT_MEMORY);
    expect("ControlCodeMemory(unmap with rw-)", svc_control_code_memory(code, CODE_MEMORY_UNMAP, writable, SIZE, 3),
           RESULT_INVALID_NEW_MEMORY_PERMISSION);
    expect("ControlCodeMemory(unmap the executable view as the writable)",
           svc_control_code_memory(code, CODE_MEMORY_UNMAP, executable, SIZE, 0), RESULT_INVALID_CURRENT_MEMORY);
    expect("ControlCodeMemory(unmap)", svc_control_code_memory(code, CODE_MEMORY_UNMAP, writable, SIZE, 0),
           RESULT_SUCCESS);
    expect("ControlCodeMemory(unmap from owner)",
           svc_control_code_memory(code, CODE_MEMORY_UNMAP_FROM_OWNER, executable, SIZE, 0), RESULT_SUCCESS);
    expect_block("views unmapped", executable, 0, 0, 0);
    expect("CloseHandle", svc_close_handle(code), RESULT_SUCCESS);
    expect_block("given back", source, 0x05, 3, 0);
    check(((volatile uint32_t *)source)[0] == 0x52800060u, "the heap keeps what the JIT wrote");
    check(svc_set_heap_size(&heap, 0) == 0, "SetHeapSize(0)");

    print("shmem: ");
    print_u64((uint64_t)failures());
    print(" failures\n");
    return failures() == 0 ? 0 : 1;
}
