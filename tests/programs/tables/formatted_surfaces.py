#!/usr/bin/env python3
"""Writes formatted_surfaces.h, the expected values of gpu-compute.c's formatted surface test, from the formats'
definitions alone: UNORM c / (2^n - 1) and SNORM max(c / (2^(n-1) - 1), -1) rounded once to FP32 (exact
fractions), halves through Python's IEEE 754 binary16 (struct 'e', round to nearest even), the unsigned 11- and
10-bit floats by their definition (5-bit exponent, bias 15). Stores follow Vulkan's "Texel Output Format
Conversion": normalised values clamped, then rounded to nearest; no value here is within 1/100 of a step from a tie,
so any rounding to nearest gives the same bits. Vulkan leaves how floats round to the device: every float stored
here rounds to the same value to nearest and toward zero.

Run: python3 tests/programs/tables/formatted_surfaces.py > tests/programs/tables/formatted_surfaces.h
"""
import struct
from fractions import Fraction


def f32_bits(x):
    """The FP32 bits of the exact value x (a Fraction or float), rounded to nearest even."""
    if x == 0:
        return 0
    sign = 0x80000000 if x < 0 else 0
    x = abs(x)
    e = 0
    while x >= 2 ** (e + 1):
        e += 1
    while x < 2 ** e:
        e -= 1
    scaled = x / Fraction(2) ** (e - 23)
    q = scaled.numerator // scaled.denominator
    r = scaled - q
    if r > Fraction(1, 2) or (r == Fraction(1, 2) and q % 2 == 1):
        q += 1
    if q == 1 << 24:
        q >>= 1
        e += 1
    return sign | (127 + e) << 23 | (q & 0x7FFFFF)


def f32(bits):
    return struct.unpack('<f', struct.pack('<I', bits))[0]


def fbits(x):
    """The FP32 bits nearest to the Python float x: the input words."""
    return struct.unpack('<I', struct.pack('<f', x))[0]


def unorm_load(c, n):
    return f32_bits(Fraction(c, 2 ** n - 1))


def snorm_load(c, n):
    return f32_bits(max(Fraction(c, 2 ** (n - 1) - 1), Fraction(-1)))


def nearest(exact):
    """exact rounded to the nearest integer, refusing values near a tie."""
    q = exact.numerator // exact.denominator
    frac = exact - q
    assert abs(frac - Fraction(1, 2)) > Fraction(1, 100), exact
    return q + 1 if frac > Fraction(1, 2) else q


def unorm_store(bits, n):
    x = Fraction(f32(bits))
    x = min(max(x, Fraction(0)), Fraction(1))
    return nearest(x * (2 ** n - 1))


def snorm_store(bits, n):
    x = Fraction(f32(bits))
    x = min(max(x, Fraction(-1)), Fraction(1))
    return nearest(x * (2 ** (n - 1) - 1)) & (2 ** n - 1)


def half_load(h):
    return fbits(struct.unpack('<e', struct.pack('<H', h))[0])


def half_store(bits):
    """The nearest half, which must also be the one toward zero: Vulkan leaves the rounding to the device."""
    h = struct.unpack('<H', struct.pack('<e', f32(bits)))[0]
    value = struct.unpack('<e', struct.pack('<H', h))[0]
    assert abs(Fraction(value)) <= abs(Fraction(f32(bits))), f32(bits)
    return h


def small_float_value(bits, mantissa_bits):
    e, m = bits >> mantissa_bits, bits & ((1 << mantissa_bits) - 1)
    assert e != 31
    if e == 0:
        return Fraction(m, 2 ** mantissa_bits) * Fraction(2) ** -14
    return (1 + Fraction(m, 2 ** mantissa_bits)) * Fraction(2) ** (e - 15)


def small_float_store(bits, mantissa_bits):
    """The nearest unsigned small float (negatives 0), found by search among all of them."""
    x = Fraction(f32(bits))
    if x <= 0:
        return 0
    values = [(abs(small_float_value(b, mantissa_bits) - x), b) for b in range(31 << mantissa_bits)]
    values.sort()
    assert values[0][0] != values[1][0], x
    assert small_float_value(values[0][1], mantissa_bits) <= x, x  # toward zero too
    return values[0][1]


def int_bits(v, n):
    return v & (2 ** n - 1)


# Each format: (name, TIC code, data type, bytes, the four texels of A as component values, loads, and the four
# input words with what a store makes of them).
cases = []

# A8B8G8R8 UNORM.
texels = [[0, 255, 128, 64], [1, 2, 3, 250], [17, 34, 51, 68], [200, 100, 50, 25]]
inputs = [[0.25, 0.75, 1.0, 0.0], [-0.5, 2.0, 0.2, 0.6], [0.01, 0.99, 0.4, 0.333], [1e-5, 0.666, 0.95, 0.125]]
cases.append(('A8B8G8R8 UNORM', 0x08, 2, 4, [(0, 8), (8, 8), (16, 8), (24, 8)], texels,
              lambda c, k: unorm_load(c, 8), [[fbits(v) for v in t] for t in inputs],
              lambda w, k: unorm_store(w, 8)))

# A8B8G8R8 SNORM.
texels = [[-127, 127, 0, -128], [1, -1, 64, -64], [100, -100, 5, -5], [127, 126, -126, 33]]
inputs = [[-1.0, 1.0, 0.0, 0.25], [-2.0, 2.0, -0.25, 0.1], [0.5 + 0.25 / 127, -0.3, 0.77, -0.001], [0.9, -0.9, 0.01, -0.6]]
cases.append(('A8B8G8R8 SNORM', 0x08, 1, 4, [(0, 8), (8, 8), (16, 8), (24, 8)],
              [[int_bits(c, 8) for c in t] for t in texels],
              lambda c, k: snorm_load(c - 256 if c >= 128 else c, 8), [[fbits(v) for v in t] for t in inputs],
              lambda w, k: snorm_store(w, 8)))

# R16_G16_B16_A16 FLOAT.
texels = [[0x3C00, 0xC000, 0x3555, 0x0001], [0x7BFF, 0xFC00, 0x8000, 0x3800], [0x0400, 0x03FF, 0x5640, 0xD640],
          [0x4248, 0x2E66, 0x7C00, 0x3BFF]]
inputs = [[1.0, -2.0, 0.1, 65504.0], [1.3e-7, -1e-8, 3.14159, 0.5], [1 / 3, 2 / 3, -0.75, 1000.7],
          [1.1e-3, 12345.6, -0.0, 7.0]]
cases.append(('R16_G16_B16_A16 FLOAT', 0x03, 7, 8, [(0, 16), (16, 16), (32, 16), (48, 16)], texels,
              lambda c, k: half_load(c), [[fbits(v) for v in t] for t in inputs],
              lambda w, k: half_store(w)))

# BF10GF11RF11 FLOAT: R and G 11 bits (6-bit mantissas), B 10 bits (5-bit mantissa); no alpha.
def small(bits_k):
    return 6 if bits_k < 2 else 5
texels = [[0x3C0, 0x380, 0x200, None], [0x001, 0x7BF, 0x3DF, None], [0x2AB, 0x040, 0x155, None],
          [0x000, 0x5A5, 0x01F, None]]
inputs = [[1.0, 0.5, 2.0, 9.0], [-3.0, 64512.0, 0.1, 0.0], [100.0, 0.015625, 1.7, 0.0], [0.0, 2.9e-5, 37.2, 0.0]]
cases.append(('BF10GF11RF11 FLOAT', 0x21, 7, 4, [(0, 11), (11, 11), (22, 10), (0, 0)], texels,
              lambda c, k: f32_bits(small_float_value(c, small(k))), [[fbits(v) for v in t] for t in inputs],
              lambda w, k: small_float_store(w, small(k))))

# A2B10G10R10 UNORM.
texels = [[0, 1023, 512, 3], [1, 2, 1000, 0], [341, 682, 100, 1], [777, 3, 999, 2]]
inputs = [[0.5 + 1 / 4096, 0.25, 1.0, 1 / 3], [0.1, 0.9, -1.0, 0.7], [0.004, 0.3, 0.55, 0.05], [2.0, 0.6, 0.8, 0.9]]
cases.append(('A2B10G10R10 UNORM', 0x09, 2, 4, [(0, 10), (10, 10), (20, 10), (30, 2)], texels,
              lambda c, k: unorm_load(c, 2 if k == 3 else 10), [[fbits(v) for v in t] for t in inputs],
              lambda w, k: unorm_store(w, 2 if k == 3 else 10)))

# R16_G16 SINT: no blue, alpha the integer 1.
texels = [[0, 0xFFFF, None, None], [0x7FFF, 0x8000, None, None], [1234, 0xFB2E, None, None], [1, 2, None, None]]
ints = [[5, -5, 0, 0], [32767, -32768, 0, 0], [-1, 1, 0, 0], [300, -2000, 0, 0]]
cases.append(('R16_G16 SINT', 0x0C, 3, 4, [(0, 16), (16, 16), (0, 0), (0, 0)], texels,
              lambda c, k: (c - 0x10000 if c >= 0x8000 else c) & 0xFFFFFFFF, [[v & 0xFFFFFFFF for v in t] for t in ints],
              lambda w, k: int_bits(w, 16)))

# R32 FLOAT: one component.
texels = [[fbits(1.5), None, None, None], [fbits(-0.0), None, None, None], [fbits(1e30), None, None, None],
          [0x00000001, None, None, None]]
inputs = [[2.5, 0, 0, 0], [-7.25, 0, 0, 0], [1e-30, 0, 0, 0], [123456.0, 0, 0, 0]]
cases.append(('R32 FLOAT', 0x0F, 7, 4, [(0, 32), (0, 0), (0, 0), (0, 0)], texels,
              lambda c, k: c, [[fbits(v) for v in t] for t in inputs], lambda w, k: w))


def pack(components, values, old=0):
    bits = old
    for (low, width), v in zip(components, values):
        if width and v is not None:
            bits = bits & ~(((1 << width) - 1) << low) | (v & ((1 << width) - 1)) << low
    return bits


def byte_list(bits, n):
    return ', '.join('0x%02X' % b for b in bits.to_bytes(n, 'little'))


out = ['/* Generated by formatted_surfaces.py from the formats\' definitions: do not edit. */',
       'typedef struct {',
       '    const char *name;',
       '    uint32_t code, data_type, bytes;',
       '    uint8_t texels[4][8];     /* A (and C before the grid), texel t at x = t */',
       '    uint32_t loads[4][4];     /* SULD.P of A, mask 0xf */',
       '    uint32_t inputs[4][4];    /* the words SUST.P stores */',
       '    uint8_t stored[4][8];     /* B after the grid (mask 0xf) */',
       '    uint8_t partial[4][8];    /* C after the grid (mask 0x5: R and B from the first two words) */',
       '} FormattedCase;',
       'static const FormattedCase formatted_cases[] = {']
for name, code, data_type, nbytes, components, texels, load, inputs, store in cases:
    is_int = data_type in (3, 4)
    one = 1 if is_int else 0x3F800000
    packed = [pack(components, t) for t in texels]
    loads = [[load(t[k], k) if components[k][1] else (one if k == 3 else 0) for k in range(4)] for t in texels]
    stored = [pack(components, [store(w[k], k) if components[k][1] else None for k in range(4)]) for w in inputs]
    partial = [pack(components, [store(w[0], 0), None, store(w[1], 2) if components[2][1] else None, None], p)
               for w, p in zip(inputs, packed)]
    out.append('    {"%s", 0x%02X, %d, %d,' % (name, code, data_type, nbytes))
    for label, rows in (('texels', packed), ('loads', loads), ('inputs', inputs), ('stored', stored),
                        ('partial', partial)):
        if label in ('loads', 'inputs'):
            body = ', '.join('{' + ', '.join('0x%08X' % v for v in row) + '}' for row in rows)
        else:
            body = ', '.join('{' + byte_list(row, nbytes) + '}' for row in rows)
        out.append('     /* %s */ {%s},' % (label, body))
    out.append('    },')
out.append('};')
print('\n'.join(out))
