//! Fingerprints what compiled code depends on (the fast path's and the reference's sources, the decode table, the
//! locked versions of Cranelift and every other dependency), so that the on-disk code cache drops code a
//! different lifter, or a different guest state layout, made.

use std::path::{Path, PathBuf};

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files(&path, out);
        } else if path.extension().is_some_and(|extension| extension == "rs") {
            out.push(path);
        }
    }
}

/// FNV-1a, 64 bits, from `seed`.
fn fnv1a(seed: u64, bytes: &[u8]) -> u64 {
    bytes.iter().fold(seed, |hash, &byte| (hash ^ u64::from(byte)).wrapping_mul(0x100_0000_01b3))
}

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let mut inputs = Vec::new();
    files(&manifest.join("src"), &mut inputs);
    // Compiled code bakes in the reference's layouts too: `CpuState`'s field offsets, the address space's size,
    // the view's guard (a path dependency, which `Cargo.lock` does not version).
    files(&manifest.join("../reference/src"), &mut inputs);
    inputs.sort();
    inputs.push(manifest.join("../reference/src/a64.decode"));
    inputs.push(manifest.join("../Cargo.lock"));
    let (mut low, mut high) = (0xcbf2_9ce4_8422_2325, 0x8422_2325_cbf2_9ce4);
    for path in &inputs {
        println!("cargo:rerun-if-changed={}", path.display());
        let name = path.strip_prefix(&manifest).unwrap_or(path).to_string_lossy().into_owned();
        let contents = std::fs::read(path).unwrap_or_default();
        for part in [name.as_bytes(), &contents] {
            low = fnv1a(low, part);
            high = fnv1a(high, part);
        }
    }
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=../reference/src");
    println!("cargo:rustc-env=TANDEM_LIFTER_FINGERPRINT={high:016x}{low:016x}");
}
