//! The decoder and disassembler on any word: never panic; a decoded word matches the encoding it decoded to, and
//! every word is either decoded or reported unallocated by the interpreter's decode.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tandem_reference::decode::decode;
use tandem_reference::disasm::disassemble;

fuzz_target!(|input: (u32, u64)| {
    let (word, pc) = input;
    if let Some(inst) = decode(word) {
        assert!(inst.encoding().matches(word), "{word:#010x} decoded to {} which does not match it", inst.encoding().name);
    }
    let text = disassemble(word, pc);
    assert!(!text.is_empty());
});
