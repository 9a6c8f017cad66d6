/* Draws through Ampere B (C797), the Switch 2's 3D class, with SM86 programs behind version 4 headers (shaders/
 * pass86.vs.sasm and perspective86.ps.sasm, from Tandem's assembler; nvdisasm reads their code as written). What
 * differs from Maxwell B (clc797.h against clb197.h) is what this program uses:
 * - programs found by their own addresses (SET_PIPELINE_PROGRAM_ADDRESS_A/B per pipeline slot), no program region;
 * - vertex streams and index buffers bounded by their sizes (SET_VERTEX_STREAM_SIZE_A/B, SET_INDEX_BUFFER_SIZE_A/B)
 *   instead of their last bytes' addresses;
 * - report semaphores through REPORT_SEMAPHORE_EXECUTE, its 64-bit payload and address in register pairs before it.
 * Every pixel is checked against what the draw's definition gives, computed here as gpu-draw.c does: a pixel is
 * drawn when its centre is inside the triangle by the three edge functions (vertices on a 1/16-pixel grid, no
 * centre on an edge), in the UNORM8 encoding of the vertices' colour; the others keep their bytes. Counters are
 * the data assembler's vertices and primitives that the draws launched. */
#include "ipc.h"
#include "nv.h"
#include "tandem.h"
#include "texture.h"

__asm__(".section .rodata\n"
        ".balign 16\n"
        "pass86_vs: .incbin \"shaders/pass86.vs.bin\"\n"
        "pass86_vs_end:\n"
        "perspective86_ps: .incbin \"shaders/perspective86.ps.bin\"\n"
        "perspective86_ps_end:\n"
        ".previous\n");
__attribute__((visibility("hidden"))) extern const uint8_t pass86_vs[], pass86_vs_end[], perspective86_ps[], perspective86_ps_end[];

/* 3D class methods (NVC797_...). */
#define SET_OBJECT 0x0000u
#define SET_REPORT_SEMAPHORE_PAYLOAD_LOWER 0x0158u /* then _UPPER, ADDRESS_LOWER, ADDRESS_UPPER, EXECUTE */
#define SET_INDEX_BUFFER_SIZE_A 0x0238u
#define SET_RASTER_ENABLE 0x037Cu
#define SET_VERTEX_STREAM_SIZE_A 0x0600u
#define SET_COLOR_TARGET_A 0x0800u
#define SET_VIEWPORT_SCALE_X 0x0A00u
#define SET_VIEWPORT_CLIP_HORIZONTAL 0x0C00u
#define SET_STATISTICS_COUNTER 0x0D68u
#define SET_VERTEX_ARRAY_START 0x0D74u
#define SET_VIEWPORT_Z_CLIP 0x0D7Cu
#define SET_SURFACE_CLIP_HORIZONTAL 0x0FF4u
#define SET_VERTEX_ATTRIBUTE_A 0x1160u
#define SET_CT_SELECT 0x121Cu
#define CLEAR_REPORT_VALUE 0x1530u
#define END 0x1614u
#define BEGIN 0x1618u
#define SET_INDEX_BUFFER_A 0x17C8u
#define DRAW_INDEX_BUFFER 0x17E0u
#define SET_VIEWPORT_SCALE_OFFSET 0x192Cu
#define SET_CT_WRITE 0x1A00u
#define SET_VERTEX_STREAM_A_FORMAT 0x1C00u
#define SET_PIPELINE_SHADER 0x2000u
#define SET_PIPELINE_PROGRAM_ADDRESS_A 0x2014u
#define PIPELINE_STRIDE 0x40u
/* Values. */
#define A8B8G8R8 0xD5u
#define PITCH (1u << 12)
#define TRIANGLES 4u
#define FLOAT_R32_G32_B32_A32 (1u << 21 | 7u << 27)
/* REPORT_SEMAPHORE_EXECUTE: OPERATION 1:0 (RELEASE 0, REPORT_ONLY 2), REPORT 11:7, STRUCTURE_SIZE 14:13 (FOUR_WORDS
 * 0, ONE_WORD 1, TWO_WORDS 2), REDUCTION_ENABLE 20, REDUCTION_OP 23:21 (RED_ADD 0), PAYLOAD_SIZE64 27. */
#define RELEASE 0u
#define REPORT_ONLY 2u
#define REPORT_DA_VERTICES_GENERATED (1u << 7)
#define REPORT_DA_PRIMITIVES_GENERATED (3u << 7)
#define ONE_WORD (1u << 13)
#define TWO_WORDS (2u << 13)
#define REDUCTION_ADD (1u << 20)
#define PAYLOAD_SIZE64 (1u << 27)

/* The channel's memory. */
#define PASS86_VS 0x10000u
#define PERSPECTIVE86_PS 0x10400u
#define VERTICES 0x12000u
#define INDICES 0x12800u
#define REPORTS 0x13000u /* 16 bytes each */
#define TARGET 0x20000u  /* 64 x 32 texels of 4 bytes, 256 bytes a row */
#define WIDTH 64
#define HEIGHT 32

static uint32_t words[256];
static uint32_t n;
static GpuChannel gpu;

static void method(uint32_t offset, uint32_t count, const uint32_t *values) {
    words[n++] = PB_INC(0, offset, count);
    for (uint32_t i = 0; i < count; i++) words[n++] = values[i];
}

static void set(uint32_t offset, uint32_t value) { method(offset, 1, &value); }

/* An address method pair (upper word first) holding the channel memory's offset `memory_offset`. */
static void set_address(uint32_t offset, uint32_t memory_offset) {
    uint64_t address = gpu.gpu_address + memory_offset;
    uint32_t values[2] = {(uint32_t)(address >> 32), (uint32_t)address};
    method(offset, 2, values);
}

/* A size method pair (upper word first). */
static void set_size(uint32_t offset, uint32_t size) {
    uint32_t values[2] = {0, size};
    method(offset, 2, values);
}

static void run(const char *what) {
    expect(what, gpu_run(&gpu, words, n), 0);
    n = 0;
}

/* n / 2^shift as IEEE single-precision bits (exact: |n| < 2^24). */
static uint32_t float_bits(int32_t value, int shift) {
    if (value == 0) return 0;
    uint32_t sign = value < 0 ? 0x80000000u : 0;
    uint32_t magnitude = value < 0 ? (uint32_t)-value : (uint32_t)value;
    int top = 31 - __builtin_clz(magnitude);
    uint32_t mantissa = top > 23 ? magnitude >> (top - 23) : magnitude << (23 - top);
    return sign | (uint32_t)(127 + top - shift) << 23 | (mantissa & 0x7FFFFFu);
}

#define F_0_2 0x3E4CCCCDu
#define F_0_6 0x3F19999Au
#define F_0_8 0x3F4CCCCDu

/* A vertex: window position in 1/16 pixel (x, y), colour. Viewport: scale (32, 16), offset (32, 16), so NDC x =
 * (x - 512) / 512 and y = (y - 256) / 256, exactly. */
typedef struct {
    int32_t x, y;
    uint32_t colour[4];
} Vertex;

static void put_vertices(const Vertex *vertices, uint32_t count) {
    uint32_t *out = (uint32_t *)(gpu.memory + VERTICES);
    for (uint32_t i = 0; i < count; i++) {
        out[8 * i + 0] = float_bits(vertices[i].x - 512, 9);
        out[8 * i + 1] = float_bits(vertices[i].y - 256, 8);
        out[8 * i + 2] = 0x3F000000u;
        out[8 * i + 3] = F_1;
        for (int c = 0; c < 4; c++) out[8 * i + 4 + c] = vertices[i].colour[c];
    }
}

static int64_t edge(const Vertex *a, const Vertex *b, int64_t px, int64_t py) {
    return (int64_t)(b->x - a->x) * (py - a->y) - (int64_t)(b->y - a->y) * (px - a->x);
}

/* Whether pixel (x, y)'s centre is inside triangle t; a centre on an edge fails the test's premise. */
static int inside(const Vertex *t, uint32_t x, uint32_t y) {
    int64_t px = 16 * (int64_t)x + 8, py = 16 * (int64_t)y + 8;
    int64_t e0 = edge(&t[0], &t[1], px, py), e1 = edge(&t[1], &t[2], px, py), e2 = edge(&t[2], &t[0], px, py);
    check(e0 != 0 && e1 != 0 && e2 != 0, "no pixel centre on an edge");
    return (e0 > 0 && e1 > 0 && e2 > 0) || (e0 < 0 && e1 < 0 && e2 < 0);
}

static const uint8_t background[4] = {0x11, 0x22, 0x33, 0x44};

static void fill_target(void) {
    for (uint32_t i = 0; i < WIDTH * HEIGHT; i++) memcpy(gpu.memory + TARGET + 4 * i, background, 4);
}

/* Checks every pixel: `drawn` where `covered` says, the background elsewhere. */
static void check_pixels(const char *what, int (*covered)(uint32_t, uint32_t), const uint8_t drawn[4]) {
    uint32_t wrong = 0, count = 0;
    for (uint32_t y = 0; y < HEIGHT; y++)
        for (uint32_t x = 0; x < WIDTH; x++) {
            int in = covered(x, y);
            count += (uint32_t)in;
            wrong += memcmp(gpu.memory + TARGET + 256 * y + 4 * x, in ? drawn : background, 4) != 0;
        }
    check(wrong == 0 && count > 50, what);
    print("   pixels covered ");
    print_u64(count);
    print(", wrong ");
    print_u64(wrong);
    print("\n");
}

static const Vertex triangle[3] = {
    {81, 50, {F_0_2, F_0_6, F_0_8, F_1}},
    {931, 145, {F_0_2, F_0_6, F_0_8, F_1}},
    {324, 473, {F_0_2, F_0_6, F_0_8, F_1}},
};
static int in_triangle(uint32_t x, uint32_t y) { return inside(triangle, x, y); }

/* The rectangle x 165..700, y 73..420 (1/16 pixel) as two indexed triangles. */
static int in_rectangle(uint32_t x, uint32_t y) {
    uint32_t cx = 16 * x + 8, cy = 16 * y + 8;
    return cx > 165 && cx < 700 && cy > 73 && cy < 420;
}

/* REPORT_SEMAPHORE_EXECUTE with `operation` at REPORTS + 16 * `slot`, its payload `payload`. */
static void report_semaphore(uint32_t slot, uint64_t payload, uint32_t operation) {
    uint64_t address = gpu.gpu_address + REPORTS + 16 * slot;
    uint32_t values[5] = {(uint32_t)payload, (uint32_t)(payload >> 32), (uint32_t)address, (uint32_t)(address >> 32),
                          operation};
    method(SET_REPORT_SEMAPHORE_PAYLOAD_LOWER, 5, values);
}

/* Prints a 64-bit value and checks it. */
static void expect_value(const char *what, uint64_t got, uint64_t want) {
    print("   ");
    print(what);
    print(": ");
    print_hex(got);
    print("\n");
    check(got == want, what);
}

static uint64_t reported(uint32_t slot) {
    uint64_t value;
    memcpy(&value, gpu.memory + REPORTS + 16 * slot, 8);
    return value;
}

int main(void) {
    uint64_t heap;
    check(svc_set_heap_size(&heap, 0x800000) == 0, "SetHeapSize");
    Handle nv = nv_connect((void *)heap, 0x300000);
    check(gpu_open_class(&gpu, nv, (void *)(heap + 0x400000), 0x100000, 0xC797) == 0, "channel with AMPERE_B set up");
    memcpy(gpu.memory + PASS86_VS, pass86_vs, (size_t)(pass86_vs_end - pass86_vs));
    memcpy(gpu.memory + PERSPECTIVE86_PS, perspective86_ps, (size_t)(perspective86_ps_end - perspective86_ps));

    /* The state every draw shares: target 0 (pitch A8B8G8R8), the viewport, generic 0 and 1 as four floats each
     * from stream 0, and the programs: slot 1 (vertex B) and slot 5 (pixel), each at its own address. */
    words[n++] = PB_NONINC(0, SET_OBJECT, 1);
    words[n++] = 0xC797;
    set_address(SET_COLOR_TARGET_A, TARGET);
    uint32_t target[4] = {WIDTH * 4, HEIGHT, A8B8G8R8, PITCH};
    method(SET_COLOR_TARGET_A + 8, 4, target);
    set(SET_CT_SELECT, 1);
    set(SET_CT_WRITE, 0x1111);
    uint32_t viewport[6] = {float_bits(32, 0), float_bits(16, 0), 0x3F000000u,
                            float_bits(32, 0), float_bits(16, 0), 0x3F000000u};
    method(SET_VIEWPORT_SCALE_X, 6, viewport);
    set(SET_VIEWPORT_SCALE_OFFSET, 1);
    uint32_t clip[2] = {(uint32_t)WIDTH << 16, (uint32_t)HEIGHT << 16};
    method(SET_VIEWPORT_CLIP_HORIZONTAL, 2, clip);
    method(SET_SURFACE_CLIP_HORIZONTAL, 2, clip);
    set(SET_VIEWPORT_Z_CLIP, 1);
    set(SET_RASTER_ENABLE, 1);
    uint32_t attributes[2] = {0 | FLOAT_R32_G32_B32_A32, 0 | 16u << 7 | FLOAT_R32_G32_B32_A32};
    method(SET_VERTEX_ATTRIBUTE_A, 2, attributes);
    set(SET_VERTEX_STREAM_A_FORMAT, 32 | 1u << 12);
    set_address(SET_VERTEX_STREAM_A_FORMAT + 4, VERTICES);
    set_size(SET_VERTEX_STREAM_SIZE_A, 32 * 4);
    set(SET_PIPELINE_SHADER + PIPELINE_STRIDE * 1, 1 | 1u << 4);
    set_address(SET_PIPELINE_PROGRAM_ADDRESS_A + PIPELINE_STRIDE * 1, PASS86_VS);
    set(SET_PIPELINE_SHADER + PIPELINE_STRIDE * 5, 1 | 5u << 4);
    set_address(SET_PIPELINE_PROGRAM_ADDRESS_A + PIPELINE_STRIDE * 5, PERSPECTIVE86_PS);
    /* The data assembler's counters on (SET_STATISTICS_COUNTER 1:0) and at zero. */
    set(SET_STATISTICS_COUNTER, 3);
    set(CLEAR_REPORT_VALUE, 0x12);
    set(CLEAR_REPORT_VALUE, 0x13);
    run("the 3D state");

    print("-- a triangle, SM86 programs at their own addresses, its colour interpolated with perspective\n");
    fill_target();
    put_vertices(triangle, 3);
    set(BEGIN, TRIANGLES);
    uint32_t range[2] = {0, 3}; /* SET_VERTEX_ARRAY_START, DRAW_VERTEX_ARRAY */
    method(SET_VERTEX_ARRAY_START, 2, range);
    set(END, 0);
    run("draw");
    const uint8_t triangle_colour[4] = {51, 153, 204, 255};
    check_pixels("the pixels whose centres are inside, and only those, take (51, 153, 204, 255)", in_triangle,
                 triangle_colour);

    print("-- an indexed rectangle: 16-bit indices in a buffer bounded by SET_INDEX_BUFFER_SIZE\n");
    fill_target();
    const Vertex corners[4] = {
        {165, 73, {F_0_6, F_0_8, F_0_2, F_1}},
        {700, 73, {F_0_6, F_0_8, F_0_2, F_1}},
        {165, 420, {F_0_6, F_0_8, F_0_2, F_1}},
        {700, 420, {F_0_6, F_0_8, F_0_2, F_1}},
    };
    put_vertices(corners, 4);
    const uint16_t indices[6] = {0, 1, 2, 2, 1, 3};
    memcpy(gpu.memory + INDICES, indices, sizeof indices);
    set_address(SET_INDEX_BUFFER_A, INDICES);
    set_size(SET_INDEX_BUFFER_SIZE_A, sizeof indices);
    uint32_t index_format[2] = {1 /* TWO_BYTES */, 0 /* FIRST */};
    method(SET_INDEX_BUFFER_A + 16, 2, index_format);
    set(BEGIN, TRIANGLES);
    set(DRAW_INDEX_BUFFER, 6);
    set(END, 0);
    run("draw");
    const uint8_t rectangle_colour[4] = {153, 204, 51, 255};
    check_pixels("the rectangle's pixels, each drawn once, and nothing else", in_rectangle, rectangle_colour);

    print("-- REPORT_SEMAPHORE_EXECUTE: counters and releases\n");
    memset(gpu.memory + REPORTS, 0xEE, 16 * 4);
    uint32_t start = 5;
    memcpy(gpu.memory + REPORTS + 16 * 3, &start, 4);
    report_semaphore(0, 0, REPORT_ONLY | REPORT_DA_VERTICES_GENERATED | TWO_WORDS);
    report_semaphore(1, 0, REPORT_ONLY | REPORT_DA_PRIMITIVES_GENERATED);
    report_semaphore(2, 0x1122334455667788ull, RELEASE | TWO_WORDS | PAYLOAD_SIZE64);
    report_semaphore(3, 0xFFFFFFFF00000007ull, RELEASE | ONE_WORD | REDUCTION_ADD);
    run("reports");
    /* Three vertices for the triangle, six indices for the rectangle; one primitive and two. */
    expect_value("the vertices the draws launched (two words)", reported(0), 9);
    expect_value("the primitives the draws launched (four words: the count, then a timestamp)", reported(1), 3);
    uint64_t timestamp;
    memcpy(&timestamp, gpu.memory + REPORTS + 16 + 8, 8);
    check(timestamp != 0xEEEEEEEEEEEEEEEEull, "a four-word report writes its timestamp");
    expect_value("a 64-bit payload released as two words", reported(2), 0x1122334455667788ull);
    expect_value("a one-word RED_ADD of the payload's low word", reported(3), 0xEEEEEEEE0000000Cull);

    nv_close(nv, gpu.channel);
    svc_close_handle(nv);
    print("gpu-ampere: ");
    print_u64((uint64_t)failures());
    print(" failures\n");
    return failures() == 0 ? 0 : 1;
}
