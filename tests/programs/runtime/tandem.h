/* The runtime every guest test program uses, on both flavours: Horizon (an NRO that Tandem runs) and Linux (a static
 * ELF that qemu-aarch64 runs as the oracle). Programs written against this header print byte-identical output on
 * both, so the two runs can be compared byte for byte.
 *
 * Output is buffered per line: each complete line (newline included) leaves in one OutputDebugString (Horizon) or one
 * write(1, ...) (Linux). A line longer than the buffer leaves in pieces; exit_program flushes a partial last line.
 *
 * No floating point in the runtime or the integer tests: they are built with -mgeneral-regs-only (only the FP
 * benchmark, neonloop.c, is not). */
#ifndef TANDEM_H
#define TANDEM_H

#include <stddef.h>
#include <stdint.h>

/* Appends text to the current line; each '\n' ends the line and sends it. */
void print(const char *s);
/* Decimal, unsigned and signed. */
void print_u64(uint64_t v);
void print_i64(int64_t v);
/* "0x" and lower-case hex digits without leading zeros: 0x0, 0x1f, 0xffffffffffffffff. */
void print_hex(uint64_t v);
/* "0x" and exactly `digits` lower-case hex digits (1..16), for columns. */
void print_hex_digits(uint64_t v, int digits);
void print_char(char c);

/* Flushes the current line, then ends the program. Horizon: 0 -> svcExitProcess; anything else -> svcBreak(reason =
 * code, 0, 0), which Tandem reports as a failure. Linux: exit_group(code). */
_Noreturn void exit_program(int code);

/* A monotonic counter at 19.2 MHz (Horizon: svcGetSystemTick; Linux: CLOCK_MONOTONIC scaled). Never print it: the
 * values differ between runs and flavours; only differences and comparisons are meaningful. */
uint64_t ticks(void);

/* Ours, because there is no libc; the compiler emits calls to the first three. */
void *memcpy(void *restrict dst, const void *restrict src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);

/* Prints "FAIL: what" and counts a failure when `ok` is false. */
void check(int ok, const char *what);
/* Failures counted by check() so far. */
int failures(void);

/* The platform layer under the runtime: one per flavour (runtime/horizon, runtime/linux). */
void platform_write(const char *s, size_t len);
_Noreturn void platform_exit(int code);
uint64_t platform_ticks(void);
/* Shows an RGBA picture (R in the low byte), each pixel as a `scale` x `scale` block (`width * scale` <= 320), on the
 * platform's display: on Horizon drawn by the GPU and shown through vi (tandem run --headless --frames DIR writes
 * it); Linux has none. 0 when shown, or when there is no display. */
int platform_show_picture(const uint32_t *rgba, uint32_t width, uint32_t height, uint32_t scale);

#endif
