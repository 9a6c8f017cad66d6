/* The Linux platform layer (the oracle under qemu-aarch64): raw system calls, no libc. */
#include "../tandem.h"

#define SYS_WRITE 64
#define SYS_EXIT_GROUP 94
#define SYS_CLOCK_GETTIME 113
#define CLOCK_MONOTONIC 1

static int64_t syscall3(uint64_t number, uint64_t a0, uint64_t a1, uint64_t a2) {
    register uint64_t x8 __asm__("x8") = number;
    register uint64_t x0 __asm__("x0") = a0;
    register uint64_t x1 __asm__("x1") = a1;
    register uint64_t x2 __asm__("x2") = a2;
    __asm__ volatile("svc #0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2) : "memory");
    return (int64_t)x0;
}

void platform_write(const char *s, size_t len) {
    while (len > 0) {
        int64_t written = syscall3(SYS_WRITE, 1, (uint64_t)s, len);
        if (written <= 0) {
            return;
        }
        s += written;
        len -= (size_t)written;
    }
}

_Noreturn void platform_exit(int code) {
    for (;;) {
        syscall3(SYS_EXIT_GROUP, (uint64_t)(uint32_t)code, 0, 0);
    }
}

uint64_t platform_ticks(void) {
    struct {
        int64_t seconds;
        int64_t nanoseconds;
    } now = {0, 0};
    syscall3(SYS_CLOCK_GETTIME, CLOCK_MONOTONIC, (uint64_t)&now, 0);
    /* 19.2 MHz: 96 ticks every 5000 ns. */
    return (uint64_t)now.seconds * 19200000u + (uint64_t)now.nanoseconds * 96u / 5000u;
}

/* A terminal has no display for pictures. */
int platform_show_picture(const uint32_t *rgba, uint32_t width, uint32_t height, uint32_t scale) {
    (void)rgba;
    (void)width;
    (void)height;
    (void)scale;
    return 0;
}
