/* Linux only: the system calls of Tandem's Linux personality, compared with what qemu-aarch64 (a real Linux
 * kernel underneath) does. It prints only what both must agree on: results, sizes, contents, never addresses,
 * times or host-dependent numbers. Run it in an empty scratch folder: it creates and removes files there. */
#include "linux.h"

enum {
    SYS_getcwd = 17, SYS_dup3 = 24, SYS_fcntl = 25, SYS_mkdirat = 34, SYS_unlinkat = 35, SYS_renameat = 38,
    SYS_openat = 56, SYS_close = 57, SYS_pipe2 = 59, SYS_getdents64 = 61, SYS_lseek = 62, SYS_read = 63,
    SYS_write = 64, SYS_writev = 66, SYS_readlinkat = 78, SYS_newfstatat = 79, SYS_fstat = 80,
    SYS_futex = 98, SYS_nanosleep = 101, SYS_clock_gettime = 113, SYS_clock_nanosleep = 115, SYS_clock_getres = 114, SYS_sched_getaffinity = 123, SYS_kill = 129, SYS_times = 153, SYS_umask = 166, SYS_rt_sigaction = 134, SYS_sigaltstack = 132, SYS_rt_sigprocmask = 135, SYS_uname = 160, SYS_getpid = 172, SYS_brk = 214,
    SYS_flock = 32, SYS_mknodat = 33, SYS_symlinkat = 36, SYS_linkat = 37, SYS_statfs = 43, SYS_fstatfs = 44,
    SYS_truncate = 45, SYS_fallocate = 47, SYS_chdir = 49, SYS_fchdir = 50, SYS_fchmod = 52, SYS_fchownat = 54,
    SYS_fchown = 55, SYS_pselect6 = 72, SYS_ppoll = 73, SYS_getgroups = 158, SYS_getuid = 174, SYS_getppid = 173, SYS_clone = 220,
    SYS_wait4 = 260, SYS_exit_group = 94, SYS_tgkill = 131, SYS_rt_sigsuspend = 133, SYS_setpgid = 154,
    SYS_getpgid = 155, SYS_getsid = 156, SYS_setsid = 157, SYS_execve = 221,
    SYS_munmap = 215, SYS_mremap = 216, SYS_mmap = 222, SYS_mprotect = 226, SYS_madvise = 233, SYS_getrandom = 278, SYS_memfd_create = 279, SYS_ftruncate = 46, SYS_pread64 = 67, SYS_sync = 81, SYS_close_range = 436,
};
#define AT_FDCWD (-100)
#define AT_REMOVEDIR 0x200
#define O_RDONLY 0
#define O_RDWR 2
#define O_CREAT 0x40
#define O_TRUNC 0x200
#define O_DIRECTORY 0x4000



/* Signal handlers return through rt_sigreturn, as the C library's sa_restorer does. */
__asm__(".text\n.p2align 2\nreturn_from_signal:\n    mov x8, #139\n    svc #0\n");
extern void return_from_signal(void);
#define SA_SIGINFO 4
#define SA_RESTORER 0x04000000
#define SA_RESETHAND 0x80000000u

/* What the last handler saw: its signal, si_signo and si_code, whether si_pid was the process's, the ucontext's
 * distance from the siginfo, the fpsimd record's magic and size, the saved mask, and the mask while it ran. */
static volatile long seen_signal, seen_signo, seen_code, seen_own_pid, seen_distance, seen_magic, seen_size,
    seen_saved_mask, seen_mask_inside, seen_child_pid, handled_count;

static void on_signal(int signal, void *info, void *context) {
    seen_signal = signal;
    seen_signo = *(int *)info;
    seen_code = *(int *)((char *)info + 8);
    seen_own_pid = *(int *)((char *)info + 16) == sys(SYS_getpid, 0);
    seen_child_pid = *(int *)((char *)info + 16);
    seen_distance = (char *)context - (char *)info;
    seen_saved_mask = *(unsigned long *)((char *)context + 40);
    seen_magic = *(unsigned *)((char *)context + 176 + 288);
    seen_size = *(unsigned *)((char *)context + 176 + 288 + 4);
    unsigned long inside = 0;
    sys(SYS_rt_sigprocmask, 0, 0, &inside, 8);
    seen_mask_inside = inside;
    handled_count++;
}

static void handle(int signal, unsigned long flags, unsigned long mask) {
    unsigned long action[4] = {(unsigned long)on_signal, SA_SIGINFO | SA_RESTORER | flags,
                               (unsigned long)return_from_signal, mask};
    sys(SYS_rt_sigaction, signal, action, 0, 8);
}

/* What a handler saw of the stack it ran on: whether a local lay on the alternate stack, and sigaltstack's
 * report there (flags, and whether a change was refused with EPERM). */
static char alternate_stack[65536] __attribute__((aligned(16)));
static volatile long on_alternate, flags_inside, change_inside;
static void on_alt_signal(int signal) {
    (void)signal;
    volatile char here = 0;
    on_alternate = &here >= alternate_stack && &here < alternate_stack + sizeof alternate_stack;
    unsigned long inside[3] = {0, 9, 0}, other[3] = {0, 2 /* SS_DISABLE */, 0};
    sys(SYS_sigaltstack, 0, inside);
    flags_inside = (int)inside[1]; /* ss_flags is an int: the word's high half is padding */
    change_inside = sys(SYS_sigaltstack, other, 0);
}

static const char *basename(const char *path) {
    const char *base = path;
    for (; *path; path++)
        if (*path == '/') base = path + 1;
    return base;
}

int main(int argc, char **argv, char **envp) {
    /* Modes for the tests of how a run ends: "exit N", "unknown" (a system call Tandem lacks), "fault". */
    if (argc == 3 && memcmp(argv[1], "exit", 5) == 0) return argv[2][0] - '0';
    if (argc == 2 && memcmp(argv[1], "unknown", 8) == 0) {
        char buffer[16];
        print("syslog: ");
        print_i64(sys(116, 3, buffer, sizeof buffer) < 0 ? -1 : 0); /* SYSLOG_ACTION_READ_ALL */
        print("\n");
        return 0;
    }
    if (argc == 2 && memcmp(argv[1], "fault", 6) == 0) *(volatile int *)16 = 1;
    /* vfork's child shares its parent's memory (vfork(2)), which qemu-aarch64 does not do: not compared with it. */
    if (argc == 2 && memcmp(argv[1], "vfork", 6) == 0) {
        static volatile int written_by_child;
        long child = sys(220 /* clone */, 0x4000 | 0x100 | 17, 0, 0, 0, 0);
        if (child == 0) {
            written_by_child = 1;
            sys(94 /* exit_group */, 0);
        }
        print("vfork child's write seen: ");
        print_i64(written_by_child);
        print("\n");
        return 0;
    }

    print("argc: ");
    print_i64(argc);
    print("\n");
    for (int i = 1; i < argc; i++) {
        print("argv: ");
        print(argv[i]);
        print("\n");
    }
    for (char **e = envp; *e; e++)
        if (memcmp(*e, "TANDEM_TEST=", 12) == 0) {
            print("env: ");
            print(*e);
            print("\n");
        }

    char uts[6 * 65];
    expect("uname", sys(SYS_uname, uts), 0);
    print(uts);
    print(" ");
    print(uts + 4 * 65);
    print("\n");
    expect("getpid is positive", sys(SYS_getpid, 0) > 0, 1);

    long start = sys(SYS_brk, 0);
    long grown = sys(SYS_brk, start + 0x10000);
    expect("brk grows", grown - start, 0x10000);
    ((volatile char *)grown)[-1] = 42;
    expect("brk memory", ((volatile char *)grown)[-1], 42);

    char *area = (char *)sys(SYS_mmap, 0, 3 * 4096, 3, 0x22, -1, 0);
    area[0] = 1;
    area[3 * 4096 - 1] = 2;
    expect("mmap contents", area[0] + area[3 * 4096 - 1], 3);
    expect("munmap middle", sys(SYS_munmap, area + 4096, 4096), 0);
    expect("mprotect first read-only", sys(SYS_mprotect, area, 4096, 1), 0);
    expect("read after mprotect", area[0], 1);
    char *moved = (char *)sys(SYS_mremap, area + 8192, 4096, 4 * 4096, 1);
    expect("mremap keeps contents", moved[4095], 2);
    moved[4 * 4096 - 1] = 7;
    expect("mremap grown tail", moved[4 * 4096 - 1], 7);
    char *holed = (char *)sys(SYS_mmap, 0, 3 * 4096, 3, 0x22, -1, 0);
    expect("munmap a hole", sys(SYS_munmap, holed + 4096, 4096), 0);
    expect("mremap over a hole", sys(SYS_mremap, holed, 3 * 4096, 4 * 4096, 1), -14);
    expect("mremap with an unknown flag", sys(SYS_mremap, holed, 4096, 2 * 4096, 8), -22);
    /* AArch64 has no write-only pages: PROT_WRITE memory reads too (Linux's protection_map gives it read). */
    volatile char *writable = (volatile char *)sys(SYS_mmap, 0, 4096, 2 /* PROT_WRITE */, 0x22, -1, 0);
    writable[9] = 5;
    expect("a PROT_WRITE page reads back", writable[9], 5);
    /* MADV_DONTNEED drops private anonymous pages: they read as zeros again; other advice changes no contents. */
    volatile char *advised = (volatile char *)sys(SYS_mmap, 0, 3 * 4096, 3, 0x22, -1, 0);
    advised[5] = 9;
    advised[4096 + 5] = 9;
    advised[2 * 4096 + 5] = 9;
    expect("madvise MADV_DONTNEED", sys(SYS_madvise, advised + 4096, 4096, 4), 0);
    expect("MADV_DONTNEED zeroes its page", advised[4096 + 5], 0);
    expect("the pages around it are kept", advised[5] + advised[2 * 4096 + 5], 18);
    expect("MADV_DONTNEED rounds the length up", sys(SYS_madvise, advised, 1, 4), 0);
    expect("the whole first page is zero", advised[5], 0);
    expect("madvise MADV_WILLNEED keeps contents", sys(SYS_madvise, advised + 2 * 4096, 4096, 3), 0);
    expect("after MADV_WILLNEED", advised[2 * 4096 + 5], 9);
    expect("madvise at a misaligned address", sys(SYS_madvise, advised + 1, 4096, 4), -22);
    expect("MADV_DONTNEED of the rest", sys(SYS_madvise, advised + 4096, 2 * 4096, 4), 0);
    expect("the last page is zero", advised[2 * 4096 + 5], 0);

    expect("mkdirat", sys(SYS_mkdirat, AT_FDCWD, "scratch", 0755), 0);
    long dir = sys(SYS_openat, AT_FDCWD, "scratch", O_RDONLY | O_DIRECTORY, 0);
    expect("open directory", dir >= 3, 1);
    long file = sys(SYS_openat, dir, "a.txt", O_RDWR | O_CREAT | O_TRUNC, 0644);
    expect("openat in directory", file > dir, 1);
    expect("write", sys(SYS_write, file, "hello, file", 11), 11);
    struct { const void *base; unsigned long len; } iov[2] = {{"+more", 5}, {"!", 1}};
    expect("writev", sys(SYS_writev, file, iov, 2), 6);
    expect("lseek", sys(SYS_lseek, file, 0, 0), 0);
    char back[32] = {0};
    expect("read", sys(SYS_read, file, back, sizeof back), 17);
    print(back);
    print("\n");
    unsigned char st[128];
    expect("fstat", sys(SYS_fstat, file, st), 0);
    expect("fstat size", *(long *)(st + 48), 17);
    expect("fstat is a regular file", (*(unsigned *)(st + 16) & 0170000) == 0100000, 1);
    expect("newfstatat", sys(SYS_newfstatat, dir, "a.txt", st, 0), 0);
    expect("newfstatat size", *(long *)(st + 48), 17);
    /* Modes, owners, locks and sizes (on the host's file system, which both runners share). */
    expect("fchmod", sys(SYS_fchmod, file, 0600), 0);
    expect("fstat after fchmod", sys(SYS_fstat, file, st), 0);
    expect("the mode fchmod set", *(unsigned *)(st + 16) & 07777, 0600);
    long uid = sys(SYS_getuid, 0);
    expect("fchown to the owner", sys(SYS_fchown, file, uid, -1), 0);
    expect("fchownat to the owner", sys(SYS_fchownat, dir, "a.txt", uid, -1, 0), 0);
    expect("fchownat of a missing file", sys(SYS_fchownat, dir, "missing", uid, -1, 0), -2);
    expect("flock(LOCK_EX | LOCK_NB)", sys(SYS_flock, file, 2 | 4), 0);
    expect("flock(LOCK_UN)", sys(SYS_flock, file, 8), 0);
    expect("flock of a descriptor not open", sys(SYS_flock, 999, 2), -9);
    expect("fallocate(FALLOC_FL_KEEP_SIZE)", sys(SYS_fallocate, file, 1, 0, 8192), 0);
    expect("fstat after it", sys(SYS_fstat, file, st), 0);
    expect("the size kept", *(long *)(st + 48), 17);
    expect("truncate", sys(SYS_truncate, "scratch/a.txt", 40), 0);
    expect("fstat after truncate", sys(SYS_fstat, file, st), 0);
    expect("the size truncate set", *(long *)(st + 48), 40);
    expect("truncate back", sys(SYS_truncate, "scratch/a.txt", 17), 0);
    expect("truncate of a missing file", sys(SYS_truncate, "scratch/missing", 0), -2);
    /* statfs and fstatfs of the same folder see the same file system. */
    long fs_path[15], fs_fd[15];
    expect("statfs", sys(SYS_statfs, "scratch", fs_path), 0);
    expect("fstatfs", sys(SYS_fstatfs, dir, fs_fd), 0);
    expect("the same f_type", fs_path[0] == fs_fd[0], 1);
    expect("the same f_bsize and f_namelen", fs_path[1] == fs_fd[1] && fs_path[8] == fs_fd[8], 1);
    expect("a positive f_namelen", fs_path[8] > 0, 1);
    expect("statfs of a missing path", sys(SYS_statfs, "scratch/missing", fs_path), -2);
    /* Links and nodes: a symbolic link holds its target as given; a hard link counts; a FIFO is a FIFO. */
    expect("symlinkat", sys(SYS_symlinkat, "a.txt", dir, "link"), 0);
    char target[16] = {0};
    expect("readlinkat of the link", sys(SYS_readlinkat, dir, "link", target, sizeof target - 1), 5);
    print(target);
    print("\n");
    expect("symlinkat over a name in use", sys(SYS_symlinkat, "b", dir, "link"), -17);
    expect("linkat", sys(SYS_linkat, dir, "a.txt", dir, "hard", 0), 0);
    expect("linkat(AT_SYMLINK_FOLLOW) through the link", sys(SYS_linkat, dir, "link", dir, "hard2", 0x400), 0);
    expect("newfstatat of a hard link", sys(SYS_newfstatat, dir, "hard", st, 0), 0);
    expect("three links", *(unsigned *)(st + 20), 3);
    expect("newfstatat(AT_SYMLINK_NOFOLLOW)", sys(SYS_newfstatat, dir, "link", st, 0x100), 0);
    expect("a symbolic link", (*(unsigned *)(st + 16) & 0170000) == 0120000, 1);
    expect("mknodat(S_IFIFO)", sys(SYS_mknodat, dir, "fifo", 0010600, 0), 0);
    expect("newfstatat of the FIFO", sys(SYS_newfstatat, dir, "fifo", st, 0), 0);
    expect("a FIFO", (*(unsigned *)(st + 16) & 0170000) == 0010000, 1);
    const char *made[] = {"link", "hard", "hard2", "fifo"};
    for (int i = 0; i < 4; i++) expect(made[i], sys(SYS_unlinkat, dir, made[i], 0), 0);
    /* fchdir moves the working folder: getcwd ends in the folder's name. */
    char where[512];
    expect("fchdir", sys(SYS_fchdir, dir), 0);
    long where_length = sys(SYS_getcwd, where, sizeof where);
    expect("getcwd after fchdir ends in /scratch",
           where_length > 9 && memcmp(where + where_length - 9, "/scratch", 9) == 0, 1);
    expect("chdir back", sys(SYS_chdir, ".."), 0);
    expect("fchdir of a file", sys(SYS_fchdir, file), -20);
    /* getgroups: the count alone, then the list; a list too small for it is EINVAL. */
    long groups = sys(SYS_getgroups, 0, 0);
    unsigned group_list[256];
    expect("getgroups(0) counts", groups >= 0 && groups <= 256, 1);
    expect("getgroups(count)", sys(SYS_getgroups, groups, group_list), groups);
    if (groups > 0) expect("getgroups(count - 1)", sys(SYS_getgroups, groups - 1, group_list), -22);
    /* MADV_DONTNEED drops a private file mapping's changes: the page reads as the file again. */
    volatile char *copy = (volatile char *)sys(SYS_mmap, 0, 4096, 3, 2 /* MAP_PRIVATE */, file, 0);
    copy[0] = 'J';
    expect("a private file mapping is written", copy[0], 'J');
    expect("MADV_DONTNEED of a file mapping", sys(SYS_madvise, copy, 4096, 4), 0);
    expect("it reads as the file again", copy[0], 'h');
    expect("past the file's end it is zero", copy[100], 0);
    expect("close", sys(SYS_close, file), 0);
    expect("close again", sys(SYS_close, file), -9);
    expect("open missing file", sys(SYS_openat, dir, "missing", O_RDONLY, 0), -2);
    /* A regular file's read and write move the whole count, however large (up to Linux's MAX_RW_COUNT). */
    static char big[3 << 20];
    for (unsigned long i = 0; i < sizeof big; i++) big[i] = (char)(i * 7 + i / 4096);
    long big_file = sys(SYS_openat, dir, "big", O_RDWR | O_CREAT | O_TRUNC, 0644);
    expect("write 3 MiB", sys(SYS_write, big_file, big, sizeof big), sizeof big);
    expect("lseek to its start", sys(SYS_lseek, big_file, 0, 0), 0);
    for (unsigned long i = 0; i < sizeof big; i++) big[i] = 0;
    expect("read 3 MiB", sys(SYS_read, big_file, big, sizeof big), sizeof big);
    int intact = 1;
    for (unsigned long i = 0; i < sizeof big; i++) intact &= big[i] == (char)(i * 7 + i / 4096);
    expect("every byte read back", intact, 1);
    /* mmap checks its file first (mmap(2)): a write-only descriptor is EACCES, a directory ENODEV. */
    long write_only = sys(SYS_openat, dir, "big", 1 /* O_WRONLY */, 0);
    expect("mmap of a write-only file", sys(SYS_mmap, 0, 4096, 1, 2 /* MAP_PRIVATE */, write_only, 0), -13);
    expect("mmap of a directory", sys(SYS_mmap, 0, 4096, 1, 2, dir, 0), -19);
    expect("close the write-only file", sys(SYS_close, write_only), 0);
    expect("close the big file", sys(SYS_close, big_file), 0);
    expect("unlinkat the big file", sys(SYS_unlinkat, dir, "big", 0), 0);

    char entries[512];
    long length = sys(SYS_getdents64, dir, entries, sizeof entries);
    int names = 0, found = 0;
    for (long at = 0; at < length;) {
        unsigned short reclen = *(unsigned short *)(entries + at + 16);
        const char *name = entries + at + 19;
        names++;
        if (memcmp(name, "a.txt", 6) == 0) found = 1;
        at += reclen;
    }
    expect("getdents64 entries (., .., a.txt)", names, 3);
    expect("getdents64 finds a.txt", found, 1);
    expect("renameat", sys(SYS_renameat, dir, "a.txt", dir, "b.txt"), 0);
    expect("unlinkat file", sys(SYS_unlinkat, dir, "b.txt", 0), 0);
    expect("close directory", sys(SYS_close, dir), 0);
    expect("unlinkat directory", sys(SYS_unlinkat, AT_FDCWD, "scratch", AT_REMOVEDIR), 0);

    int pipe[2];
    expect("pipe2", sys(SYS_pipe2, pipe, 0), 0);
    expect("pipe write", sys(SYS_write, pipe[1], "abc", 3), 3);
    expect("dup3", sys(SYS_dup3, pipe[0], 20, 0), 20);
    char piped[4] = {0};
    expect("pipe read through the duplicate", sys(SYS_read, 20, piped, 3), 3);
    print(piped);
    print("\n");
    expect("fcntl F_GETFL of the write end", sys(SYS_fcntl, pipe[1], 3) & 3, 1);
    /* ppoll: an empty pipe, a skipped entry (fd -1), a descriptor not open (POLLNVAL, counted) and the write end. */
    struct { int fd; short events, revents; } polled[4] = {{pipe[0], 1, 9}, {-1, 1, 9}, {77, 1, 9}, {pipe[1], 4, 9}};
    long no_wait[2] = {0, 0}, a_millisecond[2] = {0, 1000000}, too_many_ns[2] = {0, 1000000000};
    unsigned long poll_mask = 0;
    expect("ppoll without waiting", sys(SYS_ppoll, polled, 4, no_wait, &poll_mask, 8), 2);
    expect("the empty pipe", polled[0].revents, 0);
    expect("the skipped entry", polled[1].revents, 0);
    expect("the descriptor not open", polled[2].revents, 0x20);
    expect("the write end (POLLOUT)", polled[3].revents, 4);
    sys(SYS_write, pipe[1], "d", 1);
    expect("ppoll once the pipe holds a byte", sys(SYS_ppoll, polled, 1, 0, 0, 0), 1);
    expect("POLLIN", polled[0].revents, 1);
    expect("ppoll with a 4-byte mask", sys(SYS_ppoll, polled, 1, no_wait, &poll_mask, 4), -22);
    expect("ppoll that times out", sys(SYS_ppoll, polled, 0, a_millisecond, 0, 8), 0);
    expect("ppoll with 10^9 ns", sys(SYS_ppoll, polled, 1, too_many_ns, 0, 8), -22);
    /* pselect6: the pipe holds a byte ("d"), so its read end is ready, and the write end too; an unasked bit past
     * the count is left out; a descriptor not open is EBADF. */
    unsigned long readable = (1ul << pipe[0]) | (1ul << 40), write_set = 1ul << pipe[1], exceptional = 1ul << pipe[0];
    long a_second[2] = {1, 0};
    expect("pselect6 of the pipe's ends", sys(SYS_pselect6, 33, &readable, &write_set, &exceptional, a_second, 0), 2);
    expect("its read set", readable == 1ul << pipe[0], 1);
    expect("its write set", write_set == 1ul << pipe[1], 1);
    expect("its exception set", (long)exceptional, 0);
    char drained;
    sys(SYS_read, pipe[0], &drained, 1);
    readable = 1ul << pipe[0];
    long ten_ms_select[2] = {0, 10000000};
    expect("pselect6 of the empty pipe, 10 ms", sys(SYS_pselect6, 33, &readable, 0, 0, ten_ms_select, 0), 0);
    expect("nothing ready", (long)readable, 0);
    expect("no time left", ten_ms_select[0] + ten_ms_select[1], 0);
    readable = 1ul << 30;
    expect("pselect6 of a descriptor not open", sys(SYS_pselect6, 31, &readable, 0, 0, no_wait, 0), -9);
    expect("pselect6 with a negative count", sys(SYS_pselect6, -1, 0, 0, 0, no_wait, 0), -22);
    unsigned long select_mask[2] = {(unsigned long)&poll_mask, 8};
    readable = 1ul << pipe[0];
    expect("pselect6 with a mask, nothing ready", sys(SYS_pselect6, 33, &readable, 0, 0, no_wait, select_mask), 0);
    /* memfd_create: a file in memory, close-on-exec with MFD_CLOEXEC; a name of 250 bytes is too long, unknown flags
     * are EINVAL. */
    int memfd = sys(SYS_memfd_create, "tandem-test", 1 /* MFD_CLOEXEC */);
    expect("memfd_create", memfd >= 0, 1);
    expect("its close-on-exec flag", sys(SYS_fcntl, memfd, 1 /* F_GETFD */), 1);
    expect("a write to it", sys(SYS_write, memfd, "in memory", 9), 9);
    expect("ftruncate to 4", sys(SYS_ftruncate, memfd, 4), 0);
    char from_memfd[8] = {0};
    expect("pread of it", sys(SYS_pread64, memfd, from_memfd, 8, 0), 4);
    print(from_memfd);
    print("\n");
    sys(SYS_close, memfd);
    static char long_name[251];
    for (int i = 0; i < 250; i++) long_name[i] = 'm';
    expect("memfd_create with a 250-byte name", sys(SYS_memfd_create, long_name, 0), -22);
    long_name[249] = 0;
    memfd = sys(SYS_memfd_create, long_name, 0);
    expect("with a 249-byte name", memfd >= 0, 1);
    sys(SYS_close, memfd);
    expect("memfd_create with unknown flags", sys(SYS_memfd_create, "x", 0x100), -22);
    /* close_range: CLOEXEC marks the range, a plain call closes it (descriptors 20 and the pipe's, which are below
     * 20); a range that ends before it starts, or an unknown flag, is EINVAL. */
    expect("close_range(20, 20, CLOSE_RANGE_CLOEXEC)", sys(SYS_close_range, 20, 20, 4), 0);
    expect("the descriptor is close-on-exec", sys(SYS_fcntl, 20, 1 /* F_GETFD */), 1);
    expect("close_range(pipe, ~0)", sys(SYS_close_range, pipe[0] < pipe[1] ? pipe[0] : pipe[1], ~0u, 0), 0);
    expect("the pipe is closed", sys(SYS_fcntl, pipe[1], 1), -9);
    expect("and the duplicate", sys(SYS_fcntl, 20, 1), -9);
    expect("close_range(5, 4)", sys(SYS_close_range, 5, 4, 0), -22);
    expect("close_range with flag 8", sys(SYS_close_range, 30, 40, 8), -22);
    expect("sync", sys(SYS_sync, 0), 0);

    char exe[256] = {0};
    long exe_length = sys(SYS_readlinkat, AT_FDCWD, "/proc/self/exe", exe, sizeof exe - 1);
    expect("readlink /proc/self/exe", exe_length > 0, 1);
    print(basename(exe));
    print("\n");
    char cwd[512];
    expect("getcwd", sys(SYS_getcwd, cwd, sizeof cwd) > 1, 1);

    unsigned char random[16];
    expect("getrandom", sys(SYS_getrandom, random, 16, 0), 16);
    long t1[2], t2[2];
    sys(SYS_clock_gettime, 1, t1);
    sys(SYS_clock_gettime, 1, t2);
    expect("monotonic clock", t2[0] > t1[0] || (t2[0] == t1[0] && t2[1] >= t1[1]), 1);
    unsigned long action[4] = {0x1234, 0, 0, 0}, old[4] = {1, 1, 1, 1};
    expect("rt_sigaction", sys(SYS_rt_sigaction, 10, action, 0, 8), 0);
    expect("rt_sigaction reads back", sys(SYS_rt_sigaction, 10, 0, old, 8), 0);
    expect("the handler read back", (long)old[0], 0x1234);
    /* Signals: SIGWINCH's default action ignores it; no process has pid 2^30; a mask read and written through
     * the same memory gives the old mask and sets the new one; the kernel's sigset_t is 8 bytes. */
    expect("kill(self, SIGWINCH)", sys(SYS_kill, sys(SYS_getpid, 0), 28), 0);
    expect("kill(2^30, 0)", sys(SYS_kill, 1L << 30, 0), -3);
    unsigned long mask = 1ul << 9;
    expect("rt_sigprocmask(SIG_BLOCK, &m, &m)", sys(SYS_rt_sigprocmask, 0, &mask, &mask, 8), 0);
    expect("the old mask", (long)mask, 0);
    expect("rt_sigprocmask(SIG_BLOCK, 0, &m)", sys(SYS_rt_sigprocmask, 0, 0, &mask, 8), 0);
    expect("the mask blocks signal 10", (long)mask, 1L << 9);
    expect("rt_sigprocmask(a 4-byte set)", sys(SYS_rt_sigprocmask, 0, &mask, 0, 4), -22);
    /* A futex wait that nothing wakes, with a timeout: ETIMEDOUT; a timeout of 10^9 ns is EINVAL. */
    static int futex_word = 7;
    long short_wait[2] = {0, 1000000}, bad_wait[2] = {0, 1000000000};
    expect("futex wait with a timeout", sys(SYS_futex, &futex_word, 128 /* WAIT_PRIVATE */, 7, short_wait), -110);
    expect("futex wait with 10^9 ns", sys(SYS_futex, &futex_word, 128, 7, bad_wait), -22);
    expect("futex wait with 10^9 ns and another value", sys(SYS_futex, &futex_word, 128, 8, bad_wait), -22);
    expect("futex wait_bitset with bitset 0", sys(SYS_futex, &futex_word, 128 | 9, 7, 0, 0, 0), -22);

    /* Sleeps: the monotonic clock moves on by at least what they ask for (Linux's promise), and not by seconds
     * more; an absolute sleep ends at or after its deadline; a deadline passed is no sleep. */
    long before[2], after[2], quarter[2] = {0, 250000000}, negative[2] = {-1, 0};
    sys(SYS_clock_gettime, 1, before);
    expect("nanosleep 0.25 s", sys(SYS_nanosleep, quarter, 0), 0);
    sys(SYS_clock_gettime, 1, after);
    long slept = (after[0] - before[0]) * 1000000000 + after[1] - before[1];
    expect("the monotonic clock moved on by 0.25 s to 5 s", slept >= 250000000 && slept < 5000000000, 1);
    long deadline[2] = {after[0] + (after[1] + 100000000) / 1000000000, (after[1] + 100000000) % 1000000000};
    expect("clock_nanosleep(MONOTONIC, TIMER_ABSTIME)", sys(SYS_clock_nanosleep, 1, 1, deadline, 0), 0);
    sys(SYS_clock_gettime, 1, after);
    expect("the deadline passed", after[0] > deadline[0] || (after[0] == deadline[0] && after[1] >= deadline[1]), 1);
    expect("clock_nanosleep(a deadline passed)", sys(SYS_clock_nanosleep, 1, 1, before, 0), 0);
    deadline[0] = after[0] + (after[1] + 200000000) / 1000000000;
    deadline[1] = (after[1] + 200000000) % 1000000000;
    expect("futex wait_bitset until a deadline", sys(SYS_futex, &futex_word, 128 | 9, 7, deadline, 0, -1), -110);
    sys(SYS_clock_gettime, 1, after);
    expect("its deadline passed", after[0] > deadline[0] || (after[0] == deadline[0] && after[1] >= deadline[1]), 1);
    expect("nanosleep(-1 s)", sys(SYS_nanosleep, negative, 0), -22);
    expect("nanosleep(10^9 ns)", sys(SYS_nanosleep, bad_wait, 0), -22);
    expect("clock_nanosleep(THREAD_CPUTIME_ID)", sys(SYS_clock_nanosleep, 3, 0, quarter, 0), -95);
    expect("clock_nanosleep(MONOTONIC_RAW)", sys(SYS_clock_nanosleep, 4, 0, quarter, 0), -95);
    expect("clock_nanosleep(clock 99)", sys(SYS_clock_nanosleep, 99, 0, quarter, 0), -22);
    expect("clock_nanosleep(REALTIME, -1 s)", sys(SYS_clock_nanosleep, 0, 0, negative, 0), -22);
    expect("futex wait for another value", sys(SYS_futex, &futex_word, 128, 8, short_wait), -11);
    long inherited = sys(SYS_umask, 077);
    expect("umask gives back the mask set", sys(SYS_umask, inherited), 077);
    expect("clock_getres(CLOCK_MONOTONIC, NULL)", sys(SYS_clock_getres, 1, 0), 0);
    expect("times(NULL) is positive", sys(SYS_times, 0) > 0, 1);
    unsigned char affinity[8];
    expect("sched_getaffinity(4 bytes)", sys(SYS_sched_getaffinity, 0, 4, affinity), -22);
    expect("sched_getaffinity(8 bytes) > 0", sys(SYS_sched_getaffinity, 0, 8, affinity) > 0, 1);
    expect("rt_sigprocmask(how 7)", sys(SYS_rt_sigprocmask, 7, &mask, &mask, 8), -22);
    expect("the mask after how 7", (long)mask, 1L << 9);

    /* fork: the child has a copy of memory (its writes stay its own), the parent's pid as getppid, and the
     * descriptors; its exit status reaches wait4. */
    static volatile int private_word = 1;
    int link[2];
    expect("pipe2 for the child", sys(SYS_pipe2, link, 0), 0);
    long parent = sys(SYS_getpid, 0);
    long child = sys(SYS_clone, 17 /* SIGCHLD */, 0, 0, 0, 0);
    if (child == 0) {
        private_word = 2;
        char report = sys(SYS_getppid, 0) == parent ? 'p' : '?';
        sys(SYS_write, link[1], &report, 1);
        sys(SYS_exit_group, 42);
    }
    expect("fork gives the parent the child's pid", child > 0 && child != parent, 1);
    char report = 0;
    expect("a byte from the child", sys(SYS_read, link[0], &report, 1), 1);
    expect("the child's getppid is the parent's pid", report, 'p');
    int status = 0;
    expect("wait4 gives the child", sys(SYS_wait4, child, &status, 0, 0) == child, 1);
    expect("which exited", status & 0x7f, 0);
    expect("with status 42", (status >> 8) & 0xff, 42);
    expect("the child's write stayed its own", private_word, 1);
    expect("wait4 with no child left", sys(SYS_wait4, -1, &status, 1 /* WNOHANG */, 0), -10);
    /* vfork (CLONE_VM | CLONE_VFORK): the parent goes on once the child has exited. */
    child = sys(SYS_clone, 0x4000 | 0x100 | 17, 0, 0, 0, 0);
    if (child == 0) sys(SYS_exit_group, 7);
    expect("wait4 after vfork", sys(SYS_wait4, -1, &status, 0, 0) == child, 1);
    expect("its status", (status >> 8) & 0xff, 7);
    /* A MAP_SHARED anonymous page stays shared with the child. */
    volatile int *both = (volatile int *)sys(SYS_mmap, 0, 4096, 3, 0x21 /* MAP_SHARED | MAP_ANONYMOUS */, -1, 0);
    *both = 1;
    child = sys(SYS_clone, 17, 0, 0, 0, 0);
    if (child == 0) {
        *both = 5;
        sys(SYS_exit_group, 0);
    }
    expect("wait4 for the writer", sys(SYS_wait4, child, &status, 0, 0) == child, 1);
    expect("its write to the shared page", *both, 5);

    /* Process groups and sessions: the caller's by 0 or by its pid; a child that calls setsid leads a new session
     * and group (a second setsid is EPERM), and setpgid(0, 0) makes it a group's leader. */
    long self_pid = sys(SYS_getpid, 0);
    expect("getpgid(0) is getpgid(getpid())", sys(SYS_getpgid, 0) == sys(SYS_getpgid, self_pid), 1);
    expect("getsid(0) is getsid(getpid())", sys(SYS_getsid, 0) == sys(SYS_getsid, self_pid), 1);
    child = sys(SYS_clone, 17, 0, 0, 0, 0);
    if (child == 0) {
        long me = sys(SYS_getpid, 0);
        int led = sys(SYS_setsid, 0) == me && sys(SYS_getsid, 0) == me && sys(SYS_getpgid, 0) == me;
        int again = sys(SYS_setsid, 0) == -1;
        sys(SYS_exit_group, led + 2 * again);
    }
    expect("wait4 for the session leader", sys(SYS_wait4, child, &status, 0, 0) == child, 1);
    expect("it led its session and group, and a second setsid was EPERM", (status >> 8) & 0xff, 3);
    child = sys(SYS_clone, 17, 0, 0, 0, 0);
    if (child == 0) {
        long me = sys(SYS_getpid, 0);
        sys(SYS_exit_group, sys(SYS_setpgid, 0, 0) == 0 && sys(SYS_getpgid, 0) == me);
    }
    expect("wait4 for the group leader", sys(SYS_wait4, child, &status, 0, 0) == child, 1);
    expect("setpgid(0, 0) made it its group's leader", (status >> 8) & 0xff, 1);

    /* Signals: a handler runs on the frame Linux builds (siginfo, then the ucontext 128 bytes on, its fpsimd record
     * at 176 + 288), with the signal blocked inside and sa_mask added; rt_sigreturn puts the state back. */
    unsigned long no_signals = 0, mask_now = 0;
    sys(SYS_rt_sigprocmask, 2 /* SIG_SETMASK */, &no_signals, 0, 8);
    handle(10, 0, 1ul << 11);
    long kept = 0x1234567;
    expect("kill(self, SIGUSR1) with a handler", sys(SYS_kill, sys(SYS_getpid, 0), 10), 0);
    expect("the handler ran once", handled_count, 1);
    expect("its signal", seen_signal, 10);
    expect("si_signo", seen_signo, 10);
    expect("si_code SI_USER", seen_code, 0);
    expect("si_pid is the process's", seen_own_pid, 1);
    expect("the ucontext follows the siginfo", seen_distance, 128);
    expect("the fpsimd record's magic", seen_magic, 0x46508001);
    expect("and size", seen_size, 528);
    expect("the saved mask", (long)seen_saved_mask, 0);
    expect("the mask inside: the signal and sa_mask", (long)seen_mask_inside, (1l << 9) | (1l << 11));
    sys(SYS_rt_sigprocmask, 0, 0, &mask_now, 8);
    expect("the mask after rt_sigreturn", (long)mask_now, 0);
    expect("a value kept across the handler", kept, 0x1234567);
    expect("tgkill(self, SIGUSR1)", sys(SYS_tgkill, sys(SYS_getpid, 0), sys(SYS_getpid, 0), 10), 0);
    expect("si_code SI_TKILL", seen_code, -6);
    /* Without SA_RESTORER the handler returns through the kernel's own trampoline (the vDSO's on Linux). */
    unsigned long bare[4] = {(unsigned long)on_signal, SA_SIGINFO, 0, 0};
    sys(SYS_rt_sigaction, 10, bare, 0, 8);
    expect("kill(self, SIGUSR1), a handler without SA_RESTORER", sys(SYS_kill, sys(SYS_getpid, 0), 10), 0);
    expect("it ran and came back", handled_count, 3);
    /* A blocked signal waits until it is unblocked; SA_RESETHAND puts the default back once it has run. */
    handle(12, SA_RESETHAND, 0);
    unsigned long usr2 = 1ul << 11;
    sys(SYS_rt_sigprocmask, 0 /* SIG_BLOCK */, &usr2, 0, 8);
    expect("kill(self, SIGUSR2) while blocked", sys(SYS_kill, sys(SYS_getpid, 0), 12), 0);
    expect("not handled yet", handled_count, 3);
    expect("unblocking it", sys(SYS_rt_sigprocmask, 1 /* SIG_UNBLOCK */, &usr2, 0, 8), 0);
    expect("handled as the mask call returned", handled_count, 4);
    expect("SIGUSR2", seen_signal, 12);
    unsigned long after_reset[4] = {9, 9, 9, 9};
    sys(SYS_rt_sigaction, 12, 0, after_reset, 8);
    expect("SA_RESETHAND left SIG_DFL", (long)after_reset[0], 0);
    /* sigaltstack: a handler with SA_ONSTACK runs on the alternate stack, where the stack cannot be changed; one
     * without it runs where the program was. */
    unsigned long stack_now[3] = {1, 9, 1};
    expect("sigaltstack reports none at first", sys(SYS_sigaltstack, 0, stack_now), 0);
    expect("none: ss_flags SS_DISABLE", (int)stack_now[1], 2);
    /* Linux's least size on arm64 is 5120 bytes (qemu-aarch64's 2048), so the oracle checks one below both. */
    unsigned long small[3] = {(unsigned long)alternate_stack, 0, 1024}, odd[3] = {(unsigned long)alternate_stack, 5, 65536};
    expect("sigaltstack of 1024 bytes", sys(SYS_sigaltstack, small, 0), -12);
    expect("sigaltstack with unknown flags", sys(SYS_sigaltstack, odd, 0), -22);
    unsigned long alternate[3] = {(unsigned long)alternate_stack, 0, sizeof alternate_stack};
    expect("sigaltstack of 64 KiB", sys(SYS_sigaltstack, alternate, 0), 0);
    sys(SYS_sigaltstack, 0, stack_now);
    expect("reported back", stack_now[0] == (unsigned long)alternate_stack && (int)stack_now[1] == 0 && stack_now[2] == 65536, 1);
    unsigned long on_stack_action[4] = {(unsigned long)on_alt_signal, SA_RESTORER | 0x08000000 /* SA_ONSTACK */,
                                        (unsigned long)return_from_signal, 0};
    sys(SYS_rt_sigaction, 10, on_stack_action, 0, 8);
    sys(SYS_kill, sys(SYS_getpid, 0), 10);
    expect("an SA_ONSTACK handler runs on the alternate stack", on_alternate, 1);
    expect("where sigaltstack says SS_ONSTACK", flags_inside, 1);
    expect("and refuses a change", change_inside, -1);
    sys(SYS_sigaltstack, 0, stack_now);
    expect("after it, the stack stays", (int)stack_now[1] == 0 && stack_now[2] == 65536, 1);
    unsigned long plain_action[4] = {(unsigned long)on_alt_signal, SA_RESTORER, (unsigned long)return_from_signal, 0};
    sys(SYS_rt_sigaction, 10, plain_action, 0, 8);
    sys(SYS_kill, sys(SYS_getpid, 0), 10);
    expect("a handler without SA_ONSTACK runs on the program's stack", on_alternate, 0);
    expect("where sigaltstack says 0", flags_inside, 0);
    unsigned long disable[3] = {0, 2, 0};
    expect("sigaltstack SS_DISABLE", sys(SYS_sigaltstack, disable, stack_now), 0);
    expect("gave the old one back", stack_now[0] == (unsigned long)alternate_stack && (int)stack_now[1] == 0, 1);
    sys(SYS_rt_sigaction, 10, on_stack_action, 0, 8);
    sys(SYS_kill, sys(SYS_getpid, 0), 10);
    expect("SA_ONSTACK without an alternate stack: the program's", on_alternate, 0);
    /* SIGCHLD when a child ends, waited for by rt_sigsuspend (blocked before the fork, so it cannot come early). */
    handle(17, 0, 0);
    unsigned long chld = 1ul << 16;
    sys(SYS_rt_sigprocmask, 0, &chld, 0, 8);
    child = sys(SYS_clone, 17, 0, 0, 0, 0);
    if (child == 0) sys(SYS_exit_group, 0);
    expect("rt_sigsuspend until SIGCHLD", sys(SYS_rt_sigsuspend, &no_signals, 8), -4);
    expect("SIGCHLD handled", seen_signal, 17);
    expect("si_code CLD_EXITED", seen_code, 1);
    expect("si_pid is the child's", seen_child_pid == child, 1);
    sys(SYS_rt_sigprocmask, 0, 0, &mask_now, 8);
    expect("rt_sigsuspend's mask is gone", (long)mask_now, 1l << 16);
    expect("wait4 for it", sys(SYS_wait4, child, &status, 0, 0) == child, 1);
    expect("rt_sigsuspend with a 4-byte set", sys(SYS_rt_sigsuspend, &no_signals, 4), -22);
    /* A signal from another process: a child sends SIGUSR1 to its parent, which waits for it in rt_sigsuspend. */
    unsigned long default_action[4] = {0, 0, 0, 0};
    sys(SYS_rt_sigaction, 17, default_action, 0, 8);
    handle(10, 0, 0);
    unsigned long usr1 = 1ul << 9;
    sys(SYS_rt_sigprocmask, 0, &usr1, 0, 8);
    long count_before = handled_count;
    child = sys(SYS_clone, 17, 0, 0, 0, 0);
    if (child == 0) sys(SYS_exit_group, sys(SYS_kill, sys(SYS_getppid, 0), 10) == 0 ? 0 : 1);
    expect("rt_sigsuspend until SIGUSR1 from the child", sys(SYS_rt_sigsuspend, &no_signals, 8), -4);
    expect("SIGUSR1 handled", seen_signal, 10);
    expect("once", handled_count - count_before, 1);
    expect("wait4 for the sender", sys(SYS_wait4, child, &status, 0, 0) == child, 1);
    expect("whose kill succeeded", (status >> 8) & 0xff, 0);
    expect("rt_sigaction(SIGKILL) is EINVAL", sys(SYS_rt_sigaction, 9, default_action, 0, 8), -22);
    /* ppoll's mask: SIGUSR1 blocked and pending, a ppoll whose mask lets it through returns EINTR after its handler. */
    count_before = handled_count;
    expect("kill(self, SIGUSR1) while blocked", sys(SYS_kill, sys(SYS_getpid, 0), 10), 0);
    expect("still pending", handled_count - count_before, 0);
    long ten_ms[2] = {0, 10000000};
    expect("ppoll with a mask that lets it through", sys(SYS_ppoll, 0, 0, ten_ms, &no_signals, 8), -4);
    expect("its handler ran", handled_count - count_before, 1);
    sys(SYS_rt_sigprocmask, 0, 0, &mask_now, 8);
    expect("the mask from before ppoll", (long)mask_now, (1l << 16) | (1l << 9));
    /* execve's errors come before anything is replaced. */
    static char huge[200000];
    for (unsigned long i = 0; i + 1 < sizeof huge; i++) huge[i] = 'x';
    const char *huge_args[] = {"true", huge, 0}, *no_args[] = {"x", 0}, *no_env[] = {0};
    expect("execve with a 200 000-byte argument", sys(SYS_execve, "/bin/true", huge_args, no_env), -7);
    expect("execve of a missing file", sys(SYS_execve, "scratch-missing", no_args, no_env), -2);
    expect("execve of a folder", sys(SYS_execve, "/", no_args, no_env), -13);
    /* A child ended by a signal: its parent's wait4 sees the signal (SIGTERM's default action; a fault's SIGSEGV). */
    child = sys(SYS_clone, 17, 0, 0, 0, 0);
    if (child == 0) sys(SYS_kill, sys(SYS_getpid, 0), 15);
    expect("wait4 for the child that sent itself SIGTERM", sys(SYS_wait4, child, &status, 0, 0) == child, 1);
    expect("ended by SIGTERM", status & 0x7f, 15);
    child = sys(SYS_clone, 17, 0, 0, 0, 0);
    if (child == 0) *(volatile int *)16 = 1;
    expect("wait4 for the child that faulted", sys(SYS_wait4, child, &status, 0, 0) == child, 1);
    expect("ended by SIGSEGV", status & 0x7f, 11);
    sys(SYS_rt_sigprocmask, 2, &no_signals, 0, 8);

    print("linux_syscalls: ");
    print_i64(failures());
    print(" failures\n");
    return failures() != 0;
}
