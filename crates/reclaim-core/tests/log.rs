//! The `log` method (SepBIT's trace replay): agreement with the artifact's figure on a trace of
//! the shape it was measured on, the replay request by request against a direct model of the
//! artifact's rules, and the configurations it refuses.

use std::collections::HashMap;
use std::path::PathBuf;

use proptest::test_runner::TestCaseError;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use reclaim_core::config::SimConfig;
use reclaim_core::sim::Simulator;
use reclaim_core::trace::convert::{page_list_trace, write_binary};

#[path = "support/json.rs"]
mod json;
use json::{error, run};

/// A converted trace of `pages` written in requests of `requests` pages each (single pages when
/// empty), under the build directory's scratch space.
fn trace(name: &str, pages: Vec<u32>, requests: Vec<u32>) -> PathBuf {
    let dir =
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("log-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    let mut t = page_list_trace(pages, name);
    if !requests.is_empty() {
        assert_eq!(
            requests.iter().map(|&n| u64::from(n)).sum::<u64>(),
            t.pages.len() as u64
        );
        t.meta.requests = requests.len() as u64;
        t.meta.writes = requests.len() as u64;
        t.request_pages = requests;
    }
    write_binary(&t, &p).unwrap();
    p
}

/// The trace of `../shared/reference/sepbit-artifact.md`, "Measured: one trace for the issue":
/// 65,536 blocks written once in order, then 1,000,000 single-block writes, 90% of them to a
/// random tenth of the blocks (scattered), the rest uniformly to the others.
fn hot_cold_trace() -> Vec<u32> {
    const N: u32 = 65_536;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(2022);
    let mut ids: Vec<u32> = (0..N).collect();
    for i in 0..ids.len() {
        let j = rng.random_range(i..ids.len());
        ids.swap(i, j);
    }
    let (hot, cold) = ids.split_at((N / 10) as usize);
    let mut pages: Vec<u32> = (0..N).collect();
    pages.extend((0..1_000_000).map(|_| {
        if rng.random::<f64>() < 0.9 {
            hot[rng.random_range(0..hot.len())]
        } else {
            cold[rng.random_range(0..cold.len())]
        }
    }));
    pages
}

#[test]
fn greedy_one_stream_agrees_with_the_artifact() {
    let p = trace("hot-cold.rtr", hot_cold_trace(), Vec::new());
    let r = run(&format!(
        r#"{{"workload": "trace:{}", "method": "log", "policy": "greedy", "pages_per_segment": 128}}"#,
        p.display()
    ));
    // The artifact's printed WA for NoSep + Greedy on its trace of this shape, 128-block (512 KiB)
    // segments, threshold 0.15: 4.1030 (cumulative from the first write, as reclaim's `log`
    // measures). Another draw of the hot set and the writes moves it by far less than 1%: the
    // artifact gives 4.1023 on a trace drawn with another generator. The acceptance is 1%.
    assert!((r.wa / 4.1030 - 1.0).abs() < 0.01, "WA {}", r.wa);
    let m = r.method.unwrap();
    let log = m.log.unwrap();
    // Every write measured, one pass, no warm-up.
    assert_eq!((r.user_writes, m.passes), (1_065_536, 1.0));
    // One segment collected per trigger, none passed over (as in the artifact's run: nGC =
    // segments collected).
    assert_eq!((log.triggers, log.passed), (r.erases, 0));
    // The log floats at working set / (1 − 0.15) = 77,101 pages = 602.4 segments of 128 (the
    // artifact ends at 77,086 blocks); its largest size is that plus the open segment.
    assert!((600..=606).contains(&log.peak_segments), "{log:?}");
}

/// The artifact's rules written out directly (`sepbit-artifact.md`, "Semantics verified in the
/// source"), one stream (its NoSep) or with `sep_gc` user and GC writes apart (its SepGC): segments of `pps` pages; after each request, if invalid pages of sealed
/// segments over all pages in segments exceed `gp`, collect the sealed segment of most invalid
/// pages among those with at least one and a share of at least `gp` (ties: the one sealed
/// first), its valid pages appended in order. Returns (user writes, GC writes, triggers).
fn model(pages: &[u32], requests: &[u32], pps: usize, gp: f64, sep_gc: bool) -> (u64, u64, u64) {
    struct Seg {
        pages: Vec<u32>,
        valid: Vec<bool>,
        sealed: Option<u64>,
    }
    let mut segs: HashMap<u64, Seg> = HashMap::new();
    let mut at: HashMap<u32, (u64, usize)> = HashMap::new();
    let (mut next_id, mut seals, mut open) = (2u64, 0u64, [0u64, 1]);
    for id in [0, 1] {
        segs.insert(
            id,
            Seg {
                pages: Vec::new(),
                valid: Vec::new(),
                sealed: None,
            },
        );
    }
    let (mut user, mut gc, mut triggers) = (0u64, 0u64, 0u64);
    let mut append = |segs: &mut HashMap<u64, Seg>,
                      at: &mut HashMap<u32, (u64, usize)>,
                      page: u32,
                      stream: usize| {
        if let Some((s, i)) = at.get(&page).copied() {
            segs.get_mut(&s).unwrap().valid[i] = false;
        }
        let seg = segs.get_mut(&open[stream]).unwrap();
        seg.pages.push(page);
        seg.valid.push(true);
        at.insert(page, (open[stream], seg.pages.len() - 1));
        if seg.pages.len() == pps {
            seg.sealed = Some(seals);
            seals += 1;
            open[stream] = next_id;
            next_id += 1;
            segs.insert(
                open[stream],
                Seg {
                    pages: Vec::new(),
                    valid: Vec::new(),
                    sealed: None,
                },
            );
        }
    };
    let mut k = 0;
    for &n in requests {
        for &page in &pages[k..k + n as usize] {
            append(&mut segs, &mut at, page, 0);
            user += 1;
        }
        k += n as usize;
        let invalid = |s: &Seg| s.valid.iter().filter(|v| !**v).count();
        let sealed_invalid: usize = segs
            .values()
            .filter(|s| s.sealed.is_some())
            .map(invalid)
            .sum();
        let all: usize = segs.values().map(|s| s.pages.len()).sum();
        if sealed_invalid as f64 / all as f64 <= gp {
            continue;
        }
        triggers += 1;
        let victim = segs
            .iter()
            .filter(|(_, s)| s.sealed.is_some() && invalid(s) > 0)
            .filter(|(_, s)| invalid(s) as f64 / pps as f64 >= gp)
            .max_by_key(|(_, s)| (invalid(s), std::cmp::Reverse(s.sealed)))
            .map(|(&id, _)| id);
        if let Some(v) = victim {
            let s = segs.remove(&v).unwrap();
            for (page, valid) in s.pages.into_iter().zip(s.valid) {
                if valid {
                    at.remove(&page);
                    append(&mut segs, &mut at, page, usize::from(sep_gc));
                    gc += 1;
                }
            }
        }
    }
    (user, gc, triggers)
}

#[test]
fn requests_replay_as_the_artifact_rules_say() {
    // A fill, then requests of 1 to 12 pages at random places over 3,000 pages with a hot part,
    // so that requests span segments and rewrite pages of the open segment.
    const N: u32 = 3_000;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
    let (mut pages, mut requests): (Vec<u32>, Vec<u32>) =
        ((0..N).collect(), vec![8; (N / 8) as usize]);
    for _ in 0..12_000 {
        let n = rng.random_range(1..=12u32);
        let first = if rng.random::<f64>() < 0.7 {
            rng.random_range(0..N / 8)
        } else {
            rng.random_range(0..N - n)
        };
        pages.extend(first..first + n);
        requests.push(n);
    }
    let p = trace("requests.rtr", pages.clone(), requests.clone());
    for (gp, pps, placement) in [
        (0.15, 32usize, "single"),
        (0.3, 16, "single"),
        (0.15, 32, "double:copy=oldest"),
    ] {
        let (user, gc, triggers) =
            model(&pages, &requests, pps, gp, placement.starts_with("double"));
        let r = run(&format!(
            r#"{{"workload": "trace:{}", "method": "log:gp={gp},room=100", "policy": "greedy:tie=oldest", "placement": "{placement}", "pages_per_segment": {pps}}}"#,
            p.display()
        ));
        let log = r.method.unwrap().log.unwrap();
        assert_eq!(
            (r.user_writes, r.gc_writes, log.triggers),
            (user, gc, triggers),
            "gp {gp}, {pps} pages per segment, {placement}"
        );
    }
}

#[test]
fn the_log_refuses_what_it_decides() {
    let p = trace(
        "small.rtr",
        (0..2_000).chain(0..2_000).collect(),
        Vec::new(),
    );
    let t = p.display();
    for (extra, needle) in [
        (r#""warmup": "fill""#, "no warm-up"),
        (r#""gc": "one-free""#, "garbage proportion"),
        (r#""spare": 0.2"#, "no fixed capacity"),
        (r#""cache": 100"#, "no write cache"),
        (r#""placement": "sort-buffer""#, "no sort buffer"),
    ] {
        let e = error(&format!(
            r#"{{"workload": "trace:{t}", "method": "log", "pages_per_segment": 16, {extra}}}"#
        ));
        assert!(e.contains(needle), "{extra}: {e}");
    }
    for (m, needle) in [("log:gp=0", "method.gp"), ("log:room=1", "method.room")] {
        let e = error(&format!(r#"{{"workload": "trace:{t}", "method": "{m}"}}"#));
        assert!(e.contains(needle), "{m}: {e}");
    }
}

#[test]
fn a_log_that_outgrows_its_room_stops_with_the_parameter_named() {
    // Sequential overwrites of the whole working set in requests of 256 pages: each request
    // invalidates 16 segments' worth and one collection per request frees only one, so the
    // log grows without bound (the artifact's memory would grow the same way).
    let n = 4_096u32;
    let pages: Vec<u32> = (0..20).flat_map(|_| 0..n).collect();
    let requests = vec![256; pages.len() / 256];
    let p = trace("outgrow.rtr", pages, requests);
    let e = error(&format!(
        r#"{{"workload": "trace:{}", "method": "log:room=1.5", "pages_per_segment": 16}}"#,
        p.display()
    ));
    assert!(e.contains("method.room") && e.contains("outgrew"), "{e}");
}

/// The artifact's printed WA for each placement it shares with reclaim, greedy selection, on its
/// trace of this shape (`sepbit-artifact.md`, "Measured: one trace for the issue"; 128-block
/// segments, threshold 0.15, six open segments, WA cumulative from the first write). Each within
/// 1% (reclaim breaks greedy's ties at random, its default `tie=random`, the artifact by Java
/// `HashMap` order). SFR puts every user write after the sequential fill in one class, so its
/// run is SepGC's to the last bit, as the artifact's figures are equal to the last digit.
#[test]
fn placements_agree_with_the_artifact() {
    let p = trace("hot-cold-placements.rtr", hot_cold_trace(), Vec::new());
    let mut was = HashMap::new();
    let (greedy, cb) = ("greedy", "cost-benefit:form=sepbit");
    for (placement, policy, artifact) in [
        ("single", cb, 4.0433),
        ("sepbit", cb, 2.0870),
        ("single", greedy, 4.1030),
        ("sepgc", greedy, 3.6391),
        ("dac", greedy, 3.6167),
        ("sepbit", greedy, 3.3003),
        ("multi-queue", greedy, 3.6639),
        ("sfr", greedy, 3.6391),
        ("fadac", greedy, 3.7000),
        ("eti", greedy, 3.6434),
        ("fk", greedy, 3.7093),
        ("warcip", greedy, 3.5412),
        ("sfs", greedy, 3.6813),
        ("multi-log:form=sepbit", greedy, 3.7688),
    ] {
        let r = run(&format!(
            r#"{{"workload": "trace:{}", "method": "log", "policy": "{policy}", "pages_per_segment": 128, "placement": "{placement}"}}"#,
            p.display()
        ));
        eprintln!("{placement} {policy}: {:.4} (artifact {artifact})", r.wa);
        assert!(
            (r.wa / artifact - 1.0).abs() < 0.01,
            "{placement}, {policy}: WA {} against the artifact's {artifact}",
            r.wa
        );
        if policy == greedy {
            was.insert(placement, r.wa);
        }
    }
    assert_eq!(was["sfr"].to_bits(), was["sepgc"].to_bits());
    // FADaC's V read as the pages written: the fading average's roundings fall otherwise, and
    // the WA with them (`fadac.rs`): below the artifact's V's by more than 1%.
    let r = run(&format!(
        r#"{{"workload": "trace:{}", "method": "log", "policy": "greedy", "pages_per_segment": 128, "placement": "fadac:valid=written"}}"#,
        p.display()
    ));
    eprintln!("fadac:valid=written: {:.4}", r.wa);
    assert!(
        r.wa < was["fadac"] * 0.99,
        "{} against {}",
        r.wa,
        was["fadac"]
    );
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

    /// Every placement the `log` method admits (the lifetime-separation schemes and the future-
    /// knowledge oracle among them), on random traces of random requests: the engine's
    /// invariants hold after every step, every trace write is replayed once, and the same
    /// configuration gives the same bits.
    #[test]
    fn every_placement_keeps_the_invariants_under_log(
        pages in 40u32..400,
        writes in 1usize..4_000,
        sizes in proptest::collection::vec(1u32..4, 1..64),
        pps in 4u32..16,
        gp in 0.05f64..0.5,
        policy in 0usize..7,
        seed in proptest::prelude::any::<u64>(),
        chunk in 1u64..300,
    ) {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        // Requests of runs of consecutive pages, sizes drawn in turn.
        let (mut trace_pages, mut requests) = (Vec::new(), Vec::new());
        for n in sizes.iter().cycle() {
            if trace_pages.len() >= writes {
                break;
            }
            let first = rng.random_range(0..pages);
            let n = (*n).min(pages - first);
            trace_pages.extend(first..first + n);
            requests.push(n);
        }
        let p = trace(&format!("prop-{seed}.rtr"), trace_pages.clone(), requests);
        let policy = ["greedy", "cost-benefit", "cost-benefit:form=sepbit", "fifo", "random-greedy", "lru", "cost-hotness"][policy];
        let mut ran = Vec::new();
        // Every registered placement by its name, and the forms the artifact's table uses.
        let names = reclaim_core::placement::PLACEMENTS.iter().map(|i| i.name);
        for name in names.chain(["multi-log:form=sepbit"]) {
            let json = format!(
                r#"{{"workload": "trace:{}", "method": "log:gp={gp},room=100", "policy": "{policy}", "pages_per_segment": {pps}, "placement": "{name}", "seed": {seed}}}"#,
                p.display(),
            );
            // The method refuses `regions` and `sort-buffer`; `oracle` wants classes.
            let Ok(mut sim) = SimConfig::from_json(&json).and_then(|c| Simulator::new(&c)) else {
                continue;
            };
            ran.push(name);
            loop {
                let more = sim.step(chunk).map_err(|e| TestCaseError::fail(format!("{json}: {e}")))?;
                sim.check().map_err(|e| TestCaseError::fail(format!("{json}: {e}")))?;
                if !more {
                    break;
                }
            }
            let r = sim.result();
            proptest::prop_assert_eq!(r.user_writes, trace_pages.len() as u64, "{}", json);
            let again = run(&json);
            proptest::prop_assert_eq!(again.wa.to_bits(), r.wa.to_bits(), "{}", json);
            proptest::prop_assert_eq!(again.gc_writes, r.gc_writes, "{}", json);
        }
        std::fs::remove_file(&p).unwrap();
        for name in ["single", "double", "dac", "sepbit", "multi-queue", "sfr", "fadac", "eti", "fk", "warcip", "sfs", "multi-log:form=sepbit"] {
            proptest::prop_assert!(ran.contains(&name), "{} did not run", name);
        }
    }
}
