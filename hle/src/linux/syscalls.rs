//! Linux system calls by aarch64 number (include/uapi/asm-generic/unistd.h): X8 holds the number, X0-X5 the
//! arguments, X0 the result or a negated errno. File system calls pass through to the host (translating the few
//! structures and flags whose layout differs between aarch64 and the x86-64 host); memory calls work on guest
//! memory; time and randomness are derived from retired instructions, so that runs repeat.
//!
//! Safety: every `unsafe` block here is one host system call, given C strings and buffers this module built (of
//! the lengths passed) and host descriptors from the file table.

use super::LinuxProcess;
use super::memory_map::{STACK_SIZE, page_align_up};

use super::signals::{SI_TKILL, SI_USER};
use crate::report::StopReason;
use std::ffi::CString;
use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use tandem_reference::engine::{COUNTER_FREQUENCY_HZ, Engine, INSTRUCTIONS_PER_TICK};
use tandem_reference::memory::Perm;

/// madvise's advice that punches a hole in shared memory, which Tandem's shared objects do not support.
const MADV_REMOVE: u64 = 9;

/// What the run loop does after a system call.
pub enum Flow {
    Continue,
    Exit(i32),
    Stop(StopReason),
}

/// A Linux error number (the same values on aarch64 and x86-64).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Errno(pub i32);

impl Errno {
    pub const EPERM: Errno = Errno(1);
    pub const ESRCH: Errno = Errno(3);
    pub const EINTR: Errno = Errno(4);
    pub const EBADF: Errno = Errno(9);
    pub const EAGAIN: Errno = Errno(11);
    pub const ENOMEM: Errno = Errno(12);
    pub const EFAULT: Errno = Errno(14);
    pub const EINVAL: Errno = Errno(22);
    pub const EMFILE: Errno = Errno(24);
    pub const ENOTTY: Errno = Errno(25);
    pub const ENAMETOOLONG: Errno = Errno(36);
    pub const ENOSYS: Errno = Errno(38);

    /// The host's errno after a failed call.
    pub(super) fn last() -> Errno {
        Errno(std::io::Error::last_os_error().raw_os_error().unwrap_or(Errno::EINVAL.0))
    }
}

pub(super) type SysResult = Result<u64, Errno>;

const MREMAP_MAYMOVE: u64 = 1;
/// MREMAP_FIXED and MREMAP_DONTUNMAP: a move to a given address, or one that keeps the old pages.
const MREMAP_MOVES_ELSEWHERE: u64 = 2 | 4;

/// A host call's return value: negative means failure with errno.
pub(super) fn host(result: i64) -> SysResult {
    if result < 0 { Err(Errno::last()) } else { Ok(result as u64) }
}

/// Whether a host file can back an mmap, checked before anything is mapped (mmap(2)): a regular file or a
/// character device (such as /dev/zero) open for reading, with an offset whose end fits a file offset.
fn mappable(host_fd: i32, offset: u64, length: u64) -> Result<(), Errno> {
    // SAFETY: `stat` is plain data the host fills in.
    let mut stat: libc::stat = unsafe { std::mem::zeroed() };
    host(i64::from(unsafe { libc::fstat(host_fd, &mut stat) }))?;
    if !matches!(stat.st_mode & libc::S_IFMT, libc::S_IFREG | libc::S_IFCHR) {
        return Err(Errno(19)); // ENODEV
    }
    // SAFETY: F_GETFL reads the descriptor's flags.
    let flags = host(i64::from(unsafe { libc::fcntl(host_fd, libc::F_GETFL) }))? as i32;
    if flags & libc::O_ACCMODE == libc::O_WRONLY {
        return Err(Errno(13)); // EACCES
    }
    if offset.checked_add(length).is_none_or(|end| end > i64::MAX as u64) {
        return Err(Errno(75)); // EOVERFLOW
    }
    Ok(())
}

const AT_FDCWD: i64 = -100;
const PATH_MAX: usize = 4096;
/// Largest transfer of one host call; reads and writes make several for larger counts.
const MAX_TRANSFER: u64 = 1 << 20;
/// Linux's MAX_RW_COUNT: the most one read or write moves (larger counts return short ones).
const MAX_RW_COUNT: u64 = 0x7fff_f000;
/// 2026-01-01T00:00:00Z: CLOCK_REALTIME at guest time zero.
const REALTIME_EPOCH_SECONDS: u64 = 1_767_225_600;
/// The guest's first process's id; forked children have their host pids.
pub(super) const FIRST_PID: u64 = 1000;

// open(2) flags whose values differ between aarch64 (guest) and x86-64 (host).
const GUEST_O_DIRECTORY: u64 = 0o40000;
const GUEST_O_NOFOLLOW: u64 = 0o100000;
const GUEST_O_DIRECT: u64 = 0o200000;
const GUEST_O_LARGEFILE: u64 = 0o400000;
const FLAG_PAIRS: [(u64, i32); 4] = [
    (GUEST_O_DIRECTORY, libc::O_DIRECTORY),
    (GUEST_O_NOFOLLOW, libc::O_NOFOLLOW),
    (GUEST_O_DIRECT, libc::O_DIRECT),
    (GUEST_O_LARGEFILE, libc::O_LARGEFILE),
];

fn open_flags_to_host(guest: u64) -> i32 {
    let moved = FLAG_PAIRS.iter().fold(0u64, |mask, (g, _)| mask | g);
    FLAG_PAIRS.iter().filter(|(g, _)| guest & g != 0).fold((guest & !moved) as i32, |flags, (_, h)| flags | h)
}

fn open_flags_to_guest(host: i32) -> u64 {
    let moved = FLAG_PAIRS.iter().fold(0i32, |mask, (_, h)| mask | h);
    FLAG_PAIRS.iter().filter(|(_, h)| host & h != 0).fold((host & !moved) as u64, |flags, (g, _)| flags | g)
}

/// Names of aarch64 Linux system calls, for reports.
pub fn syscall_name(number: u64) -> &'static str {
    const NAMES: &[(u64, &str)] = &[
        (17, "getcwd"),
        (19, "eventfd2"),
        (20, "epoll_create1"),
        (21, "epoll_ctl"),
        (22, "epoll_pwait"),
        (23, "dup"),
        (24, "dup3"),
        (25, "fcntl"),
        (26, "inotify_init1"),
        (29, "ioctl"),
        (32, "flock"),
        (33, "mknodat"),
        (34, "mkdirat"),
        (35, "unlinkat"),
        (36, "symlinkat"),
        (37, "linkat"),
        (38, "renameat"),
        (43, "statfs"),
        (44, "fstatfs"),
        (45, "truncate"),
        (46, "ftruncate"),
        (47, "fallocate"),
        (48, "faccessat"),
        (49, "chdir"),
        (50, "fchdir"),
        (52, "fchmod"),
        (53, "fchmodat"),
        (54, "fchownat"),
        (55, "fchown"),
        (56, "openat"),
        (57, "close"),
        (59, "pipe2"),
        (61, "getdents64"),
        (62, "lseek"),
        (63, "read"),
        (64, "write"),
        (65, "readv"),
        (66, "writev"),
        (67, "pread64"),
        (68, "pwrite64"),
        (71, "sendfile"),
        (72, "pselect6"),
        (73, "ppoll"),
        (78, "readlinkat"),
        (79, "newfstatat"),
        (80, "fstat"),
        (81, "sync"),
        (82, "fsync"),
        (83, "fdatasync"),
        (88, "utimensat"),
        (90, "capget"),
        (93, "exit"),
        (94, "exit_group"),
        (95, "waitid"),
        (96, "set_tid_address"),
        (98, "futex"),
        (99, "set_robust_list"),
        (101, "nanosleep"),
        (113, "clock_gettime"),
        (114, "clock_getres"),
        (115, "clock_nanosleep"),
        (116, "syslog"),
        (117, "ptrace"),
        (123, "sched_getaffinity"),
        (124, "sched_yield"),
        (129, "kill"),
        (130, "tkill"),
        (131, "tgkill"),
        (132, "sigaltstack"),
        (134, "rt_sigaction"),
        (135, "rt_sigprocmask"),
        (137, "rt_sigtimedwait"),
        (139, "rt_sigreturn"),
        (153, "times"),
        (154, "setpgid"),
        (155, "getpgid"),
        (157, "setsid"),
        (158, "getgroups"),
        (160, "uname"),
        (163, "getrlimit"),
        (165, "getrusage"),
        (166, "umask"),
        (167, "prctl"),
        (169, "gettimeofday"),
        (172, "getpid"),
        (173, "getppid"),
        (174, "getuid"),
        (175, "geteuid"),
        (176, "getgid"),
        (177, "getegid"),
        (178, "gettid"),
        (179, "sysinfo"),
        (198, "socket"),
        (200, "bind"),
        (203, "connect"),
        (206, "sendto"),
        (207, "recvfrom"),
        (214, "brk"),
        (215, "munmap"),
        (216, "mremap"),
        (220, "clone"),
        (221, "execve"),
        (222, "mmap"),
        (226, "mprotect"),
        (227, "msync"),
        (232, "mincore"),
        (233, "madvise"),
        (260, "wait4"),
        (261, "prlimit64"),
        (276, "renameat2"),
        (278, "getrandom"),
        (279, "memfd_create"),
        (281, "execveat"),
        (283, "membarrier"),
        (291, "statx"),
        (293, "rseq"),
        (435, "clone3"),
        (436, "close_range"),
        (439, "faccessat2"),
    ];
    NAMES.iter().find(|(n, _)| *n == number).map_or("unknown", |(_, name)| name)
}

impl LinuxProcess {
    pub(super) fn syscall(&mut self, engine: &mut dyn Engine) -> Flow {
        let number = self.cpu.x[8];
        let a: [u64; 6] = [self.cpu.x[0], self.cpu.x[1], self.cpu.x[2], self.cpu.x[3], self.cpu.x[4], self.cpu.x[5]];
        tracing::trace!(number, name = syscall_name(number), ?a, "syscall");
        let result = match number {
            17 => self.getcwd(a[0], a[1]),
            23 => self.dup(a[0], 0, false),
            24 => self.dup3(a[0], a[1], a[2]),
            25 => self.fcntl(a[0], a[1], a[2]),
            29 => self.ioctl(a[0], a[1], a[2]),
            34 => self.path_call(a[0], a[1], |dir, path| unsafe { libc::mkdirat(dir, path, a[2] as libc::mode_t) }),
            35 => self.path_call(a[0], a[1], |dir, path| unsafe { libc::unlinkat(dir, path, a[2] as i32) }),
            38 | 276 => self.rename(a[0], a[1], a[2], a[3], if number == 276 { a[4] } else { 0 }),
            // The *at flags (AT_SYMLINK_NOFOLLOW, AT_SYMLINK_FOLLOW, AT_EMPTY_PATH), flock's operations and
            // fallocate's modes have the same values on aarch64 and x86-64, so they pass as they are.
            32 => self.fd(a[0]).and_then(|fd| host(i64::from(unsafe { libc::flock(fd, a[1] as i32) }))),
            // mknodat's device is the kernel's 32-bit encoding on both, passed through the raw call.
            33 => self.path_call(a[0], a[1], |dir, path| unsafe {
                libc::syscall(libc::SYS_mknodat, dir, path, a[2] as u32, a[3] as u32) as i32
            }),
            36 => self.symlinkat(a[0], a[1], a[2]),
            37 => self.linkat(a[0], a[1], a[2], a[3], a[4]),
            43 => self.read_path(a[0]).and_then(|path| {
                self.statfs(a[1], |out| unsafe { libc::syscall(libc::SYS_statfs, path.as_ptr(), out) })
            }),
            44 => self
                .fd(a[0])
                .and_then(|fd| self.statfs(a[1], |out| unsafe { libc::syscall(libc::SYS_fstatfs, fd, out) })),
            45 => self
                .read_path(a[0])
                .and_then(|path| host(i64::from(unsafe { libc::truncate(path.as_ptr(), a[1] as i64) }))),
            47 => self
                .fd(a[0])
                .and_then(|fd| host(i64::from(unsafe { libc::fallocate(fd, a[1] as i32, a[2] as i64, a[3] as i64) }))),
            50 => self.fd(a[0]).and_then(|fd| host(i64::from(unsafe { libc::fchdir(fd) }))),
            52 => self.fd(a[0]).and_then(|fd| host(i64::from(unsafe { libc::fchmod(fd, a[1] as libc::mode_t) }))),
            54 => self.path_call(a[0], a[1], |dir, path| unsafe {
                libc::fchownat(dir, path, a[2] as libc::uid_t, a[3] as libc::gid_t, a[4] as i32)
            }),
            55 => self.fd(a[0]).and_then(|fd| host(i64::from(unsafe { libc::fchown(fd, a[1] as u32, a[2] as u32) }))),
            46 => self.fd(a[0]).and_then(|fd| host(i64::from(unsafe { libc::ftruncate(fd, a[1] as i64) }))),
            // faccessat has no flags; faccessat2's (AT_EACCESS, AT_SYMLINK_NOFOLLOW, AT_EMPTY_PATH) are the host's.
            48 | 439 => {
                let flags = if number == 439 { a[3] as i32 } else { 0 };
                self.path_call(a[0], a[1], |dir, path| unsafe { libc::faccessat(dir, path, a[2] as i32, flags) })
            }
            49 => self.read_path(a[0]).and_then(|path| host(unsafe { libc::chdir(path.as_ptr()) } as i64)),
            53 => self.path_call(a[0], a[1], |dir, path| unsafe { libc::fchmodat(dir, path, a[2] as u32, 0) }),
            56 => self.openat(a[0], a[1], a[2], a[3]),
            57 => {
                if self.files.close(a[0] as i64) {
                    Ok(0)
                } else {
                    Err(Errno::EBADF)
                }
            }
            59 => self.pipe2(a[0], a[1]),
            436 => self.close_range(a[0], a[1], a[2]),
            // sync: the host's writes reach its disks as the host sees fit; fdatasync as fsync.
            81 => Ok(0),
            83 => self.fd(a[0]).and_then(|fd| host(i64::from(unsafe { libc::fdatasync(fd) }))),
            61 => self.getdents64(a[0], a[1], a[2]),
            62 => self.fd(a[0]).and_then(|fd| host(unsafe { libc::lseek(fd, a[1] as i64, a[2] as i32) })),
            63 => self.read(a[0], a[1], a[2], None),
            64 => self.write(a[0], a[1], a[2], None),
            65 => self.vectored(a[0], a[1], a[2], false),
            66 => self.vectored(a[0], a[1], a[2], true),
            67 => self.read(a[0], a[1], a[2], Some(a[3] as i64)),
            68 => self.write(a[0], a[1], a[2], Some(a[3] as i64)),
            71 => self.sendfile(a[0], a[1], a[2], a[3]),
            78 => self.readlinkat(a[0], a[1], a[2], a[3]),
            79 => self.fstatat(a[0], a[1], a[2], a[3]),
            80 => self.fstatat(a[0], 0, a[1], 0x1000),
            82 => self.fd(a[0]).and_then(|fd| host(i64::from(unsafe { libc::fsync(fd) }))),
            88 => self.utimensat(a[0], a[1], a[2], a[3]),
            93 => return self.exit_thread((a[0] & 0xff) as i32),
            94 => return Flow::Exit((a[0] & 0xff) as i32),
            96 => {
                self.threads.clear_child_tid = a[0];
                Ok(self.threads.tid)
            }
            172 => Ok(self.pid),
            178 => Ok(self.threads.tid),
            173 => Ok(self.parent_pid),
            98 => return self.futex(a[0], a[1], a[2], a[3], a[4], a[5]),
            99 => Ok(0),
            233 if a[2] == MADV_REMOVE => {
                return Flow::Stop(StopReason::Unsupported(
                    "madvise with MADV_REMOVE (punching a hole in shared memory)",
                ));
            }
            233 => self.madvise(a[0], a[1], a[2]),
            101 => self.read_timespec(a[0]).map(|time| self.sleep_for(time)).map(|_| 0), // nanosleep: CLOCK_MONOTONIC
            115 => return self.clock_nanosleep(a[0], a[1], a[2]),
            124 => {
                self.give_way();
                Ok(0)
            }
            113 => self.clock_gettime(a[0], a[1]),
            // clock_getres: 1 ns; a NULL result pointer is allowed.
            114 if a[1] == 0 => Ok(0),
            114 => self.write_words(a[1], &[0, 1]).map(|_| 0),
            72 => return self.pselect6(a[0], [a[1], a[2], a[3]], a[4], a[5]),
            73 => return self.ppoll(a[0], a[1], a[2], a[3], a[4]),
            158 => self.getgroups(a[0], a[1]),
            // Process groups and sessions are the host's, with the first process's pid translated both ways.
            154 => host(i64::from(unsafe { libc::setpgid(self.host_pid(a[0]), self.host_pid(a[1])) })),
            155 => host(i64::from(unsafe { libc::getpgid(self.host_pid(a[0])) })).map(|id| self.guest_pid(id)),
            156 => host(i64::from(unsafe { libc::getsid(self.host_pid(a[0])) })).map(|id| self.guest_pid(id)),
            157 => host(i64::from(unsafe { libc::setsid() })).map(|id| self.guest_pid(id)),
            // sched_getaffinity: one CPU, in a mask of at least one long (EINVAL for less, as Linux).
            123 if a[1] < 8 || !a[1].is_multiple_of(8) => Err(Errno::EINVAL),
            123 => self.write_words(a[2], &[1]).map(|_| 8),
            // kill: to itself (by its pid, its group while it has no children, or every process) a signal is
            // raised here; to another process or group it goes through the host, as under qemu-aarch64.
            129 if (a[0] as i64) > 0 && a[0] != self.pid && !self.is_thread(a[0]) => {
                // The first process's parent (a fixed pid to it) is the host's parent of Tandem.
                let target = if self.first_process && a[0] == self.parent_pid {
                    unsafe { libc::getppid() }
                } else {
                    self.host_pid(a[0])
                };
                host(i64::from(unsafe { libc::kill(target, a[1] as i32) }))
            }
            129 if (a[0] as i64) < -1 && a[0].wrapping_neg() != self.pid => {
                host(i64::from(unsafe { libc::kill(-self.host_pid(a[0].wrapping_neg()), a[1] as i32) }))
            }
            // tkill and tgkill: to one of the process's threads, whose signals are the process's (`threads`).
            130 if !self.is_thread(a[0]) => Err(Errno::ESRCH),
            131 if a[0] != self.pid || !self.is_thread(a[1]) => Err(Errno::ESRCH),
            129..=131 => {
                let signal = if number == 131 { a[2] } else { a[1] };
                match signal {
                    0 => Ok(0),
                    1..=64 => match self.raise(signal, if number == 129 { SI_USER } else { SI_TKILL }) {
                        Some(stop) => return Flow::Stop(stop),
                        None => Ok(0),
                    },
                    _ => Err(Errno::EINVAL),
                }
            }
            133 => return self.rt_sigsuspend(a[0], a[1]),
            137 => return self.rt_sigtimedwait(a[0], a[1], a[2], a[3]),
            139 => return self.rt_sigreturn(),
            132 => self.sigaltstack(a[0], a[1]),
            // The kernel's sigset_t is 8 bytes on aarch64: another size is EINVAL.
            134 | 135 if a[3] != 8 => Err(Errno::EINVAL),
            134 => self.rt_sigaction(a[0], a[1], a[2]),
            135 => self.rt_sigprocmask(a[0], a[1], a[2]),
            // times: a NULL buffer is allowed (only the clock ticks come back).
            153 if a[0] == 0 => Ok(self.clock_ticks()),
            153 => self.write_words(a[0], &[0, 0, 0, 0]).map(|_| self.clock_ticks()),
            160 => self.uname(a[0]),
            163 => self.rlimit(a[0], a[1]),
            261 => self.rlimit(a[1], a[3]),
            165 => self.write_bytes(a[1], &[0; 144]).map(|_| 0),
            // umask: the host process's, which the files the program creates through it get.
            // SAFETY: umask cannot fail.
            166 => Ok(u64::from(unsafe { libc::umask((a[0] & 0o777) as libc::mode_t) })),
            167 => Err(Errno::EINVAL),
            169 => self.gettimeofday(a[0]),
            179 => self.sysinfo(a[0]),
            174 | 175 => Ok(u64::from(unsafe { libc::getuid() })),
            176 | 177 => Ok(u64::from(unsafe { libc::getgid() })),
            214 => Ok(self.map.brk(&mut self.memory, a[0])),
            215 => self.munmap(a[0], a[1]),
            216 if a[3] & MREMAP_MOVES_ELSEWHERE != 0 => {
                return Flow::Stop(StopReason::Unsupported("mremap with MREMAP_FIXED or MREMAP_DONTUNMAP"));
            }
            216 => self.mremap(a[0], a[1], a[2], a[3]),
            220 => return self.clone_process(engine, a[0], a[1], a[2], a[3], a[4]),
            435 => return self.clone3(engine, a[0], a[1]),
            221 => return self.execve(a[0], a[1], a[2]),
            260 => self.wait4(a[0], a[1], a[2], a[3]),
            222 => self.mmap(a[0], a[1], a[2], a[3], a[4], a[5]),
            226 => self.mprotect(a[0], a[1], a[2]),
            278 => self.getrandom(a[0], a[1]),
            279 => self.memfd_create(a[0], a[1]),
            291 => self.statx(a[0], a[1], a[2], a[3], a[4]),
            // rseq is optional: glibc carries on without it.
            293 => Err(Errno::ENOSYS),
            _ if self.options.enosys => {
                tracing::warn!(number, name = syscall_name(number), "unknown system call answered with ENOSYS");
                Err(Errno::ENOSYS)
            }
            _ => {
                return Flow::Stop(StopReason::UnknownSyscall { number, name: syscall_name(number), args: a });
            }
        };
        self.answer(result)
    }

    /// Puts a system call's result in X0 as Linux returns it (-errno for an error), and carries on.
    pub(super) fn answer(&mut self, result: SysResult) -> Flow {
        self.cpu.x[0] = match result {
            Ok(value) => value,
            Err(errno) => (-i64::from(errno.0)) as u64,
        };
        Flow::Continue
    }

    // --- Guest memory ------------------------------------------------------------------------------------------

    pub(super) fn read_bytes(&self, address: u64, len: u64) -> Result<Vec<u8>, Errno> {
        let mut bytes = vec![0u8; len as usize];
        self.memory.read(address, &mut bytes).map_err(|_| Errno::EFAULT)?;
        Ok(bytes)
    }

    pub(super) fn read_u64(&self, address: u64) -> Result<u64, Errno> {
        self.memory.read_le(address, 8).map(|value| value as u64).map_err(|_| Errno::EFAULT)
    }

    pub(super) fn write_bytes(&self, address: u64, bytes: &[u8]) -> Result<(), Errno> {
        self.memory.write(address, bytes).map_err(|_| Errno::EFAULT)
    }

    pub(super) fn write_words(&self, address: u64, words: &[u64]) -> Result<(), Errno> {
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        self.write_bytes(address, &bytes)
    }

    /// A NUL-terminated path from guest memory.
    /// A path argument from guest memory, as the host should see it: with `--sysroot`, an absolute path that exists
    /// under the sysroot means that file (as qemu-user's -L does), so that the dynamic linker finds its libraries.
    pub(super) fn read_path(&self, address: u64) -> Result<CString, Errno> {
        let path = self.read_guest_string(address)?;
        if let Some(sysroot) = &self.options.sysroot
            && path.as_bytes().starts_with(b"/")
            && !path.as_bytes().starts_with(b"/proc/")
        {
            let inside = sysroot.join(std::path::Path::new(std::ffi::OsStr::from_bytes(&path.as_bytes()[1..])));
            if std::fs::symlink_metadata(&inside).is_ok() {
                return CString::new(inside.into_os_string().into_encoded_bytes()).map_err(|_| Errno::EINVAL);
            }
        }
        Ok(path)
    }

    /// A NUL-terminated string from guest memory.
    pub(super) fn read_guest_string(&self, address: u64) -> Result<CString, Errno> {
        self.read_bounded_string(address, PATH_MAX as u64)?.ok_or(Errno::ENAMETOOLONG)
    }

    /// A NUL-terminated string of fewer than `limit` bytes from guest memory; `None` when it is longer.
    pub(super) fn read_bounded_string(&self, address: u64, limit: u64) -> Result<Option<CString>, Errno> {
        let mut bytes = Vec::new();
        for offset in 0..limit {
            let byte = self.memory.read_le(address.wrapping_add(offset), 1).map_err(|_| Errno::EFAULT)? as u8;
            if byte == 0 {
                return CString::new(bytes).map(Some).map_err(|_| Errno::EINVAL);
            }
            bytes.push(byte);
        }
        Ok(None)
    }

    // --- Descriptors and paths ---------------------------------------------------------------------------------

    fn fd(&self, fd: u64) -> Result<i32, Errno> {
        self.files.host(fd as i64).ok_or(Errno::EBADF)
    }

    /// A guest directory descriptor (or AT_FDCWD) as the host's.
    fn dir_fd(&self, fd: u64) -> Result<i32, Errno> {
        if fd as i64 == AT_FDCWD { Ok(libc::AT_FDCWD) } else { self.fd(fd) }
    }

    /// Runs a host *at call on (dirfd, path).
    fn path_call(&self, dir: u64, path: u64, call: impl FnOnce(i32, *const libc::c_char) -> i32) -> SysResult {
        let dir = self.dir_fd(dir)?;
        let path = self.read_path(path)?;
        host(i64::from(call(dir, path.as_ptr())))
    }

    fn adopt(&mut self, host_fd: i32, minimum: i32) -> SysResult {
        match self.files.insert(host_fd, minimum) {
            Some(fd) => Ok(fd as u64),
            None => {
                // SAFETY: the descriptor was just opened for the guest and nothing else refers to it.
                unsafe { libc::close(host_fd) };
                Err(Errno::EMFILE)
            }
        }
    }

    /// memfd_create(name, flags): the host's, flags and all (the host's kernel judges them, as under qemu-aarch64).
    /// Linux's limit on the name (249 bytes: NAME_MAX with "memfd:" before it) is checked here, EINVAL.
    fn memfd_create(&mut self, name: u64, flags: u64) -> SysResult {
        const NAME_LIMIT: u64 = 249;
        let name = self.read_bounded_string(name, NAME_LIMIT + 1)?.ok_or(Errno::EINVAL)?;
        // SAFETY: a valid C string; the host descriptor becomes the guest's.
        let host_fd = host(i64::from(unsafe { libc::memfd_create(name.as_ptr(), flags as u32) }))?;
        self.adopt(host_fd as i32, 0)
    }

    fn openat(&mut self, dir: u64, path: u64, flags: u64, mode: u64) -> SysResult {
        let (dir, path) = (self.dir_fd(dir)?, self.read_path(path)?);
        // SAFETY: a valid C string; the host descriptor becomes the guest's.
        let host_fd = host(i64::from(unsafe {
            libc::openat(dir, path.as_ptr(), open_flags_to_host(flags), mode as libc::c_uint)
        }))?;
        self.adopt(host_fd as i32, 0)
    }

    /// dup and F_DUPFD(_CLOEXEC): the guest's close-on-exec flag is its host descriptor's (execve reads it).
    fn dup(&mut self, fd: u64, minimum: i32, close_on_exec: bool) -> SysResult {
        let command = if close_on_exec { libc::F_DUPFD_CLOEXEC } else { libc::F_DUPFD };
        let host_fd = host(i64::from(unsafe { libc::fcntl(self.fd(fd)?, command, 0) }))?;
        self.adopt(host_fd as i32, minimum)
    }

    /// dup3 (and dup2, which the C library makes of it): O_CLOEXEC is the only flag (the same bit on both).
    fn dup3(&mut self, old: u64, new: u64, flags: u64) -> SysResult {
        let new = i32::try_from(new).ok().filter(|n| (0..super::files::MAX_FDS).contains(n)).ok_or(Errno::EBADF)?;
        if old == new as u64 || flags & !(libc::O_CLOEXEC as u64) != 0 {
            return Err(Errno::EINVAL);
        }
        let command = if flags != 0 { libc::F_DUPFD_CLOEXEC } else { libc::F_DUPFD };
        let host_fd = host(i64::from(unsafe { libc::fcntl(self.fd(old)?, command, 0) }))?;
        self.files.replace(new, host_fd as i32);
        Ok(new as u64)
    }

    fn fcntl(&mut self, fd: u64, command: u64, argument: u64) -> SysResult {
        let host_fd = self.fd(fd)?;
        match command as i32 {
            libc::F_DUPFD | libc::F_DUPFD_CLOEXEC => {
                self.dup(fd, argument as i32, command as i32 == libc::F_DUPFD_CLOEXEC)
            }
            libc::F_GETFL => {
                host(i64::from(unsafe { libc::fcntl(host_fd, libc::F_GETFL) })).map(|f| open_flags_to_guest(f as i32))
            }
            libc::F_SETFL => {
                host(i64::from(unsafe { libc::fcntl(host_fd, libc::F_SETFL, open_flags_to_host(argument)) }))
            }
            libc::F_GETFD | libc::F_SETFD => {
                host(i64::from(unsafe { libc::fcntl(host_fd, command as i32, argument as i32) }))
            }
            _ => Err(Errno::EINVAL),
        }
    }

    fn ioctl(&mut self, fd: u64, request: u64, argument: u64) -> SysResult {
        // The kernel's termios (36 bytes) and winsize (8 bytes) have the same layout on aarch64 and x86-64.
        const TCGETS: u64 = 0x5401;
        const TCSETS_TO_TCSETSF: std::ops::RangeInclusive<u64> = 0x5402..=0x5404;
        const TIOCGWINSZ: u64 = 0x5413;
        let host_fd = self.fd(fd)?;
        let size = match request {
            TCGETS => 36,
            TIOCGWINSZ => 8,
            r if TCSETS_TO_TCSETSF.contains(&r) => 36,
            _ => return Err(Errno::ENOTTY),
        };
        let mut buffer = [0u8; 64];
        if TCSETS_TO_TCSETSF.contains(&request) {
            buffer[..size].copy_from_slice(&self.read_bytes(argument, size as u64)?);
        }
        // SAFETY: the buffer is larger than the structure the request reads or writes.
        host(i64::from(unsafe { libc::ioctl(host_fd, request, buffer.as_mut_ptr()) }))?;
        if !TCSETS_TO_TCSETSF.contains(&request) {
            self.write_bytes(argument, &buffer[..size])?;
        }
        Ok(0)
    }

    fn pipe2(&mut self, fds: u64, flags: u64) -> SysResult {
        let mut pair = [0i32; 2];
        // SAFETY: pair has room for two descriptors.
        host(i64::from(unsafe { libc::pipe2(pair.as_mut_ptr(), open_flags_to_host(flags)) }))?;
        let read = self.adopt(pair[0], 0)?;
        let write = self.adopt(pair[1], 0)?;
        let bytes: Vec<u8> = [read as u32, write as u32].iter().flat_map(|v| v.to_le_bytes()).collect();
        self.write_bytes(fds, &bytes)?;
        Ok(0)
    }

    fn rename(&self, old_dir: u64, old: u64, new_dir: u64, new: u64, flags: u64) -> SysResult {
        let (old_dir, old) = (self.dir_fd(old_dir)?, self.read_path(old)?);
        let (new_dir, new) = (self.dir_fd(new_dir)?, self.read_path(new)?);
        // SAFETY: valid C strings and descriptors.
        host(unsafe {
            libc::syscall(libc::SYS_renameat2, old_dir, old.as_ptr(), new_dir, new.as_ptr(), flags as libc::c_uint)
        })
    }

    fn getcwd(&self, buffer: u64, size: u64) -> SysResult {
        let cwd = std::env::current_dir().map_err(|_| Errno::ENOMEM)?;
        let mut bytes = cwd.into_os_string().into_encoded_bytes();
        bytes.push(0);
        if bytes.len() as u64 > size {
            return Err(Errno(34)); // ERANGE
        }
        self.write_bytes(buffer, &bytes)?;
        Ok(bytes.len() as u64)
    }

    // --- Reading and writing -----------------------------------------------------------------------------------

    fn read(&self, fd: u64, buffer: u64, count: u64, offset: Option<i64>) -> SysResult {
        self.transfer(fd, &[(buffer, count)], offset, false)
    }

    fn write(&self, fd: u64, buffer: u64, count: u64, offset: Option<i64>) -> SysResult {
        self.transfer(fd, &[(buffer, count)], offset, true)
    }

    /// readv/writev: one transfer over all the iovecs, as Linux does it (a pipe's readv returns what one read
    /// gives, spread over the vectors).
    fn vectored(&self, fd: u64, vectors: u64, count: u64, is_write: bool) -> SysResult {
        if count > 1024 {
            return Err(Errno::EINVAL);
        }
        let table = self.read_bytes(vectors, count * 16)?;
        let segments: Vec<(u64, u64)> = table
            .chunks(16)
            .map(|entry| {
                let word = |at: usize| u64::from_le_bytes(entry[at..at + 8].try_into().expect("16-byte chunks"));
                (word(0), word(8))
            })
            .collect();
        self.transfer(fd, &segments, None, is_write)
    }

    /// Reads into or writes from the guest `segments` (address, length) in order, at most MAX_TRANSFER bytes a
    /// host call. Writes, and reads of a regular file, go on until the segments are done (or the file ends, or a
    /// call transfers less), as Linux's do; a read of a pipe, socket or terminal is one host call, which returns
    /// what is there. A failure after some bytes moved ends the transfer with their count.
    fn transfer(&self, fd: u64, segments: &[(u64, u64)], offset: Option<i64>, is_write: bool) -> SysResult {
        let host_fd = self.fd(fd)?;
        let total = segments.iter().try_fold(0u64, |total, &(_, length)| total.checked_add(length));
        let total = total.filter(|&total| total <= i64::MAX as u64).ok_or(Errno::EINVAL)?.min(MAX_RW_COUNT);
        // Asked only when a second host call may follow (most transfers fit one).
        let regular = || {
            // SAFETY: `stat` is plain data the host fills in.
            let mut stat: libc::stat = unsafe { std::mem::zeroed() };
            let found = unsafe { libc::fstat(host_fd, &mut stat) };
            found == 0 && stat.st_mode & libc::S_IFMT == libc::S_IFREG
        };
        let mut piece = vec![0u8; total.min(MAX_TRANSFER) as usize];
        let mut done = 0u64;
        while done < total {
            let want = (total - done).min(MAX_TRANSFER) as usize;
            let piece = &mut piece[..want];
            let at = offset.map(|offset| offset + done as i64);
            if is_write {
                self.gather(segments, done, piece)?;
            }
            // SAFETY: `piece` has the length passed.
            let moved = host(unsafe {
                match (is_write, at) {
                    (false, None) => libc::read(host_fd, piece.as_mut_ptr().cast(), want),
                    (false, Some(at)) => libc::pread(host_fd, piece.as_mut_ptr().cast(), want, at),
                    (true, None) => libc::write(host_fd, piece.as_ptr().cast(), want),
                    (true, Some(at)) => libc::pwrite(host_fd, piece.as_ptr().cast(), want, at),
                }
            } as i64);
            let moved = match moved {
                Ok(moved) => moved as usize,
                Err(errno) if done == 0 => return Err(errno),
                Err(_) => break,
            };
            if !is_write {
                self.scatter(segments, done, &piece[..moved])?;
            }
            done += moved as u64;
            if moved < want || done == total || !(is_write || regular()) {
                break;
            }
        }
        Ok(done)
    }

    /// The guest ranges that bytes `at..at + length` of `segments`, laid end to end, occupy: (address, offset
    /// into those bytes, length).
    fn segment_ranges(segments: &[(u64, u64)], at: u64, length: u64) -> Vec<(u64, usize, u64)> {
        let (mut ranges, mut start) = (Vec::new(), 0u64);
        for &(address, size) in segments {
            let (from, to) = (at.max(start), (at + length).min(start + size));
            if from < to {
                ranges.push((address + (from - start), (from - at) as usize, to - from));
            }
            start += size;
        }
        ranges
    }

    fn scatter(&self, segments: &[(u64, u64)], at: u64, bytes: &[u8]) -> Result<(), Errno> {
        for (address, offset, length) in Self::segment_ranges(segments, at, bytes.len() as u64) {
            self.write_bytes(address, &bytes[offset..offset + length as usize])?;
        }
        Ok(())
    }

    fn gather(&self, segments: &[(u64, u64)], at: u64, bytes: &mut [u8]) -> Result<(), Errno> {
        for (address, offset, length) in Self::segment_ranges(segments, at, bytes.len() as u64) {
            let part = &mut bytes[offset..offset + length as usize];
            self.memory.read(address, part).map_err(|_| Errno::EFAULT)?;
        }
        Ok(())
    }

    fn sendfile(&self, out_fd: u64, in_fd: u64, offset_address: u64, count: u64) -> SysResult {
        let (out_fd, in_fd) = (self.fd(out_fd)?, self.fd(in_fd)?);
        let count = count.min(MAX_TRANSFER) as usize;
        if offset_address == 0 {
            // SAFETY: host descriptors; no offset pointer.
            return host(unsafe { libc::sendfile(out_fd, in_fd, std::ptr::null_mut(), count) } as i64);
        }
        let mut offset = self.read_u64(offset_address)? as i64;
        // SAFETY: `offset` is a valid i64 for the host to update.
        let sent = host(unsafe { libc::sendfile(out_fd, in_fd, &mut offset, count) } as i64)?;
        self.write_bytes(offset_address, &offset.to_le_bytes())?;
        Ok(sent)
    }

    fn getdents64(&self, fd: u64, buffer: u64, count: u64) -> SysResult {
        let host_fd = self.fd(fd)?;
        // linux_dirent64 has the same layout on every 64-bit architecture.
        let mut data = vec![0u8; count.min(MAX_TRANSFER) as usize];
        // SAFETY: `data` has the length passed.
        let read = host(unsafe { libc::syscall(libc::SYS_getdents64, host_fd, data.as_mut_ptr(), data.len()) })?;
        self.write_bytes(buffer, &data[..read as usize])?;
        Ok(read)
    }

    fn readlinkat(&self, dir: u64, path: u64, buffer: u64, size: u64) -> SysResult {
        let path_text = self.read_guest_string(path)?;
        let target = if path_text.as_bytes() == b"/proc/self/exe" {
            self.executable.clone().into_os_string().into_encoded_bytes()
        } else {
            let mut target = vec![0u8; PATH_MAX];
            // SAFETY: valid C string and buffer of the length passed.
            let host_path = self.read_path(path)?;
            let len = host(unsafe {
                libc::readlinkat(self.dir_fd(dir)?, host_path.as_ptr(), target.as_mut_ptr().cast(), target.len())
            } as i64)?;
            target.truncate(len as usize);
            target
        };
        let len = target.len().min(size as usize);
        self.write_bytes(buffer, &target[..len])?;
        Ok(len as u64)
    }

    /// newfstatat and fstat (as fstatat with AT_EMPTY_PATH), converting the host's struct stat to aarch64's.
    fn fstatat(&self, dir: u64, path: u64, buffer: u64, flags: u64) -> SysResult {
        let dir = self.dir_fd(dir)?;
        let path = if path == 0 { CString::default() } else { self.read_path(path)? };
        // SAFETY: a zeroed struct stat is a valid output buffer.
        let mut stat: libc::stat = unsafe { std::mem::zeroed() };
        host(i64::from(unsafe { libc::fstatat(dir, path.as_ptr(), &mut stat, flags as i32) }))?;
        // aarch64's struct stat (asm-generic/stat.h), 128 bytes.
        let mut out = Vec::with_capacity(128);
        out.extend(stat.st_dev.to_le_bytes());
        out.extend(stat.st_ino.to_le_bytes());
        out.extend(stat.st_mode.to_le_bytes());
        out.extend((stat.st_nlink as u32).to_le_bytes());
        out.extend(stat.st_uid.to_le_bytes());
        out.extend(stat.st_gid.to_le_bytes());
        out.extend(stat.st_rdev.to_le_bytes());
        out.extend(0u64.to_le_bytes());
        out.extend(stat.st_size.to_le_bytes());
        out.extend((stat.st_blksize as i32).to_le_bytes());
        out.extend(0i32.to_le_bytes());
        out.extend(stat.st_blocks.to_le_bytes());
        for (seconds, nanoseconds) in [
            (stat.st_atime, stat.st_atime_nsec),
            (stat.st_mtime, stat.st_mtime_nsec),
            (stat.st_ctime, stat.st_ctime_nsec),
        ] {
            out.extend(seconds.to_le_bytes());
            out.extend(nanoseconds.to_le_bytes());
        }
        out.extend([0u8; 8]);
        self.write_bytes(buffer, &out)?;
        Ok(0)
    }

    /// statx: struct statx is the same on every architecture.
    fn statx(&self, dir: u64, path: u64, flags: u64, mask: u64, buffer: u64) -> SysResult {
        let dir = self.dir_fd(dir)?;
        let path = self.read_path(path)?;
        let mut data = [0u8; 256];
        // SAFETY: valid C string; `data` is larger than struct statx.
        host(unsafe {
            libc::syscall(libc::SYS_statx, dir, path.as_ptr(), flags as i32, mask as u32, data.as_mut_ptr())
        })?;
        self.write_bytes(buffer, &data)?;
        Ok(0)
    }

    fn utimensat(&self, dir: u64, path: u64, times: u64, flags: u64) -> SysResult {
        let dir = self.dir_fd(dir)?;
        let path = if path == 0 { None } else { Some(self.read_path(path)?) };
        let times = if times == 0 { None } else { Some(self.read_bytes(times, 32)?) };
        // SAFETY: the pointers are null or point at a C string / two timespecs (same layout on both).
        host(unsafe {
            libc::syscall(
                libc::SYS_utimensat,
                dir,
                path.as_ref().map_or(std::ptr::null(), |p| p.as_ptr()),
                times.as_ref().map_or(std::ptr::null(), |t| t.as_ptr()),
                flags as i32,
            )
        })
    }

    /// symlinkat(target, dir, link): the target is the link's contents, stored as the guest gave it.
    fn symlinkat(&self, target: u64, dir: u64, link: u64) -> SysResult {
        let target = self.read_guest_string(target)?;
        self.path_call(dir, link, |dir, link| unsafe { libc::symlinkat(target.as_ptr(), dir, link) })
    }

    fn linkat(&self, old_dir: u64, old: u64, new_dir: u64, new: u64, flags: u64) -> SysResult {
        let (old_dir, old) = (self.dir_fd(old_dir)?, self.read_path(old)?);
        let (new_dir, new) = (self.dir_fd(new_dir)?, self.read_path(new)?);
        host(i64::from(unsafe { libc::linkat(old_dir, old.as_ptr(), new_dir, new.as_ptr(), flags as i32) }))
    }

    /// statfs and fstatfs: `call` fills a struct statfs, which has one layout on aarch64 and x86-64 (both use
    /// asm-generic/statfs.h with 64-bit words: 120 bytes), copied to the guest as it is.
    fn statfs(&self, buffer: u64, call: impl FnOnce(*mut u8) -> i64) -> SysResult {
        let mut out = [0u8; 120];
        host(call(out.as_mut_ptr()))?;
        self.write_bytes(buffer, &out)?;
        Ok(0)
    }

    /// getgroups(size, list): the host's supplementary groups (gid_t is 32 bits on both); size 0 asks only how
    /// many there are, a smaller list than that is EINVAL.
    fn getgroups(&self, size: u64, list: u64) -> SysResult {
        const NGROUPS_MAX: usize = 65536;
        let size = usize::try_from(size as u32 as i32).map_err(|_| Errno::EINVAL)?;
        let mut groups = vec![0 as libc::gid_t; size.min(NGROUPS_MAX)];
        let count = host(i64::from(unsafe { libc::getgroups(groups.len() as i32, groups.as_mut_ptr()) }))?;
        if size > 0 {
            let bytes: Vec<u8> = groups[..count as usize].iter().flat_map(|gid| gid.to_le_bytes()).collect();
            self.write_bytes(list, &bytes)?;
        }
        Ok(count)
    }

    /// ppoll and pselect6: `wait` (one host wait) under the signal mask the call names (`sigmask`, of `size`
    /// bytes; 0: the thread's own), ending with EINTR and the handler instead where a signal the mask lets
    /// through is pending, before or during the wait.
    fn wait_under_mask(&mut self, sigmask: u64, size: u64, mut wait: impl FnMut(&mut Self) -> SysResult) -> Flow {
        let wait_mask = match self.call_mask(sigmask, size) {
            Ok(mask) => mask,
            Err(errno) => return self.answer(Err(errno)),
        };
        loop {
            if let Some(interrupted) = self.interrupt_with_pending(wait_mask) {
                return interrupted;
            }
            match wait(self) {
                Err(Errno::EINTR) => continue,
                result => return self.answer(result),
            }
        }
    }

    /// ppoll(fds, nfds, timeout, sigmask, sigsetsize) on the host's descriptors. struct pollfd (int fd, short
    /// events, short revents) is the same on both. A negative descriptor is skipped, one the guest has not open
    /// gets POLLNVAL (and counts), as Linux does. A wait that times out moves guest time on by its timeout, and
    /// the time left written back is the timeout (nothing of guest time passed) or 0.
    ///
    /// `sigmask`, when given, is the mask while it waits. A pending signal the mask lets through, or one that comes
    /// meanwhile (a host signal interrupts the host's poll), ends the call with EINTR and its handler runs, the
    /// frame saving the mask from before the call, as in rt_sigsuspend; a host signal the program does not
    /// handle only wakes the host's poll, which starts again.
    fn ppoll(&mut self, fds: u64, count: u64, timeout: u64, sigmask: u64, sigset_size: u64) -> Flow {
        if count == 0 && self.threads.several() {
            return self.pause_thread(sigmask, sigset_size, timeout);
        }
        self.wait_under_mask(sigmask, sigset_size, |process| process.poll_once(fds, count, timeout))
    }

    /// The mask a ppoll or pselect6 waits under: the one at `sigmask` (`size` bytes), or the thread's own.
    fn call_mask(&self, sigmask: u64, size: u64) -> Result<u64, Errno> {
        match (sigmask, size) {
            (0, _) => Ok(self.signal_mask),
            (_, 8) => self.read_u64(sigmask),
            _ => Err(Errno::EINVAL),
        }
    }

    /// ppoll or pselect6 of no descriptors (pause(), or a sleep) in a process of several threads: the thread waits
    /// while the others run, until a signal the call's mask lets through (EINTR, as rt_sigsuspend) or its timeout
    /// (0; the time left is not written back).
    fn pause_thread(&mut self, sigmask: u64, size: u64, timeout: u64) -> Flow {
        let wait_mask = match self.call_mask(sigmask, size) {
            Ok(mask) => mask,
            Err(errno) => return self.answer(Err(errno)),
        };
        let deadline = match timeout {
            0 => None,
            _ => match self.read_timespec(timeout) {
                Ok(time) => Some(self.guest_nanoseconds().saturating_add(time)),
                Err(errno) => return self.answer(Err(errno)),
            },
        };
        if let Some(interrupted) = self.interrupt_with_pending(wait_mask) {
            return interrupted;
        }
        self.suspend_thread(!wait_mask, deadline);
        Flow::Continue
    }

    /// pselect6(count, read, write, except, timeout, {sigmask, size}): select's descriptor sets (bit n of word n / 64
    /// for descriptor n, below `count`) as one host poll; the sets come back holding the ready ones, and the result
    /// is how many bits are set. A descriptor that is not open is EBADF.
    fn pselect6(&mut self, count: u64, sets: [u64; 3], timeout: u64, mask_argument: u64) -> Flow {
        let (sigmask, size) = match mask_argument {
            0 => (0, 0),
            _ => match (self.read_u64(mask_argument), self.read_u64(mask_argument.wrapping_add(8))) {
                (Ok(sigmask), Ok(size)) => (sigmask, size),
                _ => return self.answer(Err(Errno::EFAULT)),
            },
        };
        if count == 0 && self.threads.several() {
            return self.pause_thread(sigmask, size, timeout);
        }
        self.wait_under_mask(sigmask, size, |process| process.select_once(count, sets, timeout))
    }

    /// One host poll of pselect6's descriptor sets, with its timeout.
    fn select_once(&mut self, count: u64, sets: [u64; 3], timeout: u64) -> SysResult {
        // Linux's select readiness: what each set takes as ready.
        const READY: [i16; 3] =
            [libc::POLLIN | libc::POLLHUP | libc::POLLERR, libc::POLLOUT | libc::POLLERR, libc::POLLPRI];
        const ASKED: [i16; 3] = [libc::POLLIN, libc::POLLOUT, libc::POLLPRI];
        let timeout_ns = if timeout == 0 { None } else { Some(self.read_timespec(timeout)?) };
        let count = u64::try_from(count as i32).map_err(|_| Errno::EINVAL)?.min(super::files::MAX_FDS as u64);
        let words = count.div_ceil(64) as usize;
        let mut asked = [const { Vec::<u64>::new() }; 3];
        for (set, &address) in asked.iter_mut().zip(&sets) {
            *set = match address {
                0 => vec![0; words],
                _ => self
                    .read_bytes(address, 8 * words as u64)?
                    .chunks_exact(8)
                    .map(|word| u64::from_le_bytes(word.try_into().unwrap()))
                    .collect(),
            };
        }
        let is_in = |set: &[u64], fd: u64| set[(fd / 64) as usize] >> (fd % 64) & 1 == 1;
        let (mut polled, mut guest_fds) = (Vec::new(), Vec::new());
        for fd in 0..count {
            let events = (0..3).filter(|&kind| is_in(&asked[kind], fd)).fold(0, |events, kind| events | ASKED[kind]);
            if events != 0 {
                let host_fd = self.files.host(fd as i64).ok_or(Errno::EBADF)?;
                polled.push(libc::pollfd { fd: host_fd, events, revents: 0 });
                guest_fds.push(fd);
            }
        }
        host(i64::from(unsafe { libc::poll(polled.as_mut_ptr(), polled.len() as libc::nfds_t, wait_ms(timeout_ns)) }))?;
        let mut ready = [const { Vec::<u64>::new() }; 3];
        let mut total = 0;
        for kind in 0..3 {
            ready[kind] = vec![0; words];
            for (entry, &fd) in polled.iter().zip(&guest_fds) {
                if is_in(&asked[kind], fd) && entry.revents & READY[kind] != 0 {
                    ready[kind][(fd / 64) as usize] |= 1 << (fd % 64);
                    total += 1;
                }
            }
            if sets[kind] != 0 {
                let bytes: Vec<u8> = ready[kind].iter().flat_map(|word| word.to_le_bytes()).collect();
                self.write_bytes(sets[kind], &bytes)?;
            }
        }
        self.timeout_left(timeout, timeout_ns, total)?;
        Ok(total)
    }

    /// One host poll of ppoll's descriptors, with its timeout.
    fn poll_once(&mut self, fds: u64, count: u64, timeout: u64) -> SysResult {
        const POLLNVAL: i16 = 0x20;
        let timeout_ns = if timeout == 0 { None } else { Some(self.read_timespec(timeout)?) };
        if count > super::files::MAX_FDS as u64 {
            return Err(Errno::EINVAL);
        }
        let bytes = self.read_bytes(fds, 8 * count)?;
        let mut polled: Vec<libc::pollfd> = bytes
            .chunks_exact(8)
            .map(|entry| libc::pollfd {
                fd: i32::from_le_bytes(entry[0..4].try_into().unwrap()),
                events: i16::from_le_bytes(entry[4..6].try_into().unwrap()),
                revents: 0,
            })
            .collect();
        let mut invalid = Vec::new();
        for (index, entry) in polled.iter_mut().enumerate() {
            if entry.fd >= 0 {
                match self.files.host(i64::from(entry.fd)) {
                    Some(host_fd) => entry.fd = host_fd,
                    None => {
                        invalid.push(index);
                        entry.fd = -1;
                    }
                }
            }
        }
        // Descriptors already invalid make the call return at once, as Linux's do.
        let wait_ms = if invalid.is_empty() { wait_ms(timeout_ns) } else { 0 };
        let ready = host(i64::from(unsafe { libc::poll(polled.as_mut_ptr(), polled.len() as libc::nfds_t, wait_ms) }))?;
        for &index in &invalid {
            polled[index].revents = POLLNVAL;
        }
        let mut out = bytes;
        for (entry, revents) in out.chunks_exact_mut(8).zip(polled.iter().map(|p| p.revents)) {
            entry[6..8].copy_from_slice(&revents.to_le_bytes());
        }
        self.write_bytes(fds, &out)?;
        let ready = ready + invalid.len() as u64;
        self.timeout_left(timeout, timeout_ns, ready)?;
        Ok(ready)
    }

    /// After a poll of `ready` descriptors with a timeout of `timeout_ns` (read from `timeout`): a poll that timed
    /// out took that long in guest time, and the time left (all of it, or none) is written back, as Linux does.
    fn timeout_left(&mut self, timeout: u64, timeout_ns: Option<u64>, ready: u64) -> Result<(), Errno> {
        let Some(ns) = timeout_ns else { return Ok(()) };
        let left = if ready == 0 {
            self.advance_guest_time(ns);
            0
        } else {
            ns
        };
        self.write_words(timeout, &[left / 1_000_000_000, left % 1_000_000_000])
    }

    // --- Memory ------------------------------------------------------------------------------------------------

    #[allow(clippy::too_many_arguments)] // mmap's six arguments, the engine and self
    fn mmap(&mut self, address: u64, length: u64, prot: u64, flags: u64, fd: u64, offset: u64) -> SysResult {
        const MAP_FIXED: u64 = 0x10;
        const MAP_ANONYMOUS: u64 = 0x20;
        const MAP_FIXED_NOREPLACE: u64 = 0x10_0000;
        let Some(end) = address.checked_add(length).filter(|_| length != 0 && offset.is_multiple_of(0x1000)) else {
            return Err(Errno::EINVAL);
        };
        let perm = protection(prot);
        let file = if flags & MAP_ANONYMOUS == 0 { Some(self.fd(fd)?) } else { None };
        if let Some(host_fd) = file {
            mappable(host_fd, offset, length)?;
        }
        let mapped = if flags & (MAP_FIXED | MAP_FIXED_NOREPLACE) != 0 {
            if flags & MAP_FIXED_NOREPLACE != 0
                && self.memory.regions().iter().any(|r| r.address < end && address < r.address + r.size)
            {
                return Err(Errno(17)); // EEXIST
            }
            self.map.map_fixed(&mut self.memory, address, length, perm)?
        } else {
            self.map.map_anywhere(&mut self.memory, address, length, perm)?
        };
        const MAP_SHARED: u64 = 1;
        if file.is_none() && flags & 3 == MAP_SHARED {
            // Shared with the children the program forks (mremap moves them as private pages).
            let size = page_align_up(length).ok_or(Errno::ENOMEM)?;
            self.memory.make_range_shared(mapped, size).map_err(|_| Errno::ENOMEM)?;
        }
        if let Some(host_fd) = file {
            const PROT_WRITE: u64 = 2;
            if flags & 3 == MAP_SHARED && prot & PROT_WRITE != 0 {
                tracing::warn!(
                    address = mapped,
                    length,
                    "a writable MAP_SHARED file mapping: Tandem maps a copy, so writes through it do not reach the file"
                );
            }
            // A private copy of the file's bytes (shared file mappings are copied too: writes do not reach the file),
            // a chunk at a time up to the file's end: a mapping larger than the file costs no more than the file.
            let mut chunk = vec![0u8; MAX_TRANSFER.min(length) as usize];
            let mut done = 0;
            while done < length {
                let want = chunk.len().min((length - done) as usize);
                let at = offset.checked_add(done).ok_or(Errno::EINVAL)? as i64;
                // SAFETY: `chunk` holds at least `want` bytes.
                let read = match host(unsafe { libc::pread(host_fd, chunk.as_mut_ptr().cast(), want, at) } as i64) {
                    Ok(read) => read,
                    Err(errno) => {
                        // No mapping is left behind by a failed mmap.
                        self.map.unmap(&mut self.memory, mapped, length)?;
                        return Err(errno);
                    }
                };
                if read == 0 {
                    break;
                }
                self.memory.write_privileged(mapped + done, &chunk[..read as usize]).map_err(|_| Errno::EFAULT)?;
                done += read as u64;
            }
            // SAFETY: duplicating a descriptor of the file table.
            match host(i64::from(unsafe { libc::fcntl(host_fd, libc::F_DUPFD_CLOEXEC, 0) })) {
                // SAFETY: the duplicate is a fresh descriptor that nothing else owns.
                Ok(copy) => {
                    self.map.note_file_mapping(mapped, length, unsafe { OwnedFd::from_raw_fd(copy as i32) }, offset)
                }
                Err(errno) => {
                    self.map.unmap(&mut self.memory, mapped, length)?;
                    return Err(errno);
                }
            }
        }
        Ok(mapped)
    }

    /// madvise(address, length, advice): MADV_DONTNEED (and its _LOCKED form) gives private pages back, so they
    /// read as their file or as zeros again (`MemoryMap::drop_pages`); every other advice Linux knows changes no
    /// contents Tandem keeps (MADV_FREE may keep them until memory runs short, which it never does here), and the
    /// two that need CAP_SYS_ADMIN are EPERM. Unknown advice or a misaligned address is EINVAL (madvise(2)).
    fn madvise(&mut self, address: u64, length: u64, advice: u64) -> SysResult {
        const MADV_DONTNEED: u64 = 4;
        const MADV_DONTNEED_LOCKED: u64 = 24;
        const MADV_HWPOISON: u64 = 100;
        const MADV_SOFT_OFFLINE: u64 = 101;
        let known = matches!(advice, 0..=4 | 8..=25 | MADV_HWPOISON | MADV_SOFT_OFFLINE);
        let Some(length) = page_align_up(length).filter(|_| known && address.is_multiple_of(4096)) else {
            return Err(Errno::EINVAL);
        };
        if address.checked_add(length).is_none() {
            return Err(Errno::EINVAL);
        }
        match advice {
            _ if length == 0 => Ok(0),
            MADV_HWPOISON | MADV_SOFT_OFFLINE => Err(Errno(1)), // EPERM
            MADV_DONTNEED | MADV_DONTNEED_LOCKED => {
                let end = address + length;
                if let Some(image) =
                    self.images.iter().find(|image| image.base < end && address < image.base + image.size)
                {
                    tracing::warn!(
                        image = image.name,
                        address = format_args!("{address:#x}"),
                        length,
                        "MADV_DONTNEED of a loaded image's pages: Tandem zeroes them instead of reading the file again"
                    );
                }
                self.map.drop_pages(&self.memory, address, length).map(|_| 0)
            }
            _ => Ok(0),
        }
    }

    fn munmap(&mut self, address: u64, length: u64) -> SysResult {
        self.map.unmap(&mut self.memory, address, length)?;
        Ok(0)
    }

    fn mprotect(&mut self, address: u64, length: u64, prot: u64) -> SysResult {
        self.map.protect(&mut self.memory, address, length, protection(prot))?;
        Ok(0)
    }

    /// close_range(first, last, flags): closes the guest's descriptors from `first` to `last` (unsigned ints),
    /// or with CLOSE_RANGE_CLOEXEC marks them close-on-exec; CLOSE_RANGE_UNSHARE changes nothing for a process
    /// that shares its table with no one. Unknown flags, or `first` past `last`, are EINVAL.
    fn close_range(&mut self, first: u64, last: u64, flags: u64) -> SysResult {
        const UNSHARE: u64 = 2;
        const CLOEXEC: u64 = 4;
        let (first, last) = (first as u32, last as u32);
        if flags & !(UNSHARE | CLOEXEC) != 0 || first > last {
            return Err(Errno::EINVAL);
        }
        for fd in self.files.open_in(first, last) {
            if flags & CLOEXEC != 0 {
                let host_fd = self.fd(fd as u64)?;
                // SAFETY: F_SETFD on a descriptor this table holds.
                unsafe { libc::fcntl(host_fd, libc::F_SETFD, libc::FD_CLOEXEC) };
            } else {
                self.files.close(i64::from(fd));
            }
        }
        Ok(0)
    }

    fn mremap(&mut self, address: u64, old_size: u64, new_size: u64, flags: u64) -> SysResult {
        if flags & !(MREMAP_MAYMOVE | MREMAP_MOVES_ELSEWHERE) != 0 {
            return Err(Errno::EINVAL);
        }
        let new_address = self.map.remap(&mut self.memory, address, old_size, new_size, flags & MREMAP_MAYMOVE != 0)?;
        Ok(new_address)
    }

    // --- Time, randomness, identity ----------------------------------------------------------------------------

    /// Nanoseconds of guest time: retired instructions, and the time sleeps skipped, at the counter's rate.
    pub(super) fn guest_nanoseconds(&self) -> u64 {
        nanoseconds_of(self.retired.saturating_add(self.slept))
    }

    fn clock_ticks(&self) -> u64 {
        self.guest_nanoseconds() / 10_000_000
    }

    /// What `clock` reads now, in nanoseconds. The CPU-time clocks count only the instructions retired.
    pub(super) fn clock_now(&self, clock: u64) -> Result<u64, Errno> {
        match clock {
            0 | 5 | 8 | 11 => Ok(REALTIME_EPOCH_SECONDS * 1_000_000_000 + self.guest_nanoseconds()), // REALTIME, _COARSE, _ALARM, TAI
            2 | 3 => Ok(nanoseconds_of(self.retired)), // PROCESS_CPUTIME_ID, THREAD_CPUTIME_ID
            1 | 4 | 6 | 7 | 9 => Ok(self.guest_nanoseconds()), // MONOTONIC, _RAW, _COARSE, BOOTTIME, _ALARM
            _ => Err(Errno::EINVAL),
        }
    }

    fn clock_gettime(&self, clock: u64, timespec: u64) -> SysResult {
        let now = self.clock_now(clock)?;
        self.write_words(timespec, &[now / 1_000_000_000, now % 1_000_000_000])?;
        Ok(0)
    }

    /// A `struct timespec` argument in nanoseconds: EFAULT where it cannot be read, EINVAL where it is not a valid
    /// time (negative seconds, or nanoseconds outside 0..10^9), as Linux's `timespec64_valid`.
    pub(super) fn read_timespec(&self, address: u64) -> Result<u64, Errno> {
        let seconds = self.read_u64(address)?;
        let nanoseconds = self.read_u64(address.wrapping_add(8))?;
        if (seconds as i64) < 0 || nanoseconds >= 1_000_000_000 {
            return Err(Errno::EINVAL);
        }
        Ok(seconds.saturating_mul(1_000_000_000).saturating_add(nanoseconds))
    }

    /// A sleep nothing interrupts. The only thread's sleep moves guest time on by `nanoseconds`; one of several
    /// waits that long while the others run (`threads`).
    fn sleep_for(&mut self, nanoseconds: u64) {
        match self.threads.several() {
            true => self.sleep_thread_until(self.guest_nanoseconds().saturating_add(nanoseconds)),
            false => self.pass_time(nanoseconds),
        }
    }

    /// Guest time moves on by `nanoseconds` while no thread runs. A program of several processes sleeps on the
    /// host too, as the others run meanwhile (a watchdog's sleep must let the watched run).
    pub(super) fn pass_time(&mut self, nanoseconds: u64) {
        self.advance_guest_time(nanoseconds);
        if !self.first_process || self.has_forked {
            std::thread::sleep(std::time::Duration::from_nanos(nanoseconds));
        }
    }

    /// Moves guest time on by `nanoseconds` (rounded up to whole instructions' worth).
    fn advance_guest_time(&mut self, nanoseconds: u64) {
        let rate = u128::from(INSTRUCTIONS_PER_TICK * COUNTER_FREQUENCY_HZ);
        let instructions = (u128::from(nanoseconds) * rate).div_ceil(1_000_000_000);
        self.slept = self.slept.saturating_add(u64::try_from(instructions).unwrap_or(u64::MAX));
    }

    /// Moves guest time on until `clock` reads at least `deadline` nanoseconds (a deadline passed is no sleep).
    fn sleep_until(&mut self, clock: u64, deadline: u64) -> Result<(), Errno> {
        let now = self.clock_now(clock)?;
        self.sleep_for(deadline.saturating_sub(now));
        Ok(())
    }

    /// clock_nanosleep(clock, flags, request, remain): relative, or absolute with TIMER_ABSTIME. Linux's order of
    /// checks: an unknown clock is EINVAL, a clock without timers EOPNOTSUPP, then the request is read. A sleep on
    /// the process's CPU clock would never end (its one thread is asleep); the alarm clocks need a real-time clock
    /// device, which this machine does not have.
    fn clock_nanosleep(&mut self, clock: u64, flags: u64, request: u64) -> Flow {
        const TIMER_ABSTIME: u64 = 1;
        const EOPNOTSUPP: Errno = Errno(95);
        match clock {
            0..=2 | 7 | 11 => {}
            3..=6 | 8 | 9 => return self.answer(Err(EOPNOTSUPP)), // THREAD_CPUTIME, MONOTONIC_RAW, coarse, alarms
            _ => return self.answer(Err(Errno::EINVAL)),
        }
        let time = match self.read_timespec(request) {
            Ok(time) => time,
            Err(errno) => return self.answer(Err(errno)),
        };
        let absolute = flags & TIMER_ABSTIME != 0;
        let result = match clock {
            2 if (absolute && time > nanoseconds_of(self.retired)) || (!absolute && time > 0) => {
                return Flow::Stop(StopReason::Deadlock(
                    "clock_nanosleep on the process's CPU clock, which its one sleeping thread never moves on",
                ));
            }
            _ if absolute => self.sleep_until(clock, time).map(|_| 0),
            _ => {
                self.sleep_for(time);
                Ok(0)
            }
        };
        self.answer(result)
    }

    fn gettimeofday(&self, timeval: u64) -> SysResult {
        if timeval != 0 {
            let now = self.clock_now(0)?;
            self.write_words(timeval, &[now / 1_000_000_000, now % 1_000_000_000 / 1000])?;
        }
        Ok(0)
    }

    fn getrandom(&mut self, buffer: u64, length: u64) -> SysResult {
        let length = length.min(MAX_TRANSFER);
        let mut bytes = Vec::with_capacity(length as usize + 8);
        while (bytes.len() as u64) < length {
            // SplitMix64: a deterministic stream, so that runs repeat.
            self.random_state = self.random_state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.random_state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            bytes.extend((z ^ (z >> 31)).to_le_bytes());
        }
        self.write_bytes(buffer, &bytes[..length as usize])?;
        Ok(length)
    }

    /// sysinfo: uptime from guest time, a fixed 4 GiB of memory (2 GiB free), one process.
    fn sysinfo(&self, buffer: u64) -> SysResult {
        const GIB: u64 = 1 << 30;
        let uptime = self.guest_nanoseconds() / 1_000_000_000;
        // struct sysinfo on 64-bit Linux: uptime, loads[3], totalram, freeram, sharedram, bufferram, totalswap,
        // freeswap, procs (u16, padded to 8), totalhigh, freehigh, mem_unit (u32), padding: 112 bytes.
        let mut out = Vec::with_capacity(112);
        for word in [uptime, 0, 0, 0, 4 * GIB, 2 * GIB, 0, 0, 0, 0] {
            out.extend(word.to_le_bytes());
        }
        out.extend(1u64.to_le_bytes()); // procs, then padding
        out.extend([0u8; 16]); // totalhigh, freehigh
        out.extend(1u32.to_le_bytes()); // mem_unit
        out.extend([0u8; 4]);
        self.write_bytes(buffer, &out)?;
        Ok(0)
    }

    fn uname(&self, buffer: u64) -> SysResult {
        let mut out = Vec::with_capacity(6 * 65);
        for field in ["Linux", "tandem", "6.1.0-tandem", "#1 SMP", "aarch64", "(none)"] {
            let mut bytes = [0u8; 65];
            bytes[..field.len()].copy_from_slice(field.as_bytes());
            out.extend(bytes);
        }
        self.write_bytes(buffer, &out)?;
        Ok(0)
    }

    fn rlimit(&self, resource: u64, old: u64) -> SysResult {
        const INFINITY: u64 = u64::MAX;
        let (current, maximum) = match resource {
            3 => (STACK_SIZE, INFINITY),                                       // RLIMIT_STACK
            7 => (super::files::MAX_FDS as u64, super::files::MAX_FDS as u64), // RLIMIT_NOFILE
            0..=15 => (INFINITY, INFINITY),
            _ => return Err(Errno::EINVAL),
        };
        if old != 0 {
            self.write_words(old, &[current, maximum])?;
        }
        Ok(0)
    }
}

/// A host poll's timeout in milliseconds (-1: none), rounded up.
fn wait_ms(timeout_ns: Option<u64>) -> i32 {
    match timeout_ns {
        None => -1,
        Some(ns) => i32::try_from(ns.div_ceil(1_000_000)).unwrap_or(i32::MAX),
    }
}

/// Nanoseconds of guest time in `instructions` instructions' worth, at the counter's rate.
pub(super) fn nanoseconds_of(instructions: u64) -> u64 {
    let nanoseconds =
        u128::from(instructions) * 1_000_000_000 / u128::from(INSTRUCTIONS_PER_TICK * COUNTER_FREQUENCY_HZ);
    u64::try_from(nanoseconds).unwrap_or(u64::MAX)
}

/// The guest permission of `PROT_*` bits. AArch64 Linux has no write-only pages: PROT_WRITE reads too (its
/// `protection_map`), as it does under qemu on any host.
fn protection(prot: u64) -> Perm {
    let mut perm = Perm::NONE;
    if prot & 1 != 0 {
        perm = perm | Perm::READ;
    }
    if prot & 2 != 0 {
        perm = perm | Perm::READ | Perm::WRITE;
    }
    if prot & 4 != 0 {
        perm = perm | Perm::EXECUTE;
    }
    perm
}
