//! Host memory that several guest mappings share: Horizon's shared memory objects, and the pages that transfer
//! memory and code memory map at a second address. Each is a memfd; a guest mapping of it is a `MAP_SHARED`
//! view placed inside the guest reservation, so every view sees every write at once, as on the console.

use super::{MapError, PAGE_SIZE};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// Pages that guest mappings can share. Cloning gives another handle to the same pages; the pages live while a
/// handle or a guest mapping of them does.
#[derive(Clone)]
pub struct SharedPages(Arc<SharedFile>);

struct SharedFile {
    /// Unique for the life of the process: layouts compare and mirror pages by it.
    id: u64,
    fd: OwnedFd,
    size: u64,
}

impl SharedPages {
    /// `size` zero-filled bytes (a whole number of pages); host memory is committed only where written.
    pub fn new(size: u64) -> Result<SharedPages, MapError> {
        static NEXT_ID: AtomicU64 = AtomicU64::new(1);
        if size == 0 || !size.is_multiple_of(PAGE_SIZE) {
            return Err(MapError::Unaligned { address: 0, size });
        }
        // SAFETY: the name is a NUL-terminated string; the call returns a new descriptor or -1.
        let fd = unsafe { libc::memfd_create(c"tandem-shared-memory".as_ptr(), libc::MFD_CLOEXEC) };
        if fd < 0 {
            return Err(host_error("memfd_create"));
        }
        // SAFETY: `fd` is a fresh descriptor that nothing else owns.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        let length = libc::off_t::try_from(size).map_err(|_| MapError::OutOfRange { address: 0, size })?;
        // SAFETY: plain system call on a descriptor this function owns.
        if unsafe { libc::ftruncate(fd.as_raw_fd(), length) } != 0 {
            return Err(host_error("ftruncate"));
        }
        Ok(SharedPages(Arc::new(SharedFile { id: NEXT_ID.fetch_add(1, Ordering::Relaxed), fd, size })))
    }

    pub fn size(&self) -> u64 {
        self.0.size
    }

    /// Identifies the pages (not the handle): equal for clones, different for any other `SharedPages`.
    pub fn id(&self) -> u64 {
        self.0.id
    }

    /// Reads `buf.len()` bytes at `offset`, wherever (and whether) the pages are mapped.
    pub fn read(&self, offset: u64, buf: &mut [u8]) -> Result<(), MapError> {
        self.check_span(offset, buf.len())?;
        let mut done = 0;
        while done < buf.len() {
            let rest = &mut buf[done..];
            // SAFETY: `rest` is writable for its length; the offset is inside the file (checked above).
            let read = unsafe {
                libc::pread(
                    self.0.fd.as_raw_fd(),
                    rest.as_mut_ptr().cast(),
                    rest.len(),
                    (offset as usize + done) as i64,
                )
            };
            if read <= 0 {
                return Err(host_error("pread"));
            }
            done += read as usize;
        }
        Ok(())
    }

    /// Writes `data` at `offset`: every guest mapping of the pages sees it.
    pub fn write(&self, offset: u64, data: &[u8]) -> Result<(), MapError> {
        self.check_span(offset, data.len())?;
        let mut done = 0;
        while done < data.len() {
            let rest = &data[done..];
            // SAFETY: `rest` is readable for its length; the offset is inside the file (checked above).
            let written = unsafe {
                libc::pwrite(self.0.fd.as_raw_fd(), rest.as_ptr().cast(), rest.len(), (offset as usize + done) as i64)
            };
            if written <= 0 {
                return Err(host_error("pwrite"));
            }
            done += written as usize;
        }
        Ok(())
    }

    /// Drops the contents of `size` bytes at `offset` (page aligned): they read as zero again, in every view,
    /// and hold no host memory.
    pub(super) fn discard(&self, offset: u64, size: u64) -> Result<(), MapError> {
        self.check_span(offset, size as usize)?;
        // SAFETY: plain system call on a descriptor this value owns; the span is inside the file.
        let result = unsafe {
            libc::fallocate(
                self.0.fd.as_raw_fd(),
                libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
                offset as libc::off_t,
                size as libc::off_t,
            )
        };
        if result != 0 {
            return Err(host_error("fallocate"));
        }
        Ok(())
    }

    /// The parts of `start..end` that hold data (the rest are holes, which read as zero), by SEEK_DATA and
    /// SEEK_HOLE.
    pub(super) fn data_extents(&self, start: u64, end: u64) -> Result<Vec<(u64, u64)>, MapError> {
        let mut extents = Vec::new();
        let mut at = start;
        while at < end {
            // SAFETY: plain system calls on a descriptor this value owns.
            let data = unsafe { libc::lseek(self.0.fd.as_raw_fd(), at as libc::off_t, libc::SEEK_DATA) };
            if data < 0 {
                // ENXIO: no data from `at` to the end of the file.
                return match std::io::Error::last_os_error().raw_os_error() {
                    Some(libc::ENXIO) => Ok(extents),
                    _ => Err(host_error("lseek(SEEK_DATA)")),
                };
            }
            let data = data as u64;
            if data >= end {
                break;
            }
            // SAFETY: as above.
            let hole = unsafe { libc::lseek(self.0.fd.as_raw_fd(), data as libc::off_t, libc::SEEK_HOLE) };
            if hole < 0 {
                return Err(host_error("lseek(SEEK_HOLE)"));
            }
            let hole = (hole as u64).min(end);
            extents.push((data, hole));
            at = hole;
        }
        Ok(extents)
    }

    pub(super) fn raw_fd(&self) -> i32 {
        self.0.fd.as_raw_fd()
    }

    fn check_span(&self, offset: u64, len: usize) -> Result<(), MapError> {
        match offset.checked_add(len as u64) {
            Some(end) if end <= self.0.size => Ok(()),
            _ => Err(MapError::OutOfRange { address: offset, size: len as u64 }),
        }
    }
}

impl std::fmt::Debug for SharedPages {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SharedPages#{}({:#x} bytes)", self.0.id, self.0.size)
    }
}

fn host_error(call: &str) -> MapError {
    MapError::Host(format!("{call}: {}", std::io::Error::last_os_error()))
}
