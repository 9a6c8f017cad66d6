//! Links the `tandem` binary as a position-dependent executable: a PIE's ~50 000 relative relocations cost the
//! dynamic loader about a millisecond at every start, and scripts and the benchmarks start Tandem many times.
//! The code is still compiled position-independent; only the final link differs.

fn main() {
    println!("cargo:rustc-link-arg-bins=-no-pie");
}
