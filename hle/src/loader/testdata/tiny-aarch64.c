/* Source of tiny-aarch64.so, a test input of elf.rs (the build command is in elf.rs's tests). */
static int counter = 7;
static const char message[] = "tandem";
int *const counter_address = &counter;   /* R_AARCH64_RELATIVE */
const char *message_address = message;   /* R_AARCH64_RELATIVE */
char scratch[0x200];                     /* .bss */

int entry(int i) { scratch[i] = message[i]; return *counter_address + scratch[i]; }
