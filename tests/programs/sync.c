/* Horizon only: synchronisation. Every result checked follows from Horizon's documented semantics (switchbrew
 * "SVC"; mesosphère for the details), not from an earlier run:
 *
 * - events: signalled until cleared, wake every waiter; WaitSynchronization returns the first signalled handle's
 *   index, times out (0 polls), refuses bad counts, pointers and handles;
 * - mutexes (ArbitrateLock / ArbitrateUnlock): the word holds the owner's handle, with the waiters bit while
 *   threads wait in the kernel; the kernel hands the mutex to its best waiter; an owner runs at the priority of its
 *   best waiter (priority inheritance), so a middle-priority thread cannot delay it;
 * - condition variables (WaitProcessWideKeyAtomic / SignalProcessWideKey): signals wake the best priority first,
 *   the waker takes the mutex back (queueing behind its owner if needed), the word says whether waiters remain;
 * - address arbiters (WaitForAddress / SignalToAddress) in all their modes.
 *
 * Worker threads never print: they append to a log that the main thread (priority 44, core 0) prints and checks. */
#include "horizon.h"
#include "tandem.h"

#define STACK_SIZE 0x4000
#define WORKERS 4

static uint8_t stacks[WORKERS][STACK_SIZE] __attribute__((aligned(16)));
static Thread workers[WORKERS];

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

static void show_log(const char *label) {
    print(label);
    print(": \"");
    for (uint32_t i = 0; i < log_length && i < LOG_CAPACITY; i++) {
        print_char(log_text[i]);
    }
    print("\"\n");
}

static void expect_result(const char *label, Result result, Result expected) {
    print(label);
    print(": ");
    print_hex(result);
    print(result == expected ? "\n" : " (WRONG)\n");
    check(result == expected, label);
}

static void start(int index, ThreadEntry entry, char argument, int32_t priority, int32_t core) {
    void *top = stacks[index] + STACK_SIZE;
    check(thread_create(&workers[index], entry, (void *)(uintptr_t)argument, top, priority, core) == RESULT_SUCCESS,
          "CreateThread");
    check(thread_start(&workers[index]) == RESULT_SUCCESS, "StartThread");
}

static void join(int index) {
    check(thread_join(&workers[index]) == RESULT_SUCCESS, "joining a thread");
}

static void sleep_ms(int64_t ms) {
    svc_sleep_thread(ms * 1000000);
}

/* Ticks of `ms` milliseconds at 19.2 MHz. */
static uint64_t ticks_of_ms(uint64_t ms) {
    return ms * 19200;
}

/* ---- events ------------------------------------------------------------------------------------------------------ */

static Handle shared_readable;

static void wait_then_note(void *argument) {
    if (wait_one(shared_readable, -1) == RESULT_SUCCESS) {
        note((char)(uintptr_t)argument);
    }
}

static void events(void) {
    print("-- events and WaitSynchronization\n");
    Handle w1, r1, w2, r2;
    expect_result("CreateEvent", svc_create_event(&w1, &r1), RESULT_SUCCESS);
    svc_create_event(&w2, &r2);
    check(w1 != r1 && w1 != w2 && r1 != r2, "four distinct handles");
    int32_t index = -7;
    expect_result("wait, not signalled, timeout 0", svc_wait_synchronization(&index, &r1, 1, 0), RESULT_TIMED_OUT);
    expect_result("SignalEvent(readable handle)", svc_signal_event(r1), RESULT_INVALID_HANDLE);
    expect_result("WaitSynchronization(writable handle)", svc_wait_synchronization(&index, &w1, 1, 0),
                  RESULT_INVALID_HANDLE);
    expect_result("SignalEvent", svc_signal_event(w1), RESULT_SUCCESS);
    expect_result("wait, signalled", svc_wait_synchronization(&index, &r1, 1, 0), RESULT_SUCCESS);
    check(index == 0, "index 0");
    expect_result("wait again: it stays signalled", wait_one(r1, 0), RESULT_SUCCESS);
    expect_result("ClearEvent(readable)", svc_clear_event(r1), RESULT_SUCCESS);
    expect_result("wait after ClearEvent", wait_one(r1, 0), RESULT_TIMED_OUT);
    expect_result("ResetSignal, not signalled", svc_reset_signal(r1), RESULT_INVALID_STATE);
    svc_signal_event(w1);
    expect_result("ResetSignal(writable handle)", svc_reset_signal(w1), RESULT_INVALID_HANDLE);
    expect_result("ResetSignal, signalled", svc_reset_signal(r1), RESULT_SUCCESS);
    expect_result("wait after ResetSignal", wait_one(r1, 0), RESULT_TIMED_OUT);

    Handle pair[2] = {r1, r2};
    svc_signal_event(w2);
    expect_result("wait on two, the second signalled", svc_wait_synchronization(&index, pair, 2, 0), RESULT_SUCCESS);
    check(index == 1, "index 1");
    svc_signal_event(w1);
    svc_wait_synchronization(&index, pair, 2, 0);
    check(index == 0, "both signalled: the first handle's index");
    svc_clear_event(w1);
    svc_clear_event(w2);

    uint64_t before = svc_get_system_tick();
    expect_result("wait 2 ms", svc_wait_synchronization(&index, pair, 2, 2000000), RESULT_TIMED_OUT);
    check(svc_get_system_tick() - before >= ticks_of_ms(2), "the timeout lasted 2 ms");
    before = svc_get_system_tick();
    expect_result("wait on no handles, 1 ms", svc_wait_synchronization(&index, pair, 0, 1000000), RESULT_TIMED_OUT);
    check(svc_get_system_tick() - before >= ticks_of_ms(1), "that too lasted 1 ms");
    expect_result("65 handles", svc_wait_synchronization(&index, pair, 65, 0), RESULT_OUT_OF_RANGE);
    expect_result("-1 handles", svc_wait_synchronization(&index, pair, -1, 0), RESULT_OUT_OF_RANGE);
    expect_result("handles at an unmapped address", svc_wait_synchronization(&index, (const Handle *)0x10, 1, 0),
                  RESULT_INVALID_POINTER);
    Handle forged[1] = {r1 ^ 0x8000u};
    expect_result("a forged handle", svc_wait_synchronization(&index, forged, 1, 0), RESULT_INVALID_HANDLE);
    Handle pseudo[1] = {CURRENT_THREAD_HANDLE};
    expect_result("the thread pseudo-handle", svc_wait_synchronization(&index, pseudo, 1, 0), RESULT_INVALID_HANDLE);

    clear_log();
    shared_readable = r2;
    start(0, wait_then_note, 'x', 50, 0);
    start(1, wait_then_note, 'y', 50, 0);
    sleep_ms(1);
    check(log_length == 0, "both wait");
    svc_signal_event(w2);
    join(0);
    join(1);
    show_log("one signal, two waiters");
    check(log_is("xy"), "a signal wakes every waiter, in the order they waited");

    svc_close_handle(r1);
    expect_result("SignalEvent with every readable handle closed", svc_signal_event(w1), RESULT_SUCCESS);
    expect_result("the closed readable handle", svc_clear_event(r1), RESULT_INVALID_HANDLE);
    svc_close_handle(w1);
    expect_result("the closed writable handle", svc_signal_event(w1), RESULT_INVALID_HANDLE);
    svc_close_handle(w2);
    svc_close_handle(r2);
}

/* ---- mutexes ----------------------------------------------------------------------------------------------------- */

static Mutex mutex;
static volatile uint32_t counter;
static volatile int kernel_waits[WORKERS];

static void hold_mutex_for_a_while(void *argument) {
    (void)argument;
    mutex_lock(&mutex);
    sleep_ms(5);
    mutex_unlock(&mutex);
}

static void take_mutex(void *argument) {
    kernel_waits[0] = mutex_lock(&mutex);
    note((char)(uintptr_t)argument);
    mutex_unlock(&mutex);
}

static void increment_many(void *argument) {
    int index = (char)(uintptr_t)argument - '0';
    for (int i = 0; i < 2000; i++) {
        kernel_waits[index] += mutex_lock(&mutex);
        uint32_t value = counter;
        __asm__ volatile("" ::: "memory");
        counter = value + 1;
        mutex_unlock(&mutex);
    }
}

static void mutex_contention(void) {
    print("-- mutex contention\n");
    clear_log();
    start(0, hold_mutex_for_a_while, 0, 46, 1);
    sleep_ms(1);
    Handle holder = workers[0].handle;
    check(mutex.tag == holder, "the owner's handle is in the word");
    start(1, take_mutex, 't', 46, 2);
    sleep_ms(1);
    check(mutex.tag == (holder | HANDLE_WAIT_MASK), "a waiter set the waiters bit");
    check(log_length == 0, "the waiter waits");
    join(0);
    join(1);
    check(log_is("t") && kernel_waits[0] == 1, "the waiter got the mutex once the owner unlocked it");
    check(mutex.tag == 0, "free again");

    counter = 0;
    for (int i = 0; i < 3; i++) {
        kernel_waits[i] = 0;
        start(i, increment_many, (char)('0' + i), 45, i);
    }
    for (int i = 0; i < 3; i++) {
        join(i);
    }
    print("three cores, 2000 increments each: ");
    print_u64(counter);
    print("\n");
    check(counter == 6000, "no increment was lost");
    check(mutex.tag == 0, "free at the end");
}

static volatile int32_t priority_seen[2];
static Handle go_readable;

static void low_priority_owner(void *argument) {
    Handle *ready = argument;
    mutex_lock(&mutex);
    note('L');
    svc_signal_event(*ready);
    wait_one(go_readable, -1);
    svc_get_thread_priority((int32_t *)&priority_seen[0], CURRENT_THREAD_HANDLE);
    note('l');
    mutex_unlock(&mutex);
    svc_get_thread_priority((int32_t *)&priority_seen[1], CURRENT_THREAD_HANDLE);
    note('e');
}

static void high_priority_waiter(void *argument) {
    (void)argument;
    note('H');
    mutex_lock(&mutex);
    note('h');
    mutex_unlock(&mutex);
}

static void middle_priority(void *argument) {
    (void)argument;
    wait_one(go_readable, -1);
    note('M');
}

static void priority_inheritance(void) {
    print("-- priority inheritance\n");
    clear_log();
    Handle ready_w, ready_r, go_w;
    svc_create_event(&ready_w, &ready_r);
    svc_create_event(&go_w, &go_readable);
    Thread *low = &workers[0];
    thread_create(low, low_priority_owner, &ready_w, stacks[0] + STACK_SIZE, 50, 0);
    thread_start(low);
    wait_one(ready_r, -1); /* L (50) runs while the main thread (44) waits: it locks and signals */
    start(1, middle_priority, 0, 40, 0); /* M (40) runs at once and waits for "go" */
    start(2, high_priority_waiter, 0, 30, 0); /* H (30) runs at once and waits for the mutex; L, at 30 now, runs
                                                  and waits for "go" */
    int32_t priority = 0;
    svc_get_thread_priority(&priority, low->handle);
    print("the owner's priority while a priority-30 thread waits for its mutex: ");
    print_u64((uint64_t)priority);
    print("\n");
    check(priority == 30, "the owner inherits its waiter's priority");
    svc_signal_event(go_w); /* wakes M (40) and L (30 while H waits) */
    join(2);
    join(1);
    join(0);
    show_log("L (50) locks, H (30) waits for it, then L and M (40) wake together");
    check(log_is("LHlhMe"), "the owner runs before the middle priority and hands over; H runs before M");
    check(priority_seen[0] == 30 && priority_seen[1] == 50, "30 while H waited, 50 after unlocking");
    svc_close_handle(ready_w);
    svc_close_handle(ready_r);
    svc_close_handle(go_w);
    svc_close_handle(go_readable);
}

static void arbitrate_edge_cases(void) {
    print("-- ArbitrateLock and ArbitrateUnlock edge cases\n");
    Handle self = current_thread_handle();
    volatile uint32_t lock_word = 0x1234;
    expect_result("ArbitrateLock when the word is not owner|waiters", svc_arbitrate_lock(self, &lock_word, self),
                  RESULT_SUCCESS);
    lock_word = 0x1234u | HANDLE_WAIT_MASK;
    expect_result("ArbitrateLock naming no thread", svc_arbitrate_lock(0x1234, &lock_word, self),
                  RESULT_INVALID_HANDLE);
    expect_result("ArbitrateLock, misaligned",
                  svc_arbitrate_lock(self, (volatile uint32_t *)((uintptr_t)&lock_word + 2), self),
                  RESULT_INVALID_ADDRESS);
    expect_result("ArbitrateLock, unmapped", svc_arbitrate_lock(self, (volatile uint32_t *)0x10, self),
                  RESULT_INVALID_CURRENT_MEMORY);
    expect_result("ArbitrateUnlock with no waiters", svc_arbitrate_unlock(&lock_word), RESULT_SUCCESS);
    check(lock_word == 0, "ArbitrateUnlock with no waiters frees the word");
    expect_result("ArbitrateUnlock, misaligned",
                  svc_arbitrate_unlock((volatile uint32_t *)((uintptr_t)&lock_word + 1)), RESULT_INVALID_ADDRESS);
}

/* ---- condition variables ----------------------------------------------------------------------------------------- */

static CondVar condvar;

static void condvar_waiter(void *argument) {
    mutex_lock(&mutex);
    condvar_wait(&condvar, &mutex);
    note((char)(uintptr_t)argument);
    mutex_unlock(&mutex);
}

static void condition_variables(void) {
    print("-- condition variables\n");
    clear_log();
    start(0, condvar_waiter, 'c', 50, 0);
    start(1, condvar_waiter, 'a', 46, 0);
    start(2, condvar_waiter, 'b', 48, 0);
    sleep_ms(1);
    check(condvar.has_waiters == 1, "waiters mark the condition variable");
    check(mutex.tag == 0, "waiting released the mutex");
    for (int i = 0; i < 3; i++) {
        condvar_signal(&condvar);
        sleep_ms(1);
    }
    show_log("three waiters (priorities 50, 46, 48, in that order), signalled one at a time");
    check(log_is("abc"), "each signal wakes the best priority");
    check(condvar.has_waiters == 0, "the last signal clears the word");
    for (int i = 0; i < 3; i++) {
        join(i);
    }

    clear_log();
    start(0, condvar_waiter, 'x', 50, 0);
    start(1, condvar_waiter, 'y', 50, 0);
    start(2, condvar_waiter, 'z', 50, 0);
    sleep_ms(1);
    mutex_lock(&mutex);
    condvar_broadcast(&condvar);
    check(mutex.tag == (current_thread_handle() | HANDLE_WAIT_MASK), "woken while the mutex is held: they queue for it");
    check(condvar.has_waiters == 0, "a broadcast takes every waiter");
    mutex_unlock(&mutex);
    for (int i = 0; i < 3; i++) {
        join(i);
    }
    show_log("a broadcast to three waiters");
    check(log_is("xyz"), "all three woke and took the mutex in turn");

    mutex_lock(&mutex);
    uint64_t before = svc_get_system_tick();
    expect_result("wait with a 1 ms timeout", condvar_wait_timeout(&condvar, &mutex, 1000000), RESULT_TIMED_OUT);
    check(svc_get_system_tick() - before >= ticks_of_ms(1), "1 ms went by");
    check((mutex.tag & ~HANDLE_WAIT_MASK) == current_thread_handle(), "the mutex is held again after a timeout");
    expect_result("wait with timeout 0", condvar_wait_timeout(&condvar, &mutex, 0), RESULT_TIMED_OUT);
    check((mutex.tag & ~HANDLE_WAIT_MASK) == current_thread_handle(), "and after timeout 0");
    mutex_unlock(&mutex);
    expect_result("WaitProcessWideKeyAtomic, misaligned mutex",
                  svc_wait_process_wide_key_atomic((volatile uint32_t *)((uintptr_t)&mutex.tag + 2),
                                                   &condvar.has_waiters, current_thread_handle(), 0),
                  RESULT_INVALID_ADDRESS);
}

/* ---- address arbiters -------------------------------------------------------------------------------------------- */

static volatile int32_t word;
static volatile int64_t word64 __attribute__((aligned(8)));

static void wait_if_equal(void *argument) {
    if (svc_wait_for_address(&word, ARBITRATION_WAIT_IF_EQUAL, word, -1) == RESULT_SUCCESS) {
        note((char)(uintptr_t)argument);
    }
}

static void address_arbiters(void) {
    print("-- WaitForAddress and SignalToAddress\n");
    word = 5;
    expect_result("WaitIfLessThan 3 (the word is 5)", svc_wait_for_address(&word, ARBITRATION_WAIT_IF_LESS_THAN, 3, -1),
                  RESULT_INVALID_STATE);
    expect_result("WaitIfLessThan 10, timeout 0", svc_wait_for_address(&word, ARBITRATION_WAIT_IF_LESS_THAN, 10, 0),
                  RESULT_TIMED_OUT);
    uint64_t before = svc_get_system_tick();
    expect_result("WaitIfLessThan 10, 1 ms", svc_wait_for_address(&word, ARBITRATION_WAIT_IF_LESS_THAN, 10, 1000000),
                  RESULT_TIMED_OUT);
    check(svc_get_system_tick() - before >= ticks_of_ms(1), "1 ms went by");
    expect_result("DecrementAndWaitIfLessThan 10, timeout 0",
                  svc_wait_for_address(&word, ARBITRATION_DECREMENT_AND_WAIT_IF_LESS_THAN, 10, 0), RESULT_TIMED_OUT);
    check(word == 4, "the word was decremented before the timeout");
    expect_result("DecrementAndWaitIfLessThan 3",
                  svc_wait_for_address(&word, ARBITRATION_DECREMENT_AND_WAIT_IF_LESS_THAN, 3, 0), RESULT_INVALID_STATE);
    check(word == 4, "not decremented when it does not wait");
    expect_result("WaitIfEqual 8 (the word is 4)", svc_wait_for_address(&word, ARBITRATION_WAIT_IF_EQUAL, 8, 0),
                  RESULT_INVALID_STATE);
    expect_result("WaitIfEqual 4, timeout 0", svc_wait_for_address(&word, ARBITRATION_WAIT_IF_EQUAL, 4, 0),
                  RESULT_TIMED_OUT);
    word64 = 0x100000002ll;
    expect_result("WaitIfEqual64 2 (the word is 0x100000002)",
                  svc_wait_for_address(&word64, ARBITRATION_WAIT_IF_EQUAL_64, 2, 0), RESULT_INVALID_STATE);
    expect_result("WaitIfEqual64 0x100000002, timeout 0",
                  svc_wait_for_address(&word64, ARBITRATION_WAIT_IF_EQUAL_64, 0x100000002ll, 0), RESULT_TIMED_OUT);
    expect_result("WaitIfEqual64, 4-aligned",
                  svc_wait_for_address((volatile char *)&word64 + 4, ARBITRATION_WAIT_IF_EQUAL_64, 0, 0),
                  RESULT_INVALID_ADDRESS);
    expect_result("WaitForAddress type 4", svc_wait_for_address(&word, 4, 0, 0), RESULT_INVALID_ENUM_VALUE);
    expect_result("WaitForAddress, misaligned", svc_wait_for_address((volatile char *)&word + 2, 0, 0, 0),
                  RESULT_INVALID_ADDRESS);
    expect_result("WaitForAddress, unmapped", svc_wait_for_address((volatile void *)0x10, 0, 0, 0),
                  RESULT_INVALID_CURRENT_MEMORY);
    expect_result("SignalToAddress type 3", svc_signal_to_address(&word, 3, 0, 1), RESULT_INVALID_ENUM_VALUE);

    print("signal order:\n");
    clear_log();
    word = 0;
    start(0, wait_if_equal, 'c', 50, 0);
    start(1, wait_if_equal, 'a', 46, 0);
    start(2, wait_if_equal, 'b', 48, 0);
    sleep_ms(1);
    for (int i = 0; i < 3; i++) {
        svc_signal_to_address(&word, SIGNAL_ONLY, 0, 1);
        sleep_ms(1);
    }
    show_log("three waiters (priorities 50, 46, 48, in that order), signalled one at a time");
    check(log_is("abc"), "each signal wakes the best priority");
    for (int i = 0; i < 3; i++) {
        join(i);
    }

    word = 5;
    expect_result("SignalAndIncrementIfEqual 4 (the word is 5)",
                  svc_signal_to_address(&word, SIGNAL_AND_INCREMENT_IF_EQUAL, 4, -1), RESULT_INVALID_STATE);
    check(word == 5, "unchanged");
    expect_result("SignalAndIncrementIfEqual 5", svc_signal_to_address(&word, SIGNAL_AND_INCREMENT_IF_EQUAL, 5, -1),
                  RESULT_SUCCESS);
    check(word == 6, "incremented");

    word = 10;
    expect_result("SignalAndModifyByWaitingCountIfEqual 10, nobody waits",
                  svc_signal_to_address(&word, SIGNAL_AND_MODIFY_BY_WAITING_COUNT_IF_EQUAL, 10, 1), RESULT_SUCCESS);
    check(word == 11, "nobody waits: value + 1");
    clear_log();
    start(0, wait_if_equal, 'p', 50, 0);
    start(1, wait_if_equal, 'q', 50, 0);
    sleep_ms(1);
    expect_result("SignalAndModifyByWaitingCountIfEqual 11, count 1 of 2 waiters",
                  svc_signal_to_address(&word, SIGNAL_AND_MODIFY_BY_WAITING_COUNT_IF_EQUAL, 11, 1), RESULT_SUCCESS);
    check(word == 11, "some still wait: the value stays");
    sleep_ms(1);
    check(log_is("p"), "one woke");
    expect_result("SignalAndModifyByWaitingCountIfEqual 11, all",
                  svc_signal_to_address(&word, SIGNAL_AND_MODIFY_BY_WAITING_COUNT_IF_EQUAL, 11, -1), RESULT_SUCCESS);
    check(word == 10, "every waiter woke: value - 1");
    join(0);
    join(1);
    check(log_is("pq"), "the other woke");
    expect_result("SignalAndModifyByWaitingCountIfEqual 3 (the word is 10)",
                  svc_signal_to_address(&word, SIGNAL_AND_MODIFY_BY_WAITING_COUNT_IF_EQUAL, 3, 1), RESULT_INVALID_STATE);
}

int main(void) {
    print("sync: Horizon synchronisation\n");
    events();
    mutex_contention();
    priority_inheritance();
    arbitrate_edge_cases();
    condition_variables();
    address_arbiters();
    print("sync: ");
    print_u64((uint64_t)failures());
    print(" failures\n");
    return failures() == 0 ? 0 : 1;
}
