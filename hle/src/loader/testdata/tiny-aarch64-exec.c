/* Source of tiny-aarch64-exec, a static position-dependent executable: a test input of elf.rs (build command there). */
static const char message[] = "tandem";
char scratch[0x40];
void _start(void) { scratch[0] = message[0]; for (;;) {} }
