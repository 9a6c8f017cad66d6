//! Every loader's parser on any bytes: a value or a typed error, never a panic, a hang or a runaway allocation.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tandem_hle::loader::romfs::RomFs;
use tandem_hle::loader::{elf, npdm, nro, nso};

fuzz_target!(|data: &[u8]| {
    let _ = nso::read("fuzz.nso", data);
    let _ = nro::read("fuzz.nro", data);
    let _ = nro::read_nacp("fuzz.nacp", data);
    let _ = npdm::read("fuzz.npdm", data);
    // The image of a hostile ELF may legitimately be gigabytes of bss; relocation is exercised on small ones.
    if let Some(module) = elf::read("fuzz.elf", data).ok().filter(|m| m.image_size() <= 64 << 20) {
        let mut image = module.image();
        let _ = module.relocate(&mut image, 0x800_0000);
    }
    if let Ok(romfs) = RomFs::from_bytes("fuzz.romfs", data.to_vec()) {
        if let Ok(root) = romfs.root() {
            for entry in root.iter().take(16) {
                let path = format!("/{}", entry.name);
                let _ = romfs.list_dir(&path);
                let _ = romfs.read_file(&path);
            }
        }
    }
});
