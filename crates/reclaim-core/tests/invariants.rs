//! Property tests of the engine's invariants over random small geometries and every policy,
//! frontier and trigger: every logical page lives in exactly one slot, valid counts equal the
//! reverse map, free + open + sealed = segments (`Store::check`), and wa ≥ 1.

use proptest::prelude::*;
use reclaim_core::config::{Amount, WarmupSpec};
use reclaim_core::{SimConfig, Simulator};

const POLICIES: &[&str] = &[
    "fifo",
    "greedy",
    "greedy:tie=random",
    "random",
    "d-choices:d=1",
    "d-choices:d=4",
    "gra:d=1",
    "gra:d=3",
    "windowed:w=1",
    "windowed:w=5",
    "cost-benefit",
];
const FRONTIERS: &[&str] = &["single", "double:copy=random", "double:copy=oldest"];
const GCS: &[&str] = &["frontier", "one-free", "batch:low=2,victims=3"];
const WORKLOADS: &[&str] = &["uniform", "hotcold:r=0.9,f=0.1", "locality:fa=0.5,r=0.7/0.3,f=0.3/0.7", "zipf:theta=0.99"];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn invariants_hold(
        segments in 12u32..80,
        pps in 2u32..24,
        spare in 0.12f64..0.6,
        policy in 0..POLICIES.len(),
        frontier in 0..FRONTIERS.len(),
        gc in 0..GCS.len(),
        workload in 0..WORKLOADS.len(),
        seed in any::<u64>(),
        chunk in 1u64..200,
    ) {
        let config = SimConfig {
            segments: Some(segments),
            pages_per_segment: pps,
            spare: Some(spare),
            policy: POLICIES[policy].parse().unwrap(),
            frontier: FRONTIERS[frontier].parse().unwrap(),
            gc: GCS[gc].parse().unwrap(),
            workload: WORKLOADS[workload].parse().unwrap(),
            warmup: WarmupSpec { fill: true, multiple: 1.0, trace_share: 0.0 },
            writes: Some(Amount::Multiple(3.0)),
            seed,
            ..SimConfig::default()
        };
        // Geometries too tight for the frontiers and free segments are rejected up front.
        let Ok(mut sim) = Simulator::new(&config) else { return Ok(()); };
        let logical = sim.geometry().logical_pages;
        while sim.step(chunk).unwrap() {
            if let Err(e) = sim.store().check() {
                prop_assert!(false, "{}: {}", config.to_json(), e);
            }
        }
        let r = sim.result();
        prop_assert!(r.wa >= 1.0);
        prop_assert_eq!(r.user_writes, 3 * logical);
        prop_assert_eq!(r.cleaning_cost, r.gc_writes);
        // After the sequential fill every logical page is mapped.
        let mapped = sim.store().page_map.iter().filter(|&&s| s != u32::MAX).count() as u64;
        prop_assert_eq!(mapped, logical);
        let valid: u64 = sim.store().valid.iter().map(|&v| u64::from(v)).sum();
        prop_assert_eq!(valid, logical);
    }
}

/// The cleaner never runs forever: with every sealed segment full it stops with an error.
#[test]
fn full_device_is_an_error() {
    // 6 segments of 4 pages, 16 logical pages, FIFO: fits (6 − 1 frontier − 1 = 4 segments),
    // and the run completes because the frontier always leaves invalid pages behind.
    let c = SimConfig::from_json(r#"{"segments": 6, "pages_per_segment": 4, "logical_pages": 16, "policy": "fifo", "writes": "50x"}"#).unwrap();
    let r = Simulator::new(&c).unwrap().run().unwrap();
    assert!(r.wa >= 1.0);
}
