/* Horizon only: two threads take two mutexes in opposite orders and wait for each other forever. Tandem must stop
 * with a deadlock report that names both threads and the mutex each one waits for, and exit non-zero. */
#include "horizon.h"
#include "tandem.h"

static Mutex first, second;
static uint8_t stack[0x4000] __attribute__((aligned(16)));

static void other(void *argument) {
    (void)argument;
    mutex_lock(&second);
    mutex_lock(&first);
}

int main(void) {
    print("crash_deadlock: two threads, two mutexes, opposite orders\n");
    mutex_lock(&first);
    Thread thread;
    thread_create(&thread, other, 0, stack + sizeof stack, 50, 0);
    thread_start(&thread);
    svc_sleep_thread(1000000); /* the other thread takes `second`, then waits for `first` */
    mutex_lock(&second);
    print("not reached\n");
    return 1;
}
