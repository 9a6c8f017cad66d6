//! CUDA cubins (the ELF files `ptxas` writes): which instruction set they hold, their kernels, each kernel's
//! code, the constant banks the compiler filled (jump tables, literals) and its static shared memory.
//!
//! Facts used: the SM version is the low byte of `e_flags` (`EF_CUDA_SM53` = 53); a kernel NAME's code is the
//! section `.text.NAME`; its compiler constants are `.nv.constant2.NAME` (bank 2 on SM5x, 3 on SM86's
//! `.nv.constant3`), constant bank 0 (`.nv.constant0.NAME`) is the driver's (its size is the parameter block's
//! end), and `.nv.shared.NAME` (no bits) is its static shared memory.

use super::Isa;
use object::{Object, ObjectSection};

/// A cubin that cannot be used, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CubinError {
    #[error("not a cubin: {0}")]
    NotElf(String),
    #[error("cubin for sm_{0}: Tandem reads SM50-SM53 (Maxwell) and SM86 (Ampere)")]
    UnsupportedSm(u32),
    #[error("the cubin has no kernel {name}; it has: {available}")]
    NoKernel { name: String, available: String },
    #[error("the cubin holds several kernels ({0}): choose one with --entry")]
    Ambiguous(String),
    #[error("section {section}: {reason}")]
    BadSection { section: String, reason: String },
}

/// A parsed cubin.
pub struct Cubin<'a> {
    file: object::File<'a>,
    sm: u32,
}

/// One kernel of a cubin, ready to load.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelImage {
    pub name: String,
    pub isa: Isa,
    pub code: Vec<u8>,
    /// Constant banks the compiler filled, by bank number.
    pub constants: Vec<(u32, Vec<u8>)>,
    /// Bytes of statically allocated shared memory.
    pub shared_bytes: u32,
    /// Where the code's first byte sits in its code segment (SM5x: the program region), from which absolute
    /// branches (JMP, JMX, JCAL) count; 0 for a cubin's kernel, which ptxas never has jump absolutely.
    pub origin: u32,
}

impl<'a> Cubin<'a> {
    pub fn parse(bytes: &'a [u8]) -> Result<Cubin<'a>, CubinError> {
        let file = object::File::parse(bytes).map_err(|error| CubinError::NotElf(error.to_string()))?;
        let flags = match file.flags() {
            object::FileFlags::Elf { e_flags, .. } => e_flags,
            _ => return Err(CubinError::NotElf("not an ELF file".into())),
        };
        let sm = flags & 0xff;
        let cubin = Cubin { file, sm };
        cubin.isa()?;
        Ok(cubin)
    }

    /// The SM version the code was compiled for (53, 86, ...).
    pub fn sm(&self) -> u32 {
        self.sm
    }

    pub fn isa(&self) -> Result<Isa, CubinError> {
        match self.sm {
            50..=53 => Ok(Isa::Sm5x),
            86 => Ok(Isa::Sm86),
            other => Err(CubinError::UnsupportedSm(other)),
        }
    }

    /// The kernels, in section order.
    pub fn kernel_names(&self) -> Vec<String> {
        self.file
            .sections()
            .filter_map(|section| section.name().ok()?.strip_prefix(".text.").map(str::to_string))
            .collect()
    }

    /// The kernel called `name`, or the only kernel when `name` is `None`.
    pub fn kernel(&self, name: Option<&str>) -> Result<KernelImage, CubinError> {
        let names = self.kernel_names();
        let name = match name {
            Some(name) if names.iter().any(|n| n == name) => name.to_string(),
            Some(name) => return Err(CubinError::NoKernel { name: name.into(), available: names.join(", ") }),
            None if names.len() == 1 => names[0].clone(),
            None => return Err(CubinError::Ambiguous(names.join(", "))),
        };
        let mut image = KernelImage {
            name: name.clone(),
            isa: self.isa()?,
            code: Vec::new(),
            constants: Vec::new(),
            shared_bytes: 0,
            origin: 0,
        };
        for section in self.file.sections() {
            let Ok(section_name) = section.name() else { continue };
            let data = || {
                section.data().map(<[u8]>::to_vec).map_err(|error| CubinError::BadSection {
                    section: section_name.to_string(),
                    reason: error.to_string(),
                })
            };
            if section_name == format!(".text.{name}") {
                image.code = data()?;
            } else if section_name == format!(".nv.shared.{name}") {
                image.shared_bytes = u32::try_from(section.size()).unwrap_or(u32::MAX);
            } else if let Some(rest) = section_name.strip_prefix(".nv.constant") {
                // `.nv.constantN.KERNEL` belongs to one kernel; `.nv.constantN` to every kernel of the file.
                let (bank, owner) = rest.split_once('.').map_or((rest, None), |(bank, owner)| (bank, Some(owner)));
                let Ok(bank) = bank.parse::<u32>() else { continue };
                if bank != 0 && owner.is_none_or(|owner| owner == name) {
                    image.constants.push((bank, data()?));
                }
            }
        }
        Ok(image)
    }
}
