//! Just enough SPIR-V reading to refuse, with an error that says why, the modules a driver may crash on: Vulkan
//! leaves the behaviour of an invalid module, a missing entry point, a capability whose feature is off or a resource
//! the pipeline layout lacks undefined. This is not a validator (spirv-val is): a module that passes may still be
//! invalid in ways only the driver notices, and then pipeline creation fails or, with some drivers, worse.
//!
//! Checked: the header (magic, version, bound), every instruction's length, string literals, and from the
//! instructions that name the module's interface: entry points, `LocalSize`, capabilities, `Binding`/`DescriptorSet`
//! decorations, resource variables' storage classes and push constants.

use super::VulkanError;
use std::collections::{HashMap, HashSet};

const MAGIC: u32 = 0x0723_0203;
const HEADER_WORDS: usize = 5;

// Opcodes.
const OP_ENTRY_POINT: u32 = 15;
const OP_EXECUTION_MODE: u32 = 16;
const OP_CAPABILITY: u32 = 17;
const OP_TYPE_POINTER: u32 = 32;
const OP_VARIABLE: u32 = 59;
const OP_DECORATE: u32 = 71;

// Operands.
const EXECUTION_MODEL_GL_COMPUTE: u32 = 5;
const EXECUTION_MODE_LOCAL_SIZE: u32 = 17;
const DECORATION_BUFFER_BLOCK: u32 = 3;
const DECORATION_BINDING: u32 = 33;
const DECORATION_DESCRIPTOR_SET: u32 = 34;
const STORAGE_CLASS_UNIFORM_CONSTANT: u32 = 0;
const STORAGE_CLASS_UNIFORM: u32 = 2;
const STORAGE_CLASS_PUSH_CONSTANT: u32 = 9;
const STORAGE_CLASS_STORAGE_BUFFER: u32 = 12;

/// What the runner needs to know about a module.
#[derive(Debug, Default)]
pub(super) struct Module {
    /// (major, minor) from the header.
    pub version: (u32, u32),
    pub entry_points: Vec<EntryPoint>,
    /// Every `OpCapability` operand, in order.
    pub capabilities: Vec<u32>,
    /// Every variable with a `Binding` or `DescriptorSet` decoration, or in the push-constant storage class.
    pub resources: Vec<Resource>,
}

#[derive(Debug)]
pub(super) struct EntryPoint {
    /// The SPIR-V execution model (5 = GLCompute).
    pub model: u32,
    pub name: String,
    /// From `OpExecutionMode LocalSize`; `None` when absent (or given by `LocalSizeId`). A `WorkgroupSize`
    /// built-in constant, which would override it, is not followed.
    pub local_size: Option<[u32; 3]>,
}

impl EntryPoint {
    pub fn is_compute(&self) -> bool {
        self.model == EXECUTION_MODEL_GL_COMPUTE
    }
}

#[derive(Debug, PartialEq, Eq)]
pub(super) struct Resource {
    pub id: u32,
    pub set: Option<u32>,
    pub binding: Option<u32>,
    pub kind: ResourceKind,
}

#[derive(Debug, PartialEq, Eq, Clone, Copy)]
pub(super) enum ResourceKind {
    StorageBuffer,
    UniformBuffer,
    /// Images, samplers, acceleration structures: anything in `UniformConstant`.
    Opaque,
    PushConstant,
    /// A decorated variable whose storage class or type this reader does not follow.
    Other,
}

/// The SPIR-V numbers of the capabilities the runner checks against the device's features.
pub(super) mod capability {
    pub const FLOAT16: u32 = 9;
    pub const FLOAT64: u32 = 10;
    pub const INT64_ATOMICS: u32 = 12;
    pub const INT16: u32 = 22;
    pub const INT8: u32 = 39;
    pub const STORAGE_IMAGE_EXTENDED_FORMATS: u32 = 49;
    pub const GROUP_NON_UNIFORM: u32 = 61;
    pub const GROUP_NON_UNIFORM_VOTE: u32 = 62;
    pub const GROUP_NON_UNIFORM_ARITHMETIC: u32 = 63;
    pub const GROUP_NON_UNIFORM_BALLOT: u32 = 64;
    pub const GROUP_NON_UNIFORM_SHUFFLE: u32 = 65;
    pub const GROUP_NON_UNIFORM_SHUFFLE_RELATIVE: u32 = 66;
    pub const GROUP_NON_UNIFORM_CLUSTERED: u32 = 67;
    pub const GROUP_NON_UNIFORM_QUAD: u32 = 68;
    pub const STORAGE_BUFFER_16BIT_ACCESS: u32 = 4433;
    pub const SAMPLED_IMAGE_ARRAY_NON_UNIFORM_INDEXING: u32 = 5307;
    pub const DENORM_PRESERVE: u32 = 4464;
    pub const SIGNED_ZERO_INF_NAN_PRESERVE: u32 = 4466;
    pub const STORAGE_BUFFER_8BIT_ACCESS: u32 = 4448;
    pub const VULKAN_MEMORY_MODEL: u32 = 5345;
    pub const VULKAN_MEMORY_MODEL_DEVICE_SCOPE: u32 = 5346;
}

/// Reads a module's header and interface; any structural fault is `InvalidSpirv` with the word where it is.
pub(super) fn read(words: &[u32]) -> Result<Module, VulkanError> {
    let invalid = |at: usize, reason: String| VulkanError::InvalidSpirv { at, reason };
    if words.len() < HEADER_WORDS {
        return Err(invalid(0, format!("{} words are too few for the 5-word header", words.len())));
    }
    if words[0] != MAGIC {
        let reason = if words[0] == MAGIC.swap_bytes() {
            "the magic number is byte-swapped: the module was written with the other endianness".to_string()
        } else {
            format!("the magic number is {:#010x}, not 0x07230203", words[0])
        };
        return Err(invalid(0, reason));
    }
    let version = words[1];
    let (major, minor) = ((version >> 16) & 0xff, (version >> 8) & 0xff);
    if major != 1 || version & 0xff00_00ff != 0 {
        return Err(invalid(1, format!("{version:#010x} is not a SPIR-V 1.x version word")));
    }
    let bound = words[3];
    if bound == 0 {
        return Err(invalid(3, "the id bound is 0".to_string()));
    }
    if words[4] != 0 {
        return Err(invalid(4, format!("the reserved schema word is {:#x}, not 0", words[4])));
    }

    let mut module = Module { version: (major, minor), ..Module::default() };
    // Entry points by id, then execution modes, decorations, variables and pointer types, joined at the end.
    let mut entry_ids: Vec<u32> = Vec::new();
    let mut local_sizes: HashMap<u32, [u32; 3]> = HashMap::new();
    let mut sets: HashMap<u32, u32> = HashMap::new();
    let mut bindings: HashMap<u32, u32> = HashMap::new();
    let mut buffer_blocks: HashSet<u32> = HashSet::new();
    let mut pointers: HashMap<u32, u32> = HashMap::new();
    let mut variables: HashMap<u32, (u32, u32)> = HashMap::new();
    let mut push_constants: Vec<u32> = Vec::new();

    let mut at = HEADER_WORDS;
    while at < words.len() {
        let count = (words[at] >> 16) as usize;
        let opcode = words[at] & 0xffff;
        if count == 0 {
            return Err(invalid(at, format!("opcode {opcode} has a word count of 0")));
        }
        let Some(instruction) = words.get(at..at + count) else {
            return Err(invalid(
                at,
                format!("opcode {opcode} needs {count} words, but the module ends after {}", words.len() - at),
            ));
        };
        let operands = &instruction[1..];
        let short = || invalid(at, format!("opcode {opcode} has too few operands ({})", operands.len()));
        let id = |index: usize| -> Result<u32, VulkanError> {
            let id = *operands.get(index).ok_or_else(short)?;
            if id == 0 || id >= bound {
                return Err(invalid(at, format!("id {id} is outside the module's bound {bound}")));
            }
            Ok(id)
        };
        match opcode {
            OP_CAPABILITY => module.capabilities.push(*operands.first().ok_or_else(short)?),
            OP_ENTRY_POINT => {
                let model = *operands.first().ok_or_else(short)?;
                let function = id(1)?;
                let name = literal_string(operands.get(2..).unwrap_or(&[]))
                    .ok_or_else(|| invalid(at, "the entry point's name is not a terminated UTF-8 string".into()))?;
                entry_ids.push(function);
                module.entry_points.push(EntryPoint { model, name, local_size: None });
            }
            OP_EXECUTION_MODE => {
                let function = id(0)?;
                if operands.get(1) == Some(&EXECUTION_MODE_LOCAL_SIZE) {
                    let size = operands.get(2..5).ok_or_else(short)?;
                    local_sizes.insert(function, [size[0], size[1], size[2]]);
                }
            }
            OP_DECORATE => {
                let target = id(0)?;
                match operands.get(1) {
                    Some(&DECORATION_BINDING) => {
                        bindings.insert(target, *operands.get(2).ok_or_else(short)?);
                    }
                    Some(&DECORATION_DESCRIPTOR_SET) => {
                        sets.insert(target, *operands.get(2).ok_or_else(short)?);
                    }
                    Some(&DECORATION_BUFFER_BLOCK) => {
                        buffer_blocks.insert(target);
                    }
                    _ => {}
                }
            }
            OP_TYPE_POINTER => {
                pointers.insert(id(0)?, id(2)?);
            }
            OP_VARIABLE => {
                let (result_type, result) = (id(0)?, id(1)?);
                let storage_class = *operands.get(2).ok_or_else(short)?;
                variables.insert(result, (result_type, storage_class));
                if storage_class == STORAGE_CLASS_PUSH_CONSTANT {
                    push_constants.push(result);
                }
            }
            _ => {}
        }
        at += count;
    }

    for (entry, function) in module.entry_points.iter_mut().zip(&entry_ids) {
        entry.local_size = local_sizes.get(function).copied();
    }
    let mut decorated: Vec<u32> = sets.keys().chain(bindings.keys()).chain(&push_constants).copied().collect();
    decorated.sort_unstable();
    decorated.dedup();
    for id in decorated {
        let kind = match variables.get(&id) {
            Some(&(_, STORAGE_CLASS_STORAGE_BUFFER)) => ResourceKind::StorageBuffer,
            Some(&(_, STORAGE_CLASS_PUSH_CONSTANT)) => ResourceKind::PushConstant,
            Some(&(_, STORAGE_CLASS_UNIFORM_CONSTANT)) => ResourceKind::Opaque,
            // Before SPIR-V 1.3, storage buffers were Uniform blocks decorated BufferBlock.
            Some(&(pointer, STORAGE_CLASS_UNIFORM)) => match pointers.get(&pointer) {
                Some(pointee) if buffer_blocks.contains(pointee) => ResourceKind::StorageBuffer,
                _ => ResourceKind::UniformBuffer,
            },
            _ => ResourceKind::Other,
        };
        module.resources.push(Resource { id, set: sets.get(&id).copied(), binding: bindings.get(&id).copied(), kind });
    }
    Ok(module)
}

/// A SPIR-V literal string: UTF-8 bytes packed four to a word, lowest byte first, ending with a NUL.
fn literal_string(words: &[u32]) -> Option<String> {
    let bytes: Vec<u8> = words.iter().flat_map(|word| word.to_le_bytes()).collect();
    let end = bytes.iter().position(|&byte| byte == 0)?;
    String::from_utf8(bytes[..end].to_vec()).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `OpCapability Shader; OpMemoryModel Logical GLSL450; OpEntryPoint GLCompute %1 "main";
    /// OpExecutionMode %1 LocalSize 64 1 1; OpDecorate %2 DescriptorSet 0; OpDecorate %2 Binding 1;`
    /// then `%3 = OpTypePointer StorageBuffer %4; %2 = OpVariable %3 StorageBuffer`.
    #[rustfmt::skip]
    fn sample() -> Vec<u32> {
        let main = u32::from_le_bytes(*b"main");
        vec![
            MAGIC, 0x0001_0500, 0, 10, 0,
            (2 << 16) | OP_CAPABILITY, 1,
            (3 << 16) | 14, 0, 1,
            (5 << 16) | OP_ENTRY_POINT, EXECUTION_MODEL_GL_COMPUTE, 1, main, 0,
            (6 << 16) | OP_EXECUTION_MODE, 1, EXECUTION_MODE_LOCAL_SIZE, 64, 1, 1,
            (4 << 16) | OP_DECORATE, 2, DECORATION_DESCRIPTOR_SET, 0,
            (4 << 16) | OP_DECORATE, 2, DECORATION_BINDING, 1,
            (4 << 16) | OP_TYPE_POINTER, 3, STORAGE_CLASS_STORAGE_BUFFER, 4,
            (4 << 16) | OP_VARIABLE, 3, 2, STORAGE_CLASS_STORAGE_BUFFER,
        ]
    }

    #[test]
    fn reads_the_interface() {
        let module = read(&sample()).unwrap();
        assert_eq!(module.version, (1, 5));
        assert_eq!(module.capabilities, [1]);
        assert_eq!(module.entry_points.len(), 1);
        assert_eq!(module.entry_points[0].name, "main");
        assert!(module.entry_points[0].is_compute());
        assert_eq!(module.entry_points[0].local_size, Some([64, 1, 1]));
        assert_eq!(
            module.resources,
            [Resource { id: 2, set: Some(0), binding: Some(1), kind: ResourceKind::StorageBuffer }]
        );
    }

    #[test]
    fn structural_faults_are_errors_naming_the_word() {
        type Corruption = fn(&mut Vec<u32>);
        let cases: [(Corruption, usize, &str); 7] = [
            (|m| m.truncate(3), 0, "too few"),
            (|m| m[0] = MAGIC.swap_bytes(), 0, "byte-swapped"),
            (|m| m[1] = 0x0002_0000, 1, "not a SPIR-V 1.x"),
            (|m| m[3] = 0, 3, "bound is 0"),
            (|m| m[5] = OP_CAPABILITY, 5, "word count of 0"),
            (|m| m.truncate(m.len() - 1), 33, "module ends"),
            (|m| m[12] = 99, 10, "outside the module's bound"),
        ];
        for (corrupt, word, words) in cases {
            let mut module = sample();
            corrupt(&mut module);
            match read(&module) {
                Err(VulkanError::InvalidSpirv { at, reason }) => {
                    assert_eq!(at, word, "{reason}");
                    assert!(reason.contains(words), "{reason:?} should say {words:?}");
                }
                other => panic!("expected InvalidSpirv for {words:?}, got {other:?}"),
            }
        }
    }
}
