/* The Horizon platform layer: output through svcOutputDebugString, exit through svcExitProcess or svcBreak. */
#include "../tandem.h"
#include "horizon.h"

void platform_write(const char *s, size_t len) {
    svc_output_debug_string(s, len);
}

_Noreturn void platform_exit(int code) {
    if (code != 0) {
        /* Reason = the exit code (bit 31 clear: not a notification), so the kernel stops the process and reports it. */
        svc_break((uint32_t)code, 0, 0);
    }
    svc_exit_process();
}

uint64_t platform_ticks(void) {
    return svc_get_system_tick();
}
