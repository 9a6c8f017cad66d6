//! Filetests for the shader translator, as Cranelift keeps them: one text file per case in `tests/filetests/`,
//! SASS in (instruction words, each with its disassembly, which must stay what the disassembler prints), the
//! SPIR-V the translator makes out (`spirv-dis --no-header --raw-id`, after `spirv-val` accepts the module).
//! A change in the translation shows as a diff to review; `TANDEM_BLESS=1` writes the new output into the files.
//!
//! File format: `;` comment lines, `isa sm5x|sm86`, `block X[,Y,Z]`, `pools HEADERS,SAMPLERS indexed|switched`
//! (the pools that handles known only at run time read, bound as `PoolView` says), one instruction a line (SM86: the two 64-bit
//! words as nvdisasm lists them, scheduling included; SM5x: the 64-bit instruction, packed three to a bundle with
//! default scheduling), then two spaces and its text, then `--- spirv-dis` and the expected disassembly.

use std::path::Path;
use std::process::Command;
use tandem_gpu::sass::cubin::KernelImage;
use tandem_gpu::sass::{Control, Instruction, Isa, sm5x, sm86};
use tandem_gpu::shader::ir::PoolView;
use tandem_gpu::shader::{GlobalMemory, TextureView, program_needs, translate_compute};

const SEPARATOR: &str = "--- spirv-dis";

struct Case {
    header: Vec<String>,
    isa: Isa,
    block: [u32; 3],
    pools: Option<PoolView>,
    words: Vec<(u64, Option<u64>)>,
}

fn parse(text: &str) -> Case {
    let input = text.split_once(&format!("{SEPARATOR}\n")).map_or(text, |(input, _)| input);
    let mut case = Case { header: Vec::new(), isa: Isa::Sm86, block: [32, 1, 1], pools: None, words: Vec::new() };
    for line in input.lines() {
        if line.starts_with(';') || line.trim().is_empty() {
            case.header.push(line.to_string());
        } else if let Some(isa) = line.strip_prefix("isa ") {
            case.isa = if isa.trim() == "sm5x" { Isa::Sm5x } else { Isa::Sm86 };
            case.header.push(line.to_string());
        } else if let Some(block) = line.strip_prefix("block ") {
            let dims: Vec<u32> = block.split(',').map(|n| n.trim().parse().expect("block dimensions")).collect();
            case.block = std::array::from_fn(|i| dims.get(i).copied().unwrap_or(1));
            case.header.push(line.to_string());
        } else if let Some(pools) = line.strip_prefix("pools ") {
            let (counts, mode) = pools.split_once(' ').expect("pools HEADERS,SAMPLERS indexed|switched");
            let (headers, samplers) = counts.split_once(',').expect("pools HEADERS,SAMPLERS");
            case.pools = Some(PoolView {
                headers: headers.parse().expect("a header count"),
                samplers: samplers.parse().expect("a sampler count"),
                sampler_via_header: false,
                indexed: mode.trim() == "indexed",
            });
            case.header.push(line.to_string());
        } else {
            let code = line.split("  ").next().unwrap_or_default();
            let hex: Vec<u64> = code
                .split_whitespace()
                .map(|word| u64::from_str_radix(word.trim_start_matches("0x"), 16).expect("a hex word"))
                .collect();
            case.words.push((hex[0], hex.get(1).copied()));
        }
    }
    case
}

/// The code bytes and each instruction's text.
fn assemble(case: &Case) -> (Vec<u8>, Vec<String>) {
    match case.isa {
        Isa::Sm86 => {
            let code: Vec<u8> = case
                .words
                .iter()
                .flat_map(|&(low, high)| {
                    let mut bytes = low.to_le_bytes().to_vec();
                    bytes.extend(high.expect("SM86 instructions are two words").to_le_bytes());
                    bytes
                })
                .collect();
            let texts = sm86::decode_program(&code).unwrap().iter().map(sm86::text).collect();
            (code, texts)
        }
        Isa::Sm5x => {
            let instructions: Vec<_> = case
                .words
                .iter()
                .enumerate()
                .map(|(i, &(word, _))| Instruction {
                    offset: (i / 3) * 32 + 8 + (i % 3) * 8,
                    inst: sm5x::decode(word).unwrap_or_else(|| panic!("{word:#018x} does not decode")),
                    control: Control::default(),
                })
                .collect();
            let texts = instructions.iter().map(sm5x::text).collect();
            (sm5x::encode_program(&instructions).expect("whole bundles of three"), texts)
        }
    }
}

fn run_tool(tool: &str, args: &[&str], spirv: &[u8]) -> String {
    let path = std::env::temp_dir().join(format!("tandem-filetest-{}-{tool}.spv", std::process::id()));
    std::fs::write(&path, spirv).unwrap();
    let output = Command::new(tool).args(args).arg(&path).output().unwrap_or_else(|e| panic!("{tool}: {e}"));
    std::fs::remove_file(&path).unwrap();
    assert!(output.status.success(), "{tool}: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn translations_match_their_filetests() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/filetests");
    let bless = std::env::var_os("TANDEM_BLESS").is_some();
    let mut paths: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|entry| entry.unwrap().path()).collect();
    paths.sort();
    let mut failures = Vec::new();
    for path in paths.iter().filter(|path| path.extension().is_some_and(|e| e == "sass")) {
        let name = path.file_name().unwrap().to_string_lossy();
        let text = std::fs::read_to_string(path).unwrap();
        let case = parse(&text);
        let (code, texts) = assemble(&case);
        let kernel = KernelImage {
            name: name.to_string(),
            isa: case.isa,
            code,
            constants: Vec::new(),
            shared_bytes: 0,
            origin: 0,
        };
        // Pool bindings view the pools the case names; other textures hold FP32 numbers of their binding's shape.
        let views: Vec<TextureView> = program_needs(&kernel)
            .unwrap_or_else(|e| panic!("{name}: {e}"))
            .textures
            .iter()
            .map(|binding| TextureView::float(binding, case.pools))
            .collect();
        let translation = translate_compute(&kernel, case.block, 4096, &GlobalMemory::Device, &views)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let bytes: Vec<u8> = translation.spirv.iter().flat_map(|word| word.to_le_bytes()).collect();
        run_tool("spirv-val", &["--target-env", "vulkan1.2"], &bytes);
        let actual = run_tool("spirv-dis", &["--no-header", "--raw-id", "--no-color"], &bytes);
        // The emitter merges identical constants: no two share an opcode, a type and a value.
        let mut constants = std::collections::HashSet::new();
        for line in actual.lines().filter(|line| line.contains("= OpConstant")) {
            let (_, constant) = line.split_once(" = ").expect("a result id");
            assert!(constants.insert(constant.to_string()), "{name}: `{constant}` twice");
        }
        let mut written = case.header.join("\n");
        for ((low, high), text) in case.words.iter().zip(&texts) {
            let words = match high {
                Some(high) => format!("{low:#018x} {high:#018x}"),
                None => format!("{low:#018x}"),
            };
            written.push_str(&format!("\n{words}  {}", text.trim()));
        }
        written.push_str(&format!("\n{SEPARATOR}\n{actual}"));
        if bless {
            std::fs::write(path, &written).unwrap();
        } else if written != text {
            let first = written.lines().zip(text.lines()).position(|(a, b)| a != b).unwrap_or(0);
            failures.push(format!(
                "{name}: differs from line {} (now `{}`, the file `{}`); TANDEM_BLESS=1 writes the new output",
                first + 1,
                written.lines().nth(first).unwrap_or(""),
                text.lines().nth(first).unwrap_or("")
            ));
        }
    }
    assert!(paths.len() >= 6, "the filetests are gone from {}", dir.display());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
