/* Horizon only: prints a line, then calls an SVC Tandem's kernel does not implement (0x7F, CallSecureMonitor).
 * Tandem must stop with a report that names the SVC, and exit non-zero. */
#include "tandem.h"

int main(void) {
    print("crash_svc: calling SVC 0x7F\n");
    __asm__ volatile("svc #0x7f" ::: "memory");
    return 0;
}
