/* The copy engine (MAXWELL_DMA_COPY_A, open-gpu-doc clb0b5.h) driven from the guest: a pitch image swizzled into a
 * block-linear surface and back, a memset by component remap, and a swizzle of components, each checked from the
 * CPU: the block-linear bytes at the places the Tegra X1 TRM's GOB layout (the runtime's block_linear_offset)
 * gives them. Then copies through a sparse reservation that nvhost-as-gpu's Remap maps pages into: a remapped page
 * reads the memory behind it, a sparse page with nothing mapped reads zeros. Last, the Switch 2's copy class
 * (AMPERE_DMA_COPY_B, clc7b5.h: the same methods) swizzles another image into a surface of blocks four GOBs
 * tall. */
#include "ipc.h"
#include "nv.h"
#include "tandem.h"

#define COPY 4u /* the subchannel libnx and NVN give the copy engine */
#define OFFSET_IN_UPPER 0x0400u
#define PITCH_IN 0x0410u
#define LINE_LENGTH_IN 0x0418u
#define LAUNCH_DMA 0x0300u
#define SET_REMAP_CONST_A 0x0700u
#define SET_DST_BLOCK_SIZE 0x070Cu
#define SET_SRC_BLOCK_SIZE 0x0728u
/* LAUNCH_DMA: DATA_TRANSFER_TYPE pipelined, SRC/DST_MEMORY_LAYOUT pitch, MULTI_LINE_ENABLE, REMAP_ENABLE. */
#define TRANSFER 1u
#define SRC_PITCH (1u << 7)
#define DST_PITCH (1u << 8)
#define MULTI_LINE (1u << 9)
#define REMAP (1u << 10)

#define AS_ALLOC_SPACE 0xC0184102u
#define AS_FREE_SPACE 0xC0104103u
/* Remap's size is that of its entries. */
#define AS_REMAP(bytes) (0xC0004114u | (uint32_t)(bytes) << 16)
#define SPARSE 2u

static uint32_t words[96];
static uint32_t n;
static void emit(uint32_t word) { words[n++] = word; }

static GpuChannel gpu;

static void run(const char *what) {
    expect(what, gpu_run(&gpu, words, n), 0);
    n = 0;
}

/* OFFSET_IN/OUT, PITCH_IN/OUT, LINE_LENGTH_IN, LINE_COUNT. */
static void lines(uint32_t source, uint32_t destination, uint32_t pitch_in, uint32_t pitch_out, uint32_t length,
                  uint32_t count) {
    uint64_t in = gpu.gpu_address + source, out = gpu.gpu_address + destination;
    emit(PB_INC(COPY, OFFSET_IN_UPPER, 8));
    emit((uint32_t)(in >> 32));
    emit((uint32_t)in);
    emit((uint32_t)(out >> 32));
    emit((uint32_t)out);
    emit(pitch_in);
    emit(pitch_out);
    emit(length);
    emit(count);
}

/* A block-linear surface's registers: BLOCK_SIZE (one GOB wide, 2^height GOBs tall, Fermi's 8-row GOBs), WIDTH,
 * HEIGHT, DEPTH, LAYER, ORIGIN. */
static void surface(uint32_t block_size_method, uint32_t width, uint32_t height, uint32_t block_height) {
    emit(PB_INC(COPY, block_size_method, 6));
    emit(block_height << 4 | 1u << 12);
    emit(width);
    emit(height);
    emit(1);
    emit(0);
    emit(0);
}

int main(void) {
    uint64_t heap;
    check(svc_set_heap_size(&heap, 0x800000) == 0, "SetHeapSize");
    Handle nv = nv_connect((void *)heap, 0x300000);
    check(gpu_open(&gpu, nv, (void *)(heap + 0x400000), 0x100000) == 0, "channel set up");
    uint8_t *memory = gpu.memory;
    emit(PB_NONINC(COPY, 0x0000, 1));
    emit(0xB0B5);

    print("-- pitch to block-linear and back\n");
    /* 200 x 40 bytes, blocks two GOBs tall: four blocks across (the last partly used), three block rows. */
    uint8_t *image = memory + PB_AREA, *tiled = memory + PB_AREA + 0x4000, *back = memory + PB_AREA + 0x10000;
    for (uint32_t i = 0; i < 200 * 40; i++) image[i] = (uint8_t)(i * 7 + i / 200);
    lines(PB_AREA, PB_AREA + 0x4000, 200, 0, 200, 40);
    surface(SET_DST_BLOCK_SIZE, 200, 40, 1);
    emit(PB_INC(COPY, LAUNCH_DMA, 1));
    emit(TRANSFER | SRC_PITCH | MULTI_LINE);
    run("swizzle");
    int wrong = 0;
    for (uint32_t y = 0; y < 40; y++)
        for (uint32_t x = 0; x < 200; x++) wrong += tiled[block_linear_offset(x, y, 200, 1)] != image[y * 200 + x];
    check(wrong == 0, "every byte where the GOB layout puts it");
    lines(PB_AREA + 0x4000, PB_AREA + 0x10000, 0, 200, 200, 40);
    surface(SET_SRC_BLOCK_SIZE, 200, 40, 1);
    emit(PB_INC(COPY, LAUNCH_DMA, 1));
    emit(TRANSFER | DST_PITCH | MULTI_LINE);
    run("unswizzle");
    check(memcmp(back, image, 200 * 40) == 0, "the round trip gives the image back");

    print("-- a memset by remap, then a swizzle of components\n");
    uint8_t *set = memory + PB_AREA + 0x20000;
    memset(set, 0xEE, 64);
    lines(PB_AREA, PB_AREA + 0x20000, 0, 0, 10, 1);
    emit(PB_INC(COPY, SET_REMAP_CONST_A, 3));
    emit(0x11223344);
    emit(0);
    emit(4u | 3u << 16); /* DST_X CONST_A; four-byte components; one source and one destination component */
    emit(PB_INC(COPY, LAUNCH_DMA, 1));
    emit(TRANSFER | SRC_PITCH | DST_PITCH | REMAP);
    run("memset");
    uint32_t value;
    memcpy(&value, set + 36, 4);
    check(value == 0x11223344, "the tenth word holds CONST_A");
    check(set[40] == 0xEE, "and the memset stops there");
    uint8_t *source = memory + PB_AREA + 0x21000, *swizzled = memory + PB_AREA + 0x22000;
    static const uint8_t rgba[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    memcpy(source, rgba, 8);
    memset(swizzled, 0xEE, 8);
    lines(PB_AREA + 0x21000, PB_AREA + 0x22000, 0, 0, 2, 1);
    emit(PB_INC(COPY, SET_REMAP_CONST_A + 8, 1));
    emit(3u | 2u << 4 | 6u << 8 | 0u << 12 | 3u << 20 | 3u << 24); /* X<-W, Y<-Z, Z unwritten, W<-X; one-byte */
    emit(PB_INC(COPY, LAUNCH_DMA, 1));
    emit(TRANSFER | SRC_PITCH | DST_PITCH | REMAP);
    run("swizzle of components");
    static const uint8_t expected[8] = {4, 3, 0xEE, 1, 8, 7, 0xEE, 5};
    check(memcmp(swizzled, expected, 8) == 0, "components where the remap sends them");

    print("-- a sparse reservation and Remap\n");
    struct {
        uint32_t pages, page_size, flags, padding;
        uint64_t offset;
    } space = {4, 0x20000, SPARSE, 0, 0x20000};
    expect("AllocSpace(sparse, four 128 KiB pages)", nv_ioctl(nv, gpu.as, AS_ALLOC_SPACE, &space, sizeof space, 0), 0);
    /* Entries {flags, kind, nvmap handle, object offset, GPU offset, size}, offsets and size in 64 KiB units:
     * the channel memory's 64 KiB at 0x30000 as the reservation's second 64 KiB. */
    struct {
        uint16_t flags, kind;
        uint32_t handle, object_offset, gpu_offset, pages;
    } remap = {0, 0, gpu.nvmap_handle, 3, (uint32_t)(space.offset >> 16) + 1, 1};
    expect("Remap", nv_ioctl(nv, gpu.as, AS_REMAP(sizeof remap), &remap, sizeof remap, 0), 0);
    uint8_t *behind = memory + 0x30000, *landed = memory + 0x40000;
    for (uint32_t i = 0; i < 256; i++) behind[i] = (uint8_t)(i * 13 + 1);
    memset(landed, 0xEE, 512);
    /* OFFSET_IN/OUT are GPU addresses: the remapped page, then the sparse page before it. */
    uint64_t remapped = space.offset + 0x10000, out = gpu.gpu_address + 0x40000;
    uint64_t copies[2][2] = {{remapped, out}, {space.offset, out + 256}};
    for (int c = 0; c < 2; c++) {
        emit(PB_INC(COPY, OFFSET_IN_UPPER, 4));
        emit((uint32_t)(copies[c][0] >> 32));
        emit((uint32_t)copies[c][0]);
        emit((uint32_t)(copies[c][1] >> 32));
        emit((uint32_t)copies[c][1]);
        emit(PB_INC(COPY, LINE_LENGTH_IN, 2));
        emit(256);
        emit(1);
        emit(PB_INC(COPY, LAUNCH_DMA, 1));
        emit(TRANSFER | SRC_PITCH | DST_PITCH);
    }
    run("copies out of the reservation");
    check(memcmp(landed, behind, 256) == 0, "the remapped page reads the memory Remap put there");
    int zeros = 1;
    for (int i = 256; i < 512; i++) zeros &= landed[i] == 0;
    check(zeros, "a sparse page with nothing mapped reads zeros");
    remap.handle = 0;
    expect("Remap(unmap)", nv_ioctl(nv, gpu.as, AS_REMAP(sizeof remap), &remap, sizeof remap, 0), 0);
    memset(landed, 0xEE, 256);
    emit(PB_INC(COPY, OFFSET_IN_UPPER, 4));
    emit((uint32_t)(remapped >> 32));
    emit((uint32_t)remapped);
    emit((uint32_t)(out >> 32));
    emit((uint32_t)out);
    emit(PB_INC(COPY, LAUNCH_DMA, 1));
    emit(TRANSFER | SRC_PITCH | DST_PITCH);
    run("a copy from the unmapped page");
    check(landed[0] == 0 && landed[255] == 0, "unmapped again, the page reads zeros");
    remap.handle = gpu.nvmap_handle;
    remap.gpu_offset = (uint32_t)(gpu.gpu_address >> 16);
    expect("Remap outside a sparse reservation", nv_ioctl(nv, gpu.as, AS_REMAP(sizeof remap), &remap, sizeof remap, 0),
           NV_BAD_VALUE);
    remap.gpu_offset = (uint32_t)(space.offset >> 16);
    remap.object_offset = 0x100; /* past the object's end */
    expect("Remap past the object", nv_ioctl(nv, gpu.as, AS_REMAP(sizeof remap), &remap, sizeof remap, 0),
           NV_BAD_VALUE);
    struct {
        uint64_t offset;
        uint32_t pages, page_size;
    } freed = {space.offset, 4, 0x20000};
    expect("FreeSpace", nv_ioctl(nv, gpu.as, AS_FREE_SPACE, &freed, sizeof freed, 0), 0);

    print("-- the same on AMPERE_DMA_COPY_B\n");
    emit(PB_NONINC(COPY, 0x0000, 1));
    emit(0xC7B5);
    for (uint32_t i = 0; i < 200 * 40; i++) image[i] = (uint8_t)(i * 13 + i / 200 * 3);
    lines(PB_AREA, PB_AREA + 0x4000, 200, 0, 200, 40);
    surface(SET_DST_BLOCK_SIZE, 200, 40, 2);
    emit(PB_INC(COPY, LAUNCH_DMA, 1));
    emit(TRANSFER | SRC_PITCH | MULTI_LINE);
    run("swizzle on C7B5");
    wrong = 0;
    for (uint32_t y = 0; y < 40; y++)
        for (uint32_t x = 0; x < 200; x++) wrong += tiled[block_linear_offset(x, y, 200, 2)] != image[y * 200 + x];
    check(wrong == 0, "every byte where the GOB layout puts it, blocks four GOBs tall");

    nv_close(nv, gpu.channel);
    svc_close_handle(nv);
    print("gpu-copy: ");
    print_u64((uint64_t)failures());
    print(" failures\n");
    return failures() == 0 ? 0 : 1;
}
