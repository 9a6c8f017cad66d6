//! The shader program header (SPH, version 3: Maxwell): the 0x50 bytes in front of every graphics program. It says
//! which stage the program is, which attributes it reads and writes, and (pixel shaders) how each input is
//! interpolated and which render target components its registers hold at EXIT.
//!
//! Ampere's (SM86) programs carry version 4 (0x80 bytes: the same twenty words, then twelve more).
//!
//! Layout from open-gpu-doc's `Shader-Program-Header` and `classes/3d/cla097sph.h` (bit n of the header is bit
//! n % 32 of word n / 32): words 0-4 are common; type 1 (vertex, tessellation, geometry) has one input bit and
//! one output bit per attribute word (bit 160 + A/4 and 400 + A/4 for the attribute at byte address A); type 2
//! (pixel) has two bits per generic input component (bit 192 + 8i + 2c: how it is interpolated), the targets'
//! components at bit 576 + 4t + c, the sample mask at 608 and depth at 609.

use crate::sass::Isa;

/// Bytes of a header (version 3, in front of Maxwell programs).
pub const HEADER_BYTES: usize = 0x50;

/// Bytes of a version 4 header (Turing and later: in front of SM86 programs): version 3's twenty words, then twelve
/// more that map pixel programs' per-vertex inputs (words 21-24, NAK's `sph.rs`), which Tandem does not take.
pub const HEADER_BYTES_V4: usize = 0x80;

/// Bytes of the header in front of a graphics program of `isa`.
pub fn header_bytes(isa: Isa) -> usize {
    match isa {
        Isa::Sm5x => HEADER_BYTES,
        Isa::Sm86 => HEADER_BYTES_V4,
    }
}

/// Reads the header at the front of a graphics program of `isa` (at least `header_bytes(isa)` bytes): an SM86
/// program's must be version 4, its words past the twentieth zero.
pub fn parse_program_header(isa: Isa, program: &[u8]) -> Result<ProgramHeader, String> {
    let size = header_bytes(isa);
    let bytes = program
        .get(..size)
        .ok_or_else(|| format!("{} bytes, shorter than an {isa} program's header ({size:#x})", program.len()))?;
    let header = ProgramHeader::parse(bytes[..HEADER_BYTES].try_into().expect("twenty words"))?;
    if isa == Isa::Sm86 {
        if header.version() != 4 {
            return Err(format!("an SM86 program's header is version 4, this one version {}", header.version()));
        }
        if let Some(word) = (HEADER_BYTES..size).step_by(4).find(|&at| bytes[at..at + 4] != [0; 4]) {
            return Err(format!("header word {} is not zero: per-vertex pixel inputs are not implemented", word / 4));
        }
    }
    Ok(header)
}

/// The stage a program is (ShaderType, word 0 bits 13:10).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShaderType {
    Vertex,
    TessellationInit,
    Tessellation,
    Geometry,
    Pixel,
}

/// How a pixel shader input component is interpolated (the header's PixelImap).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interpolation {
    Unused,
    /// The provoking vertex's value.
    Constant,
    Perspective,
    ScreenLinear,
}

/// The primitives a geometry program's vertices make (OutputTopology, word 3 bits 27:24).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OutputTopology {
    Points,
    LineStrip,
    TriangleStrip,
}

impl OutputTopology {
    /// The header's value for it.
    pub fn value(self) -> u32 {
        match self {
            OutputTopology::Points => 1,
            OutputTopology::LineStrip => 6,
            OutputTopology::TriangleStrip => 7,
        }
    }
}

/// Attribute byte addresses the stages share (ALD, AST and IPA operands).
pub mod attribute {
    /// Per-patch words (ALD.P, AST.P): the outer tessellation levels, then the two inner ones.
    pub const TESS_LEVEL_OUTER: u32 = 0x00;
    pub const TESS_LEVEL_INNER: u32 = 0x10;
    pub const TESS_LEVELS_END: u32 = 0x18;
    pub const PRIMITIVE_ID: u32 = 0x60;
    pub const LAYER: u32 = 0x64;
    pub const VIEWPORT_INDEX: u32 = 0x68;
    pub const POINT_SIZE: u32 = 0x6c;
    pub const POSITION: u32 = 0x70;
    pub const GENERIC: u32 = 0x80;
    pub const GENERIC_END: u32 = 0x280;
    /// The eight clip distances, a word each.
    pub const CLIP_DISTANCE: u32 = 0x2c0;
    /// A tessellation evaluation program's position in its patch's domain (u, v).
    pub const TESS_COORD: u32 = 0x2f0;
    pub const INSTANCE_ID: u32 = 0x2f8;
    pub const VERTEX_ID: u32 = 0x2fc;
    pub const FRONT_FACING: u32 = 0x3fc;
    /// One past the last attribute word.
    pub const END: u32 = 0x400;

    /// What the word at byte address `address` holds, for messages.
    pub fn name(address: u32) -> &'static str {
        match address {
            TESS_LEVEL_OUTER..TESS_LEVEL_INNER => "an outer tessellation level",
            TESS_LEVEL_INNER..TESS_LEVELS_END => "an inner tessellation level",
            PRIMITIVE_ID => "the primitive id",
            LAYER => "the layer",
            VIEWPORT_INDEX => "the viewport index",
            POINT_SIZE => "the point size",
            POSITION..GENERIC => "the position",
            GENERIC..GENERIC_END => "a generic attribute",
            0x280..0x2c0 => "a fixed-function colour",
            CLIP_DISTANCE..0x2e0 => "a clip distance",
            0x2e0..0x2e8 => "the point sprite coordinate",
            0x2e8 => "the fog coordinate",
            TESS_COORD..INSTANCE_ID => "the tessellation coordinate",
            INSTANCE_ID => "the instance id",
            VERTEX_ID => "the vertex id",
            0x300..0x3a0 => "a fixed-function texture coordinate",
            FRONT_FACING => "the front-facing flag",
            _ => "a reserved attribute word",
        }
    }
}

/// A shader program header.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ProgramHeader {
    pub words: [u32; 20],
}

impl ProgramHeader {
    /// Reads a header, refusing one whose type and stage disagree or are not Maxwell's.
    pub fn parse(bytes: &[u8; HEADER_BYTES]) -> Result<ProgramHeader, String> {
        let words = std::array::from_fn(|i| u32::from_le_bytes(bytes[4 * i..4 * i + 4].try_into().expect("four")));
        let header = ProgramHeader { words };
        let sph_type = header.words[0] & 0x1f;
        let stage = header.words[0] >> 10 & 0xf;
        let shader_type =
            header.shader_type().ok_or_else(|| format!("shader program header stage {stage} is not 1-5"))?;
        let expected = if shader_type == ShaderType::Pixel { 2 } else { 1 };
        if sph_type != expected {
            return Err(format!(
                "shader program header type {sph_type} does not go with a {shader_type:?} program (it needs type {expected})"
            ));
        }
        Ok(header)
    }

    /// An empty header of a stage (type, version 3, SASS version 1, as NVIDIA's compilers write it).
    pub fn new(shader_type: ShaderType) -> ProgramHeader {
        let (sph_type, stage) = match shader_type {
            ShaderType::Vertex => (1, 1),
            ShaderType::TessellationInit => (1, 2),
            ShaderType::Tessellation => (1, 3),
            ShaderType::Geometry => (1, 4),
            ShaderType::Pixel => (2, 5),
        };
        let mut words = [0; 20];
        words[0] = sph_type | 3 << 5 | stage << 10 | 1 << 17;
        ProgramHeader { words }
    }

    /// The header's version (word 0 bits 9:5): 3 for Maxwell, 4 for Turing and later.
    pub fn version(&self) -> u32 {
        self.words[0] >> 5 & 0x1f
    }

    pub fn set_version(&mut self, version: u32) {
        self.words[0] = self.words[0] & !(0x1f << 5) | (version & 0x1f) << 5;
    }

    /// The header as it sits in front of a program of `isa` (a version 4 header's last twelve words zero).
    pub fn image(&self, isa: Isa) -> Vec<u8> {
        let mut image = self.bytes().to_vec();
        image.resize(header_bytes(isa), 0);
        image
    }

    pub fn bytes(&self) -> [u8; HEADER_BYTES] {
        let mut bytes = [0; HEADER_BYTES];
        for (chunk, word) in bytes.chunks_exact_mut(4).zip(self.words) {
            chunk.copy_from_slice(&word.to_le_bytes());
        }
        bytes
    }

    fn bit(&self, n: u32) -> bool {
        self.words[(n / 32) as usize] >> (n % 32) & 1 == 1
    }

    pub fn set_bit(&mut self, n: u32, value: bool) {
        let word = &mut self.words[(n / 32) as usize];
        *word = *word & !(1 << (n % 32)) | u32::from(value) << (n % 32);
    }

    pub fn shader_type(&self) -> Option<ShaderType> {
        use ShaderType::*;
        [Vertex, TessellationInit, Tessellation, Geometry, Pixel]
            .get((self.words[0] >> 10 & 0xf).checked_sub(1)? as usize)
            .copied()
    }

    /// KillsPixels: without it, KIL does nothing (and the hardware raises an exception).
    pub fn kills_pixels(&self) -> bool {
        self.bit(15)
    }

    /// ShaderLocalMemoryLowSize: local memory bytes a thread.
    pub fn local_memory_bytes(&self) -> u32 {
        self.words[1] & 0xff_ffff
    }

    /// ThreadsPerInputPrimitive (word 2 bits 31:24), at least one: a geometry program's invocations a primitive,
    /// a tessellation control program's output vertices (an invocation each).
    pub fn invocations(&self) -> u32 {
        (self.words[2] >> 24).max(1)
    }

    /// PerPatchAttributeCount (word 1 bits 31:24): the per-patch words a tessellation control program writes,
    /// the six tessellation levels among them.
    pub fn per_patch_words(&self) -> u32 {
        self.words[1] >> 24
    }

    pub fn set_per_patch_words(&mut self, words: u32) {
        self.words[1] = self.words[1] & 0xff_ffff | (words & 0xff) << 24;
    }

    pub fn set_invocations(&mut self, invocations: u32) {
        self.words[2] = self.words[2] & !(0xff << 24) | (invocations & 0xff) << 24;
    }

    /// A geometry program's output primitives (word 3 bits 27:24), `None` for a value that names none.
    pub fn output_topology(&self) -> Option<OutputTopology> {
        [OutputTopology::Points, OutputTopology::LineStrip, OutputTopology::TriangleStrip]
            .into_iter()
            .find(|topology| topology.value() == self.words[3] >> 24 & 0xf)
    }

    /// The most vertices a geometry program's invocation emits (MaxOutputVertexCount, word 4 bits 11:0): the
    /// hardware drops the OUTs past them.
    pub fn max_output_vertices(&self) -> u32 {
        self.words[4] & 0xfff
    }

    /// A geometry program's header fields: its output topology and vertex count, its invocations.
    pub fn set_geometry(&mut self, topology: OutputTopology, max_vertices: u32, invocations: u32) {
        self.words[3] = self.words[3] & !(0xf << 24) | topology.value() << 24;
        self.words[4] = self.words[4] & !0xfff | max_vertices & 0xfff;
        self.set_invocations(invocations);
    }

    /// Whether a vertex, tessellation or geometry program reads the attribute word at byte address `address`.
    pub fn reads(&self, address: u32) -> bool {
        (0x60..0x3c0).contains(&address) && self.bit(160 + address / 4)
    }

    /// Whether a vertex, tessellation or geometry program writes the attribute word at byte address `address`.
    pub fn writes(&self, address: u32) -> bool {
        (0x60..0x3c0).contains(&address) && self.bit(400 + address / 4)
    }

    /// The generics a vertex, tessellation or geometry program reads (bit i: generic i, any of its components).
    pub fn generics_read(&self) -> u32 {
        self.generics_where(|address| self.reads(address))
    }

    /// The generics a vertex, tessellation or geometry program writes (bit i: generic i).
    pub fn generics_written(&self) -> u32 {
        self.generics_where(|address| self.writes(address))
    }

    fn generics_where(&self, holds: impl Fn(u32) -> bool) -> u32 {
        (0..32).filter(|&g| (0..4).any(|c| holds(attribute::GENERIC + 16 * g + 4 * c))).fold(0, |mask, g| mask | 1 << g)
    }

    /// The attribute words other than the generics that a pixel program's input map says it reads, by byte
    /// address: its system values B (0x60-0x7c) and C (0x2c0-0x2fc) a bit a word, and its colours (0x280-0x29c)
    /// and fixed-function texture coordinates (0x300-0x39c) two bits a word (their interpolation).
    pub fn pixel_system_inputs(&self) -> Vec<u32> {
        let one_bit = |first_bit: u32, first_address: u32, words: u32| {
            (0..words).filter(move |&w| self.bit(first_bit + w)).map(move |w| first_address + 4 * w)
        };
        let two_bits = |first_bit: u32, first_address: u32, words: u32| {
            (0..words)
                .filter(move |&w| self.bit(first_bit + 2 * w) || self.bit(first_bit + 2 * w + 1))
                .map(move |w| first_address + 4 * w)
        };
        one_bit(184, attribute::PRIMITIVE_ID, 8)
            .chain(two_bits(448, 0x280, 8))
            .chain(one_bit(464, 0x2c0, 16))
            .chain(two_bits(480, 0x300, 40))
            .collect()
    }

    /// How a pixel program interpolates component `component` of generic input `generic`.
    pub fn interpolation(&self, generic: u32, component: u32) -> Interpolation {
        let at = 192 + 8 * generic + 2 * component;
        match u32::from(self.bit(at)) | u32::from(self.bit(at + 1)) << 1 {
            0 => Interpolation::Unused,
            1 => Interpolation::Constant,
            2 => Interpolation::Perspective,
            _ => Interpolation::ScreenLinear,
        }
    }

    pub fn set_interpolation(&mut self, generic: u32, component: u32, mode: Interpolation) {
        let at = 192 + 8 * generic + 2 * component;
        let value = mode as u32;
        self.set_bit(at, value & 1 == 1);
        self.set_bit(at + 1, value & 2 == 2);
    }

    /// The R, G, B, A components of render target `target` a pixel program outputs.
    pub fn target_components(&self, target: u32) -> [bool; 4] {
        std::array::from_fn(|c| self.bit(576 + 4 * target + c as u32))
    }

    pub fn writes_sample_mask(&self) -> bool {
        self.bit(608)
    }

    pub fn writes_depth(&self) -> bool {
        self.bit(609)
    }

    /// Where a pixel program's outputs are at EXIT: for each render target with any component, its first register
    /// (four consecutive registers, R, G, B, A, whichever components it has); then the sample mask's register and
    /// depth's (the one after it, whether or not the sample mask is written).
    pub fn output_registers(&self) -> PixelOutputs {
        let mut targets = [None; 8];
        let mut next = 0u8;
        for (target, slot) in targets.iter_mut().enumerate() {
            if self.target_components(target as u32).contains(&true) {
                *slot = Some(next);
                next += 4;
            }
        }
        PixelOutputs {
            targets,
            sample_mask: self.writes_sample_mask().then_some(next),
            depth: self.writes_depth().then_some(next + 1),
        }
    }
}

/// A pixel program's outputs in registers at EXIT (see [`ProgramHeader::output_registers`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PixelOutputs {
    pub targets: [Option<u8>; 8],
    pub sample_mask: Option<u8>,
    pub depth: Option<u8>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(words: &[(usize, u32)]) -> ProgramHeader {
        let mut all = [0u32; 20];
        for &(index, word) in words {
            all[index] = word;
        }
        let bytes: Vec<u8> = all.iter().flat_map(|w| w.to_le_bytes()).collect();
        ProgramHeader::parse(bytes.as_slice().try_into().unwrap()).unwrap()
    }

    /// Headers as Mesa's nvc0 driver writes them (`nvc0_program.c`): word 0 0x20061 | stage << 10 for vertex
    /// programs, 0x20062 | 5 << 10 for fragment programs; inputs `hdr[5 + a / 32] |= 1 << a % 32` and outputs
    /// `hdr[13 + (a - 0x10) / 32]` for attribute word a; a fragment program's colour outputs 0xf << 4t in hdr[18],
    /// depth 2 in hdr[19]; generic inputs two bits a component from hdr[6].
    #[test]
    fn headers_read_as_mesa_writes_them() {
        // A vertex program reading generic 0 x, y and VertexId, writing position and generic 1.
        let vertex = header(&[(0, 0x20061 | 1 << 10), (6, 0b11), (10, 1 << 31), (13, 0xf << 12 | 0xf << 20)]);
        assert_eq!(vertex.shader_type(), Some(ShaderType::Vertex));
        assert!(vertex.reads(0x80) && vertex.reads(0x84) && !vertex.reads(0x88));
        assert!(vertex.reads(attribute::VERTEX_ID) && !vertex.reads(attribute::INSTANCE_ID));
        assert!((0x70..0x80).step_by(4).all(|a| vertex.writes(a)));
        assert!((0x90..0xa0).step_by(4).all(|a| vertex.writes(a)) && !vertex.writes(0x80));
        assert_eq!(ProgramHeader::new(ShaderType::Vertex).words[0], 0x20061 | 1 << 10);

        // A fragment program: generic 1 perspective xyz and constant w, targets 0 and 2, depth.
        let pixel = header(&[(0, 0x20062 | 5 << 10 | 0x8000), (6, 0b01_10_10_10 << 8), (18, 0xf | 0x3 << 8), (19, 2)]);
        assert_eq!(pixel.shader_type(), Some(ShaderType::Pixel));
        assert!(pixel.kills_pixels());
        assert_eq!(pixel.interpolation(0, 0), Interpolation::Unused);
        assert_eq!(pixel.interpolation(1, 0), Interpolation::Perspective);
        assert_eq!(pixel.interpolation(1, 3), Interpolation::Constant);
        assert_eq!(pixel.target_components(2), [true, true, false, false]);
        let outputs = pixel.output_registers();
        assert_eq!(outputs.targets[..3], [Some(0), None, Some(4)]);
        assert_eq!((outputs.sample_mask, outputs.depth), (None, Some(9)));
        assert_eq!(ProgramHeader::new(ShaderType::Pixel).words[0], 0x20062 | 5 << 10);
    }

    /// A geometry program's fields as NAK's `sph.rs` writes them: threads per input primitive in word 2 bits
    /// 31:24, the output topology in word 3 bits 27:24 (7 TRIANGLESTRIP), the vertex count in word 4 bits 11:0.
    #[test]
    fn geometry_fields_read_as_nak_writes_them() {
        let geometry = header(&[(0, 0x20061 | 4 << 10), (2, 2 << 24), (3, 7 << 24), (4, 6)]);
        assert_eq!(geometry.shader_type(), Some(ShaderType::Geometry));
        assert_eq!(geometry.invocations(), 2);
        assert_eq!(geometry.output_topology(), Some(OutputTopology::TriangleStrip));
        assert_eq!(geometry.max_output_vertices(), 6);
        let mut written = ProgramHeader::new(ShaderType::Geometry);
        written.set_geometry(OutputTopology::TriangleStrip, 6, 2);
        assert_eq!(written, geometry);
        assert_eq!(header(&[(0, 0x20061 | 4 << 10), (3, 2 << 24)]).output_topology(), None);
        assert_eq!(ProgramHeader::new(ShaderType::Geometry).invocations(), 1);
    }

    #[test]
    fn mismatched_types_are_refused() {
        let mut bytes = [0u8; HEADER_BYTES];
        bytes[..4].copy_from_slice(&(0x20061u32 | 5 << 10).to_le_bytes());
        assert!(ProgramHeader::parse(&bytes).unwrap_err().contains("needs type 2"));
        bytes[..4].copy_from_slice(&(0x20061u32 | 9 << 10).to_le_bytes());
        assert!(ProgramHeader::parse(&bytes).unwrap_err().contains("stage 9"));
    }
}
