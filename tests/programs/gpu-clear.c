/* Clears through the 3D class, checked texel by texel from the CPU: the expected bytes come from the formats'
 * definitions (the Vulkan spec's conversions: UNORM n = round(f x (2^n - 1)); a float's own bits) and the texels'
 * places from the block-linear layout as the Tegra X1 TRM describes it (64-byte x 8-row GOBs of 16-byte sectors,
 * GOBs stacked into blocks), written out here independently of Tandem's code. */
#include "ipc.h"
#include "nv.h"
#include "tandem.h"

/* IEEE 754 single-precision bits (the programs are built without floating-point registers). */
#define F_0_2 0x3E4CCCCDu  /* 0.2f: x 255 = 51.0000008 -> 51 */
#define F_0_6 0x3F19999Au  /* 0.6f: x 255 = 153.000005 -> 153 */
#define F_0_8 0x3F4CCCCDu  /* 0.8f: x 255 = 204.000003 -> 204 */
#define F_1 0x3F800000u
#define F_0 0x00000000u
#define F_MINUS_2_5 0xC0200000u
#define F_9 0x41100000u

/* 3D class (NVB197_...). */
#define SET_OBJECT 0x0000u
#define SET_COLOR_TARGET_A 0x0800u
#define SET_CLEAR_RECT_HORIZONTAL 0x0D6Cu
#define SET_COLOR_CLEAR_VALUE 0x0D80u
#define SET_SCISSOR_ENABLE 0x0E00u
#define SET_CLEAR_SURFACE_CONTROL 0x10F8u
#define CLEAR_SURFACE 0x19D0u
#define SET_CT_SELECT 0x121Cu
#define SET_VIEWPORT_CLIP_HORIZONTAL 0x0C00u
#define COLOR_TARGET_STRIDE 64u
/* SET_COLOR_TARGET_FORMAT values. */
#define A8B8G8R8 0xD5u
#define R5G6B5 0xE8u
#define RF32 0xE5u
/* SET_COLOR_TARGET_MEMORY: LAYOUT 12 (pitch), BLOCK_HEIGHT 7:4. */
#define PITCH (1u << 12)
#define BLOCK_HEIGHT(log2) ((log2) << 4)
/* CLEAR_SURFACE: R, G, B, A enables in bits 2-5. */
#define R_ENABLE (1u << 2)
#define G_ENABLE (1u << 3)
#define B_ENABLE (1u << 4)
#define A_ENABLE (1u << 5)
#define RGBA (R_ENABLE | G_ENABLE | B_ENABLE | A_ENABLE)

static uint32_t words[64];
static uint32_t n;
static void emit(uint32_t word) { words[n++] = word; }

static void target(GpuChannel *gpu, uint64_t offset, uint32_t width, uint32_t height, uint32_t format, uint32_t memory) {
    uint64_t address = gpu->gpu_address + offset;
    emit(PB_INC(0, SET_COLOR_TARGET_A, 6));
    emit((uint32_t)(address >> 32));
    emit((uint32_t)address);
    emit(width);
    emit(height);
    emit(format);
    emit(memory);
}

static void clear(uint32_t r, uint32_t g, uint32_t b, uint32_t a, uint32_t surface) {
    emit(PB_INC(0, SET_COLOR_CLEAR_VALUE, 4));
    emit(r);
    emit(g);
    emit(b);
    emit(a);
    emit(PB_INC(0, CLEAR_SURFACE, 1));
    emit(surface);
}

static void run(GpuChannel *gpu, const char *what) {
    expect(what, gpu_run(gpu, words, n), 0);
    n = 0;
}

int main(void) {
    uint64_t heap;
    check(svc_set_heap_size(&heap, 0x800000) == 0, "SetHeapSize");
    Handle nv = nv_connect((void *)heap, 0x300000);
    GpuChannel gpu;
    check(gpu_open(&gpu, nv, (void *)(heap + 0x400000), 0x100000) == 0, "channel set up");
    uint8_t *memory = gpu.memory;

    print("-- a block-linear A8B8G8R8 target, cleared whole\n");
    emit(PB_NONINC(0, SET_OBJECT, 1));
    emit(0xB197);
    /* 40 x 20 texels, blocks two GOBs tall: 160 bytes a row, three blocks across (the last partly used). */
    target(&gpu, PB_AREA, 40, 20, A8B8G8R8, BLOCK_HEIGHT(1));
    clear(F_0_2, F_0_6, F_0_8, F_1, RGBA);
    run(&gpu, "clear");
    uint8_t want[4] = {51, 153, 204, 255};
    int wrong = 0;
    for (uint32_t y = 0; y < 20; y++)
        for (uint32_t x = 0; x < 40; x++)
            wrong += memcmp(memory + PB_AREA + block_linear_offset(4 * x, y, 160, 1), want, 4) != 0;
    check(wrong == 0, "every texel holds (51, 153, 204, 255) where the GOB layout puts it");
    print("texels wrong: ");
    print_u64((uint64_t)wrong);
    print("\n");

    print("-- a masked clear cut by the clear rectangle and scissor 0, on a pitch target\n");
    uint8_t *pitch = memory + PB_AREA + 0x10000;
    memset(pitch, 0x11, 64 * 8);
    target(&gpu, PB_AREA + 0x10000, 64, 8, A8B8G8R8, PITCH);
    emit(PB_INC(0, SET_CLEAR_SURFACE_CONTROL, 1));
    emit(1u << 4 | 1u << 8); /* USE_CLEAR_RECT, USE_SCISSOR0 */
    emit(PB_INC(0, SET_CLEAR_RECT_HORIZONTAL, 2));
    emit(2 | 12u << 16); /* x 2..12 */
    emit(1 | 7u << 16);  /* y 1..7 */
    emit(PB_INC(0, SET_SCISSOR_ENABLE, 3));
    emit(1);
    emit(4 | 16u << 16); /* x 4..16 */
    emit(0 | 5u << 16);  /* y 0..5 */
    clear(F_1, F_0, F_1, F_0, R_ENABLE | B_ENABLE);
    run(&gpu, "masked clear");
    wrong = 0;
    for (uint32_t y = 0; y < 8; y++)
        for (uint32_t x = 0; x < 16; x++) {
            int inside = x >= 4 && x < 12 && y >= 1 && y < 5;
            uint8_t expected[4] = {inside ? 255 : 0x11, 0x11, inside ? 255 : 0x11, 0x11};
            wrong += memcmp(pitch + 64 * y + 4 * x, expected, 4) != 0;
        }
    check(wrong == 0, "R and B set inside x 4..12, y 1..5; G, A and the rest untouched");
    emit(PB_INC(0, SET_CLEAR_SURFACE_CONTROL, 1));
    emit(0);

    print("-- layer 1 of the target output 1 names (MRT_SELECT, RT_ARRAY_INDEX), cut by viewport 0's clip\n");
    /* Slot 2: 8 x 4 texels, pitch, two layers 128 bytes apart (ARRAY_PITCH counts 4-byte units); output 1 to
     * slot 2. Viewport 0's clip: x 2, width 4; y 1, height 2. */
    uint8_t *layers = memory + PB_AREA + 0x30000;
    memset(layers, 0x11, 2 * 128);
    uint64_t layered = gpu.gpu_address + PB_AREA + 0x30000;
    emit(PB_INC(0, SET_COLOR_TARGET_A + 2 * COLOR_TARGET_STRIDE, 8));
    emit((uint32_t)(layered >> 32));
    emit((uint32_t)layered);
    emit(8 * 4);
    emit(4);
    emit(A8B8G8R8);
    emit(PITCH);
    emit(2);        /* THIRD_DIMENSION: two layers */
    emit(128 / 4);  /* ARRAY_PITCH */
    emit(PB_INC(0, SET_CT_SELECT, 1));
    emit(2 | 0u << 4 | 2u << 7);
    emit(PB_INC(0, SET_VIEWPORT_CLIP_HORIZONTAL, 2));
    emit(2 | 4u << 16);
    emit(1 | 2u << 16);
    emit(PB_INC(0, SET_CLEAR_SURFACE_CONTROL, 1));
    emit(1u << 12); /* USE_VIEWPORT_CLIP0 */
    clear(F_0_2, F_0_6, F_0_8, F_1, RGBA | 1u << 6 | 1u << 10);
    emit(PB_INC(0, SET_CLEAR_SURFACE_CONTROL, 1));
    emit(0);
    emit(PB_INC(0, SET_CT_SELECT, 1));
    emit(1);
    run(&gpu, "clear");
    wrong = 0;
    for (uint32_t layer = 0; layer < 2; layer++)
        for (uint32_t y = 0; y < 4; y++)
            for (uint32_t x = 0; x < 8; x++) {
                int inside = layer == 1 && x >= 2 && x < 6 && y >= 1 && y < 3;
                const uint8_t cleared[4] = {51, 153, 204, 255}, kept[4] = {0x11, 0x11, 0x11, 0x11};
                wrong += memcmp(layers + 128 * layer + 32 * y + 4 * x, inside ? cleared : kept, 4) != 0;
            }
    check(wrong == 0, "layer 1 cleared inside x 2..6, y 1..3; layer 0 and the rest untouched");

    print("-- R5G6B5 and RF32\n");
    target(&gpu, PB_AREA + 0x20000, 16, 2, R5G6B5, PITCH);
    clear(F_1, F_0, F_1, F_1, RGBA);
    target(&gpu, PB_AREA + 0x20100, 32, 2, RF32, PITCH);
    clear(F_MINUS_2_5, F_9, F_9, F_9, RGBA);
    run(&gpu, "clears");
    uint16_t rgb565;
    memcpy(&rgb565, memory + PB_AREA + 0x20000 + 2 * 7 + 16, 2);
    check(rgb565 == 0xF81F, "R5G6B5: R in bits 15:11, B in 4:0, all ones");
    uint32_t f32;
    memcpy(&f32, memory + PB_AREA + 0x20100 + 4 * 5 + 32, 4);
    check(f32 == F_MINUS_2_5, "RF32: the float's bits");

    nv_close(nv, gpu.channel);
    svc_close_handle(nv);
    print("gpu-clear: ");
    print_u64((uint64_t)failures());
    print(" failures\n");
    return failures() == 0 ? 0 : 1;
}
