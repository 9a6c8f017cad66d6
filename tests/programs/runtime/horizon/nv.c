#include "nv.h"
#include "ipc.h"
#include "tandem.h"

#define NVMAP_CREATE 0xC0080101u
#define NVMAP_ALLOC 0xC0200104u
#define AS_BIND_CHANNEL 0x40044101u
#define AS_MAP_BUFFER_EX 0xC0284106u
#define AS_INITIALIZE_EX 0x40284109u
#define CHANNEL_ALLOC_OBJ_CTX 0xC0104809u
#define CHANNEL_ALLOC_GPFIFO_EX2 0xC020481Au
#define CHANNEL_KICKOFF_PB 0xC018481Bu
#define CTRL_EVENT_WAIT_ASYNC 0xC010001Eu
#define CTRL_EVENT_REGISTER 0xC004001Fu
#define CTRL_EVENT_UNREGISTER 0xC0040020u

static IpcReply reply;

static uint32_t out_u32(uint32_t index) {
    uint32_t v;
    memcpy(&v, reply.data + 4 * index, 4);
    return v;
}

uint32_t nv_open(Handle nv, const char *path, uint32_t *error) {
    IpcRequest r = ipc_blank_request();
    r.num_sends = 1;
    r.sends[0] = (IpcBuffer){(uint64_t)path, strlen(path)};
    check(ipc_command(nv, 0, 0, 0, &r, 8, &reply) == 0, "Open");
    *error = out_u32(1);
    return out_u32(0);
}

uint32_t nv_ioctl(Handle nv, uint32_t fd, uint32_t request, void *argument, uint32_t size, int pointer) {
    uint32_t words[2] = {fd, request};
    int in = request >> 30 & 1, out = request >> 31;
    IpcRequest r = ipc_blank_request();
    r.num_sends = r.num_statics = r.num_receives = r.num_receive_list = 1;
    IpcBuffer buffer = {(uint64_t)argument, size};
    if (in) *(pointer ? &r.statics[0] : &r.sends[0]) = buffer;
    if (out) *(pointer ? &r.receive_list[0] : &r.receives[0]) = buffer;
    check(ipc_command(nv, 1, words, 8, &r, 4, &reply) == 0, "Ioctl");
    return out_u32(0);
}

uint32_t nv_ioctl2(Handle nv, uint32_t fd, uint32_t request, void *argument, uint32_t size, const void *extra,
                   uint32_t extra_size) {
    uint32_t words[2] = {fd, request};
    IpcRequest r = ipc_blank_request();
    r.num_sends = r.num_statics = 2;
    r.num_receives = r.num_receive_list = 1;
    r.sends[0] = (IpcBuffer){(uint64_t)argument, size};
    r.sends[1] = (IpcBuffer){(uint64_t)extra, extra_size};
    r.receives[0] = (IpcBuffer){(uint64_t)argument, size};
    check(ipc_command(nv, 11, words, 8, &r, 4, &reply) == 0, "Ioctl2");
    return out_u32(0);
}

uint32_t nv_ioctl3(Handle nv, uint32_t fd, uint32_t request, void *argument, uint32_t size, void *inline_out,
                   uint32_t inline_size) {
    uint32_t words[2] = {fd, request};
    IpcRequest r = ipc_blank_request();
    r.num_sends = r.num_statics = 1;
    r.num_receives = r.num_receive_list = 2;
    r.sends[0] = (IpcBuffer){(uint64_t)argument, size};
    r.receives[0] = (IpcBuffer){(uint64_t)argument, size};
    r.receives[1] = (IpcBuffer){(uint64_t)inline_out, inline_size};
    check(ipc_command(nv, 12, words, 8, &r, 4, &reply) == 0, "Ioctl3");
    return out_u32(0);
}

uint32_t nv_close(Handle nv, uint32_t fd) {
    IpcRequest r = ipc_blank_request();
    check(ipc_command(nv, 2, &fd, 4, &r, 4, &reply) == 0, "Close");
    return out_u32(0);
}

uint32_t nv_query_event(Handle nv, uint32_t fd, uint32_t id, Handle *event) {
    uint32_t words[2] = {fd, id};
    IpcRequest r = ipc_blank_request();
    check(ipc_command(nv, 4, words, 8, &r, 4, &reply) == 0, "QueryEvent");
    *event = reply.num_copy_handles ? reply.copy_handles[0] : 0;
    return out_u32(0);
}

Handle nv_connect(void *transfer_memory, uint32_t transfer_size) {
    Handle sm, transfer;
    uint64_t reserved = 0;
    check(svc_connect_to_named_port(&sm, "sm:") == 0, "connect to sm:");
    IpcRequest r = ipc_blank_request();
    r.send_pid = 1;
    check(ipc_command(sm, 0, &reserved, 8, &r, 0, &reply) == 0, "RegisterClient");
    uint64_t name = ipc_service_name("nvdrv");
    r = ipc_blank_request();
    check(ipc_command(sm, 1, &name, 8, &r, 0, &reply) == 0, "GetServiceHandle(nvdrv)");
    Handle nv = reply.move_handles[0];
    check(svc_create_transfer_memory(&transfer, transfer_memory, transfer_size, 0) == 0, "CreateTransferMemory");
    r = ipc_blank_request();
    r.num_copy_handles = 2;
    r.copy_handles[0] = CURRENT_PROCESS_HANDLE;
    r.copy_handles[1] = transfer;
    check(ipc_command(nv, 3, &transfer_size, 4, &r, 4, &reply) == 0 && out_u32(0) == 0, "nvdrv Initialize");
    svc_close_handle(sm);
    return nv;
}

int gpu_open(GpuChannel *gpu, Handle nv, void *memory, uint64_t size) {
    return gpu_open_class(gpu, nv, memory, size, 0xB197);
}

int gpu_open_class(GpuChannel *gpu, Handle nv, void *memory, uint64_t size, uint32_t class_number) {
    uint32_t error, failed = 0;
    gpu->nv = nv;
    gpu->memory = memory;
    gpu->size = size;
    gpu->pushbuffer_used = 0;
    gpu->nvmap = nv_open(nv, "/dev/nvmap", &error);
    failed |= error;
    uint32_t create[2] = {(uint32_t)size, 0};
    failed |= nv_ioctl(nv, gpu->nvmap, NVMAP_CREATE, create, sizeof create, 0);
    struct {
        uint32_t handle, heap_mask, flags, align;
        uint8_t kind, padding[7];
        uint64_t address;
    } alloc = {create[1], 0, 0, 0x1000, 0, {0}, (uint64_t)memory};
    failed |= nv_ioctl(nv, gpu->nvmap, NVMAP_ALLOC, &alloc, sizeof alloc, 0);
    gpu->nvmap_handle = create[1];
    uint32_t get_id[2] = {0, create[1]};
    failed |= nv_ioctl(nv, gpu->nvmap, 0xC008010Eu, get_id, sizeof get_id, 0);
    gpu->nvmap_id = get_id[0];
    gpu->as = nv_open(nv, "/dev/nvhost-as-gpu", &error);
    failed |= error;
    uint32_t init[10] = {0};
    failed |= nv_ioctl(nv, gpu->as, AS_INITIALIZE_EX, init, sizeof init, 0);
    struct {
        uint32_t flags, kind, handle, page_size;
        uint64_t buffer_offset, mapping_size, offset;
    } map = {0, 0, create[1], 0, 0, 0, 0};
    failed |= nv_ioctl(nv, gpu->as, AS_MAP_BUFFER_EX, &map, sizeof map, 0);
    gpu->gpu_address = map.offset;
    gpu->channel = nv_open(nv, "/dev/nvhost-gpu", &error);
    failed |= error;
    uint32_t channel_fd = gpu->channel;
    failed |= nv_ioctl(nv, gpu->as, AS_BIND_CHANNEL, &channel_fd, 4, 0);
    uint32_t gpfifo[8] = {0x800, 1, 0, 0, 0, 0, 0, 0};
    failed |= nv_ioctl(nv, gpu->channel, CHANNEL_ALLOC_GPFIFO_EX2, gpfifo, sizeof gpfifo, 0);
    gpu->fence = (NvFence){gpfifo[3], gpfifo[4]};
    struct {
        uint32_t class_number, flags;
        uint64_t object;
    } object = {class_number, 0, 0};
    failed |= nv_ioctl(nv, gpu->channel, CHANNEL_ALLOC_OBJ_CTX, &object, sizeof object, 0);
    gpu->ctrl = nv_open(nv, "/dev/nvhost-ctrl", &error);
    failed |= error;
    return failed != 0;
}

uint64_t gpu_entry(const GpuChannel *gpu, uint32_t offset, uint32_t count) {
    uint64_t address = gpu->gpu_address + offset;
    /* GPFIFO entry: GET 31:2 and GET_HI 39:32 of the address, LENGTH 62:42 in words. */
    return (address & 0xFFFFFFFFFCull) | (uint64_t)count << 42;
}

uint32_t gpu_submit_entries(GpuChannel *gpu, const uint64_t *entries, uint32_t count, uint32_t flags, NvFence *fence,
                            int kickoff) {
    if (count > GPU_MAX_ENTRIES) return NV_BAD_PARAMETER;
    struct {
        uint64_t gpfifo;
        uint32_t num_entries, flags;
        NvFence fence;
        uint64_t entries[GPU_MAX_ENTRIES];
    } submit = {0, count, flags, *fence, {0}};
    memcpy(submit.entries, entries, 8 * count);
    uint32_t result;
    if (kickoff) {
        result = nv_ioctl2(gpu->nv, gpu->channel, CHANNEL_KICKOFF_PB, &submit, 0x18, submit.entries, 8 * count);
    } else {
        /* SubmitGpfifo: the size field counts the header and the entries after it. */
        uint32_t size = 0x18 + 8 * count;
        uint32_t request = 0xC0000000u | size << 16 | 0x4808u;
        result = nv_ioctl(gpu->nv, gpu->channel, request, &submit, size, 0);
    }
    *fence = submit.fence;
    return result;
}

uint64_t gpu_push(GpuChannel *gpu, const uint32_t *words, uint32_t count) {
    if (gpu->pushbuffer_used + 4 * count > PB_AREA) gpu->pushbuffer_used = 0;
    uint32_t offset = gpu->pushbuffer_used;
    memcpy(gpu->memory + offset, words, 4 * count);
    gpu->pushbuffer_used += (4 * count + 15) & ~15u;
    return gpu_entry(gpu, offset, count);
}

uint32_t gpu_submit(GpuChannel *gpu, const uint32_t *words, uint32_t count, uint32_t flags, NvFence *fence, int kickoff) {
    uint64_t entry = gpu_push(gpu, words, count);
    return gpu_submit_entries(gpu, &entry, 1, flags, fence, kickoff);
}

uint32_t gpu_wait(GpuChannel *gpu, NvFence fence, int *blocked) {
    uint32_t slot = 5;
    *blocked = 0;
    if (nv_ioctl(gpu->nv, gpu->ctrl, CTRL_EVENT_REGISTER, &slot, 4, 0) != 0) return NV_BAD_PARAMETER;
    Handle event;
    uint32_t result = nv_query_event(gpu->nv, gpu->ctrl, 0x10000000u | slot, &event);
    if (result != 0) return result;
    struct {
        uint32_t id, threshold;
        int32_t timeout;
        uint32_t value;
    } wait = {fence.id, fence.value, -1, slot};
    result = nv_ioctl(gpu->nv, gpu->ctrl, CTRL_EVENT_WAIT_ASYNC, &wait, sizeof wait, 0);
    if (result == NV_TIMEOUT) {
        *blocked = 1;
        int32_t index;
        result = svc_wait_synchronization(&index, &event, 1, 1000000000) == 0 ? 0 : NV_TIMEOUT;
    }
    svc_close_handle(event);
    nv_ioctl(gpu->nv, gpu->ctrl, CTRL_EVENT_UNREGISTER, &slot, 4, 0);
    return result;
}

uint32_t gpu_run_entries(GpuChannel *gpu, const uint64_t *entries, uint32_t count) {
    NvFence fence = {0, 0};
    int blocked;
    uint32_t result = gpu_submit_entries(gpu, entries, count, NV_SUBMIT_FENCE_GET, &fence, 0);
    return result != 0 ? result : gpu_wait(gpu, fence, &blocked);
}

uint32_t gpu_run(GpuChannel *gpu, const uint32_t *words, uint32_t count) {
    uint64_t entry = gpu_push(gpu, words, count);
    return gpu_run_entries(gpu, &entry, 1);
}

uint64_t block_linear_offset_3d(uint32_t x, uint32_t y, uint32_t z, uint32_t width_bytes, uint32_t height,
                               uint32_t block_height, uint32_t block_depth) {
    uint32_t gobs_tall = 1u << block_height, gobs_deep = 1u << block_depth;
    uint32_t blocks_across = (width_bytes + 63) / 64, blocks_down = (height + 8 * gobs_tall - 1) / (8 * gobs_tall);
    /* Blocks row by row, then slab by slab (a slab: the slices one block deep spans). */
    uint64_t block = ((uint64_t)(z / gobs_deep) * blocks_down + y / (8 * gobs_tall)) * blocks_across + x / 64;
    /* In a block, GOBs top to bottom, then front to back. */
    uint32_t gob = (z % gobs_deep) * gobs_tall + (y / 8) % gobs_tall;
    uint32_t within = (x % 64) / 32 * 256 + (y % 8) / 2 * 64 + (x % 32) / 16 * 32 + (y % 2) * 16 + x % 16;
    return block * 512 * gobs_tall * gobs_deep + gob * 512 + within;
}

uint64_t block_linear_offset(uint32_t x, uint32_t y, uint32_t width_bytes, uint32_t block_height) {
    return block_linear_offset_3d(x, y, 0, width_bytes, y + 1, block_height, 0);
}
