/* Horizon only: the memory SVCs and what QueryMemory reports after them. Each check follows from Horizon's
 * documented semantics (switchbrew "SVC"; mesosphère's memory states say what each state allows):
 *
 * - SetMemoryPermission sets ---, r-- or rw- on heap and module data (not code), pages at a time, splitting and
 *   merging QueryMemory's blocks, and refuses memory carrying an attribute;
 * - SetMemoryAttribute sets and clears Uncached, and sets PermissionLocked (module data only; never cleared);
 * - MapMemory aliases heap into free memory of the stack region: the alias is Stack rw-, the source Locked with no
 *   permission, the bytes the same; UnmapMemory (of the whole alias or a part, at matching offsets) gives the
 *   source back with whatever was written through the alias;
 * - SetHeapSize refuses to shrink over heap that is not plain rw-;
 * - Map/UnmapPhysicalMemory refuse a process without a system resource (a homebrew NRO) with InvalidState. */
#include "horizon.h"
#include "tandem.h"

#define PAGE 0x1000u
#define MIB 0x100000u
#define ALIAS_SIZE 0x10000u

/* Two pages of module data (.data: initialised), whose state allows reprotecting and permission locking. */
static volatile uint8_t data_pages[2 * PAGE] __attribute__((aligned(PAGE))) = {1};

static void expect_result(const char *label, Result result, Result expected) {
    print(label);
    print(": ");
    print_hex(result);
    print(result == expected ? "\n" : " (WRONG)\n");
    check(result == expected, label);
}

static MemoryInfo query(uint64_t address) {
    MemoryInfo block;
    uint32_t page_info;
    memset(&block, 0xa5, sizeof block);
    check(svc_query_memory(&block, &page_info, address) == RESULT_SUCCESS, "QueryMemory");
    return block;
}

/* Prints the block holding `address`, relative to `base` so that the line does not depend on where things are. */
static MemoryInfo show(const char *label, uint64_t address, uint64_t base) {
    MemoryInfo block = query(address);
    print(label);
    print(": base");
    if (block.address >= base) {
        print("+");
        print_hex(block.address - base);
    } else {
        print("-");
        print_hex(base - block.address);
    }
    print(" size ");
    print_hex(block.size);
    print(" type ");
    print_hex_digits(block.type, 2);
    print(" perm ");
    print_char(block.permission & PERMISSION_READ ? 'r' : '-');
    print_char(block.permission & PERMISSION_WRITE ? 'w' : '-');
    print_char(block.permission & PERMISSION_EXECUTE ? 'x' : '-');
    print(" attr ");
    print_hex(block.attribute);
    print("\n");
    return block;
}

static int block_is(MemoryInfo block, uint64_t address, uint64_t size, uint32_t type, uint32_t perm, uint32_t attr) {
    return block.address == address && block.size == size && block.type == type && block.permission == perm &&
           block.attribute == attr;
}

static uint64_t heap;
#define RW (PERMISSION_READ | PERMISSION_WRITE)

static void set_memory_permission(void) {
    print("-- SetMemoryPermission\n");
    expect_result("r-- on the second heap page", svc_set_memory_permission((void *)(heap + PAGE), PAGE, PERMISSION_READ),
                  RESULT_SUCCESS);
    check(block_is(show("first page", heap, heap), heap, PAGE, MEMORY_TYPE_HEAP, RW, 0), "the first page: rw-");
    check(block_is(show("second page", heap + PAGE, heap), heap + PAGE, PAGE, MEMORY_TYPE_HEAP, PERMISSION_READ, 0),
          "the second page: r--");
    check(block_is(show("the rest", heap + 2 * PAGE, heap), heap + 2 * PAGE, 4 * MIB - 2 * PAGE, MEMORY_TYPE_HEAP, RW, 0),
          "the rest: rw-");
    check(*(volatile uint64_t *)(heap + PAGE) == 0x5555555555555555ull, "r-- still reads the contents");
    expect_result("--- on it", svc_set_memory_permission((void *)(heap + PAGE), PAGE, 0), RESULT_SUCCESS);
    check(query(heap + PAGE).permission == 0, "---");
    expect_result("rw- again", svc_set_memory_permission((void *)(heap + PAGE), PAGE, RW), RESULT_SUCCESS);
    check(block_is(show("the heap", heap, heap), heap, 4 * MIB, MEMORY_TYPE_HEAP, RW, 0), "one block again");
    expect_result("the same permission again", svc_set_memory_permission((void *)heap, PAGE, RW), RESULT_SUCCESS);

    expect_result("-w-", svc_set_memory_permission((void *)heap, PAGE, PERMISSION_WRITE),
                  RESULT_INVALID_NEW_MEMORY_PERMISSION);
    expect_result("r-x", svc_set_memory_permission((void *)heap, PAGE, PERMISSION_READ | PERMISSION_EXECUTE),
                  RESULT_INVALID_NEW_MEMORY_PERMISSION);
    expect_result("misaligned address", svc_set_memory_permission((void *)(heap + 1), PAGE, RW), RESULT_INVALID_ADDRESS);
    expect_result("size 0", svc_set_memory_permission((void *)heap, 0, RW), RESULT_INVALID_SIZE);
    expect_result("size 0x800", svc_set_memory_permission((void *)heap, 0x800, RW), RESULT_INVALID_SIZE);
    expect_result("wrapping around", svc_set_memory_permission((void *)0xfffffffffffff000ull, 0x2000, RW),
                  RESULT_INVALID_CURRENT_MEMORY);
    expect_result("the program's code", svc_set_memory_permission(__module_start, PAGE, PERMISSION_READ),
                  RESULT_INVALID_CURRENT_MEMORY);
    expect_result("heap and the free memory after it",
                  svc_set_memory_permission((void *)(heap + 4 * MIB - PAGE), 2 * PAGE, PERMISSION_READ),
                  RESULT_INVALID_CURRENT_MEMORY);
    uint64_t data = (uint64_t)data_pages;
    expect_result("r-- on module data", svc_set_memory_permission((void *)data, PAGE, PERMISSION_READ), RESULT_SUCCESS);
    MemoryInfo block = show("module data", data, data);
    check(block.address == data && block.size == PAGE && block.permission == PERMISSION_READ &&
              block.type == MEMORY_TYPE_CODE_MUTABLE,
          "module data: r--, one page");
    check(data_pages[0] == 1, "and still readable");
    svc_set_memory_permission((void *)data, PAGE, RW);
}

static void set_memory_attribute(void) {
    print("-- SetMemoryAttribute\n");
    expect_result("Uncached on a heap page",
                  svc_set_memory_attribute((void *)heap, PAGE, MEMORY_ATTRIBUTE_UNCACHED, MEMORY_ATTRIBUTE_UNCACHED),
                  RESULT_SUCCESS);
    check(block_is(show("the page", heap, heap), heap, PAGE, MEMORY_TYPE_HEAP, RW, MEMORY_ATTRIBUTE_UNCACHED),
          "attribute Uncached");
    expect_result("SetMemoryPermission on it", svc_set_memory_permission((void *)heap, PAGE, PERMISSION_READ),
                  RESULT_INVALID_CURRENT_MEMORY);
    expect_result("clear Uncached", svc_set_memory_attribute((void *)heap, PAGE, MEMORY_ATTRIBUTE_UNCACHED, 0),
                  RESULT_SUCCESS);
    check(block_is(query(heap), heap, 4 * MIB, MEMORY_TYPE_HEAP, RW, 0), "one plain block again");
    expect_result("mask Locked", svc_set_memory_attribute((void *)heap, PAGE, MEMORY_ATTRIBUTE_LOCKED, 0),
                  RESULT_INVALID_COMBINATION);
    expect_result("attribute outside the mask",
                  svc_set_memory_attribute((void *)heap, PAGE, MEMORY_ATTRIBUTE_UNCACHED, MEMORY_ATTRIBUTE_PERMISSION_LOCKED),
                  RESULT_INVALID_COMBINATION);
    expect_result("clear PermissionLocked",
                  svc_set_memory_attribute((void *)heap, PAGE, MEMORY_ATTRIBUTE_PERMISSION_LOCKED, 0),
                  RESULT_INVALID_COMBINATION);
    expect_result("PermissionLocked on heap",
                  svc_set_memory_attribute((void *)heap, PAGE, MEMORY_ATTRIBUTE_PERMISSION_LOCKED,
                                           MEMORY_ATTRIBUTE_PERMISSION_LOCKED),
                  RESULT_INVALID_CURRENT_MEMORY);
    uint64_t locked = (uint64_t)data_pages + PAGE;
    expect_result("PermissionLocked on module data",
                  svc_set_memory_attribute((void *)locked, PAGE, MEMORY_ATTRIBUTE_PERMISSION_LOCKED,
                                           MEMORY_ATTRIBUTE_PERMISSION_LOCKED),
                  RESULT_SUCCESS);
    check(query(locked).attribute == MEMORY_ATTRIBUTE_PERMISSION_LOCKED, "attribute PermissionLocked");
    expect_result("SetMemoryPermission on it", svc_set_memory_permission((void *)locked, PAGE, PERMISSION_READ),
                  RESULT_INVALID_CURRENT_MEMORY);
    expect_result("Uncached on it too",
                  svc_set_memory_attribute((void *)locked, PAGE, MEMORY_ATTRIBUTE_UNCACHED, MEMORY_ATTRIBUTE_UNCACHED),
                  RESULT_SUCCESS);
    check(query(locked).attribute == (MEMORY_ATTRIBUTE_PERMISSION_LOCKED | MEMORY_ATTRIBUTE_UNCACHED), "both");
    svc_set_memory_attribute((void *)locked, PAGE, MEMORY_ATTRIBUTE_UNCACHED, 0);
    check(query(locked).attribute == MEMORY_ATTRIBUTE_PERMISSION_LOCKED, "PermissionLocked stays");
}

/* The first free block of at least `size` bytes in the stack region. */
static uint64_t free_in_stack_region(uint64_t size) {
    uint64_t base = 0, region_size = 0;
    svc_get_info(&base, INFO_STACK_REGION_ADDRESS, CURRENT_PROCESS_HANDLE, 0);
    svc_get_info(&region_size, INFO_STACK_REGION_SIZE, CURRENT_PROCESS_HANDLE, 0);
    for (uint64_t address = base; address < base + region_size;) {
        MemoryInfo block = query(address);
        if (block.type == MEMORY_TYPE_UNMAPPED && block.address + block.size - address >= size) {
            return address;
        }
        address = block.address + block.size;
    }
    return 0;
}

static int filled_with(uint64_t address, uint64_t size, uint64_t pattern) {
    for (uint64_t offset = 0; offset < size; offset += 8) {
        if (*(volatile uint64_t *)(address + offset) != pattern) {
            return 0;
        }
    }
    return 1;
}

static void fill(uint64_t address, uint64_t size, uint64_t pattern) {
    for (uint64_t offset = 0; offset < size; offset += 8) {
        *(volatile uint64_t *)(address + offset) = pattern;
    }
}

static void map_memory(void) {
    print("-- MapMemory and UnmapMemory\n");
    uint64_t alias = free_in_stack_region(ALIAS_SIZE);
    uint64_t source = heap + MIB;
    check(alias != 0, "free memory in the stack region");
    fill(source, ALIAS_SIZE, 0x1111111111111111ull);
    expect_result("MapMemory(64 KiB of heap)", svc_map_memory((void *)alias, (void *)source, ALIAS_SIZE), RESULT_SUCCESS);
    check(block_is(show("the alias", alias, alias), alias, ALIAS_SIZE, MEMORY_TYPE_STACK, RW, 0), "the alias: Stack, rw-");
    check(block_is(show("the source", source, heap), source, ALIAS_SIZE, MEMORY_TYPE_HEAP, 0, MEMORY_ATTRIBUTE_LOCKED),
          "the source: heap, ---, Locked");
    check(filled_with(alias, ALIAS_SIZE, 0x1111111111111111ull), "the alias shows the source's bytes");
    fill(alias, ALIAS_SIZE, 0x2222222222222222ull);

    expect_result("SetMemoryPermission on the source", svc_set_memory_permission((void *)source, PAGE, PERMISSION_READ),
                  RESULT_INVALID_CURRENT_MEMORY);
    uint64_t unused;
    expect_result("SetHeapSize(0) over the locked source", svc_set_heap_size(&unused, 0),
                  RESULT_INVALID_CURRENT_MEMORY);
    expect_result("MapMemory of the locked source again",
                  svc_map_memory((void *)(alias + ALIAS_SIZE), (void *)source, ALIAS_SIZE), RESULT_INVALID_CURRENT_MEMORY);
    expect_result("MapMemory into the heap region", svc_map_memory((void *)(heap + 3 * MIB), (void *)heap, PAGE),
                  RESULT_INVALID_MEMORY_REGION);
    uint64_t sp;
    __asm__ volatile("mov %0, sp" : "=r"(sp));
    expect_result("MapMemory onto the main thread's stack", svc_map_memory((void *)(sp & ~(uint64_t)(PAGE - 1)),
                                                                             (void *)heap, PAGE),
                  RESULT_INVALID_CURRENT_MEMORY);
    expect_result("MapMemory of code", svc_map_memory((void *)(alias + ALIAS_SIZE), __module_start, PAGE),
                  RESULT_INVALID_CURRENT_MEMORY);
    expect_result("MapMemory, misaligned source", svc_map_memory((void *)alias, (void *)(heap + 8), PAGE),
                  RESULT_INVALID_ADDRESS);
    expect_result("UnmapMemory at mismatched offsets",
                  svc_unmap_memory((void *)(alias + PAGE), (void *)source, ALIAS_SIZE - PAGE), RESULT_INVALID_MEMORY_REGION);
    expect_result("UnmapMemory of memory that is no alias",
                  svc_unmap_memory((void *)(alias + ALIAS_SIZE), (void *)source, PAGE), RESULT_INVALID_CURRENT_MEMORY);

    expect_result("UnmapMemory", svc_unmap_memory((void *)alias, (void *)source, ALIAS_SIZE), RESULT_SUCCESS);
    check(query(alias).type == MEMORY_TYPE_UNMAPPED, "the alias is gone");
    check(block_is(show("the source", source, heap), heap, 4 * MIB, MEMORY_TYPE_HEAP, RW, 0), "the heap is whole again");
    check(filled_with(source, ALIAS_SIZE, 0x2222222222222222ull), "with what was written through the alias");

    expect_result("MapMemory again", svc_map_memory((void *)alias, (void *)source, ALIAS_SIZE), RESULT_SUCCESS);
    expect_result("UnmapMemory of the upper half",
                  svc_unmap_memory((void *)(alias + ALIAS_SIZE / 2), (void *)(source + ALIAS_SIZE / 2), ALIAS_SIZE / 2),
                  RESULT_SUCCESS);
    check(block_is(query(alias), alias, ALIAS_SIZE / 2, MEMORY_TYPE_STACK, RW, 0), "the lower half stays aliased");
    check(query(source + ALIAS_SIZE / 2).attribute == 0, "the upper half of the source is back");
    expect_result("UnmapMemory of the lower half", svc_unmap_memory((void *)alias, (void *)source, ALIAS_SIZE / 2),
                  RESULT_SUCCESS);
    check(block_is(query(source), heap, 4 * MIB, MEMORY_TYPE_HEAP, RW, 0), "whole again");
}

int main(void) {
    print("memory: Horizon memory SVCs\n");
    expect_result("SetHeapSize(4 MiB)", svc_set_heap_size(&heap, 4 * MIB), RESULT_SUCCESS);
    fill(heap, 4 * MIB, 0x5555555555555555ull);
    set_memory_permission();
    set_memory_attribute();
    map_memory();
    expect_result("SetHeapSize(2 MiB)", svc_set_heap_size(&heap, 2 * MIB), RESULT_SUCCESS);
    check(block_is(query(heap), heap, 2 * MIB, MEMORY_TYPE_HEAP, RW, 0), "a 2 MiB heap");
    /* Map/UnmapPhysicalMemory need a system resource, which only an NPDM gives (the kernel's unit tests map with
     * one): a homebrew NRO's are refused with InvalidState, after the address and size checks. */
    uint64_t alias_region;
    check(svc_get_info(&alias_region, INFO_ALIAS_REGION_ADDRESS, CURRENT_PROCESS_HANDLE, 0) == 0, "alias region");
    expect_result("MapPhysicalMemory(misaligned)", svc_map_physical_memory((void *)(alias_region + 8), PAGE),
                  RESULT_INVALID_ADDRESS);
    expect_result("MapPhysicalMemory(size 0)", svc_map_physical_memory((void *)alias_region, 0), RESULT_INVALID_SIZE);
    expect_result("MapPhysicalMemory(no system resource)", svc_map_physical_memory((void *)alias_region, 4 * PAGE),
                  RESULT_INVALID_STATE);
    expect_result("UnmapPhysicalMemory(no system resource)",
                  svc_unmap_physical_memory((void *)alias_region, 4 * PAGE), RESULT_INVALID_STATE);
    print("memory: ");
    print_u64((uint64_t)failures());
    print(" failures\n");
    return failures() == 0 ? 0 : 1;
}
