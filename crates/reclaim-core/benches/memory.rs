//! The machine's random-access limits, against which the engine's speed at large device sizes
//! is judged (`docs/design.md`, "Speed"): the latency of one dependent load (pointer chasing,
//! each address read from the previous load) and the throughput of independent loads (each
//! address computed, so that the core keeps as many misses in flight as it can), on arrays of
//! `u32` from L3-sized to terabyte-geometry-sized, on 4 KiB pages and on huge pages
//! ([`reclaim_core::memory::filled`]), and of independent read-modify-writes, whose every line
//! is written back as well. Throughput is in loads; criterion reports time per
//! iteration of `LOADS` loads and loads per second.
//!
//! The `write_chain` group measures the other bound, where the maps stay in the caches: the
//! chain of dependent loads of one user write under greedy on 10,000 segments of 64 pages (see
//! [`write_chain`]).
//!
//! `cargo bench -p reclaim-core --bench memory` (about two minutes; `-- chase` or `-- independent`
//! for one half, `-- write_chain` for the chain alone).

use criterion::measurement::WallTime;
use criterion::{criterion_group, criterion_main, BenchmarkGroup, Criterion, Throughput};
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

/// Array sizes [u32 entries] at and below the last-level cache's 32 MiB (`lscpu`), on huge pages
/// only: where the chase's latency rises from the cache's to the memory's shows how much of that
/// cache a run has to itself on a shared machine (a 100,000-segment store's maps are 50 MiB), and
/// the independent loads below that size the rate of the L3's hits.
const CACHE_SIZES: [(&str, usize); 4] = [
    ("2MiB", 512 << 10),
    ("4MiB", 1 << 20),
    ("8MiB", 2 << 20),
    ("16MiB", 4 << 20),
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

/// The arrays one user write reads in a chain under greedy, at the cache-resident size
/// (10,000 segments of 64 pages, spare 0.10), filled at random: the page map (2 MiB, in L3 as
/// the geometry's 2.2 MiB is; 2^19 pages, so that a page number mixes with a bit pattern and stays
/// in range), and per segment the valid count and greedy's position (40 KB each, in L2) and a
/// bucket slot (`policy/index/buckets.rs`), which here names the next page to write so that each
/// write waits for the one before.
struct Chain {
    page_map: Vec<u32>,
    valid: Vec<u32>,
    pos: Vec<u32>,
    bucket: Vec<u32>,
}

/// Segments and pages per segment of the cache-resident geometry (`reclaim bench`'s), and the
/// page map's length (a power of two near its 576,000 logical pages).
const CHAIN_SEGMENTS: u32 = 10_000;
const CHAIN_PPS: u32 = 64;
const CHAIN_PAGES_LOG2: u32 = 19;

impl Chain {
    fn new() -> Self {
        let slots = CHAIN_SEGMENTS * CHAIN_PPS;
        let pages = 1u32 << CHAIN_PAGES_LOG2;
        let mut rng = SimRng::seed_from_u64(2);
        let n = CHAIN_SEGMENTS as usize;
        Chain {
            page_map: (0..pages).map(|_| rng.random_range(0..slots)).collect(),
            valid: (0..n).map(|_| rng.random_range(0..CHAIN_PPS)).collect(),
            // Positions leave room for the valid count added to them (see `write_chain`).
            pos: (0..n)
                .map(|_| rng.random_range(0..CHAIN_SEGMENTS - CHAIN_PPS))
                .collect(),
            bucket: (0..n).map(|_| rng.random_range(0..pages)).collect(),
        }
    }
}

/// `LOADS` user writes' chains of dependent loads, one after another: page map → (slot →
/// segment, a shift) → the segment's valid count and greedy's position, loaded side by side →
/// the bucket slot they name → the next write's page (the slot's value mixed with a pattern
/// computed off the chain, one XOR on it, so that the walk does not fall into a short cycle of
/// the bucket's 10,000 values). The engine's invalidation follows the same chain (its segment's
/// valid count, then `buckets[valid][pos]`); the held word, the state and the moved segment's
/// position hang off it without lengthening it. With nothing announced early this is the time
/// a write cannot go below at this size.
fn write_chain(ch: &Chain, start: u32, salt: u64) -> u32 {
    let mut page = start;
    for k in 0..LOADS {
        let mix =
            ((k ^ salt).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - CHAIN_PAGES_LOG2)) as u32;
        let seg = (ch.page_map[page as usize] / CHAIN_PPS) as usize;
        let i = ch.pos[seg] + ch.valid[seg];
        page = ch.bucket[i as usize] ^ mix;
    }
    page
}

/// The dependent chain through `next` as the group's `chase`, each sample going on where the
/// last stopped.
fn bench_chase(group: &mut BenchmarkGroup<'_, WallTime>, next: &[u32]) {
    let mut at = 0;
    group.bench_function("chase", |b| {
        b.iter(|| {
            at = chase(next, at);
            at
        });
    });
}

fn memory(c: &mut Criterion) {
    let chain = Chain::new();
    let mut group = c.benchmark_group("write_chain");
    group.throughput(Throughput::Elements(LOADS));
    group.sample_size(10);
    let (mut page, mut salt) = (0, 0);
    group.bench_function("10000x64", |b| {
        b.iter(|| {
            salt += LOADS;
            page = write_chain(&chain, page, salt);
            page
        });
    });
    group.finish();
    for (name, n) in CACHE_SIZES {
        let next = cycle(n, true);
        let mut group = c.benchmark_group(format!("{name}_huge"));
        group.throughput(Throughput::Elements(LOADS));
        group.sample_size(10);
        bench_chase(&mut group, &next);
        // The rate of loads that miss the core's L2 (1 MiB) and hit the L3: the share of a
        // page write's time its L3 hits take at least (docs/design.md, "The memory's limit").
        let mut salt = 0;
        group.bench_function("independent", |b| {
            b.iter(|| {
                salt += LOADS;
                independent(&next, salt)
            });
        });
        group.finish();
    }
    for (name, n) in SIZES {
        for huge in [false, true] {
            let pages = if huge { "huge" } else { "4KiB" };
            let mut next = cycle(n, huge);
            let mut group = c.benchmark_group(format!("{name}_{pages}"));
            group.throughput(Throughput::Elements(LOADS));
            group.sample_size(10);
            bench_chase(&mut group, &next);
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
