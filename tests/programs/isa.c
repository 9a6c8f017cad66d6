/* Integer ISA corners, reached through C and, where C would be undefined or the compiler would pick its own
 * instruction, inline assembly. Every result is printed, so qemu-aarch64 running the Linux twin is the oracle for
 * every value; results with an independent C model are also checked here, and the exit status counts mismatches.
 *
 * Sections: division (sdiv/udiv corners), CRC32/CRC32C (against a bitwise model), LSE atomics (ld<op>, swp, cas,
 * casp), RCpc loads (ldapr), exclusives (ldxr/stxr and friends, clrex), bit operations (clz, cls, rbit, rev),
 * multiplies (umulh/smulh against a 32-bit limb model, long multiplies), condition codes (cmp + cset matrix,
 * adds/adcs/subs/sbcs flags, csel family, ccmp), shifts by register, bitfields, extended-register arithmetic and
 * sign-extending loads. */
#include "tandem.h"

#define INT32_MIN_ (-2147483647 - 1)
#define INT64_MIN_ (-9223372036854775807LL - 1)

static void show(const char *label, uint64_t value) {
    print(label);
    print(" = ");
    print_hex(value);
    print("\n");
}

static void show_checked(const char *label, uint64_t value, uint64_t expected) {
    show(label, value);
    check(value == expected, label);
}

static void heading(const char *name) {
    print("-- ");
    print(name);
    print("\n");
}

/* ---- division ---------------------------------------------------------------------------------------------- */

static int32_t sdiv32(int32_t n, int32_t d) {
    int32_t q;
    __asm__("sdiv %w0, %w1, %w2" : "=r"(q) : "r"(n), "r"(d));
    return q;
}

static uint32_t udiv32(uint32_t n, uint32_t d) {
    uint32_t q;
    __asm__("udiv %w0, %w1, %w2" : "=r"(q) : "r"(n), "r"(d));
    return q;
}

static int64_t sdiv64(int64_t n, int64_t d) {
    int64_t q;
    __asm__("sdiv %0, %1, %2" : "=r"(q) : "r"(n), "r"(d));
    return q;
}

static uint64_t udiv64(uint64_t n, uint64_t d) {
    uint64_t q;
    __asm__("udiv %0, %1, %2" : "=r"(q) : "r"(n), "r"(d));
    return q;
}

/* Remainder the way compilers write it: n - (n / d) * d with msub, here with the quotient from the instruction. */
static int64_t srem64(int64_t n, int64_t d) {
    int64_t r;
    __asm__("sdiv %0, %1, %2\n\tmsub %0, %0, %2, %1" : "=&r"(r) : "r"(n), "r"(d));
    return r;
}

/* Arm's rules: x / 0 = 0; INT_MIN / -1 = INT_MIN (the overflow wraps); otherwise truncation toward zero. */
static int64_t model_sdiv(int64_t n, int64_t d, int64_t min) {
    if (d == 0) {
        return 0;
    }
    if (n == min && d == -1) {
        return min;
    }
    return n / d;
}

static void division(void) {
    heading("division");
    static const int32_t s32[][2] = {
        {7, 2}, {-7, 2}, {7, -2}, {-7, -2}, {INT32_MIN_, -1}, {INT32_MIN_, 1}, {INT32_MIN_, 0}, {5, 0}, {-5, 0},
        {0, 0}, {2147483647, -1}, {-1, 2147483647}, {1000000007, 97},
    };
    for (unsigned i = 0; i < sizeof s32 / sizeof s32[0]; i++) {
        int32_t q = sdiv32(s32[i][0], s32[i][1]);
        print("sdiv w: ");
        print_i64(s32[i][0]);
        print(" / ");
        print_i64(s32[i][1]);
        print(" = ");
        print_i64(q);
        print("\n");
        check(q == (int32_t)model_sdiv(s32[i][0], s32[i][1], INT32_MIN_), "sdiv w");
    }
    static const uint32_t u32[][2] = {
        {7, 2}, {0xffffffffu, 1}, {0xffffffffu, 0xffffffffu}, {5, 0}, {0x80000000u, 3}, {0, 7}, {0xfffffffeu, 0xffffffffu},
    };
    for (unsigned i = 0; i < sizeof u32 / sizeof u32[0]; i++) {
        uint32_t q = udiv32(u32[i][0], u32[i][1]);
        print("udiv w: ");
        print_u64(u32[i][0]);
        print(" / ");
        print_u64(u32[i][1]);
        print(" = ");
        print_u64(q);
        print("\n");
        check(q == (u32[i][1] == 0 ? 0 : u32[i][0] / u32[i][1]), "udiv w");
    }
    static const int64_t s64[][2] = {
        {7, 2}, {-7, 2}, {7, -2}, {-7, -2}, {INT64_MIN_, -1}, {INT64_MIN_, 1}, {INT64_MIN_, 0}, {5, 0}, {-5, 0},
        {0, 0}, {9223372036854775807LL, -1}, {-1000000000000000003LL, 1000000007}, {INT64_MIN_, INT64_MIN_},
        {INT32_MIN_, -1},
    };
    for (unsigned i = 0; i < sizeof s64 / sizeof s64[0]; i++) {
        int64_t q = sdiv64(s64[i][0], s64[i][1]);
        int64_t r = srem64(s64[i][0], s64[i][1]);
        print("sdiv x: ");
        print_i64(s64[i][0]);
        print(" / ");
        print_i64(s64[i][1]);
        print(" = ");
        print_i64(q);
        print(" rem ");
        print_i64(r);
        print("\n");
        int64_t expected = model_sdiv(s64[i][0], s64[i][1], INT64_MIN_);
        check(q == expected, "sdiv x");
        /* msub wraps: n - q * d in two's complement. */
        check((uint64_t)r == (uint64_t)s64[i][0] - (uint64_t)expected * (uint64_t)s64[i][1], "msub remainder");
    }
    static const uint64_t u64[][2] = {
        {7, 2}, {~0ull, 1}, {~0ull, ~0ull}, {5, 0}, {1ull << 63, 3}, {~0ull, 0x100000000ull}, {0x123456789abcdefull, 0x1000},
    };
    for (unsigned i = 0; i < sizeof u64 / sizeof u64[0]; i++) {
        uint64_t q = udiv64(u64[i][0], u64[i][1]);
        print("udiv x: ");
        print_u64(u64[i][0]);
        print(" / ");
        print_u64(u64[i][1]);
        print(" = ");
        print_u64(q);
        print("\n");
        check(q == (u64[i][1] == 0 ? 0 : u64[i][0] / u64[i][1]), "udiv x");
    }
}

/* ---- CRC32 ------------------------------------------------------------------------------------------------- */

/* The instructions' raw update (no pre- or post-inversion), bit by bit, for the reflected polynomial `poly`. */
static uint32_t model_crc(uint32_t crc, uint64_t data, int bytes, uint32_t poly) {
    for (int i = 0; i < bytes * 8; i++) {
        uint32_t bit = (crc ^ (uint32_t)(data >> i)) & 1;
        crc = (crc >> 1) ^ (bit ? poly : 0);
    }
    return crc;
}

#define CRC32 0xEDB88320u
#define CRC32C 0x82F63B78u

static void crc(void) {
    heading("crc32");
    static const uint64_t inputs[] = {0, 1, 0xff, 0x8000000000000000ull, 0x0123456789abcdefull, ~0ull};
    for (unsigned i = 0; i < sizeof inputs / sizeof inputs[0]; i++) {
        uint64_t d = inputs[i];
        uint32_t seeds[] = {0, 0xffffffffu};
        for (unsigned s = 0; s < 2; s++) {
            uint32_t c = seeds[s];
            show_checked("crc32b", __builtin_arm_crc32b(c, (uint8_t)d), model_crc(c, d, 1, CRC32));
            show_checked("crc32h", __builtin_arm_crc32h(c, (uint16_t)d), model_crc(c, d, 2, CRC32));
            show_checked("crc32w", __builtin_arm_crc32w(c, (uint32_t)d), model_crc(c, d, 4, CRC32));
            show_checked("crc32x", __builtin_arm_crc32d(c, d), model_crc(c, d, 8, CRC32));
            show_checked("crc32cb", __builtin_arm_crc32cb(c, (uint8_t)d), model_crc(c, d, 1, CRC32C));
            show_checked("crc32ch", __builtin_arm_crc32ch(c, (uint16_t)d), model_crc(c, d, 2, CRC32C));
            show_checked("crc32cw", __builtin_arm_crc32cw(c, (uint32_t)d), model_crc(c, d, 4, CRC32C));
            show_checked("crc32cx", __builtin_arm_crc32cd(c, d), model_crc(c, d, 8, CRC32C));
        }
    }
    /* The standard check value: CRC-32 of "123456789" with the usual inversions is 0xcbf43926, CRC-32C 0xe3069283. */
    const char *text = "123456789";
    uint32_t c = 0xffffffffu, cc = 0xffffffffu;
    for (int i = 0; i < 9; i++) {
        c = __builtin_arm_crc32b(c, (uint8_t)text[i]);
        cc = __builtin_arm_crc32cb(cc, (uint8_t)text[i]);
    }
    show_checked("crc32 \"123456789\"", ~c, 0xcbf43926u);
    show_checked("crc32c \"123456789\"", ~cc, 0xe3069283u);
}

/* ---- atomics ----------------------------------------------------------------------------------------------- */

static uint8_t a8;
static uint16_t a16;
static uint32_t a32;
static uint64_t a64;

/* One operation on one width: prints the old value returned and the new value in memory, checks both. */
#define ATOMIC_OP(label, var, init, call, model)                                                                   \
    do {                                                                                                           \
        var = (init);                                                                                              \
        __typeof__(var) old_ = call;                                                                               \
        __typeof__(var) new_ = var;                                                                                \
        print(label);                                                                                              \
        print(": old ");                                                                                           \
        print_hex(old_);                                                                                           \
        print(" new ");                                                                                            \
        print_hex(new_);                                                                                           \
        print("\n");                                                                                               \
        check(old_ == (__typeof__(var))(init) && new_ == (__typeof__(var))(model), label);                         \
    } while (0)

#define ATOMIC_WIDTH(var, type, stype, init, operand, suffix)                                                      \
    do {                                                                                                           \
        const type i_ = (type)(init), o_ = (type)(operand);                                                        \
        ATOMIC_OP("ldadd" suffix, var, i_, __atomic_fetch_add(&var, o_, __ATOMIC_RELAXED), (type)(i_ + o_));       \
        ATOMIC_OP("ldadd (sub)" suffix, var, i_, __atomic_fetch_sub(&var, o_, __ATOMIC_ACQUIRE), (type)(i_ - o_)); \
        ATOMIC_OP("ldclr" suffix, var, i_, __atomic_fetch_and(&var, o_, __ATOMIC_RELEASE), (type)(i_ & o_));      \
        ATOMIC_OP("ldset" suffix, var, i_, __atomic_fetch_or(&var, o_, __ATOMIC_ACQ_REL), (type)(i_ | o_));       \
        ATOMIC_OP("ldeor" suffix, var, i_, __atomic_fetch_xor(&var, o_, __ATOMIC_SEQ_CST), (type)(i_ ^ o_));      \
        ATOMIC_OP("swp" suffix, var, i_, __atomic_exchange_n(&var, o_, __ATOMIC_SEQ_CST), o_);                    \
        ATOMIC_OP("ldumax" suffix, var, i_, __atomic_fetch_max(&var, o_, __ATOMIC_RELAXED), i_ > o_ ? i_ : o_);   \
        ATOMIC_OP("ldumin" suffix, var, i_, __atomic_fetch_min(&var, o_, __ATOMIC_ACQUIRE), i_ < o_ ? i_ : o_);   \
        ATOMIC_OP("ldsmax" suffix, var, i_, (type)__atomic_fetch_max((stype *)&var, (stype)o_, __ATOMIC_RELEASE), \
                  (stype)i_ > (stype)o_ ? i_ : o_);                                                                \
        ATOMIC_OP("ldsmin" suffix, var, i_, (type)__atomic_fetch_min((stype *)&var, (stype)o_, __ATOMIC_SEQ_CST), \
                  (stype)i_ < (stype)o_ ? i_ : o_);                                                                \
        type expected_ = i_;                                                                                       \
        ATOMIC_OP("cas hit" suffix, var, i_,                                                                       \
                  (__atomic_compare_exchange_n(&var, &expected_, o_, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST),       \
                   expected_),                                                                                     \
                  o_);                                                                                             \
        expected_ = (type)(i_ + 1);                                                                                \
        var = i_;                                                                                                  \
        int swapped_ = __atomic_compare_exchange_n(&var, &expected_, o_, 0, __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE);   \
        print("cas miss" suffix ": swapped ");                                                                     \
        print_u64((uint64_t)swapped_);                                                                             \
        print(" saw ");                                                                                            \
        print_hex(expected_);                                                                                      \
        print(" memory ");                                                                                         \
        print_hex(var);                                                                                            \
        print("\n");                                                                                               \
        check(!swapped_ && expected_ == i_ && var == i_, "cas miss" suffix);                                       \
    } while (0)

static unsigned __int128 a128 __attribute__((aligned(16)));

static void atomics(void) {
    heading("atomics (LSE)");
    ATOMIC_WIDTH(a8, uint8_t, int8_t, 0xf0, 0x35, " b");
    ATOMIC_WIDTH(a16, uint16_t, int16_t, 0x7ff0, 0x8035, " h");
    ATOMIC_WIDTH(a32, uint32_t, int32_t, 0x80000001u, 0x7fffffffu, " w");
    ATOMIC_WIDTH(a64, uint64_t, int64_t, 0x00000000fffffff0ull, 0xfedcba9876543210ull, " x");
    ATOMIC_WIDTH(a64, uint64_t, int64_t, 0x8000000000000000ull, 0x7fffffffffffffffull, " x");

    /* casp: 128-bit compare-and-swap of a register pair, a hit then a miss. */
    unsigned __int128 expected = ((unsigned __int128)0x1111111122222222ull << 64) | 0x3333333344444444ull;
    unsigned __int128 desired = ((unsigned __int128)0xaaaaaaaabbbbbbbbull << 64) | 0xccccccccddddddddull;
    a128 = expected;
    int hit = __atomic_compare_exchange_n(&a128, &expected, desired, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    show("casp hit", (uint64_t)hit);
    show("casp memory high", (uint64_t)(a128 >> 64));
    show("casp memory low", (uint64_t)a128);
    check(hit && a128 == desired, "casp hit");
    int miss = __atomic_compare_exchange_n(&a128, &expected, 0, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    show("casp miss", (uint64_t)miss);
    show("casp saw high", (uint64_t)(expected >> 64));
    show("casp saw low", (uint64_t)expected);
    check(!miss && expected == desired, "casp miss");

    /* RCpc: load-acquire (ldapr) and store-release (stlr), by width. */
    uint64_t v;
    a8 = 0x81;
    __asm__ volatile("ldaprb %w0, [%1]" : "=r"(v) : "r"(&a8) : "memory");
    show_checked("ldaprb", v, 0x81);
    a16 = 0x8182;
    __asm__ volatile("ldaprh %w0, [%1]" : "=r"(v) : "r"(&a16) : "memory");
    show_checked("ldaprh", v, 0x8182);
    a32 = 0x81828384u;
    __asm__ volatile("ldapr %w0, [%1]" : "=r"(v) : "r"(&a32) : "memory");
    show_checked("ldapr w", v, 0x81828384u);
    a64 = 0x8182838485868788ull;
    __asm__ volatile("ldapr %0, [%1]" : "=r"(v) : "r"(&a64) : "memory");
    show_checked("ldapr x", v, 0x8182838485868788ull);
    __atomic_store_n(&a64, 0x0102030405060708ull, __ATOMIC_RELEASE);
    show_checked("stlr x", __atomic_load_n(&a64, __ATOMIC_ACQUIRE), 0x0102030405060708ull);
}

/* ---- exclusives -------------------------------------------------------------------------------------------- */

static void exclusives(void) {
    heading("exclusives");
    uint64_t old, status;

    a64 = 40;
    __asm__ volatile("1: ldxr %0, [%2]\n\t"
                     "add %0, %0, #2\n\t"
                     "stxr %w1, %0, [%2]\n\t"
                     "cbnz %w1, 1b"
                     : "=&r"(old), "=&r"(status)
                     : "r"(&a64)
                     : "memory");
    show_checked("ldxr/stxr x add", a64, 42);

    a32 = 0xfffffffeu;
    __asm__ volatile("1: ldaxr %w0, [%2]\n\t"
                     "add %w0, %w0, #3\n\t"
                     "stlxr %w1, %w0, [%2]\n\t"
                     "cbnz %w1, 1b"
                     : "=&r"(old), "=&r"(status)
                     : "r"(&a32)
                     : "memory");
    show_checked("ldaxr/stlxr w add (wraps)", a32, 1);

    a8 = 0x7f;
    __asm__ volatile("1: ldxrb %w0, [%2]\n\t"
                     "add %w0, %w0, #1\n\t"
                     "stxrb %w1, %w0, [%2]\n\t"
                     "cbnz %w1, 1b"
                     : "=&r"(old), "=&r"(status)
                     : "r"(&a8)
                     : "memory");
    show_checked("ldxrb/stxrb", a8, 0x80);

    a16 = 0xffff;
    __asm__ volatile("1: ldaxrh %w0, [%2]\n\t"
                     "add %w0, %w0, #1\n\t"
                     "stlxrh %w1, %w0, [%2]\n\t"
                     "cbnz %w1, 1b"
                     : "=&r"(old), "=&r"(status)
                     : "r"(&a16)
                     : "memory");
    show_checked("ldaxrh/stlxrh (register keeps the carry)", old, 0x10000);
    show_checked("ldaxrh/stlxrh (memory wraps)", a16, 0);

    /* ldxp/stxp: swap the two halves of a 16-byte pair. */
    uint64_t pair[2] __attribute__((aligned(16))) = {0x1111111111111111ull, 0x2222222222222222ull};
    uint64_t lo, hi;
    __asm__ volatile("1: ldxp %0, %1, [%3]\n\t"
                     "stxp %w2, %1, %0, [%3]\n\t"
                     "cbnz %w2, 1b"
                     : "=&r"(lo), "=&r"(hi), "=&r"(status)
                     : "r"(pair)
                     : "memory");
    show_checked("ldxp/stxp swap low", pair[0], 0x2222222222222222ull);
    show_checked("ldxp/stxp swap high", pair[1], 0x1111111111111111ull);

    /* After clrex the monitor is open: a store-exclusive must fail (status 1) and leave memory alone. */
    a64 = 7;
    __asm__ volatile("ldxr %0, [%2]\n\t"
                     "clrex\n\t"
                     "mov %0, #99\n\t"
                     "stxr %w1, %0, [%2]"
                     : "=&r"(old), "=&r"(status)
                     : "r"(&a64)
                     : "memory");
    show_checked("stxr after clrex: status", status, 1);
    show_checked("stxr after clrex: memory", a64, 7);
}

/* ---- bit operations ---------------------------------------------------------------------------------------- */

#define UNARY_X(mnemonic, x)                                                                                       \
    ({                                                                                                             \
        uint64_t r_;                                                                                               \
        __asm__(mnemonic " %0, %1" : "=r"(r_) : "r"((uint64_t)(x)));                                               \
        r_;                                                                                                        \
    })
#define UNARY_W(mnemonic, x)                                                                                       \
    ({                                                                                                             \
        uint64_t r_;                                                                                               \
        __asm__(mnemonic " %w0, %w1" : "=r"(r_) : "r"((uint64_t)(x)));                                             \
        r_;                                                                                                        \
    })

static uint64_t model_clz(uint64_t x, int bits) {
    int n = 0;
    for (int i = bits - 1; i >= 0 && !((x >> i) & 1); i--) {
        n++;
    }
    return (uint64_t)n;
}

static uint64_t model_rbit(uint64_t x, int bits) {
    uint64_t r = 0;
    for (int i = 0; i < bits; i++) {
        r |= ((x >> i) & 1) << (bits - 1 - i);
    }
    return r;
}

/* Reverses the bytes inside each `chunk`-byte group of the low `bits` bits. */
static uint64_t model_rev(uint64_t x, int bits, int chunk) {
    uint64_t r = 0;
    for (int byte = 0; byte < bits / 8; byte++) {
        int group = byte / chunk, within = byte % chunk;
        int to = group * chunk + (chunk - 1 - within);
        r |= ((x >> (8 * byte)) & 0xff) << (8 * to);
    }
    return r;
}

static void bits(void) {
    heading("bit operations");
    static const uint64_t inputs[] = {0, 1, 0x80, 0x8000000000000000ull, 0x00000000ffffffffull, 0x0123456789abcdefull,
                                      0xfffffffffffffffeull, 0x7fffffff00000000ull};
    for (unsigned i = 0; i < sizeof inputs / sizeof inputs[0]; i++) {
        uint64_t x = inputs[i];
        uint32_t w = (uint32_t)x;
        print("input ");
        print_hex(x);
        print("\n");
        show_checked("  clz x", UNARY_X("clz", x), model_clz(x, 64));
        show_checked("  clz w", UNARY_W("clz", x), model_clz(w, 32));
        /* cls counts the bits after the sign bit that equal it. */
        show_checked("  cls x", UNARY_X("cls", x), model_clz((x >> 63) ? ~x : x, 64) - 1);
        show_checked("  cls w", UNARY_W("cls", x), model_clz(((w >> 31) ? ~w : w), 32) - 1);
        show_checked("  rbit x", __builtin_arm_rbit64(x), model_rbit(x, 64));
        show_checked("  rbit w", __builtin_arm_rbit(w), model_rbit(w, 32));
        show_checked("  rev x", UNARY_X("rev", x), model_rev(x, 64, 8));
        show_checked("  rev w", UNARY_W("rev", x), model_rev(w, 32, 4));
        show_checked("  rev16 x", UNARY_X("rev16", x), model_rev(x, 64, 2));
        show_checked("  rev16 w", UNARY_W("rev16", x), model_rev(w, 32, 2));
        show_checked("  rev32 x", UNARY_X("rev32", x), model_rev(x, 64, 4));
        show_checked("  ctz x (rbit+clz)", x ? (uint64_t)__builtin_ctzll(x) : 64, model_clz(model_rbit(x, 64), 64));
        show("  popcount x (no cnt: general registers only)", (uint64_t)__builtin_popcountll(x));
    }
}

/* ---- multiplies -------------------------------------------------------------------------------------------- */

/* The high 64 bits of a 64x64 unsigned product, from 32-bit limbs. */
static uint64_t model_umulh(uint64_t a, uint64_t b) {
    uint64_t a0 = (uint32_t)a, a1 = a >> 32, b0 = (uint32_t)b, b1 = b >> 32;
    uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    uint64_t middle = (p00 >> 32) + (uint32_t)p01 + (uint32_t)p10;
    return p11 + (p01 >> 32) + (p10 >> 32) + (middle >> 32);
}

static uint64_t model_smulh(int64_t a, int64_t b) {
    uint64_t high = model_umulh((uint64_t)a, (uint64_t)b);
    /* Signed from unsigned: subtract b when a < 0 and a when b < 0 (mod 2^64). */
    if (a < 0) {
        high -= (uint64_t)b;
    }
    if (b < 0) {
        high -= (uint64_t)a;
    }
    return high;
}

static void multiplies(void) {
    heading("multiplies");
    static const uint64_t inputs[] = {0, 1, 3, 0xffffffffull, 0x100000000ull, 0x7fffffffffffffffull, 0x8000000000000000ull,
                                      0xffffffffffffffffull, 0x0123456789abcdefull, 0xfedcba9876543210ull};
    const unsigned n = sizeof inputs / sizeof inputs[0];
    for (unsigned i = 0; i < n; i++) {
        for (unsigned j = i; j < n; j += 3) {
            uint64_t a = inputs[i], b = inputs[j];
            print("a ");
            print_hex(a);
            print(" b ");
            print_hex(b);
            print("\n");
            show_checked("  umulh", (uint64_t)(((unsigned __int128)a * b) >> 64), model_umulh(a, b));
            show_checked("  smulh", (uint64_t)(((__int128)(int64_t)a * (int64_t)b) >> 64),
                         model_smulh((int64_t)a, (int64_t)b));
            show("  mul", a * b);
            show("  umull", (uint64_t)(uint32_t)a * (uint32_t)b);
            show("  smull", (uint64_t)((int64_t)(int32_t)a * (int32_t)b));
            uint64_t r;
            __asm__("umaddl %0, %w1, %w2, %3" : "=r"(r) : "r"(a), "r"(b), "r"(a ^ b));
            show("  umaddl", r);
            __asm__("smsubl %0, %w1, %w2, %3" : "=r"(r) : "r"(a), "r"(b), "r"(a + b));
            show("  smsubl", r);
            __asm__("madd %w0, %w1, %w2, %w3" : "=r"(r) : "r"(a), "r"(b), "r"(~a));
            show("  madd w", r);
            __asm__("msub %0, %1, %2, %3" : "=r"(r) : "r"(a), "r"(b), "r"(b));
            show("  msub x", r);
        }
    }
}

/* ---- condition codes --------------------------------------------------------------------------------------- */

#define CSET_BIT(cond, bit) "cset %[t], " #cond "\n\torr %[r], %[r], %[t], lsl #" #bit "\n\t"
#define ALL_CONDITIONS                                                                                             \
    CSET_BIT(eq, 0) CSET_BIT(ne, 1) CSET_BIT(hs, 2) CSET_BIT(lo, 3) CSET_BIT(mi, 4) CSET_BIT(pl, 5)                \
    CSET_BIT(vs, 6) CSET_BIT(vc, 7) CSET_BIT(hi, 8) CSET_BIT(ls, 9) CSET_BIT(ge, 10) CSET_BIT(lt, 11)              \
    CSET_BIT(gt, 12) CSET_BIT(le, 13)

/* Bit i set when condition i (eq ne hs lo mi pl vs vc hi ls ge lt gt le) holds after `cmp a, b`. */
static uint64_t conditions_x(uint64_t a, uint64_t b) {
    uint64_t r, t;
    __asm__("cmp %[a], %[b]\n\tmov %[r], #0\n\t" ALL_CONDITIONS : [r] "=&r"(r), [t] "=&r"(t) : [a] "r"(a), [b] "r"(b)
            : "cc");
    return r;
}

static uint64_t conditions_w(uint64_t a, uint64_t b) {
    uint64_t r, t;
    __asm__("cmp %w[a], %w[b]\n\tmov %[r], #0\n\t" ALL_CONDITIONS : [r] "=&r"(r), [t] "=&r"(t) : [a] "r"(a), [b] "r"(b)
            : "cc");
    return r;
}

/* NZCV (bits 31..28, shifted down to 3..0) after each flag-setting operation, with C set to `carry_in` first. */
#define FLAGS_OP(mnemonic, width)                                                                                  \
    static uint64_t flags_##mnemonic##_##width(uint64_t a, uint64_t b, uint64_t carry_in, uint64_t *result) {      \
        uint64_t r, nzcv;                                                                                          \
        __asm__("msr nzcv, %[c]\n\t" #mnemonic " %" #width "[r], %" #width "[a], %" #width "[b]\n\tmrs %[f], nzcv" \
                : [r] "=&r"(r), [f] "=r"(nzcv)                                                                     \
                : [a] "r"(a), [b] "r"(b), [c] "r"(carry_in << 29)                                                  \
                : "cc");                                                                                           \
        *result = r;                                                                                               \
        return nzcv >> 28;                                                                                         \
    }
FLAGS_OP(adds, x)
FLAGS_OP(adds, w)
FLAGS_OP(subs, x)
FLAGS_OP(subs, w)
FLAGS_OP(adcs, x)
FLAGS_OP(adcs, w)
FLAGS_OP(sbcs, x)
FLAGS_OP(sbcs, w)

static void show_flags(const char *label, uint64_t result, uint64_t nzcv) {
    print(label);
    print(" = ");
    print_hex(result);
    print(" nzcv ");
    for (int bit = 3; bit >= 0; bit--) {
        print_char((nzcv >> bit) & 1 ? "VCZN"[bit] : '-');
    }
    print("\n");
}

static void conditions(void) {
    heading("condition codes");
    static const uint64_t values[] = {0, 1, 2, 0x7fffffff, 0x80000000, 0xffffffff, 0x7fffffffffffffffull,
                                      0x8000000000000000ull, 0xffffffffffffffffull, 0x100000000ull};
    const unsigned n = sizeof values / sizeof values[0];
    for (unsigned i = 0; i < n; i++) {
        for (unsigned j = 0; j < n; j++) {
            uint64_t a = values[i], b = values[j];
            uint64_t x = conditions_x(a, b), w = conditions_w(a, b);
            print("cmp ");
            print_hex(a);
            print(", ");
            print_hex(b);
            print(": x ");
            print_hex_digits(x, 4);
            print(" w ");
            print_hex_digits(w, 4);
            print("\n");
            /* Checkable against C comparisons: eq, ne, hs, lo, hi, ls (unsigned) and ge, lt, gt, le (signed). */
            uint64_t model = (a == b) << 0 | (a != b) << 1 | (a >= b) << 2 | (a < b) << 3 | (a > b) << 8 |
                             (a <= b) << 9 | ((int64_t)a >= (int64_t)b) << 10 | ((int64_t)a < (int64_t)b) << 11 |
                             ((int64_t)a > (int64_t)b) << 12 | ((int64_t)a <= (int64_t)b) << 13;
            check((x & 0x3f0f) == model, "cmp x conditions");
            uint32_t aw = (uint32_t)a, bw = (uint32_t)b;
            uint64_t model_w = (uint64_t)(aw == bw) << 0 | (uint64_t)(aw != bw) << 1 | (uint64_t)(aw >= bw) << 2 |
                               (uint64_t)(aw < bw) << 3 | (uint64_t)(aw > bw) << 8 | (uint64_t)(aw <= bw) << 9 |
                               (uint64_t)((int32_t)aw >= (int32_t)bw) << 10 |
                               (uint64_t)((int32_t)aw < (int32_t)bw) << 11 |
                               (uint64_t)((int32_t)aw > (int32_t)bw) << 12 |
                               (uint64_t)((int32_t)aw <= (int32_t)bw) << 13;
            check((w & 0x3f0f) == model_w, "cmp w conditions");
        }
    }

    static const uint64_t pairs[][2] = {
        {0, 0}, {1, 0xffffffffffffffffull}, {0x7fffffffffffffffull, 1}, {0x8000000000000000ull, 0x8000000000000000ull},
        {0x7fffffff, 1}, {0x80000000, 0x80000000}, {0xffffffff, 1}, {5, 7}, {0x8000000000000000ull, 1},
    };
    for (unsigned i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        uint64_t a = pairs[i][0], b = pairs[i][1], r, f;
        print("operands ");
        print_hex(a);
        print(", ");
        print_hex(b);
        print("\n");
        f = flags_adds_x(a, b, 0, &r);
        show_flags("  adds x", r, f);
        f = flags_adds_w(a, b, 0, &r);
        show_flags("  adds w", r, f);
        f = flags_subs_x(a, b, 0, &r);
        show_flags("  subs x", r, f);
        f = flags_subs_w(a, b, 0, &r);
        show_flags("  subs w", r, f);
        for (uint64_t carry = 0; carry < 2; carry++) {
            f = flags_adcs_x(a, b, carry, &r);
            show_flags(carry ? "  adcs x C=1" : "  adcs x C=0", r, f);
            f = flags_adcs_w(a, b, carry, &r);
            show_flags(carry ? "  adcs w C=1" : "  adcs w C=0", r, f);
            f = flags_sbcs_x(a, b, carry, &r);
            show_flags(carry ? "  sbcs x C=1" : "  sbcs x C=0", r, f);
            f = flags_sbcs_w(a, b, carry, &r);
            show_flags(carry ? "  sbcs w C=1" : "  sbcs w C=0", r, f);
        }
    }

    /* The csel family and ccmp on fixed inputs. */
    uint64_t r;
    __asm__("cmp %1, %2\n\tcsel %0, %1, %2, lt" : "=r"(r) : "r"(3ull), "r"(-5ull) : "cc");
    show_checked("csel lt (signed min of 3, -5)", r, -5ull);
    __asm__("cmp %1, %2\n\tcsinc %0, %1, %2, eq" : "=r"(r) : "r"(3ull), "r"(9ull) : "cc");
    show_checked("csinc ne path", r, 10);
    __asm__("cmp %1, %2\n\tcsinv %0, %1, %2, hi" : "=r"(r) : "r"(3ull), "r"(9ull) : "cc");
    show_checked("csinv", r, ~9ull);
    __asm__("cmp %1, %2\n\tcsneg %0, %1, %2, hi" : "=r"(r) : "r"(3ull), "r"(9ull) : "cc");
    show_checked("csneg", r, -9ull);
    __asm__("cmp %w1, %w2\n\tcsneg %w0, %w1, %w2, ls" : "=r"(r) : "r"(3ull), "r"(9ull) : "cc");
    show_checked("csneg w taken", r, 3);
    __asm__("cmp %1, #0\n\tcinc %0, %1, ne" : "=r"(r) : "r"(0xffffffffffffffffull) : "cc");
    show_checked("cinc wraps", r, 0);
    __asm__("cmp %1, %2\n\tcsetm %0, ge" : "=r"(r) : "r"(1ull), "r"(1ull) : "cc");
    show_checked("csetm", r, ~0ull);
    /* ccmp: a == 4 && b == 6, then b > 6 (false), then ccmn's immediate nzcv when the first test fails. */
    __asm__("cmp %1, #4\n\tccmp %2, #6, #0, eq\n\tcset %0, eq" : "=r"(r) : "r"(4ull), "r"(6ull) : "cc");
    show_checked("ccmp both equal", r, 1);
    __asm__("cmp %1, #4\n\tccmp %2, #6, #4, ne\n\tcset %0, eq" : "=r"(r) : "r"(4ull), "r"(7ull) : "cc");
    show_checked("ccmp skipped, nzcv #4 (Z)", r, 1);
    __asm__("cmp %1, #5\n\tccmn %2, #1, #2, eq\n\tmrs %0, nzcv" : "=r"(r) : "r"(4ull), "r"(-1ull) : "cc");
    show_checked("ccmn skipped, nzcv #2 (C)", r >> 28, 2);
    __asm__("cmp %1, #4\n\tccmn %2, #1, #2, eq\n\tmrs %0, nzcv" : "=r"(r) : "r"(4ull), "r"(-1ull) : "cc");
    show_checked("ccmn -1 + 1 (ZC)", r >> 28, 6);
}

/* ---- shifts, bitfields, extends, loads --------------------------------------------------------------------- */

static void shifts(void) {
    heading("shifts by register (amount modulo the width)");
    static const uint64_t amounts[] = {0, 1, 31, 32, 33, 63, 64, 65, 0xffffffffffffffffull};
    const uint64_t x = 0x8123456789abcdefull;
    for (unsigned i = 0; i < sizeof amounts / sizeof amounts[0]; i++) {
        uint64_t s = amounts[i], r;
        print("amount ");
        print_hex(s);
        print("\n");
        __asm__("lsl %0, %1, %2" : "=r"(r) : "r"(x), "r"(s));
        show_checked("  lslv x", r, x << (s & 63));
        __asm__("lsr %0, %1, %2" : "=r"(r) : "r"(x), "r"(s));
        show_checked("  lsrv x", r, x >> (s & 63));
        __asm__("asr %0, %1, %2" : "=r"(r) : "r"(x), "r"(s));
        show_checked("  asrv x", r, (uint64_t)((int64_t)x >> (s & 63)));
        __asm__("ror %0, %1, %2" : "=r"(r) : "r"(x), "r"(s));
        show_checked("  rorv x", r, (s & 63) ? (x >> (s & 63)) | (x << (64 - (s & 63))) : x);
        uint32_t w = (uint32_t)x;
        __asm__("lsl %w0, %w1, %w2" : "=r"(r) : "r"((uint64_t)w), "r"(s));
        show_checked("  lslv w", r, (uint32_t)(w << (s & 31)));
        __asm__("asr %w0, %w1, %w2" : "=r"(r) : "r"((uint64_t)w), "r"(s));
        show_checked("  asrv w", r, (uint32_t)((int32_t)w >> (s & 31)));
        __asm__("ror %w0, %w1, %w2" : "=r"(r) : "r"((uint64_t)w), "r"(s));
        show_checked("  rorv w", r, (s & 31) ? (uint32_t)((w >> (s & 31)) | (w << (32 - (s & 31)))) : w);
    }

    heading("bitfields");
    uint64_t r;
    __asm__("ubfx %0, %1, #60, #4" : "=r"(r) : "r"(x));
    show_checked("ubfx 60,4", r, 0x8);
    __asm__("sbfx %0, %1, #60, #4" : "=r"(r) : "r"(x));
    show_checked("sbfx 60,4", r, 0xfffffffffffffff8ull);
    __asm__("sbfiz %0, %1, #8, #12" : "=r"(r) : "r"(0xabcull));
    show_checked("sbfiz 8,12", r, 0xfffffffffffabc00ull);
    r = 0xffffffffffffffffull;
    __asm__("bfi %0, %1, #16, #8" : "+r"(r) : "r"(0x1234ull));
    show_checked("bfi 16,8", r, 0xffffffffff34ffffull);
    r = 0;
    __asm__("bfxil %0, %1, #4, #12" : "+r"(r) : "r"(x));
    show_checked("bfxil 4,12", r, 0xcde);
    __asm__("extr %0, %1, %2, #12" : "=r"(r) : "r"(0x1111111111111abcull), "r"(x));
    show_checked("extr 12", r, 0xabc8123456789abcull);
    __asm__("extr %w0, %w1, %w2, #4" : "=r"(r) : "r"(0x12345678ull), "r"(0x9abcdef0ull));
    show_checked("extr w 4", r, 0x89abcdef);
    __asm__("sxtb %0, %w1" : "=r"(r) : "r"(0x80ull));
    show_checked("sxtb", r, 0xffffffffffffff80ull);
    __asm__("sxth %0, %w1" : "=r"(r) : "r"(0x18000ull));
    show_checked("sxth", r, 0xffffffffffff8000ull);
    __asm__("sxtw %0, %w1" : "=r"(r) : "r"(0x180000000ull));
    show_checked("sxtw", r, 0xffffffff80000000ull);
    __asm__("uxtb %w0, %w1" : "=r"(r) : "r"(0x1ffull));
    show_checked("uxtb", r, 0xff);

    heading("extended-register arithmetic");
    __asm__("add %0, %1, %w2, sxtb #2" : "=r"(r) : "r"(1000ull), "r"(0x180ull));
    show_checked("add sxtb #2", r, 1000 - 512);
    __asm__("add %0, %1, %w2, uxth #4" : "=r"(r) : "r"(1ull), "r"(0x1ffffull));
    show_checked("add uxth #4", r, 1 + 0xffff0ull);
    __asm__("sub %0, %1, %w2, sxtw #3" : "=r"(r) : "r"(0ull), "r"(0xffffffffull));
    show_checked("sub sxtw #3", r, 8);
    __asm__("add %0, sp, #0\n\tsub %0, %0, %1, uxtx #0\n\tsub %0, sp, %0" : "=&r"(r) : "r"(24ull));
    show_checked("sp - x, uxtx", r, 24);
    __asm__("adds %w0, %w1, %w2, uxtb" : "=r"(r) : "r"(0xffffff00ull), "r"(0x1ffull) : "cc");
    show_checked("adds w uxtb", r, 0xffffffffull);

    heading("sign-extending loads");
    static volatile uint8_t bytes[8] = {0x80, 0x7f, 0xff, 0x01, 0x00, 0x80, 0xff, 0xff};
    show_checked("ldrsb", (uint64_t)(int64_t)(int8_t)bytes[0], 0xffffffffffffff80ull);
    show_checked("ldrb", (uint64_t)bytes[0], 0x80);
    uint64_t v;
    __asm__ volatile("ldrsb %w0, [%1]" : "=r"(v) : "r"(bytes) : "memory");
    show_checked("ldrsb w (upper half zero)", v, 0xffffff80ull);
    __asm__ volatile("ldrsh %0, [%1, #2]" : "=r"(v) : "r"(bytes) : "memory");
    show_checked("ldrsh x (positive)", v, 0x1ff);
    __asm__ volatile("ldrsh %w0, [%1, #4]" : "=r"(v) : "r"(bytes) : "memory");
    show_checked("ldrsh w", v, 0xffff8000ull);
    __asm__ volatile("ldrsw %0, [%1, #4]" : "=r"(v) : "r"(bytes) : "memory");
    show_checked("ldrsw", v, 0xffffffffffff8000ull);
    uint64_t base = (uint64_t)bytes + 8, loaded;
    __asm__ volatile("ldrsb %0, [%1, #-1]!" : "=r"(loaded), "+r"(base) : : "memory");
    show_checked("ldrsb pre-index writes back", (uint64_t)bytes + 7 - base, 0);
    show_checked("ldrsb pre-index value", loaded, ~0ull);
}

int main(void) {
    print("isa: integer ISA corners\n");
    division();
    crc();
    atomics();
    exclusives();
    bits();
    multiplies();
    conditions();
    shifts();
    print("isa: ");
    print_u64((uint64_t)failures());
    print(" failures\n");
    return failures() == 0 ? 0 : 1;
}
