//! What a texture instruction asks for, read from its fields once for the interpreter and the translator: the
//! operation, the texture's shape, where its handle is, which registers hold its operands (in the order both ISAs
//! read them: the layer of an array, the coordinates, then a level, offsets and a depth-compare reference or
//! sample index) and which take its results.
//!
//! SM86 (TEX, TLD, TLD4, TXD, TXQ), as ptxas fills them (`gpu/research/sm86-texture.md`): without .SCR the
//! layer and coordinates from ra on and the rest from rb on, as on Maxwell; with .SCR the whole sequence in two
//! pairs: the first operand (the first two, when there are more than two) from ra, ra+1, the rest from rb, rb+1.
//! The handle is the word at c[bank (58:54)][4 * tex (53:40)], or for the bindless forms (.B) a register: the
//! first of rb's operands (TXD and TXQ: of ra's), as on Maxwell. The results go to rd, rd+1, then rd2 (71:64),
//! rd2+1, the components of the write mask (75:72) in order, or with .F16 as FP16 pairs to rd and rd2 (Mesa's
//! NAK splits them so too).

use super::text::View;
use crate::shader::ir::TextureDim;

/// How a sample picks its level of detail; a fetch takes level 0 (`Zero`) or a register's (`Explicit`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Level {
    /// From the derivatives (fragment stage; level 0 elsewhere).
    Implicit,
    Zero,
    /// The implicit level plus an FP32 bias.
    Bias,
    /// An FP32 level (a fetch's: an integer).
    Explicit,
}

/// What the instruction does.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Operation {
    /// TEX (a filtered sample) or TLD (`fetch`: texels by integer coordinates).
    Read {
        fetch: bool,
        level: Level,
        /// AOFFI: texel offsets packed into one register (4-bit x, y, z in bits 3:0, 7:4, 11:8).
        offsets: bool,
        /// TEX.DC's depth-compare reference, or TLD.MS's sample index.
        last: bool,
        /// TLD.CL: a level past the texture's last gives zeros (an H200 fetching level 5 of a texture of four
        /// levels, `gpu/tests/sass/kernels/sampling.ptx`; ptxas sets .CL on every fetch by level).
        checked_level: bool,
    },
    /// TLD4: the 2x2 footprint's `component`, or with `compare` the comparisons with a reference.
    Gather {
        component: u8,
        /// Registers of offsets: 0, 1 (AOFFI: 6-bit x, y in bits 5:0 and 13:8) or 2 (PTP: an offset pair per
        /// texel, a 16-bit half each).
        offset_registers: usize,
        compare: bool,
    },
    /// TXD: a sample at the level explicit derivatives give.
    Gradients,
    /// TXQ TEX_HEADER_DIMENSION: a level's width, height, depth (or layers) and the texture's levels.
    Size,
}

impl Operation {
    /// How many operand registers it takes for a texture of `dim` (`array`): the layer and coordinates, then the
    /// rest. TXD: the coordinates, the layer, then d/dx and d/dy of each coordinate in turn (per coordinate, as
    /// Maxwell behaviour 2.13 orders them); TXQ: the level.
    pub fn operand_counts(self, dim: TextureDim, array: bool) -> (usize, usize) {
        let coordinates = dim.coordinates();
        match self {
            Operation::Read { level, offsets, last, .. } => {
                let level = matches!(level, Level::Bias | Level::Explicit);
                (usize::from(array) + coordinates, [level, offsets, last].into_iter().filter(|&b| b).count())
            }
            Operation::Gather { offset_registers, compare, .. } => {
                (usize::from(array) + coordinates, offset_registers + usize::from(compare))
            }
            Operation::Gradients => (coordinates + usize::from(array), 2 * coordinates),
            Operation::Size => (1, 0),
        }
    }
}

/// Where a texture instruction finds its texture's handle (header index in bits 19:0, sampler index in 31:20).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum HandleSource {
    /// The word at c[bank][offset] (SM86's forms).
    Constant { bank: u8, offset: u32 },
    /// The word at this byte offset of the stage's texture constant buffer (Maxwell's bound forms).
    Slot(u32),
    /// A register (the bindless forms).
    Register(u64),
}

/// A texture instruction, ISA-independent.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct TextureInstruction {
    pub operation: Operation,
    pub handle: HandleSource,
    pub dim: TextureDim,
    pub array: bool,
    /// The operand registers, in `Operation::operand_counts` order.
    pub sources: Vec<u64>,
    /// Where the chosen components go, in order (RZ: nowhere).
    pub destinations: [u64; 4],
    /// The components chosen (bit i: component i).
    pub mask: u8,
    /// FP16 results: the chosen components in pairs into the first two destinations.
    pub half: bool,
    /// The predicate set where a texel faults (is not resident: sparse textures; Mesa's NAK calls it `fault`).
    /// Every texture Tandem binds is resident, so it is cleared, as a Tegra X1 clears it reading a resident
    /// texture (nxgpucatch's tex.cpp "Bindless + sparse predicate").
    pub fault: Option<u64>,
}

/// A TARGET field's meaning by its value: the dimension, and whether it is an array (`None`: invalid).
pub(crate) type Targets = [Option<(TextureDim, bool)>; 8];

/// SM86's TARGET of TEX, TLD, TLD4, TXD and TMML (63:61); 6 is invalid.
pub(crate) const SM86_TARGETS: Targets = [
    Some((TextureDim::D1, false)),
    Some((TextureDim::D2, false)),
    Some((TextureDim::D3, false)),
    Some((TextureDim::Cube, false)),
    Some((TextureDim::D1, true)),
    Some((TextureDim::D2, true)),
    None,
    Some((TextureDim::Cube, true)),
];

/// Maxwell's TARGET of TEX, TLD, TLD4, TXD and TMML (30:28); 5, a 3D array, does not exist.
pub(crate) const SM5X_TARGETS: Targets = [
    Some((TextureDim::D1, false)),
    Some((TextureDim::D1, true)),
    Some((TextureDim::D2, false)),
    Some((TextureDim::D2, true)),
    Some((TextureDim::D3, false)),
    None,
    Some((TextureDim::Cube, false)),
    Some((TextureDim::Cube, true)),
];

/// TEX (`fetch` clear) or TLD at `level`, with the fields both ISAs name alike: AOFFI, DC or TLD's MS, TLD's CL.
fn read(v: &View, fetch: bool, level: Level) -> Operation {
    let last = if fetch { v.flag("ms") } else { v.flag("dc") };
    let checked_level = fetch && v.flag("cl");
    Operation::Read { fetch, level, offsets: v.flag("aoffi"), last, checked_level }
}

/// The fault predicate of TEX, TLD and TLD4 (PT: none), which both ISAs name alike.
pub(crate) fn fault(v: &View) -> Option<u64> {
    v.has("fault").then(|| v.get("fault")).filter(|&fault| fault != 7)
}

/// TLD4, whose fields both ISAs name alike.
fn gather(v: &View) -> Result<Operation, String> {
    let offset_registers = match v.get("offsets") {
        code @ 0..=2 => code as usize,
        _ => return Err("offset mode 3, which nvdisasm calls invalid".into()),
    };
    Ok(Operation::Gather { component: v.get("component") as u8, offset_registers, compare: v.flag("dc") })
}

/// An SM86 texture instruction's meaning; Err: what it uses that neither the interpreter nor the translator
/// carries out.
pub(crate) fn sm86(v: &View) -> Result<TextureInstruction, String> {
    let opcode = v.encoding.opcode;
    let fault = fault(v);
    let bindless = v.encoding.form() == "B";
    let rd2 = if opcode == "TXQ" { v.get("rc") } else { v.get("rd2") };
    let destinations = [v.get("rd"), v.get("rd") + 1, rd2, rd2 + 1];
    let constant = || HandleSource::Constant { bank: v.get("bank") as u8, offset: 4 * v.get("tex") as u32 };
    let mask = v.get("mask") as u8;
    let (ra, rb) = (v.get("ra"), v.get("rb"));
    if opcode == "TXQ" {
        if v.get("query") != 0 {
            return Err("queries other than TEX_HEADER_DIMENSION".into());
        }
        let (dim, array) = (TextureDim::D2, false);
        // TXQ.B: the handle in ra, the level in ra+1.
        let (handle, sources) =
            if bindless { (HandleSource::Register(ra), vec![ra + 1]) } else { (constant(), vec![ra]) };
        return Ok(TextureInstruction {
            operation: Operation::Size,
            handle,
            dim,
            array,
            sources,
            destinations,
            mask,
            half: false,
            fault,
        });
    }
    let (dim, array) = SM86_TARGETS[v.get("target") as usize & 7].ok_or("the invalid target 6")?;
    let half = match v.get("f16") {
        0 => false,
        1 => true,
        _ => return Err("FP16 results rounded other than to nearest".into()),
    };
    let operation = match opcode {
        "TEX" | "TLD" => {
            let fetch = opcode == "TLD";
            let level = match (fetch, v.get("lod")) {
                (false, 0) => Level::Implicit,
                (_, 1) => Level::Zero,
                (false, 2) => Level::Bias,
                (_, 3) => Level::Explicit,
                _ => return Err("level clamps (.LC) and invalid level modes".into()),
            };
            read(v, fetch, level)
        }
        "TLD4" => gather(v)?,
        _ if v.flag("aoffi") => return Err("offsets".into()),
        _ => Operation::Gradients,
    };
    let (in_a, in_b) = operation.operand_counts(dim, array);
    if operation == Operation::Gradients {
        // TXD has no .SCR: the handle of TXD.B, the coordinates and the layer from ra, the derivatives from rb.
        let (handle, first) = if bindless { (HandleSource::Register(ra), ra + 1) } else { (constant(), ra) };
        let sources = (first..first + in_a as u64).chain(rb..rb + in_b as u64).collect();
        return Ok(TextureInstruction { operation, handle, dim, array, sources, destinations, mask, half, fault });
    }
    // The registers of the whole sequence, the handle of a bindless form first among rb's operands.
    let handles = usize::from(bindless);
    let mut registers: Vec<u64> = if v.get("scr") & 2 == 0 {
        (ra..ra + in_a as u64).chain(rb..rb + (handles + in_b) as u64).collect()
    } else {
        let count = in_a + handles + in_b;
        if count > 4 {
            return Err("more than four operands with .SCR".into());
        }
        let in_ra = if count <= 2 { 1 } else { 2 };
        (ra..ra + in_ra as u64).chain(rb..rb + (count - in_ra) as u64).collect()
    };
    let handle = if bindless { HandleSource::Register(registers.remove(in_a)) } else { constant() };
    Ok(TextureInstruction { operation, handle, dim, array, sources: registers, destinations, mask, half, fault })
}

/// A Maxwell texture instruction's meaning (TEX, TLD, TLD4, TXD, TXQ and the scalar TEXS, TLDS, TLD4S), as
/// Mesa's `handleTEX`/`handleTXD`/`getTEXSTarget`, yuzu and Ryujinx read the registers (where they disagree, the
/// comment says so); Err: what it uses that neither the interpreter nor the translator carries out.
pub(crate) fn sm5x(v: &View) -> Result<TextureInstruction, String> {
    let opcode = v.encoding.opcode;
    let bindless = v.encoding.form() == "B";
    let (ra, rb, rd) = (v.get("ra"), v.get("rb"), v.get("rd"));
    // A bound form's handle is word TEX (48:36) of the stage's texture constant buffer; a bindless form's is a
    // register, the first of its vector.
    let handle = |register: u64| {
        if bindless { HandleSource::Register(register) } else { HandleSource::Slot(4 * v.get("tex") as u32) }
    };
    let after_handle = |register: u64| register + u64::from(bindless);
    if matches!(opcode, "TEXS" | "TLDS" | "TLD4S") {
        return sm5x_scalar(v, handle(rb));
    }
    let operation = match opcode {
        "TEX" | "TLD" => {
            let fetch = opcode == "TLD";
            let level = match (fetch, v.get("lod")) {
                (true, 0) => Level::Zero,
                (true, _) => Level::Explicit,
                (false, 0) => Level::Implicit,
                (false, 1) => Level::Zero,
                // LBA and LLA read as LB and LL (Ryujinx's and yuzu's reading): a Tegra X1's TEX.LLA of level 1
                // reads level 1, its TEX.LBA in compute level 0 as TEX.LB does (nxgpucatch's tex.cpp).
                (false, 2 | 6) => Level::Bias,
                (false, 3 | 7) => Level::Explicit,
                (false, _) => return Err(format!("the invalid level mode {}", v.get("lod"))),
            };
            read(v, fetch, level)
        }
        "TLD4" => gather(v)?,
        "TXD" if v.flag("aoffi") => return Err("offsets".into()),
        "TXD" => Operation::Gradients,
        _ if v.get("query") != 1 => return Err("queries other than TEX_HEADER_DIMENSION".into()),
        _ => Operation::Size,
    };
    let (dim, array) = match operation {
        Operation::Size => (TextureDim::D2, false),
        _ => SM5X_TARGETS[v.get("target") as usize & 7].ok_or("a 3D array target, which does not exist")?,
    };
    let (in_a, in_b) = operation.operand_counts(dim, array);
    let (handle, sources) = match operation {
        // TXD: the handle, the coordinates and the layer from ra on, the derivatives from rb; TXQ: the handle,
        // then the level.
        Operation::Gradients => {
            (handle(ra), (after_handle(ra)..after_handle(ra) + in_a as u64).chain(rb..rb + in_b as u64).collect())
        }
        Operation::Size => (handle(ra), vec![after_handle(ra)]),
        _ => (handle(rb), (ra..ra + in_a as u64).chain(after_handle(rb)..after_handle(rb) + in_b as u64).collect()),
    };
    let destinations = [rd, rd + 1, rd + 2, rd + 3];
    Ok(TextureInstruction {
        operation,
        handle,
        dim,
        array,
        sources,
        destinations,
        mask: v.get("mask") as u8,
        half: false,
        fault: fault(v),
    })
}

/// TEXS, TLDS and TLD4S: operands in two register pairs (ra, ra+1 and rb, rb+1) that the mode field (56:53)
/// places, as Mesa's `getTEXSTarget`/`getTLDSTarget`/`getTEXSMask` and envydis' tables agree; the components the
/// component code (52:50) chooses to rd, rd+1, rd2, rd2+1, or with F32 (59) clear as FP16 pairs to rd and rd2.
/// TLD4S: x and y from ra and rb, or from ra and ra+1 when rb holds more: AOFFI's packed offsets, then DC's
/// reference (Mesa, yuzu and Ryujinx agree); the four texels to rd, rd+1, rd2, rd2+1 (rd2 RZ: the first two), or
/// with F16 as FP16 pairs to rd and rd2.
fn sm5x_scalar(v: &View, handle: HandleSource) -> Result<TextureInstruction, String> {
    use TextureDim::*;
    let (ra, rb, rd, rd2) = (v.get("ra"), v.get("rb"), v.get("rd"), v.get("rd2"));
    let destinations = [rd, rd + 1, rd2, rd2 + 1];
    if v.encoding.opcode == "TLD4S" {
        let (compare, offset) = (v.flag("dc"), v.flag("aoffi"));
        let y = if compare || offset { ra + 1 } else { rb };
        let half = v.flag("f16");
        let operation =
            Operation::Gather { component: v.get("component") as u8, offset_registers: usize::from(offset), compare };
        let mut sources = vec![ra, y];
        sources.extend((rb..).take(usize::from(offset) + usize::from(compare)));
        let mask = if half || rd2 != 255 { 0b1111 } else { 0b0011 };
        return Ok(TextureInstruction {
            operation,
            handle,
            dim: D2,
            array: false,
            sources,
            destinations,
            mask,
            half,
            fault: None,
        });
    }
    let fetch = v.encoding.opcode == "TLDS";
    let mode = v.get("mode");
    let sample = |level, last| Operation::Read { fetch: false, level, offsets: false, last, checked_level: false };
    let load = |level, offsets, last| Operation::Read { fetch: true, level, offsets, last, checked_level: false };
    // (dim, array, the operation, the operand registers in the order it takes them: the layer, the coordinates,
    // the level, offsets, and a depth compare's reference or a sample index last).
    let (dim, array, operation, sources): (TextureDim, bool, Operation, Vec<u64>) = match (fetch, mode) {
        (false, 0) => (D1, false, sample(Level::Zero, false), vec![ra]),
        (false, 1) => (D2, false, sample(Level::Implicit, false), vec![ra, rb]),
        (false, 2) => (D2, false, sample(Level::Zero, false), vec![ra, rb]),
        (false, 3) => (D2, false, sample(Level::Explicit, false), vec![ra, ra + 1, rb]),
        (false, 4) => (D2, false, sample(Level::Implicit, true), vec![ra, ra + 1, rb]),
        // The level, then the reference, as Mesa's getTEXSTarget and yuzu read it (Ryujinx swaps them).
        (false, 5) => (D2, false, sample(Level::Explicit, true), vec![ra, ra + 1, rb, rb + 1]),
        (false, 6) => (D2, false, sample(Level::Zero, true), vec![ra, ra + 1, rb]),
        (false, 7) => (D2, true, sample(Level::Implicit, false), vec![ra, ra + 1, rb]),
        (false, 8) => (D2, true, sample(Level::Zero, false), vec![ra, ra + 1, rb]),
        (false, 9) => (D2, true, sample(Level::Zero, true), vec![ra, ra + 1, rb, rb + 1]),
        (false, 10) => (D3, false, sample(Level::Implicit, false), vec![ra, ra + 1, rb]),
        (false, 11) => (D3, false, sample(Level::Zero, false), vec![ra, ra + 1, rb]),
        (false, 12) => (Cube, false, sample(Level::Implicit, false), vec![ra, ra + 1, rb]),
        (false, 13) => (Cube, false, sample(Level::Explicit, false), vec![ra, ra + 1, rb, rb + 1]),
        (true, 0) => (D1, false, load(Level::Zero, false, false), vec![ra]),
        (true, 1) => (D1, false, load(Level::Explicit, false, false), vec![ra, rb]),
        (true, 2) => (D2, false, load(Level::Zero, false, false), vec![ra, rb]),
        // 2D with AOFFI's offsets after the level: LZ (4) and LL (12), as ptxas fills TLDS.LZ.AOFFI's rb.
        (true, 4) => (D2, false, load(Level::Zero, true, false), vec![ra, ra + 1, rb]),
        (true, 5) => (D2, false, load(Level::Explicit, false, false), vec![ra, ra + 1, rb]),
        (true, 12) => (D2, false, load(Level::Explicit, true, false), vec![ra, ra + 1, rb, rb + 1]),
        // 2D, multisampled: x and y from ra and ra+1, the sample index from rb (yuzu's texture_load_swizzled;
        // Mesa's getTLDSTarget calls it TEX_TARGET_2D_MS).
        (true, 6) => (D2, false, load(Level::Zero, false, true), vec![ra, ra + 1, rb]),
        (true, 7) => (D3, false, load(Level::Zero, false, false), vec![ra, ra + 1, rb]),
        (true, 8) => (D2, true, load(Level::Zero, false, false), vec![ra, rb, rb + 1]),
        _ => return Err("an undefined mode".into()),
    };
    const R: u8 = 1;
    const G: u8 = 2;
    const B: u8 = 4;
    const A: u8 = 8;
    let mask = if rd2 == 255 {
        [R, G, B, A, R | G, R | A, G | A, B | A][v.get("swizzle") as usize]
    } else {
        match v.get("swizzle") {
            code @ 0..=4 => [R | G | B, R | G | A, R | B | A, G | B | A, R | G | B | A][code as usize],
            _ => return Err("an undefined component code".into()),
        }
    };
    Ok(TextureInstruction {
        operation,
        handle,
        dim,
        array,
        sources,
        destinations,
        mask,
        half: !v.flag("f32"),
        fault: None,
    })
}
