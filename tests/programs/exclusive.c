/* Exclusive access: three increments of a counter by an ldxr/add/stxr/cbnz loop, each of which succeeds at its
 * first try unless something clears the exclusive monitor between the ldxr and the stxr. Lockstep's test runs it
 * comparing every two instructions, which must not change what it retires. */
#include "tandem.h"

static uint64_t counter;

int main(void) {
    uint32_t retries = 0;
    for (int i = 0; i < 3; i++) {
        uint64_t value;
        uint32_t failed;
        __asm__ volatile("1: ldxr %0, [%3]\n\t"
                         "add %0, %0, #1\n\t"
                         "stxr %w1, %0, [%3]\n\t"
                         "cbz %w1, 2f\n\t"
                         "add %w2, %w2, #1\n\t"
                         "b 1b\n"
                         "2:"
                         : "=&r"(value), "=&r"(failed), "+r"(retries)
                         : "r"(&counter)
                         : "memory");
        (void)value;
    }
    print("counter: ");
    print_u64(counter);
    print(", retries: ");
    print_u64(retries);
    print("\n");
    return counter == 3 && retries == 0 ? 0 : 1;
}
