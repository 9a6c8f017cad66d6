//! Generates the SASS decoders from `src/sass/sm5x.decode` and `src/sass/sm86.decode` (the syntax is described at
//! the top of each table).
//!
//! Output (`$OUT_DIR/<isa>_decode.rs`, included by `src/sass/<isa>.rs`):
//! - `enum Inst`: one variant per table line, named in CamelCase after it (`FADD.reg` -> `FaddReg`), holding its
//!   fields (`u32`, or `u64` for fields wider than 32 bits);
//! - `static FAMILIES`, `static ENCODINGS` and `static UNENCODED`: the table itself (with the opcodes it does not
//!   encode yet), for tests, coverage and case generators;
//! - `fn decode(word) -> Option<Inst>`: the first line whose fixed bits match, in table order;
//! - `Inst::encode`: the assembler, the inverse of `decode`;
//! - `Inst::guard`: the guard predicate of lines that have the `pg`/`pg_not` fields.
//!
//! It also compiles the host's own GLSL shaders (`../shaders/`, the Vulkan back end's helpers) to SPIR-V with
//! `glslc` (`$OUT_DIR/<file name>.spv`, included by `src/vulkan/`).

use std::fmt::Write as _;
use std::{env, fs, path::Path};

/// One instruction set: its table and the bits of an instruction word the table does not describe.
struct Isa {
    name: &'static str,
    width: u32,
    /// Scheduling bits inside the instruction word (SM86): decoded separately, outside the table.
    control_mask: u128,
    word_type: &'static str,
}

const ISAS: &[Isa] = &[
    Isa { name: "sm5x", width: 64, control_mask: 0, word_type: "u64" },
    // SM86: stall, yield, write and read barriers, wait mask and reuse flags live in bits 105..=125.
    Isa { name: "sm86", width: 128, control_mask: ((1u128 << 21) - 1) << 105, word_type: "u128" },
];

struct Field {
    name: String,
    /// (lsb, width), most significant part first.
    parts: Vec<(u32, u32)>,
}

impl Field {
    fn width(&self) -> u32 {
        self.parts.iter().map(|&(_, width)| width).sum()
    }

    fn rust_type(&self) -> &'static str {
        if self.width() > 32 { "u64" } else { "u32" }
    }
}

struct Line {
    name: String,
    family: usize,
    source_line: usize,
    mask: u128,
    value: u128,
    fields: Vec<Field>,
    group: Option<usize>,
}

struct Family {
    name: String,
    title: String,
}

fn main() {
    for isa in ISAS {
        let table_path = format!("src/sass/{}.decode", isa.name);
        println!("cargo::rerun-if-changed={table_path}");
        let text = fs::read_to_string(&table_path).unwrap_or_else(|e| panic!("read {table_path}: {e}"));
        let (families, lines, unencoded) = parse(&text, isa).unwrap_or_else(|e| panic!("{table_path}: {e}"));
        let code = generate(isa, &families, &lines, &unencoded);
        let out = Path::new(&env::var("OUT_DIR").unwrap()).join(format!("{}_decode.rs", isa.name));
        fs::write(out, code).expect("write generated decoder");
    }
    compile_host_shaders();
}

/// Every GLSL file in `../shaders/` to SPIR-V for Vulkan 1.2, with `glslc` (`cargo xtask setup` installs it).
fn compile_host_shaders() {
    let folder = Path::new("../shaders");
    println!("cargo::rerun-if-changed={}", folder.display());
    let out = env::var("OUT_DIR").unwrap();
    let mut sources: Vec<_> =
        fs::read_dir(folder).expect("read ../shaders").map(|entry| entry.unwrap().path()).collect();
    sources.sort();
    for source in sources {
        println!("cargo::rerun-if-changed={}", source.display());
        let name = source.file_name().unwrap().to_string_lossy().into_owned();
        let output = std::process::Command::new("glslc")
            .args(["--target-env=vulkan1.2", "-Werror", "-o"])
            .arg(Path::new(&out).join(format!("{name}.spv")))
            .arg(&source)
            .output()
            .unwrap_or_else(|e| {
                panic!("cannot run glslc for {name} ({e}): `cargo xtask setup` installs it (Debian: glslc)")
            });
        if !output.status.success() {
            panic!("glslc {name}:\n{}", String::from_utf8_lossy(&output.stderr));
        }
    }
}

/// An opcode of the instruction set that has no encoding in the table yet (`@unencoded`), and its family.
struct Unencoded {
    opcode: String,
    family: usize,
}

/// A parsed table: its families, its lines and its unencoded opcodes.
type Table = (Vec<Family>, Vec<Line>, Vec<Unencoded>);

fn parse(text: &str, isa: &Isa) -> Result<Table, String> {
    let mut families: Vec<Family> = Vec::new();
    let mut unencoded: Vec<Unencoded> = Vec::new();
    let mut macros: Vec<(String, String)> = Vec::new();
    let mut lines: Vec<Line> = Vec::new();
    let mut group: Option<usize> = None;
    let mut groups_seen = 0;
    for (index, raw) in text.lines().enumerate() {
        let line_no = index + 1;
        let line = raw.split('#').next().unwrap().trim();
        if line.is_empty() {
            continue;
        }
        if let Some(rest) = line.strip_prefix("@family") {
            let (name, title) = rest
                .trim()
                .split_once(' ')
                .ok_or_else(|| format!("line {line_no}: @family needs a name and a quoted title"))?;
            families.push(Family { name: name.to_string(), title: title.trim().trim_matches('"').to_string() });
            continue;
        }
        if let Some(rest) = line.strip_prefix('%') {
            let (name, tokens) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
            if macros.iter().any(|(existing, _)| existing == name) {
                return Err(format!("line {line_no}: %{name} defined twice"));
            }
            macros.push((name.to_string(), expand(tokens, &macros, line_no)?));
            continue;
        }
        if let Some(rest) = line.strip_prefix("@unencoded") {
            let family = families.len().checked_sub(1).ok_or(format!("line {line_no}: @unencoded before @family"))?;
            unencoded.extend(rest.split_whitespace().map(|opcode| Unencoded { opcode: opcode.to_string(), family }));
            continue;
        }
        if line == "{" {
            if group.is_some() {
                return Err(format!("line {line_no}: groups do not nest"));
            }
            group = Some(groups_seen);
            groups_seen += 1;
            continue;
        }
        if line == "}" {
            group.take().ok_or_else(|| format!("line {line_no}: '}}' without '{{'"))?;
            continue;
        }
        if families.is_empty() {
            return Err(format!("line {line_no}: encoding before the first @family"));
        }
        let line = expand(line, &macros, line_no)?;
        let encoding = parse_encoding(&line, line_no, families.len() - 1, group, isa)?;
        if lines.iter().any(|l| l.name == encoding.name) {
            return Err(format!("line {line_no}: {} twice", encoding.name));
        }
        lines.push(encoding);
    }
    if group.is_some() {
        return Err("unclosed '{'".into());
    }
    for opcode in &unencoded {
        if lines.iter().any(|line| line.name.split('.').next() == Some(opcode.opcode.as_str())) {
            return Err(format!("{} is both @unencoded and encoded", opcode.opcode));
        }
    }
    Ok((families, lines, unencoded))
}

/// Replaces every `%name` token by the tokens of its definition (`%name token...` on a line of its own).
fn expand(line: &str, macros: &[(String, String)], line_no: usize) -> Result<String, String> {
    let mut out = Vec::new();
    for token in line.split_whitespace() {
        match token.strip_prefix('%') {
            Some(name) => {
                let (_, tokens) = macros
                    .iter()
                    .find(|(defined, _)| defined == name)
                    .ok_or_else(|| format!("line {line_no}: %{name} is not defined above"))?;
                out.push(tokens.as_str());
            }
            None => out.push(token),
        }
    }
    Ok(out.join(" "))
}

/// `NAME token...`; a token is `HI:LO=BITS` / `BIT=BITS` (fixed bits, binary or 0x-hex) or `name=HI:LO[,HI:LO...]`
/// (a field, most significant part first). Bits no token names are fixed at zero.
fn parse_encoding(line: &str, line_no: usize, family: usize, group: Option<usize>, isa: &Isa) -> Result<Line, String> {
    let mut tokens = line.split_whitespace();
    let name = tokens.next().unwrap().to_string();
    if !name.split('.').all(|part| !part.is_empty() && part.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')) {
        return Err(format!("line {line_no}: bad name {name}"));
    }
    let mut encoding = Line { name, family, source_line: line_no, mask: 0, value: 0, fields: Vec::new(), group };
    let mut claimed: u128 = isa.control_mask;
    let mut claim = |lsb: u32, width: u32| -> Result<(), String> {
        if lsb + width > isa.width {
            return Err(format!("line {line_no}: bits {}..{} past bit {}", lsb, lsb + width - 1, isa.width - 1));
        }
        let bits = ones(width) << lsb;
        if claimed & bits != 0 {
            return Err(format!(
                "line {line_no}: bits {}..{} named twice or inside the control bits",
                lsb,
                lsb + width - 1
            ));
        }
        claimed |= bits;
        Ok(())
    };
    for token in tokens {
        let (left, right) = token
            .split_once('=')
            .ok_or_else(|| format!("line {line_no}: expected `bits=value` or `field=bits`: {token}"))?;
        if left.starts_with(|c: char| c.is_ascii_digit()) {
            let (lsb, width) = parse_range(left, line_no)?;
            claim(lsb, width)?;
            let value = parse_value(right, width, line_no)?;
            encoding.mask |= ones(width) << lsb;
            encoding.value |= value << lsb;
        } else {
            if encoding.fields.iter().any(|f| f.name == left) {
                return Err(format!("line {line_no}: field {left} twice"));
            }
            let mut parts = Vec::new();
            for range in right.split(',') {
                let (lsb, width) = parse_range(range, line_no)?;
                claim(lsb, width)?;
                parts.push((lsb, width));
            }
            let field = Field { name: left.to_string(), parts };
            if field.width() > 64 {
                return Err(format!("line {line_no}: field {left} wider than 64 bits"));
            }
            encoding.fields.push(field);
        }
    }
    // Bits neither fixed nor in a field must be zero.
    encoding.mask |= ones(isa.width) & !claimed;
    Ok(encoding)
}

/// `HI:LO` or `BIT` -> (lsb, width).
fn parse_range(text: &str, line_no: usize) -> Result<(u32, u32), String> {
    let number = |s: &str| s.parse::<u32>().map_err(|_| format!("line {line_no}: bad bit number in {text}"));
    match text.split_once(':') {
        Some((hi, lo)) => {
            let (hi, lo) = (number(hi)?, number(lo)?);
            if hi < lo {
                return Err(format!("line {line_no}: range {text} runs backwards"));
            }
            Ok((lo, hi - lo + 1))
        }
        None => Ok((number(text)?, 1)),
    }
}

fn parse_value(text: &str, width: u32, line_no: usize) -> Result<u128, String> {
    let value = if let Some(hex) = text.strip_prefix("0x") {
        u128::from_str_radix(hex, 16).map_err(|_| format!("line {line_no}: bad hex value {text}"))?
    } else {
        if text.len() != width as usize {
            return Err(format!("line {line_no}: {text} is not {width} binary digits"));
        }
        u128::from_str_radix(text, 2).map_err(|_| format!("line {line_no}: bad binary value {text}"))?
    };
    if value > ones(width) {
        return Err(format!("line {line_no}: {text} does not fit in {width} bits"));
    }
    Ok(value)
}

fn ones(width: u32) -> u128 {
    if width >= 128 { u128::MAX } else { (1 << width) - 1 }
}

fn camel_case(name: &str) -> String {
    name.split(['_', '.'])
        .map(|part| {
            let lower = part.to_ascii_lowercase();
            let mut chars = lower.chars();
            match chars.next() {
                Some(first) => first.to_ascii_uppercase().to_string() + chars.as_str(),
                None => String::new(),
            }
        })
        .collect()
}

fn has_guard(line: &Line) -> bool {
    let has = |name: &str| line.fields.iter().any(|f| f.name == name);
    has("pg") && has("pg_not")
}

/// The expression that extracts `field` from `word`.
fn extraction(field: &Field) -> String {
    let mut shift_left = field.width();
    let parts: Vec<String> = field
        .parts
        .iter()
        .map(|&(lsb, width)| {
            shift_left -= width;
            let bits = match lsb {
                0 => format!("((word & {:#x}) as {})", ones(width), field.rust_type()),
                _ => format!("(((word >> {lsb}) & {:#x}) as {})", ones(width), field.rust_type()),
            };
            if shift_left == 0 { bits } else { format!("({bits} << {shift_left})") }
        })
        .collect();
    parts.join(" | ")
}

/// `field` (a local reference of that name) widened to `ty`.
fn widened(field: &Field, ty: &str) -> String {
    if field.rust_type() == ty { format!("*{}", field.name) } else { format!("{ty}::from(*{})", field.name) }
}

/// Statements that deposit `field` (a local of that name) into `word`, refusing values wider than the field.
fn deposit(field: &Field, word_type: &str) -> String {
    let mut out = String::new();
    let type_bits = if field.rust_type() == "u64" { 64 } else { 32 };
    if field.width() < type_bits {
        let value = widened(field, "u64");
        writeln!(
            out,
            "            if {value} > {max:#x} {{ \
             return Err(EncodeError::FieldTooWide {{ field: {name:?}, value: {value}, width: {width} }}); }}",
            name = field.name,
            max = ones(field.width()),
            width = field.width()
        )
        .unwrap();
    }
    let mut shift_right = field.width();
    for &(lsb, width) in &field.parts {
        shift_right -= width;
        let value = match shift_right {
            0 => widened(field, word_type),
            shift => format!("({} >> {shift})", widened(field, word_type)),
        };
        match lsb {
            0 => writeln!(out, "            word |= {value} & {:#x};", ones(width)),
            _ => writeln!(out, "            word |= ({value} & {:#x}) << {lsb};", ones(width)),
        }
        .unwrap();
    }
    out
}

fn generate(isa: &Isa, families: &[Family], lines: &[Line], unencoded: &[Unencoded]) -> String {
    let table = format!("{}.decode", isa.name);
    let word = isa.word_type;
    let mut out = String::new();
    writeln!(out, "// @generated by gpu/build.rs from src/sass/{table}. Do not edit.\n").unwrap();

    writeln!(out, "/// A decoded instruction: one variant per line of `{table}`, with its named fields.").unwrap();
    out.push_str("#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]\npub enum Inst {\n");
    for line in lines {
        let fields: Vec<String> = line.fields.iter().map(|f| format!("{}: {}", f.name, f.rust_type())).collect();
        writeln!(out, "    /// `{}` ({table} line {})", line.name, line.source_line).unwrap();
        writeln!(out, "    {} {{ {} }},", camel_case(&line.name), fields.join(", ")).unwrap();
    }
    out.push_str("}\n\n");

    out.push_str("/// The instruction families (`@family`), in table order.\npub static FAMILIES: &[Family] = &[\n");
    for family in families {
        writeln!(out, "    Family {{ name: {:?}, title: {:?} }},", family.name, family.title).unwrap();
    }
    out.push_str("];\n\n");

    out.push_str(
        "/// Opcodes of the instruction set without an encoding yet (`@unencoded`), with their family index.\n",
    );
    out.push_str("pub static UNENCODED: &[(&str, usize)] = &[\n");
    for opcode in unencoded {
        writeln!(out, "    ({:?}, {}),", opcode.opcode, opcode.family).unwrap();
    }
    out.push_str("];\n\n");

    out.push_str("/// Every line of the table, in table order; `Inst::encoding_index` indexes it.\n");
    out.push_str("pub static ENCODINGS: &[Encoding] = &[\n");
    for line in lines {
        let fields: Vec<String> = line
            .fields
            .iter()
            .map(|f| {
                let parts: Vec<String> =
                    f.parts.iter().map(|&(lsb, width)| format!("BitRange {{ lsb: {lsb}, width: {width} }}")).collect();
                format!("Field {{ name: {:?}, parts: &[{}] }}", f.name, parts.join(", "))
            })
            .collect();
        writeln!(
            out,
            "    Encoding {{ name: {:?}, opcode: {:?}, family: {}, source_line: {}, mask: {:#x}, value: {:#x}, \
             group: {:?}, fields: &[{}] }},",
            line.name,
            line.name.split('.').next().unwrap(),
            line.family,
            line.source_line,
            line.mask,
            line.value,
            line.group,
            fields.join(", ")
        )
        .unwrap();
    }
    out.push_str("];\n\n");

    out.push_str("impl Inst {\n    /// Index of this instruction's line in `ENCODINGS`.\n");
    out.push_str("    pub fn encoding_index(&self) -> usize {\n        match self {\n");
    for (index, line) in lines.iter().enumerate() {
        writeln!(out, "            Inst::{} {{ .. }} => {index},", camel_case(&line.name)).unwrap();
    }
    out.push_str("        }\n    }\n\n");

    out.push_str(
        "    /// The guard predicate (`@P0`, `@!P3`) of lines with `pg` and `pg_not` fields: (predicate, negated).\n",
    );
    out.push_str("    pub fn guard(&self) -> Option<(u32, bool)> {\n        match *self {\n");
    for line in lines {
        if has_guard(line) {
            writeln!(
                out,
                "            Inst::{} {{ pg, pg_not, .. }} => Some((pg, pg_not != 0)),",
                camel_case(&line.name)
            )
            .unwrap();
        }
    }
    if lines.iter().any(|line| !has_guard(line)) {
        out.push_str("            _ => None,\n");
    }
    out.push_str("        }\n    }\n\n");

    writeln!(out, "    /// Encodes the instruction: the inverse of `decode` (scheduling bits are left zero).").unwrap();
    writeln!(out, "    pub fn encode(&self) -> Result<{word}, EncodeError> {{").unwrap();
    out.push_str("        match self {\n");
    for line in lines {
        let names: Vec<&str> = line.fields.iter().map(|f| f.name.as_str()).collect();
        writeln!(out, "        Inst::{} {{ {} }} => {{", camel_case(&line.name), names.join(", ")).unwrap();
        writeln!(
            out,
            "            let {}word: {word} = {:#x};",
            if line.fields.is_empty() { "" } else { "mut " },
            line.value
        )
        .unwrap();
        for field in &line.fields {
            out.push_str(&deposit(field, word));
        }
        out.push_str("            Ok(word)\n        }\n");
    }
    out.push_str("        }\n    }\n}\n\n");

    writeln!(
        out,
        "/// Decodes one instruction word (scheduling bits ignored); `None` when no line of the table matches."
    )
    .unwrap();
    writeln!(out, "pub fn decode(word: {word}) -> Option<Inst> {{").unwrap();
    for line in lines {
        let fields: Vec<String> = line.fields.iter().map(|f| format!("{}: {}", f.name, extraction(f))).collect();
        writeln!(
            out,
            "    if word & {:#x} == {:#x} {{ return Some(Inst::{} {{ {} }}); }}",
            line.mask,
            line.value,
            camel_case(&line.name),
            fields.join(", ")
        )
        .unwrap();
    }
    out.push_str("    None\n}\n");
    out
}
