//! Processes: fork and vfork (a host process each), execve (`relaunch`), wait4, and the pids the guest sees.

use super::LinuxProcess;
use super::memory_map::STACK_SIZE;
use super::relaunch::{self, ExecState};
use super::syscalls::{Errno, FIRST_PID, Flow, SysResult, host};
use crate::report::StopReason;
use std::ffi::CString;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use tandem_reference::engine::Engine;

/// A pipe whose ends close on exec, as (read, write).
fn pipe_cloexec() -> Result<(OwnedFd, OwnedFd), Errno> {
    let mut ends = [0; 2];
    // SAFETY: `ends` holds the two descriptors the call returns.
    host(i64::from(unsafe { libc::pipe2(ends.as_mut_ptr(), libc::O_CLOEXEC) }))?;
    // SAFETY: fresh descriptors that nothing else owns.
    Ok(unsafe { (OwnedFd::from_raw_fd(ends[0]), OwnedFd::from_raw_fd(ends[1])) })
}

impl LinuxProcess {
    /// clone as fork, or as vfork (CLONE_VM | CLONE_VFORK). The child is a host process of its own, made by the
    /// host's fork, with a copy of the guest's private memory (`GuestMemory::private_copy`; MAP_SHARED mappings
    /// stay shared, as Linux keeps them) and of the file table; the guest knows it by its host pid (`guest_pid`).
    /// A vfork child shares the memory (its views are of the same pages: what it writes, such as posix_spawn's
    /// error, its parent sees), and its parent waits, as Linux's does, until the child execs or exits; like
    /// Linux's, it may only do that. A thread (CLONE_THREAD, sharing everything) is `clone_thread`'s; other
    /// sharing (CLONE_VM alone, CLONE_FILES, CLONE_FS, CLONE_SIGHAND without a thread) stops the run.
    /// clone3(args, size): `struct clone_args` (flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size,
    /// tls, set_tid, set_tid_size, cgroup) made into clone's arguments, the stack given by its lowest address and
    /// size. Linux's checks: a size under the first version's 64 bytes is EINVAL, over a page E2BIG, as are
    /// fields this kernel does not know that are not zero; exit-signal bits in the flags, CLONE_DETACHED, an
    /// exit signal past 64 or a stack without a size are EINVAL. set_tid, pidfds, cgroups and
    /// CLONE_CLEAR_SIGHAND stop naming themselves.
    pub(super) fn clone3(&mut self, engine: &mut dyn Engine, args: u64, size: u64) -> Flow {
        const KNOWN: u64 = 88;
        const CLONE_PIDFD: u64 = 0x1000;
        const CLONE_DETACHED: u64 = 0x40_0000;
        const CLONE_CLEAR_SIGHAND: u64 = 0x1_0000_0000;
        const CLONE_INTO_CGROUP: u64 = 0x2_0000_0000;
        const E2BIG: Errno = Errno(7);
        if size < 64 {
            return self.answer(Err(Errno::EINVAL));
        }
        let bytes = match size {
            4097.. => Err(E2BIG),
            _ => self.read_bytes(args, size),
        };
        let bytes = match bytes {
            Ok(bytes) if bytes[KNOWN.min(size) as usize..].iter().any(|&byte| byte != 0) => Err(E2BIG),
            other => other,
        };
        let mut fields = [0u64; 11];
        match bytes {
            Ok(bytes) => {
                for (field, word) in fields.iter_mut().zip(bytes.chunks_exact(8)) {
                    *field = u64::from_le_bytes(word.try_into().expect("8 bytes"));
                }
            }
            Err(errno) => return self.answer(Err(errno)),
        }
        let [flags, _pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls, set_tid, set_tid_size, _] =
            fields;
        if flags & (0xff | CLONE_DETACHED) != 0 || exit_signal > 64 || (stack == 0) != (stack_size == 0) {
            return self.answer(Err(Errno::EINVAL));
        }
        if set_tid != 0 || set_tid_size != 0 || flags & (CLONE_PIDFD | CLONE_CLEAR_SIGHAND | CLONE_INTO_CGROUP) != 0 {
            return Flow::Stop(StopReason::Unsupported(
                "clone3 with set_tid, a pidfd, a cgroup or CLONE_CLEAR_SIGHAND",
            ));
        }
        let top = if stack == 0 { 0 } else { stack.wrapping_add(stack_size) };
        self.clone_process(engine, flags | exit_signal, top, parent_tid, tls, child_tid)
    }

    pub(super) fn clone_process(
        &mut self,
        engine: &mut dyn Engine,
        flags: u64,
        stack: u64,
        parent_tid: u64,
        tls: u64,
        child_tid: u64,
    ) -> Flow {
        const CLONE_VM: u64 = 0x100;
        const CLONE_VFORK: u64 = 0x4000;
        const CLONE_SETTLS: u64 = 0x8_0000;
        const CLONE_PARENT_SETTID: u64 = 0x10_0000;
        const CLONE_CHILD_CLEARTID: u64 = 0x20_0000;
        const CLONE_CHILD_SETTID: u64 = 0x100_0000;
        const EXIT_SIGNAL: u64 = 0xff;
        const CLONE_FS: u64 = 0x200;
        const CLONE_FILES: u64 = 0x400;
        const CLONE_SIGHAND: u64 = 0x800;
        const CLONE_THREAD: u64 = 0x1_0000;
        const CLONE_SYSVSEM: u64 = 0x4_0000;
        // Ignored by clone since Linux 2.6.2 (musl's pthread_create still passes it).
        const CLONE_DETACHED: u64 = 0x40_0000;
        let flags = flags & !CLONE_DETACHED;
        if flags & CLONE_THREAD != 0 {
            let shared = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD;
            let allowed =
                shared | CLONE_SYSVSEM | CLONE_SETTLS | CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID | CLONE_CHILD_SETTID;
            if flags & shared != shared || flags & !allowed != 0 {
                return Flow::Stop(StopReason::Unsupported(
                    "clone of a thread that does not share memory, files, folders and signal handlers with its \
                     process, or with other flags than SYSVSEM, SETTLS and the tid addresses",
                ));
            }
            return self.clone_thread(flags, stack, parent_tid, tls, child_tid);
        }
        let vfork = flags & (CLONE_VM | CLONE_VFORK) == CLONE_VM | CLONE_VFORK;
        let allowed = EXIT_SIGNAL
            | CLONE_SETTLS
            | CLONE_PARENT_SETTID
            | CLONE_CHILD_CLEARTID
            | CLONE_CHILD_SETTID
            | if vfork { CLONE_VM | CLONE_VFORK } else { 0 };
        if flags & !allowed != 0 {
            return Flow::Stop(StopReason::Unsupported(
                "clone of a process sharing memory, files, folders or signal handlers (fork, vfork and threads \
                 are supported)",
            ));
        }
        if let Err(why) = engine.can_fork() {
            return Flow::Stop(StopReason::Unsupported(why));
        }
        // A vfork child shares the memory (CLONE_VM: the views are of the same pages) while its parent waits.
        let copy = match (!vfork).then(|| self.memory.private_copy()).transpose() {
            Ok(copy) => copy,
            Err(error) => {
                tracing::warn!("fork: no copy of the guest's memory: {error}");
                return self.answer(Err(Errno::ENOMEM));
            }
        };
        // A vfork parent reads this pipe until the child's exec or exit closes its end.
        let vfork_wait = match vfork.then(pipe_cloexec).transpose() {
            Ok(pipe) => pipe,
            Err(errno) => return self.answer(Err(errno)),
        };
        super::signals::note_child_endings();
        // SAFETY: the host's fork. The child goes on with this thread alone: the engine drops what its threads
        // held (`Engine::forked`), and glibc's fork leaves malloc usable in the child.
        let pid = unsafe { libc::fork() };
        if pid < 0 {
            return self.answer(Err(Errno::last()));
        }
        if pid == 0 {
            if let Some(Err(error)) = copy.map(|copy| self.memory.take_private_copy(copy)) {
                eprintln!("tandem: a forked child could not take its own copy of the guest's memory: {error}");
                std::process::exit(125);
            }
            engine.forked();
            (self.parent_pid, self.pid) = (self.pid, self.guest_pid(std::process::id().into()));
            let clear_child_tid = if flags & CLONE_CHILD_CLEARTID != 0 { child_tid } else { 0 };
            self.threads.keep_only_running(self.pid, clear_child_tid);
            self.first_process = false;
            self.children.clear();
            super::signals::forget_host_signals();
            // Pending signals are the parent's alone (fork(2)).
            self.pending_signals = 0;
            // A vfork child's own waiting parent is not this process's to hold: its end of that pipe closes here.
            self.vfork_done = vfork_wait.map(|(_, write)| write);
            if stack != 0 {
                self.cpu.sp = stack;
            }
            if flags & CLONE_SETTLS != 0 {
                self.cpu.tpidr_el0 = tls;
            }
            for (flag, address) in [(CLONE_CHILD_SETTID, child_tid), (CLONE_PARENT_SETTID, parent_tid)] {
                if flags & flag != 0 {
                    // Linux too leaves a bad address unwritten without failing the call.
                    let _ = self.write_bytes(address, &(self.pid as u32).to_le_bytes());
                }
            }
            return self.answer(Ok(0));
        }
        self.children.insert(pid);
        self.has_forked = true;
        let pid = self.guest_pid(pid as u64);
        if flags & CLONE_PARENT_SETTID != 0 {
            let _ = self.write_bytes(parent_tid, &(pid as u32).to_le_bytes());
        }
        if let Some((read, write)) = vfork_wait {
            drop(write);
            let mut byte = 0u8;
            // SAFETY: a read of one byte into `byte` from the pipe this call made; 0 is the end (exec or exit).
            while unsafe { libc::read(read.as_raw_fd(), (&raw mut byte).cast(), 1) } != 0
                && Errno::last() == Errno::EINTR
            {}
        }
        self.answer(Ok(pid))
    }

    /// execve(path, argv, envp), through `relaunch`: returns only when the exec failed. /proc/self/exe is the
    /// running program, as on Linux.
    pub(super) fn execve(&mut self, path: u64, argv: u64, envp: u64) -> Flow {
        let prepared = (|| {
            let host_path = if self.read_guest_string(path)?.as_bytes() == b"/proc/self/exe" {
                CString::new(self.executable.clone().into_os_string().into_encoded_bytes())
                    .map_err(|_| Errno::EINVAL)?
            } else {
                self.read_path(path)?
            };
            let (argv, env) = (self.read_string_array(argv)?, self.read_string_array(envp)?);
            // SAFETY: a valid C string.
            host(i64::from(unsafe { libc::access(host_path.as_ptr(), libc::X_OK) }))?;
            let kind = relaunch::program_kind(&host_path).map_err(Errno)?;
            Ok((host_path, argv, env, kind))
        })();
        let (host_path, argv, env, kind) = match prepared {
            Ok(prepared) => prepared,
            Err(errno) => return self.answer(Err(errno)),
        };
        let fds = self.files.surviving_exec();
        if let relaunch::ProgramKind::Host = kind {
            let signals = relaunch::HostSignals { mask: self.signal_mask, ignored: self.ignored_signals() };
            relaunch::host_exec(&host_path, &argv, &env, &fds, signals);
        }
        if self.options.relaunch.is_empty() {
            return Flow::Stop(StopReason::Unsupported(
                "execve outside `tandem linux` (this command runs one program)",
            ));
        }
        let program = std::path::Path::new(std::ffi::OsStr::from_bytes(host_path.as_bytes()));
        if let Err(errno) = super::exec::check_loadable(program, self.options.sysroot.as_deref()) {
            return self.answer(Err(Errno(errno)));
        }
        if argv.iter().chain(&env).any(|text| text.to_str().is_err()) {
            return Flow::Stop(StopReason::Unsupported("execve with arguments or environment that are not UTF-8"));
        }
        let state = ExecState {
            pid: self.pid,
            parent_pid: self.parent_pid,
            first_host_pid: self.first_host_pid,
            first_process: self.first_process,
            has_forked: self.has_forked,
            clock: self.retired + self.slept,
            signal_mask: self.signal_mask,
            pending_signals: self.pending_signals,
            ignored_signals: self.ignored_signals(),
            fds,
            argv,
            env,
        };
        let errno = relaunch::relaunch(&self.options.relaunch, &host_path, &state);
        self.answer(Err(Errno(errno)))
    }

    /// A NULL-terminated array of pointers to strings (argv, envp); a NULL array is empty, as Linux takes it.
    /// Linux's limits: a string of MAX_ARG_STRLEN bytes at most, and (with the default 8 MiB stack) a quarter
    /// of the stack for them all; past either, E2BIG.
    pub(super) fn read_string_array(&self, address: u64) -> Result<Vec<CString>, Errno> {
        const E2BIG: Errno = Errno(7);
        const MAX_ARG_STRLEN: u64 = 32 * 4096;
        const ALL_STRINGS: u64 = STACK_SIZE / 4;
        let (mut strings, mut total) = (Vec::new(), 0);
        if address == 0 {
            return Ok(strings);
        }
        for index in 0.. {
            let pointer = self.read_u64(address.wrapping_add(8 * index))?;
            if pointer == 0 {
                break;
            }
            let string = self.read_bounded_string(pointer, MAX_ARG_STRLEN)?.ok_or(E2BIG)?;
            total += string.as_bytes().len() as u64 + 1 + 8;
            if total > ALL_STRINGS {
                return Err(E2BIG);
            }
            strings.push(string);
        }
        Ok(strings)
    }

    /// A guest pid as the host's: the first process's fixed pid and its host pid change places (so that no host
    /// process is mistaken for it); every other pid is the host's. Its own inverse.
    pub(super) fn host_pid(&self, pid: u64) -> i32 {
        let first = u64::from(self.first_host_pid);
        (if pid == FIRST_PID {
            first
        } else if pid == first {
            FIRST_PID
        } else {
            pid
        }) as i32
    }

    /// A host pid as the guest knows it.
    pub(super) fn guest_pid(&self, pid: u64) -> u64 {
        self.host_pid(pid) as u32 as u64
    }

    /// wait4(pid, status, options, rusage) on the host's children, which are the guest's. The status word has
    /// one layout on both; resource use reads as zeros, as getrusage gives it.
    pub(super) fn wait4(&mut self, pid: u64, status: u64, options: u64, rusage: u64) -> SysResult {
        let mut word = 0i32;
        let pid = match pid as i64 {
            pid if pid > 0 => self.host_pid(pid as u64),
            pid if pid < -1 => -self.host_pid(pid.unsigned_abs()),
            pid => pid as i32,
        };
        // SAFETY: `word` is a valid int for the host to write; no rusage is asked for.
        let child = host(i64::from(unsafe { libc::wait4(pid, &mut word, options as i32, std::ptr::null_mut()) }))?;
        if child == 0 {
            return Ok(0);
        }
        if libc::WIFEXITED(word) || libc::WIFSIGNALED(word) {
            self.children.remove(&(child as i32));
        }
        if status != 0 {
            self.write_bytes(status, &word.to_le_bytes())?;
        }
        if rusage != 0 {
            self.write_bytes(rusage, &[0; 144])?;
        }
        Ok(self.guest_pid(child))
    }
}
