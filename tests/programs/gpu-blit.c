/* The 2D engine (FERMI_TWOD_A, open-gpu-doc cl902d.h) driven from the guest: PIXELS_FROM_MEMORY blits as NVN,
 * deko3d and NVK program them (the CORNER origin with half a step added to the source origin, DU_DX = source size
 * / destination size in 32.32 fixed point), each destination pixel checked from the CPU against the texel the
 * definition picks: u = SRC_X0 + (x - DST_X0) * DU_DX, texel floor(u) for POINT; for BILINEAR the texels either
 * side of u - 0.5 weighed by its fraction, clamped to the edges, rounded to nearest. Block-linear bytes are where
 * the runtime's own block_linear_offset puts them. */
#include "ipc.h"
#include "nv.h"
#include "tandem.h"

#define TWOD 3u /* a free subchannel */
#define SET_DST_FORMAT 0x0200u
#define SET_SRC_FORMAT 0x0230u
#define SET_CLIP_X0 0x0280u
#define SET_OPERATION 0x02ACu
#define SET_SAMPLE_MODE 0x088Cu
#define SET_DST_X0 0x08B0u
#define A8R8G8B8 0xCFu
#define A8B8G8R8 0xD5u
#define SRCCOPY 3u
#define CORNER 1u
#define BILINEAR (1u << 4)

#define SOURCE 0x10000u      /* 8 x 8 texels, block-linear, blocks two GOBs tall */
#define DESTINATION 0x12000u /* 16 x 16 texels, pitch, 64 bytes a row */
#define PITCH_OUT 64u

static uint32_t words[128];
static uint32_t n;
static GpuChannel gpu;

static void emit(uint32_t word) { words[n++] = word; }

static void run(const char *what) {
    expect(what, gpu_run(&gpu, words, n), 0);
    n = 0;
}

/* A surface's FORMAT, MEMORY_LAYOUT, BLOCK_SIZE, DEPTH, LAYER, PITCH, WIDTH, HEIGHT, OFFSET_UPPER/LOWER (the source
 * has no LAYER: its word there is a cache invalidate, written 0). */
static void surface(uint32_t method, uint32_t format, int pitch, uint32_t width, uint32_t height, uint32_t offset) {
    uint64_t address = gpu.gpu_address + offset;
    emit(PB_INC(TWOD, method, 10));
    emit(format);
    emit(pitch ? 1 : 0);
    emit(1u << 4);
    emit(1);
    emit(0);
    emit(pitch ? PITCH_OUT : 0);
    emit(width);
    emit(height);
    emit((uint32_t)(address >> 32));
    emit((uint32_t)address);
}

/* The blit: the destination rectangle, the steps and the source origin, each 32.32 as (FRAC, INT); the last word
 * starts it. */
static void blit(uint32_t mode, uint32_t x0, uint32_t y0, uint32_t width, uint32_t height, int64_t du, int64_t dv,
                 int64_t sx, int64_t sy) {
    emit(PB_INC(TWOD, SET_SAMPLE_MODE, 1));
    emit(mode);
    emit(PB_INC(TWOD, SET_DST_X0, 12));
    emit(x0);
    emit(y0);
    emit(width);
    emit(height);
    int64_t fixed[4] = {du, dv, sx, sy};
    for (int i = 0; i < 4; i++) {
        emit((uint32_t)fixed[i]);
        emit((uint32_t)((uint64_t)fixed[i] >> 32));
    }
}

#define ONE (1LL << 32)

/* The source's texel (i, j): A8B8G8R8 bytes unlike their neighbours'. */
static void source_texel(uint32_t i, uint32_t j, uint8_t out[4]) {
    out[0] = (uint8_t)(30 * i + 7);
    out[1] = (uint8_t)(30 * j + 11);
    out[2] = (uint8_t)(i * j + 13);
    out[3] = (uint8_t)(200 - i - 8 * j);
}

static const uint8_t *destination_texel(uint32_t x, uint32_t y) {
    return gpu.memory + DESTINATION + PITCH_OUT * y + 4 * x;
}

static void clear_destination(void) { memset(gpu.memory + DESTINATION, 0x5A, PITCH_OUT * 16); }

static void report(const char *what, uint32_t wrong, uint32_t count) {
    check(wrong == 0 && count > 0, what);
    print("   pixels ");
    print_u64(count);
    print(", wrong ");
    print_u64(wrong);
    print("\n");
}

int main(void) {
    uint64_t heap;
    check(svc_set_heap_size(&heap, 0x400000) == 0, "SetHeapSize");
    Handle nv = nv_connect((void *)heap, 0x100000);
    check(gpu_open(&gpu, nv, (void *)(heap + 0x200000), 0x100000) == 0, "channel set up");
    for (uint32_t j = 0; j < 8; j++)
        for (uint32_t i = 0; i < 8; i++)
            source_texel(i, j, gpu.memory + SOURCE + block_linear_offset(4 * i, j, 32, 1));
    emit(PB_NONINC(TWOD, 0x0000, 1));
    emit(0x902D);
    emit(PB_INC(TWOD, SET_OPERATION, 1));
    emit(SRCCOPY);
    surface(SET_SRC_FORMAT, A8B8G8R8, 0, 8, 8, SOURCE);
    surface(SET_DST_FORMAT, A8B8G8R8, 1, 16, 16, DESTINATION);
    run("the 2D state");

    print("-- 2x magnification, CORNER, POINT: SRC_X0 = 0.25 (half of DU_DX = 0.5)\n");
    clear_destination();
    blit(CORNER, 0, 0, 16, 16, ONE / 2, ONE / 2, ONE / 4, ONE / 4);
    run("blit");
    uint32_t wrong = 0;
    for (uint32_t y = 0; y < 16; y++)
        for (uint32_t x = 0; x < 16; x++) {
            uint8_t want[4];
            source_texel(x / 2, y / 2, want);
            wrong += memcmp(destination_texel(x, y), want, 4) != 0;
        }
    report("each pixel the texel (x / 2, y / 2)", wrong, 256);

    print("-- 2x minification into (4, 2), CORNER, POINT: SRC_X0 = 1.0\n");
    clear_destination();
    blit(CORNER, 4, 2, 4, 4, 2 * ONE, 2 * ONE, ONE, ONE);
    run("blit");
    wrong = 0;
    uint32_t count = 0;
    for (uint32_t y = 0; y < 16; y++)
        for (uint32_t x = 0; x < 16; x++) {
            uint8_t want[4] = {0x5A, 0x5A, 0x5A, 0x5A};
            int inside = x >= 4 && x < 8 && y >= 2 && y < 6;
            if (inside) source_texel(2 * (x - 4) + 1, 2 * (y - 2) + 1, want);
            count += (uint32_t)inside;
            wrong += memcmp(destination_texel(x, y), want, 4) != 0;
        }
    report("texels 1, 3, 5, 7 across and down; the rest untouched", wrong, count);

    print("-- a 1:1 copy of the source's (2, 3)-(7, 6), CENTER, POINT, through a clip of x < 3\n");
    clear_destination();
    emit(PB_INC(TWOD, SET_CLIP_X0, 5));
    emit(0);
    emit(0);
    emit(3);
    emit(16);
    emit(1); /* SET_CLIP_ENABLE */
    blit(0, 0, 0, 6, 4, ONE, ONE, 2 * ONE, 3 * ONE);
    emit(PB_INC(TWOD, SET_CLIP_X0 + 16, 1));
    emit(0);
    run("blit");
    wrong = 0;
    count = 0;
    for (uint32_t y = 0; y < 16; y++)
        for (uint32_t x = 0; x < 16; x++) {
            uint8_t want[4] = {0x5A, 0x5A, 0x5A, 0x5A};
            int inside = x < 3 && y < 4;
            if (inside) source_texel(x + 2, y + 3, want);
            count += (uint32_t)inside;
            wrong += memcmp(destination_texel(x, y), want, 4) != 0;
        }
    report("the texels, inside the clip only", wrong, count);

    print("-- A8B8G8R8 read as A8R8G8B8 into A8B8G8R8: R and B change places\n");
    clear_destination();
    surface(SET_SRC_FORMAT, A8R8G8B8, 0, 8, 8, SOURCE);
    blit(CORNER, 0, 0, 8, 8, ONE, ONE, ONE / 2, ONE / 2);
    run("blit");
    wrong = 0;
    for (uint32_t y = 0; y < 8; y++)
        for (uint32_t x = 0; x < 8; x++) {
            uint8_t texel[4];
            source_texel(x, y, texel);
            const uint8_t want[4] = {texel[2], texel[1], texel[0], texel[3]};
            wrong += memcmp(destination_texel(x, y), want, 4) != 0;
        }
    report("(B, G, R, A) of each texel", wrong, 64);

    print("-- 4x magnification of row 0, CORNER, BILINEAR: SRC_X0 = 0.125\n");
    clear_destination();
    surface(SET_SRC_FORMAT, A8B8G8R8, 0, 8, 8, SOURCE);
    blit(CORNER | BILINEAR, 0, 0, 16, 1, ONE / 4, ONE / 4, ONE / 8, ONE / 8);
    run("blit");
    wrong = 0;
    for (uint32_t x = 0; x < 16; x++) {
        /* u - 0.5 = (x - 3.5) / 4 across; v - 0.5 = -0.375 down, which the edge clamps to row 0. In eighths: */
        int32_t eighths = 2 * (int32_t)x - 3;
        int32_t left = eighths < 0 ? -1 : eighths / 8, weight = eighths - 8 * left; /* weight/8 of the right */
        uint32_t l = left < 0 ? 0 : (uint32_t)left, r = left + 1 > 7 ? 7 : (uint32_t)(left + 1);
        uint8_t a[4], b[4], want[4];
        source_texel(l, 0, a);
        source_texel(r, 0, b);
        for (int c = 0; c < 4; c++) {
            int32_t sixteenths = 2 * (a[c] * (8 - weight) + b[c] * weight); /* value x 16 */
            int32_t value = sixteenths / 16, rest = sixteenths % 16;
            want[c] = (uint8_t)(value + (rest > 8 || (rest == 8 && (value & 1))));
        }
        wrong += memcmp(destination_texel(x, 0), want, 4) != 0;
    }
    report("the texels either side, weighed by the fraction", wrong, 16);

    nv_close(nv, gpu.channel);
    svc_close_handle(nv);
    print("gpu-blit: ");
    print_u64((uint64_t)failures());
    print(" failures\n");
    return failures() == 0 ? 0 : 1;
}
