//! The guest's file descriptors, each standing for a host descriptor: the guest's 0, 1 and 2 are the host's
//! standard streams; every other one is a host descriptor the program opened through a system call and that
//! Tandem closes when the guest does (or when the process ends).

use std::collections::BTreeMap;
use std::os::fd::RawFd;

/// A guest descriptor's host descriptor, and whether Tandem owns (and so closes) it.
#[derive(Clone, Copy, Debug)]
struct HostFd {
    fd: RawFd,
    owned: bool,
}

#[derive(Debug)]
pub struct FileTable {
    fds: BTreeMap<i32, HostFd>,
}

/// Linux's default RLIMIT_NOFILE: the guest cannot open more.
pub const MAX_FDS: i32 = 1024;

impl FileTable {
    pub fn new() -> FileTable {
        let fds = (0..3).map(|fd| (fd, HostFd { fd, owned: false })).collect();
        FileTable { fds }
    }

    /// The host descriptor of guest descriptor `fd`.
    pub fn host(&self, fd: i64) -> Option<RawFd> {
        i32::try_from(fd).ok().and_then(|fd| self.fds.get(&fd)).map(|h| h.fd)
    }

    /// Adopts a host descriptor Tandem opened for the guest; returns the lowest free guest descriptor at or above
    /// `minimum`, or `None` (the caller closes `host`) when the table is full.
    pub fn insert(&mut self, host: RawFd, minimum: i32) -> Option<i32> {
        let guest = (minimum.max(0)..MAX_FDS).find(|fd| !self.fds.contains_key(fd))?;
        self.fds.insert(guest, HostFd { fd: host, owned: true });
        Some(guest)
    }

    /// Forgets guest descriptor `fd`, closing its host descriptor if Tandem owns it. `false` when it was not open.
    pub fn close(&mut self, fd: i64) -> bool {
        let Some(host) = i32::try_from(fd).ok().and_then(|fd| self.fds.remove(&fd)) else { return false };
        if host.owned {
            // SAFETY: Tandem opened this descriptor and no other guest descriptor refers to it (dup makes new ones).
            unsafe { libc::close(host.fd) };
        }
        true
    }

    /// The open guest descriptors from `first` to `last`, in order.
    pub fn open_in(&self, first: u32, last: u32) -> Vec<i32> {
        let first = i32::try_from(first).unwrap_or(i32::MAX);
        let last = i32::try_from(last).unwrap_or(i32::MAX);
        self.fds.range(first..=last).map(|(&fd, _)| fd).collect()
    }

    /// The table a program exec'd by another Tandem process starts with: the descriptors it carried over, owned
    /// (closed with the guest's close) except the host's standard streams, which Tandem's own messages use.
    pub fn inherited(fds: &[(i32, RawFd)]) -> FileTable {
        FileTable { fds: fds.iter().map(|&(guest, fd)| (guest, HostFd { fd, owned: fd > 2 })).collect() }
    }

    /// The descriptors an execve keeps, with their host descriptors: those not close-on-exec (a guest's
    /// O_CLOEXEC, F_SETFD and dup3 flags are its host descriptor's own).
    pub fn surviving_exec(&self) -> Vec<(i32, RawFd)> {
        self.fds
            .iter()
            // SAFETY: F_GETFD only reads the descriptor's flags.
            .filter(|(_, host)| unsafe { libc::fcntl(host.fd, libc::F_GETFD) } & libc::FD_CLOEXEC == 0)
            .map(|(&guest, host)| (guest, host.fd))
            .collect()
    }

    /// dup2/dup3: makes guest `new` refer to a duplicate of `host`.
    pub fn replace(&mut self, new: i32, host: RawFd) {
        self.close(i64::from(new));
        self.fds.insert(new, HostFd { fd: host, owned: true });
    }
}

impl Drop for FileTable {
    fn drop(&mut self) {
        for (_, host) in std::mem::take(&mut self.fds) {
            if host.owned {
                // SAFETY: as in `close`.
                unsafe { libc::close(host.fd) };
            }
        }
    }
}
