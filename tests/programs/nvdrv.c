/* nvdrv and /dev/nvmap as libnx drives them (nx/source/services/nv.c, nvidia/ioctl/nvmap.c): Initialize with
 * transfer memory, Open, ioctls through map-alias and pointer buffers, Close; NvResult codes as libnx's
 * nvConvertError lists them. */
#include "ipc.h"
#include "nv.h"
#include "tandem.h"

#define NVMAP_CREATE 0xC0080101u
#define NVMAP_FROM_ID 0xC0080103u
#define NVMAP_ALLOC 0xC0200104u
#define NVMAP_FREE 0xC0180105u
#define NVMAP_PARAM 0xC00C0109u
#define NVMAP_GET_ID 0xC008010Eu
#define AS_ALLOC_SPACE 0xC0184102u
#define AS_FREE_SPACE 0xC0104103u
#define AS_UNMAP_BUFFER 0xC0084105u
#define AS_MAP_BUFFER_EX 0xC0284106u
#define AS_GET_VA_REGIONS 0xC0404108u
#define AS_INITIALIZE_EX 0x40284109u
#define CTRL_GPU_GET_CHARACTERISTICS 0xC0B04705u
#define CTRL_GPU_GET_TPC_MASKS 0xC0184706u

/* nvioctl_gpu_characteristics, with the values libnx's nvidia/ioctl.h records the Switch's GM20B reporting. */
typedef struct {
    uint32_t arch, impl, rev, num_gpc;
    uint64_t l2_cache_size, on_board_video_memory_size;
    uint32_t num_tpc_per_gpc, bus_type, big_page_size, compression_page_size, pde_coverage_bit_count,
        available_big_page_sizes, gpc_mask, sm_arch_sm_version, sm_arch_spa_version, sm_arch_warp_count,
        gpu_va_bit_count, reserved;
    uint64_t flags;
    uint32_t twod_class, threed_class, compute_class, gpfifo_class, inline_to_memory_class, dma_copy_class,
        max_fbps_count, fbp_en_mask, max_ltc_per_fbp, max_lts_per_ltc, max_tex_per_tpc, max_gpc_count,
        rop_l2_en_mask_0, rop_l2_en_mask_1;
    uint64_t chipname, gr_compbit_store_base_hw;
} Characteristics;

_Static_assert(sizeof(Characteristics) == 0xA0, "nvioctl_gpu_characteristics is 0xA0 bytes");

static const Characteristics GM20B = {
    0x120, 0xB, 0xA1, 1, 0x40000, 0, 2, 0x20, 0x20000, 0x20000, 0x1B, 0x30000, 1, 0x503, 0x503, 0x80, 0x28, 0,
    0x55, 0x902D, 0xB197, 0xB1C0, 0xB06F, 0xA140, 0xB0B5, 1, 0, 2, 1, 0, 1, 0x21D70, 0, 0x6230326D67, 0};

static IpcReply reply;

static uint32_t out_u32(uint32_t index) {
    uint32_t v;
    memcpy(&v, reply.data + 4 * index, 4);
    return v;
}

int main(void) {
    Handle sm;
    uint64_t reserved = 0;
    check(svc_connect_to_named_port(&sm, "sm:") == 0, "connect");
    IpcRequest r = ipc_blank_request();
    r.send_pid = 1;
    check(ipc_command(sm, 0, &reserved, 8, &r, 0, &reply) == 0, "RegisterClient");
    uint64_t name = ipc_service_name("nvdrv");
    r = ipc_blank_request();
    expect("GetServiceHandle(nvdrv)", ipc_command(sm, 1, &name, 8, &r, 0, &reply), RESULT_SUCCESS);
    Handle nv = reply.move_handles[0];

    uint32_t error;
    nv_open(nv, "/dev/nvmap", &error);
    expect("Open(/dev/nvmap) before Initialize", error, NV_NOT_INITIALIZED);
    uint64_t heap;
    check(svc_set_heap_size(&heap, 0x400000) == 0, "SetHeapSize");
    Handle transfer;
    check(svc_create_transfer_memory(&transfer, (void *)heap, 0x300000, 0) == 0, "CreateTransferMemory");
    uint32_t size = 0x300000;
    r = ipc_blank_request();
    r.num_copy_handles = 2;
    r.copy_handles[0] = CURRENT_PROCESS_HANDLE;
    r.copy_handles[1] = transfer;
    expect("Initialize", ipc_command(nv, 3, &size, 4, &r, 4, &reply), RESULT_SUCCESS);
    expect("its NvResult", out_u32(0), 0);

    uint32_t fd = nv_open(nv, "/dev/nvmap", &error);
    expect("Open(/dev/nvmap)", error, 0);
    nv_open(nv, "/dev/no-such-device", &error);
    expect("Open(/dev/no-such-device)", error, NV_FILE_OPERATION_FAILED);

    print("-- nvmap\n");
    uint32_t create[2] = {0x10000, 0};
    expect("Create(0x10000)", nv_ioctl(nv, fd, NVMAP_CREATE, create, 8, 0), 0);
    uint32_t handle = create[1];
    check(handle != 0, "a handle");
    uint32_t empty[2] = {0, 0};
    expect("Create(0)", nv_ioctl(nv, fd, NVMAP_CREATE, empty, 8, 1), NV_BAD_VALUE);
    uint32_t get_id[2] = {0, handle};
    expect("GetId", nv_ioctl(nv, fd, NVMAP_GET_ID, get_id, 8, 1), 0);
    uint32_t from_id[2] = {get_id[0], 0};
    expect("FromId", nv_ioctl(nv, fd, NVMAP_FROM_ID, from_id, 8, 0), 0);
    check(from_id[1] != 0 && from_id[1] != handle, "another handle to the object");
    struct {
        uint32_t handle, heap_mask, flags, align;
        uint8_t kind, padding[7];
        uint64_t address;
    } alloc = {handle, 0, 1, 0x20000, 0, {0}, heap + 0x300000};
    expect("Alloc", nv_ioctl(nv, fd, NVMAP_ALLOC, &alloc, sizeof alloc, 0), 0);
    alloc.handle = from_id[1];
    expect("Alloc through the other handle", nv_ioctl(nv, fd, NVMAP_ALLOC, &alloc, sizeof alloc, 1),
           NV_ALREADY_ALLOCATED);
    create[0] = 0x1000;
    check(nv_ioctl(nv, fd, NVMAP_CREATE, create, 8, 1) == 0, "Create(0x1000)");
    alloc.handle = create[1];
    alloc.align = 3;
    expect("Alloc(alignment 3)", nv_ioctl(nv, fd, NVMAP_ALLOC, &alloc, sizeof alloc, 0), NV_BAD_VALUE);
    alloc.align = 0;
    alloc.address = heap + 0x300010;
    expect("Alloc(a misaligned address)", nv_ioctl(nv, fd, NVMAP_ALLOC, &alloc, sizeof alloc, 0), NV_BAD_VALUE);
    alloc.address = 0xFFFFFFFFFFFFF000ull;
    expect("Alloc(past the address space)", nv_ioctl(nv, fd, NVMAP_ALLOC, &alloc, sizeof alloc, 0), NV_BAD_VALUE);
    /* switchbrew's Param: 1 size, 2 alignment, 3 base (an error), 4 heap (always 0x40000000), 5 kind, 6 compression
     * (unused). */
    static const uint32_t param_values[] = {0, 0x10000, 0x20000, 0, 0x40000000, 0, 0};
    for (uint32_t p = 1; p <= 6; p++) {
        uint32_t param[3] = {handle, p, 0};
        if (p == 3) {
            expect("Param(base)", nv_ioctl(nv, fd, NVMAP_PARAM, param, 12, 1), NV_BAD_VALUE);
            continue;
        }
        check(nv_ioctl(nv, fd, NVMAP_PARAM, param, 12, p & 1) == 0, "Param");
        expect("its value", param[2], param_values[p]);
    }
    uint32_t param[3] = {handle, 99, 0};
    expect("Param(99)", nv_ioctl(nv, fd, NVMAP_PARAM, param, 12, 0), NV_BAD_VALUE);
    /* Free {handle, padding, out refcount/address, out size, out flags (1: NOT_FREED_YET)}: an object stays while
     * another handle (FromId's) holds it, and goes with the last, answering its address. */
    uint32_t object[2] = {0x2000, 0};
    check(nv_ioctl(nv, fd, NVMAP_CREATE, object, 8, 0) == 0, "Create(0x2000)");
    alloc.handle = object[1];
    alloc.address = heap + 0x310000;
    check(nv_ioctl(nv, fd, NVMAP_ALLOC, &alloc, sizeof alloc, 0) == 0, "Alloc");
    uint32_t object_id[2] = {0, object[1]};
    check(nv_ioctl(nv, fd, NVMAP_GET_ID, object_id, 8, 0) == 0, "GetId");
    uint32_t second[2] = {object_id[0], 0};
    check(nv_ioctl(nv, fd, NVMAP_FROM_ID, second, 8, 0) == 0, "FromId");
    struct {
        uint32_t handle, padding;
        uint64_t address;
        uint32_t size, flags;
    } freed = {object[1], 0, 0, 0, 0};
    expect("Free", nv_ioctl(nv, fd, NVMAP_FREE, &freed, sizeof freed, 0), 0);
    check(freed.address == 0 && freed.size == 0x2000 && freed.flags == 1, "the other handle holds the object");
    expect("Free again", nv_ioctl(nv, fd, NVMAP_FREE, &freed, sizeof freed, 1), NV_BAD_VALUE);
    freed.handle = second[1];
    expect("Free(the last handle)", nv_ioctl(nv, fd, NVMAP_FREE, &freed, sizeof freed, 1), 0);
    check(freed.address == heap + 0x310000 && freed.size == 0x2000 && freed.flags == 0, "the object goes");
    expect("FromId(a freed object's id)", nv_ioctl(nv, fd, NVMAP_FROM_ID, second, 8, 0), NV_BAD_VALUE);
    expect("Create with a 4-byte argument", nv_ioctl(nv, fd, NVMAP_CREATE, create, 4, 0), NV_INVALID_SIZE);
    expect("an ioctl on fd 77", nv_ioctl(nv, 77, NVMAP_CREATE, create, 8, 0), NV_BAD_PARAMETER);
    expect("Close", nv_close(nv, fd), 0);
    expect("Close again", nv_close(nv, fd), NV_BAD_PARAMETER);

    print("-- nvhost-ctrl-gpu\n");
    uint32_t gpu = nv_open(nv, "/dev/nvhost-ctrl-gpu", &error);
    expect("Open(/dev/nvhost-ctrl-gpu)", error, 0);
    struct {
        uint64_t size, address;
        Characteristics characteristics;
    } query = {sizeof(Characteristics), 1, {0}};
    expect("GetCharacteristics", nv_ioctl(nv, gpu, CTRL_GPU_GET_CHARACTERISTICS, &query, sizeof query, 0), 0);
    check(query.size == 0xA0, "the size comes back as the structure's");
    check(memcmp(&query.characteristics, &GM20B, sizeof GM20B) == 0, "the GM20B's characteristics");
    char chip[9] = {0};
    memcpy(chip, &query.characteristics.chipname, 8);
    print("chip: ");
    print(chip);
    print(", 3D class ");
    print_hex(query.characteristics.threed_class);
    print("\n");
    query.size = 0;
    expect("GetCharacteristics(buffer size 0)", nv_ioctl(nv, gpu, CTRL_GPU_GET_CHARACTERISTICS, &query, sizeof query, 1),
           NV_BAD_PARAMETER);
    struct {
        uint32_t size, padding;
        uint64_t address;
        uint8_t masks[8];
    } tpc = {4, 0, 1, {0}};
    expect("GetTpcMasks", nv_ioctl(nv, gpu, CTRL_GPU_GET_TPC_MASKS, &tpc, sizeof tpc, 0), 0);
    check(tpc.masks[0] == 0x3, "both TPCs of the GPC");
    Characteristics inline_characteristics;
    memset(&inline_characteristics, 0, sizeof inline_characteristics);
    query.size = sizeof(Characteristics);
    expect("GetCharacteristics through Ioctl3",
           nv_ioctl3(nv, gpu, CTRL_GPU_GET_CHARACTERISTICS, &query, sizeof query, &inline_characteristics,
                     sizeof inline_characteristics),
           0);
    check(memcmp(&inline_characteristics, &GM20B, sizeof GM20B) == 0, "Ioctl3: the characteristics inline");
    uint32_t inline_mask = 0;
    expect("GetTpcMasks through Ioctl3",
           nv_ioctl3(nv, gpu, CTRL_GPU_GET_TPC_MASKS, &tpc, sizeof tpc, &inline_mask, sizeof inline_mask), 0);
    check(inline_mask == 0x3, "Ioctl3: the mask inline");
    expect("Close(/dev/nvhost-ctrl-gpu)", nv_close(nv, gpu), 0);

    print("-- nvhost-as-gpu\n");
    uint32_t as = nv_open(nv, "/dev/nvhost-as-gpu", &error);
    expect("Open(/dev/nvhost-as-gpu)", error, 0);
    struct {
        uint32_t pages, page_size, flags, padding;
        uint64_t offset;
    } space = {16, 0x1000, 0, 0, 0x10000};
    expect("AllocSpace before InitializeEx", nv_ioctl(nv, as, AS_ALLOC_SPACE, &space, sizeof space, 0),
           NV_NOT_INITIALIZED);
    uint32_t init[10] = {0};
    expect("InitializeEx(default big pages)", nv_ioctl(nv, as, AS_INITIALIZE_EX, init, sizeof init, 0), 0);
    expect("InitializeEx again", nv_ioctl(nv, as, AS_INITIALIZE_EX, init, sizeof init, 1), NV_INVALID_STATE);
    struct {
        uint64_t unused;
        uint32_t size, padding;
        struct {
            uint64_t offset;
            uint32_t page_size, padding;
            uint64_t pages;
        } regions[2];
    } regions = {0, sizeof regions.regions, 0, {{0}}};
    expect("GetVaRegions", nv_ioctl(nv, as, AS_GET_VA_REGIONS, &regions, sizeof regions, 0), 0);
    for (int i = 0; i < 2; i++) {
        print("region: ");
        print_hex(regions.regions[i].offset);
        print(", pages of ");
        print_hex(regions.regions[i].page_size);
        print(": ");
        print_hex(regions.regions[i].pages);
        print("\n");
    }
    check(regions.regions[1].page_size == 0x20000, "big pages of 128 KiB by default");
    expect("AllocSpace(16 small pages, 64 KiB aligned)", nv_ioctl(nv, as, AS_ALLOC_SPACE, &space, sizeof space, 0), 0);
    uint64_t reservation = space.offset;
    uint64_t small_end = regions.regions[0].offset + regions.regions[0].pages * 0x1000;
    check(reservation % 0x10000 == 0 && reservation >= regions.regions[0].offset && reservation + 0x10000 <= small_end,
          "an aligned range of the small-page region");
    space.flags = 1;
    space.offset = reservation + 0x1000;
    expect("AllocSpace(fixed, overlapping it)", nv_ioctl(nv, as, AS_ALLOC_SPACE, &space, sizeof space, 0),
           NV_BAD_VALUE);
    struct {
        uint32_t flags, kind, handle, page_size;
        uint64_t buffer_offset, mapping_size, offset;
    } map = {1, 0, handle, 0, 0, 0, reservation};
    expect("MapBufferEx(fixed, in the reservation)", nv_ioctl(nv, as, AS_MAP_BUFFER_EX, &map, sizeof map, 0), 0);
    check(map.offset == reservation && map.page_size == 0x1000, "mapped where asked, in small pages");
    map.flags = 0;
    map.offset = 0;
    expect("MapBufferEx(anywhere)", nv_ioctl(nv, as, AS_MAP_BUFFER_EX, &map, sizeof map, 1), 0);
    check(map.offset % 0x1000 == 0 && (map.offset >= reservation + 0x10000 || map.offset + 0x10000 <= reservation),
          "somewhere else");
    uint64_t anywhere = map.offset;
    map.handle = 0x7777;
    expect("MapBufferEx(an unknown handle)", nv_ioctl(nv, as, AS_MAP_BUFFER_EX, &map, sizeof map, 0), NV_BAD_VALUE);
    /* Flag 0x100 maps part of an existing mapping again (yuzu's and Skyline's Remap flag), named by its offset. */
    map.flags = 0x100;
    map.offset = anywhere;
    map.buffer_offset = 0x4000;
    map.mapping_size = 0x2000;
    expect("MapBufferEx(remap part of a mapping)", nv_ioctl(nv, as, AS_MAP_BUFFER_EX, &map, sizeof map, 0), 0);
    check(map.offset == anywhere, "the mapping stays where it was");
    map.mapping_size = 0x10000;
    expect("MapBufferEx(remap past the mapping's end)", nv_ioctl(nv, as, AS_MAP_BUFFER_EX, &map, sizeof map, 0),
           NV_BAD_VALUE);
    map.offset = anywhere + 0x1000;
    map.mapping_size = 0x1000;
    expect("MapBufferEx(remap where no mapping starts)", nv_ioctl(nv, as, AS_MAP_BUFFER_EX, &map, sizeof map, 0),
           NV_BAD_VALUE);
    expect("UnmapBuffer", nv_ioctl(nv, as, AS_UNMAP_BUFFER, &anywhere, 8, 0), 0);
    expect("UnmapBuffer again", nv_ioctl(nv, as, AS_UNMAP_BUFFER, &anywhere, 8, 0), NV_BAD_VALUE);
    struct {
        uint64_t offset;
        uint32_t pages, page_size;
    } free_space = {reservation, 16, 0x1000};
    expect("FreeSpace", nv_ioctl(nv, as, AS_FREE_SPACE, &free_space, sizeof free_space, 0), 0);
    expect("UnmapBuffer of a mapping in the freed space", nv_ioctl(nv, as, AS_UNMAP_BUFFER, &reservation, 8, 0),
           NV_BAD_VALUE);
    expect("Close(/dev/nvhost-as-gpu)", nv_close(nv, as), 0);

    check(svc_close_handle(nv) == 0 && svc_close_handle(transfer) == 0 && svc_close_handle(sm) == 0, "close");
    print("nvdrv: ");
    print_u64((uint64_t)failures());
    print(" failures\n");
    return failures() == 0 ? 0 : 1;
}
