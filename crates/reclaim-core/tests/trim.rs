//! Discards (TRIM) in a trace: their pages hold no data, so the cleaner never copies them; with
//! `trim = false` the run is that of the trace without its discards.

use std::fmt::Write as _;
use std::path::PathBuf;

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use reclaim_core::config::SimConfig;
use reclaim_core::sim::Simulator;
use reclaim_core::store::NONE;
use reclaim_core::trace::convert::{convert, read_binary, write_binary, ConvertOptions};
use reclaim_core::trace::Format;

const LOGICAL: u64 = 2048;

/// blkparse text: every page written once, then (with `discard`) the first half discarded in one
/// request, then random writes over the second half only. A page is 8 sectors of 512 bytes.
fn blkparse(discard: bool) -> String {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(9);
    let mut text = String::new();
    let mut seq = 0;
    let mut line = |rwbs: &str, page: u64, pages: u64| {
        seq += 1;
        writeln!(
            text,
            "8,0 0 {seq} {seq}.0 100 Q {rwbs} {} + {} [fio]",
            page * 8,
            pages * 8
        )
        .unwrap();
    };
    for p in 0..LOGICAL {
        line("W", p, 1);
    }
    if discard {
        line("DS", 0, LOGICAL / 2);
    }
    for _ in 0..40_000 {
        line("W", rng.random_range(LOGICAL / 2..LOGICAL), 1);
    }
    text
}

fn converted(name: &str, discard: bool) -> PathBuf {
    let dir =
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("trim-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let text = dir.join(format!("{name}.blkparse"));
    std::fs::write(&text, blkparse(discard)).unwrap();
    let out = dir.join(format!("{name}.rtr"));
    write_binary(
        &convert(&text, Format::Blkparse, ConvertOptions::default()).unwrap(),
        &out,
    )
    .unwrap();
    out
}

fn sim(path: &std::path::Path, trim: bool) -> Simulator {
    let c = SimConfig::from_json(&format!(
        r#"{{"workload": "trace:{}", "method": "li", "warmup": "none", "pages_per_segment": 16, "spare": 0.2, "trim": {trim}}}"#,
        path.display()
    ))
    .unwrap();
    let mut s = Simulator::new(&c).unwrap();
    while s.step(1 << 20).unwrap() {}
    s
}

#[test]
fn discarded_pages_are_never_copied() {
    let with = converted("with", true);
    let t = read_binary(&with).unwrap();
    // One discard request of half the pages, stored as one range after the first pass of writes.
    assert_eq!((t.meta.trims, t.meta.pages_trimmed), (1, LOGICAL / 2));
    assert_eq!(t.trims.at, [LOGICAL]);
    let s = sim(&with, true);
    let r = s.result();
    assert_eq!(r.trimmed, LOGICAL / 2);
    // After the run, no discarded page holds data (none is written again), and the store holds
    // exactly the other half: nothing of the first half was ever relocated.
    let map = &s.store().page_map;
    assert!(map[..(LOGICAL / 2) as usize]
        .iter()
        .all(|&slot| slot == NONE));
    let valid: u64 = s.store().valid.iter().map(|&v| u64::from(v)).sum();
    assert_eq!(valid, LOGICAL / 2);
    // Without the discard the cold half stays valid and is copied: more GC writes.
    let off = sim(&with, false).result();
    assert_eq!(off.trimmed, 0);
    assert!(
        r.gc_writes < off.gc_writes,
        "{} vs {}",
        r.gc_writes,
        off.gc_writes
    );
}

#[test]
fn trim_off_is_the_trace_without_its_discards() {
    let (with, without) = (converted("on", true), converted("none", false));
    let (a, b) = (sim(&with, false).result(), sim(&without, true).result());
    assert_eq!(
        (a.user_writes, a.gc_writes, a.erases, &a.erase_counts),
        (b.user_writes, b.gc_writes, b.erases, &b.erase_counts)
    );
    // And a trace without discards runs as before, trim on or off.
    let c = sim(&without, false).result();
    assert_eq!((b.gc_writes, b.erases), (c.gc_writes, c.erases));
}

#[test]
fn precondition_applies_the_discards_every_pass() {
    let with = converted("passes", true);
    let c = SimConfig::from_json(&format!(
        r#"{{"workload": "trace:{}", "pages_per_segment": 16, "spare": 0.2}}"#,
        with.display()
    ))
    .unwrap();
    let r = Simulator::new(&c).unwrap().run().unwrap();
    // Each pass rewrites the first half once and discards it: the measured pass trims them all.
    assert_eq!(r.trimmed, LOGICAL / 2);
    assert!(r.method.unwrap().pass_wa.len() >= 2);
}
