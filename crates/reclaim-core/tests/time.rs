//! Timed runs (`--device`) against closed forms: M/D/1 for Poisson single-page reads on one die
//! without cleaning, and the die-time bound on saturated writes.

use reclaim_core::{SimConfig, Simulator};

fn run(json: &str) -> reclaim_core::SimResult {
    let config = SimConfig::from_json(json).unwrap();
    Simulator::new(&config).unwrap().run().unwrap()
}

#[test]
fn poisson_reads_on_one_die_wait_as_m_d_1_says() {
    // One die, tR = 40 µs, ρ = λ·tR = 0.6: Pollaczek–Khinchine's mean wait for M/D/1 is
    // ρ·D / (2(1 − ρ)) = 30 µs, so the mean latency is 70 µs.
    let r = run(
        r#"{"device": "femu:channels=1,dies=1", "arrivals": "poisson:iops=15000",
        "reads": 1, "segments": 64, "writes": 400000, "warmup": "fill"}"#,
    );
    let t = r.time.expect("a timed run");
    assert_eq!(t.reads, 400_000);
    assert_eq!(t.writes, 0);
    let mean = t.read_latency.mean;
    assert!(
        (mean - 70.0).abs() / 70.0 < 0.02,
        "mean latency {mean} µs, M/D/1 says 70"
    );
    // The die is busy ρ of the time.
    assert!((t.die_busy - 0.6).abs() < 0.01, "die busy {}", t.die_busy);
    assert_eq!(t.gc_busy, 0.0);
}

#[test]
fn saturated_writes_reach_the_die_time_bound() {
    // A closed loop at a deep queue keeps every die busy: user IOPS = 1 / (flash time per user
    // page per die) = 1 / ((WA·tPROG + (WA − 1)·tR) / D + (WA / P)·tBERS), P the superblock's pages.
    let r = run(
        r#"{"device": "femu:channels=2,dies=2,pages_per_block=64", "arrivals": "closed:iodepth=256",
        "segments": 256, "spare": 0.1, "policy": "greedy", "writes": "4x", "warmup": "fill+4x"}"#,
    );
    let t = r.time.expect("a timed run");
    let (d, p) = (4.0, 256.0);
    let per_page_ns = (r.wa * 200_000.0 + (r.wa - 1.0) * 40_000.0) / d + r.wa / p * 2_000_000.0;
    let bound = 1e9 / per_page_ns;
    let ratio = t.write_iops / bound;
    assert!(
        (ratio - 1.0).abs() < 0.02,
        "IOPS {} vs bound {bound} (WA {})",
        t.write_iops,
        r.wa
    );
}

#[test]
fn a_run_without_a_device_reports_no_time() {
    let r = run(r#"{"segments": 64, "writes": "2x", "warmup": "fill"}"#);
    assert!(r.time.is_none());
}
