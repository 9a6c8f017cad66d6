//! A text assembler built on the decode tables, for test shaders: one instruction a line, as its table line's name
//! and field values (`ALD rd=0 address=0x80 size=3`). Fields not given are 0, except the guard predicate `pg`
//! (PT), the predicate sources `ps`/`pa`/`pb` and textures' fault predicate `fault` (PT), the condition-code test
//! `cc_test` (always) and register fields, which default to RZ (255). Each line is checked by decoding it back; `#` starts a comment.

use super::{Encoding, Isa};

/// Why a line does not assemble.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {problem}")]
pub struct AssembleError {
    pub line: usize,
    pub problem: String,
}

/// Register fields, which default to RZ.
const REGISTER_FIELDS: &[&str] = &["rd", "ra", "rb", "rc", "rs"];

fn word(encodings: &'static [Encoding], line: usize, text: &str) -> Result<u128, AssembleError> {
    let error = |problem: String| AssembleError { line, problem };
    let mut tokens = text.split_whitespace();
    let name = tokens.next().ok_or_else(|| error("no instruction".into()))?;
    let encoding =
        encodings.iter().find(|e| e.name == name).ok_or_else(|| error(format!("no table line is named {name}")))?;
    let mut given = Vec::new();
    for token in tokens {
        let (field, value) = token.split_once('=').ok_or_else(|| error(format!("{token}: not field=value")))?;
        let value = match value.strip_prefix("0x") {
            Some(hex) => u64::from_str_radix(hex, 16),
            None => value.parse(),
        }
        .map_err(|_| error(format!("{token}: not a number")))?;
        encoding.field(field).ok_or_else(|| error(format!("{name} has no field {field}")))?;
        given.push((field, value));
    }
    let mut word = encoding.value;
    for field in encoding.fields {
        let default = match field.name {
            "pg" | "ps" | "pa" | "pb" | "fault" => 7,
            "cc_test" => 15,
            name if REGISTER_FIELDS.contains(&name) => 255,
            _ => 0,
        };
        let value = given.iter().find(|(name, _)| *name == field.name).map_or(default, |&(_, value)| value);
        let width: u32 = field.parts.iter().map(|part| u32::from(part.width)).sum();
        if width < 64 && value >> width != 0 {
            return Err(error(format!("{}={value:#x} does not fit in {width} bits", field.name)));
        }
        word |= field.place(value);
    }
    Ok(word)
}

/// Assembles a program: a graphics program's shader program header from directives, then its code (`sm5x`, or
/// `sm86` after `.isa sm86`, with a version 4 header); a compute program is its code alone. Directives (a line
/// each, before or among the instructions):
/// - `.isa sm5x|sm86` (before `.stage`; sm5x when absent),
/// - `.stage vertex|tess_control|tess_eval|geometry|pixel|compute` (first; a graphics header's type and stage),
/// - `.reads FIRST-LAST`, `.writes FIRST-LAST`: the attribute words (byte addresses, inclusive) a vertex or
///   geometry program reads and writes,
/// - `.output points|lines|triangles MAX INVOCATIONS`: a geometry program's output topology (a strip), the most
///   vertices an invocation emits and its invocations a primitive,
/// - `.vertices N`: a tessellation control program's output vertices,
/// - `.patch N`: the per-patch words a tessellation control program writes (PerPatchAttributeCount),
/// - `.interpolate GENERIC COMPONENTS constant|perspective|linear`: how a pixel program interpolates generic
///   input GENERIC's components (`xyzw`, `xy`...),
/// - `.target T COMPONENTS`: the components (`rgba`, `rgb`...) of render target T a pixel program outputs,
/// - `.bit N`: header bit N set (fields without a directive).
pub fn program(source: &str) -> Result<Vec<u8>, AssembleError> {
    assembled_program(source).map(|program| program.bytes)
}

/// A program `program` assembled, with what its directives said of its layout.
pub struct AssembledProgram {
    pub isa: Isa,
    /// The header's bytes at the front of `bytes` (0 for a compute program).
    pub header_bytes: usize,
    pub bytes: Vec<u8>,
}

/// `program`, keeping the instruction set and the header's length.
pub fn assembled_program(source: &str) -> Result<AssembledProgram, AssembleError> {
    use crate::shader::sph::{Interpolation, OutputTopology, ProgramHeader, ShaderType};
    // None before `.stage`; Some(None) for a compute program.
    let mut header: Option<Option<ProgramHeader>> = None;
    let mut isa = Isa::Sm5x;
    let mut code = String::new();
    for (index, raw) in source.lines().enumerate() {
        let line = index + 1;
        let error = |problem: String| AssembleError { line, problem };
        let text = raw.split('#').next().unwrap_or("").trim();
        let Some(directive) = text.strip_prefix('.') else {
            code.push_str(raw);
            code.push('\n');
            continue;
        };
        code.push('\n');
        let words: Vec<&str> = directive.split_whitespace().collect();
        let number = |text: &str| -> Result<u32, AssembleError> {
            match text.strip_prefix("0x") {
                Some(hex) => u32::from_str_radix(hex, 16),
                None => text.parse(),
            }
            .map_err(|_| error(format!("{text}: not a number")))
        };
        if let ["isa", name] = words[..] {
            if header.is_some() {
                return Err(error(".isa after .stage".into()));
            }
            isa = match name {
                "sm5x" => Isa::Sm5x,
                "sm86" => Isa::Sm86,
                _ => return Err(error(format!("isa {name}: sm5x or sm86"))),
            };
            continue;
        }
        if let ["stage", stage] = words[..] {
            let stage = match stage {
                "vertex" => Some(ShaderType::Vertex),
                "tess_control" => Some(ShaderType::TessellationInit),
                "tess_eval" => Some(ShaderType::Tessellation),
                "geometry" => Some(ShaderType::Geometry),
                "pixel" => Some(ShaderType::Pixel),
                "compute" => None,
                _ => {
                    return Err(error(format!(
                        "stage {stage}: vertex, tess_control, tess_eval, geometry, pixel or compute"
                    )));
                }
            };
            header = Some(stage.map(|stage| {
                let mut header = ProgramHeader::new(stage);
                if isa == Isa::Sm86 {
                    header.set_version(4);
                }
                header
            }));
            continue;
        }
        let sph = match header.as_mut() {
            None => return Err(error("a directive before .stage".into())),
            Some(None) => return Err(error(format!(".{directive}: a compute program has no header"))),
            Some(Some(sph)) => sph,
        };
        let components = |text: &str, names: &str| -> Result<Vec<u32>, AssembleError> {
            text.chars()
                .map(|c| names.find(c).map(|i| i as u32).ok_or_else(|| error(format!("{text}: components of {names}"))))
                .collect()
        };
        match words[..] {
            [kind @ ("reads" | "writes"), range] => {
                let (first, last) = range.split_once('-').ok_or_else(|| error(format!("{range}: FIRST-LAST")))?;
                let base = if kind == "reads" { 160 } else { 400 };
                for address in (number(first)?..=number(last)?).step_by(4) {
                    sph.set_bit(base + address / 4, true);
                }
            }
            ["interpolate", generic, which, mode] => {
                let mode = match mode {
                    "constant" => Interpolation::Constant,
                    "perspective" => Interpolation::Perspective,
                    "linear" => Interpolation::ScreenLinear,
                    _ => return Err(error(format!("{mode}: constant, perspective or linear"))),
                };
                let generic = number(generic)?;
                for c in components(which, "xyzw")? {
                    sph.set_interpolation(generic, c, mode);
                }
            }
            ["target", target, which] => {
                let target = number(target)?;
                for c in components(which, "rgba")? {
                    sph.set_bit(576 + 4 * target + c, true);
                }
            }
            ["output", topology, max, invocations] => {
                let topology = match topology {
                    "points" => OutputTopology::Points,
                    "lines" => OutputTopology::LineStrip,
                    "triangles" => OutputTopology::TriangleStrip,
                    _ => return Err(error(format!("{topology}: points, lines or triangles"))),
                };
                sph.set_geometry(topology, number(max)?, number(invocations)?);
            }
            ["vertices", count] => sph.set_invocations(number(count)?),
            ["patch", words] => sph.set_per_patch_words(number(words)?),
            ["bit", n] => sph.set_bit(number(n)?, true),
            _ => return Err(error(format!(".{directive}: not a directive"))),
        }
    }
    let header = header.ok_or(AssembleError { line: 1, problem: "no .stage".into() })?;
    let mut bytes = header.map_or_else(Vec::new, |header| header.image(isa));
    let header_bytes = bytes.len();
    bytes.extend(match isa {
        Isa::Sm5x => sm5x(&code)?,
        Isa::Sm86 => sm86(&code)?,
    });
    Ok(AssembledProgram { isa, header_bytes, bytes })
}

/// The scheduling of every assembled SM86 instruction (bits 105-125): a stall of one cycle, the yield bit, no
/// read or write barrier, no waits; what ptxas writes for an instruction nothing waits on (nvdisasm refuses some
/// instructions, AST among them, with barrier 0).
const SM86_SCHEDULING: u128 = 0xfe2 << 104;

/// Assembles SM86 lines into 16-byte instructions, each with `SM86_SCHEDULING`.
pub fn sm86(source: &str) -> Result<Vec<u8>, AssembleError> {
    use super::sm86::{ENCODINGS, decode};
    let mut code = Vec::new();
    for (line, text) in instruction_lines(source) {
        let word = word(ENCODINGS, line, text)? | SM86_SCHEDULING;
        decode(word).ok_or_else(|| AssembleError { line, problem: format!("{word:#034x} does not decode") })?;
        code.extend_from_slice(&word.to_le_bytes());
    }
    Ok(code)
}

/// The lines that hold an instruction, numbered from 1, without their comments.
fn instruction_lines(source: &str) -> impl Iterator<Item = (usize, &str)> {
    source
        .lines()
        .enumerate()
        .map(|(index, text)| (index + 1, text.split('#').next().unwrap_or("").trim()))
        .filter(|(_, text)| !text.is_empty())
}

/// Assembles SM5x lines into bundles (a zero scheduling word, three instructions; NOPs fill the last bundle).
pub fn sm5x(source: &str) -> Result<Vec<u8>, AssembleError> {
    use super::sm5x::{BUNDLE_BYTES, ENCODINGS, decode};
    let mut words = Vec::new();
    for (line, text) in instruction_lines(source) {
        let word = word(ENCODINGS, line, text)? as u64;
        decode(word).ok_or_else(|| AssembleError { line, problem: format!("{word:#018x} does not decode") })?;
        words.push(word);
    }
    let nop = word(ENCODINGS, 0, "NOP").expect("the table has NOP") as u64;
    while !words.len().is_multiple_of(3) {
        words.push(nop);
    }
    let mut code = Vec::with_capacity(words.len() / 3 * BUNDLE_BYTES);
    for bundle in words.chunks(3) {
        code.extend_from_slice(&0u64.to_le_bytes());
        for word in bundle {
            code.extend_from_slice(&word.to_le_bytes());
        }
    }
    Ok(code)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lines assemble to the words nvdisasm reads as these instructions (tests/sass/kernels/graphics.sm53.words).
    #[test]
    fn lines_assemble_to_nvdisasm_checked_words() {
        let code = sm5x("ALD rd=0 address=0x80 size=3\nIPA rd=1 address=0x80 rb=0 mode=1\nKIL # discard\n").unwrap();
        let word = |i: usize| u64::from_le_bytes(code[8 + 8 * i..16 + 8 * i].try_into().unwrap());
        assert_eq!([word(0), word(1), word(2)], [0xefd9ff800807ff00, 0xe043ff880007ff01, 0xe33000000007000f]);
        assert_eq!(sm5x("ALD rd=0x100").unwrap_err().to_string(), "line 1: rd=0x100 does not fit in 8 bits");
        assert!(sm5x("ALD rq=1").unwrap_err().problem.contains("no field rq"));
    }
}
