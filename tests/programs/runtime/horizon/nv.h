/* A client of the nvdrv service and a small GPU driver for the test programs, as libnx drives them
 * (nx/source/services/nv.c, nx/source/nvidia/): ioctls through map-alias or pointer buffers, Ioctl2's extra buffer,
 * QueryEvent; a channel set up and fed as libnx's gpu_channel.c does. Pushbuffer headers as open-gpu-doc's
 * clb06f.h lays them out; method offsets are the class headers' (NVB197_..., NVB06F_...). */
#ifndef TANDEM_NV_H
#define TANDEM_NV_H

#include "horizon.h"

/* NvResult codes (libnx nvConvertError). */
#define NV_NOT_INITIALIZED 3u
#define NV_BAD_PARAMETER 4u
#define NV_TIMEOUT 5u
#define NV_INVALID_STATE 8u
#define NV_INVALID_SIZE 10u
#define NV_BAD_VALUE 11u
#define NV_ALREADY_ALLOCATED 13u
#define NV_BUSY 14u
#define NV_FILE_OPERATION_FAILED 0x30003u

/* Pushbuffer method headers (SEC_OP 31:29, COUNT/IMMD 28:16, SUBCHANNEL 15:13, ADDRESS 11:0 in words). */
#define PB_INC(sub, byte_offset, count) (1u << 29 | (uint32_t)(count) << 16 | (uint32_t)(sub) << 13 | (byte_offset) >> 2)
#define PB_NONINC(sub, byte_offset, count) (3u << 29 | (uint32_t)(count) << 16 | (uint32_t)(sub) << 13 | (byte_offset) >> 2)
#define PB_ONEINC(sub, byte_offset, count) (5u << 29 | (uint32_t)(count) << 16 | (uint32_t)(sub) << 13 | (byte_offset) >> 2)
#define PB_IMMD(sub, byte_offset, value) (4u << 29 | (uint32_t)(value) << 16 | (uint32_t)(sub) << 13 | (byte_offset) >> 2)

/* Submit flags. */
#define NV_SUBMIT_FENCE_WAIT 1u
#define NV_SUBMIT_FENCE_GET 2u
#define NV_SUBMIT_INCREMENT_BY_VALUE 0x100u

typedef struct {
    uint32_t id, value;
} NvFence;

/* nvdrv's commands. Each returns the driver's NvResult (and counts a failure when the IPC itself fails). */
uint32_t nv_open(Handle nv, const char *path, uint32_t *error);
/* The argument goes in the map-alias pair, or (`pointer`) the pointer pair, as the request number's direction says. */
uint32_t nv_ioctl(Handle nv, uint32_t fd, uint32_t request, void *argument, uint32_t size, int pointer);
uint32_t nv_ioctl2(Handle nv, uint32_t fd, uint32_t request, void *argument, uint32_t size, const void *extra,
                   uint32_t extra_size);
/* Ioctl3: Ioctl, and the results some ioctls also give inline in a third buffer. */
uint32_t nv_ioctl3(Handle nv, uint32_t fd, uint32_t request, void *argument, uint32_t size, void *inline_out,
                   uint32_t inline_size);
uint32_t nv_close(Handle nv, uint32_t fd);
uint32_t nv_query_event(Handle nv, uint32_t fd, uint32_t id, Handle *event);
/* sm, then nvdrv's Initialize with `transfer_size` bytes at `transfer` as its transfer memory. */
Handle nv_connect(void *transfer, uint32_t transfer_size);

/* A channel with the 3D class, its address space holding `memory` (an nvmap object of `size` bytes) mapped at
 * `gpu_address`; the first PB_AREA bytes of it hold the pushbuffers. */
#define PB_AREA 0x10000u
typedef struct {
    Handle nv;
    uint32_t nvmap, as, channel, ctrl;
    /* The nvmap object holding `memory`: its handle and its id (which names it to other services). */
    uint32_t nvmap_handle, nvmap_id;
    uint8_t *memory;
    uint64_t gpu_address, size;
    uint32_t pushbuffer_used;
    NvFence fence;
} GpuChannel;

/* Returns 0 when every step worked. */
int gpu_open(GpuChannel *gpu, Handle nv, void *memory, uint64_t size);
/* The same with another 3D class than Maxwell B's (0xB197): Ampere B's (0xC797), the Switch 2's. */
int gpu_open_class(GpuChannel *gpu, Handle nv, void *memory, uint64_t size, uint32_t class_number);
/* Copies `count` words into the pushbuffer area and submits them (SubmitGpfifo, or KickoffPb through Ioctl2 when
 * `kickoff`) with `flags` and `fence` in; the fence comes back in *fence. Returns the NvResult. */
uint32_t gpu_submit(GpuChannel *gpu, const uint32_t *words, uint32_t count, uint32_t flags, NvFence *fence, int kickoff);
/* The GPFIFO entry for `count` pushbuffer words at `offset` in the channel's memory. */
uint64_t gpu_entry(const GpuChannel *gpu, uint32_t offset, uint32_t count);
/* Copies `count` words into the pushbuffer area: their GPFIFO entry. */
uint64_t gpu_push(GpuChannel *gpu, const uint32_t *words, uint32_t count);
/* Submits up to GPU_MAX_ENTRIES GPFIFO entries as gpu_submit does one. */
#define GPU_MAX_ENTRIES 8u
uint32_t gpu_submit_entries(GpuChannel *gpu, const uint64_t *entries, uint32_t count, uint32_t flags, NvFence *fence,
                            int kickoff);
/* Submits `count` entries with FENCE_GET and waits for the fence, as gpu_run does. */
uint32_t gpu_run_entries(GpuChannel *gpu, const uint64_t *entries, uint32_t count);
/* Submits `count` words with FENCE_GET and waits for the fence: the NvResult of the first step that failed. */
uint32_t gpu_run(GpuChannel *gpu, const uint32_t *words, uint32_t count);

/* Byte (x, y) of a block-linear surface `width_bytes` wide with blocks 2^block_height GOBs tall, as the Tegra X1
 * TRM describes the layout (64-byte x 8-row GOBs of 16-byte sectors, stacked into blocks, blocks row by row):
 * written here independently of Tandem's own, for the test programs to check against. */
uint64_t block_linear_offset(uint32_t x, uint32_t y, uint32_t width_bytes, uint32_t block_height);
/* Byte (x, y) of slice z of a block-linear volume `width_bytes` x `height` with blocks 2^block_height GOBs tall
 * and 2^block_depth deep (GOBs stacked down, then back, inside a block). */
uint64_t block_linear_offset_3d(uint32_t x, uint32_t y, uint32_t z, uint32_t width_bytes, uint32_t height,
                               uint32_t block_height, uint32_t block_depth);

/* Waits for `fence` as libnx's nvFenceWait does (an event slot, QueryEvent, EventWaitAsync, then the event).
 * Returns the NvResult of the wait (0 when reached); *blocked says whether it had to wait on the event. */
uint32_t gpu_wait(GpuChannel *gpu, NvFence fence, int *blocked);

#endif
