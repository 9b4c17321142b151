//! The machine's random-access limits, against which the engine's speed at large device sizes
//! is judged (`docs/design.md`, "Speed"): the latency of one dependent load (pointer chasing,
//! each address read from the previous load) and the throughput of independent loads (each
//! address computed, so that the core keeps as many misses in flight as it can), on arrays of
//! `u32` from L3-sized to terabyte-geometry-sized, on 4 KiB pages and on huge pages
//! ([`reclaim_core::memory::filled`]), and of independent read-modify-writes, whose every line
//! is written back as well. Throughput is in loads; criterion reports time per
//! iteration of `LOADS` loads and loads per second.
//!
//! `cargo bench -p reclaim-core --bench memory` (about two minutes; `-- chase` or `-- independent`
//! for one half).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use rand::{Rng, SeedableRng};
use reclaim_core::SimRng;

/// Loads per iteration.
const LOADS: u64 = 1 << 20;

/// Array sizes [u32 entries]: 32 MiB (the L3 cache's size), 256 MiB (a 100,000-segment
/// store's maps are 50 MiB, a 1,000,000-segment one's 500 MiB) and 1 GiB (one map of the 1 TiB
/// geometry).
const SIZES: [(&str, usize); 3] = [
    ("32MiB", 8 << 20),
    ("256MiB", 64 << 20),
    ("1GiB", 256 << 20),
];

/// A single cycle through every index (Sattolo's shuffle), on huge pages or not.
fn cycle(n: usize, huge: bool) -> Vec<u32> {
    let mut order: Vec<u32> = (0..n as u32).collect();
    let mut rng = SimRng::seed_from_u64(1);
    for i in (1..n).rev() {
        let j = rng.random_range(0..i);
        order.swap(i, j);
    }
    let mut next = if huge {
        reclaim_core::memory::filled(n, 0u32)
    } else {
        vec![0u32; n]
    };
    for w in order.windows(2) {
        next[w[0] as usize] = w[1];
    }
    next[order[n - 1] as usize] = order[0];
    next
}

/// `LOADS` dependent loads: each index is the value the previous load returned.
fn chase(next: &[u32], start: u32) -> u32 {
    let mut at = start;
    for _ in 0..LOADS {
        at = next[at as usize];
    }
    at
}

/// `LOADS` independent loads at pseudo-random indices (a multiplicative hash of a counter, so
/// that no load waits for another), summed so that none is optimized away.
fn independent(a: &[u32], salt: u64) -> u64 {
    let bits = a.len().trailing_zeros();
    let mut sum = 0u64;
    for i in 0..LOADS {
        let h = (i ^ salt).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - bits);
        sum = sum.wrapping_add(u64::from(a[h as usize]));
    }
    sum
}

/// `LOADS` independent read-modify-writes at pseudo-random indices, as the engine updates its
/// page map: every line fetched is also dirtied, and written back when it leaves the cache.
fn update(a: &mut [u32], salt: u64) {
    let bits = a.len().trailing_zeros();
    for i in 0..LOADS {
        let h = (i ^ salt).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - bits);
        a[h as usize] = a[h as usize].wrapping_add(1);
    }
}

fn memory(c: &mut Criterion) {
    for (name, n) in SIZES {
        for huge in [false, true] {
            let pages = if huge { "huge" } else { "4KiB" };
            let mut next = cycle(n, huge);
            let mut group = c.benchmark_group(format!("{name}_{pages}"));
            group.throughput(Throughput::Elements(LOADS));
            group.sample_size(10);
            let mut at = 0;
            group.bench_function("chase", |b| {
                b.iter(|| {
                    at = chase(&next, at);
                    at
                });
            });
            let mut salt = 0;
            group.bench_function("independent", |b| {
                b.iter(|| {
                    salt += LOADS;
                    independent(&next, salt)
                });
            });
            // Last: it leaves the cycle broken.
            group.bench_function("update", |b| {
                b.iter(|| {
                    salt += LOADS;
                    update(&mut next, salt);
                });
            });
            group.finish();
        }
    }
}

criterion_group!(benches, memory);
criterion_main!(benches);
