/* The GPU's front end as a program drives it through nvdrv (libnx's gpu_channel.c order): a channel bound to an
 * address space, pushbuffers submitted with SubmitGpfifo and KickoffPb, fences from the channel's syncpoint waited
 * on through nvhost-ctrl's event slots. What the GPU writes is checked against what NVIDIA's class documentation
 * (open-gpu-doc clb06f.h, clb197.h, cla140.h) says each method does; fences against the driver's rules (two
 * increments per FENCE_GET, the value given counted with INCREMENT_BY_VALUE). */
#include "ipc.h"
#include "nv.h"
#include "tandem.h"

/* Host class (NVB06F_...). */
#define SET_OBJECT 0x0000u
#define SEMAPHOREA 0x0010u
#define SYNCPOINTA 0x0070u
/* SEMAPHORED: OPERATION_RELEASE, RELEASE_SIZE_4BYTE. */
#define SEMAPHORED_RELEASE_4 (2u | 1u << 24)
#define SEMAPHORED_RELEASE_16 2u
/* SEMAPHORED: OPERATION_ACQUIRE (hold until the word equals the payload), ACQUIRE_SWITCH. */
#define SEMAPHORED_ACQUIRE (1u | 1u << 12)
/* SEMAPHORED: OPERATION_REDUCTION with REDUCTION 30:27 (MIN 0 ... ADD 5, INC 6, DEC 7) and FORMAT 31:31
 * (SIGNED 0, UNSIGNED 1). */
#define SEMAPHORED_REDUCTION(reduction, is_unsigned) (0x10u | (uint32_t)(reduction) << 27 | (uint32_t)(is_unsigned) << 31)
/* 3D class (NVB197_...). */
#define LOAD_MME_INSTRUCTION_RAM_POINTER 0x0114u
#define LOAD_MME_START_ADDRESS_RAM_POINTER 0x011Cu
#define LINE_LENGTH_IN 0x0180u
#define LAUNCH_DMA 0x01B0u
#define LOAD_INLINE_DATA 0x01B4u
#define INCREMENT_SYNC_POINT 0x02C8u
#define SET_REPORT_SEMAPHORE_A 0x1B00u
#define CALL_MME_MACRO(j) (0x3800u + 8u * (j))

#define CTRL_SYNCPT_READ 0xC0080014u
#define CTRL_SYNCPT_READ_MAX 0xC008001Au
#define CTRL_EVENT_REGISTER 0xC004001Fu
#define CHANNEL_ALLOC_GPFIFO_EX2 0xC020481Au
#define CHANNEL_ALLOC_OBJ_CTX 0xC0104809u
#define CHANNEL_SET_PRIORITY 0x4004480Du

static uint32_t words[256];
static uint32_t n;

static void emit(uint32_t word) { words[n++] = word; }

static uint32_t read_u32(GpuChannel *gpu, uint64_t offset) {
    uint32_t v;
    memcpy(&v, gpu->memory + offset, 4);
    return v;
}

static uint32_t syncpoint(GpuChannel *gpu, uint32_t request, uint32_t id) {
    uint32_t argument[2] = {id, 0};
    check(nv_ioctl(gpu->nv, gpu->ctrl, request, argument, 8, 0) == 0, "SyncptRead");
    return argument[1];
}

/* A host semaphore release of `payload` at `offset` of the channel's memory. */
static void release(GpuChannel *gpu, uint64_t offset, uint32_t payload, uint32_t operation) {
    uint64_t address = gpu->gpu_address + offset;
    emit(PB_INC(0, SEMAPHOREA, 4));
    emit((uint32_t)(address >> 32));
    emit((uint32_t)address);
    emit(payload);
    emit(operation);
}

int main(void) {
    uint64_t heap;
    check(svc_set_heap_size(&heap, 0x800000) == 0, "SetHeapSize");
    Handle nv = nv_connect((void *)heap, 0x300000);
    GpuChannel a, b;
    check(gpu_open(&a, nv, (void *)(heap + 0x400000), 0x100000) == 0, "channel A set up");
    check(gpu_open(&b, nv, (void *)(heap + 0x600000), 0x100000) == 0, "channel B set up");
    check(a.fence.id != b.fence.id && a.fence.id != 0, "each channel has its own syncpoint");
    uint32_t slot_check[8] = {0x800, 1, 0, 0, 0, 0, 0, 0};
    expect("AllocGpfifoEx2 again", nv_ioctl(nv, a.channel, CHANNEL_ALLOC_GPFIFO_EX2, slot_check, 32, 0),
           NV_ALREADY_ALLOCATED);
    struct {
        uint32_t class_number, flags;
        uint64_t object;
    } object = {0x1234, 0, 0};
    expect("AllocObjCtx(class 0x1234)", nv_ioctl(nv, a.channel, CHANNEL_ALLOC_OBJ_CTX, &object, 16, 0), NV_BAD_VALUE);
    uint32_t priority = 7;
    expect("SetPriority(7)", nv_ioctl(nv, a.channel, CHANNEL_SET_PRIORITY, &priority, 4, 0), NV_BAD_PARAMETER);

    print("-- host semaphores\n");
    n = 0;
    emit(PB_NONINC(0, SET_OBJECT, 1));
    emit(0xB197);
    release(&a, PB_AREA + 0x00, 0x12345678, SEMAPHORED_RELEASE_4);
    release(&a, PB_AREA + 0x10, 0xCAFEF00D, SEMAPHORED_RELEASE_16);
    /* Reductions into words that start as 10, 10, 5 and -3: ADD 7, INC (wrapping at 10), DEC (wrapping at 9),
     * MIN 2 signed. */
    static const int32_t reduced[4] = {10, 10, 5, -3};
    memcpy(a.memory + PB_AREA + 0x30, reduced, sizeof reduced);
    release(&a, PB_AREA + 0x30, 7, SEMAPHORED_REDUCTION(5, 1));
    release(&a, PB_AREA + 0x34, 10, SEMAPHORED_REDUCTION(6, 1));
    release(&a, PB_AREA + 0x38, 9, SEMAPHORED_REDUCTION(7, 1));
    release(&a, PB_AREA + 0x3C, 2, SEMAPHORED_REDUCTION(0, 0));
    NvFence fence = {0, 0};
    expect("SubmitGpfifo", gpu_submit(&a, words, n, NV_SUBMIT_FENCE_GET, &fence, 0), 0);
    check(fence.id == a.fence.id, "the fence is on the channel's syncpoint");
    check(fence.value == a.fence.value + 2, "FENCE_GET counts two increments");
    int blocked;
    expect("wait for it", gpu_wait(&a, fence, &blocked), 0);
    check(!blocked, "work is done by the time the submission returns");
    check(read_u32(&a, PB_AREA + 0x00) == 0x12345678, "four-byte release: the payload");
    check(read_u32(&a, PB_AREA + 0x04) == 0, "four-byte release: nothing after it");
    check(read_u32(&a, PB_AREA + 0x10) == 0xCAFEF00D, "sixteen-byte release: the payload");
    check(read_u32(&a, PB_AREA + 0x14) == 0, "sixteen-byte release: a zero word");
    uint64_t timestamp;
    memcpy(&timestamp, a.memory + PB_AREA + 0x18, 8);
    check(timestamp != 0, "sixteen-byte release: the timestamp");
    check(read_u32(&a, PB_AREA + 0x30) == 17, "reduction ADD");
    check(read_u32(&a, PB_AREA + 0x34) == 0, "reduction INC: 0 once the value reaches the payload");
    check(read_u32(&a, PB_AREA + 0x38) == 4, "reduction DEC: one less");
    check(read_u32(&a, PB_AREA + 0x3C) == (uint32_t)-3, "reduction MIN, signed");
    check(syncpoint(&a, CTRL_SYNCPT_READ, fence.id) == fence.value, "SyncptRead: the fence's value");
    check(syncpoint(&a, CTRL_SYNCPT_READ_MAX, fence.id) == fence.value, "SyncptReadMax: nothing more to come");

    print("-- 3D syncpoint increments and report semaphores, through KickoffPb\n");
    n = 0;
    emit(PB_INC(0, INCREMENT_SYNC_POINT, 1));
    emit(a.fence.id | 1u << 20);
    emit(PB_INC(0, INCREMENT_SYNC_POINT, 1));
    emit(a.fence.id | 1u << 20);
    uint64_t report = a.gpu_address + PB_AREA + 0x40;
    emit(PB_INC(0, SET_REPORT_SEMAPHORE_A, 4));
    emit((uint32_t)(report >> 32));
    emit((uint32_t)report);
    emit(0xABCD);
    emit(1u << 28); /* RELEASE, STRUCTURE_SIZE_ONE_WORD */
    NvFence counted = {0, 2};
    expect("KickoffPb", gpu_submit(&a, words, n, NV_SUBMIT_INCREMENT_BY_VALUE, &counted, 1), 0);
    check(counted.value == fence.value + 2, "INCREMENT_BY_VALUE counts the value given");
    expect("wait for it", gpu_wait(&a, counted, &blocked), 0);
    check(read_u32(&a, PB_AREA + 0x40) == 0xABCD, "the report semaphore's payload");
    NvFence both = {1, 1};
    expect("FENCE_WAIT with INCREMENT_BY_VALUE", gpu_submit(&a, words, 1, 0x101, &both, 0), NV_BAD_PARAMETER);
    /* SubmitGpfifo's size counts its 0x18-byte header and the entries after it: 0x10 bytes hold no header. */
    uint8_t short_submit[0x10] = {0};
    expect("SubmitGpfifo(size 0x10)", nv_ioctl(nv, a.channel, 0xC0104808u, short_submit, sizeof short_submit, 0),
           NV_INVALID_SIZE);

    print("-- a macro\n");
    /* maddr SET_REPORT_SEMAPHORE_A with increment 1; send r1; parm r2; send r2; parm r2; send r2;
     * r3 = 1; exit send (r3 & 1) << 28; nop. */
    static const uint32_t macro[] = {0x05B00021, 0x00000841, 0x00000201, 0x00001041, 0x00000201,
                                     0x00001041, 0x00004311, 0xE040C0C3, 0x00000011};
    n = 0;
    emit(PB_INC(0, LOAD_MME_START_ADDRESS_RAM_POINTER, 2));
    emit(9);
    emit(0x20);
    emit(PB_ONEINC(0, LOAD_MME_INSTRUCTION_RAM_POINTER, 1 + sizeof macro / 4));
    emit(0x20);
    for (uint32_t i = 0; i < sizeof macro / 4; i++) emit(macro[i]);
    uint64_t target = a.gpu_address + PB_AREA + 0x50;
    emit(PB_ONEINC(0, CALL_MME_MACRO(9), 3));
    emit((uint32_t)(target >> 32));
    emit((uint32_t)target);
    emit(0x5EED);
    /* Methods act in order across subchannels and host methods (dev_pbdma.ref): the host's acquire of the word the
     * macro releases holds only if the macro has not run, and the release after it then never comes. */
    release(&a, PB_AREA + 0x50, 0x5EED, SEMAPHORED_ACQUIRE);
    release(&a, PB_AREA + 0x54, 0x600D, SEMAPHORED_RELEASE_4);
    fence = (NvFence){0, 0};
    expect("SubmitGpfifo", gpu_submit(&a, words, n, NV_SUBMIT_FENCE_GET, &fence, 0), 0);
    expect("wait for it", gpu_wait(&a, fence, &blocked), 0);
    check(read_u32(&a, PB_AREA + 0x50) == 0x5EED, "the macro's report semaphore release");
    check(read_u32(&a, PB_AREA + 0x54) == 0x600D, "the host's acquire after the macro sees its release");

    print("-- inline to memory\n");
    n = 0;
    emit(PB_NONINC(2, SET_OBJECT, 1));
    emit(0xA140);
    uint64_t lines = a.gpu_address + PB_AREA + 0x100;
    emit(PB_INC(2, LINE_LENGTH_IN, 5));
    emit(6);    /* LINE_LENGTH_IN */
    emit(2);    /* LINE_COUNT */
    emit((uint32_t)(lines >> 32));
    emit((uint32_t)lines);
    emit(0x40); /* PITCH_OUT */
    emit(PB_INC(2, LAUNCH_DMA, 1));
    emit(1); /* DST_MEMORY_LAYOUT_PITCH */
    emit(PB_NONINC(2, LOAD_INLINE_DATA, 3));
    emit(0x44332211);
    emit(0x88776655);
    emit(0xCCBBAA99);
    fence = (NvFence){0, 0};
    expect("SubmitGpfifo", gpu_submit(&a, words, n, NV_SUBMIT_FENCE_GET, &fence, 0), 0);
    check(memcmp(a.memory + PB_AREA + 0x100, "\x11\x22\x33\x44\x55\x66\0\0", 8) == 0, "the first line");
    check(memcmp(a.memory + PB_AREA + 0x140, "\x77\x88\x99\xAA\xBB\xCC\0\0", 8) == 0, "the second line, a pitch on");

    print("-- one channel waits for another\n");
    NvFence awaited = {a.fence.id, syncpoint(&a, CTRL_SYNCPT_READ_MAX, a.fence.id) + 2};
    n = 0;
    release(&b, PB_AREA, 0x600D, SEMAPHORED_RELEASE_4);
    NvFence waiting = awaited;
    expect("SubmitGpfifo(FENCE_WAIT on A's next fence)",
           gpu_submit(&b, words, n, NV_SUBMIT_FENCE_WAIT | NV_SUBMIT_FENCE_GET, &waiting, 0), 0);
    check(read_u32(&b, PB_AREA) == 0, "B holds until A's fence");
    uint32_t busy_slot = 5;
    check(nv_ioctl(nv, b.ctrl, CTRL_EVENT_REGISTER, &busy_slot, 4, 0) == 0, "EventRegister");
    struct {
        uint32_t id, threshold;
        int32_t timeout;
        uint32_t value;
    } poll = {waiting.id, waiting.value, 0, busy_slot};
    expect("EventWaitAsync with no timeout", nv_ioctl(nv, b.ctrl, 0xC010001Eu, &poll, sizeof poll, 0), NV_TIMEOUT);
    uint32_t bad_slot = 64;
    expect("EventRegister(64)", nv_ioctl(nv, b.ctrl, CTRL_EVENT_REGISTER, &bad_slot, 4, 0), NV_BAD_PARAMETER);
    uint32_t no_such[2] = {500, 0};
    expect("SyncptRead(500)", nv_ioctl(nv, b.ctrl, CTRL_SYNCPT_READ, no_such, 8, 0), NV_BAD_PARAMETER);
    check(nv_ioctl(nv, b.ctrl, 0xC0040020u, &busy_slot, 4, 0) == 0, "EventUnregister");
    n = 0;
    emit(PB_IMMD(0, 0x0008, 0)); /* NOP */
    fence = (NvFence){0, 0};
    expect("SubmitGpfifo on A", gpu_submit(&a, words, n, NV_SUBMIT_FENCE_GET, &fence, 0), 0);
    check(fence.id == awaited.id && fence.value == awaited.value, "A's fence is the one B waits for");
    expect("wait for B", gpu_wait(&b, waiting, &blocked), 0);
    check(read_u32(&b, PB_AREA) == 0x600D, "B went on once A's fence was reached");

    print("-- a wait that blocks\n");
    /* B waits for A's next fence again; this time the CPU waits on B's fence before A submits. */
    awaited.value += 2;
    n = 0;
    release(&b, PB_AREA + 0x10, 0xB10C, SEMAPHORED_RELEASE_4);
    waiting = awaited;
    expect("SubmitGpfifo(FENCE_WAIT)", gpu_submit(&b, words, n, NV_SUBMIT_FENCE_WAIT | NV_SUBMIT_FENCE_GET, &waiting, 0),
           0);
    uint32_t slot = 9;
    check(nv_ioctl(nv, b.ctrl, CTRL_EVENT_REGISTER, &slot, 4, 0) == 0, "EventRegister");
    Handle event;
    expect("QueryEvent", nv_query_event(nv, b.ctrl, 0x10000000u | slot, &event), 0);
    struct {
        uint32_t id, threshold;
        int32_t timeout;
        uint32_t value;
    } wait = {waiting.id, waiting.value, -1, slot};
    expect("EventWaitAsync", nv_ioctl(nv, b.ctrl, 0xC010001Eu, &wait, sizeof wait, 0), NV_TIMEOUT);
    check(wait.value == (waiting.id << 4 | slot), "the event id: syncpoint << 4 | slot");
    int32_t index;
    expect("the event before A submits", svc_wait_synchronization(&index, &event, 1, 0), 0xEA01);
    n = 0;
    emit(PB_IMMD(0, 0x0008, 0));
    fence = (NvFence){0, 0};
    expect("SubmitGpfifo on A", gpu_submit(&a, words, n, NV_SUBMIT_FENCE_GET, &fence, 0), 0);
    expect("the event after", svc_wait_synchronization(&index, &event, 1, 0), 0);
    check(read_u32(&b, PB_AREA + 0x10) == 0xB10C, "B's release");
    svc_close_handle(event);

    print("-- a semaphore acquire that a CPU write alone releases\n");
    /* B holds at an acquire of 0x5EED at +0x20; the CPU writes it and then only reads memory: the GPU polls the
     * semaphore, as the hardware does, and B's release at +0x24 lands with no driver call. */
    n = 0;
    release(&b, PB_AREA + 0x20, 0x5EED, SEMAPHORED_ACQUIRE);
    release(&b, PB_AREA + 0x24, 0xF1A6, SEMAPHORED_RELEASE_4);
    fence = (NvFence){0, 0};
    expect("SubmitGpfifo(acquire, release)", gpu_submit(&b, words, n, NV_SUBMIT_FENCE_GET, &fence, 0), 0);
    check(read_u32(&b, PB_AREA + 0x24) == 0, "B holds at the acquire");
    volatile uint32_t *semaphore = (volatile uint32_t *)(b.memory + PB_AREA + 0x20);
    volatile uint32_t *released = (volatile uint32_t *)(b.memory + PB_AREA + 0x24);
    *semaphore = 0x5EED;
    uint32_t spins = 0;
    while (*released != 0xF1A6 && spins < 10000000u) spins++;
    check(*released == 0xF1A6, "B's release, with no driver call after the write");
    expect("wait for B", gpu_wait(&b, fence, &blocked), 0);
    /* The same through A's 3D engine: its report semaphore's ACQUIRE holds A until the word is the payload. */
    n = 0;
    uint64_t acquired = a.gpu_address + PB_AREA + 0x60;
    emit(PB_INC(0, SET_REPORT_SEMAPHORE_A, 4));
    emit((uint32_t)(acquired >> 32));
    emit((uint32_t)acquired);
    emit(0xACC0);
    emit(1u); /* OPERATION_ACQUIRE */
    release(&a, PB_AREA + 0x64, 0x3D3D, SEMAPHORED_RELEASE_4);
    fence = (NvFence){0, 0};
    expect("SubmitGpfifo(3D acquire, release)", gpu_submit(&a, words, n, NV_SUBMIT_FENCE_GET, &fence, 0), 0);
    check(read_u32(&a, PB_AREA + 0x64) == 0, "A holds at the 3D acquire");
    semaphore = (volatile uint32_t *)(a.memory + PB_AREA + 0x60);
    released = (volatile uint32_t *)(a.memory + PB_AREA + 0x64);
    *semaphore = 0xACC0;
    for (spins = 0; *released != 0x3D3D && spins < 10000000u; spins++) {
    }
    check(*released == 0x3D3D, "A's release after the 3D acquire, with no driver call after the write");
    expect("wait for A", gpu_wait(&a, fence, &blocked), 0);
    /* COMPARISON GE (bit 16): the acquire holds once the word has reached the payload, not only at it. */
    n = 0;
    semaphore = (volatile uint32_t *)(a.memory + PB_AREA + 0x68);
    released = (volatile uint32_t *)(a.memory + PB_AREA + 0x6C);
    *semaphore = 0xFF;
    acquired = a.gpu_address + PB_AREA + 0x68;
    emit(PB_INC(0, SET_REPORT_SEMAPHORE_A, 4));
    emit((uint32_t)(acquired >> 32));
    emit((uint32_t)acquired);
    emit(0x100);
    emit(1u | 1u << 16); /* OPERATION_ACQUIRE, COMPARISON_GE */
    release(&a, PB_AREA + 0x6C, 0x6E6E, SEMAPHORED_RELEASE_4);
    fence = (NvFence){0, 0};
    expect("SubmitGpfifo(3D acquire GE, release)", gpu_submit(&a, words, n, NV_SUBMIT_FENCE_GET, &fence, 0), 0);
    check(*released == 0, "A holds while the word is below the payload");
    *semaphore = 0x200;
    for (spins = 0; *released != 0x6E6E && spins < 10000000u; spins++) {
    }
    check(*released == 0x6E6E, "A's release once the word passes the payload");
    expect("wait for A", gpu_wait(&a, fence, &blocked), 0);

    print("-- a timestamp: REPORT_ONLY of REPORT NONE\n");
    /* What NVK's vkCmdWriteTimestamp sends (OPERATION_REPORT_ONLY, REPORT_NONE, STRUCTURE_SIZE_FOUR_WORDS): the
     * payload, a zero word and the 64-bit timestamp. */
    n = 0;
    uint64_t stamp = a.gpu_address + PB_AREA + 0x70;
    emit(PB_INC(0, SET_REPORT_SEMAPHORE_A, 4));
    emit((uint32_t)(stamp >> 32));
    emit((uint32_t)stamp);
    emit(0x7157);
    emit(2u);
    fence = (NvFence){0, 0};
    expect("SubmitGpfifo(REPORT_ONLY)", gpu_submit(&a, words, n, NV_SUBMIT_FENCE_GET, &fence, 0), 0);
    expect("wait for it", gpu_wait(&a, fence, &blocked), 0);
    check(read_u32(&a, PB_AREA + 0x70) == 0x7157 && read_u32(&a, PB_AREA + 0x74) == 0, "the payload and a zero word");
    memcpy(&timestamp, a.memory + PB_AREA + 0x78, 8);
    check(timestamp != 0, "the timestamp");

    check(nv_close(nv, a.channel) == 0 && nv_close(nv, b.channel) == 0, "Close the channels");
    svc_close_handle(nv);
    print("gpu-fifo: ");
    print_u64((uint64_t)failures());
    print(" failures\n");
    return failures() == 0 ? 0 : 1;
}
