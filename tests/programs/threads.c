/* Horizon only: threads and the scheduler. Every order and value checked here follows from Horizon's documented
 * rules (switchbrew "SVC"; the scheduler's behaviour as mesosphère implements it), not from an earlier run:
 *
 * - a created thread runs only after StartThread; priorities run from 0 (highest) to 63; a runnable thread of a
 *   better priority takes its core at once; a worse one waits until the better ones block;
 * - threads of equal priority share a core only when they yield (SleepThread(0): to the back of the line), except
 *   at priority 59, which the preemption timer rotates every 10 ms on the application cores;
 * - threads on different cores run at the same time (here: spin on each other's stores without any SVC);
 * - a thread's handle is signalled when it exits; the process ends when its last thread exits;
 * - SetThreadActivity pauses a thread, GetThreadContext3 reads a paused thread's registers (X0-X18 read 0 and PC is
 *   the SVC instruction while it is inside a blocking SVC), CancelSynchronization ends or pre-empts a wait.
 *
 * Worker threads never print: they append to a log that the main thread prints and checks. The main thread runs
 * at priority 44 on core 0 (hbloader's NPDM: priorities 28-59, cores 0-2). */
#include "horizon.h"
#include "tandem.h"

#define STACK_SIZE 0x4000
#define WORKERS 4

static uint8_t stacks[WORKERS][STACK_SIZE] __attribute__((aligned(16)));

static void *stack_top(int index) {
    return stacks[index] + STACK_SIZE;
}

/* ---- the log ----------------------------------------------------------------------------------------------------- */

#define LOG_CAPACITY 64

static volatile char log_text[LOG_CAPACITY + 1];
static volatile uint32_t log_length;

static void note(char what) {
    uint32_t index = __atomic_fetch_add(&log_length, 1, __ATOMIC_RELAXED);
    if (index < LOG_CAPACITY) {
        log_text[index] = what;
    }
}

static void clear_log(void) {
    log_length = 0;
}

static int log_is(const char *expected) {
    uint32_t length = (uint32_t)strlen(expected);
    if (length != log_length) {
        return 0;
    }
    for (uint32_t i = 0; i < length; i++) {
        if (log_text[i] != expected[i]) {
            return 0;
        }
    }
    return 1;
}

static int count_in_log(char what) {
    int count = 0;
    for (uint32_t i = 0; i < log_length && i < LOG_CAPACITY; i++) {
        count += log_text[i] == what;
    }
    return count;
}

static void show_log(const char *label) {
    print(label);
    print(": \"");
    for (uint32_t i = 0; i < log_length && i < LOG_CAPACITY; i++) {
        print_char(log_text[i]);
    }
    print("\"\n");
}

/* ---- helpers ----------------------------------------------------------------------------------------------------- */

static void expect_result(const char *label, Result result, Result expected) {
    print(label);
    print(": ");
    print_hex(result);
    print(result == expected ? "\n" : " (WRONG)\n");
    check(result == expected, label);
}

/* Exactly two instructions per iteration. */
static void spin(uint32_t iterations) {
    __asm__ volatile("1: subs %w0, %w0, #1\n\tb.ne 1b" : "+r"(iterations)::"cc");
}

static void note_argument(void *argument) {
    note((char)(uintptr_t)argument);
}

static Thread workers[WORKERS];

static void start(int index, ThreadEntry entry, char argument, int32_t priority, int32_t core) {
    Result result = thread_create(&workers[index], entry, (void *)(uintptr_t)argument, stack_top(index), priority, core);
    check(result == RESULT_SUCCESS, "CreateThread");
    check(thread_start(&workers[index]) == RESULT_SUCCESS, "StartThread");
}

static void join(int index) {
    check(thread_join(&workers[index]) == RESULT_SUCCESS, "joining a thread");
}

/* ---- tests ------------------------------------------------------------------------------------------------------- */

static void basics(void) {
    print("-- create, start, join\n");
    clear_log();
    Thread *t = &workers[0];
    expect_result("CreateThread(priority 50, core 0)", thread_create(t, note_argument, (void *)(uintptr_t)'a', stack_top(0), 50, 0),
                  RESULT_SUCCESS);
    check(log_length == 0, "a created thread does not run before StartThread");
    int32_t priority = -1;
    svc_get_thread_priority(&priority, t->handle);
    check(priority == 50, "GetThreadPriority of the new thread");
    uint64_t id = 0, main_id = 0;
    expect_result("GetThreadId", svc_get_thread_id(&id, t->handle), RESULT_SUCCESS);
    svc_get_thread_id(&main_id, CURRENT_THREAD_HANDLE);
    check(id != main_id && id != 0 && main_id != 0, "threads have distinct ids");
    uint64_t pid_process = 0, pid_thread = 0;
    expect_result("GetProcessId(current process)", svc_get_process_id(&pid_process, CURRENT_PROCESS_HANDLE),
                  RESULT_SUCCESS);
    expect_result("GetProcessId(a thread)", svc_get_process_id(&pid_thread, t->handle), RESULT_SUCCESS);
    check(pid_process == pid_thread && pid_process != 0, "a thread's process is ours");
    expect_result("GetProcessId(current thread pseudo-handle)", svc_get_process_id(&pid_thread, CURRENT_THREAD_HANDLE),
                  RESULT_INVALID_HANDLE);
    int32_t index = 0;
    expect_result("WaitSynchronization on a thread not started, timeout 0",
                  svc_wait_synchronization(&index, &t->handle, 1, 0), RESULT_TIMED_OUT);
    expect_result("StartThread", thread_start(t), RESULT_SUCCESS);
    check(log_length == 0, "a worse priority on the same core waits while the starter runs");
    expect_result("StartThread again", svc_start_thread(t->handle), RESULT_INVALID_STATE);
    Handle handle = t->handle;
    expect_result("join", thread_join(t), RESULT_SUCCESS);
    check(log_is("a"), "the thread ran with its argument");
    expect_result("GetThreadId on the closed handle", svc_get_thread_id(&id, handle), RESULT_INVALID_HANDLE);
    expect_result("CloseHandle twice", svc_close_handle(handle), RESULT_INVALID_HANDLE);
    expect_result("CloseHandle(current thread pseudo-handle)", svc_close_handle(CURRENT_THREAD_HANDLE),
                  RESULT_INVALID_HANDLE);
    expect_result("GetThreadPriority(forged handle)", svc_get_thread_priority(&priority, handle ^ 0x8000u),
                  RESULT_INVALID_HANDLE);
    expect_result("GetThreadPriority(0)", svc_get_thread_priority(&priority, 0), RESULT_INVALID_HANDLE);

    Handle spare;
    expect_result("CreateThread(priority 20, outside the NPDM's 28-59)",
                  svc_create_thread(&spare, note_argument, 0, stack_top(1), 20, 0), RESULT_INVALID_PRIORITY);
    expect_result("CreateThread(priority 64)", svc_create_thread(&spare, note_argument, 0, stack_top(1), 64, 0),
                  RESULT_INVALID_PRIORITY);
    expect_result("CreateThread(core 3, the system's)", svc_create_thread(&spare, note_argument, 0, stack_top(1), 44, 3),
                  RESULT_INVALID_CORE_ID);
    expect_result("CreateThread(core 70)", svc_create_thread(&spare, note_argument, 0, stack_top(1), 44, 70),
                  RESULT_INVALID_CORE_ID);
    expect_result("CreateThread(core -2, the process's)",
                  svc_create_thread(&spare, note_argument, 0, stack_top(1), 44, CORE_USE_PROCESS_VALUE), RESULT_SUCCESS);
    int32_t core = -9;
    uint64_t mask = 0;
    svc_get_thread_core_mask(&core, &mask, spare);
    check(core == 0 && mask == 1, "the process's core is core 0, and a new thread may run on it only");
    expect_result("CloseHandle of a thread never started", svc_close_handle(spare), RESULT_SUCCESS);
}

static void priorities_and_cores(void) {
    print("-- priorities and core masks\n");
    int32_t priority = 0;
    expect_result("SetThreadPriority(current, 45)", svc_set_thread_priority(CURRENT_THREAD_HANDLE, 45), RESULT_SUCCESS);
    svc_get_thread_priority(&priority, CURRENT_THREAD_HANDLE);
    check(priority == 45, "GetThreadPriority reads the new priority");
    expect_result("SetThreadPriority(current, 27)", svc_set_thread_priority(CURRENT_THREAD_HANDLE, 27),
                  RESULT_INVALID_PRIORITY);
    svc_set_thread_priority(CURRENT_THREAD_HANDLE, 44);

    int32_t core = -9;
    uint64_t mask = 0;
    svc_get_thread_core_mask(&core, &mask, CURRENT_THREAD_HANDLE);
    check(core == 0 && mask == 1, "the main thread: ideal core 0, mask 0b1");
    check(svc_get_current_processor_number() == 0, "the main thread runs on core 0");
    expect_result("SetThreadCoreMask(current, 1, 0b110)", svc_set_thread_core_mask(CURRENT_THREAD_HANDLE, 1, 0x6),
                  RESULT_SUCCESS);
    int32_t now_on = svc_get_current_processor_number();
    print("after moving to core 1: running on core ");
    print_u64((uint64_t)now_on);
    print("\n");
    check(now_on == 1, "a thread whose core leaves its mask moves to its ideal core");
    svc_get_thread_core_mask(&core, &mask, CURRENT_THREAD_HANDLE);
    check(core == 1 && mask == 6, "GetThreadCoreMask reads the new ideal core and mask");
    expect_result("SetThreadCoreMask(mask with core 3)", svc_set_thread_core_mask(CURRENT_THREAD_HANDLE, 1, 0xA),
                  RESULT_INVALID_CORE_ID);
    expect_result("SetThreadCoreMask(mask 0)", svc_set_thread_core_mask(CURRENT_THREAD_HANDLE, 1, 0),
                  RESULT_INVALID_COMBINATION);
    expect_result("SetThreadCoreMask(core 2, mask 0b1)", svc_set_thread_core_mask(CURRENT_THREAD_HANDLE, 2, 1),
                  RESULT_INVALID_COMBINATION);
    expect_result("SetThreadCoreMask(keep ideal 1, mask 0b100)",
                  svc_set_thread_core_mask(CURRENT_THREAD_HANDLE, -3, 4), RESULT_INVALID_COMBINATION);
    expect_result("SetThreadCoreMask(core -5)", svc_set_thread_core_mask(CURRENT_THREAD_HANDLE, -5, 1),
                  RESULT_INVALID_CORE_ID);
    expect_result("SetThreadCoreMask(no ideal core, mask 0b100)",
                  svc_set_thread_core_mask(CURRENT_THREAD_HANDLE, -1, 4), RESULT_SUCCESS);
    check(svc_get_current_processor_number() == 2, "without an ideal core: the highest core of the mask");
    expect_result("SetThreadCoreMask(the process's core)",
                  svc_set_thread_core_mask(CURRENT_THREAD_HANDLE, CORE_USE_PROCESS_VALUE, 0), RESULT_SUCCESS);
    check(svc_get_current_processor_number() == 0, "back on core 0");
    svc_get_thread_core_mask(&core, &mask, CURRENT_THREAD_HANDLE);
    check(core == 0 && mask == 1, "the process's core, alone in the mask");
}

static void preemption_by_priority(void) {
    print("-- a better priority runs at once\n");
    clear_log();
    start(0, note_argument, 'H', 40, 0);
    show_log("right after starting a priority-40 thread");
    check(log_is("H"), "the priority-40 thread ran before StartThread returned to the priority-44 caller");
    join(0);
}

static void yielder(void *argument) {
    for (int i = 0; i < 3; i++) {
        note((char)(uintptr_t)argument);
        svc_sleep_thread(0);
    }
}

static void round_robin_on_yield(void) {
    print("-- equal priorities take turns when they yield\n");
    clear_log();
    start(0, yielder, 'A', 45, 0);
    start(1, yielder, 'B', 45, 0);
    start(2, yielder, 'C', 45, 0);
    check(log_length == 0, "priority-45 threads wait while the priority-44 thread runs");
    join(0);
    join(1);
    join(2);
    show_log("three threads yielding at priority 45");
    check(log_is("ABCABCABC"), "yield sends a thread behind the others of its priority");
}

static void worker(void *argument) {
    for (int i = 0; i < 3; i++) {
        spin(200000);
        note((char)(uintptr_t)argument);
    }
}

static void no_time_slicing(void) {
    print("-- equal priorities do not share a core without yielding\n");
    clear_log();
    start(0, worker, 'A', 46, 0);
    start(1, worker, 'B', 46, 0);
    join(0);
    join(1);
    show_log("two busy threads at priority 46");
    check(log_is("AAABBB"), "the first runs to its end, many quanta long, before the second starts");
}

static void long_worker(void *argument) {
    int chunks = (char)(uintptr_t)argument == 'A' ? 11 : 2;
    for (int i = 0; i < chunks; i++) {
        spin(480000); /* 960000 instructions: a millisecond of guest time (19200 ticks of 50 instructions) */
        note((char)(uintptr_t)argument);
    }
}

static void preemption_timer(void) {
    print("-- the preemption timer rotates priority 59\n");
    clear_log();
    start(0, long_worker, 'A', 59, 0);
    start(1, long_worker, 'B', 59, 0);
    join(0);
    join(1);
    show_log("two busy threads at priority 59");
    check(count_in_log('A') == 11 && count_in_log('B') == 2, "every chunk ran");
    /* A alone runs 11 ms, longer than the 10 ms period, so a rotation comes while it still has chunks left (other
     * cores are idle, so guest time is A's own instructions). */
    check(log_text[log_length - 1] == 'A', "B got the core before A finished");
}

static volatile uint32_t flag;
static volatile int32_t seen_core[2];

static void ping(void *argument) {
    (void)argument;
    seen_core[0] = svc_get_current_processor_number();
    flag = 1;
    while (flag != 2) {
    }
    note('p');
}

static void pong(void *argument) {
    (void)argument;
    seen_core[1] = svc_get_current_processor_number();
    while (flag != 1) {
    }
    flag = 2;
    note('q');
}

static void cores_run_together(void) {
    print("-- threads on different cores run at the same time\n");
    clear_log();
    flag = 0;
    start(0, ping, 0, 44, 1);
    start(1, pong, 0, 44, 2);
    join(0);
    join(1);
    print("ping ran on core ");
    print_u64((uint64_t)seen_core[0]);
    print(", pong on core ");
    print_u64((uint64_t)seen_core[1]);
    print("\n");
    check(seen_core[0] == 1 && seen_core[1] == 2, "each thread ran on the core it was created on");
    check(flag == 2 && count_in_log('p') == 1 && count_in_log('q') == 1, "both spin loops ended");
}

static void sleeping(void) {
    print("-- sleeping and yields\n");
    clear_log();
    start(0, note_argument, 'L', 50, 0);
    uint64_t before = svc_get_system_tick();
    svc_sleep_thread(1000000);
    uint64_t slept = svc_get_system_tick() - before;
    check(slept >= 19200, "SleepThread(1 ms) lasts at least 19200 ticks");
    check(log_is("L"), "a sleeping thread lets a worse priority run");
    join(0);
    svc_sleep_thread(-1);
    svc_sleep_thread(-2);
    svc_sleep_thread(-3);
    print("SleepThread(-1), (-2) and (-3) returned\n");
}

static Handle event_writable, event_readable;
static volatile Result wait_result;

static void wait_for_event(void *argument) {
    wait_result = wait_one(event_readable, -1);
    note((char)(uintptr_t)argument);
}

static void exits_and_waits(void) {
    print("-- waiting for threads\n");
    clear_log();
    svc_create_event(&event_writable, &event_readable);
    start(0, wait_for_event, 'W', 50, 0);
    start(1, note_argument, 'X', 50, 0);
    Handle both[2] = {workers[0].handle, workers[1].handle};
    int32_t index = -1;
    expect_result("WaitSynchronization(two threads)", svc_wait_synchronization(&index, both, 2, -1), RESULT_SUCCESS);
    check(index == 1, "the index of the thread that exited");
    svc_signal_event(event_writable);
    join(0);
    join(1);
    check(log_is("XW"), "the waiting thread ran after the signal");
    svc_clear_event(event_writable);
}

static void pause_and_context(void) {
    print("-- SetThreadActivity and GetThreadContext3\n");
    clear_log();
    start(0, wait_for_event, 'P', 50, 0);
    svc_sleep_thread(1000000); /* the worker runs and blocks in WaitSynchronization */
    Handle worker_handle = workers[0].handle;
    ThreadContext context;
    memset(&context, 0xa5, sizeof context);
    expect_result("GetThreadContext3(not paused)", svc_get_thread_context3(&context, worker_handle), RESULT_INVALID_STATE);
    expect_result("SetThreadActivity(current, paused)", svc_set_thread_activity(CURRENT_THREAD_HANDLE, 1), RESULT_BUSY);
    expect_result("SetThreadActivity(2)", svc_set_thread_activity(worker_handle, 2), RESULT_INVALID_ENUM_VALUE);
    expect_result("SetThreadActivity(paused)", svc_set_thread_activity(worker_handle, 1), RESULT_SUCCESS);
    expect_result("SetThreadActivity(paused) again", svc_set_thread_activity(worker_handle, 1), RESULT_INVALID_STATE);
    expect_result("GetThreadContext3", svc_get_thread_context3(&context, worker_handle), RESULT_SUCCESS);
    uint32_t word = *(const uint32_t *)context.pc;
    print("paused in an SVC: the word at its PC is ");
    print_hex(word);
    print("\n");
    check(word == 0xD4000301u, "PC is the worker's `svc #0x18` (WaitSynchronization)");
    int zero = 1;
    for (int i = 0; i < 19; i++) {
        zero &= context.x[i] == 0;
    }
    check(zero, "X0-X18 read 0 inside an SVC");
    uint64_t stack_low = (uint64_t)stacks[0], stack_high = stack_low + STACK_SIZE;
    check(context.sp > stack_low && context.sp <= stack_high, "SP is on the worker's stack");
    svc_signal_event(event_writable);
    svc_sleep_thread(1000000);
    check(log_length == 0, "a paused thread does not run, though its wait ended");
    expect_result("SetThreadActivity(runnable)", svc_set_thread_activity(worker_handle, 0), RESULT_SUCCESS);
    expect_result("SetThreadActivity(runnable) again", svc_set_thread_activity(worker_handle, 0), RESULT_INVALID_STATE);
    join(0);
    check(log_is("P") && wait_result == RESULT_SUCCESS, "resumed, it returns from its wait");
    svc_clear_event(event_writable);
}

static void cancellation(void) {
    print("-- CancelSynchronization\n");
    clear_log();
    start(0, wait_for_event, 'C', 50, 0);
    svc_sleep_thread(1000000);
    expect_result("CancelSynchronization(a waiting thread)", svc_cancel_synchronization(workers[0].handle),
                  RESULT_SUCCESS);
    join(0);
    expect_result("its WaitSynchronization", wait_result, RESULT_CANCELLED);

    Thread *t = &workers[1];
    thread_create(t, wait_for_event, (void *)(uintptr_t)'D', stack_top(1), 50, 0);
    expect_result("CancelSynchronization(a thread not waiting yet)", svc_cancel_synchronization(t->handle),
                  RESULT_SUCCESS);
    thread_start(t);
    join(1);
    expect_result("its next WaitSynchronization", wait_result, RESULT_CANCELLED);
    check(log_is("CD"), "both threads went on");
    expect_result("CancelSynchronization(bad handle)", svc_cancel_synchronization(0x1234), RESULT_INVALID_HANDLE);
}

/* The last thread standing: prints the summary and exits with ExitThread, which ends the process. */
static void finisher(void *argument) {
    (void)argument;
    print("the main thread has exited; the process goes on\n");
    print("threads: ");
    print_u64((uint64_t)failures());
    print(" failures\n");
    if (failures() != 0) {
        exit_program(1);
    }
}

int main(void) {
    print("threads: Horizon threads and scheduling\n");
    basics();
    priorities_and_cores();
    preemption_by_priority();
    round_robin_on_yield();
    no_time_slicing();
    preemption_timer();
    cores_run_together();
    sleeping();
    exits_and_waits();
    pause_and_context();
    cancellation();
    print("-- ExitThread on the main thread\n");
    start(0, finisher, 0, 50, 0);
    svc_exit_thread();
}
