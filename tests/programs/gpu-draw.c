/* Draws through the 3D class (open-gpu-doc clb197.h's methods, set up as NVIDIA's own 3D driver and NVK program
 * them), with shaders from Tandem's assembler (shaders/NAME.sasm: a header, then instructions by their decode-table
 * names; the .bin files are what they assemble to). Every pixel is checked against what the draw's definition
 * gives, computed here:
 * - coverage: a pixel is drawn when its centre is inside the triangle by the three edge functions. The vertices
 *   lie on a 1/16-pixel grid, so the rasteriser's snapping changes nothing, and no centre lies on an edge, so no
 *   tie rule decides anything (checked here too);
 * - colours: UNORM8 encodings of the vertices' colours (Vulkan's round(f x 255)), chosen so that interpolating a
 *   colour that is the same at every vertex cannot move it to another step; flat shading takes the first
 *   vertex's (SET_PROVOKING_VERTEX's default, FIRST); additive blending adds and clamps; write masks keep the
 *   channels they leave out;
 * - the pixels outside keep their bytes. */
#include "ipc.h"
#include "nv.h"
#include "tandem.h"

__asm__(".section .rodata\n"
        ".balign 16\n"
        "pass_vs: .incbin \"shaders/pass.vs.bin\"\n"
        "pass_vs_end:\n"
        "offset_vs: .incbin \"shaders/offset.vs.bin\"\n"
        "offset_vs_end:\n"
        "perspective_ps: .incbin \"shaders/perspective.ps.bin\"\n"
        "perspective_ps_end:\n"
        "flat_ps: .incbin \"shaders/flat.ps.bin\"\n"
        "flat_ps_end:\n"
        ".previous\n");
#define HIDDEN __attribute__((visibility("hidden")))
HIDDEN extern const uint8_t pass_vs[], pass_vs_end[], offset_vs[], offset_vs_end[], perspective_ps[],
    perspective_ps_end[], flat_ps[], flat_ps_end[];

/* 3D class methods (NVB197_...). */
#define SET_OBJECT 0x0000u
#define SET_RASTER_ENABLE 0x037Cu
#define SET_COLOR_TARGET_A 0x0800u
#define SET_VIEWPORT_SCALE_X 0x0A00u
#define SET_VIEWPORT_CLIP_HORIZONTAL 0x0C00u
#define SET_VERTEX_ARRAY_START 0x0D74u
#define SET_VIEWPORT_Z_CLIP 0x0D7Cu
#define SET_SURFACE_CLIP_HORIZONTAL 0x0FF4u
#define SET_VERTEX_ATTRIBUTE_A 0x1160u
#define SET_CT_SELECT 0x121Cu
#define SET_BLEND_COLOR_OP 0x1340u
#define SET_BLEND 0x1360u
#define SET_VERTEX_STREAM_INSTANCE_A 0x1880u
#define SET_PROGRAM_REGION_A 0x1608u
#define END 0x1614u
#define BEGIN 0x1618u
#define SET_INDEX_BUFFER_A 0x17C8u
#define DRAW_INDEX_BUFFER 0x17E0u
#define SET_VIEWPORT_SCALE_OFFSET 0x192Cu
#define SET_CT_WRITE 0x1A00u
#define SET_VERTEX_STREAM_A_FORMAT 0x1C00u
#define SET_VERTEX_STREAM_LIMIT_A_A 0x1F00u
#define SET_PIPELINE_SHADER 0x2000u
/* Values. */
#define A8B8G8R8 0xD5u
#define PITCH (1u << 12)
#define TRIANGLES 4u
#define INSTANCE_SUBSEQUENT (1u << 26)
#define FLOAT_R32_G32_B32_A32 (1u << 21 | 7u << 27)
#define FLOAT_R32_G32 (4u << 21 | 7u << 27)
#define OGL_FUNC_ADD 0x8006u
#define OGL_ONE 0x4001u

/* Where things are in the channel's memory. */
#define REGION 0x10000u /* the program region: a program every 0x200 bytes */
#define PASS_VS 0x000u
#define OFFSET_VS 0x200u
#define PERSPECTIVE_PS 0x400u
#define FLAT_PS 0x600u
#define VERTICES 0x12000u
#define INSTANCES 0x12400u
#define INDICES 0x12800u
#define TARGET 0x20000u /* 64 x 32 texels of 4 bytes, 256 bytes a row */
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

static void set_address(uint32_t offset, uint32_t memory_offset) {
    uint64_t address = gpu.gpu_address + memory_offset;
    uint32_t values[2] = {(uint32_t)(address >> 32), (uint32_t)address};
    method(offset, 2, values);
}

static void run(const char *what) {
    expect(what, gpu_run(&gpu, words, n), 0);
    n = 0;
}

/* n / 2^shift as IEEE single-precision bits (exact: |n| < 2^24; the programs have no floating-point registers). */
static uint32_t float_bits(int32_t value, int shift) {
    if (value == 0) return 0;
    uint32_t sign = value < 0 ? 0x80000000u : 0;
    uint32_t magnitude = value < 0 ? (uint32_t)-value : (uint32_t)value;
    int top = 31 - __builtin_clz(magnitude);
    uint32_t mantissa = top > 23 ? magnitude >> (top - 23) : magnitude << (23 - top);
    return sign | (uint32_t)(127 + top - shift) << 23 | (mantissa & 0x7FFFFFu);
}

#define F_0 0x00000000u
#define F_0_2 0x3E4CCCCDu
#define F_0_6 0x3F19999Au
#define F_0_8 0x3F4CCCCDu
#define F_1 0x3F800000u

/* A vertex: window position in 1/16 pixel (x, y), colour. Viewport: scale (32, 16), offset (32, 16), so
 * NDC x = (x - 512) / 512 and y = (y - 256) / 256, exactly. */
typedef struct {
    int32_t x, y;
    uint32_t colour[4];
} Vertex;

static void put_vertices(const Vertex *vertices, uint32_t count) {
    uint32_t *out = (uint32_t *)(gpu.memory + VERTICES);
    for (uint32_t i = 0; i < count; i++) {
        out[8 * i + 0] = float_bits(vertices[i].x - 512, 9);
        out[8 * i + 1] = float_bits(vertices[i].y - 256, 8);
        out[8 * i + 2] = 0x3F000000u; /* z 0.5 */
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

static void fill_target(const uint8_t background[4]) {
    for (uint32_t i = 0; i < WIDTH * HEIGHT; i++) memcpy(gpu.memory + TARGET + 4 * i, background, 4);
}

/* Counts the pixels that differ from `drawn` where `covered` says and from `background` elsewhere. */
static uint32_t wrong_pixels(int (*covered)(uint32_t, uint32_t), const uint8_t drawn[4], const uint8_t background[4],
                             uint32_t *count) {
    uint32_t wrong = 0;
    *count = 0;
    for (uint32_t y = 0; y < HEIGHT; y++)
        for (uint32_t x = 0; x < WIDTH; x++) {
            int in = covered(x, y);
            *count += (uint32_t)in;
            wrong += memcmp(gpu.memory + TARGET + 256 * y + 4 * x, in ? drawn : background, 4) != 0;
        }
    return wrong;
}

static void report(const char *what, uint32_t wrong, uint32_t count) {
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

/* A smaller triangle drawn twice: instance 1 moved by (16, 4) pixels (NDC 0.5, 0.25). */
static const Vertex small[3] = {
    {33, 41, {F_0_8, F_0_2, F_0_6, F_1}},
    {437, 90, {F_0_8, F_0_2, F_0_6, F_1}},
    {150, 389, {F_0_8, F_0_2, F_0_6, F_1}},
};
static int in_instances(uint32_t x, uint32_t y) {
    Vertex moved[3];
    for (int i = 0; i < 3; i++) moved[i] = (Vertex){small[i].x + 256, small[i].y + 64, {0}};
    return inside(small, x, y) || inside(moved, x, y);
}

static void copy_program(uint32_t at, const uint8_t *start, const uint8_t *end) {
    memcpy(gpu.memory + REGION + at, start, (size_t)(end - start));
}

static void use_programs(uint32_t vertex, uint32_t pixel) {
    uint32_t vertex_stage[2] = {1 | 1u << 4, vertex}, pixel_stage[2] = {1 | 5u << 4, pixel};
    method(SET_PIPELINE_SHADER + 64 * 1, 2, vertex_stage);
    method(SET_PIPELINE_SHADER + 64 * 5, 2, pixel_stage);
}

/* Stream `stream` at VERTICES + `offset`: `stride` bytes an element, `size` bytes in all. */
static void stream(uint32_t stream, uint32_t offset, uint32_t stride, uint32_t size) {
    set(SET_VERTEX_STREAM_A_FORMAT + 16 * stream, stride | 1u << 12);
    set_address(SET_VERTEX_STREAM_A_FORMAT + 4 + 16 * stream, offset);
    set_address(SET_VERTEX_STREAM_LIMIT_A_A + 8 * stream, offset + size - 1);
}

static void draw_arrays(uint32_t count, uint32_t instance_flags) {
    set(BEGIN, TRIANGLES | instance_flags);
    uint32_t range[2] = {0, count}; /* SET_VERTEX_ARRAY_START, DRAW_VERTEX_ARRAY */
    method(SET_VERTEX_ARRAY_START, 2, range);
    set(END, 0);
}

int main(void) {
    uint64_t heap;
    check(svc_set_heap_size(&heap, 0x800000) == 0, "SetHeapSize");
    Handle nv = nv_connect((void *)heap, 0x300000);
    check(gpu_open(&gpu, nv, (void *)(heap + 0x400000), 0x100000) == 0, "channel set up");
    copy_program(PASS_VS, pass_vs, pass_vs_end);
    copy_program(OFFSET_VS, offset_vs, offset_vs_end);
    copy_program(PERSPECTIVE_PS, perspective_ps, perspective_ps_end);
    copy_program(FLAT_PS, flat_ps, flat_ps_end);

    /* The state every draw shares: target 0 (pitch A8B8G8R8), the viewport, the program region, generic 0 and 1
     * as four floats each from stream 0. */
    words[n++] = PB_NONINC(0, SET_OBJECT, 1);
    words[n++] = 0xB197;
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
    set_address(SET_PROGRAM_REGION_A, REGION);
    uint32_t attributes[2] = {0 | FLOAT_R32_G32_B32_A32, 0 | 16u << 7 | FLOAT_R32_G32_B32_A32};
    method(SET_VERTEX_ATTRIBUTE_A, 2, attributes);
    stream(0, VERTICES, 32, 32 * 4);
    run("the 3D state");

    const uint8_t background[4] = {0x11, 0x22, 0x33, 0x44};
    uint32_t count, wrong;

    print("-- a triangle, its colour interpolated with perspective\n");
    fill_target(background);
    put_vertices(triangle, 3);
    use_programs(PASS_VS, PERSPECTIVE_PS);
    draw_arrays(3, 0);
    run("draw");
    const uint8_t colour[4] = {51, 153, 204, 255};
    wrong = wrong_pixels(in_triangle, colour, background, &count);
    report("the pixels whose centres are inside, and only those, take (51, 153, 204, 255)", wrong, count);

    print("-- flat shading: the first vertex's colour\n");
    fill_target(background);
    Vertex coloured[3] = {triangle[0], triangle[1], triangle[2]};
    uint32_t firsts[4] = {F_1, F_0, F_0_2, F_1}, others[4] = {F_0, F_1, F_0, F_0_6};
    memcpy(coloured[0].colour, firsts, 16);
    memcpy(coloured[1].colour, others, 16);
    memcpy(coloured[2].colour, others, 16);
    put_vertices(coloured, 3);
    use_programs(PASS_VS, FLAT_PS);
    draw_arrays(3, 0);
    run("draw");
    const uint8_t first_colour[4] = {255, 0, 51, 255};
    wrong = wrong_pixels(in_triangle, first_colour, background, &count);
    report("every covered pixel takes the provoking (first) vertex's (255, 0, 51, 255)", wrong, count);

    print("-- an indexed rectangle: two triangles sharing an edge, 16-bit indices\n");
    fill_target(background);
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
    set_address(SET_INDEX_BUFFER_A + 8, INDICES + sizeof indices - 1);
    uint32_t index_format[2] = {1 /* TWO_BYTES */, 0 /* FIRST */};
    method(SET_INDEX_BUFFER_A + 16, 2, index_format);
    use_programs(PASS_VS, PERSPECTIVE_PS);
    set(BEGIN, TRIANGLES);
    set(DRAW_INDEX_BUFFER, 6);
    set(END, 0);
    run("draw");
    const uint8_t rectangle_colour[4] = {153, 204, 51, 255};
    wrong = wrong_pixels(in_rectangle, rectangle_colour, background, &count);
    report("the rectangle's pixels, each drawn once, and nothing else", wrong, count);

    print("-- two instances: BEGIN FIRST, then SUBSEQUENT, with a per-instance offset stream\n");
    fill_target(background);
    put_vertices(small, 3);
    uint32_t *offsets = (uint32_t *)(gpu.memory + INSTANCES);
    offsets[0] = F_0;
    offsets[1] = F_0;
    offsets[2] = 0x3F000000u; /* 0.5 */
    offsets[3] = 0x3E800000u; /* 0.25 */
    set(SET_VERTEX_ATTRIBUTE_A + 8, 1 | FLOAT_R32_G32); /* generic 2: stream 1 */
    stream(1, INSTANCES, 8, 16);
    set(SET_VERTEX_STREAM_A_FORMAT + 16 + 12, 1); /* FREQUENCY: a new element every instance */
    set(SET_VERTEX_STREAM_INSTANCE_A + 4, 1);
    use_programs(OFFSET_VS, PERSPECTIVE_PS);
    draw_arrays(3, 0);
    draw_arrays(3, INSTANCE_SUBSEQUENT);
    run("draws");
    const uint8_t small_colour[4] = {204, 51, 153, 255};
    wrong = wrong_pixels(in_instances, small_colour, background, &count);
    report("the triangle and its copy 16 pixels right and 4 down", wrong, count);

    print("-- additive blending (ONE, ONE, ADD) onto the background\n");
    fill_target(background);
    put_vertices(triangle, 3);
    use_programs(PASS_VS, PERSPECTIVE_PS);
    uint32_t equation[3] = {OGL_FUNC_ADD, OGL_ONE, OGL_ONE};
    method(SET_BLEND_COLOR_OP, 3, equation);
    set(SET_BLEND, 1);
    draw_arrays(3, 0);
    set(SET_BLEND, 0);
    run("draw");
    const uint8_t sum[4] = {51 + 0x11, 153 + 0x22, 255, 255};
    wrong = wrong_pixels(in_triangle, sum, background, &count);
    report("covered pixels hold the sums (68, 187, 255, 255), clamped", wrong, count);

    print("-- a write mask of R and A\n");
    fill_target(background);
    set(SET_CT_WRITE, 0x1001);
    draw_arrays(3, 0);
    set(SET_CT_WRITE, 0x1111);
    run("draw");
    const uint8_t masked[4] = {51, 0x22, 0x33, 255};
    wrong = wrong_pixels(in_triangle, masked, background, &count);
    report("covered pixels take R and A, G and B keep the background's", wrong, count);

    nv_close(nv, gpu.channel);
    svc_close_handle(nv);
    print("gpu-draw: ");
    print_u64((uint64_t)failures());
    print(" failures\n");
    return failures() == 0 ? 0 : 1;
}
