/* Horizon only. Prints a line, then stores to address 0x10, in the unmapped first page: Tandem must stop with a
 * report naming a write fault at 0x10 and the storing instruction, and exit non-zero. */
#include "tandem.h"

int main(void) {
    print("crash_fault: storing to 0x10\n");
    /* Assembly, so the compiler cannot see a null-pointer store and remove it or replace it with a trap. */
    __asm__ volatile("mov x9, #0x10\n\tmov w10, #0x5a\n\tstr w10, [x9]" : : : "x9", "x10", "memory");
    print("crash_fault: FAIL: still running after the store\n");
    return 1;
}
