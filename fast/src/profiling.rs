//! Naming compiled blocks for `perf`, when `TANDEM_PERF_MAP` asks for it.
//!
//! - `TANDEM_PERF_MAP=1`: `/tmp/perf-PID.map`, one line per block (`perf report` shows `guest_ADDRESS`).
//! - `TANDEM_PERF_MAP=jitdump`: also `/tmp/jit-PID.dump` in perf's jitdump format, which carries each block's
//!   host code, so that `perf annotate` shows the instructions: `perf record -k mono ...`, then
//!   `perf inject --jit -i perf.data -o perf.jit.data` and `perf annotate -i perf.jit.data`.

use std::fs::File;
use std::io::Write;

/// jitdump's header and record layout (tools/perf/Documentation/jitdump-specification.txt in Linux).
const JITDUMP_MAGIC: u32 = 0x4A69_5444;
const JITDUMP_VERSION: u32 = 1;
const JITDUMP_HEADER_SIZE: u32 = 40;
const ELF_MACHINE_X86_64: u32 = 62;
const JIT_CODE_LOAD: u32 = 0;
/// id, total size, timestamp; then pid, tid, vma, code address, code size, code index.
const CODE_LOAD_FIXED_SIZE: usize = 4 + 4 + 8 + 4 + 4 + 8 + 8 + 8 + 8;

pub(crate) struct PerfOutput {
    map: File,
    jitdump: Option<JitDump>,
}

struct JitDump {
    file: File,
    /// perf finds the dump through this executable mapping of it; it lives as long as the engine.
    marker: *mut libc::c_void,
    next_index: u64,
}

impl PerfOutput {
    pub(crate) fn from_environment() -> Option<PerfOutput> {
        let setting = std::env::var("TANDEM_PERF_MAP").ok()?;
        let pid = std::process::id();
        let map = open_append(&format!("/tmp/perf-{pid}.map"))?;
        let jitdump = if setting == "jitdump" { JitDump::create(&format!("/tmp/jit-{pid}.dump"), pid) } else { None };
        Some(PerfOutput { map, jitdump })
    }

    pub(crate) fn name_block(&mut self, code: &[u8], pc: u64) {
        let start = code.as_ptr() as u64;
        let name = format!("guest_{pc:x}");
        if let Err(error) = writeln!(self.map, "{start:x} {:x} {name}", code.len()) {
            tracing::warn!("perf map: {error}");
        }
        if let Some(jitdump) = &mut self.jitdump
            && let Err(error) = jitdump.code_load(code, &name)
        {
            tracing::warn!("jitdump: {error}");
        }
    }
}

fn open_append(path: &str) -> Option<File> {
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .inspect_err(|error| tracing::warn!("{path}: {error}"))
        .ok()
}

/// CLOCK_MONOTONIC in nanoseconds: the clock `perf record -k mono` stamps samples with.
fn monotonic_nanoseconds() -> u64 {
    let mut now = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes the timespec it is given.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut now) };
    now.tv_sec as u64 * 1_000_000_000 + now.tv_nsec as u64
}

impl JitDump {
    fn create(path: &str, pid: u32) -> Option<JitDump> {
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(true)
            .read(true)
            .write(true)
            .open(path)
            .inspect_err(|error| tracing::warn!("{path}: {error}"))
            .ok()?;
        let mut header = Vec::with_capacity(JITDUMP_HEADER_SIZE as usize);
        for word in [JITDUMP_MAGIC, JITDUMP_VERSION, JITDUMP_HEADER_SIZE, ELF_MACHINE_X86_64, 0, pid] {
            header.extend_from_slice(&word.to_le_bytes());
        }
        header.extend_from_slice(&monotonic_nanoseconds().to_le_bytes());
        header.extend_from_slice(&0u64.to_le_bytes());
        file.write_all(&header).inspect_err(|error| tracing::warn!("{path}: {error}")).ok()?;
        use std::os::fd::AsRawFd;
        // SAFETY: maps one page of a file this function opened; the mapping is only ever unmapped in Drop.
        let marker = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                4096,
                libc::PROT_READ | libc::PROT_EXEC,
                libc::MAP_PRIVATE,
                file.as_raw_fd(),
                0,
            )
        };
        if marker == libc::MAP_FAILED {
            tracing::warn!("{path}: mapping it for perf failed");
            return None;
        }
        Some(JitDump { file, marker, next_index: 0 })
    }

    fn code_load(&mut self, code: &[u8], name: &str) -> std::io::Result<()> {
        let total = CODE_LOAD_FIXED_SIZE + name.len() + 1 + code.len();
        let mut record = Vec::with_capacity(total);
        record.extend_from_slice(&JIT_CODE_LOAD.to_le_bytes());
        record.extend_from_slice(&(total as u32).to_le_bytes());
        record.extend_from_slice(&monotonic_nanoseconds().to_le_bytes());
        record.extend_from_slice(&std::process::id().to_le_bytes());
        // SAFETY: gettid has no preconditions.
        record.extend_from_slice(&(unsafe { libc::gettid() } as u32).to_le_bytes());
        let start = code.as_ptr() as u64;
        for field in [start, start, code.len() as u64, self.next_index] {
            record.extend_from_slice(&field.to_le_bytes());
        }
        record.extend_from_slice(name.as_bytes());
        record.push(0);
        record.extend_from_slice(code);
        self.next_index += 1;
        self.file.write_all(&record)
    }
}

impl Drop for JitDump {
    fn drop(&mut self) {
        // SAFETY: `marker` is the one-page mapping `create` made.
        unsafe { libc::munmap(self.marker, 4096) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u32_at(bytes: &[u8], at: usize) -> u32 {
        u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap())
    }

    fn u64_at(bytes: &[u8], at: usize) -> u64 {
        u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap())
    }

    /// The dump reads back as the jitdump specification lays it out: the header, then one JIT_CODE_LOAD record
    /// per block whose sizes chain to the end of the file, each with its address, name and code.
    #[test]
    fn jitdump_records_follow_the_specification() {
        let path = std::env::temp_dir().join(format!("tandem-jitdump-test-{}.dump", std::process::id()));
        let path = path.to_str().unwrap();
        let blocks: [(&[u8], &str); 2] = [(&[0x90, 0xc3], "guest_400000"), (&[0xcc; 5], "guest_400010")];
        {
            let mut dump = JitDump::create(path, 77).expect("creating the dump");
            for (code, name) in blocks {
                dump.code_load(code, name).unwrap();
            }
        }
        let bytes = std::fs::read(path).unwrap();
        std::fs::remove_file(path).unwrap();
        assert_eq!(u32_at(&bytes, 0), 0x4A69_5444, "magic");
        assert_eq!((u32_at(&bytes, 4), u32_at(&bytes, 8), u32_at(&bytes, 12)), (1, 40, 62), "version, size, machine");
        assert_eq!(u32_at(&bytes, 20), 77, "pid");
        let mut at = 40;
        for (index, (code, name)) in blocks.into_iter().enumerate() {
            assert_eq!(u32_at(&bytes, at), 0, "JIT_CODE_LOAD");
            let total = u32_at(&bytes, at + 4) as usize;
            let (vma, code_address, size) = (u64_at(&bytes, at + 24), u64_at(&bytes, at + 32), u64_at(&bytes, at + 40));
            assert_eq!((vma, code_address, size as usize), (code.as_ptr() as u64, code.as_ptr() as u64, code.len()));
            assert_eq!(u64_at(&bytes, at + 48), index as u64, "code index");
            let name_end = at + 56 + name.len();
            assert_eq!(&bytes[at + 56..name_end], name.as_bytes());
            assert_eq!(bytes[name_end], 0);
            assert_eq!(&bytes[name_end + 1..at + total], code);
            at += total;
        }
        assert_eq!(at, bytes.len(), "the records end where the file does");
    }
}
