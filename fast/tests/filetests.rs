//! The lifter's filetests, as Cranelift keeps them: each `filetests/*.a64` file holds a block of guest code and,
//! below `---`, the Cranelift IR the lifter makes of it. They pin down the shape of the code (lazy flags, inline
//! memory checks, side exits, helper calls), which no differential test sees. `TANDEM_BLESS=1 cargo test -p
//! tandem-fast --test filetests` rewrites the expected IR after a deliberate change; review the diff.
//!
//! Input lines are `0xWORD  assembly`: the word is the input, the assembly must be what Tandem's disassembler
//! says of it (so the file stays readable and honest). A `pc: 0x...` line sets where the block starts;
//! `seen: 0xFROM -> 0xTO` lines are the edge profile the region is built with (none: an empty profile).

use std::path::Path;
use tandem_fast::edges::EdgeProfile;
use tandem_fast::host_isa;
use tandem_fast::lift::{MAX_BLOCK_INSTRUCTIONS, lift_block};
use tandem_reference::disasm::disassemble;
use tandem_reference::memory::{GuestMemory, PAGE_SIZE, Perm};

const SEPARATOR: &str = "---\n";

struct FileTest {
    pc: u64,
    words: Vec<u32>,
    profile: EdgeProfile,
    header: String,
    expected: String,
}

/// Reads a filetest; with `bless`, the assembly beside each word is rewritten instead of checked.
fn parse(path: &Path, text: &str, bless: bool) -> FileTest {
    let (header, expected) = text.split_once(SEPARATOR).unwrap_or((text, ""));
    let mut pc = 0x1_0000;
    let mut words = Vec::new();
    let mut profile = EdgeProfile::default();
    let mut rewritten = String::new();
    for line in header.lines() {
        let trimmed = line.trim();
        if let Some(address) = trimmed.strip_prefix("pc:") {
            pc = hex(address);
        } else if let Some(edge) = trimmed.strip_prefix("seen:") {
            let (from, to) = edge.split_once("->").expect("seen: 0xFROM -> 0xTO");
            profile.record(hex(from), hex(to));
        } else if let Some(rest) = trimmed.strip_prefix("0x") {
            let (word, assembly) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
            let word = u32::from_str_radix(word, 16).expect("an instruction word in hex");
            let ours = disassemble(word, pc + 4 * words.len() as u64);
            if !bless {
                assert_eq!(
                    assembly.trim(),
                    ours,
                    "{}: the assembly beside {word:#010x} is not what the word encodes",
                    path.display()
                );
            }
            rewritten.push_str(&format!("0x{word:08x}  {ours}\n"));
            words.push(word);
            continue;
        }
        rewritten.push_str(line);
        rewritten.push('\n');
    }
    FileTest { pc, words, profile, header: rewritten, expected: expected.to_string() }
}

fn hex(text: &str) -> u64 {
    u64::from_str_radix(text.trim().trim_start_matches("0x"), 16).expect("an address as 0x...")
}

fn lift(test: &FileTest) -> String {
    let mut memory = GuestMemory::new().unwrap();
    let page = test.pc & !(PAGE_SIZE - 1);
    memory.map(page, PAGE_SIZE, Perm::RX).unwrap();
    // The page is filled with BRK #0 (which the lifter leaves to the reference) so that the block ends there.
    let brk = 0xd420_0000u32.to_le_bytes().repeat((PAGE_SIZE / 4) as usize);
    memory.write_privileged(page, &brk).unwrap();
    let code: Vec<u8> = test.words.iter().flat_map(|word| word.to_le_bytes()).collect();
    memory.write_privileged(test.pc, &code).unwrap();
    let isa = host_isa().unwrap();
    match lift_block(&memory, test.pc, MAX_BLOCK_INSTRUCTIONS, true, &test.profile, &*isa) {
        Some(block) => format!("; {} instructions\n{}", block.instructions, block.function.display()),
        None => "; not lifted\n".to_string(),
    }
}

#[test]
fn lifted_ir_matches_the_filetests() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("filetests");
    let bless = std::env::var_os("TANDEM_BLESS").is_some();
    let mut paths: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|entry| entry.unwrap().path()).collect();
    paths.retain(|path| path.extension().is_some_and(|extension| extension == "a64"));
    paths.sort();
    assert!(!paths.is_empty(), "no filetests in {}", dir.display());
    let mut failures = Vec::new();
    for path in paths {
        let text = std::fs::read_to_string(&path).unwrap();
        let test = parse(&path, &text, bless);
        let actual = lift(&test);
        if bless {
            std::fs::write(&path, format!("{}{SEPARATOR}{actual}", test.header)).unwrap();
        } else if actual != test.expected {
            failures.push(format!("{}:\n--- expected\n{}\n--- lifted\n{actual}", path.display(), test.expected));
        }
    }
    assert!(failures.is_empty(), "rerun with TANDEM_BLESS=1 if the change is intended\n{}", failures.join("\n"));
}
