//! execve: the calling process's image is replaced, as Linux replaces it, by the host's own exec. An aarch64 ELF
//! program runs in a new Tandem process (`tandem linux` again, with the options this one had), which takes over
//! the guest's process state through an `ExecState` passed in an inherited memfd; any other program (a host
//! executable, a `#!` script) is the host's to run, with the guest's descriptors put at their guest numbers, as
//! qemu-aarch64 runs what is not aarch64.
//!
//! Invariant: nothing is changed before the host exec that a failed exec would need back, except in
//! `host_exec`'s last step, after which a failure ends the process (Linux's point of no return).

use std::ffi::{CString, OsString};
use std::io::{Read, Seek, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::{OsStrExt, OsStringExt};

/// What a guest process carries across execve into the Tandem process that runs the new program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExecState {
    pub pid: u64,
    pub parent_pid: u64,
    /// The host pid of the program's first process, which its descendants know by the guest pid it had.
    pub first_host_pid: u32,
    /// Whether this is the program's first process (which reports the run), and whether it has forked (its
    /// sleeps take host time).
    pub first_process: bool,
    pub has_forked: bool,
    /// Guest time so far (retired and slept instructions), where the new program's clocks go on from.
    pub clock: u64,
    /// What exec keeps of signals (execve(2)): the mask, the pending ones, and those ignored (bit n - 1 for
    /// signal n); handled ones go back to their default actions.
    pub signal_mask: u64,
    pub pending_signals: u64,
    pub ignored_signals: u64,
    /// The guest descriptors that survive the exec (those not close-on-exec), with their host descriptors, which
    /// the host's exec keeps open at the same numbers.
    pub fds: Vec<(i32, RawFd)>,
    pub argv: Vec<CString>,
    pub env: Vec<CString>,
}

/// How the host's exec failed before its point of no return, as the guest's errno.
pub type ExecError = i32;

impl ExecState {
    /// Record format: NUL-terminated fields, numbers in decimal: pid, parent pid, first host pid, first process
    /// and has forked (0 or 1), clock, signal mask, pending and ignored signals, the number of descriptors then each as
    /// `guest=host`, the number of arguments then each, the environment to the end.
    fn encode(&self) -> Vec<u8> {
        let numbers = [
            self.pid,
            self.parent_pid,
            self.first_host_pid.into(),
            self.first_process.into(),
            self.has_forked.into(),
            self.clock,
            self.signal_mask,
            self.pending_signals,
            self.ignored_signals,
            self.fds.len() as u64,
        ];
        let mut fields: Vec<Vec<u8>> = numbers.iter().map(|number| number.to_string().into_bytes()).collect();
        fields.extend(self.fds.iter().map(|(guest, host)| format!("{guest}={host}").into_bytes()));
        fields.push(self.argv.len().to_string().into_bytes());
        fields.extend(self.argv.iter().chain(&self.env).map(|text| text.as_bytes().to_vec()));
        fields
            .into_iter()
            .flat_map(|mut field| {
                field.push(0);
                field
            })
            .collect()
    }

    fn decode(bytes: &[u8]) -> Option<ExecState> {
        let mut fields = bytes.strip_suffix(&[0])?.split(|&byte| byte == 0);
        let mut numbers = [0u64; 10];
        for number in &mut numbers {
            *number = std::str::from_utf8(fields.next()?).ok()?.parse().ok()?;
        }
        let [
            pid,
            parent_pid,
            first_host_pid,
            first_process,
            has_forked,
            clock,
            signal_mask,
            pending_signals,
            ignored_signals,
            fd_count,
        ] = numbers;
        let mut fds = Vec::new();
        for _ in 0..fd_count {
            let (guest, host) = std::str::from_utf8(fields.next()?).ok()?.split_once('=')?;
            fds.push((guest.parse().ok()?, host.parse().ok()?));
        }
        let arg_count = std::str::from_utf8(fields.next()?).ok()?.parse::<usize>().ok()?;
        let mut texts = fields.map(|field| CString::new(field).ok());
        let argv = texts.by_ref().take(arg_count).collect::<Option<Vec<_>>>()?;
        let env = texts.collect::<Option<Vec<_>>>()?;
        (argv.len() == arg_count).then_some(ExecState {
            pid,
            parent_pid,
            first_host_pid: u32::try_from(first_host_pid).ok()?,
            first_process: first_process == 1,
            has_forked: has_forked == 1,
            clock,
            signal_mask,
            pending_signals,
            ignored_signals,
            fds,
            argv,
            env,
        })
    }

    /// Reads the state a relaunching Tandem left in descriptor `fd`, and closes it.
    pub fn take_from(fd: RawFd) -> Result<ExecState, String> {
        // SAFETY: the descriptor was passed on the command line by the Tandem that exec'd this one, for this
        // process to read and close; nothing else here owns it.
        let mut file = std::fs::File::from(unsafe { OwnedFd::from_raw_fd(fd) });
        let mut bytes = Vec::new();
        file.rewind().and_then(|_| file.read_to_end(&mut bytes)).map_err(|error| format!("reading it: {error}"))?;
        ExecState::decode(&bytes).ok_or_else(|| "it is not a state Tandem wrote".into())
    }
}

/// What kind of program execve was given, from its first bytes.
pub enum ProgramKind {
    /// An aarch64 ELF: Tandem runs it.
    Guest,
    /// An ELF of another machine, or a `#!` script: the host runs it.
    Host,
}

/// Reads enough of `path` to tell what runs it, with the errors Linux's execve would give where the host could
/// not run it: ENOEXEC for a file that is neither an ELF nor a script, and for an ELF of a machine other than
/// aarch64 and the host's; a script's interpreter's own error (ENOENT, EACCES) where it cannot be run.
pub fn program_kind(path: &CString) -> Result<ProgramKind, ExecError> {
    const EM_AARCH64: u16 = 183;
    const EM_X86_64: u16 = 62;
    let path = std::path::Path::new(std::ffi::OsStr::from_bytes(path.as_bytes()));
    let mut head = [0u8; 256];
    let mut file = std::fs::File::open(path).map_err(|error| error.raw_os_error().unwrap_or(libc::EACCES))?;
    // A folder is EACCES to execve.
    let read = file.read(&mut head).map_err(|error| match error.raw_os_error() {
        Some(libc::EISDIR) | None => libc::EACCES,
        Some(errno) => errno,
    })?;
    let head = &head[..read];
    match head {
        [0x7f, b'E', b'L', b'F', ..] if read >= 20 => match u16::from_le_bytes([head[18], head[19]]) {
            EM_AARCH64 => Ok(ProgramKind::Guest),
            EM_X86_64 => Ok(ProgramKind::Host),
            _ => Err(libc::ENOEXEC),
        },
        [b'#', b'!', line @ ..] => {
            let line = line.split(|&byte| byte == b'\n').next().unwrap_or_default();
            let interpreter = line.split(|&byte| byte == b' ' || byte == b'\t').find(|word| !word.is_empty());
            let interpreter = CString::new(interpreter.ok_or(libc::ENOEXEC)?).map_err(|_| libc::ENOEXEC)?;
            // SAFETY: a valid C string.
            match unsafe { libc::access(interpreter.as_ptr(), libc::X_OK) } {
                0 => Ok(ProgramKind::Host),
                _ => Err(last_errno()),
            }
        }
        _ => Err(libc::ENOEXEC),
    }
}

/// Replaces this process by a Tandem running `path` with `state` (the command line's `relaunch` arguments say
/// how: `linux --cpu ...`). Returns only on failure, with nothing changed.
pub fn relaunch(relaunch: &[String], path: &CString, state: &ExecState) -> ExecError {
    // The running binary itself, even if a newer one has replaced its file since.
    let exe = c"/proc/self/exe";
    // The state's memfd is the one descriptor of Tandem's own that the exec keeps.
    // SAFETY: the name is a NUL-terminated string; the call returns a new descriptor or -1.
    let fd = unsafe { libc::memfd_create(c"tandem-exec-state".as_ptr(), 0) };
    if fd < 0 {
        return last_errno();
    }
    // SAFETY: a fresh descriptor that nothing else owns.
    let mut file = std::fs::File::from(unsafe { OwnedFd::from_raw_fd(fd) });
    if let Err(error) = file.write_all(&state.encode()) {
        return error.raw_os_error().unwrap_or(libc::ENOMEM);
    }
    let mut args = vec![c"tandem".into()];
    args.extend(relaunch.iter().map(|arg| c_string(arg.into())));
    args.extend([c"--exec-state".into(), c_string(file.as_raw_fd().to_string().into()), c"--".into(), path.clone()]);
    let environment: Vec<CString> = std::env::vars_os()
        .map(|(key, value)| {
            let mut entry = key;
            entry.push("=");
            entry.push(value);
            c_string(entry)
        })
        .collect();
    let errno = exec(exe, &args, &environment);
    drop(file);
    errno
}

/// Runs a host program in place of this process: the guest's surviving descriptors move to their guest numbers
/// (the host's 0-2 closed where the guest has no such descriptor), then the host's execve. Past the moves there
/// is no way back: a failed exec ends the process with status 127, as a shell reports a command that would not
/// run.
pub fn host_exec(path: &CString, argv: &[CString], env: &[CString], fds: &[(i32, RawFd)], signals: HostSignals) -> ! {
    // First out of the way of every guest number (below MAX_FDS), with the soft descriptor limit raised to the
    // hard one for it, then each to its own.
    let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: plain calls on this process's limits and on the guest's host descriptors; this process is about to
    // be replaced.
    unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) };
    let raised = libc::rlimit { rlim_cur: limit.rlim_max, ..limit };
    // SAFETY: as above.
    unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) };
    let moved: Vec<(i32, RawFd)> = fds
        .iter()
        // SAFETY: as above.
        .map(|&(guest, host)| (guest, unsafe { libc::fcntl(host, libc::F_DUPFD_CLOEXEC, super::files::MAX_FDS) }))
        .collect();
    // SAFETY: as above (the program gets the limit this process had).
    unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &limit) };
    if moved.iter().any(|&(_, fd)| fd < 0) {
        eprintln!("tandem: no host descriptors above {} to hand the guest's to a host program", super::files::MAX_FDS);
        std::process::exit(127);
    }
    for standard in 0..3 {
        if !fds.iter().any(|&(guest, _)| guest == standard) {
            // SAFETY: as above.
            unsafe { libc::close(standard) };
        }
    }
    for (guest, host) in moved {
        // SAFETY: as above.
        unsafe { libc::dup2(host, guest) };
    }
    // Nothing else of this process's reaches the program: every other descriptor closes on the exec.
    let open: Vec<RawFd> = std::fs::read_dir("/proc/self/fd")
        .map(|entries| entries.filter_map(|entry| entry.ok()?.file_name().to_str()?.parse().ok()).collect())
        .unwrap_or_default();
    for fd in open.into_iter().filter(|fd| !fds.iter().any(|&(guest, _)| guest == *fd)) {
        // SAFETY: as above.
        unsafe { libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) };
    }
    signals.apply();
    let errno = exec(path, argv, env);
    eprintln!(
        "tandem: the host could not run {} ({}) after the guest's descriptors were set up for it",
        path.to_string_lossy(),
        std::io::Error::from_raw_os_error(errno)
    );
    std::process::exit(127)
}

/// What the program a guest execs on the host gets of the guest's signals: the mask, and the signals ignored
/// (bit n - 1 for signal n); every other signal has its default action, as after Linux's exec.
pub struct HostSignals {
    pub mask: u64,
    pub ignored: u64,
}

impl HostSignals {
    fn apply(&self) {
        const SIGKILL: i32 = 9;
        const SIGSTOP: i32 = 19;
        // SAFETY: plain signal calls; this process is about to be replaced. The C library's own signals (32-34)
        // keep their actions.
        unsafe {
            let mut mask: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut mask);
            for signal in 1..=31 {
                if self.mask & (1 << (signal - 1)) != 0 {
                    libc::sigaddset(&mut mask, signal);
                }
                if signal != SIGKILL && signal != SIGSTOP {
                    let ignored = self.ignored & (1 << (signal - 1)) != 0;
                    libc::signal(signal, if ignored { libc::SIG_IGN } else { libc::SIG_DFL });
                }
            }
            libc::sigprocmask(libc::SIG_SETMASK, &mask, std::ptr::null_mut());
        }
    }
}

/// The host's execve; returns its errno when it fails.
fn exec(path: &std::ffi::CStr, args: &[CString], env: &[CString]) -> ExecError {
    let pointers = |texts: &[CString]| -> Vec<*const libc::c_char> {
        texts.iter().map(|text| text.as_ptr()).chain([std::ptr::null()]).collect()
    };
    let (arg_pointers, env_pointers) = (pointers(args), pointers(env));
    // SAFETY: NUL-terminated strings in NULL-terminated arrays, alive across the call.
    unsafe { libc::execve(path.as_ptr(), arg_pointers.as_ptr(), env_pointers.as_ptr()) };
    last_errno()
}

/// A host string as a C string (the host's own never hold a NUL).
fn c_string(text: OsString) -> CString {
    CString::new(text.into_vec()).unwrap_or_default()
}

fn last_errno() -> ExecError {
    std::io::Error::last_os_error().raw_os_error().unwrap_or(libc::EINVAL)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_exec_state_reads_back_as_written() {
        let state = ExecState {
            pid: 4321,
            parent_pid: 1000,
            first_host_pid: 777,
            first_process: false,
            has_forked: true,
            signal_mask: 1 << 9,
            pending_signals: 1 << 16,
            ignored_signals: 1,
            clock: 123_456_789,
            fds: vec![(0, 0), (1, 7), (5, 12)],
            argv: vec![c"wc".into(), c"-l".into(), c"".into()],
            env: vec![c"PATH=/bin".into(), c"LINES=a\nb".into()],
        };
        assert_eq!(ExecState::decode(&state.encode()), Some(state.clone()));
        let no_env = ExecState { env: Vec::new(), ..state };
        assert_eq!(ExecState::decode(&no_env.encode()), Some(no_env));
        assert_eq!(ExecState::decode(b"1\x002\x00"), None);
    }
}
