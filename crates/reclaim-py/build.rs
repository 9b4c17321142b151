//! `RECLAIM_ENGINE_ID`: a digest of every source file the engine is built from (both crates and
//! the lock file), so that a results database can tell one engine build's rows from another's
//! even when the version number has not changed.

use std::fs;
use std::path::{Path, PathBuf};

/// FNV-1a, 64 bits: stable across Rust releases, unlike `DefaultHasher`.
fn fnv(mut h: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, out);
        } else {
            out.push(p);
        }
    }
}

fn main() {
    let here = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let root = here.join("../..");
    let inputs = [
        root.join("crates/reclaim-core/src"),
        root.join("crates/reclaim-core/Cargo.toml"),
        here.join("src"),
        here.join("Cargo.toml"),
        root.join("Cargo.lock"),
    ];
    let mut paths = Vec::new();
    for p in &inputs {
        println!("cargo:rerun-if-changed={}", p.display());
        if p.is_dir() {
            files(p, &mut paths);
        } else {
            paths.push(p.clone());
        }
    }
    // Sorted by their path relative to the workspace: the digest is the same in any checkout.
    let mut named: Vec<(String, PathBuf)> = paths
        .into_iter()
        .map(|p| {
            let rel = p
                .strip_prefix(&root)
                .unwrap_or(&p)
                .to_string_lossy()
                .replace('\\', "/");
            (rel, p)
        })
        .collect();
    named.sort();
    let mut h = 0xcbf2_9ce4_8422_2325;
    for (rel, p) in &named {
        h = fnv(h, rel.as_bytes());
        h = fnv(h, &[0]);
        h = fnv(h, &fs::read(p).unwrap_or_default());
        h = fnv(h, &[0]);
    }
    println!("cargo:rustc-env=RECLAIM_ENGINE_ID={h:016x}");
}
