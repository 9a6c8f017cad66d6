//! Generates the A64 decoder from `src/a64.decode` (the syntax is described at the top of that file).
//!
//! Output (`$OUT_DIR/a64_decode.rs`, included by `src/decode.rs`):
//! - `enum Inst`: one variant per table line, named in CamelCase after it, holding its fields as `u32`;
//! - `static ENCODINGS` and `static FAMILIES`: the table itself, for tests, fuzzers and coverage reports;
//! - `fn decode(word) -> Option<Inst>`: tries the lines whose fixed bits 28:25 agree with the word, in table order.

use std::fmt::Write as _;
use std::{env, fs, path::Path};

struct Field {
    name: String,
    lsb: u32,
    width: u32,
}

struct Line {
    name: String,
    family: usize,
    source_line: usize,
    mask: u32,
    value: u32,
    should_be_mask: u32,
    should_be_value: u32,
    fields: Vec<Field>,
    group: Option<usize>,
}

struct Family {
    name: String,
    title: String,
}

fn main() {
    let table_path = Path::new("src/a64.decode");
    println!("cargo::rerun-if-changed={}", table_path.display());
    let text = fs::read_to_string(table_path).expect("read src/a64.decode");
    let (families, lines) = parse(&text).unwrap_or_else(|e| panic!("src/a64.decode: {e}"));
    let code = generate(&families, &lines);
    let out = Path::new(&env::var("OUT_DIR").unwrap()).join("a64_decode.rs");
    fs::write(out, code).expect("write generated decoder");
}

fn parse(text: &str) -> Result<(Vec<Family>, Vec<Line>), String> {
    let mut families: Vec<Family> = Vec::new();
    let mut lines = Vec::new();
    let mut group: Option<usize> = None;
    let mut groups_seen = 0;
    for (index, raw) in text.lines().enumerate() {
        let line_no = index + 1;
        let line = raw.split('#').next().unwrap().trim();
        if line.is_empty() {
            continue;
        }
        if let Some(rest) = line.strip_prefix("@family") {
            let rest = rest.trim();
            let (name, title) = rest
                .split_once(' ')
                .ok_or_else(|| format!("line {line_no}: @family needs a name and a quoted title"))?;
            let title = title.trim().trim_matches('"').to_string();
            families.push(Family { name: name.to_string(), title });
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
        lines.push(parse_encoding(line, line_no, families.len() - 1, group)?);
    }
    if group.is_some() {
        return Err("unclosed '{'".into());
    }
    Ok((families, lines))
}

fn parse_encoding(line: &str, line_no: usize, family: usize, group: Option<usize>) -> Result<Line, String> {
    let mut tokens = line.split_whitespace();
    let name = tokens.next().unwrap().to_string();
    let mut encoding = Line {
        name,
        family,
        source_line: line_no,
        mask: 0,
        value: 0,
        should_be_mask: 0,
        should_be_value: 0,
        fields: Vec::new(),
        group,
    };
    // Bits are consumed from bit 31 down; `next` is the number of bits still to place.
    let mut next: u32 = 32;
    let mut take = |width: u32| -> Result<u32, String> {
        if width == 0 || width > next {
            return Err(format!("line {line_no}: more than 32 bits"));
        }
        next -= width;
        Ok(next)
    };
    for token in tokens {
        if let Some((field, width)) = token.split_once(':') {
            let width: u32 = width.parse().map_err(|_| format!("line {line_no}: bad width in {token}"))?;
            let lsb = take(width)?;
            if encoding.fields.iter().any(|f| f.name == field) {
                return Err(format!("line {line_no}: field {field} twice"));
            }
            encoding.fields.push(Field { name: field.to_string(), lsb, width });
        } else if let Some(bits) = token.strip_prefix('(').and_then(|t| t.strip_suffix(')')) {
            let lsb = take(bits.len() as u32)?;
            let value = parse_bits(bits, line_no)?;
            encoding.should_be_mask |= ones(bits.len() as u32) << lsb;
            encoding.should_be_value |= value << lsb;
        } else {
            let lsb = take(token.len() as u32)?;
            let value = parse_bits(token, line_no)?;
            encoding.mask |= ones(token.len() as u32) << lsb;
            encoding.value |= value << lsb;
        }
    }
    if next != 0 {
        return Err(format!("line {line_no}: {} bits short of 32", next));
    }
    Ok(encoding)
}

fn parse_bits(bits: &str, line_no: usize) -> Result<u32, String> {
    bits.chars().try_fold(0u32, |acc, c| match c {
        '0' => Ok(acc << 1),
        '1' => Ok(acc << 1 | 1),
        _ => Err(format!("line {line_no}: unexpected '{c}' in bit string {bits}")),
    })
}

fn ones(width: u32) -> u32 {
    if width >= 32 { u32::MAX } else { (1 << width) - 1 }
}

/// `name: <expression extracting the field from word>`.
fn field_extraction(field: &Field) -> String {
    match field.lsb {
        0 => format!("{}: word & {:#x}", field.name, ones(field.width)),
        lsb => format!("{}: (word >> {lsb}) & {:#x}", field.name, ones(field.width)),
    }
}

fn camel_case(name: &str) -> String {
    name.split('_')
        .map(|part| {
            let mut chars = part.chars();
            match chars.next() {
                Some(first) => first.to_ascii_uppercase().to_string() + chars.as_str(),
                None => String::new(),
            }
        })
        .collect()
}

const BUCKET_SHIFT: u32 = 25;
const BUCKET_MASK: u32 = 0xf;

fn generate(families: &[Family], lines: &[Line]) -> String {
    let mut out = String::new();
    out.push_str("// @generated by reference/build.rs from src/a64.decode. Do not edit.\n\n");

    out.push_str("/// A decoded A64 instruction: one variant per line of `a64.decode`, with its named fields.\n");
    out.push_str("#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]\npub enum Inst {\n");
    for line in lines {
        let fields: Vec<String> = line.fields.iter().map(|f| format!("{}: u32", f.name)).collect();
        writeln!(out, "    /// `{}` (a64.decode line {})", line.name, line.source_line).unwrap();
        writeln!(out, "    {} {{ {} }},", camel_case(&line.name), fields.join(", ")).unwrap();
    }
    out.push_str("}\n\n");

    out.push_str("/// The encoding families, in table order.\npub static FAMILIES: &[Family] = &[\n");
    for family in families {
        writeln!(out, "    Family {{ name: {:?}, title: {:?} }},", family.name, family.title).unwrap();
    }
    out.push_str("];\n\n");

    out.push_str("/// Every line of the table, in table order; `Inst::encoding_index` indexes it.\n");
    out.push_str("pub static ENCODINGS: &[Encoding] = &[\n");
    for line in lines {
        let fields: Vec<String> = line
            .fields
            .iter()
            .map(|f| format!("Field {{ name: {:?}, lsb: {}, width: {} }}", f.name, f.lsb, f.width))
            .collect();
        writeln!(
            out,
            "    Encoding {{ name: {:?}, family: {}, source_line: {}, mask: {:#010x}, value: {:#010x}, \
             should_be_mask: {:#010x}, should_be_value: {:#010x}, group: {:?}, fields: &[{}] }},",
            line.name,
            line.family,
            line.source_line,
            line.mask,
            line.value,
            line.should_be_mask,
            line.should_be_value,
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
    out.push_str("        }\n    }\n}\n\n");

    out.push_str("/// Decodes one instruction word; `None` when no line of the table matches (unallocated).\n");
    out.push_str("pub fn decode(word: u32) -> Option<Inst> {\n");
    writeln!(out, "    match (word >> {BUCKET_SHIFT}) & {BUCKET_MASK:#x} {{").unwrap();
    for bucket in 0..=BUCKET_MASK {
        if bucket == BUCKET_MASK {
            out.push_str("        _ => {\n");
        } else {
            writeln!(out, "        {bucket:#x} => {{").unwrap();
        }
        for line in lines {
            let fixed_in_bucket = (line.mask >> BUCKET_SHIFT) & BUCKET_MASK;
            let bucket_value = (line.value >> BUCKET_SHIFT) & BUCKET_MASK;
            if bucket & fixed_in_bucket != bucket_value {
                continue;
            }
            let fields: Vec<String> = line.fields.iter().map(field_extraction).collect();
            writeln!(
                out,
                "            if word & {:#010x} == {:#010x} {{ return Some(Inst::{} {{ {} }}); }}",
                line.mask,
                line.value,
                camel_case(&line.name),
                fields.join(", ")
            )
            .unwrap();
        }
        out.push_str("            None\n        }\n");
    }
    out.push_str("    }\n}\n");
    out
}
