//! Method names of each class, from the tables in `gpu/classes/` (generated from NVIDIA's open-gpu-doc class
//! headers by `gpu/classes/generate.py`): for error messages, traces and the named accessors.

use super::Class;
use std::sync::OnceLock;

/// A method, or an array of methods `stride` bytes apart.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Entry {
    offset: u32,
    name: &'static str,
    /// (stride in bytes, elements) of an array.
    array: Option<(u32, u32)>,
}

/// One class's method names.
#[derive(Debug, Default)]
pub struct MethodTable {
    entries: Vec<Entry>,
}

impl MethodTable {
    /// Reads a table: `0xOFFSET NAME` per method, `0xOFFSET NAME STRIDE COUNT` per array, `#` comments.
    fn parse(text: &'static str) -> MethodTable {
        let entries = text
            .lines()
            .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
            .map(|line| {
                let fields: Vec<&'static str> = line.split_whitespace().collect();
                let number = |field: &str| {
                    let parsed = match field.strip_prefix("0x") {
                        Some(hex) => u32::from_str_radix(hex, 16),
                        None => field.parse(),
                    };
                    parsed.unwrap_or_else(|_| panic!("gpu/classes: bad number {field:?} in {line:?}"))
                };
                let array = (fields.len() == 4).then(|| (number(fields[2]), number(fields[3])));
                Entry { offset: number(fields[0]), name: fields[1], array }
            })
            .collect();
        MethodTable { entries }
    }

    /// The name of the method at `offset`: `NAME` or `NAME(i)`.
    pub fn name(&self, offset: u32) -> Option<String> {
        self.entries.iter().find_map(|entry| match entry.array {
            None => (entry.offset == offset).then(|| entry.name.to_string()),
            Some((stride, count)) => {
                let index = offset.checked_sub(entry.offset)?;
                (index % stride == 0 && index / stride < count).then(|| format!("{}({})", entry.name, index / stride))
            }
        })
    }

    /// The offset of method `name`, or of element `index` of array `name`.
    pub fn offset(&self, name: &str, index: u32) -> Option<u32> {
        let entry = self.entries.iter().find(|entry| entry.name == name)?;
        match entry.array {
            None if index == 0 => Some(entry.offset),
            Some((stride, count)) if index < count => Some(entry.offset + stride * index),
            _ => None,
        }
    }
}

/// The table of `class`, or of the host class (`None`).
pub fn table(class: Option<Class>) -> &'static MethodTable {
    static TABLES: OnceLock<Vec<MethodTable>> = OnceLock::new();
    let tables = TABLES.get_or_init(|| {
        [
            include_str!("../../classes/b06f.methods"),
            include_str!("../../classes/b197.methods"),
            include_str!("../../classes/b1c0.methods"),
            include_str!("../../classes/b0b5.methods"),
            include_str!("../../classes/902d.methods"),
            include_str!("../../classes/a140.methods"),
            include_str!("../../classes/c7c0.methods"),
            include_str!("../../classes/c7b5.methods"),
            include_str!("../../classes/c797.methods"),
        ]
        .into_iter()
        .map(MethodTable::parse)
        .collect()
    });
    match class {
        None => &tables[0],
        Some(class) => &tables[1 + Class::ALL.iter().position(|&c| c == class).expect("every class is in ALL")],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Offsets straight from the class headers.
    #[test]
    fn names_and_offsets_match_the_class_headers() {
        let three_d = table(Some(Class::Maxwell3D));
        assert_eq!(three_d.name(0x19d0).as_deref(), Some("CLEAR_SURFACE"));
        assert_eq!(three_d.name(0x0d88).as_deref(), Some("SET_COLOR_CLEAR_VALUE(2)"));
        assert_eq!(three_d.name(0x3808).as_deref(), Some("CALL_MME_MACRO(1)"));
        assert_eq!(three_d.offset("SET_REPORT_SEMAPHORE_D", 0), Some(0x1b0c));
        assert_eq!(table(None).name(0x78).as_deref(), Some("WFI"));
        assert_eq!(table(Some(Class::InlineToMemory)).offset("LAUNCH_DMA", 0), Some(0x1b0));
        assert_eq!(table(Some(Class::AmpereCompute)).name(0x02c0).as_deref(), Some("SEND_SIGNALING_PCAS2_B"));
        assert_eq!(table(Some(Class::AmpereCopy)).offset("LAUNCH_DMA", 0), Some(0x300));
        let ampere = table(Some(Class::Ampere3D));
        assert_eq!(ampere.name(0x2054).as_deref(), Some("SET_PIPELINE_PROGRAM_ADDRESS_A(1)"));
        assert_eq!(ampere.offset("SET_VERTEX_STREAM_SIZE_B", 2), Some(0x0614));
        assert_eq!(ampere.offset("SET_INDEX_BUFFER_SIZE_A", 0), Some(0x0238));
    }
}
