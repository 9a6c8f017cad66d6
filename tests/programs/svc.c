/* Horizon only: the kernel's answers to the SVCs the runtime and simple homebrew use. Prints what it finds (values
 * are Tandem's choices: addresses, memory types) and checks what Horizon guarantees; exits non-zero on a mismatch.
 *
 * Entry state (thread handle, TPIDRRO_EL0), GetInfo (address-space regions, memory sizes, bad handle / id / sub id),
 * SetHeapSize (bad size, grow, shrink, contents kept), QueryMemory (own code, rodata, data, bss, stack, heap, TLS,
 * unmapped page, then the whole map), the thread-local area, GetSystemTick, OutputDebugString's length. */
#include "horizon.h"
#include "tandem.h"

static uint64_t data_word = 0x0123456789abcdefull; /* .data */
static uint64_t bss_word;                           /* .bss */

static void show(const char *label, uint64_t value) {
    print(label);
    print(" = ");
    print_hex(value);
    print("\n");
}

static void expect_result(const char *label, Result result, Result expected) {
    print(label);
    print(": result ");
    print_hex(result);
    print(result == expected ? " (as expected)\n" : " (WRONG)\n");
    check(result == expected, label);
}

/* ---- GetInfo ----------------------------------------------------------------------------------------------------- */

struct Region {
    uint64_t base, size;
};

static int inside(uint64_t address, struct Region region) {
    return address >= region.base && address - region.base < region.size;
}

static int overlap(struct Region a, struct Region b) {
    return a.base < b.base + b.size && b.base < a.base + a.size;
}

static uint64_t info(const char *name, uint32_t id, int required) {
    uint64_t value = 0xdeadbeefdeadbeefull;
    Result result = svc_get_info(&value, id, CURRENT_PROCESS_HANDLE, 0);
    print("GetInfo(");
    print_u64(id);
    print(" ");
    print(name);
    print(") = ");
    if (result == RESULT_SUCCESS) {
        print_hex(value);
    } else {
        print("result ");
        print_hex(result);
        value = 0;
    }
    print("\n");
    if (required) {
        check(result == RESULT_SUCCESS, name);
    }
    return value;
}

static struct Region alias, heap, aslr, stack;

static void get_info(void) {
    print("-- GetInfo\n");
    info("CoreMask", INFO_CORE_MASK, 0);
    info("PriorityMask", INFO_PRIORITY_MASK, 0);
    alias.base = info("AliasRegionAddress", INFO_ALIAS_REGION_ADDRESS, 1);
    alias.size = info("AliasRegionSize", INFO_ALIAS_REGION_SIZE, 1);
    heap.base = info("HeapRegionAddress", INFO_HEAP_REGION_ADDRESS, 1);
    heap.size = info("HeapRegionSize", INFO_HEAP_REGION_SIZE, 1);
    uint64_t total = info("TotalMemorySize", INFO_TOTAL_MEMORY_SIZE, 1);
    uint64_t used = info("UsedMemorySize", INFO_USED_MEMORY_SIZE, 1);
    aslr.base = info("AslrRegionAddress", INFO_ASLR_REGION_ADDRESS, 1);
    aslr.size = info("AslrRegionSize", INFO_ASLR_REGION_SIZE, 1);
    stack.base = info("StackRegionAddress", INFO_STACK_REGION_ADDRESS, 1);
    stack.size = info("StackRegionSize", INFO_STACK_REGION_SIZE, 1);
    info("SystemResourceSizeTotal", INFO_SYSTEM_RESOURCE_SIZE_TOTAL, 0);
    info("SystemResourceSizeUsed", INFO_SYSTEM_RESOURCE_SIZE_USED, 0);
    info("ProgramId", INFO_PROGRAM_ID, 0);
    uint64_t context = info("UserExceptionContextAddress", INFO_USER_EXCEPTION_CONTEXT_ADDRESS, 1);

    check(alias.size != 0 && heap.size != 0 && aslr.size != 0 && stack.size != 0, "every region has a size");
    check(used != 0 && used <= total, "0 < UsedMemorySize <= TotalMemorySize");
    /* The process's own region of the thread-local area, apart from the main thread's. */
    MemoryInfo region;
    uint32_t page_info;
    check(svc_query_memory(&region, &page_info, context) == 0 && region.type == MEMORY_TYPE_THREAD_LOCAL,
          "UserExceptionContextAddress lies in thread-local memory");
    check(context % 0x200 == 0 && context != thread_local_area(), "a region of its own");
    /* The alias, heap and stack regions lie inside the address space (the ASLR region) and apart. */
    check(inside(alias.base, aslr) && inside(alias.base + alias.size - 1, aslr), "alias region inside the ASLR region");
    check(inside(heap.base, aslr) && inside(heap.base + heap.size - 1, aslr), "heap region inside the ASLR region");
    check(inside(stack.base, aslr) && inside(stack.base + stack.size - 1, aslr), "stack region inside the ASLR region");
    check(!overlap(alias, heap) && !overlap(alias, stack) && !overlap(heap, stack), "alias, heap, stack apart");
    uint64_t code = (uint64_t)__module_start;
    check(inside(code, aslr), "the code inside the ASLR region");
    check(!inside(code, alias) && !inside(code, heap) && !inside(code, stack), "the code outside alias/heap/stack");
    uint64_t sp;
    __asm__ volatile("mov %0, sp" : "=r"(sp));
    print(inside(sp, stack) ? "the stack lies in the stack region\n" : "the stack lies outside the stack region\n");

    uint64_t value = 0;
    expect_result("GetInfo with a bad handle", svc_get_info(&value, INFO_HEAP_REGION_ADDRESS, 0xFFFF1234u, 0),
                  RESULT_INVALID_HANDLE);
    expect_result("GetInfo with an unknown id", svc_get_info(&value, 0xDEAD, CURRENT_PROCESS_HANDLE, 0),
                  RESULT_INVALID_ENUM_VALUE);
    expect_result("GetInfo with sub id 1", svc_get_info(&value, INFO_HEAP_REGION_ADDRESS, CURRENT_PROCESS_HANDLE, 1),
                  RESULT_INVALID_COMBINATION);
    /* AliasRegionExtraSize (28), which the SDK's os library aborts without; RandomEntropy (11) takes handle 0. */
    expect_result("GetInfo(AliasRegionExtraSize)", svc_get_info(&value, 28, CURRENT_PROCESS_HANDLE, 0), RESULT_SUCCESS);
    expect_result("GetInfo(RandomEntropy) with the process handle", svc_get_info(&value, 11, CURRENT_PROCESS_HANDLE, 0),
                  RESULT_INVALID_HANDLE);
    expect_result("GetInfo(RandomEntropy)", svc_get_info(&value, 11, 0, 0), RESULT_SUCCESS);
}

/* ---- QueryMemory ------------------------------------------------------------------------------------------------- */

/* Hex in a column of 10 digits (39-bit addresses), wider when the value needs it. */
static void print_hex_column(uint64_t value) {
    int digits = 10;
    while (digits < 16 && (value >> (4 * digits)) != 0) {
        digits++;
    }
    print_hex_digits(value, digits);
}

static void print_block(const MemoryInfo *block, uint32_t page_info) {
    print_hex_column(block->address);
    print(" +");
    print_hex_column(block->size);
    print(" type ");
    print_hex_digits(block->type, 2);
    print(" perm ");
    print_char(block->permission & PERMISSION_READ ? 'r' : '-');
    print_char(block->permission & PERMISSION_WRITE ? 'w' : '-');
    print_char(block->permission & PERMISSION_EXECUTE ? 'x' : '-');
    print(" attr ");
    print_hex(block->attribute);
    print(" ipc ");
    print_u64(block->ipc_refcount);
    print(" device ");
    print_u64(block->device_refcount);
    print(" page info ");
    print_hex(page_info);
    print("\n");
}

/* Queries `address`, prints the block, checks that it holds the address and has `permission`; returns the block. */
static MemoryInfo query(const char *what, uint64_t address, uint32_t permission) {
    MemoryInfo block;
    memset(&block, 0xa5, sizeof block);
    uint32_t page_info = 0xdeadbeefu;
    Result result = svc_query_memory(&block, &page_info, address);
    print("QueryMemory(");
    print(what);
    print(")\n  ");
    print_block(&block, page_info);
    check(result == RESULT_SUCCESS, what);
    check(block.address <= address && address - block.address < block.size, "the block holds the address");
    check(block.permission == permission, "the block's permission");
    return block;
}

static void query_memory(void) {
    print("-- QueryMemory\n");
    uint64_t local = 0;
    MemoryInfo text = query("code, at the module start", (uint64_t)__module_start, PERMISSION_READ | PERMISSION_EXECUTE);
    check(text.address == (uint64_t)__module_start, ".text starts its block");
    check(text.type == MEMORY_TYPE_CODE_STATIC || text.type == MEMORY_TYPE_MODULE_CODE_STATIC, ".text is code");
    MemoryInfo rodata = query("rodata, at MOD0", (uint64_t)__tandem_mod0, PERMISSION_READ);
    check(rodata.address == text.address + text.size, ".rodata follows .text");
    MemoryInfo data = query("data", (uint64_t)&data_word, PERMISSION_READ | PERMISSION_WRITE);
    check(data.type == MEMORY_TYPE_CODE_MUTABLE || data.type == MEMORY_TYPE_MODULE_CODE_MUTABLE, ".data is code data");
    MemoryInfo bss = query("bss", (uint64_t)&bss_word, PERMISSION_READ | PERMISSION_WRITE);
    check(bss.address == data.address, ".data and .bss are one block");
    query("stack, at a local", (uint64_t)&local, PERMISSION_READ | PERMISSION_WRITE);
    MemoryInfo tls = query("thread-local area, at TPIDRRO_EL0", thread_local_area(), PERMISSION_READ | PERMISSION_WRITE);
    check(tls.type == MEMORY_TYPE_THREAD_LOCAL, "the thread-local area's type");
    /* The address space starts at 0 (Horizon's page table covers [0, 2^39) for a 64-bit process), so the first
     * page is free memory below the code, not outside the address space. */
    MemoryInfo page0 = query("address 0", 0, 0);
    check(page0.type == MEMORY_TYPE_UNMAPPED, "address 0 is unmapped (free), not inaccessible");
    check(data_word == 0x0123456789abcdefull && bss_word == 0, ".data initialised and .bss zero");
}

/* Walks the address space from 0, one block at a time, as a memory map. */
static void memory_map(void) {
    print("-- memory map\n");
    uint64_t address = 0;
    for (int blocks = 0; blocks < 64; blocks++) {
        MemoryInfo block;
        uint32_t page_info = 0;
        Result result = svc_query_memory(&block, &page_info, address);
        if (result != RESULT_SUCCESS) {
            print("QueryMemory(");
            print_hex(address);
            print("): result ");
            print_hex(result);
            print("\n");
            check(0, "QueryMemory while walking the map");
            return;
        }
        print_block(&block, page_info);
        check(block.address <= address && block.size != 0, "each block holds the address queried");
        uint64_t next = block.address + block.size;
        if (next <= address) {
            /* Past the address space (2^39 for a 64-bit process; it starts at 0) Horizon reports one inaccessible
             * block from its end to 2^64, so the walk ends by wrapping to 0. */
            check(block.type == MEMORY_TYPE_INACCESSIBLE && next == 0, "the last block: inaccessible, up to 2^64");
            return;
        }
        address = next;
    }
    print("(64 blocks shown)\n");
}

/* ---- SetHeapSize ------------------------------------------------------------------------------------------------- */

#define MIB (1024u * 1024u)

static void set_heap_size(void) {
    print("-- SetHeapSize\n");
    uint64_t address = 0;
    expect_result("SetHeapSize(0x1000), not a multiple of 2 MiB", svc_set_heap_size(&address, 0x1000),
                  RESULT_INVALID_SIZE);
    /* mesosphère: 8 GiB and more is InvalidSize, past the 6 GiB heap region OutOfMemory. */
    expect_result("SetHeapSize(8 GiB)", svc_set_heap_size(&address, 8ull << 30), RESULT_INVALID_SIZE);
    expect_result("SetHeapSize(7 GiB)", svc_set_heap_size(&address, 7ull << 30), RESULT_OUT_OF_MEMORY);

    address = 0;
    expect_result("SetHeapSize(2 MiB)", svc_set_heap_size(&address, 2 * MIB), RESULT_SUCCESS);
    show("heap address", address);
    print(address == heap.base ? "the heap starts the heap region\n" : "the heap does not start the heap region\n");
    check(inside(address, heap) && inside(address + 2 * MIB - 1, heap), "the heap inside the heap region");
    check(address % (2 * MIB) == 0, "the heap 2 MiB aligned");

    volatile uint64_t *words = (volatile uint64_t *)address;
    const uint64_t count = 2 * MIB / sizeof(uint64_t);
    for (uint64_t i = 0; i < count; i += 7) {
        words[i] = i * 0x9e3779b97f4a7c15ull;
    }
    int intact = 1;
    for (uint64_t i = 0; i < count; i += 7) {
        intact &= words[i] == i * 0x9e3779b97f4a7c15ull;
    }
    check(intact, "the heap keeps what was written");
    MemoryInfo block = query("heap", address, PERMISSION_READ | PERMISSION_WRITE);
    check(block.type == MEMORY_TYPE_HEAP && block.address == address && block.size == 2 * MIB, "the heap's block");

    uint64_t grown = 0;
    expect_result("SetHeapSize(4 MiB)", svc_set_heap_size(&grown, 4 * MIB), RESULT_SUCCESS);
    check(grown == address, "growing keeps the heap's address");
    check(words[7] == 7 * 0x9e3779b97f4a7c15ull, "growing keeps the heap's contents");
    words[4 * MIB / sizeof(uint64_t) - 1] = 42;
    block = query("grown heap, last word", address + 4 * MIB - 8, PERMISSION_READ | PERMISSION_WRITE);
    check(block.address == address && block.size == 4 * MIB, "the grown heap's block");

    uint64_t shrunk = 0;
    expect_result("SetHeapSize(2 MiB) again", svc_set_heap_size(&shrunk, 2 * MIB), RESULT_SUCCESS);
    check(shrunk == address, "shrinking keeps the heap's address");
    block = query("heap after shrinking", address, PERMISSION_READ | PERMISSION_WRITE);
    check(block.size == 2 * MIB, "the shrunk heap's block");
}

/* ---- the rest ---------------------------------------------------------------------------------------------------- */

static void entry_state(void) {
    print("-- entry\n");
    show("main thread handle (x1 at entry)", __tandem_main_thread_handle);
    check(__tandem_main_thread_handle != 0, "a main thread handle");
    uint64_t tls = thread_local_area();
    show("TPIDRRO_EL0", tls);
    check(tls != 0 && tls % 0x200 == 0, "TPIDRRO_EL0 points at a 0x200-aligned thread-local area");
    show("module start", (uint64_t)__module_start);
    show("MOD0 offset (word at +4)", *(const uint32_t *)(__module_start + 4));
    check(__module_start + *(const uint32_t *)(__module_start + 4) == __tandem_mod0, "word +4 finds MOD0");

    /* The thread-local area is ours to use from 0x100 (the first 0x100 bytes are the IPC message buffer). */
    volatile uint64_t *user = (volatile uint64_t *)(tls + 0x100);
    *user = 0x1122334455667788ull;
    check(*user == 0x1122334455667788ull, "the thread-local area keeps what was written");
}

static void system_tick(void) {
    print("-- GetSystemTick\n");
    uint64_t before = svc_get_system_tick();
    uint64_t spin = 0;
    for (int i = 0; i < 100000; i++) {
        spin += (uint64_t)i;
        __asm__ volatile("" : "+r"(spin)); /* keep the loop */
    }
    uint64_t after = svc_get_system_tick();
    uint64_t again = svc_get_system_tick();
    print(after > before ? "the tick advanced over 100000 iterations\n" : "the tick did not advance\n");
    check(after > before && again >= after, "GetSystemTick is monotonic and advances");
}

static void output_debug_string(void) {
    print("-- OutputDebugString\n");
    static const char text[] = "only the first 24 bytes\nNOT THESE\n";
    Result result = svc_output_debug_string(text, 24);
    check(result == RESULT_SUCCESS, "OutputDebugString");
}

int main(void) {
    print("svc: Horizon system calls\n");
    entry_state();
    get_info();
    query_memory();
    set_heap_size();
    memory_map();
    system_tick();
    output_debug_string();
    print("svc: ");
    print_u64((uint64_t)failures());
    print(" failures\n");
    return failures() == 0 ? 0 : 1;
}
