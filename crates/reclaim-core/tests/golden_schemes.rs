//! Golden results of every registered scheme: each policy × each placement of the registries
//! (by name, or an example for those with a required parameter) × two cleaner triggers on a
//! hot/cold workload, with a fixed seed, give the `gc_writes`, `erases` and erase-count checksum
//! recorded in `tests/data/golden-schemes.tsv`; a combination the configuration refuses is
//! recorded as refused.
//!
//! A new scheme is picked up from its registration: its rows are missing until recorded with
//! `RECLAIM_WRITE_GOLDEN=1 cargo test --release --test golden_schemes`, which rewrites the file
//! (the rows of the other schemes must come out as they were). `tests/golden.rs` keeps the
//! older, fixed record of the seeds' policies and frontiers.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

use reclaim_core::config::{Amount, WarmupSpec};
use reclaim_core::{SimConfig, Simulator};

const GCS: &[&str] = &["one-free", "batch:low=2,victims=3"];

/// A runnable spec of a registered scheme: its name, or an example where a parameter is
/// required.
fn example(name: &str) -> String {
    match name {
        "d-choices" | "gra" => format!("{name}:d=3"),
        "windowed" => "windowed:w=5".to_string(),
        "regions" => "regions:spare=0.5/0.5".to_string(),
        "planes" => "planes:n=4".to_string(),
        // An epoch short enough that the model runs within the run.
        "midas" => "midas:epoch=0.5".to_string(),
        // As many generations as this small device keeps open (64 by default).
        "gen" => "gen:generations=8".to_string(),
        _ => name.to_string(),
    }
}

fn erase_checksum(counts: &[u32]) -> u64 {
    counts.iter().fold(0xcbf2_9ce4_8422_2325, |mut h, c| {
        for b in c.to_le_bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        h
    })
}

/// Case → result, for every registered policy and placement.
fn results() -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for policy in reclaim_core::policy::POLICIES {
        for placement in reclaim_core::placement::PLACEMENTS {
            for gc in GCS {
                let (policy, placement) = (example(policy.name), example(placement.name));
                let config = SimConfig {
                    segments: Some(256),
                    pages_per_segment: 8,
                    spare: Some(0.25),
                    policy: policy.parse().unwrap(),
                    placement: Some(placement.parse().unwrap()),
                    gc: gc.parse().unwrap(),
                    workload: "hotcold:r=0.9,f=0.1".parse().unwrap(),
                    warmup: Some(WarmupSpec {
                        fill: true,
                        multiple: 1.0,
                        trace_share: 0.0,
                    }),
                    writes: Some(Amount::Multiple(3.0)),
                    seed: 7,
                    ..SimConfig::default()
                };
                let result = match Simulator::new(&config).and_then(Simulator::run) {
                    Ok(r) => format!(
                        "{}\t{}\t{:016x}",
                        r.gc_writes,
                        r.erases,
                        erase_checksum(&r.erase_counts)
                    ),
                    Err(reclaim_core::Error::Param { param, .. }) => format!("refused ({param})"),
                    Err(e) => panic!("{}: {e}", config.to_json()),
                };
                out.insert(format!("{policy}\t{placement}\t{gc}"), result);
            }
        }
    }
    out
}

#[test]
fn every_registered_scheme_gives_its_recorded_results() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/golden-schemes.tsv");
    let got = results();
    if std::env::var_os("RECLAIM_WRITE_GOLDEN").is_some() {
        let mut text = String::new();
        for (k, v) in &got {
            writeln!(text, "{k}\t{v}").unwrap();
        }
        std::fs::write(&path, text).unwrap();
        return;
    }
    let text = std::fs::read_to_string(&path).unwrap();
    let want: BTreeMap<String, String> = text
        .lines()
        .map(|l| {
            let mut parts = l.splitn(4, '\t');
            let key = [parts.next(), parts.next(), parts.next()]
                .map(Option::unwrap)
                .join("\t");
            (key, parts.next().unwrap().to_string())
        })
        .collect();
    let unrecorded: Vec<&String> = got.keys().filter(|k| !want.contains_key(*k)).collect();
    let gone: Vec<&String> = want.keys().filter(|k| !got.contains_key(*k)).collect();
    let changed: Vec<String> = got
        .iter()
        .filter_map(|(k, v)| {
            let w = want.get(k)?;
            (w != v).then(|| format!("  {k}: recorded {w}, now {v}"))
        })
        .collect();
    assert!(
        unrecorded.is_empty() && gone.is_empty(),
        "cases not recorded (a new scheme: record them with RECLAIM_WRITE_GOLDEN=1): {unrecorded:?}; \
         recorded cases no longer registered: {gone:?}"
    );
    assert!(
        changed.is_empty(),
        "{} of {} cases changed:\n{}",
        changed.len(),
        want.len(),
        changed.join("\n")
    );
    // Most combinations run: the registry's schemes work together.
    let ran = got.values().filter(|v| !v.starts_with("refused")).count();
    assert!(ran * 4 >= got.len() * 3, "{ran} of {} ran", got.len());
}
