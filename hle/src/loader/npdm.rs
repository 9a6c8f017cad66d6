//! NPDM (main.npdm), a program's metadata: its main thread, address space, and what it may do (ACI0, with the ACID
//! that bounds it).
//!
//! Layout from switchbrew's "NPDM" page and Atmosphère's `ldr::Npdm`/`Aci`/`Acid`; the region checks are those of
//! Atmosphère's `ldr_meta.cpp`, the kernel capability bit fields those of Mesosphère's `KCapabilities`.
//!
//! META (0x80 bytes): magic "META" at 0x0, signature key generation 0x4, flags 0xC (bit 0 64-bit instructions,
//! bits 1-3 address space type), main thread priority 0xE, main thread core 0xF, system resource size 0x14,
//! version 0x18, main thread stack size 0x1C, name 0x20 (0x10 bytes), product code 0x30 (0x10 bytes), then
//! ACI0 offset/size at 0x70/0x74 and ACID offset/size at 0x78/0x7C.
//!
//! ACI0 (0x40 bytes): magic "ACI0", program id 0x10, then offset/size pairs (relative to ACI0) of the FS access
//! header (0x20), service access control (0x28) and kernel capabilities (0x30).
//!
//! ACID (0x240 bytes): RSA-2048 signature 0x0, public key 0x100, magic "ACID" 0x200, signed size 0x204, version
//! 0x208, flags 0x20C, program id min/max 0x210/0x218, then the same three offset/size pairs at 0x220.

use super::LoadError;
use super::Problem;
use super::bytes::Reader;

const META: &str = "NPDM META";
const ACI0: &str = "NPDM ACI0";
const ACID: &str = "NPDM ACID";
const FS_ACCESS: &str = "NPDM ACI0 FS access header";
const SERVICES: &str = "NPDM ACI0 service access control";
const KERNEL: &str = "NPDM ACI0 kernel capabilities";

const META_SIZE: u64 = 0x80;
const ACI0_HEADER_SIZE: u64 = 0x40;
const ACID_HEADER_SIZE: u64 = 0x240;
const FS_ACCESS_HEADER_SIZE: u64 = 0x1C;

/// A parsed main.npdm.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Npdm {
    /// Which key signs the ACID (0 or 1 on retail).
    pub signature_key_generation: u32,
    /// The raw META flags byte; [`Npdm::is_64bit`] and [`Npdm::address_space`] decode bits 0-3.
    pub flags: u8,
    /// Flag bit 0: the program runs AArch64 code.
    pub is_64bit: bool,
    pub address_space: AddressSpace,
    /// 0 (highest) to 63 (lowest).
    pub main_thread_priority: u8,
    /// The core the main thread starts on.
    pub main_thread_core: u8,
    /// Memory reserved for the process's kernel objects (0 = none).
    pub system_resource_size: u32,
    pub version: u32,
    pub main_thread_stack_size: u32,
    /// The program's name, usually "Application".
    pub name: String,
    pub product_code: String,
    pub aci: Aci,
    pub acid: Acid,
}

/// Address space type, META flags bits 1-3.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AddressSpace {
    AddressSpace32Bit,
    /// The 36-bit address space of 1.0.0.
    AddressSpace64BitOld,
    AddressSpace32BitNoReserved,
    /// The 39-bit address space.
    AddressSpace64Bit,
}

/// ACI0: the access control the program runs with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Aci {
    /// The program (title) id.
    pub program_id: u64,
    /// `None` when the ACI0 has no FS access header.
    pub fs_access: Option<FsAccess>,
    pub services: Vec<ServiceAccess>,
    pub kernel: KernelCapabilities,
}

/// The ACI0's FS access header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FsAccess {
    pub version: u8,
    /// FS permission bits (switchbrew "FS Access Rights").
    pub permissions: u64,
    /// The whole header, content and save data owner ids included.
    pub raw: Vec<u8>,
}

/// A service the program may use or, when `is_server`, register.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServiceAccess {
    /// A name such as "fsp-srv"; may end in a wildcard '*'.
    pub name: String,
    pub is_server: bool,
}

/// ACID: the signed bounds of what an ACI0 may ask for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Acid {
    /// The RSA-2048 signature bytes are not all zero (homebrew leaves them zero). The signature is not verified.
    pub signature_present: bool,
    pub version: u8,
    /// Bit 0 production, bit 1 unqualified approval, bits 2-5 memory pool partition.
    pub flags: u32,
    pub program_id_min: u64,
    pub program_id_max: u64,
}

/// The kernel capabilities of an ACI0, decoded.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KernelCapabilities {
    /// From the EnableSystemCalls descriptors.
    pub allowed_svcs: SvcSet,
    /// From the ThreadInfo descriptor, if any.
    pub thread_info: Option<ThreadInfo>,
    /// Every other descriptor, in file order (padding left out).
    pub other: Vec<Capability>,
}

/// The SVCs a program may call, ids 0 to 0xBF.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SvcSet([u64; 3]);

impl SvcSet {
    /// The number of SVC ids a set can hold (8 descriptors of 24 bits).
    pub const COUNT: u32 = 0xC0;

    /// Whether the program may call SVC `id`.
    pub fn allows(&self, id: u32) -> bool {
        id < Self::COUNT && self.0[(id / 64) as usize] & (1 << (id % 64)) != 0
    }

    /// The allowed ids, in increasing order.
    pub fn ids(&self) -> impl Iterator<Item = u32> + '_ {
        (0..Self::COUNT).filter(|&id| self.allows(id))
    }

    fn insert(&mut self, id: u32) {
        self.0[(id / 64) as usize] |= 1 << (id % 64);
    }
}

/// The ThreadInfo descriptor. Horizon priorities run from 0 (highest) to 63 (lowest).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ThreadInfo {
    /// The numerically smallest priority the program may use (bits 10-15).
    pub highest_priority: u8,
    /// The numerically largest priority the program may use (bits 4-9).
    pub lowest_priority: u8,
    pub min_core: u8,
    pub max_core: u8,
}

/// A kernel capability descriptor other than EnableSystemCalls and ThreadInfo.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Capability {
    /// Two descriptors: physical memory to map.
    MapRange {
        address: u64,
        size: u64,
        read_only: bool,
        normal: bool,
    },
    /// One I/O page to map.
    MapPage {
        address: u64,
    },
    /// Fixed regions to map, undecoded.
    MapRegion {
        raw: u32,
    },
    /// Two interrupt ids (0x3FF = none).
    InterruptPair {
        interrupts: [u16; 2],
    },
    ApplicationType(u8),
    KernelVersion {
        major: u16,
        minor: u8,
    },
    HandleTableSize(u16),
    DebugFlags {
        allow_debug: bool,
        force_debug_prod: bool,
        force_debug: bool,
    },
    /// A descriptor of a type this parser does not know.
    Unknown {
        raw: u32,
    },
}

impl Capability {
    /// The descriptor type's name, as switchbrew writes it.
    pub fn type_name(&self) -> &'static str {
        match self {
            Self::MapRange { .. } => "MapRange",
            Self::MapPage { .. } => "MapPage",
            Self::MapRegion { .. } => "MapRegion",
            Self::InterruptPair { .. } => "InterruptPair",
            Self::ApplicationType(_) => "ApplicationType",
            Self::KernelVersion { .. } => "KernelVersion",
            Self::HandleTableSize(_) => "HandleTableSize",
            Self::DebugFlags { .. } => "DebugFlags",
            Self::Unknown { .. } => "Unknown",
        }
    }
}

/// Parses a main.npdm. `file` labels it in errors.
pub fn read(file: &str, bytes: &[u8]) -> Result<Npdm, LoadError> {
    let r = Reader::new(file, bytes);
    r.expect_magic(0, b"META", META)?;
    r.bytes(0, META_SIZE, META)?;
    let flags = r.u8(0xC, META)?;
    let aci = r.sub(0x70, r.u32(0x70, META)?.into(), r.u32(0x74, META)?.into(), ACI0)?;
    let acid = r.sub(0x78, r.u32(0x78, META)?.into(), r.u32(0x7C, META)?.into(), ACID)?;
    let npdm = Npdm {
        signature_key_generation: r.u32(0x4, META)?,
        flags,
        is_64bit: flags & 1 != 0,
        address_space: address_space(&r, flags)?,
        main_thread_priority: r.u8(0xE, META)?,
        main_thread_core: r.u8(0xF, META)?,
        system_resource_size: r.u32(0x14, META)?,
        version: r.u32(0x18, META)?,
        main_thread_stack_size: r.u32(0x1C, META)?,
        name: r.padded_str(0x20, 0x10, META)?,
        product_code: r.padded_str(0x30, 0x10, META)?,
        aci: read_aci(&aci)?,
        acid: read_acid(&acid)?,
    };
    tracing::debug!(file, program_id = npdm.aci.program_id, "loaded NPDM");
    Ok(npdm)
}

/// Decodes the address space type, META flags bits 1-3.
fn address_space(r: &Reader, flags: u8) -> Result<AddressSpace, LoadError> {
    match (flags >> 1) & 7 {
        0 => Ok(AddressSpace::AddressSpace32Bit),
        1 => Ok(AddressSpace::AddressSpace64BitOld),
        2 => Ok(AddressSpace::AddressSpace32BitNoReserved),
        3 => Ok(AddressSpace::AddressSpace64Bit),
        other => {
            let problem =
                Problem::BadValue { value: other.into(), expected: "an address space type from 0 to 3".into() };
            Err(r.error(META, 0xC, problem))
        }
    }
}

/// Checks that a region is at least as large as its header (Atmosphère's `ValidateSubregion` minimum size).
fn check_min_size(r: &Reader, size: u64, structure: &str) -> Result<(), LoadError> {
    if r.len() < size {
        let problem = Problem::BadValue { value: r.len(), expected: format!("a size of at least {size:#x}") };
        return Err(r.error(structure, 0, problem));
    }
    Ok(())
}

/// The region an (offset, size) pair at `field` describes, relative to `r`.
fn subregion<'a>(r: &Reader<'a>, field: u64, structure: &str) -> Result<Reader<'a>, LoadError> {
    let (offset, size) = (r.u32(field, structure)?.into(), r.u32(field + 4, structure)?.into());
    r.sub(field, offset, size, structure)
}

fn read_aci(r: &Reader) -> Result<Aci, LoadError> {
    check_min_size(r, ACI0_HEADER_SIZE, ACI0)?;
    r.expect_magic(0, b"ACI0", ACI0)?;
    Ok(Aci {
        program_id: r.u64(0x10, ACI0)?,
        fs_access: read_fs_access(&subregion(r, 0x20, ACI0)?)?,
        services: read_services(&subregion(r, 0x28, ACI0)?)?,
        kernel: read_kernel_capabilities(&subregion(r, 0x30, ACI0)?)?,
    })
}

fn read_acid(r: &Reader) -> Result<Acid, LoadError> {
    check_min_size(r, ACID_HEADER_SIZE, ACID)?;
    r.expect_magic(0x200, b"ACID", ACID)?;
    Ok(Acid {
        signature_present: r.bytes(0, 0x100, ACID)?.iter().any(|&byte| byte != 0),
        version: r.u8(0x208, ACID)?,
        flags: r.u32(0x20C, ACID)?,
        program_id_min: r.u64(0x210, ACID)?,
        program_id_max: r.u64(0x218, ACID)?,
    })
}

fn read_fs_access(r: &Reader) -> Result<Option<FsAccess>, LoadError> {
    if r.len() == 0 {
        return Ok(None);
    }
    let raw = r.bytes(0, r.len(), FS_ACCESS)?;
    r.bytes(0, FS_ACCESS_HEADER_SIZE, FS_ACCESS)?;
    Ok(Some(FsAccess { version: r.u8(0, FS_ACCESS)?, permissions: r.u64(4, FS_ACCESS)?, raw: raw.to_vec() }))
}

/// Service access control: entries of one control byte (bits 0-2: name length - 1, bit 7: server) and the name.
fn read_services(r: &Reader) -> Result<Vec<ServiceAccess>, LoadError> {
    let mut services = Vec::new();
    let mut offset = 0;
    while offset < r.len() {
        let control = r.u8(offset, SERVICES)?;
        let name = r.bytes(offset + 1, u64::from(control & 7) + 1, SERVICES)?;
        let name = String::from_utf8(name.to_vec()).map_err(|_| r.error(SERVICES, offset + 1, Problem::NotUtf8))?;
        services.push(ServiceAccess { name, is_server: control & 0x80 != 0 });
        offset += 2 + u64::from(control & 7);
    }
    Ok(services)
}

/// Descriptor types, named by the number of low one bits that mark them (Mesosphère `CapabilityType`).
mod descriptor {
    pub(super) const THREAD_INFO: u32 = 3;
    pub(super) const ENABLE_SYSTEM_CALLS: u32 = 4;
    pub(super) const MAP_RANGE: u32 = 6;
    pub(super) const MAP_PAGE: u32 = 7;
    pub(super) const MAP_REGION: u32 = 10;
    pub(super) const INTERRUPT_PAIR: u32 = 11;
    pub(super) const APPLICATION_TYPE: u32 = 13;
    pub(super) const KERNEL_VERSION: u32 = 14;
    pub(super) const HANDLE_TABLE_SIZE: u32 = 15;
    pub(super) const DEBUG_FLAGS: u32 = 16;
    pub(super) const PADDING: u32 = 32;
}

/// `count` bits of `raw` from bit `low`.
fn bits(raw: u32, low: u32, count: u32) -> u32 {
    (raw >> low) & ((1 << count) - 1)
}

fn read_kernel_capabilities(r: &Reader) -> Result<KernelCapabilities, LoadError> {
    if !r.len().is_multiple_of(4) {
        return Err(r.error(KERNEL, 0, Problem::Misaligned { value: r.len(), alignment: 4 }));
    }
    let mut capabilities = KernelCapabilities::default();
    let mut offset = 0;
    while offset < r.len() {
        let raw = r.u32(offset, KERNEL)?;
        match raw.trailing_ones() {
            descriptor::THREAD_INFO => {
                if capabilities.thread_info.is_some() {
                    return Err(r.error(
                        KERNEL,
                        offset,
                        Problem::Inconsistent("a second ThreadInfo descriptor".into()),
                    ));
                }
                capabilities.thread_info = Some(ThreadInfo {
                    lowest_priority: bits(raw, 4, 6) as u8,
                    highest_priority: bits(raw, 10, 6) as u8,
                    min_core: bits(raw, 16, 8) as u8,
                    max_core: bits(raw, 24, 8) as u8,
                });
            }
            descriptor::ENABLE_SYSTEM_CALLS => {
                let (mask, index) = (bits(raw, 5, 24), bits(raw, 29, 3));
                for bit in (0..24).filter(|bit| mask & (1 << bit) != 0) {
                    capabilities.allowed_svcs.insert(index * 24 + bit);
                }
            }
            descriptor::MAP_RANGE => {
                let size_offset = offset + 4;
                let size_raw = r.u32(size_offset, KERNEL)?;
                if size_raw.trailing_ones() != descriptor::MAP_RANGE {
                    let problem =
                        Problem::BadValue { value: size_raw.into(), expected: "the MapRange size descriptor".into() };
                    return Err(r.error(KERNEL, size_offset, problem));
                }
                let page = u64::from(bits(raw, 7, 24)) | u64::from(bits(size_raw, 27, 4)) << 24;
                capabilities.other.push(Capability::MapRange {
                    address: page << 12,
                    size: u64::from(bits(size_raw, 7, 20)) << 12,
                    read_only: raw >> 31 != 0,
                    normal: size_raw >> 31 != 0,
                });
                offset = size_offset;
            }
            descriptor::PADDING => {}
            0 => {
                let problem =
                    Problem::BadValue { value: raw.into(), expected: "a descriptor type (low bits set)".into() };
                return Err(r.error(KERNEL, offset, problem));
            }
            kind => capabilities.other.push(decode_simple(kind, raw)),
        }
        offset += 4;
    }
    Ok(capabilities)
}

/// Decodes a single-word descriptor of type `kind` (its count of low one bits).
fn decode_simple(kind: u32, raw: u32) -> Capability {
    let flag = |bit: u32| raw & (1 << bit) != 0;
    match kind {
        descriptor::MAP_PAGE => Capability::MapPage { address: u64::from(bits(raw, 8, 24)) << 12 },
        descriptor::MAP_REGION => Capability::MapRegion { raw },
        descriptor::INTERRUPT_PAIR => {
            Capability::InterruptPair { interrupts: [bits(raw, 12, 10) as u16, bits(raw, 22, 10) as u16] }
        }
        descriptor::APPLICATION_TYPE => Capability::ApplicationType(bits(raw, 14, 3) as u8),
        descriptor::KERNEL_VERSION => {
            Capability::KernelVersion { major: bits(raw, 19, 13) as u16, minor: bits(raw, 15, 4) as u8 }
        }
        descriptor::HANDLE_TABLE_SIZE => Capability::HandleTableSize(bits(raw, 16, 10) as u16),
        descriptor::DEBUG_FLAGS => {
            Capability::DebugFlags { allow_debug: flag(17), force_debug_prod: flag(18), force_debug: flag(19) }
        }
        _ => Capability::Unknown { raw },
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::loader::Magic;
    use crate::loader::bytes::ByteWriter;
    use crate::loader::test_support::{Case, check_cases, edits, get_u32, mutate, put_u32};

    const ACID_AT: u64 = 0x80;
    const ACID_SIZE: u64 = 0x240;
    const ACI_AT: u64 = ACID_AT + ACID_SIZE;
    const FS_ACCESS_SIZE: u32 = 0x1C;
    /// Where the sample's service access control and kernel capabilities start (the builder aligns the latter).
    const SAC_AT: u64 = ACI_AT + 0x40 + FS_ACCESS_SIZE as u64;
    const KAC_AT: u64 = ACI_AT + 0x80;

    /// Kernel descriptors written from the bit layouts on switchbrew's "NPDM" page, with their meaning:
    const THREAD_INFO: u32 = 0b0111 | 59 << 4 | 28 << 10 | 2 << 24; // priorities 28..=59, cores 0..=2
    const SVCS_01_17: u32 = 0b1111 | (1 << 1 | 1 << 23) << 5; // index 0: ids 0x01 and 0x17
    const SVC_7F: u32 = 0b1111 | (1 << 7) << 5 | 5 << 29; // index 5, bit 7: id 5 * 24 + 7 = 0x7F
    const SVC_BF: u32 = 0xF000_000F; // index 7, bit 23: id 0xBF
    /// 0x70019000, 3 pages, read-only, I/O (bit 31 of the size descriptor clear).
    const MAP_RANGE: [u32; 2] = [0b11_1111 | 0x70019 << 7 | 1 << 31, 0b11_1111 | 3 << 7];
    const MAP_PAGE: u32 = 0b111_1111 | 0x50041 << 8; // page 0x50041000
    const INTERRUPTS: u32 = 0x7FF | 0x20 << 12 | 0x3FF << 22; // irq 0x20 and none
    const APPLICATION_TYPE: u32 = 0x1FFF | 1 << 14;
    const KERNEL_VERSION: u32 = 0x3FFF | 3 << 15 | 9 << 19; // 9.3
    const HANDLE_TABLE: u32 = 0x7FFF | 512 << 16;
    const DEBUG_FLAGS: u32 = 0xFFFF | 1 << 17;
    const PADDING: u32 = u32::MAX;

    fn sample_kernel_descriptors() -> Vec<u32> {
        vec![
            THREAD_INFO,
            SVCS_01_17,
            SVC_7F,
            SVC_BF,
            MAP_RANGE[0],
            MAP_RANGE[1],
            MAP_PAGE,
            INTERRUPTS,
            APPLICATION_TYPE,
            KERNEL_VERSION,
            HANDLE_TABLE,
            DEBUG_FLAGS,
            PADDING,
        ]
    }

    /// Builds an NPDM: META, then ACID (empty access control), then ACI0 with an FS access header, the given
    /// services (name, is_server) and kernel descriptors.
    pub(crate) fn build(services: &[(&str, bool)], kernel: &[u32]) -> Vec<u8> {
        let mut service_bytes = Vec::new();
        for (name, is_server) in services {
            service_bytes.push((name.len() as u8 - 1) | if *is_server { 0x80 } else { 0 });
            service_bytes.extend_from_slice(name.as_bytes());
        }
        let sac_offset = 0x40 + FS_ACCESS_SIZE;
        let kac_offset = (sac_offset + service_bytes.len() as u32).next_multiple_of(16);
        let aci_size = kac_offset + 4 * kernel.len() as u32;

        let mut w = ByteWriter::default();
        w.bytes(b"META").u32(1).u32(0).u8(0b0111).u8(0).u8(44).u8(0).u32(0).u32(0x20_0000).u32(5).u32(0x10_0000);
        w.padded(b"Application", 0x10).padded(b"", 0x10).pad_to(0x70);
        w.u32(ACI_AT as u32).u32(aci_size).u32(ACID_AT as u32).u32(ACID_SIZE as u32);

        w.pad_to(ACID_AT as usize + 0x100); // a zero signature: homebrew
        w.bytes(&[0xAB; 0x100]).bytes(b"ACID").u32(0x240).u8(1).pad_to(ACID_AT as usize + 0x20C);
        w.u32(1).u64(0x0100_0000_0000_0000).u64(0x0100_0000_0000_0FFF);
        w.u32(0x240).u32(0).u32(0x240).u32(0).u32(0x240).u32(0).pad_to((ACID_AT + ACID_SIZE) as usize);

        w.bytes(b"ACI0").pad_to(ACI_AT as usize + 0x10).u64(0x0100_0000_0000_1234).u64(0);
        w.u32(0x40).u32(FS_ACCESS_SIZE).u32(sac_offset).u32(service_bytes.len() as u32).u32(kac_offset);
        w.u32(4 * kernel.len() as u32).u64(0);
        w.u8(1).bytes(&[0; 3]).u64(0x8000_0000_0000_0001).u32(0x1C).u32(0).u32(0x1C).u32(0);
        w.bytes(&service_bytes).pad_to(ACI_AT as usize + kac_offset as usize);
        for descriptor in kernel {
            w.u32(*descriptor);
        }
        w.into_bytes()
    }

    fn sample() -> Vec<u8> {
        build(&[("fsp-srv", false), ("hid", false), ("tandem:t", true)], &sample_kernel_descriptors())
    }

    #[test]
    fn reads_meta_aci0_and_acid() {
        let npdm = read("main.npdm", &sample()).unwrap();
        assert_eq!(npdm.signature_key_generation, 1);
        assert_eq!((npdm.flags, npdm.is_64bit, npdm.address_space), (0b0111, true, AddressSpace::AddressSpace64Bit));
        assert_eq!((npdm.main_thread_priority, npdm.main_thread_core), (44, 0));
        assert_eq!((npdm.system_resource_size, npdm.version, npdm.main_thread_stack_size), (0x20_0000, 5, 0x10_0000));
        assert_eq!((npdm.name.as_str(), npdm.product_code.as_str()), ("Application", ""));

        assert_eq!(npdm.aci.program_id, 0x0100_0000_0000_1234);
        let fs_access = npdm.aci.fs_access.unwrap();
        assert_eq!((fs_access.version, fs_access.permissions, fs_access.raw.len()), (1, 0x8000_0000_0000_0001, 0x1C));
        let services: Vec<_> = npdm.aci.services.iter().map(|s| (s.name.as_str(), s.is_server)).collect();
        assert_eq!(services, [("fsp-srv", false), ("hid", false), ("tandem:t", true)]);

        let acid = npdm.acid;
        assert!(!acid.signature_present);
        assert_eq!((acid.version, acid.flags), (1, 1));
        assert_eq!((acid.program_id_min, acid.program_id_max), (0x0100_0000_0000_0000, 0x0100_0000_0000_0FFF));
    }

    #[test]
    fn decodes_kernel_capabilities() {
        let kernel = read("main.npdm", &sample()).unwrap().aci.kernel;
        assert_eq!(kernel.allowed_svcs.ids().collect::<Vec<_>>(), [0x01, 0x17, 0x7F, 0xBF]);
        assert!(
            kernel.allowed_svcs.allows(0x7F) && !kernel.allowed_svcs.allows(0x7E) && !kernel.allowed_svcs.allows(0x400)
        );
        assert_eq!(
            kernel.thread_info,
            Some(ThreadInfo { highest_priority: 28, lowest_priority: 59, min_core: 0, max_core: 2 })
        );
        assert_eq!(
            kernel.other,
            [
                Capability::MapRange { address: 0x7001_9000, size: 0x3000, read_only: true, normal: false },
                Capability::MapPage { address: 0x5004_1000 },
                Capability::InterruptPair { interrupts: [0x20, 0x3FF] },
                Capability::ApplicationType(1),
                Capability::KernelVersion { major: 9, minor: 3 },
                Capability::HandleTableSize(512),
                Capability::DebugFlags { allow_debug: true, force_debug_prod: false, force_debug: false },
            ]
        );
        let names: Vec<_> = kernel.other.iter().map(Capability::type_name).collect();
        assert_eq!(names[..2], ["MapRange", "MapPage"]);
    }

    #[test]
    fn unknown_descriptor_types_are_kept() {
        let raw = 0x0001_FFFF | 0x40 << 24; // 17 low ones: no type Horizon defines today
        let kernel = read("main.npdm", &build(&[], &[raw])).unwrap().aci.kernel;
        assert_eq!(kernel.other, [Capability::Unknown { raw }]);
    }

    #[test]
    fn malformed_files_give_typed_errors() {
        let cases = [
            Case {
                name: "bad META magic",
                mutate: |f| f[0] = b'N',
                structure: META,
                offset: 0,
                problem: |p| *p == Problem::BadMagic { expected: Magic(*b"META"), found: Magic(*b"NETA") },
            },
            Case {
                name: "address space type 5",
                mutate: |f| f[0xC] = 5 << 1 | 1,
                structure: META,
                offset: 0xC,
                problem: |p| matches!(p, Problem::BadValue { value: 5, .. }),
            },
            Case {
                name: "ACI0 past end of file",
                mutate: |f| put_u32(f, 0x74, 0x1000),
                structure: ACI0,
                offset: 0x70,
                problem: |p| matches!(p, Problem::PastEnd { start: ACI_AT, size: 0x1000, .. }),
            },
            Case {
                name: "ACI0 smaller than its header",
                mutate: |f| put_u32(f, 0x74, 0x20),
                structure: ACI0,
                offset: ACI_AT,
                problem: |p| matches!(p, Problem::BadValue { value: 0x20, .. }),
            },
            Case {
                name: "bad ACI0 magic",
                mutate: |f| f[ACI_AT as usize + 3] = b'1',
                structure: ACI0,
                offset: ACI_AT,
                problem: |p| *p == Problem::BadMagic { expected: Magic(*b"ACI0"), found: Magic(*b"ACI1") },
            },
            Case {
                name: "bad ACID magic",
                mutate: |f| f[ACID_AT as usize + 0x200] = b'X',
                structure: ACID,
                offset: ACID_AT + 0x200,
                problem: |p| matches!(p, Problem::BadMagic { .. }),
            },
            Case {
                name: "kernel capabilities past the ACI0",
                mutate: |f| put_u32(f, ACI_AT + 0x34, 0x400),
                structure: ACI0,
                offset: ACI_AT + 0x30,
                problem: |p| matches!(p, Problem::PastEnd { size: 0x400, .. }),
            },
            Case {
                name: "kernel capabilities not whole words",
                mutate: |f| put_u32(f, ACI_AT + 0x34, 6),
                structure: KERNEL,
                offset: KAC_AT,
                problem: |p| *p == Problem::Misaligned { value: 6, alignment: 4 },
            },
            Case {
                name: "MapRange without its size descriptor",
                mutate: |f| {
                    let at = KAC_AT as usize + 4 * 5;
                    f[at..at + 4].copy_from_slice(&PADDING.to_le_bytes());
                },
                structure: KERNEL,
                offset: KAC_AT + 4 * 5,
                problem: |p| matches!(p, Problem::BadValue { value: 0xFFFF_FFFF, .. }),
            },
            Case {
                name: "second ThreadInfo",
                mutate: |f| {
                    let at = KAC_AT as usize + 4;
                    f[at..at + 4].copy_from_slice(&THREAD_INFO.to_le_bytes());
                },
                structure: KERNEL,
                offset: KAC_AT + 4,
                problem: |p| matches!(p, Problem::Inconsistent(_)),
            },
            Case {
                name: "descriptor of type Invalid",
                mutate: |f| {
                    let at = KAC_AT as usize + 4 * 12;
                    f[at..at + 4].copy_from_slice(&0x10u32.to_le_bytes());
                },
                structure: KERNEL,
                offset: KAC_AT + 4 * 12,
                problem: |p| matches!(p, Problem::BadValue { value: 0x10, .. }),
            },
            Case {
                name: "service name cut by the region's end",
                mutate: |f| put_u32(f, ACI_AT + 0x2C, 20),
                structure: SERVICES,
                offset: SAC_AT + 13,
                problem: |p| matches!(p, Problem::Truncated { .. }),
            },
        ];
        let valid = sample();
        assert_eq!(get_u32(&valid, ACI_AT + 0x30), (KAC_AT - ACI_AT) as u32, "the offsets the cases use");
        check_cases(&valid, read, &cases);
    }

    #[test]
    fn truncation_anywhere_in_meta_is_reported() {
        let file = sample();
        for cut in 0..0x80 {
            let error = read("main.npdm", &file[..cut]).unwrap_err();
            assert_eq!(error.structure, META, "cut at {cut:#x}");
            assert!(matches!(error.problem, Problem::Truncated { .. }), "cut at {cut:#x}: {error}");
        }
    }

    proptest! {
        #[test]
        fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..0x400)) {
            let _ = read("fuzz", &bytes);
        }

        #[test]
        fn mutated_files_never_panic(edits in edits()) {
            let _ = read("fuzz", &mutate(&sample(), &edits));
        }

        #[test]
        fn random_kernel_descriptors_never_panic(kernel in proptest::collection::vec(any::<u32>(), 0..16)) {
            let _ = read("fuzz", &build(&[], &kernel));
        }
    }
}
