/* Horizon only. Prints a line, then exit_program(3): svcBreak(reason 3, 0, 0), which Tandem must report as a
 * failure (naming the reason) with a non-zero exit. */
#include "tandem.h"

int main(void) {
    print("crash_break: exit_program(3)\n");
    exit_program(3);
}
