/* Threads, mutexes and condition variables for the Horizon test programs, on the kernel's own protocols (switchbrew
 * "SVC": ArbitrateLock / ArbitrateUnlock, WaitProcessWideKeyAtomic / SignalProcessWideKey), the way libnx builds
 * its own. */
#include "horizon.h"

/* Where the kernel writes each thread's handle in its thread-local area. */
#define TLS_THREAD_HANDLE 0x110

Handle current_thread_handle(void) {
    return *(volatile Handle *)(thread_local_area() + TLS_THREAD_HANDLE);
}

/* Every thread starts here with x0 = its Thread, runs its entry, then exits. */
static void thread_start_routine(void *argument) {
    Thread *thread = argument;
    thread->entry(thread->argument);
    svc_exit_thread();
}

Result thread_create(Thread *thread, ThreadEntry entry, void *argument, void *stack_top, int32_t priority,
                     int32_t core) {
    thread->entry = entry;
    thread->argument = argument;
    return svc_create_thread(&thread->handle, thread_start_routine, thread, stack_top, priority, core);
}

Result thread_start(Thread *thread) {
    return svc_start_thread(thread->handle);
}

Result thread_join(Thread *thread) {
    int32_t index;
    Result result = svc_wait_synchronization(&index, &thread->handle, 1, -1);
    if (result == RESULT_SUCCESS) {
        result = svc_close_handle(thread->handle);
    }
    return result;
}

Result wait_one(Handle handle, int64_t timeout) {
    int32_t index;
    return svc_wait_synchronization(&index, &handle, 1, timeout);
}

int mutex_lock(Mutex *mutex) {
    Handle self = current_thread_handle();
    int waits = 0;
    for (;;) {
        uint32_t value = __atomic_load_n(&mutex->tag, __ATOMIC_RELAXED);
        if (value == 0) {
            if (__atomic_compare_exchange_n(&mutex->tag, &value, self, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
                return waits;
            }
            continue;
        }
        /* Taken: make sure the owner will call the kernel when it unlocks, then wait in the kernel. */
        if ((value & HANDLE_WAIT_MASK) == 0 &&
            !__atomic_compare_exchange_n(&mutex->tag, &value, value | HANDLE_WAIT_MASK, 0, __ATOMIC_RELAXED,
                                         __ATOMIC_RELAXED)) {
            continue;
        }
        svc_arbitrate_lock(value & ~HANDLE_WAIT_MASK, &mutex->tag, self);
        waits++;
        /* The kernel hands the mutex over by writing our handle into it. */
        if ((__atomic_load_n(&mutex->tag, __ATOMIC_ACQUIRE) & ~HANDLE_WAIT_MASK) == self) {
            return waits;
        }
    }
}

void mutex_unlock(Mutex *mutex) {
    uint32_t expected = current_thread_handle();
    if (!__atomic_compare_exchange_n(&mutex->tag, &expected, 0, 0, __ATOMIC_RELEASE, __ATOMIC_RELAXED)) {
        /* The waiters bit is set: the kernel picks the next owner. */
        svc_arbitrate_unlock(&mutex->tag);
    }
}

Result condvar_wait_timeout(CondVar *condvar, Mutex *mutex, int64_t timeout) {
    Result result = svc_wait_process_wide_key_atomic(&mutex->tag, &condvar->has_waiters, current_thread_handle(),
                                                     timeout);
    /* On a timeout the kernel did not give the mutex back: take it. */
    if (result == RESULT_TIMED_OUT) {
        mutex_lock(mutex);
    }
    return result;
}

void condvar_wait(CondVar *condvar, Mutex *mutex) {
    condvar_wait_timeout(condvar, mutex, -1);
}

void condvar_signal(CondVar *condvar) {
    svc_signal_process_wide_key(&condvar->has_waiters, 1);
}

void condvar_broadcast(CondVar *condvar) {
    svc_signal_process_wide_key(&condvar->has_waiters, -1);
}
