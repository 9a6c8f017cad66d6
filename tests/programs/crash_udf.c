/* Horizon only. Prints a line, then executes `udf #0x1234` (the word 0x00001234): Tandem must stop with a report
 * naming the undefined instruction, its address and word, and exit non-zero. */
#include "tandem.h"

int main(void) {
    print("crash_udf: executing udf #0x1234\n");
    __asm__ volatile("udf #0x1234");
    print("crash_udf: FAIL: still running after udf\n");
    return 1;
}
