/* Shared and transfer memory: CreateSharedMemory, MapSharedMemory, UnmapSharedMemory and CreateTransferMemory with
 * the results Horizon gives (switchbrew "SVC"; mesosphère's checks): a shared memory object keeps its bytes across
 * mappings, transfer memory locks heap pages until its handle closes. */
#include "ipc.h"
#include "tandem.h"

/* Free addresses inside the ASLR region, outside the heap, alias and stack regions. */
#define SHARED_A ((void *)0x4000000000ull)
#define SHARED_B ((void *)0x4000100000ull)
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
    expect("MapSharedMemory(over the code)", svc_map_shared_memory(memory, __module_start, SIZE, 3),
           RESULT_INVALID_CURRENT_MEMORY);
    expect("MapSharedMemory", svc_map_shared_memory(memory, SHARED_A, SIZE, 3), RESULT_SUCCESS);
    print_block("mapped", SHARED_A);
    volatile uint32_t *words = (volatile uint32_t *)SHARED_A;
    check(words[0] == 0 && words[SIZE / 4 - 1] == 0, "new shared memory is zero");
    for (uint32_t i = 0; i < SIZE / 4; i++) words[i] = i * 0x9e3779b9u;
    expect("UnmapSharedMemory(elsewhere)", svc_unmap_shared_memory(memory, SHARED_B, SIZE),
           RESULT_INVALID_MEMORY_REGION);
    expect("UnmapSharedMemory", svc_unmap_shared_memory(memory, SHARED_A, SIZE), RESULT_SUCCESS);
    print_block("unmapped", SHARED_A);
    expect("MapSharedMemory(read-only, elsewhere)", svc_map_shared_memory(memory, SHARED_B, SIZE, 1),
           RESULT_SUCCESS);
    print_block("mapped again", SHARED_B);
    words = (volatile uint32_t *)SHARED_B;
    uint32_t kept = 1;
    for (uint32_t i = 0; i < SIZE / 4; i++) kept &= words[i] == i * 0x9e3779b9u;
    check(kept, "the object kept its bytes");
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
    expect("SetHeapSize(2 MiB) beside it", svc_set_heap_size(&heap_address, 0x200000), RESULT_OUT_OF_MEMORY);
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
    check(svc_set_heap_size(&heap, 0) == 0, "SetHeapSize(0)");

    print("shmem: ");
    print_u64((uint64_t)failures());
    print(" failures\n");
    return failures() == 0 ? 0 : 1;
}
