/* The demo `tandem` carries inside its binary: something to watch in a terminal while the interpreter works.
 *
 * An ASCII Mandelbrot set in fixed-point integer arithmetic, an elementary cellular automaton (rule 30), a prime
 * sieve, and a CRC32-C of everything drawn. Integer only (no FP in the interpreter yet); about 15 M instructions.
 * It checks its own arithmetic (known prime counts) and exits non-zero if anything is off. Where there is a display
 * (Horizon), the Mandelbrot set is shown in colour too, drawn by the GPU: a texel a character cell, magnified four
 * times by a textured quad. */
#include "tandem.h"

static uint32_t picture_crc = 0xffffffffu;

/* Prints a finished line and folds it into the checksum. */
static void emit(const char *line) {
    for (const char *p = line; *p != '\0'; p++) {
        picture_crc = __builtin_arm_crc32cb(picture_crc, (uint8_t)*p);
    }
    print(line);
    print("\n");
}

/* ---- Mandelbrot ---------------------------------------------------------------------------------------------- */

#define FRACTION_BITS 24
#define ONE (1LL << FRACTION_BITS)
#define WIDTH 78
#define HEIGHT 32
#define MAX_ITERATIONS 160

/* Iterations before z = z^2 + c leaves the radius-2 disc, or MAX_ITERATIONS if it stays. */
static int escape_time(int64_t cr, int64_t ci) {
    int64_t zr = 0, zi = 0;
    for (int n = 0; n < MAX_ITERATIONS; n++) {
        int64_t zr2 = (zr * zr) >> FRACTION_BITS;
        int64_t zi2 = (zi * zi) >> FRACTION_BITS;
        if (zr2 + zi2 > 4 * ONE) {
            return n;
        }
        zi = ((zr * zi) >> (FRACTION_BITS - 1)) + ci;
        zr = zr2 - zi2 + cr;
    }
    return MAX_ITERATIONS;
}

/* The picture: each character cell its band's colour, shown as a 4 x 4 block. */
#define CELL 4
static uint32_t picture[HEIGHT][WIDTH];

/* RGBA colours (R in the low byte) of the bands, dark blue to white; the set itself black. */
static const uint32_t band_colours[] = {0xFF200800, 0xFF3F0F00, 0xFF5F1F08, 0xFF7F2F10, 0xFF9F3F18,
                                        0xFFBF4F20, 0xFFCF6F30, 0xFFDF8F40, 0xFFEFAF60, 0xFFFFCF80,
                                        0xFFFFDFA0, 0xFFFFEFC0, 0xFFFFFFE0, 0xFF000000};
_Static_assert(sizeof band_colours / sizeof band_colours[0] == 14, "a colour for each shade but the last char");

static void mandelbrot(void) {
    /* A shade for each band of escape times, the last for points that never escape. */
    static const char shades[] = " .,:;-=+*o%#&@";
    static const int band_ends[] = {2, 3, 4, 5, 6, 8, 11, 15, 22, 32, 48, 80, MAX_ITERATIONS};
    /* Real part -2.2 .. 0.8, imaginary part -1.2 .. 1.2 (characters are about twice as tall as wide). */
    const int64_t left = -22 * ONE / 10, width = 30 * ONE / 10;
    const int64_t top = 12 * ONE / 10, height = 24 * ONE / 10;
    char line[WIDTH + 1];
    for (int row = 0; row < HEIGHT; row++) {
        int64_t ci = top - height * row / (HEIGHT - 1);
        for (int column = 0; column < WIDTH; column++) {
            int64_t cr = left + width * column / (WIDTH - 1);
            int n = escape_time(cr, ci);
            int band = 0;
            if (n == MAX_ITERATIONS) {
                band = (int)sizeof shades - 2;
            } else {
                while (band_ends[band] <= n) {
                    band++;
                }
            }
            line[column] = shades[band];
            picture[row][column] = band_colours[band];
        }
        line[WIDTH] = '\0';
        emit(line);
    }
}

/* ---- rule 30 --------------------------------------------------------------------------------------------------- */

#define CELLS 78
#define GENERATIONS 24

static void rule30(void) {
    uint8_t cells[CELLS] = {0}, next[CELLS];
    cells[CELLS / 2] = 1;
    char line[CELLS + 1];
    for (int generation = 0; generation < GENERATIONS; generation++) {
        for (int i = 0; i < CELLS; i++) {
            line[i] = cells[i] ? '#' : ' ';
        }
        line[CELLS] = '\0';
        emit(line);
        for (int i = 0; i < CELLS; i++) {
            int left = i > 0 ? cells[i - 1] : 0, right = i + 1 < CELLS ? cells[i + 1] : 0;
            next[i] = (uint8_t)((30 >> (left << 2 | cells[i] << 1 | right)) & 1);
        }
        memcpy(cells, next, sizeof cells);
    }
}

/* ---- primes ---------------------------------------------------------------------------------------------------- */

#define LIMIT 1000000

/* Bit k stands for the odd number 2k + 1; a set bit means composite. */
static uint64_t composite[LIMIT / 128 + 1];

static int is_odd_prime(uint32_t n) {
    uint32_t k = n >> 1;
    return !((composite[k >> 6] >> (k & 63)) & 1);
}

static int primes(void) {
    for (uint32_t p = 3; p * p < LIMIT; p += 2) {
        if (is_odd_prime(p)) {
            for (uint32_t m = p * p; m < LIMIT; m += 2 * p) {
                uint32_t k = m >> 1;
                composite[k >> 6] |= 1ull << (k & 63);
            }
        }
    }
    uint32_t count = 1, twins = 0, largest = 2, previous = 2, widest_gap = 0, gap_after = 0;
    for (uint32_t n = 3; n < LIMIT; n += 2) {
        if (is_odd_prime(n)) {
            count++;
            if (n - previous == 2) {
                twins++;
            }
            if (n - previous > widest_gap) {
                widest_gap = n - previous;
                gap_after = previous;
            }
            previous = largest = n;
        }
    }
    print("Primes below 1000000: ");
    print_u64(count);
    print(", the largest ");
    print_u64(largest);
    print(", twin pairs ");
    print_u64(twins);
    print(", widest gap ");
    print_u64(widest_gap);
    print(" after ");
    print_u64(gap_after);
    print("\n");
    /* pi(10^6) = 78498; 8169 twin pairs below 10^6; the widest gap below 10^6 is 114, after 492113. */
    int ok = count == 78498 && largest == 999983 && twins == 8169 && widest_gap == 114 && gap_after == 492113;
    check(ok, "prime sieve results differ from the known values");
    return ok;
}

int main(void) {
    print("Tandem demo: integer-only guest code\n");
    print("\n");
    print("The Mandelbrot set, in 8.24 fixed point:\n");
    mandelbrot();
    print("\n");
    print("Rule 30, from one cell:\n");
    rule30();
    print("\n");
    primes();
    print("CRC32-C of the pictures: ");
    print_hex_digits(~picture_crc, 8);
    print("\n");
    check(platform_show_picture(&picture[0][0], WIDTH, HEIGHT, CELL) == 0, "showing the picture");
    print(failures() == 0 ? "All good.\n" : "Something is off.\n");
    return failures() == 0 ? 0 : 1;
}
