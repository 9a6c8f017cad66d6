/* The benchmark: one tight integer loop, fixed (no knobs), ending in a checksum that qemu-aarch64 confirms. Each
 * iteration mixes what interpreters spend their time on: shifts and eors (xorshift64), CRC32-C, a multiply-accumulate,
 * a data-dependent load and store in a 4 KiB table, and a loop branch: 13 instructions as clang 14 -O2 compiles it,
 * 100.1 M instructions for the whole run (counted under qemu-aarch64). */
#include "tandem.h"

#define ITERATIONS 7700000u

static uint32_t table[1024];

int main(void) {
    uint64_t x = 0x9e3779b97f4a7c15ull;
    uint64_t accumulator = 0;
    uint32_t crc = 0xffffffffu;
    for (uint32_t i = 0; i < ITERATIONS; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        crc = __builtin_arm_crc32cd(crc, x);
        accumulator = accumulator * 0x5851f42d4c957f2dull + (x >> 32);
        table[x & 1023] += crc;
    }
    uint32_t folded = 0;
    for (uint32_t i = 0; i < 1024; i++) {
        folded = __builtin_arm_crc32cw(folded, table[i]);
    }
    print("intloop: ");
    print_u64(ITERATIONS);
    print(" iterations\n");
    print("xorshift ");
    print_hex_digits(x, 16);
    print(" crc ");
    print_hex_digits(crc, 8);
    print(" mac ");
    print_hex_digits(accumulator, 16);
    print(" table ");
    print_hex_digits(folded, 8);
    print("\n");
    return 0;
}
