/* A compute grid launched as NVN launches one: the compute class (MAXWELL_COMPUTE_B, open-gpu-doc clb1c0.h) with a
 * program region, a QMD of version 01_07 (the bits of clb1c0qmd.h) sent with SEND_PCAS_A and scheduled with
 * SEND_SIGNALING_PCAS_B, constant buffer 0 holding what CUDA's driver puts there (block and grid sizes at 0x8 and
 * 0x14, the parameters at 0x140), and the QMD's semaphore release when the grid is done.
 *
 * The program is ptxas's sm_53 code for gpu/tests/sass/kernels/compare_logic.ptx, its input the one its run on an
 * NVIDIA GPU was given, and the output must be what that GPU wrote (gpu/tests/sass/cuda/results): 128 threads,
 * one block, each writing its 512-byte record. A second launch, of a grid with no blocks, runs nothing and still
 * releases its semaphore.
 *
 * Then textures in a grid (shaders/sample.cs.sasm): 64 threads each fetch a texel of an RGBA8 pitch texture and
 * sample a B5G6R5 block-linear one at a texel's centre, the handles in the constant buffer slot
 * SET_BINDLESS_TEXTURE names, the headers and samplers in the pools SET_TEX_HEADER_POOL_A and
 * SET_TEX_SAMPLER_POOL_A give; every value must be the texel's by its format's definition (UNORM c / (2^n - 1)).
 * Launched again with the QMD's SAMPLER_INDEX VIA_HEADER_INDEX, the handle's sampler bits (pointing at a zeroed
 * sampler) are ignored and the results are the same.
 *
 * Then a surface in a grid (shaders/surface.cs.sasm): 64 threads each load a texel of a 32-bit block-linear surface
 * (SULD), store it plus the thread's number (SUST) and add 0x100 to it (SURED); the loads and the texels after the
 * grid, in the surface's layout, must be what those instructions make of the texels. Then formatted accesses
 * (shaders/formatted.cs.sasm, SULD.P and SUST.P) to surfaces of seven formats, against tables/formatted_surfaces.h
 * (the formats' definitions, computed by tables/formatted_surfaces.py). Then the same accesses as the first to a
 * 1D buffer of 64 texels (shaders/buffer_surface.cs.sasm, target 1D_BUFFER).
 *
 * Last, the Switch 2's compute class (AMPERE_COMPUTE_B, open-gpu-doc clc7c0.h): the same kernel compiled by ptxas
 * for sm_86, launched through a QMD of version 03_00 (clc7c0qmd.h: the program's own address, no program region)
 * with SEND_SIGNALING_PCAS2_B, constant buffer 0 as CUDA's driver lays it out for sm_86 (the parameters at
 * 0x160); the records must again be what the NVIDIA GPU wrote. */
#include "ipc.h"
#include "nv.h"
#include "tandem.h"
#include "texture.h"
#include "tables/formatted_surfaces.h"

/* The kernel, its input and the GPU's output (the first 64 KiB of the result file: the out buffer). */
__asm__(".section .rodata\n"
        ".balign 256\n"
        "kernel_code: .incbin \"../../gpu/tests/sass/sm53/compare_logic.bin\"\n"
        "kernel_end:\n"
        ".balign 4\n"
        "kernel_size: .word kernel_end - kernel_code\n"
        ".balign 256\n"
        "ampere_code: .incbin \"../../gpu/tests/sass/sm86/compare_logic.bin\"\n"
        "ampere_end:\n"
        ".balign 4\n"
        "ampere_size: .word ampere_end - ampere_code\n"
        ".balign 256\n"
        "sample_code: .incbin \"shaders/sample.cs.bin\"\n"
        "sample_end:\n"
        ".balign 4\n"
        "sample_size: .word sample_end - sample_code\n"
        ".balign 256\n"
        "surface_code: .incbin \"shaders/surface.cs.bin\"\n"
        "surface_end:\n"
        ".balign 4\n"
        "surface_size: .word surface_end - surface_code\n"
        ".balign 256\n"
        "formatted_code: .incbin \"shaders/formatted.cs.bin\"\n"
        "formatted_end:\n"
        ".balign 4\n"
        "formatted_size: .word formatted_end - formatted_code\n"
        ".balign 256\n"
        "buffer_surface_code: .incbin \"shaders/buffer_surface.cs.bin\"\n"
        "buffer_surface_end:\n"
        ".balign 4\n"
        "buffer_surface_size: .word buffer_surface_end - buffer_surface_code\n"
        ".balign 16\n"
        "kernel_input: .incbin \"../../gpu/tests/sass/cuda/input.bin\"\n"
        "gpu_output: .incbin \"../../gpu/tests/sass/cuda/results/compare_logic.out\", 0, 65536\n"
        ".previous\n");
#define HIDDEN __attribute__((visibility("hidden")))
HIDDEN extern const uint8_t kernel_code[], kernel_input[], gpu_output[], sample_code[], surface_code[], ampere_code[],
    formatted_code[], buffer_surface_code[];
HIDDEN extern const uint32_t kernel_size, sample_size, surface_size, ampere_size, formatted_size, buffer_surface_size;

#define COMPUTE 1u /* the subchannel NVN gives the compute class */
#define SET_OBJECT 0x0000u
#define SEND_PCAS_A 0x02B4u
#define SEND_SIGNALING_PCAS_B 0x02BCu
#define SEND_SIGNALING_PCAS2_B 0x02C0u /* AMPERE_COMPUTE_B's; PCAS_ACTION 3:0, 2 SCHEDULE */
#define SET_PROGRAM_REGION_A 0x1608u
#define SET_TEX_SAMPLER_POOL_A 0x155Cu
#define SET_TEX_HEADER_POOL_A 0x1574u
#define SET_BINDLESS_TEXTURE 0x2608u
/* SEND_SIGNALING_PCAS_B: INVALIDATE 0:0, SCHEDULE 1:1. */
#define INVALIDATE_AND_SCHEDULE 3u

#define CHANNEL_ALLOC_OBJ_CTX 0xC0104809u

#define BUFFER 0x10000u
/* Offsets in the channel's memory, above the pushbuffers. */
#define PROGRAM_REGION 0x10000u
#define PROGRAM_OFFSET 0x100u
#define CONSTANTS 0x14000u
#define QMD 0x14400u
#define SEMAPHORE 0x14800u
#define SAMPLE_OFFSET 0x2000u /* sample.cs in the program region */
#define SURFACE_OFFSET 0x3000u /* surface.cs in the program region */
#define FORMATTED_OFFSET 0x3400u /* formatted.cs in the program region */
#define BUFFER_SURFACE_OFFSET 0x3800u /* buffer_surface.cs in the program region */
#define HANDLES 0x14C00u      /* constant buffer 2: the texture handles */
#define TICS 0x15000u
#define TSCS 0x15400u
#define RGBA8_TEXELS 0x15800u /* 8 x 8, pitch 32 */
#define B5G6R5_TEXELS 0x15C00u /* 8 x 8, block-linear, one GOB tall */
#define R32_TEXELS 0x15E00u    /* 8 x 8, block-linear, one GOB tall: the surface */
#define R32_BUFFER 0x15F00u    /* 64 texels: the 1D buffer surface */
#define TEXTURE_SLOT 2u
#define AMPERE_PROGRAM 0x16000u /* the sm_86 kernel, at its own address */
#define OUT 0x20000u
#define IN (OUT + BUFFER)
#define GEN (IN + BUFFER)

static uint32_t words[64];
static uint32_t n;
static void emit(uint32_t word) { words[n++] = word; }

static GpuChannel gpu;

static void put_u32(uint8_t *at, uint32_t value) { memcpy(at, &value, 4); }
static void put_u64(uint8_t *at, uint64_t value) { memcpy(at, &value, 8); }

/* A version 01_07 QMD for `grid` blocks of `threads` x 1 x 1 threads of the program at `program`, constant
 * buffer 0 at CONSTANTS, and release 0 writing `payload` (one word) at SEMAPHORE. */
static void build_qmd(uint8_t *qmd, uint32_t program, uint32_t grid, uint32_t threads, uint32_t payload) {
    memset(qmd, 0, 0x100);
    uint64_t constants = gpu.gpu_address + CONSTANTS, semaphore = gpu.gpu_address + SEMAPHORE;
    put_u32(qmd + 0x18, 1u << 10 | 1u << 6);       /* SEMAPHORE_RELEASE_ENABLE0, SM_GLOBAL_CACHING_ENABLE */
    put_u32(qmd + 0x20, program);                   /* PROGRAM_OFFSET */
    put_u32(qmd + 0x30, grid);                      /* CTA_RASTER_WIDTH */
    put_u32(qmd + 0x34, 1u | 1u << 16);             /* CTA_RASTER_HEIGHT, _DEPTH */
    put_u32(qmd + 0x48, 7u | 1u << 4 | threads << 16); /* QMD_VERSION 7, QMD_MAJOR_VERSION 1, CTA_THREAD_DIMENSION0 */
    put_u32(qmd + 0x4C, 1u | 1u << 16);             /* CTA_THREAD_DIMENSION1, 2 */
    put_u32(qmd + 0x50, 1u | 3u << 29);             /* CONSTANT_BUFFER_VALID(0), L1_CONFIGURATION 48 KiB */
    put_u32(qmd + 0x5C, (uint32_t)semaphore);       /* RELEASE0_ADDRESS_LOWER */
    put_u32(qmd + 0x60, (uint32_t)(semaphore >> 32) | 1u << 31); /* _UPPER, STRUCTURE_SIZE ONE_WORD */
    put_u32(qmd + 0x64, payload);                   /* RELEASE0_PAYLOAD */
    put_u32(qmd + 0x74, (uint32_t)constants);       /* CONSTANT_BUFFER_ADDR_LOWER(0) */
    put_u32(qmd + 0x78, (uint32_t)(constants >> 32) | 0x200u << 15); /* _UPPER(0), SIZE(0) 0x200 bytes */
    put_u32(qmd + 0xB4, 4096u);                     /* SHADER_LOCAL_MEMORY_LOW_SIZE */
}

/* Points the compute class at the QMD and schedules it. */
static uint32_t launch(void) {
    uint64_t region = gpu.gpu_address + PROGRAM_REGION, qmd = gpu.gpu_address + QMD;
    n = 0;
    emit(PB_INC(COMPUTE, SET_OBJECT, 1));
    emit(0xB1C0);
    emit(PB_INC(COMPUTE, SET_PROGRAM_REGION_A, 2));
    emit((uint32_t)(region >> 32));
    emit((uint32_t)region);
    emit(PB_INC(COMPUTE, SEND_PCAS_A, 1));
    emit((uint32_t)(qmd >> 8));
    emit(PB_INC(COMPUTE, SEND_SIGNALING_PCAS_B, 1));
    emit(INVALIDATE_AND_SCHEDULE);
    return gpu_run(&gpu, words, n);
}

static uint32_t semaphore(void) {
    uint32_t value;
    memcpy(&value, gpu.memory + SEMAPHORE, 4);
    return value;
}

/* The texels of the two textures, each unlike its neighbours in every channel. */
static void rgba8_texel(uint32_t x, uint32_t y, uint8_t out[4]) {
    out[0] = (uint8_t)(31 * x + 7);
    out[1] = (uint8_t)(29 * y + 11);
    out[2] = (uint8_t)(x * y * 5 + 1);
    out[3] = (uint8_t)(250 - 9 * x - 20 * y);
}
static uint16_t b5g6r5_texel(uint32_t x, uint32_t y) {
    return (uint16_t)(((3 * x + y) & 31) | ((5 * y + x + 9) & 63) << 5 | (31 - 2 * x - y) << 11);
}

/* Counts the threads of sample.cs whose two results are not the texels' values. */
static uint32_t wrong_samples(const uint8_t *memory) {
    uint32_t wrong = 0;
    for (uint32_t t = 0; t < 64; t++) {
        uint32_t x = t & 7, y = t >> 3, want[8], got[8];
        uint8_t c[4];
        rgba8_texel(x, y, c);
        for (int i = 0; i < 4; i++) want[i] = unorm_bits(c[i], 8);
        uint16_t p = b5g6r5_texel(x, y);
        want[4] = unorm_bits(p & 31u, 5);
        want[5] = unorm_bits(p >> 5 & 63u, 6);
        want[6] = unorm_bits(p >> 11, 5);
        want[7] = F_1;
        memcpy(got, memory + OUT + 32 * t, 32);
        wrong += memcmp(got, want, 32) != 0;
    }
    return wrong;
}

static void textures_in_a_grid(uint8_t *memory) {
    print("-- textures in a grid\n");
    const uint32_t rgba[4] = {TIC_R, TIC_G, TIC_B, TIC_A}, rgb1[4] = {TIC_R, TIC_G, TIC_B, TIC_ONE_FLOAT};
    const uint32_t none[4] = {0, 0, 0, 0};
    for (uint32_t y = 0; y < 8; y++)
        for (uint32_t x = 0; x < 8; x++) {
            rgba8_texel(x, y, memory + RGBA8_TEXELS + 32 * y + 4 * x);
            uint16_t p = b5g6r5_texel(x, y);
            memcpy(memory + B5G6R5_TEXELS + block_linear_offset(2 * x, y, 16, 0), &p, 2);
        }
    memset(memory + TICS, 0, 0x800);
    write_texture_header((uint32_t *)(memory + TICS), gpu.gpu_address + RGBA8_TEXELS, TIC_A8B8G8R8, rgba, TIC_PITCH,
                         32 >> 5, 1, 8, 8, TIC_TWO_D_NO_MIPMAP);
    write_texture_header((uint32_t *)(memory + TICS + 32), gpu.gpu_address + B5G6R5_TEXELS, TIC_B5G6R5, rgb1,
                         TIC_BLOCKLINEAR, 0, 1, 8, 8, TIC_TWO_D);
    for (uint32_t index = 0; index < 4; index++)
        write_sampler((uint32_t *)(memory + TSCS + 32 * index), TSC_CLAMP_TO_EDGE, TSC_MIP_NONE, none);
    memcpy(memory + PROGRAM_REGION + SAMPLE_OFFSET, sample_code, sample_size);
    /* Bound handles: texture n's at byte 4n of the slot; TIC index 19:0, TSC index 31:20. */
    memset(memory + HANDLES, 0, 0x100);
    put_u32(memory + HANDLES + 4, 0u | 3u << 20);
    put_u32(memory + HANDLES + 8, 1u | 1u << 20);

    uint64_t tics = gpu.gpu_address + TICS, tscs = gpu.gpu_address + TSCS, handles = gpu.gpu_address + HANDLES;
    for (int via_header = 0; via_header < 2; via_header++) {
        if (via_header) {
            /* Sampler 3 zeroed (an undefined filter: reading it stops the launch). Through the header index,
             * texture 1 takes sampler 0 and texture 2 sampler 1, whatever their handles name. */
            put_u32(memory + HANDLES + 8, 1u | 3u << 20);
            memset(memory + TSCS + 32 * 3, 0, 32);
        }
        memset(memory + OUT, 0xEE, 64 * 32);
        build_qmd(memory + QMD, SAMPLE_OFFSET, 1, 64, 0x7E + (uint32_t)via_header);
        uint8_t *qmd = memory + QMD;
        put_u32(qmd + 0x2C, (uint32_t)via_header << 30); /* SAMPLER_INDEX */
        put_u32(qmd + 0x50, 1u | 1u << TEXTURE_SLOT | 3u << 29); /* CONSTANT_BUFFER_VALID(0, 2) */
        put_u32(qmd + 0x74 + 8 * TEXTURE_SLOT, (uint32_t)handles);
        put_u32(qmd + 0x78 + 8 * TEXTURE_SLOT, (uint32_t)(handles >> 32) | 0x100u << 15);
        n = 0;
        emit(PB_INC(COMPUTE, SET_OBJECT, 1));
        emit(0xB1C0);
        emit(PB_INC(COMPUTE, SET_TEX_SAMPLER_POOL_A, 3));
        emit((uint32_t)(tscs >> 32));
        emit((uint32_t)tscs);
        emit(7); /* MAXIMUM_INDEX */
        emit(PB_INC(COMPUTE, SET_TEX_HEADER_POOL_A, 3));
        emit((uint32_t)(tics >> 32));
        emit((uint32_t)tics);
        emit(7);
        emit(PB_INC(COMPUTE, SET_BINDLESS_TEXTURE, 1));
        emit(TEXTURE_SLOT);
        check(gpu_run(&gpu, words, n) == 0, "the pools and the handles' slot are set");
        put_u64(memory + CONSTANTS + 0x140, gpu.gpu_address + OUT);
        check(launch() == 0, via_header ? "the launch with samplers by header index runs"
                                          : "the launch with independent samplers runs");
        check(semaphore() == 0x7E + (uint32_t)via_header, "its release after the grid");
        uint32_t wrong = wrong_samples(memory);
        check(wrong == 0, "every thread's fetched and sampled texel by the formats' definitions");
        if (wrong) {
            print("   threads that differ: ");
            print_u64(wrong);
            print("\n");
        }
    }
}

/* The surface's texels before the grid. */
static uint32_t r32_texel(uint32_t x, uint32_t y) { return 0x9E3779B9u * (8 * y + x + 1); }

/* Where thread t's texel lies: of the 8 x 8 block-linear surface (x = t & 7, y = t >> 3), or of the 64-texel buffer. */
static uint32_t surface_texel_at(uint32_t t) { return R32_TEXELS + block_linear_offset(4 * (t & 7), t >> 3, 32, 0); }
static uint32_t buffer_texel_at(uint32_t t) { return R32_BUFFER + 4 * t; }

/* Fills each thread's texel (at `texel_at(t)`) with r32_texel(t & 7, t >> 3) and runs the 64 threads of a surface
 * kernel (its `size` bytes of `code` at `offset` in the program region, releasing `release`): each thread loads its
 * texel (SULD) into out + 4 t, stores it plus the thread's number (SUST) and adds 0x100 to it (SURED); the loads
 * and the texels after the grid, where they lie, must be what those instructions make of the texels. */
static void run_surface_kernel(uint8_t *memory, uint32_t offset, const uint8_t *code, uint32_t size, uint32_t release,
                               uint32_t (*texel_at)(uint32_t)) {
    for (uint32_t t = 0; t < 64; t++) put_u32(memory + texel_at(t), r32_texel(t & 7, t >> 3));
    memcpy(memory + PROGRAM_REGION + offset, code, size);
    memset(memory + OUT, 0xEE, 64 * 4);
    uint64_t handles = gpu.gpu_address + HANDLES;
    build_qmd(memory + QMD, offset, 1, 64, release);
    uint8_t *qmd = memory + QMD;
    put_u32(qmd + 0x50, 1u | 1u << TEXTURE_SLOT | 3u << 29); /* CONSTANT_BUFFER_VALID(0, 2) */
    put_u32(qmd + 0x74 + 8 * TEXTURE_SLOT, (uint32_t)handles);
    put_u32(qmd + 0x78 + 8 * TEXTURE_SLOT, (uint32_t)(handles >> 32) | 0x100u << 15);
    check(launch() == 0, "the launch runs");
    check(semaphore() == release, "its release after the grid");
    uint32_t wrong_loads = 0, wrong_texels = 0;
    for (uint32_t t = 0; t < 64; t++) {
        uint32_t loaded, texel, before = r32_texel(t & 7, t >> 3);
        memcpy(&loaded, memory + OUT + 4 * t, 4);
        memcpy(&texel, memory + texel_at(t), 4);
        wrong_loads += loaded != before;
        wrong_texels += texel != before + t + 0x100u;
    }
    check(wrong_loads == 0, "every thread loaded its texel (SULD)");
    check(wrong_texels == 0, "every texel is its value plus the thread's number and 0x100 (SUST, SURED), in place");
}

/* After textures_in_a_grid, whose pools and handle slot it keeps. */
static void surface_in_a_grid(uint8_t *memory) {
    print("-- a surface in a grid\n");
    const uint32_t red[4] = {TIC_R, TIC_ZERO, TIC_ZERO, TIC_ONE_FLOAT};
    write_texture_header((uint32_t *)(memory + TICS + 64), gpu.gpu_address + R32_TEXELS, TIC_R32, red, TIC_BLOCKLINEAR,
                         0, 1, 8, 8, TIC_TWO_D);
    put_u32(memory + HANDLES + 12, 2u); /* header 2; a surface has no sampler */
    run_surface_kernel(memory, SURFACE_OFFSET, surface_code, surface_size, 0x5F, surface_texel_at);
}

/* After surface_in_a_grid, whose pools and handle slot it keeps: a 1D buffer of 64 R32 texels (header 7:
 * HEADER_VERSION ONE_D_BUFFER, WIDTH_MINUS_ONE's low half in W4[15:0], TEXTURE_TYPE ONE_D_BUFFER) accessed as
 * surface_in_a_grid's surface is, thread t at texel t (shaders/buffer_surface.cs.sasm: SULD, SUST and SURED
 * 1D_BUFFER). */
static void buffer_surface_in_a_grid(uint8_t *memory) {
    print("-- a 1D buffer surface in a grid\n");
    const uint32_t red[4] = {TIC_R, TIC_ZERO, TIC_ZERO, TIC_ONE_FLOAT};
    uint32_t *header = (uint32_t *)(memory + TICS + 32 * 7);
    write_texture_header(header, gpu.gpu_address + R32_BUFFER, TIC_R32, red, TIC_ONE_D_BUFFER, 0, 1, 1, 1,
                         TIC_ONE_D_BUFFER_TYPE);
    header[3] = 0;
    header[4] = (64 - 1) | TIC_ONE_D_BUFFER_TYPE << 23;
    header[5] = 0;
    put_u32(memory + HANDLES + 24, 7u);
    run_surface_kernel(memory, BUFFER_SURFACE_OFFSET, buffer_surface_code, buffer_surface_size, 0x6F, buffer_texel_at);
}

/* After surface_in_a_grid, whose pools and handle slot it keeps: for each format of formatted_surfaces.h, three
 * 4 x 1 pitch surfaces of it (A, B and C: headers 4, 5 and 6) and a block of four threads of formatted.cs, which
 * loads A's texels formatted (SULD.P: all four components, then G and A alone), stores four words into B's
 * (SUST.P) and two into C's R and B (mask 0x5). The loads must be the texels' values by the format's definition;
 * B's texels the words converted into the format; C's the same in R and B, G and A as they were. */
static void formatted_surfaces(uint8_t *memory) {
    print("-- formatted surface accesses\n");
    const uint32_t rgba[4] = {TIC_R, TIC_G, TIC_B, TIC_A};
    const uint32_t surfaces = GEN, inputs = GEN + 0x300, pitch = 32;
    memcpy(memory + PROGRAM_REGION + FORMATTED_OFFSET, formatted_code, formatted_size);
    for (uint32_t s = 0; s < 3; s++) put_u32(memory + HANDLES + 12 + 4 * s, 4 + s);
    uint64_t handles = gpu.gpu_address + HANDLES;
    for (uint32_t f = 0; f < sizeof formatted_cases / sizeof formatted_cases[0]; f++) {
        const FormattedCase *c = &formatted_cases[f];
        print("   ");
        print(c->name);
        print("\n");
        for (uint32_t s = 0; s < 3; s++) {
            uint32_t *header = (uint32_t *)(memory + TICS + 32 * (4 + s));
            write_texture_header(header, gpu.gpu_address + surfaces + 0x100 * s, c->code, rgba, TIC_PITCH, pitch >> 5,
                                 1, 4, 1, TIC_TWO_D_NO_MIPMAP);
            /* Every component of the case's data type (R_DATA_TYPE at 9:7, G at 12:10, B at 15:13, A at 18:16). */
            uint32_t types = c->data_type * (1u | 1u << 3 | 1u << 6 | 1u << 9);
            header[0] = (header[0] & ~0x7FF80u) | types << 7;
            for (uint32_t t = 0; t < 4; t++) memcpy(memory + surfaces + 0x100 * s + c->bytes * t, c->texels[t], c->bytes);
        }
        memset(memory + surfaces + 0x100, 0xEE, 0x100); /* B: nothing the stores could leave by chance */
        memcpy(memory + inputs, c->inputs, sizeof c->inputs);
        memset(memory + OUT, 0xEE, 4 * 32);
        put_u64(memory + CONSTANTS + 0x140, gpu.gpu_address + OUT);
        put_u64(memory + CONSTANTS + 0x148, gpu.gpu_address + inputs);
        build_qmd(memory + QMD, FORMATTED_OFFSET, 1, 4, 0xF0 + f);
        uint8_t *qmd = memory + QMD;
        put_u32(qmd + 0x50, 1u | 1u << TEXTURE_SLOT | 3u << 29); /* CONSTANT_BUFFER_VALID(0, 2) */
        put_u32(qmd + 0x74 + 8 * TEXTURE_SLOT, (uint32_t)handles);
        put_u32(qmd + 0x78 + 8 * TEXTURE_SLOT, (uint32_t)(handles >> 32) | 0x100u << 15);
        check(launch() == 0, "the launch runs");
        check(semaphore() == 0xF0 + f, "its release after the grid");
        uint32_t wrong_loads = 0, wrong_masked_loads = 0, wrong_stores = 0, wrong_partial = 0;
        for (uint32_t t = 0; t < 4; t++) {
            uint32_t loaded[6];
            memcpy(loaded, memory + OUT + 32 * t, sizeof loaded);
            wrong_loads += memcmp(loaded, c->loads[t], 16) != 0;
            wrong_masked_loads += loaded[4] != c->loads[t][1] || loaded[5] != c->loads[t][3];
            wrong_stores += memcmp(memory + surfaces + 0x100 + c->bytes * t, c->stored[t], c->bytes) != 0;
            wrong_partial += memcmp(memory + surfaces + 0x200 + c->bytes * t, c->partial[t], c->bytes) != 0;
        }
        check(wrong_loads == 0, "each texel's four components by the format's definition (SULD.P)");
        check(wrong_masked_loads == 0, "G and A alone into two registers (SULD.P, mask 0xa)");
        check(wrong_stores == 0, "each texel the four words converted into the format (SUST.P)");
        check(wrong_partial == 0, "R and B converted, G and A as they were (SUST.P, mask 0x5)");
    }
}

/* A version 03_00 QMD (AMPERE_COMPUTE_B's) for one block of 128 x 1 x 1 threads of the program at `program`,
 * constant buffer 0 at CONSTANTS, and release 0 writing `payload` (one word) at SEMAPHORE. */
static void build_qmd_v3(uint8_t *qmd, uint64_t program, uint32_t payload) {
    memset(qmd, 0, 0x100);
    uint64_t constants = gpu.gpu_address + CONSTANTS, semaphore = gpu.gpu_address + SEMAPHORE;
    put_u32(qmd + 0x30, 1);                          /* CTA_RASTER_WIDTH */
    put_u32(qmd + 0x34, 1);                          /* CTA_RASTER_HEIGHT */
    put_u32(qmd + 0x38, 1);                          /* CTA_RASTER_DEPTH */
    put_u32(qmd + 0x48, 0u | 3u << 4 | 128u << 16);  /* QMD_VERSION 0, QMD_MAJOR_VERSION 3, CTA_THREAD_DIMENSION0 */
    put_u32(qmd + 0x4C, 1u | 1u << 16);              /* CTA_THREAD_DIMENSION1, 2 */
    put_u32(qmd + 0x50, 1u);                         /* CONSTANT_BUFFER_VALID(0) */
    put_u32(qmd + 0x5C, 4096u);                      /* SHADER_LOCAL_MEMORY_LOW_SIZE */
    put_u32(qmd + 0x60, (uint32_t)semaphore);        /* RELEASE0_ADDRESS_LOWER */
    put_u32(qmd + 0x64, (uint32_t)(semaphore >> 32) | 1u << 23 | 1u << 30); /* _UPPER, RELEASE0_ENABLE, ONE_WORD */
    put_u32(qmd + 0x68, payload);                    /* RELEASE0_PAYLOAD_LOWER */
    put_u32(qmd + 0x80, (uint32_t)constants);        /* CONSTANT_BUFFER_ADDR_LOWER(0) */
    put_u32(qmd + 0x84, (uint32_t)(constants >> 32) | (0x200u >> 4) << 19); /* _UPPER(0), SIZE_SHIFTED4(0) */
    put_u32(qmd + 0xC0, (uint32_t)program);          /* PROGRAM_ADDRESS_LOWER */
    put_u32(qmd + 0xC4, (uint32_t)(program >> 32));  /* PROGRAM_ADDRESS_UPPER */
}

static void ampere_compute(uint8_t *memory) {
    print("-- compare_logic on AMPERE_COMPUTE_B\n");
    struct {
        uint32_t class_number, flags;
        uint64_t object;
    } object = {0xC7C0, 0, 0};
    check(nv_ioctl(gpu.nv, gpu.channel, CHANNEL_ALLOC_OBJ_CTX, &object, sizeof object, 0) == 0, "AllocObjCtx C7C0");
    memcpy(memory + AMPERE_PROGRAM, ampere_code, ampere_size);
    memset(memory + OUT, 0, BUFFER);
    /* Constant buffer 0 for sm_86: the block and grid at 0x0 and 0xc, the shared and local windows at 0x18 and
     * 0x20, local memory a thread at 0x28, the parameters at 0x160. */
    uint8_t *constants = memory + CONSTANTS;
    memset(constants, 0, 0x200);
    put_u32(constants + 0x00, 128);
    put_u32(constants + 0x04, 1);
    put_u32(constants + 0x08, 1);
    put_u32(constants + 0x0C, 1);
    put_u32(constants + 0x10, 1);
    put_u32(constants + 0x14, 1);
    put_u64(constants + 0x18, 1ull << 48);
    put_u64(constants + 0x20, 2ull << 48);
    put_u32(constants + 0x28, 4096);
    put_u64(constants + 0x160, gpu.gpu_address + OUT);
    put_u64(constants + 0x168, gpu.gpu_address + IN);
    build_qmd_v3(memory + QMD, gpu.gpu_address + AMPERE_PROGRAM, 0xA4);
    uint64_t qmd = gpu.gpu_address + QMD;
    n = 0;
    emit(PB_INC(COMPUTE, SET_OBJECT, 1));
    emit(0xC7C0);
    emit(PB_INC(COMPUTE, SEND_PCAS_A, 1));
    emit((uint32_t)(qmd >> 8));
    emit(PB_INC(COMPUTE, SEND_SIGNALING_PCAS2_B, 1));
    emit(2); /* SCHEDULE */
    check(gpu_run(&gpu, words, n) == 0, "the launch runs and its fence is reached");
    check(semaphore() == 0xA4, "the QMD's release after the grid");
    uint32_t wrong_records = 0;
    for (uint32_t thread = 0; thread < 128; thread++)
        wrong_records += memcmp(memory + OUT + 512 * thread, gpu_output + 512 * thread, 512) != 0;
    check(wrong_records == 0, "every thread's record as the NVIDIA GPU wrote it");
}

int main(void) {
    uint64_t heap;
    check(svc_set_heap_size(&heap, 0x800000) == 0, "SetHeapSize");
    Handle nv = nv_connect((void *)heap, 0x300000);
    check(gpu_open(&gpu, nv, (void *)(heap + 0x400000), 0x100000) == 0, "channel set up");
    struct {
        uint32_t class_number, flags;
        uint64_t object;
    } object = {0xB1C0, 0, 0};
    check(nv_ioctl(nv, gpu.channel, CHANNEL_ALLOC_OBJ_CTX, &object, sizeof object, 0) == 0, "AllocObjCtx B1C0");
    uint8_t *memory = gpu.memory;

    print("-- compare_logic's 128 threads\n");
    memcpy(memory + PROGRAM_REGION + PROGRAM_OFFSET, kernel_code, kernel_size);
    memcpy(memory + IN, kernel_input, BUFFER);
    memset(memory + OUT, 0, BUFFER);
    memset(memory + GEN, 0, BUFFER);
    uint8_t *constants = memory + CONSTANTS;
    memset(constants, 0, 0x200);
    put_u32(constants + 0x08, 128); /* the block */
    put_u32(constants + 0x0C, 1);
    put_u32(constants + 0x10, 1);
    put_u32(constants + 0x14, 1); /* the grid */
    put_u32(constants + 0x18, 1);
    put_u32(constants + 0x1C, 1);
    put_u32(constants + 0x20, 4096); /* local memory a thread */
    put_u64(constants + 0x140, gpu.gpu_address + OUT);
    put_u64(constants + 0x148, gpu.gpu_address + IN);
    build_qmd(memory + QMD, PROGRAM_OFFSET, 1, 128, 0x600D);
    check(launch() == 0, "the launch runs and its fence is reached");
    check(semaphore() == 0x600D, "the QMD's release after the grid");
    uint32_t wrong_records = 0;
    for (uint32_t thread = 0; thread < 128; thread++)
        wrong_records += memcmp(memory + OUT + 512 * thread, gpu_output + 512 * thread, 512) != 0;
    check(wrong_records == 0, "every thread's record as the NVIDIA GPU wrote it");
    if (wrong_records) {
        print("   records that differ: ");
        print_u64(wrong_records);
        print("\n");
    }
    check(memcmp(memory + IN, kernel_input, BUFFER) == 0, "the input as it was");

    print("-- a grid of no blocks\n");
    memset(memory + OUT, 0, BUFFER);
    build_qmd(memory + QMD, PROGRAM_OFFSET, 0, 128, 0xE);
    check(launch() == 0, "the launch runs");
    check(semaphore() == 0xE, "its release still comes");
    uint32_t written = 0;
    for (uint32_t i = 0; i < BUFFER; i++) written += memory[OUT + i] != 0;
    check(written == 0, "and nothing ran");

    textures_in_a_grid(memory);
    surface_in_a_grid(memory);
    formatted_surfaces(memory);
    buffer_surface_in_a_grid(memory);
    ampere_compute(memory);

    nv_close(nv, gpu.channel);
    svc_close_handle(nv);
    print("gpu-compute: ");
    print_u64((uint64_t)failures());
    print(" failures\n");
    return failures() == 0 ? 0 : 1;
}
