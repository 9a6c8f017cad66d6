/* The smallest program: one line of output, exit status 0. Checks entry, crt0, output and a clean exit. */
#include "tandem.h"

int main(void) {
    print("Hello from Tandem!\n");
    return 0;
}
