//! Golden results: every policy × placement (single, double RND, double OLDEST) × cleaner trigger ×
//! workload on a small geometry with fixed seeds gives the `gc_writes`, `erases` and erase-count
//! checksum recorded in `tests/data/golden.tsv`.
//!
//! The file was recorded once from the engine as it stood before the placement layer (commit
//! 4535770, where frontiers were hard-coded in `sim.rs`), with `RECLAIM_WRITE_GOLDEN=1 cargo test
//! --release --test golden`. Any change to the engine that is meant to leave results alone must
//! leave every row as it is; a change that is meant to alter results must say so and re-record.

use std::fmt::Write as _;
use std::path::PathBuf;

use reclaim_core::config::{Amount, MethodSpec, WarmupSpec};
use reclaim_core::trace::convert::{page_list_trace, write_binary};
use reclaim_core::{SimConfig, Simulator};

const POLICIES: &[&str] = &[
    "fifo",
    "greedy:tie=random",
    "greedy:tie=oldest",
    "random",
    "d-choices:d=4",
    "gra:d=3",
    "windowed:w=5",
    "cost-benefit",
];
const FRONTIERS: &[&str] = &["single", "double:copy=random", "double:copy=oldest"];
const GCS: &[&str] = &["frontier", "one-free", "batch:low=2,victims=3"];
const WORKLOADS: &[&str] = &[
    "uniform",
    "hotcold:r=0.9,f=0.1",
    "locality:fa=0.5,r=0.7/0.3,f=0.3/0.7",
    "zipf:theta=0.99",
    "trace",
];

/// A skewed page-id trace over 250 pages, from a fixed linear congruential sequence (so that it
/// does not depend on any random-number library): 80% of writes to the first 50 pages.
fn trace_file() -> PathBuf {
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    let mut next = || {
        x = x
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (x >> 33) as u32
    };
    let pages: Vec<u32> = (0..3000)
        .map(|_| {
            if next() % 10 < 8 {
                next() % 50
            } else {
                50 + next() % 200
            }
        })
        .collect();
    let dir =
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("golden-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("skewed.rtr");
    write_binary(&page_list_trace(pages, "golden test"), &path).unwrap();
    path
}

/// FNV-1a over the erase counts, so that a change in where erases fall shows even when their
/// total does not change.
fn checksum(counts: &[u32]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for c in counts {
        for b in c.to_le_bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

fn config(
    policy: &str,
    frontier: &str,
    gc: &str,
    workload: &str,
    trace: &str,
    seed: u64,
) -> SimConfig {
    // The recorded trace cases replay with Li et al.'s method (a uniform warm-up, then the trace).
    let (workload, method) = if workload == "trace" {
        (format!("trace:{trace}"), Some(MethodSpec::Li))
    } else {
        (workload.to_string(), None)
    };
    SimConfig {
        segments: Some(48),
        pages_per_segment: 8,
        spare: Some(0.2),
        policy: policy.parse().unwrap(),
        frontier: frontier.parse().unwrap(),
        gc: gc.parse().unwrap(),
        workload: workload.parse().unwrap(),
        method,
        warmup: Some(WarmupSpec {
            fill: true,
            multiple: 1.0,
            trace_share: 0.0,
        }),
        writes: Some(Amount::Multiple(4.0)),
        seed,
        ..SimConfig::default()
    }
}

/// One line per case: the case, then `gc_writes erases checksum`.
fn results() -> String {
    let trace = trace_file();
    let trace = trace.to_str().unwrap();
    let mut out = String::new();
    for policy in POLICIES {
        for frontier in FRONTIERS {
            for gc in GCS {
                for (i, workload) in WORKLOADS.iter().enumerate() {
                    let seed = 11 + i as u64;
                    let c = config(policy, frontier, gc, workload, trace, seed);
                    let r = Simulator::new(&c).unwrap().run().unwrap();
                    writeln!(
                        out,
                        "{policy}\t{frontier}\t{gc}\t{workload}\t{}\t{}\t{:016x}",
                        r.gc_writes,
                        r.erases,
                        checksum(&r.erase_counts)
                    )
                    .unwrap();
                }
            }
        }
    }
    out
}

#[test]
fn results_match_the_recorded_engine() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/golden.tsv");
    let got = results();
    if std::env::var_os("RECLAIM_WRITE_GOLDEN").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &got).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path).unwrap();
    let mut differ = Vec::new();
    for (g, w) in got.lines().zip(want.lines()) {
        if g != w {
            differ.push(format!("  recorded {w}\n  now      {g}"));
        }
    }
    assert_eq!(got.lines().count(), want.lines().count(), "number of cases");
    assert!(
        differ.is_empty(),
        "{} of {} cases changed:\n{}",
        differ.len(),
        want.lines().count(),
        differ.join("\n")
    );
}
