//! What both disassemblers share: reading fields by name, and nvdisasm's spelling of registers, numbers and
//! listing lines.

use super::{Control, Encoding};
use std::fmt::Write as _;

/// One decoded instruction as the disassembler sees it: its table line, its bits and its scheduling.
pub(crate) struct View {
    pub encoding: &'static Encoding,
    pub word: u128,
    pub control: Control,
    /// Byte offset of the instruction (branch targets are relative to it).
    pub offset: usize,
}

impl View {
    /// Whether the line has a field of that name.
    pub fn has(&self, name: &str) -> bool {
        self.encoding.field(name).is_some()
    }

    /// The field's value; 0 when the line has no such field (a flag the form cannot set reads as clear).
    pub fn get(&self, name: &str) -> u64 {
        self.encoding.field(name).map_or(0, |field| field.extract(self.word))
    }

    pub fn flag(&self, name: &str) -> bool {
        self.get(name) != 0
    }

    /// The field's value, sign-extended from its width.
    pub fn signed(&self, name: &str) -> i64 {
        match self.encoding.field(name) {
            Some(field) => sign_extend(field.extract(self.word), field.width()),
            None => 0,
        }
    }

    /// `text` when the flag is set, else nothing.
    pub fn suffix<'t>(&self, name: &str, text: &'t str) -> &'t str {
        if self.flag(name) { text } else { "" }
    }

    /// The table entry for the field's value (`?N` for values nvdisasm calls invalid).
    pub fn choice(&self, name: &str, names: &[&'static str]) -> String {
        let value = self.get(name) as usize;
        match names.get(value) {
            Some(text) => (*text).to_string(),
            None => format!("?{value}"),
        }
    }
}

pub(crate) fn sign_extend(value: u64, width: u32) -> i64 {
    let shift = 64 - width;
    ((value << shift) as i64) >> shift
}

/// A general register: `R12`, or `RZ` for the zero register.
pub(crate) fn reg(number: u64, zero: u64) -> String {
    if number == zero { if zero == 255 { "RZ".into() } else { "URZ".into() } } else { format!("R{number}") }
}

/// A predicate: `P3`, `PT` (7), with `!` when negated.
pub(crate) fn pred(number: u64, negated: bool) -> String {
    let name = if number == 7 { "PT".to_string() } else { format!("P{number}") };
    if negated { format!("!{name}") } else { name }
}

/// The guard in front of an instruction: `@P0`, `@!P3`, nothing for `@PT`.
pub(crate) fn guard(number: u64, negated: bool) -> String {
    if number == 7 && !negated { String::new() } else { format!("@{}", pred(number, negated)) }
}

/// A signed number as nvdisasm writes immediates: `0x1f`, `-0x100`.
pub(crate) fn hex(value: i64) -> String {
    if value < 0 { format!("-{:#x}", value.unsigned_abs()) } else { format!("{value:#x}") }
}

/// A floating-point value as nvdisasm writes it: `%.20g` below 1e9 and `%.20e` from there on (glibc spelling),
/// `-0.0`, and `+INF `/`-QNAN ` (with their trailing space). `quiet_nan` tells quiet from signalling NaNs: only
/// FP64 operands keep the distinction, nvdisasm widens FP32 and FP16 values to double first, which quiets them.
pub(crate) fn float(value: f64, signalling_nan: bool) -> String {
    let sign = if value.is_sign_negative() { "-" } else { "+" };
    if value.is_nan() {
        return format!("{sign}{} ", if signalling_nan { "SNAN" } else { "QNAN" });
    }
    if value.is_infinite() {
        return format!("{sign}INF ");
    }
    if value == 0.0 {
        return if value.is_sign_negative() { "-0.0".into() } else { "0".into() };
    }
    if value.abs() >= 1e9 { c_exponential(value, 20) } else { c_general(value, 20) }
}

/// An FP32 value from its bits.
pub(crate) fn float32(bits: u32) -> String {
    float(f64::from(f32::from_bits(bits)), false)
}

/// An FP64 value from its bits.
pub(crate) fn float64(bits: u64) -> String {
    let value = f64::from_bits(bits);
    let signalling = value.is_nan() && bits >> 51 & 1 == 0;
    float(value, signalling)
}

/// An FP16 value from its bits.
pub(crate) fn float16(bits: u16) -> String {
    let sign = if bits >> 15 != 0 { -1.0 } else { 1.0 };
    let exponent = i32::from(bits >> 10 & 0x1f);
    let mantissa = f64::from(bits & 0x3ff);
    let value = match exponent {
        0 => sign * mantissa * 2f64.powi(-24),
        0x1f if mantissa == 0.0 => sign * f64::INFINITY,
        0x1f => f64::NAN.copysign(sign),
        _ => sign * (1.0 + mantissa / 1024.0) * 2f64.powi(exponent - 15),
    };
    float(value, false)
}

/// C's `%.{precision}e`: Rust's exponent spelled with a sign and at least two digits.
fn c_exponential(value: f64, precision: usize) -> String {
    let text = format!("{value:.precision$e}");
    let (mantissa, exponent) = text.split_once('e').expect("Rust's {:e} has an exponent");
    let exponent: i32 = exponent.parse().expect("Rust's exponent is a number");
    format!("{mantissa}e{}{:02}", if exponent < 0 { '-' } else { '+' }, exponent.abs())
}

/// C's `%.{precision}g`: fixed or exponential by the exponent, trailing zeros removed.
fn c_general(value: f64, precision: usize) -> String {
    let exponent: i32 = {
        let text = format!("{:.*e}", precision - 1, value);
        text.split_once('e').expect("Rust's {:e} has an exponent").1.parse().expect("a number")
    };
    if exponent < -4 || exponent >= precision as i32 {
        let text = c_exponential(value, precision - 1);
        let (mantissa, exponent) = text.split_once('e').expect("an exponent");
        format!("{}e{exponent}", strip_zeros(mantissa))
    } else {
        let decimals = (precision as i32 - 1 - exponent) as usize;
        strip_zeros(&format!("{value:.decimals$}")).to_string()
    }
}

fn strip_zeros(number: &str) -> &str {
    if number.contains('.') { number.trim_end_matches('0').trim_end_matches('.') } else { number }
}

/// A listing line as `nvdisasm -b` prints it, without the encoding comment: the address, the pair brace (SM5x
/// dual issue), the guard right-aligned in its column, the instruction, and `;` (or `}` closing a pair). The `;`
/// loses its space when the instruction neither stalls nor yields.
pub(crate) fn listing_line(
    offset: usize,
    opens_pair: bool,
    closes_pair: bool,
    control: Control,
    guard: &str,
    body: &str,
) -> String {
    let mut line = String::new();
    write!(line, "        /*{offset:04x}*/         {}{guard:>8} {body}", if opens_pair { '{' } else { ' ' }).unwrap();
    line.push_str(match (closes_pair, control.stall == 0 && !control.yield_hint) {
        (true, _) => "         }",
        (false, true) => ";",
        (false, false) => " ;",
    });
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_are_spelled_as_nvdisasm_spells_them() {
        // Pairs read from nvdisasm 11.8 (FMUL32I immediates and DMUL's 20-bit double immediates).
        let cases: &[(u32, &str)] = &[
            (0x0000_0001, "1.4012984643248170709e-45"),
            (0x0000_0020, "4.484155085839414627e-44"),
            (0x3f80_0000, "1"),
            (0x3f00_0000, "0.5"),
            (0x3dcc_cccd, "0.10000000149011611938"),
            (0x391d_4952, "0.00015000000712461769581"),
            (0x4e6e_6b27, "999999936"),
            (0x4e6e_6b28, "1.00000000000000000000e+09"),
            (0x5f80_0000, "1.84467440737095516160e+19"),
            (0x2f80_0000, "2.3283064365386962891e-10"),
            (0xc324_c985, "-164.7871856689453125"),
            (0x7f80_0000, "+INF "),
            (0xffc0_0000, "-QNAN "),
            (0x7f80_0001, "+QNAN "),
            (0x8000_0000, "-0.0"),
            (0x0000_0000, "0"),
        ];
        for &(bits, text) in cases {
            assert_eq!(float32(bits), text, "{bits:#010x}");
        }
        assert_eq!(float64(0x0010_0000_0000_0000), "2.2250738585072013831e-308");
        assert_eq!(float64(0x7ff0_1000_0000_0000), "+SNAN ");
    }
}
