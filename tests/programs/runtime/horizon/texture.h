/* Texture headers (TIC) and samplers (TSC) as clb097tex.h lays them out, and UNORM values as FP32 bits: what the
 * GPU test programs put in their pools and expect back, written from the formats' definitions. */
#pragma once
#include "tandem.h"

/* Texture header and sampler fields (clb097tex.h NVB097_TEXHEAD_BL_*, _PITCH_*, NVB097_TEXSAMP*). */
#define TIC_A8B8G8R8 0x08u
#define TIC_B5G6R5 0x15u
#define TIC_R32 0x0Fu
#define TIC_R8 0x1Du
#define TIC_ASTC_2D_4X4 0x40u
#define TIC_Z24S8 0x29u
#define TIC_DXT1 0x24u
#define TIC_UNORM 2u
#define TIC_ZERO 0u
#define TIC_R 2u
#define TIC_G 3u
#define TIC_B 4u
#define TIC_A 5u
#define TIC_ONE_FLOAT 7u
#define TIC_ONE_D_BUFFER 0u
#define TIC_PITCH 2u
#define TIC_BLOCKLINEAR 3u
#define TIC_TWO_D 1u
#define TIC_ONE_D_BUFFER_TYPE 6u
#define TIC_THREE_D 2u
#define TIC_TWO_D_ARRAY 5u
#define TIC_TWO_D_NO_MIPMAP 7u
#define TIC_CUBEMAP_ARRAY 8u
#define TSC_WRAP 0u
#define TSC_CLAMP_TO_EDGE 2u
#define TSC_BORDER 3u
#define TSC_MIP_NONE 1u
#define TSC_MIP_POINT 2u

#define F_1 0x3F800000u

/* A texture header at `w`: `components` of UNORM data, swizzle sources x, y, z, w, at GPU address `address`,
 * `width` x `height`, `levels` levels; `layout` is W3's layout bits (the pitch / 32, or the block height << 3). */
static inline void write_texture_header(uint32_t w[8], uint64_t address, uint32_t components,
                                        const uint32_t swizzle[4], uint32_t version, uint32_t layout,
                                        uint32_t levels, uint32_t width, uint32_t height, uint32_t type) {
    w[0] = components | TIC_UNORM << 7 | TIC_UNORM << 10 | TIC_UNORM << 13 | TIC_UNORM << 16 | swizzle[0] << 19 |
           swizzle[1] << 22 | swizzle[2] << 25 | swizzle[3] << 28;
    w[1] = (uint32_t)address;
    w[2] = ((uint32_t)(address >> 32) & 0xFFFFu) | version << 21;
    w[3] = layout | (levels - 1) << 28;
    w[4] = (width - 1) | type << 23 | 7u << 29; /* BORDER_SIZE: the sampler's colour */
    w[5] = (height - 1) | 1u << 31;             /* NORMALIZED_COORDS */
    w[6] = 0;
    w[7] = (levels - 1) << 4; /* the view: levels 0 to levels - 1 */
}

/* A sampler at `w`: point filters, `mip` filtering, address mode `u` across and clamp to edge down. */
static inline void write_sampler(uint32_t w[8], uint32_t u, uint32_t mip, const uint32_t border[4]) {
    w[0] = u | TSC_CLAMP_TO_EDGE << 3 | TSC_CLAMP_TO_EDGE << 6 | 1u << 13;
    w[1] = 1 | 1u << 4 | mip << 6;
    w[2] = (15u * 256) << 12; /* levels 0 to 15 */
    w[3] = 0;
    for (int c = 0; c < 4; c++) w[4 + c] = border[c];
}

/* c / (2^bits - 1) as single-precision bits, rounded to nearest (the divisor is odd: no ties). */
static inline uint32_t unorm_bits(uint32_t c, int bits) {
    uint32_t d = (1u << bits) - 1;
    if (c == 0) return 0;
    if (c >= d) return F_1;
    int e = 0; /* c / d = m 2^e, 1 <= m < 2 */
    while (((uint64_t)c << -e) < d) e--;
    uint64_t scaled = (uint64_t)c << (23 - e);
    uint64_t q = scaled / d, r = scaled % d;
    if (2 * r > d) q++;
    if (q == 1u << 24) {
        q >>= 1;
        e++;
    }
    return (uint32_t)(127 + e) << 23 | (uint32_t)(q & 0x7FFFFFu);
}
