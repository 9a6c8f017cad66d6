/* The integer SIMD benchmark: an RGB image of 256 x 128 pixels, 8 bits a channel and interleaved, filtered 600 times
 * with Advanced SIMD 16 pixels at a time, as image and video code does it: LD3/ST3 (de)interleave the channels, the
 * luma is a widening multiply-accumulate (UMULL, UMLAL) rounded and narrowed (RSHRN), each channel is pulled
 * towards it by rounding halving adds (URHADD) and pushed by saturating ones (UQADD, UQSUB) of its absolute
 * difference (UABD) halved (USHR), a per-row sum of the luma (UADDLP, UADALP, ADDV) goes through half precision
 * (FCVTN, FCVTL) into a row bias narrowed with saturation (UQXTN), and the image's bytes are counted through the
 * popcount idiom (CNT, UADDLV). Ends in a CRC of the image and the counts that qemu-aarch64 confirms. Built with
 * FP/SIMD registers (xtask's FP_PROGRAMS). */
#include <arm_neon.h>

#include "tandem.h"

#define WIDTH 256
#define HEIGHT 128
#define PASSES 600

static uint8_t image[HEIGHT][WIDTH * 3];

int main(void) {
    uint32_t seed = 12345;
    for (int y = 0; y < HEIGHT; y++)
        for (int x = 0; x < WIDTH * 3; x++) {
            seed = seed * 1103515245u + 12345u;
            image[y][x] = (uint8_t)(seed >> 23);
        }
    const uint8x8_t red_weight = vdup_n_u8(77), green_weight = vdup_n_u8(150), blue_weight = vdup_n_u8(29);
    uint64_t bits_set = 0;
    for (int pass = 0; pass < PASSES; pass++) {
        for (int y = 0; y < HEIGHT; y++) {
            uint8_t *row = image[y];
            uint16x8_t luma_sums = vdupq_n_u16(0);
            for (int x = 0; x < WIDTH; x += 16) {
                uint8x16x3_t rgb = vld3q_u8(row + 3 * x);
                /* luma = (77 r + 150 g + 29 b + 128) >> 8, on the low and high eight pixels. */
                uint16x8_t low = vmull_u8(vget_low_u8(rgb.val[0]), red_weight);
                low = vmlal_u8(low, vget_low_u8(rgb.val[1]), green_weight);
                low = vmlal_u8(low, vget_low_u8(rgb.val[2]), blue_weight);
                uint16x8_t high = vmull_u8(vget_high_u8(rgb.val[0]), red_weight);
                high = vmlal_u8(high, vget_high_u8(rgb.val[1]), green_weight);
                high = vmlal_u8(high, vget_high_u8(rgb.val[2]), blue_weight);
                uint8x16_t luma = vcombine_u8(vrshrn_n_u16(low, 8), vrshrn_n_u16(high, 8));
                luma_sums = vpadalq_u8(luma_sums, luma);
                for (int c = 0; c < 3; c++) {
                    uint8x16_t channel = rgb.val[c];
                    uint8x16_t spread = vshrq_n_u8(vabdq_u8(channel, luma), 2);
                    uint8x16_t pulled = vrhaddq_u8(channel, luma);
                    uint8x16_t pushed = (pass + c) & 1 ? vqaddq_u8(pulled, spread) : vqsubq_u8(pulled, spread);
                    rgb.val[c] = vhaddq_u8(pushed, vaddq_u8(channel, vdupq_n_u8((uint8_t)(pass * 7 + c * 31))));
                }
                vst3q_u8(row + 3 * x, rgb);
            }
            /* The row's mean luma, through half precision, as a bias its first pixels take (saturating). */
            uint32_t luma_total = vaddlvq_u16(luma_sums);
            float32x4_t mean = vdupq_n_f32((float)luma_total * (1.0f / WIDTH));
            float32x4_t through_half = vcvt_f32_f16(vcvt_f16_f32(mean));
            uint16x8_t bias = vcombine_u16(vmovn_u32(vcvtq_u32_f32(through_half)), vdup_n_u16((uint16_t)y));
            uint8x8_t narrowed = vqmovn_u16(vshlq_n_u16(bias, 1));
            vst1_u8(row, vhadd_u8(vld1_u8(row), narrowed));
        }
        /* Every byte's set bits: CNT, then UADDLV. */
        for (int y = 0; y < HEIGHT; y += 8) {
            uint8x16_t counted = vcntq_u8(vld1q_u8(image[y] + (pass % 47) * 16));
            bits_set += vaddlvq_u8(counted);
        }
    }
    uint32_t checksum = 0;
    for (int y = 0; y < HEIGHT; y++)
        for (int x = 0; x < WIDTH * 3; x += 4) {
            uint32_t word;
            __builtin_memcpy(&word, &image[y][x], 4);
            checksum = __builtin_arm_crc32cw(checksum, word);
        }
    print("pixelloop: ");
    print_u64(WIDTH);
    print(" x ");
    print_u64(HEIGHT);
    print(" pixels, ");
    print_u64(PASSES);
    print(" passes, bits set ");
    print_u64(bits_set);
    print(", image crc ");
    print_hex_digits(checksum, 8);
    print("\n");
    return 0;
}
