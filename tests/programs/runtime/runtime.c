/* The flavour-independent part of the runtime: line-buffered printing, number formatting, memory functions. */
#include "tandem.h"

#define LINE_CAPACITY 256

static char line[LINE_CAPACITY];
static size_t line_length;
static int failure_count;

static void flush_line(void) {
    if (line_length > 0) {
        platform_write(line, line_length);
        line_length = 0;
    }
}

void print_char(char c) {
    if (line_length == LINE_CAPACITY) {
        flush_line();
    }
    line[line_length++] = c;
    if (c == '\n') {
        flush_line();
    }
}

void print(const char *s) {
    while (*s != '\0') {
        print_char(*s++);
    }
}

void print_u64(uint64_t v) {
    char digits[20];
    int count = 0;
    do {
        digits[count++] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    while (count > 0) {
        print_char(digits[--count]);
    }
}

void print_i64(int64_t v) {
    if (v < 0) {
        print_char('-');
        /* Negate in unsigned arithmetic: -INT64_MIN does not fit in int64_t. */
        print_u64(0 - (uint64_t)v);
    } else {
        print_u64((uint64_t)v);
    }
}

static const char hex_digits[] = "0123456789abcdef";

void print_hex_digits(uint64_t v, int digits) {
    digits = digits < 1 ? 1 : digits > 16 ? 16 : digits;
    print("0x");
    for (int shift = 4 * (digits - 1); shift >= 0; shift -= 4) {
        print_char(hex_digits[(v >> shift) & 0xf]);
    }
}

void print_hex(uint64_t v) {
    int digits = 1;
    while (digits < 16 && (v >> (4 * digits)) != 0) {
        digits++;
    }
    print_hex_digits(v, digits);
}

_Noreturn void exit_program(int code) {
    flush_line();
    platform_exit(code);
}

uint64_t ticks(void) {
    return platform_ticks();
}

void check(int ok, const char *what) {
    if (!ok) {
        failure_count++;
        print("FAIL: ");
        print(what);
        print("\n");
    }
}

int failures(void) {
    return failure_count;
}

/* Byte loops: short, obviously right, and -ffreestanding keeps the compiler from turning them back into calls. */
void *memcpy(void *restrict dst, const void *restrict src, size_t n) {
    unsigned char *d = dst;
    const unsigned char *s = src;
    while (n-- > 0) {
        *d++ = *s++;
    }
    return dst;
}

void *memmove(void *dst, const void *src, size_t n) {
    unsigned char *d = dst;
    const unsigned char *s = src;
    if (d < s) {
        while (n-- > 0) {
            *d++ = *s++;
        }
    } else {
        while (n-- > 0) {
            d[n] = s[n];
        }
    }
    return dst;
}

void *memset(void *dst, int c, size_t n) {
    unsigned char *d = dst;
    while (n-- > 0) {
        *d++ = (unsigned char)c;
    }
    return dst;
}

int memcmp(const void *a, const void *b, size_t n) {
    const unsigned char *x = a;
    const unsigned char *y = b;
    for (size_t i = 0; i < n; i++) {
        if (x[i] != y[i]) {
            return x[i] < y[i] ? -1 : 1;
        }
    }
    return 0;
}

size_t strlen(const char *s) {
    size_t n = 0;
    while (s[n] != '\0') {
        n++;
    }
    return n;
}
