//! Property tests of the engine's invariants over random small geometries and every policy,
//! placement (its streams leaving holes or acting as a cache), trigger and workload, with the write
//! cache on and off: every logical page lives in exactly one slot or waits in one stream, valid
//! counts equal the reverse map, free + open + sealed = segments, every open segment belongs to
//! one stream, and each region owns what it counts, within its quota (`Simulator::check`); and
//! wa ≥ 1.

use proptest::prelude::*;
use reclaim_core::config::{Amount, WarmupSpec};
use reclaim_core::store::SegState;
use reclaim_core::{SimConfig, Simulator};

const POLICIES: &[&str] = &[
    "fifo",
    "greedy",
    "greedy:tie=random",
    "greedy:tie=oldest",
    "greedy:tie=fifo",
    "random",
    "d-choices:d=1",
    "d-choices:d=4",
    "gra:d=1",
    "gra:d=3",
    "windowed:w=1",
    "windowed:w=5",
    "windowed:w=5,tie=fifo",
    "cost-benefit",
    "age-threshold:nat=0.05",
    STALLING_AGE_THRESHOLD,
    "fitness",
    "fitness:buckets=3,sort=fifo,at=2",
    "fitness:sort=tree,ties=last,requeue=every",
    "multi-log",
    "cost-hotness",
];
/// Age-threshold with coarse buckets in Tree order: may stop without progress on a small device
/// (see `invariants_hold`).
const STALLING_AGE_THRESHOLD: &str = "age-threshold:nat=0.05,buckets=3,sort=tree,age=tw";
/// Placements, each with its streams leaving holes or acting as a cache (`double` only leaves
/// holes); [`placements`] adds every other registered placement.
const LISTED: &[(&str, &str)] = &[
    ("single", "hole"),
    ("single", "cache"),
    ("double:copy=random", "hole"),
    ("double:copy=oldest", "hole"),
    ("oracle", "hole"),
    ("oracle", "cache"),
    ("regions:spare=0.5/0.5", "hole"),
    ("regions:spare=0.5/0.5", "cache"),
    ("age-sorted:dtg_exp=2,fsc_exp=2", "hole"),
    (
        "age-sorted:dtg_exp=2,fsc_exp=1,dtg_sort=1,split=mean",
        "cache",
    ),
    (
        "age-sorted:dtg_exp=2,fsc_exp=2,fsc_number=min,open_age=zero,first_age=zero",
        "cache",
    ),
    ("age-sorted:dtg_exp=1,fsc_exp=2,fsc_number=min", "hole"),
    ("multi-log:logs=3", "hole"),
    ("multi-log:logs=3,freq=exact", "hole"),
];
/// The spec of a registered placement that runs on a hot/cold workload: its name, or, for one
/// with a required parameter, an example.
fn example(name: &str) -> String {
    match name {
        "regions" => "regions:spare=0.5/0.5".to_string(),
        "planes" => "planes:n=4".to_string(),
        // An epoch short enough that the model runs within the run; 4 streams (2 FIFO groups, a
        // naive chain of 2), so that it fits the small devices drawn here.
        "midas" => "midas:epoch=0.5,groups=3,naive=2".to_string(),
        // Four generations (64 by default), so that it fits the small devices drawn here.
        "gen" => "gen:generations=4".to_string(),
        _ => name.to_string(),
    }
}

/// The listed placements, then every registered placement not listed, with each streams mode it
/// accepts: a new placement is checked without being named here. (`sort-buffer` is left to its
/// own test, which counts the pages its buffer holds.)
fn placements() -> Vec<(String, &'static str)> {
    let mut all: Vec<(String, &str)> = LISTED.iter().map(|&(p, s)| (p.to_string(), s)).collect();
    for info in reclaim_core::placement::PLACEMENTS {
        let listed = LISTED
            .iter()
            .any(|(p, _)| p.split(':').next() == Some(info.name));
        if listed || info.name == "sort-buffer" {
            continue;
        }
        for streams in ["hole", "cache"] {
            let config = SimConfig {
                placement: Some(example(info.name).parse().unwrap()),
                streams: streams.parse().unwrap(),
                workload: "hotcold:r=0.9,f=0.1".parse().unwrap(),
                ..SimConfig::default()
            };
            if config.validate().is_ok() {
                all.push((example(info.name), streams));
            }
        }
    }
    all
}

const GCS: &[&str] = &[
    "frontier",
    "one-free",
    "batch:low=2,victims=3",
    "batch:low=2,victims=3,gather=all",
    "batch:low=2,victims=3,gather=all,sort=written",
    "batch:low=2,victims=3,gather=all,sort=dseq",
    "max-empty:k=1",
    "max-empty:k=3",
];
const WORKLOADS: &[&str] = &[
    "uniform",
    "hotcold:r=0.9,f=0.1",
    "locality:fa=0.5,r=0.7/0.3,f=0.3/0.7",
    "zipf:theta=0.99",
    // SSD-iq's zones, a zone never written between two written ones.
    "zones:s=0.3/0.2/0.5,f=0.6/0/0.4",
];

/// Runs `config` to the end in steps of `chunk` writes, checking the invariants after each;
/// `None` when the configuration is refused up front (a parameter error) or, with
/// `no_progress_ok`, when the cleaner stops without progress.
fn run_checked(
    config: &SimConfig,
    chunk: u64,
    no_progress_ok: bool,
) -> Result<Option<Simulator>, TestCaseError> {
    let mut sim = match Simulator::new(config) {
        Ok(sim) => sim,
        Err(reclaim_core::Error::Param { .. }) => return Ok(None),
        Err(e) => return Err(TestCaseError::fail(format!("{}: {e}", config.to_json()))),
    };
    loop {
        match sim.step(chunk) {
            Ok(true) => {}
            Ok(false) => return Ok(Some(sim)),
            Err(reclaim_core::Error::NoProgress { .. }) if no_progress_ok => return Ok(None),
            Err(e) => return Err(TestCaseError::fail(format!("{}: {e}", config.to_json()))),
        }
        sim.check()
            .map_err(|e| TestCaseError::fail(format!("{}: {e}", config.to_json())))?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn invariants_hold(
        segments in 12u32..80,
        pps in 2u32..24,
        spare in 0.12f64..0.6,
        policy in 0..POLICIES.len(),
        placement in 0..placements().len(),
        gc in 0..GCS.len(),
        cache in prop::option::of(1u64..40),
        free_empty in any::<bool>(),
        workload in 0..WORKLOADS.len(),
        seed in any::<u64>(),
        chunk in 1u64..200,
    ) {
        let (placement, streams) = placements().swap_remove(placement);
        let config = SimConfig {
            segments: Some(segments),
            pages_per_segment: pps,
            spare: Some(spare),
            policy: POLICIES[policy].parse().unwrap(),
            placement: Some(placement.parse().unwrap()),
            streams: streams.parse().unwrap(),
            free_empty,
            cache,
            gc: GCS[gc].parse().unwrap(),
            workload: WORKLOADS[workload].parse().unwrap(),
            warmup: Some(WarmupSpec { fill: true, multiple: 1.0, trace_share: 0.0 }),
            writes: Some(Amount::Multiple(3.0)),
            seed,
            ..SimConfig::default()
        };
        // Geometries too tight for the streams and free segments, placements that need classes
        // on a workload without them, and policies that `regions` and `planes` cannot index are rejected up
        // front, with a parameter error. Every other run must reach its end, but for two that may
        // stop without progress (never hang, never break an invariant): a region (or a plane,
        // whose share of the data drifts as writes are dealt in turn) given too little room, and
        // age-threshold over three buckets in Tree order,
        // which can keep taking the oldest segment of the top bucket, full, whose pages rewritten
        // whole into a GC stream make a segment as old and as full (ages count destages, and
        // none happens while the cleaner looks for room).
        let may_stall = placement.starts_with("regions")
            || placement.starts_with("planes")
            || POLICIES[policy] == STALLING_AGE_THRESHOLD;
        let Some(sim) = run_checked(&config, chunk, may_stall)? else { return Ok(()) };
        let logical = sim.geometry().logical_pages;
        let r = sim.result();
        prop_assert!(r.wa >= 1.0 || r.user_writes == 0);
        if config.cache.is_none() {
            prop_assert_eq!(r.user_writes, 3 * logical);
        } else {
            // Every workload write is a hit or a miss; the store sees at most the misses.
            let hits = (r.cache_hit_ratio * (3 * logical) as f64).round() as u64;
            prop_assert!(r.user_writes + hits <= 3 * logical);
        }
        prop_assert_eq!(r.cleaning_cost, r.gc_writes);
        // After the sequential fill (which bypasses the cache) every logical page is mapped.
        let mapped = sim.store().page_map.iter().filter(|&&s| s != u32::MAX).count() as u64;
        prop_assert_eq!(mapped, logical);
        // Every page is in a slot or waits in a stream.
        let valid: u64 = sim.store().valid.iter().map(|&v| u64::from(v)).sum();
        let waiting: u64 = sim.admission().waiting.iter().map(|p| p.len() as u64).sum();
        prop_assert_eq!(valid + waiting, logical);
    }
}

/// A run of (segments, pages per segment, spare) with [policy, placement, gc, workload], a fill
/// and one pass of warm-up, then three measured passes.
fn three_passes(
    (segments, pps, spare): (u32, u32, f64),
    [policy, placement, gc, workload]: [&str; 4],
    cache: Option<u64>,
    seed: u64,
) -> SimConfig {
    SimConfig {
        segments: Some(segments),
        pages_per_segment: pps,
        spare: Some(spare),
        policy: policy.parse().unwrap(),
        placement: Some(placement.parse().unwrap()),
        cache,
        gc: gc.parse().unwrap(),
        workload: workload.parse().unwrap(),
        warmup: Some(WarmupSpec {
            fill: true,
            multiple: 1.0,
            trace_share: 0.0,
        }),
        writes: Some(Amount::Multiple(3.0)),
        seed,
        ..SimConfig::default()
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// The sort buffer (Lomet & Luo §5.3) under every policy that runs with it, any buffer size,
    /// sorted or not, holes or absorbed rewrites, every trigger and sort key, the write cache on
    /// or off: the invariants after every step, every write counted, and every page in a slot,
    /// in the buffer, or in neither only while a dead copy stands for it.
    #[test]
    fn the_sort_buffer_keeps_the_invariants(
        segments in 16u32..80,
        pps in 2u32..16,
        spare in 0.2f64..0.6,
        policy in 0..5usize,
        k in 1u32..4,
        sort in any::<bool>(),
        absorb in any::<bool>(),
        gc in 0..5usize,
        cache in prop::option::of(1u64..40),
        workload in 0..4usize,
        seed in any::<u64>(),
        chunk in 1u64..200,
    ) {
        let policy = ["mdc", "mdc:freq=exact", "greedy", "cost-benefit:form=lomet", "fifo"][policy];
        let gc = ["one-free", "batch:low=2,victims=3", "batch:low=2,victims=3,gather=all",
                  "batch:low=2,victims=3,gather=all,sort=up2", "max-empty:k=2"][gc];
        let workload = ["uniform", "hotcold:r=0.9,f=0.1", "shifting:r=0.8,f=0.2,period=0.3",
                        "zipf:theta=0.99"][workload];
        let placement = format!("sort-buffer:segments={k},sort={},rewrite={}",
                                if sort { "up2" } else { "none" }, if absorb { "absorb" } else { "hole" });
        let config = three_passes((segments, pps, spare), [policy, &placement, gc, workload], cache, seed);
        let Some(sim) = run_checked(&config, chunk, false)? else { return Ok(()) };
        let logical = sim.geometry().logical_pages;
        let r = sim.result();
        prop_assert!(r.wa >= 1.0 || r.user_writes == 0);
        if config.cache.is_none() {
            prop_assert_eq!(r.user_writes, 3 * logical);
        }
        let valid: u64 = sim.store().valid.iter().map(|&v| u64::from(v)).sum();
        let buffered = sim.admission().buffer.as_ref().map_or(0, |b| {
            b.pages.iter().filter(|&&p| p != u32::MAX).count() as u64
        });
        prop_assert_eq!(valid + buffered, logical);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Pages with sizes (Lomet & Luo §4.4) under every placement and policy that takes them,
    /// any size distribution that fits a segment, every trigger, the write cache on or off: the
    /// invariants in slots after every step (each page in one run of slots inside its segment,
    /// valid counts the sum of sizes, live counts the pages), and every page's slots counted
    /// in a segment or waiting in the sort buffer.
    #[test]
    fn pages_with_sizes_keep_the_invariants(
        segments in 16u32..80,
        pps in 8u32..64,
        spare in 0.3f64..0.6,
        policy in 0..7usize,
        placement in 0..4usize,
        sizes in 0..3usize,
        largest in 1u16..8,
        gc in 0..4usize,
        cache in prop::option::of(1u64..40),
        workload in 0..4usize,
        seed in any::<u64>(),
        chunk in 1u64..200,
    ) {
        let policy = ["mdc", "greedy", "cost-benefit", "fifo", "d-choices:d=4", "multi-log",
                      "mdc:decline=pages"][policy];
        let placement = ["single", "sort-buffer:segments=2", "sort-buffer:segments=1,rewrite=absorb",
                         "multi-log:logs=4"][placement];
        let policy = match (policy, placement) {
            ("multi-log", p) if !p.starts_with("multi-log") => "greedy",
            (p, _) => p,
        };
        let largest = largest.min(pps as u16);
        let sizes = [format!("fixed:size={largest}"), format!("uniform:min=1,max={largest}"),
                     format!("choice:sizes=1/{largest},weights=3/1")][sizes].clone();
        let gc = ["one-free", "batch:low=2,victims=3", "batch:low=2,victims=3,gather=all,sort=up2",
                  "max-empty:k=2"][gc];
        let workload = ["uniform", "hotcold:r=0.9,f=0.1", "zipf:theta=0.99", "shifting:r=0.8,f=0.2"][workload];
        let config = SimConfig {
            sizes: Some(sizes.parse().unwrap()),
            ..three_passes((segments, pps, spare), [policy, placement, gc, workload], cache, seed)
        };
        // About a third of the draws are refused up front (too little room for the largest size).
        let Some(sim) = run_checked(&config, chunk, false)? else { return Ok(()) };
        let store = sim.store();
        let r = sim.result();
        prop_assert!(r.wa >= 1.0 || r.user_writes == 0);
        let logical = sim.geometry().logical_pages;
        let slots: u64 = (0..logical as u32).map(|p| u64::from(store.size_of(p))).sum();
        // Valid counts hold the pages' slots and, in a sealed segment, the tail no page fitted in.
        let valid: u64 = (0..store.segments())
            .map(|seg| {
                let tail = if store.state[seg as usize] == SegState::Sealed { store.tail_of(seg) } else { 0 };
                u64::from(store.valid[seg as usize] - tail)
            })
            .sum();
        let buffered: u64 = sim.admission().buffer.as_ref().map_or(0, |b| {
            b.pages.iter().filter(|&&p| p != u32::MAX).map(|&p| u64::from(store.size_of(p))).sum()
        });
        prop_assert_eq!(valid + buffered, slots);
    }
}

/// The fullest device the geometry check admits runs to the end, and one page more is refused
/// before the run starts (a full device is an error up front, never a cleaner that loops).
#[test]
fn the_fullest_admitted_device_runs_and_one_page_more_is_refused() {
    // 6 segments of 4 pages, FIFO: 16 logical pages fit (6 − 1 frontier − 1 reserve = 4 segments).
    let json = |pages: u32| {
        format!(
            r#"{{"segments": 6, "pages_per_segment": 4, "logical_pages": {pages}, "policy": "fifo", "writes": "50x"}}"#
        )
    };
    let c = SimConfig::from_json(&json(16)).unwrap();
    let r = Simulator::new(&c).unwrap().run().unwrap();
    assert!(r.wa >= 1.0);
    let e = SimConfig::from_json(&json(17))
        .and_then(|c| Simulator::new(&c).map(|_| ()))
        .expect_err("17 pages do not fit")
        .to_string();
    assert!(e.contains("at most 16 logical pages"), "{e}");
}

/// Every combination on one geometry roomy enough for all of them, so that none is skipped: each
/// must run to the end with the invariants checked after every step.
#[test]
fn every_placement_trigger_and_cache_keeps_the_invariants() {
    let mut ran = 0;
    let placements = placements();
    for policy in [
        "fifo",
        "greedy",
        "gra:d=3",
        "windowed:w=5",
        "cost-benefit",
        "random",
        "d-choices:d=4",
        "age-threshold:nat=0.05,buckets=10",
        "fitness:buckets=10,sort=fifo",
    ] {
        for (placement, streams) in &placements {
            for gc in GCS {
                for workload in ["hotcold:r=0.9,f=0.2", "locality:fa=0.5,r=0.7/0.3,f=0.3/0.7"] {
                    for (cache, free_empty) in [
                        (None, false),
                        (Some(7), false),
                        (None, true),
                        (Some(7), true),
                    ] {
                        let config = SimConfig {
                            segments: Some(96),
                            pages_per_segment: 8,
                            spare: Some(0.3),
                            policy: policy.parse().unwrap(),
                            placement: Some(placement.parse().unwrap()),
                            streams: streams.parse().unwrap(),
                            free_empty,
                            gc: gc.parse().unwrap(),
                            workload: workload.parse().unwrap(),
                            cache,
                            warmup: Some(WarmupSpec {
                                fill: true,
                                multiple: 1.0,
                                trace_share: 0.0,
                            }),
                            writes: Some(Amount::Multiple(3.0)),
                            ..SimConfig::default()
                        };
                        let regions_without_index = (placement.starts_with("regions")
                            || placement.starts_with("planes")
                            || placement.starts_with("midas"))
                            && (policy == "random" || policy.starts_with("d-"));
                        let mut sim = match Simulator::new(&config) {
                            Err(e) if regions_without_index => {
                                assert!(e.to_string().contains("`policy`"), "{e}");
                                continue;
                            }
                            r => r.unwrap_or_else(|e| panic!("{}: {e}", config.to_json())),
                        };
                        while sim
                            .step(53)
                            .unwrap_or_else(|e| panic!("{}: {e}", config.to_json()))
                        {
                            sim.check()
                                .unwrap_or_else(|e| panic!("{}: {e}", config.to_json()));
                        }
                        assert!(sim.result().wa >= 1.0);
                        ran += 1;
                    }
                }
            }
        }
    }
    // 9 policies × the placements × 8 triggers × 2 workloads × (cache, free_empty) 4, less the
    // runs of the two policies that draw from the global sealed set under a placement of several
    // regions or groups (`regions`, `planes` and `midas`, each listed with its streams modes):
    // 2 × those entries × 8 × 2 × 4.
    assert!(placements.len() >= 12);
    let refusing = (placements.iter())
        .filter(|(p, _)| {
            ["regions", "planes", "midas"]
                .iter()
                .any(|n| p.starts_with(n))
        })
        .count();
    assert_eq!(
        ran,
        9 * placements.len() * 8 * 2 * 4 - 2 * refusing * 8 * 2 * 4
    );
}

/// The cache's hit ratio on a hand-computed sequence, through the whole engine: capacity 3 over
/// 1 2 3 1 4 2 5 1 1 3 gives 2 hits in 10 writes (worked out in `cache.rs`), and the store sees
/// the 5 evictions.
#[test]
fn cache_hit_ratio_is_exact() {
    use reclaim_core::trace::convert::{page_list_trace, write_binary};
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("cache-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("seq.rtr");
    write_binary(
        &page_list_trace(vec![1, 2, 3, 1, 4, 2, 5, 1, 1, 3], "hand sequence"),
        &path,
    )
    .unwrap();
    let c = SimConfig::from_json(&format!(
        r#"{{"segments": 8, "pages_per_segment": 4, "logical_pages": 6, "workload": "trace:{}", "cache": 3,
            "method": "li", "warmup": "none", "writes": "1p"}}"#,
        path.display()
    ))
    .unwrap();
    let r = Simulator::new(&c).unwrap().run().unwrap();
    assert!(
        (r.cache_hit_ratio - 0.2).abs() < 1e-12,
        "{}",
        r.cache_hit_ratio
    );
    assert_eq!(r.user_writes, 5);
    assert_eq!(r.series.cache_hit_ratio, vec![0.2]);
}
