//! What Linux's execve does for an aarch64 ELF: map the program (and its interpreter), then build the initial stack
//! (argc, argv, envp, the auxiliary vector and the strings they point to), as the aarch64 ELF ABI lays it out.

use super::memory_map::{MemoryMap, PIE_BASE, STACK_SIZE, STACK_TOP, page_align_up};
use super::{LinuxError, LinuxOptions, MappedImage};
use crate::loader::elf::{self, Executable};
use crate::placement::{Contents, map_module};
use bytes::Bytes;
use std::path::Path;
use tandem_reference::memory::{GuestMemory, Perm};
use tandem_reference::state::CpuState;

// Auxiliary vector keys (include/uapi/linux/auxvec.h).
const AT_NULL: u64 = 0;
const AT_PHDR: u64 = 3;
const AT_PHENT: u64 = 4;
const AT_PHNUM: u64 = 5;
const AT_PAGESZ: u64 = 6;
const AT_BASE: u64 = 7;
const AT_FLAGS: u64 = 8;
const AT_ENTRY: u64 = 9;
const AT_UID: u64 = 11;
const AT_EUID: u64 = 12;
const AT_GID: u64 = 13;
const AT_EGID: u64 = 14;
const AT_PLATFORM: u64 = 15;
const AT_HWCAP: u64 = 16;
const AT_CLKTCK: u64 = 17;
const AT_SECURE: u64 = 23;
const AT_RANDOM: u64 = 25;
const AT_HWCAP2: u64 = 26;
const AT_EXECFN: u64 = 31;

/// AT_HWCAP for the Cortex-A78C (arch/arm64/include/uapi/asm/hwcap.h): FP, ASIMD, AES, PMULL, SHA1, SHA2, CRC32,
/// ATOMICS, FPHP, ASIMDHP, CPUID, ASIMDRDM, LRCPC, DCPOP, ASIMDDP.
const HWCAP: u64 = 1 << 0
    | 1 << 1
    | 1 << 3
    | 1 << 4
    | 1 << 5
    | 1 << 6
    | 1 << 7
    | 1 << 8
    | 1 << 9
    | 1 << 10
    | 1 << 11
    | 1 << 12
    | 1 << 15
    | 1 << 16
    | 1 << 20;
const PROGRAM_HEADER_SIZE: u64 = 56;
/// The bytes AT_RANDOM points to: fixed, so that runs repeat (glibc seeds its stack protector with them).
const AT_RANDOM_BYTES: [u8; 16] = *b"tandem-at-random";

pub struct Loaded {
    pub cpu: CpuState,
    pub images: Vec<MappedImage>,
}

pub fn load(
    path: &Path,
    options: &LinuxOptions,
    memory: &mut GuestMemory,
    map: &mut MemoryMap,
) -> Result<Loaded, LinuxError> {
    let label = path.display().to_string();
    let program = read_executable(path)?;
    let base = program.module.link_base.unwrap_or(PIE_BASE);
    let program_image = place(memory, &program, base, &label)?;
    map.set_brk_start(page_align_up(base + program.module.image_size()).unwrap_or(base));
    let mut images = vec![program_image];
    let program_entry = base + program.module.entry_offset();

    let (entry, interpreter_base) = match &program.interpreter {
        None => (program_entry, 0),
        Some(interpreter) => {
            let sysroot = options
                .sysroot
                .as_ref()
                .ok_or_else(|| LinuxError::NeedsSysroot { program: label.clone(), interpreter: interpreter.clone() })?;
            let interpreter_path = sysroot.join(interpreter.trim_start_matches('/'));
            let loaded = read_executable(&interpreter_path)?;
            let size = loaded.module.image_size();
            let interpreter_base = map
                .map_anywhere(memory, 0, size, Perm::NONE)
                .map_err(|_| LinuxError::Layout(format!("no room for {interpreter}")))?;
            // Reserved above to find the place; mapped for real page by page.
            super::memory_map::unmap_range(memory, interpreter_base, size);
            images.push(place(memory, &loaded, interpreter_base, interpreter)?);
            (interpreter_base + loaded.module.entry_offset(), interpreter_base)
        }
    };

    memory.map(STACK_TOP - STACK_SIZE, STACK_SIZE, Perm::RW)?;
    let auxv = [
        (AT_PHDR, base + program.program_headers_offset),
        (AT_PHENT, PROGRAM_HEADER_SIZE),
        (AT_PHNUM, u64::from(program.program_header_count)),
        (AT_PAGESZ, 0x1000),
        (AT_BASE, interpreter_base),
        (AT_FLAGS, 0),
        (AT_ENTRY, program_entry),
        (AT_UID, u64::from(host_ids().0)),
        (AT_EUID, u64::from(host_ids().0)),
        (AT_GID, u64::from(host_ids().1)),
        (AT_EGID, u64::from(host_ids().1)),
        (AT_HWCAP, HWCAP),
        (AT_HWCAP2, 0),
        (AT_CLKTCK, 100),
        (AT_SECURE, 0),
    ];
    let sp = build_stack(memory, &options.args, &options.env, &auxv)
        .map_err(|_| LinuxError::Layout("the arguments and environment do not fit in the initial stack".into()))?;
    let cpu = CpuState { pc: entry, sp, ..CpuState::default() };
    tracing::debug!(entry = format_args!("{entry:#x}"), sp = format_args!("{sp:#x}"), "linux process created");
    Ok(Loaded { cpu, images })
}

/// What Linux's execve checks of an aarch64 program before the caller is replaced: that it is an executable it
/// can load (ENOEXEC otherwise), and that its ELF interpreter, if it names one, is there (ENOENT otherwise, as
/// execve(2) says; without a sysroot none is).
pub fn check_loadable(path: &Path, sysroot: Option<&Path>) -> Result<(), i32> {
    let program = read_executable(path).map_err(|_| libc::ENOEXEC)?;
    match &program.interpreter {
        Some(interpreter) => {
            let sysroot = sysroot.ok_or(libc::ENOENT)?;
            read_executable(&sysroot.join(interpreter.trim_start_matches('/'))).map(drop).map_err(|_| libc::ENOENT)
        }
        None => Ok(()),
    }
}

fn read_executable(path: &Path) -> Result<Executable, LinuxError> {
    let io_error = |error| LinuxError::Io { path: path.into(), error };
    let file = std::fs::File::open(path).map_err(io_error)?;
    // Mapped, the pages come from the page cache as the segments are copied into guest memory: reading the whole
    // file first (and copying its segments out) costs more than the rest of a small program's start. What cannot
    // be mapped (an empty file, a pipe) is read.
    // SAFETY: the map is only read. As with every mapped input (and qemu-user's own mapped executables), another
    // process that truncates the file while it is being loaded makes the host raise SIGBUS.
    let bytes = match unsafe { memmap2::Mmap::map(&file) } {
        Ok(map) => Bytes::from_owner(map),
        Err(_) => Bytes::from(std::fs::read(path).map_err(io_error)?),
    };
    Ok(elf::read_executable(&path.display().to_string(), &bytes)?)
}

fn place(memory: &mut GuestMemory, executable: &Executable, base: u64, name: &str) -> Result<MappedImage, LinuxError> {
    let module = &executable.module;
    let size = module.image_size();
    if base.checked_add(size).is_none_or(|end| end > super::memory_map::MMAP_TOP) {
        return Err(LinuxError::Layout(format!(
            "{name} is linked at {base:#x}, outside the 39-bit address space Tandem emulates"
        )));
    }
    map_module(memory, module, base, Contents::Segments)?;
    let short = Path::new(name).file_name().map_or(name.to_string(), |n| n.to_string_lossy().into_owned());
    Ok(MappedImage { name: short, base, size })
}

fn host_ids() -> (u32, u32) {
    // SAFETY: getuid and getgid have no preconditions and cannot fail.
    unsafe { (libc::getuid(), libc::getgid()) }
}

/// Writes the initial stack below STACK_TOP; returns the 16-aligned SP that points at argc.
fn build_stack(
    memory: &GuestMemory,
    args: &[String],
    env: &[String],
    auxv: &[(u64, u64)],
) -> Result<u64, tandem_reference::memory::MemoryFault> {
    // Strings first, at the top: each argument, each environment entry, the platform, the random bytes.
    let mut cursor = STACK_TOP;
    let mut push_bytes = |bytes: &[u8]| -> Result<u64, tandem_reference::memory::MemoryFault> {
        cursor -= bytes.len() as u64;
        memory.write_privileged(cursor, bytes)?;
        Ok(cursor)
    };
    let c_string = |s: &str| [s.as_bytes(), b"\0"].concat();
    let arg_pointers: Vec<u64> = args.iter().map(|a| push_bytes(&c_string(a))).collect::<Result<_, _>>()?;
    let env_pointers: Vec<u64> = env.iter().map(|e| push_bytes(&c_string(e))).collect::<Result<_, _>>()?;
    let execfn = arg_pointers.first().copied().unwrap_or(0);
    let platform = push_bytes(b"aarch64\0")?;
    let random = push_bytes(&AT_RANDOM_BYTES)?;

    let mut auxv: Vec<(u64, u64)> = auxv.to_vec();
    auxv.extend([(AT_PLATFORM, platform), (AT_RANDOM, random), (AT_EXECFN, execfn), (AT_NULL, 0)]);
    let words: Vec<u64> = std::iter::once(args.len() as u64)
        .chain(arg_pointers.iter().copied())
        .chain([0])
        .chain(env_pointers.iter().copied())
        .chain([0])
        .chain(auxv.iter().flat_map(|&(key, value)| [key, value]))
        .collect();
    let sp = (cursor - words.len() as u64 * 8) & !15;
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    memory.write_privileged(sp, &bytes)?;
    Ok(sp)
}
