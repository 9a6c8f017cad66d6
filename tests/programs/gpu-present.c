/* Frames through the display: a stray layer of the default display (vi:u), two buffers preallocated on its
 * IGraphicBufferProducer, and each frame dequeued, drawn by the GPU (a clear, then a clear cut by scissor 0: a
 * rectangle) and queued. `tandem run --headless --frames DIR` writes what the display shows; tests/cli.rs reads the
 * PNG files back and checks their pixels against the colours drawn. Then the display's vsync event, at the Switch
 * display's 60 Hz: 320000 ticks of the 19.2 MHz counter apart. */
#include "ipc.h"
#include "nv.h"
#include "tandem.h"
#include "vi.h"

#define WIDTH 320u
#define HEIGHT 180u
/* Blocks 16 GOBs (128 rows) tall, as libnx lays out framebuffers: 180 rows take two block rows. */
#define BLOCK_HEIGHT_LOG2 4u
#define FRAME_BYTES (WIDTH * 4 * 256)

/* IEEE 754 single-precision bits. */
#define F_0 0x00000000u
#define F_0_2 0x3E4CCCCDu
#define F_0_6 0x3F19999Au
#define F_0_8 0x3F4CCCCDu
#define F_1 0x3F800000u

static uint32_t words[96];
static uint32_t n;
static void emit(uint32_t word) { words[n++] = word; }

/* A frame: the whole target in one colour, then scissor 0's rectangle in another. */
static void draw(GpuChannel *gpu, uint32_t offset, const uint32_t background[4], const uint32_t box[4]) {
    uint64_t address = gpu->gpu_address + offset;
    n = 0;
    emit(PB_NONINC(0, 0x0000, 1));
    emit(0xB197);
    emit(PB_INC(0, 0x0800, 6)); /* SET_COLOR_TARGET_A(0) .. MEMORY(0) */
    emit((uint32_t)(address >> 32));
    emit((uint32_t)address);
    emit(WIDTH);
    emit(HEIGHT);
    emit(0xD5); /* A8B8G8R8 */
    emit(BLOCK_HEIGHT_LOG2 << 4);
    emit(PB_INC(0, 0x10F8, 1)); /* SET_CLEAR_SURFACE_CONTROL: USE_SCISSOR0 */
    emit(1u << 8);
    emit(PB_INC(0, 0x0E00, 1)); /* SET_SCISSOR_ENABLE(0) off */
    emit(0);
    emit(PB_INC(0, 0x0D80, 4));
    for (int i = 0; i < 4; i++) emit(background[i]);
    emit(PB_INC(0, 0x19D0, 1)); /* CLEAR_SURFACE R, G, B, A */
    emit(0xFu << 2);
    emit(PB_INC(0, 0x0E00, 3)); /* scissor 0: x 100..220, y 40..140 */
    emit(1);
    emit(100 | 220u << 16);
    emit(40 | 140u << 16);
    emit(PB_INC(0, 0x0D80, 4));
    for (int i = 0; i < 4; i++) emit(box[i]);
    emit(PB_INC(0, 0x19D0, 1));
    emit(0xFu << 2);
    expect("draw", gpu_run(gpu, words, n), 0);
}

int main(void) {
    uint64_t heap;
    check(svc_set_heap_size(&heap, 0x800000) == 0, "SetHeapSize");
    Handle nv = nv_connect((void *)heap, 0x300000);
    GpuChannel gpu;
    check(gpu_open(&gpu, nv, (void *)(heap + 0x400000), 0x200000) == 0, "channel set up");
    ViLayer layer;
    check(vi_open_stray_layer(&layer) == 0, "a stray layer");
    uint32_t width, height;
    expect("CONNECT", (Result)bq_connect(&layer, 2, &width, &height), BINDER_NO_ERROR);
    for (int32_t slot = 0; slot < 2; slot++) {
        uint32_t offset = PB_AREA + (uint32_t)slot * FRAME_BYTES;
        expect("SET_PREALLOCATED_BUFFER",
               (Result)bq_set_preallocated_buffer(&layer, slot, gpu.nvmap_id, offset, WIDTH, HEIGHT, BLOCK_HEIGHT_LOG2),
               BINDER_NO_ERROR);
    }
    static const uint32_t blue[4] = {F_0_2, F_0_6, F_0_8, F_1}, red[4] = {F_1, F_0, F_0, F_1};
    for (int frame = 0; frame < 2; frame++) {
        int32_t slot;
        expect("DEQUEUE_BUFFER", (Result)bq_dequeue_buffer(&layer, WIDTH, HEIGHT, &slot), BINDER_NO_ERROR);
        check(slot == frame, "the oldest free slot");
        expect("REQUEST_BUFFER", (Result)bq_request_buffer(&layer, slot), BINDER_NO_ERROR);
        uint32_t offset = PB_AREA + (uint32_t)slot * FRAME_BYTES;
        draw(&gpu, offset, frame == 0 ? blue : red, frame == 0 ? red : blue);
        expect("QUEUE_BUFFER", (Result)bq_queue_buffer(&layer, slot), BINDER_NO_ERROR);
    }
    int32_t slot;
    expect("QUEUE_BUFFER of a slot not dequeued", (Result)bq_queue_buffer(&layer, 1), (Result)BINDER_BAD_VALUE);
    expect("DEQUEUE_BUFFER(width only)", (Result)bq_dequeue_buffer(&layer, WIDTH, 0, &slot), (Result)BINDER_BAD_VALUE);
    expect("DISCONNECT", (Result)bq_disconnect(&layer, 2), BINDER_NO_ERROR);

    Handle vsync;
    expect("GetDisplayVsyncEvent", vi_get_vsync_event(&layer, &vsync), RESULT_SUCCESS);
    Handle again;
    expect("GetDisplayVsyncEvent again", vi_get_vsync_event(&layer, &again), 0xA72); /* VI PermissionDenied 114-5 */
    uint64_t woke[4];
    for (int i = 0; i < 4; i++) {
        int32_t index;
        check(svc_wait_synchronization(&index, &vsync, 1, -1) == 0, "a vertical blank");
        woke[i] = ticks();
        check(svc_clear_event(vsync) == 0, "ClearEvent");
    }
    for (int i = 1; i < 4; i++) {
        uint64_t apart = woke[i] - woke[i - 1];
        check(apart >= 319000 && apart <= 321000, "vertical blanks 1/60 s of guest time apart");
    }
    print("vertical blanks apart: ");
    print_u64((woke[3] - woke[0] + 1500) / 3000 * 1000);
    print(" ticks (to the thousand)\n");
    svc_close_handle(vsync);
    vi_close(&layer);
    nv_close(nv, gpu.channel);
    svc_close_handle(nv);
    print("gpu-present: ");
    print_u64((uint64_t)failures());
    print(" failures\n");
    return failures() == 0 ? 0 : 1;
}
