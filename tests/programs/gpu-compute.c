/* A compute grid launched as NVN launches one: the compute class (MAXWELL_COMPUTE_B, open-gpu-doc clb1c0.h) with a
 * program region, a QMD of version 01_07 (the bits of clb1c0qmd.h) sent with SEND_PCAS_A and scheduled with
 * SEND_SIGNALING_PCAS_B, constant buffer 0 holding what CUDA's driver puts there (block and grid sizes at 0x8 and
 * 0x14, the parameters at 0x140), and the QMD's semaphore release when the grid is done.
 *
 * The program is ptxas's sm_53 code for gpu/tests/sass/kernels/compare_logic.ptx, its input the one its run on an
 * NVIDIA GPU was given, and the output must be what that GPU wrote (gpu/tests/sass/cuda/results): 128 threads,
 * one block, each writing its 512-byte record. A second launch, of a grid with no blocks, runs nothing and still
 * releases its semaphore. */
#include "ipc.h"
#include "nv.h"
#include "tandem.h"

/* The kernel, its input and the GPU's output (the first 64 KiB of the result file: the out buffer). */
__asm__(".section .rodata\n"
        ".balign 256\n"
        "kernel_code: .incbin \"../../gpu/tests/sass/sm53/compare_logic.bin\"\n"
        "kernel_end:\n"
        ".balign 4\n"
        "kernel_size: .word kernel_end - kernel_code\n"
        ".balign 16\n"
        "kernel_input: .incbin \"../../gpu/tests/sass/cuda/input.bin\"\n"
        "gpu_output: .incbin \"../../gpu/tests/sass/cuda/results/compare_logic.out\", 0, 65536\n"
        ".previous\n");
#define HIDDEN __attribute__((visibility("hidden")))
HIDDEN extern const uint8_t kernel_code[], kernel_input[], gpu_output[];
HIDDEN extern const uint32_t kernel_size;

#define COMPUTE 1u /* the subchannel NVN gives the compute class */
#define SET_OBJECT 0x0000u
#define SEND_PCAS_A 0x02B4u
#define SEND_SIGNALING_PCAS_B 0x02BCu
#define SET_PROGRAM_REGION_A 0x1608u
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
#define OUT 0x20000u
#define IN (OUT + BUFFER)
#define GEN (IN + BUFFER)

static uint32_t words[64];
static uint32_t n;
static void emit(uint32_t word) { words[n++] = word; }

static GpuChannel gpu;

static void put_u32(uint8_t *at, uint32_t value) { memcpy(at, &value, 4); }
static void put_u64(uint8_t *at, uint64_t value) { memcpy(at, &value, 8); }

/* A version 01_07 QMD for `grid` blocks of 128 x 1 x 1 threads, constant buffer 0 at CONSTANTS, and release 0
 * writing `payload` (one word) at SEMAPHORE. */
static void build_qmd(uint8_t *qmd, uint32_t grid, uint32_t payload) {
    memset(qmd, 0, 0x100);
    uint64_t constants = gpu.gpu_address + CONSTANTS, semaphore = gpu.gpu_address + SEMAPHORE;
    put_u32(qmd + 0x18, 1u << 10 | 1u << 6);       /* SEMAPHORE_RELEASE_ENABLE0, SM_GLOBAL_CACHING_ENABLE */
    put_u32(qmd + 0x20, PROGRAM_OFFSET);            /* PROGRAM_OFFSET */
    put_u32(qmd + 0x30, grid);                      /* CTA_RASTER_WIDTH */
    put_u32(qmd + 0x34, 1u | 1u << 16);             /* CTA_RASTER_HEIGHT, _DEPTH */
    put_u32(qmd + 0x48, 7u | 1u << 4 | 128u << 16); /* QMD_VERSION 7, QMD_MAJOR_VERSION 1, CTA_THREAD_DIMENSION0 */
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
    build_qmd(memory + QMD, 1, 0x600D);
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
    build_qmd(memory + QMD, 0, 0xE);
    check(launch() == 0, "the launch runs");
    check(semaphore() == 0xE, "its release still comes");
    uint32_t written = 0;
    for (uint32_t i = 0; i < BUFFER; i++) written += memory[OUT + i] != 0;
    check(written == 0, "and nothing ran");

    nv_close(nv, gpu.channel);
    svc_close_handle(nv);
    print("gpu-compute: ");
    print_u64((uint64_t)failures());
    print(" failures\n");
    return failures() == 0 ? 0 : 1;
}
