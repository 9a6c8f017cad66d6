/* Linux only: threads made by clone(CLONE_THREAD) as glibc's pthread_create makes them, futexes, thread exit and
 * CLONE_CHILD_CLEARTID joins, compared with qemu-aarch64 (real host threads underneath). Threads print nothing:
 * the main thread prints what every interleaving must give, after joining them. */
#include "linux.h"

enum {
    SYS_exit = 93, SYS_exit_group = 94, SYS_set_tid_address = 96, SYS_futex = 98, SYS_nanosleep = 101,
    SYS_clock_gettime = 113, SYS_sched_yield = 124, SYS_tkill = 130, SYS_tgkill = 131, SYS_rt_sigsuspend = 133, SYS_kill = 129, SYS_rt_sigtimedwait = 137,
    SYS_rt_sigaction = 134, SYS_rt_sigprocmask = 135, SYS_getpid = 172,
    SYS_gettid = 178, SYS_clone = 220, SYS_ppoll = 73, SYS_clone3 = 435,
};
enum {
    FUTEX_WAIT = 0, FUTEX_WAKE = 1, FUTEX_REQUEUE = 3, FUTEX_CMP_REQUEUE = 4, FUTEX_WAKE_OP = 5, FUTEX_WAIT_BITSET = 9,
    FUTEX_WAKE_BITSET = 10, FUTEX_PRIVATE = 128,
};
#define WAKE_OP(op, oparg, cmp, cmparg) \
    (int)(((unsigned)(op) << 28) | ((unsigned)(cmp) << 24) | (((unsigned)(oparg) & 0xfff) << 12) | ((unsigned)(cmparg) & 0xfff))
/* glibc's pthread_create flags. */
#define THREAD_FLAGS 0x3d0f00 /* VM FS FILES SIGHAND THREAD SYSVSEM SETTLS PARENT_SETTID CHILD_CLEARTID */

/* Starts `function(argument)` on a thread with its stack below `stack_top` and `tls` in TPIDR_EL0; its id goes in
 * `*tid` (CLONE_PARENT_SETTID), which its exit clears and wakes (CLONE_CHILD_CLEARTID). The child leaves the
 * system call on its new stack, so it calls the function from the assembly and exits the thread there. */
static int use_clone3; /* `clone3`: threads are made by clone3 (which qemu-aarch64 7.2 lacks) instead. */
static long spawn(void (*function)(long), long argument, void *stack_top, int *tid, long tls) {
    /* clone3's struct clone_args: flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls. */
    struct { unsigned long flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls; } args = {
        THREAD_FLAGS, 0, (unsigned long)tid, (unsigned long)tid, 0, (unsigned long)stack_top - 65536, 65536,
        (unsigned long)tls};
    register long x8 __asm__("x8") = use_clone3 ? SYS_clone3 : SYS_clone;
    register long x0 __asm__("x0") = use_clone3 ? (long)&args : THREAD_FLAGS;
    register long x1 __asm__("x1") = use_clone3 ? (long)sizeof args : (long)stack_top;
    register long x2 __asm__("x2") = (long)tid;
    register long x3 __asm__("x3") = tls;
    register long x4 __asm__("x4") = (long)tid;
    register long x9 __asm__("x9") = (long)function;
    register long x10 __asm__("x10") = argument;
    __asm__ volatile("svc #0\n\t"
                     "cbnz x0, 1f\n\t"
                     "mov x0, x10\n\t"
                     "blr x9\n\t"
                     "mov x0, #0\n\t"
                     "mov x8, #93\n\t"
                     "svc #0\n"
                     "1:"
                     : "+r"(x0)
                     : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x9), "r"(x10)
                     : "memory", "x30");
    return x0;
}

/* Waits until the thread whose id `*tid` holds has exited (pthread_join's wait). */
static void join(int *tid) {
    int seen;
    while ((seen = __atomic_load_n(tid, __ATOMIC_ACQUIRE)) != 0) {
        sys(SYS_futex, tid, FUTEX_WAIT, seen, 0);
    }
}

/* A futex mutex (0 free, 1 locked, 2 locked with waiters), as in Drepper's "Futexes Are Tricky". */
static void lock(int *word) {
    int seen = 0;
    if (__atomic_compare_exchange_n(word, &seen, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) return;
    if (seen != 2) seen = __atomic_exchange_n(word, 2, __ATOMIC_ACQUIRE);
    while (seen != 0) {
        sys(SYS_futex, word, FUTEX_WAIT | FUTEX_PRIVATE, 2, 0);
        seen = __atomic_exchange_n(word, 2, __ATOMIC_ACQUIRE);
    }
}

static void unlock(int *word) {
    if (__atomic_exchange_n(word, 0, __ATOMIC_RELEASE) == 2) sys(SYS_futex, word, FUTEX_WAKE | FUTEX_PRIVATE, 1);
}

enum { WORKERS = 4, ROUNDS = 3000 };
static char stacks[WORKERS + 2][65536] __attribute__((aligned(16)));
static int tids[WORKERS + 2];
static int mutex;
static long guarded_total;    /* Incremented under the mutex. */
static long exclusive_total;  /* By an ldxr/stxr loop. */
static long atomic_total;     /* By LSE ldadd. */
static long worker_tid[WORKERS], worker_tls[WORKERS], worker_sum[WORKERS];

static void worker(long index) {
    worker_tid[index] = sys(SYS_gettid, 0);
    long tls;
    __asm__ volatile("mrs %0, tpidr_el0" : "=r"(tls));
    worker_tls[index] = tls;
    long sum = 0;
    for (long round = 0; round < ROUNDS; round++) {
        lock(&mutex);
        guarded_total += 1;
        unlock(&mutex);
        long value, failed;
        __asm__ volatile("1: ldxr %0, [%2]\n\t"
                         "add %0, %0, #1\n\t"
                         "stxr %w1, %0, [%2]\n\t"
                         "cbnz %w1, 1b"
                         : "=&r"(value), "=&r"(failed)
                         : "r"(&exclusive_total)
                         : "memory");
        __atomic_fetch_add(&atomic_total, 1, __ATOMIC_RELAXED);
        sum += round;
        if (round % 1000 == 0) sys(SYS_sched_yield, 0);
    }
    worker_sum[index] = sum;
}

/* Ping-pong: two threads take turns through one futex word, each waiting for the other's value. */
static int turn;
static long pong_count;
static void ponger(long rounds) {
    for (long i = 0; i < rounds; i++) {
        while (__atomic_load_n(&turn, __ATOMIC_ACQUIRE) != 1) sys(SYS_futex, &turn, FUTEX_WAIT, 0, 0);
        pong_count += 1;
        __atomic_store_n(&turn, 0, __ATOMIC_RELEASE);
        sys(SYS_futex, &turn, FUTEX_WAKE, 1);
    }
}

/* Sleeps 20 ms and reports how long it slept (a sleep of one thread while another waits for it). */
static long slept_ns;
static void sleeper(long unused) {
    (void)unused;
    long before[2], after[2], twenty_ms[2] = {0, 20000000};
    sys(SYS_clock_gettime, 1, before);
    sys(SYS_nanosleep, twenty_ms, 0);
    sys(SYS_clock_gettime, 1, after);
    slept_ns = (after[0] - before[0]) * 1000000000 + (after[1] - before[1]);
}

/* Waits on a bitset of 0x2, so that a FUTEX_WAKE_BITSET of 0x1 passes it by. */
static int gate;
static long gate_result;
static void bitset_waiter(long unused) {
    (void)unused;
    gate_result = sys(SYS_futex, &gate, FUTEX_WAIT_BITSET, 0, 0, 0, 0x2);
    while (__atomic_load_n(&gate, __ATOMIC_ACQUIRE) == 0) sys(SYS_futex, &gate, FUTEX_WAIT_BITSET, 0, 0, 0, 0x2);
}

/* Waits on `queue_a` until `released`, wherever a requeue moved it meanwhile. */
static int queue_a, queue_b, released;
static void queued_waiter(long unused) {
    (void)unused;
    while (__atomic_load_n(&released, __ATOMIC_ACQUIRE) == 0) sys(SYS_futex, &queue_a, FUTEX_WAIT, 0, 0);
}

/* Sends SIGUSR1 to the main thread after 5 ms, which waits for it in rt_sigsuspend. */
static long main_tid, handled_signal, handler_ran_on;
static void on_signal(int signal) {
    handled_signal = signal;
    handler_ran_on = sys(SYS_gettid, 0);
}
static void signaller(long unused) {
    (void)unused;
    long five_ms[2] = {0, 5000000};
    sys(SYS_nanosleep, five_ms, 0);
    sys(SYS_tgkill, sys(SYS_getpid, 0), main_tid, 10);
}

/* Sets `flag` after a 1 ms sleep, while the main thread polls the clock for it (a system call every few
 * instructions must not keep the other thread from its turn). */
static int flag;
static void flag_setter(long unused) {
    (void)unused;
    long one_ms[2] = {0, 1000000};
    sys(SYS_nanosleep, one_ms, 0);
    __atomic_store_n(&flag, 1, __ATOMIC_RELEASE);
}

/* Blocks SIGUSR1 in itself, then after `delay_ms` sends it to the main thread, which waits (pause, a futex). */
static void blocked_signaller(long delay_ms) {
    unsigned long usr1 = 1ul << 9;
    sys(SYS_rt_sigprocmask, 0, &usr1, 0, 8);
    long delay[2] = {0, delay_ms * 1000000};
    sys(SYS_nanosleep, delay, 0);
    sys(SYS_tgkill, sys(SYS_getpid, 0), main_tid, 10);
}

/* Sends SIGUSR2 to the main thread after 5 ms (blocked in both: the main thread takes it with sigtimedwait). */
static void usr2_sender(long unused) {
    (void)unused;
    long five_ms[2] = {0, 5000000};
    sys(SYS_nanosleep, five_ms, 0);
    sys(SYS_tgkill, sys(SYS_getpid, 0), main_tid, 12);
}

/* The last part: the main thread exits alone (exit, not exit_group) and this thread, left, ends the process. */
static int main_tid_word;
static void finisher(long unused) {
    (void)unused;
    join(&main_tid_word);
    print("the main thread has exited; the last thread ends the process\n");
    print("linux_threads: ");
    print_i64(failures());
    print(" failures\n");
    sys(SYS_exit_group, failures() != 0);
}

/* Waits on a futex that nothing will wake. */
static int never;
static void forever(long unused) {
    (void)unused;
    for (;;) sys(SYS_futex, &never, FUTEX_WAIT, 0, 0);
}

/* `leader`: the main thread exits with 3 (exit, not exit_group), then the other with 7. */
static void exits_with_7(long unused) {
    (void)unused;
    join(&main_tid_word);
    sys(SYS_exit, 7);
}

int main(int argc, char **argv) {
    use_clone3 = argc == 2 && memcmp(argv[1], "clone3", 7) == 0;
    /* `deadlock`: both threads wait on futexes that no thread will wake (Linux would hang; Tandem stops). */
    if (argc == 2 && memcmp(argv[1], "deadlock", 9) == 0) {
        spawn(forever, 0, stacks[0] + sizeof stacks[0], &tids[0], 0);
        join(&tids[0]);
    }
    long pid = sys(SYS_getpid, 0);
    if (argc == 2 && memcmp(argv[1], "leader", 7) == 0) {
        main_tid_word = (int)pid;
        sys(SYS_set_tid_address, &main_tid_word);
        spawn(exits_with_7, 0, stacks[0] + sizeof stacks[0], &tids[0], 0);
        sys(SYS_exit, 3);
    }
    expect("gettid of the main thread is its pid", sys(SYS_gettid, 0) == pid, 1);

    for (long i = 0; i < WORKERS; i++) {
        long tid = spawn(worker, i, stacks[i] + sizeof stacks[i], &tids[i], 0x1000 * (i + 1));
        expect("clone of a thread gives its id", tid > 0 && tid == tids[i] && tid != pid, 1);
    }
    for (long i = 0; i < WORKERS; i++) join(&tids[i]);
    expect("the threads' ids differ", worker_tid[0] != worker_tid[1] && worker_tid[1] != worker_tid[2] &&
           worker_tid[2] != worker_tid[3] && worker_tid[0] != pid, 1);
    for (long i = 0; i < WORKERS; i++) {
        expect("a thread's TPIDR_EL0 is its CLONE_SETTLS value", worker_tls[i], 0x1000 * (i + 1));
        expect("a thread's own sum", worker_sum[i], (long)ROUNDS * (ROUNDS - 1) / 2);
    }
    expect("increments under the futex mutex", guarded_total, WORKERS * ROUNDS);
    expect("increments by ldxr/stxr", exclusive_total, WORKERS * ROUNDS);
    expect("increments by ldadd", atomic_total, WORKERS * ROUNDS);
    expect("joined: the exit cleared each CLONE_CHILD_CLEARTID word", tids[0] | tids[1] | tids[2] | tids[3], 0);

    spawn(ponger, 100, stacks[0] + sizeof stacks[0], &tids[0], 0);
    for (long i = 0; i < 100; i++) {
        while (__atomic_load_n(&turn, __ATOMIC_ACQUIRE) != 0) sys(SYS_futex, &turn, FUTEX_WAIT, 1, 0);
        __atomic_store_n(&turn, 1, __ATOMIC_RELEASE);
        sys(SYS_futex, &turn, FUTEX_WAKE, 1);
    }
    join(&tids[0]);
    expect("ping-pong rounds through one futex", pong_count, 100);

    spawn(sleeper, 0, stacks[0] + sizeof stacks[0], &tids[0], 0);
    join(&tids[0]);
    expect("a thread's 20 ms sleep lasts at least 20 ms", slept_ns >= 20000000, 1);

    int word = 7;
    long one_ms[2] = {0, 1000000};
    spawn(sleeper, 0, stacks[0] + sizeof stacks[0], &tids[0], 0);
    expect("FUTEX_WAIT on a changed word", sys(SYS_futex, &word, FUTEX_WAIT, 8, 0), -11);
    expect("FUTEX_WAIT that nothing wakes, 1 ms", sys(SYS_futex, &word, FUTEX_WAIT, 7, one_ms), -110);
    expect("FUTEX_WAKE with no waiter", sys(SYS_futex, &word, FUTEX_WAKE, 1), 0);
    expect("FUTEX_WAIT_BITSET with no bits", sys(SYS_futex, &word, FUTEX_WAIT_BITSET, 7, 0, 0, 0), -22);
    join(&tids[0]);

    spawn(bitset_waiter, 0, stacks[1] + sizeof stacks[1], &tids[1], 0);
    /* Let it reach its wait (a wake before it would find nobody, which both outcomes below allow for). */
    long ten_ms[2] = {0, 10000000};
    sys(SYS_nanosleep, ten_ms, 0);
    expect("FUTEX_WAKE_BITSET of other bits wakes nobody", sys(SYS_futex, &gate, FUTEX_WAKE_BITSET, 1, 0, 0, 0x1), 0);
    __atomic_store_n(&gate, 1, __ATOMIC_RELEASE);
    sys(SYS_futex, &gate, FUTEX_WAKE_BITSET, 1, 0, 0, 0x2);
    join(&tids[1]);
    expect("the bitset waiter was woken (or never waited)", gate_result == 0 || gate_result == -11, 1);

    /* Requeues: two threads wait on queue_a; a requeue moves them to queue_b, whose wake releases them. Whether
     * each had reached its wait is the host's timing under qemu, so only the bounds of the counts are printed. */
    spawn(queued_waiter, 0, stacks[0] + sizeof stacks[0], &tids[0], 0);
    spawn(queued_waiter, 0, stacks[1] + sizeof stacks[1], &tids[1], 0);
    sys(SYS_nanosleep, ten_ms, 0);
    expect("tgkill(pid, a thread, 0) finds it", sys(SYS_tgkill, pid, tids[0], 0), 0);
    expect("tkill(a thread, 0) finds it", sys(SYS_tkill, tids[1], 0), 0);
    expect("tgkill of no thread", sys(SYS_tgkill, pid, 0x7ffffff0, 0), -3);
    expect("FUTEX_CMP_REQUEUE of a changed word", sys(SYS_futex, &queue_a, FUTEX_CMP_REQUEUE, 0, 2, &queue_b, 1), -11);
    long moved = sys(SYS_futex, &queue_a, FUTEX_CMP_REQUEUE, 0, 2, &queue_b, 0);
    expect("FUTEX_CMP_REQUEUE moves at most the two", moved >= 0 && moved <= 2, 1);
    expect("FUTEX_REQUEUE of nobody left", sys(SYS_futex, &queue_a, FUTEX_REQUEUE, 0, 2, &queue_b), 0);
    __atomic_store_n(&released, 1, __ATOMIC_RELEASE);
    long woken = sys(SYS_futex, &queue_b, FUTEX_WAKE, 2) + sys(SYS_futex, &queue_a, FUTEX_WAKE, 2);
    expect("the moved ones are woken on the second word", woken >= moved && woken <= 2, 1);
    join(&tids[0]);
    join(&tids[1]);

    /* FUTEX_WAKE_OP with nobody waiting: the second word's change, and no wakes. */
    int first = 0, second = 10;
    expect("FUTEX_WAKE_OP ADD 5, nobody waits", sys(SYS_futex, &first, FUTEX_WAKE_OP, 1, 1, &second, WAKE_OP(1, 5, 0, 10)), 0);
    expect("the second word after ADD 5", second, 15);
    expect("FUTEX_WAKE_OP OR 1 << 4", sys(SYS_futex, &first, FUTEX_WAKE_OP, 1, 1, &second, WAKE_OP(8 | 2, 4, 1, 0)), 0);
    expect("the second word after OR 16", second, 31);
    expect("FUTEX_WAKE_OP ANDN -1 (every bit)", sys(SYS_futex, &first, FUTEX_WAKE_OP, 1, 1, &second, WAKE_OP(3, -1, 2, 0)), 0);
    expect("the second word after ANDN -1", second, 0);
    expect("FUTEX_WAKE_OP of an unknown operation", sys(SYS_futex, &first, FUTEX_WAKE_OP, 1, 1, &second, WAKE_OP(6, 0, 0, 0)), -38);

    /* rt_sigsuspend in one thread, the signal from another: the handler runs in the waiting thread, then EINTR.
     * SIGUSR1 is blocked (in both threads: the mask is inherited) but in the suspend's mask. */
    unsigned long usr1 = 1ul << 9, none = 0, mask_after = 0;
    unsigned long action[4] = {(unsigned long)on_signal, 0, 0, 0};
    sys(SYS_rt_sigaction, 10, action, 0, 8);
    sys(SYS_rt_sigprocmask, 0, &usr1, 0, 8);
    main_tid = sys(SYS_gettid, 0);
    spawn(signaller, 0, stacks[0] + sizeof stacks[0], &tids[0], 0);
    expect("rt_sigsuspend until another thread's tgkill", sys(SYS_rt_sigsuspend, &none, 8), -4);
    expect("its handler ran, for SIGUSR1", handled_signal, 10);
    expect("on the waiting thread", handler_ran_on == main_tid, 1);
    sys(SYS_rt_sigprocmask, 0, 0, &mask_after, 8);
    expect("the mask from before rt_sigsuspend", (long)mask_after, (long)usr1);
    join(&tids[0]);

    /* A thread polling the clock in a loop still lets the other have its turn. */
    spawn(flag_setter, 0, stacks[0] + sizeof stacks[0], &tids[0], 0);
    long polls = 0, now[2];
    while (!__atomic_load_n(&flag, __ATOMIC_ACQUIRE)) {
        sys(SYS_clock_gettime, 1, now);
        polls++;
        /* A few thousand instructions between calls (far fewer than a slice): lockstep compares at each call. */
        for (volatile int spin = 0; spin < 1000; spin++) {
        }
    }
    join(&tids[0]);
    expect("the flag set by a sleeping thread is seen while polling the clock", polls > 0, 1);

    /* pause() (ppoll of nothing) and a futex wait, each ended by a signal from another thread: EINTR. */
    unsigned long no_mask = 0;
    sys(SYS_rt_sigprocmask, 2 /* SIG_SETMASK */, &no_mask, 0, 8);
    handled_signal = 0;
    spawn(blocked_signaller, 5, stacks[0] + sizeof stacks[0], &tids[0], 0);
    expect("pause until another thread's signal", sys(SYS_ppoll, 0, 0, 0, 0, 8), -4);
    expect("its handler ran", handled_signal, 10);
    join(&tids[0]);
    handled_signal = 0;
    int never_changes = 0;
    spawn(blocked_signaller, 50, stacks[0] + sizeof stacks[0], &tids[0], 0);
    expect("a futex wait ended by another thread's signal", sys(SYS_futex, &never_changes, FUTEX_WAIT, 0, 0), -4);
    expect("its handler ran", handled_signal, 10);
    join(&tids[0]);

    /* rt_sigtimedwait takes a blocked signal without running a handler: one pending already (si_code SI_USER),
     * none within a zero or 1 ms timeout (EAGAIN), and one another thread sends meanwhile (SI_TKILL). */
    unsigned long usr2 = 1ul << 11;
    int info[32];
    long zero_wait[2] = {0, 0}, one_ms_wait[2] = {0, 1000000};
    sys(SYS_rt_sigprocmask, 0, &usr2, 0, 8);
    sys(SYS_kill, pid, 12);
    expect("rt_sigtimedwait of a pending signal", sys(SYS_rt_sigtimedwait, &usr2, info, 0, 8), 12);
    expect("its si_signo", info[0], 12);
    expect("its si_code (SI_USER)", info[2], 0);
    expect("rt_sigtimedwait with nothing pending, no wait", sys(SYS_rt_sigtimedwait, &usr2, 0, zero_wait, 8), -11);
    expect("rt_sigtimedwait with nothing pending, 1 ms", sys(SYS_rt_sigtimedwait, &usr2, 0, one_ms_wait, 8), -11);
    expect("rt_sigtimedwait with a 4-byte set", sys(SYS_rt_sigtimedwait, &usr2, 0, 0, 4), -22);
    spawn(usr2_sender, 0, stacks[0] + sizeof stacks[0], &tids[0], 0);
    expect("rt_sigtimedwait for another thread's signal", sys(SYS_rt_sigtimedwait, &usr2, info, 0, 8), 12);
    expect("its si_code (SI_TKILL)", info[2], -6);
    join(&tids[0]);

    /* set_tid_address gives the main thread a word its exit clears, which the finisher joins. */
    main_tid_word = (int)pid;
    expect("set_tid_address gives the thread's id", sys(SYS_set_tid_address, &main_tid_word) == pid, 1);
    spawn(finisher, 0, stacks[WORKERS] + sizeof stacks[WORKERS], &tids[WORKERS], 0);
    sys(SYS_exit, 0);
    return 1;
}
