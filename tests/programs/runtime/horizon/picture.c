/* platform_show_picture on Horizon: the picture goes to the GPU in the pushbuffer (inline-to-memory, into a pitch
 * texture), and the 3D engine draws it magnified into a block-linear frame over a cleared background: a quad of
 * two triangles with the test shaders pass.vs (position, texture coordinates) and texture.ps (TEXS 2D.LZ), the
 * texture sampled nearest. The frame goes to the display through vi's IGraphicBufferProducer. `tandem run
 * --headless --frames DIR` writes what the display shows. Methods as open-gpu-doc's clb197.h and cla140.h name
 * them; the texture header and sampler as clb097tex.h lays them out. */
#include "nv.h"
#include "tandem.h"
#include "vi.h"

__asm__(".section .rodata\n"
        ".balign 16\n"
        "picture_vs: .incbin \"shaders/pass.vs.bin\"\n"
        "picture_vs_end:\n"
        "picture_ps: .incbin \"shaders/texture.ps.bin\"\n"
        "picture_ps_end:\n"
        ".previous\n");
__attribute__((visibility("hidden"))) extern const uint8_t picture_vs[], picture_vs_end[], picture_ps[],
    picture_ps_end[];

/* Frames: blocks 16 GOBs (128 rows) tall, as libnx lays them out. */
#define BLOCK_HEIGHT_LOG2 4u
/* Where things are in the channel's memory (the frame first, after the pushbuffers). */
#define FRAME PB_AREA
#define TEXTURE 0x40000u
#define PROGRAMS 0x48000u /* the program region: the vertex program, the pixel program 0x200 bytes on */
#define VERTICES 0x49000u
#define TEXTURE_HEADERS 0x4A000u
#define SAMPLERS 0x4A100u
#define HANDLES 0x4A200u /* the pixel stage's constant buffer 0: the texture's handle */

#define F_1 0x3F800000u
#define F_MINUS_1 0xBF800000u
#define F_HALF 0x3F000000u

static uint32_t words[2700];
static uint32_t n;

static void method(uint32_t subchannel, uint32_t offset, uint32_t count, const uint32_t *values) {
    words[n++] = PB_INC(subchannel, offset, count);
    for (uint32_t i = 0; i < count; i++) words[n++] = values[i];
}

static void set(uint32_t offset, uint32_t value) { method(0, offset, 1, &value); }

/* An address method pair (upper, lower) of the 3D class. */
static void set_address(uint32_t offset, uint64_t address) {
    uint32_t values[2] = {(uint32_t)(address >> 32), (uint32_t)address};
    method(0, offset, 2, values);
}

/* Integer n as single-precision bits (|n| < 2^24). */
static uint32_t float_of(uint32_t value) {
    if (value == 0) return 0;
    int top = 31 - __builtin_clz(value);
    return (uint32_t)(127 + top) << 23 | ((value << (23 - top)) & 0x7FFFFFu);
}

int platform_show_picture(const uint32_t *rgba, uint32_t width, uint32_t height, uint32_t scale) {
    uint32_t shown_width = width * scale, shown_height = height * scale, pitch_in = (width * 4 + 31) & ~31u;
    if (shown_width > 320 || width * height + 64 > sizeof words / sizeof words[0] || pitch_in * height > 0x8000)
        return 1;
    uint64_t heap;
    if (svc_set_heap_size(&heap, 0x800000) != 0) return 1;
    Handle nv = nv_connect((void *)heap, 0x300000);
    GpuChannel gpu;
    if (gpu_open(&gpu, nv, (void *)(heap + 0x400000), 0x200000) != 0) return 1;
    ViLayer layer;
    uint32_t default_width, default_height;
    if (vi_open_stray_layer(&layer) != 0 || bq_connect(&layer, 2, &default_width, &default_height) != 0) return 1;
    uint32_t pitch = (shown_width * 4 + 63) & ~63u;
    int32_t slot;
    if (bq_set_preallocated_buffer(&layer, 0, gpu.nvmap_id, FRAME, pitch / 4, shown_height, BLOCK_HEIGHT_LOG2) != 0 ||
        bq_dequeue_buffer(&layer, pitch / 4, shown_height, &slot) != 0 || bq_request_buffer(&layer, slot) != 0)
        return 1;
    uint64_t base = gpu.gpu_address;

    /* The picture into the pitch texture (KEPLER_INLINE_TO_MEMORY_B on subchannel 2). */
    n = 0;
    words[n++] = PB_NONINC(2, 0x0000, 1);
    words[n++] = 0xA140;
    uint32_t destination[5] = {width * 4, height, (uint32_t)((base + TEXTURE) >> 32), (uint32_t)(base + TEXTURE),
                               pitch_in}; /* LINE_LENGTH_IN, LINE_COUNT, OFFSET_OUT_UPPER, OFFSET_OUT, PITCH_OUT */
    method(2, 0x0180, 5, destination);
    uint32_t launch = 1; /* LAUNCH_DMA: a pitch destination */
    method(2, 0x01B0, 1, &launch);
    words[n++] = PB_NONINC(2, 0x01B4, width * height);
    memcpy(words + n, rgba, 4 * width * height);
    n += width * height;
    if (gpu_run(&gpu, words, n) != 0) return 1;

    /* What the draw reads: the programs, the quad's vertices (position, then texture coordinates), the texture's
     * header, sampler and handle. */
    memcpy(gpu.memory + PROGRAMS, picture_vs, (size_t)(picture_vs_end - picture_vs));
    memcpy(gpu.memory + PROGRAMS + 0x200, picture_ps, (size_t)(picture_ps_end - picture_ps));
    const uint32_t quad[4][8] = {
        {F_MINUS_1, F_MINUS_1, F_HALF, F_1, 0, 0, 0, F_1},
        {F_1, F_MINUS_1, F_HALF, F_1, F_1, 0, 0, F_1},
        {F_MINUS_1, F_1, F_HALF, F_1, 0, F_1, 0, F_1},
        {F_1, F_1, F_HALF, F_1, F_1, F_1, 0, F_1},
    };
    memcpy(gpu.memory + VERTICES, quad, sizeof quad);
    uint32_t *header = (uint32_t *)(gpu.memory + TEXTURE_HEADERS);
    uint64_t texels = base + TEXTURE;
    header[0] = 0x08 | 2u << 7 | 2u << 10 | 2u << 13 | 2u << 16 | 2u << 19 | 3u << 22 | 4u << 25 | 5u << 28;
    header[1] = (uint32_t)texels;              /* A8B8G8R8, UNORM, sources R G B A */
    header[2] = (uint32_t)(texels >> 32) | 2u << 21; /* HEADER_VERSION PITCH */
    header[3] = pitch_in >> 5;
    header[4] = (width - 1) | 7u << 23 | 7u << 29; /* TWO_D_NO_MIPMAP, the sampler's border */
    header[5] = (height - 1) | 1u << 31;           /* NORMALIZED_COORDS */
    header[6] = header[7] = 0;
    uint32_t *sampler = (uint32_t *)(gpu.memory + SAMPLERS);
    sampler[0] = 2 | 2u << 3 | 2u << 6 | 1u << 13; /* CLAMP_TO_EDGE; sRGB conversion allowed */
    sampler[1] = 1 | 1u << 4 | 1u << 6;            /* MAG_POINT, MIN_POINT, MIP_NONE */
    for (int i = 2; i < 8; i++) sampler[i] = 0;

    /* The 3D class: the frame as colour target 0, cleared to black; a viewport of the picture's size. */
    n = 0;
    words[n++] = PB_NONINC(0, 0x0000, 1);
    words[n++] = 0xB197;
    set_address(0x0800, base + FRAME); /* SET_COLOR_TARGET_A/B */
    uint32_t target[4] = {pitch / 4, shown_height, 0xD5 /* A8B8G8R8 */, BLOCK_HEIGHT_LOG2 << 4};
    method(0, 0x0808, 4, target);
    set(0x121C, 1);      /* SET_CT_SELECT: one target, target 0 */
    set(0x1A00, 0x1111); /* SET_CT_WRITE: R, G, B, A */
    uint32_t black[4] = {0, 0, 0, F_1};
    method(0, 0x0D80, 4, black); /* SET_COLOR_CLEAR_VALUE */
    set(0x19D0, 0xFu << 2);     /* CLEAR_SURFACE: R, G, B, A of target 0 */
    uint32_t viewport[6] = {float_of(shown_width / 2), float_of(shown_height / 2), F_HALF,
                            float_of(shown_width / 2), float_of(shown_height / 2), F_HALF};
    method(0, 0x0A00, 6, viewport); /* SET_VIEWPORT_SCALE_X..Z, SET_VIEWPORT_OFFSET_X..Z */
    set(0x192C, 1);                 /* SET_VIEWPORT_SCALE_OFFSET */
    uint32_t clip[2] = {shown_width << 16, shown_height << 16};
    method(0, 0x0C00, 2, clip); /* SET_VIEWPORT_CLIP_HORIZONTAL/VERTICAL */
    method(0, 0x0FF4, 2, clip); /* SET_SURFACE_CLIP_HORIZONTAL/VERTICAL */
    set(0x0D7C, 1);             /* SET_VIEWPORT_Z_CLIP: 0 to w */
    set(0x037C, 1);             /* SET_RASTER_ENABLE */
    /* The programs: vertex B in pipeline slot 1, pixel in slot 5. */
    set_address(0x1608, base + PROGRAMS); /* SET_PROGRAM_REGION_A/B */
    uint32_t vertex_stage[2] = {1 | 1u << 4, 0}, pixel_stage[2] = {1 | 5u << 4, 0x200};
    method(0, 0x2000 + 64 * 1, 2, vertex_stage); /* SET_PIPELINE_SHADER, SET_PIPELINE_PROGRAM */
    method(0, 0x2000 + 64 * 5, 2, pixel_stage);
    /* Generics 0 and 1: four floats each from stream 0, 32 bytes a vertex. */
    uint32_t attributes[2] = {1u << 21 | 7u << 27, 16u << 7 | 1u << 21 | 7u << 27};
    method(0, 0x1160, 2, attributes);  /* SET_VERTEX_ATTRIBUTE_A(0, 1): R32_G32_B32_A32 FLOAT */
    set(0x1C00, 32 | 1u << 12);        /* SET_VERTEX_STREAM_A_FORMAT: stride 32, enabled */
    set_address(0x1C04, base + VERTICES); /* SET_VERTEX_STREAM_A_LOCATION */
    set_address(0x1F00, base + VERTICES + sizeof quad - 1); /* SET_VERTEX_STREAM_LIMIT_A_A/B */
    /* The texture: the pools, the handle (header 0, sampler 0) in constant buffer 0 of the pixel stage. */
    set_address(0x1574, base + TEXTURE_HEADERS); /* SET_TEX_HEADER_POOL_A/B */
    set(0x157C, 0);                              /* SET_TEX_HEADER_POOL_C: maximum index */
    set_address(0x155C, base + SAMPLERS);        /* SET_TEX_SAMPLER_POOL_A/B */
    set(0x1564, 0);
    set(0x2608, 0); /* SET_BINDLESS_TEXTURE: constant buffer 0 */
    uint32_t selector[3] = {256, (uint32_t)((base + HANDLES) >> 32), (uint32_t)(base + HANDLES)};
    method(0, 0x2380, 3, selector); /* SET_CONSTANT_BUFFER_SELECTOR_A-C */
    set(0x238C, 0);                 /* LOAD_CONSTANT_BUFFER_OFFSET */
    set(0x2390, 0);                 /* LOAD_CONSTANT_BUFFER(0): the handle */
    set(0x2410 + 32 * 4, 1);        /* BIND_GROUP_CONSTANT_BUFFER(4): valid, slot 0 */
    /* The quad: a triangle strip of four vertices. */
    set(0x1618, 5); /* BEGIN: TRIANGLE_STRIP */
    uint32_t range[2] = {0, 4};
    method(0, 0x0D74, 2, range); /* SET_VERTEX_ARRAY_START, DRAW_VERTEX_ARRAY */
    set(0x1614, 0);              /* END */
    if (gpu_run(&gpu, words, n) != 0) return 1;

    int failed = bq_queue_buffer(&layer, slot) != 0 || bq_disconnect(&layer, 2) != 0;
    vi_close(&layer);
    nv_close(nv, gpu.channel);
    svc_close_handle(nv);
    return failed;
}
