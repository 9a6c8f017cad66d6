/* For the Linux-only test programs: raw system calls, and the line each check prints. */
#ifndef TANDEM_LINUX_H
#define TANDEM_LINUX_H

#include "tandem.h"

static inline long sys6(long n, long a, long b, long c, long d, long e, long f) {
    register long x8 __asm__("x8") = n;
    register long x0 __asm__("x0") = a;
    register long x1 __asm__("x1") = b;
    register long x2 __asm__("x2") = c;
    register long x3 __asm__("x3") = d;
    register long x4 __asm__("x4") = e;
    register long x5 __asm__("x5") = f;
    __asm__ volatile("svc #0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5) : "memory");
    return x0;
}
/* sys(number, arguments...): up to six, the rest zero. */
#define sys(n, ...) sys6_((n), __VA_ARGS__, 0, 0, 0, 0, 0, 0)
#define sys6_(n, a, b, c, d, e, f, ...) sys6((n), (long)(a), (long)(b), (long)(c), (long)(d), (long)(e), (long)(f))

/* Prints "what: got" and counts a failure (through the runtime's check) when it is not `expected`. */
static inline void expect(const char *what, long got, long expected) {
    print(what);
    print(": ");
    print_i64(got);
    if (got != expected) {
        print(" (expected ");
        print_i64(expected);
        print(")");
    }
    print("\n");
    check(got == expected, what);
}

#endif
