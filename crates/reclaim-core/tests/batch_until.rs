//! `batch:…,until=low`: cleaning cycles repeat until `low` segments are free, as
//! MiDAS-Simulation's `GC` cleans (`ssdsimul.cpp`: one victim at a time while fewer than
//! `FREENUM` are free); `until=cycle`, the default, is one cycle per opened frontier.

use reclaim_core::config::{GcSpec, SimConfig};
use reclaim_core::metrics::SimResult;
use reclaim_core::Simulator;

fn run(placement: &str, gc: &str) -> SimResult {
    let config = SimConfig::from_json(&format!(
        r#"{{"segments": 256, "pages_per_segment": 64, "spare": 0.1,
            "workload": "zipf:theta=0.99", "placement": "{placement}", "policy": "greedy",
            "warmup": "fill+4x", "writes": "8x", "gc": "{gc}", "seed": 1}}"#
    ))
    .unwrap();
    Simulator::new(&config).unwrap().run().unwrap()
}

/// Sealed segments at a victim choice, on average: the valid-count histogram over the sealed
/// segments, summed at every choice, over the victims.
fn sealed_at_choice(r: &SimResult) -> f64 {
    r.segment_valid_histogram.iter().sum::<u64>() as f64 / r.erases as f64
}

#[test]
fn until_is_shown_only_off_its_default_and_checked() {
    let low: GcSpec = "batch:low=4,victims=1,until=low".parse().unwrap();
    assert_eq!(low.to_string(), "batch:low=4,victims=1,until=low");
    assert_eq!(low.to_string().parse::<GcSpec>().unwrap(), low);
    let cycle: GcSpec = "batch:low=4,victims=1,until=cycle".parse().unwrap();
    assert_eq!(cycle.to_string(), "batch:low=4,victims=1");
    assert_ne!(cycle, low);
    let e = "batch:low=4,until=never"
        .parse::<GcSpec>()
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("gc.until") && e.contains("`cycle` or `low`"),
        "{e}"
    );
}

/// One log: relocation shares the user frontier's GC stream, so a cycle of one victim already
/// leaves `low` − 1 free, and both stops give the same run to the page (measured here: WA
/// 8.8734, 248.0 sealed segments at a choice, 256 − 2 open − 6 free).
#[test]
fn one_log_is_the_same_under_both_stops() {
    let cycle = run("single", "batch:low=8,victims=1");
    let low = run("single", "batch:low=8,victims=1,until=low");
    assert_eq!(cycle.gc_writes, low.gc_writes);
    assert_eq!(cycle.erases, low.erases);
    assert!((sealed_at_choice(&low) - 248.0).abs() < 1e-9);
}

/// `MiDA`'s five groups (the hot group and the naive chain of four, each a GC stream): one
/// victim per opened segment lets the free pool run down (251.8 sealed segments at a choice,
/// measured here), `until=low` keeps 7 or more free besides the 5 open segments (244.05), so
/// fewer segments hold data and WA rises (4.62 to 6.12, measured here).
#[test]
fn groups_keep_low_free_segments_only_with_until_low() {
    let cycle = run("mida", "batch:low=8,victims=1");
    let low = run("mida", "batch:low=8,victims=1,until=low");
    let (c, l) = (sealed_at_choice(&cycle), sealed_at_choice(&low));
    assert!(
        l <= 256.0 - 5.0 - 7.0 + 0.5,
        "until=low: {l} sealed at a choice"
    );
    assert!(c > l + 5.0, "cycle {c}, until=low {l}");
    assert!(
        low.wa > cycle.wa,
        "cycle {}, until=low {}",
        cycle.wa,
        low.wa
    );
}
