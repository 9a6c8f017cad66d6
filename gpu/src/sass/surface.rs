//! What a surface instruction (SULD, SUST, SURED, SUATOM) asks for, read from its fields once for the interpreter and the
//! translator: the operation, the surface's shape, where its handle is, the coordinate and data registers, and
//! what an access past the edge does.
//!
//! Both ISAs lay the fields out alike: the handle is the word at c[bank][4 * surf] (SM86) or word `surf` of the
//! stage's texture constant buffer (Maxwell); the coordinates are consecutive registers from ra: x (in bytes
//! with .BA, else in texels), then y, then z or the array's layer; the data are consecutive registers from rd
//! (SULD, SUATOM's result) or rb (Maxwell's SUST and SURED: rs). A direct (.D) access moves 1, 2, 4, 8 or 16 bytes (the size codes of LDG); a
//! formatted (.P) one the components of its mask, converted to the surface's format.

use super::text::View;
use super::texture::HandleSource;
use crate::shader::ir::TextureDim;

/// What the instruction does.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum SurfaceOperation {
    Load,
    Store,
    /// SURED and SUATOM: an atomic operation on the texel's 32-bit integer, ATOM's operation code (0 ADD, 1 MIN,
    /// 2 MAX, 3 INC, 4 DEC, 5 AND, 6 OR, 7 XOR, 8 EXCH), `signed` for .S32; SUATOM writes the value the texel held
    /// before to its `result` register.
    Atomic {
        op: u64,
        signed: bool,
        result: Option<u64>,
    },
    /// SUATOM.CAS: the data register's successor is stored where the texel holds the data register's value; the
    /// value the texel held, whichever happened, goes to `result`.
    CompareSwap {
        result: u64,
    },
}

/// What an access moves.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum SurfaceData {
    /// .D: bytes as they are, LDG's size code (0 U8, 1 S8, 2 U16, 3 S16, 4 32, 5 64, 6 128).
    Raw { size: u64 },
    /// .P: the components of `mask` (bit i: component i), one register each, converted from and to the format.
    Formatted { mask: u8 },
}

/// What an access with a coordinate outside the surface does (CLAMP: 0 .IGN, 1 nothing printed, 2 .TRAP).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Edge {
    /// Loads give zeros; stores and reductions do nothing.
    Zero,
    /// The coordinate moves to the nearest texel inside.
    Clamp,
    /// The GPU faults.
    Trap,
}

/// A surface instruction, ISA-independent.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct SurfaceInstruction {
    pub operation: SurfaceOperation,
    pub data: SurfaceData,
    /// .BA: x counts bytes, not texels.
    pub byte_addressed: bool,
    pub handle: HandleSource,
    pub dim: TextureDim,
    pub array: bool,
    /// A 1D buffer (TARGET 1D_BUFFER): `dim` D1, its texels a 1D buffer texture's.
    pub buffer: bool,
    pub edge: Edge,
    /// x, y, then z or the layer (as many as the shape has).
    pub coordinates: Vec<u64>,
    /// The first of the data registers (loaded into or stored from).
    pub data_register: u64,
}

impl SurfaceInstruction {
    /// How many registers the data take.
    pub fn data_registers(&self) -> u64 {
        if let SurfaceOperation::CompareSwap { .. } = self.operation {
            return 2;
        }
        match self.data {
            SurfaceData::Raw { size } => (super::exec::access_bytes(size) as u64).div_ceil(4),
            SurfaceData::Formatted { mask } => u64::from(mask.count_ones()),
        }
    }
}

/// TARGET (both ISAs): the shape, an array or not, a 1D buffer or not; Err for the invalid codes.
fn target(v: &View) -> Result<(TextureDim, bool, bool), String> {
    match v.get("target") {
        0 => Ok((TextureDim::D1, false, false)),
        1 => Ok((TextureDim::D1, false, true)),
        2 => Ok((TextureDim::D1, true, false)),
        3 => Ok((TextureDim::D2, false, false)),
        4 => Ok((TextureDim::D2, true, false)),
        5 => Ok((TextureDim::D3, false, false)),
        code => Err(format!("the invalid target {code}")),
    }
}

/// The instruction from what both ISAs share; `data` is the size field (SURED and SUATOM: the type field),
/// `direct` whether it is .D, `byte_addressed` its .BA.
fn read(
    v: &View,
    handle: HandleSource,
    code: u64,
    direct: bool,
    byte_addressed: bool,
    data_register: u64,
) -> Result<SurfaceInstruction, String> {
    let (dim, array, buffer) = target(v)?;
    let edge = match v.get("clamp") {
        0 => Edge::Zero,
        1 => Edge::Clamp,
        2 => Edge::Trap,
        _ => return Err("the invalid clamp mode 3".into()),
    };
    let (operation, data) = match v.encoding.opcode {
        "SURED" | "SUATOM" => {
            let signed = match code {
                0 => false,
                1 => true,
                _ => return Err("surface atomics on other than 32-bit integers".into()),
            };
            let result = (v.encoding.opcode == "SUATOM").then(|| v.get("rd"));
            let operation = match (v.encoding.form(), result) {
                ("CAS", Some(result)) => SurfaceOperation::CompareSwap { result },
                (_, result) => match v.get("op") {
                    op @ 0..=8 => SurfaceOperation::Atomic { op, signed, result },
                    op => return Err(format!("the atomic operation {op}")),
                },
            };
            (operation, SurfaceData::Raw { size: 4 })
        }
        "SULD" => (SurfaceOperation::Load, data(code, direct)?),
        _ => (SurfaceOperation::Store, data(code, direct)?),
    };
    if !direct && matches!(v.encoding.opcode, "SURED" | "SUATOM") {
        return Err("formatted reductions (.P)".into());
    }
    let ra = v.get("ra");
    let count = dim.coordinates() + usize::from(array);
    Ok(SurfaceInstruction {
        operation,
        data,
        byte_addressed,
        handle,
        dim,
        array,
        buffer,
        edge,
        coordinates: (ra..ra + count as u64).collect(),
        data_register,
    })
}

fn data(code: u64, direct: bool) -> Result<SurfaceData, String> {
    match (direct, code) {
        (true, size @ 0..=6) => Ok(SurfaceData::Raw { size }),
        (true, _) => Err("the invalid size 7".into()),
        (false, 0) => Err("a formatted access of no components".into()),
        (false, mask) => Ok(SurfaceData::Formatted { mask: mask as u8 }),
    }
}

/// An SM86 surface instruction's meaning; Err: what it uses that neither the interpreter nor the translator
/// carries out.
pub(crate) fn sm86(v: &View) -> Result<SurfaceInstruction, String> {
    if v.has("pd") && v.get("pd") != 7 {
        return Err("a predicate destination".into());
    }
    let handle = HandleSource::Constant { bank: v.get("bank") as u8, offset: 4 * v.get("surf") as u32 };
    let direct = v.encoding.form() != "P";
    // The size (SURED, SUATOM: type) field: .BA in bit 0, the code above it; a formatted access's is its mask.
    let atomic = matches!(v.encoding.opcode, "SURED" | "SUATOM");
    let field = if atomic { v.get("ty") } else { v.get("size") };
    let (code, byte_addressed) = if direct { (field >> 1, field & 1 != 0) } else { (field, false) };
    if !direct && v.encoding.opcode == "SULD" && !matches!(code, 1 | 3 | 15) {
        // SM86's formatted loads take R, RG or RGBA (nvdisasm names no other mask).
        return Err(format!("the invalid component mask {code:#x}"));
    }
    let data_register = if v.encoding.opcode == "SULD" { v.get("rd") } else { v.get("rb") };
    read(v, handle, code, direct, byte_addressed, data_register)
}

/// A Maxwell surface instruction's meaning; Err: what it uses that neither the interpreter nor the translator
/// carries out.
pub(crate) fn sm5x(v: &View) -> Result<SurfaceInstruction, String> {
    if v.has("pd_xor7") && v.get("pd_xor7") != 0 {
        return Err("a predicate destination".into());
    }
    let handle = match v.encoding.form() {
        "B" => HandleSource::Register(v.get("rc")),
        _ => HandleSource::Slot(4 * v.get("surf") as u32),
    };
    if v.encoding.opcode == "SUATOM" {
        // Direct only, its .BA a bit of its own.
        return read(v, handle, v.get("ty"), true, v.flag("ba"), v.get("rb"));
    }
    let direct = v.flag("d");
    // The size (SURED: type) field: .BA in bit 3, the code below it; a formatted access's is its mask.
    let field = if v.encoding.opcode == "SURED" { v.get("ty") } else { v.get("size") };
    let (code, byte_addressed) = if direct { (field & 7, field & 8 != 0) } else { (field, false) };
    let data_register = if v.encoding.opcode == "SULD" { v.get("rd") } else { v.get("rs") };
    read(v, handle, code, direct, byte_addressed, data_register)
}
