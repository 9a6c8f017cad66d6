/* platform_show_picture on Horizon: the picture goes to the GPU in the pushbuffer (inline-to-memory, into a
 * block-linear frame over a cleared background) and the frame to the display through vi's IGraphicBufferProducer.
 * `tandem run --headless --frames DIR` writes what the display shows. */
#include "nv.h"
#include "tandem.h"
#include "vi.h"

/* Frames: blocks 16 GOBs (128 rows) tall, as libnx lays them out. */
#define BLOCK_HEIGHT_LOG2 4u
/* Rows of the picture per submission: the pushbuffer area holds 64 KiB. */
#define ROWS_PER_SUBMISSION 8u

static uint32_t words[ROWS_PER_SUBMISSION * 320 + 64];

int platform_show_picture(const uint32_t *rgba, uint32_t width, uint32_t height) {
    if (width > 320) return 1;
    uint64_t heap;
    if (svc_set_heap_size(&heap, 0x800000) != 0) return 1;
    Handle nv = nv_connect((void *)heap, 0x300000);
    GpuChannel gpu;
    if (gpu_open(&gpu, nv, (void *)(heap + 0x400000), 0x200000) != 0) return 1;
    ViLayer layer;
    uint32_t default_width, default_height;
    if (vi_open_stray_layer(&layer) != 0 || bq_connect(&layer, 2, &default_width, &default_height) != 0) return 1;
    uint32_t pitch = (width * 4 + 63) & ~63u;
    uint32_t offset = PB_AREA;
    int32_t slot;
    if (bq_set_preallocated_buffer(&layer, 0, gpu.nvmap_id, offset, pitch / 4, height, BLOCK_HEIGHT_LOG2) != 0 ||
        bq_dequeue_buffer(&layer, pitch / 4, height, &slot) != 0 || bq_request_buffer(&layer, slot) != 0)
        return 1;
    uint64_t frame = gpu.gpu_address + offset;
    uint32_t n = 0;
    /* The background: a clear of the whole frame to black (3D class: colour target 0, CLEAR_SURFACE). */
    words[n++] = PB_NONINC(0, 0x0000, 1);
    words[n++] = 0xB197;
    words[n++] = PB_INC(0, 0x0800, 6);
    words[n++] = (uint32_t)(frame >> 32);
    words[n++] = (uint32_t)frame;
    words[n++] = pitch / 4;
    words[n++] = height;
    words[n++] = 0xD5; /* A8B8G8R8 */
    words[n++] = BLOCK_HEIGHT_LOG2 << 4;
    words[n++] = PB_INC(0, 0x0D80, 4);
    words[n++] = 0;
    words[n++] = 0;
    words[n++] = 0;
    words[n++] = 0x3F800000; /* 1.0f */
    words[n++] = PB_INC(0, 0x19D0, 1);
    words[n++] = 0xFu << 2;
    /* The picture's destination, for inline-to-memory (KEPLER_INLINE_TO_MEMORY_B on subchannel 2). */
    words[n++] = PB_NONINC(2, 0x0000, 1);
    words[n++] = 0xA140;
    words[n++] = PB_INC(2, 0x0188, 2);
    words[n++] = (uint32_t)(frame >> 32);
    words[n++] = (uint32_t)frame;
    words[n++] = PB_INC(2, 0x0194, 5); /* SET_DST_BLOCK_SIZE, WIDTH (bytes), HEIGHT, DEPTH, LAYER */
    words[n++] = BLOCK_HEIGHT_LOG2 << 4;
    words[n++] = pitch;
    words[n++] = height;
    words[n++] = 1;
    words[n++] = 0;
    if (gpu_run(&gpu, words, n) != 0) return 1;
    for (uint32_t row = 0; row < height; row += ROWS_PER_SUBMISSION) {
        uint32_t rows = height - row < ROWS_PER_SUBMISSION ? height - row : ROWS_PER_SUBMISSION;
        n = 0;
        words[n++] = PB_INC(2, 0x0180, 2); /* LINE_LENGTH_IN, LINE_COUNT */
        words[n++] = width * 4;
        words[n++] = rows;
        words[n++] = PB_INC(2, 0x01A8, 2); /* SET_DST_ORIGIN_BYTES_X, SET_DST_ORIGIN_SAMPLES_Y */
        words[n++] = 0;
        words[n++] = row;
        words[n++] = PB_INC(2, 0x01B0, 1);
        words[n++] = 0; /* LAUNCH_DMA: block-linear destination */
        words[n++] = PB_NONINC(2, 0x01B4, rows * width);
        memcpy(words + n, rgba + row * width, 4 * rows * width);
        n += rows * width;
        if (gpu_run(&gpu, words, n) != 0) return 1;
    }
    int failed = bq_queue_buffer(&layer, slot) != 0 || bq_disconnect(&layer, 2) != 0;
    vi_close(&layer);
    nv_close(nv, gpu.channel);
    svc_close_handle(nv);
    return failed;
}
