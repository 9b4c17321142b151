//! Trace-driven methods (`--method`): what each replays and measures, the steady-state test of
//! `precondition`, the warnings, and the configurations each refuses.

use std::path::PathBuf;

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use reclaim_core::trace::convert::{page_list_trace, write_binary};

#[path = "support/json.rs"]
mod json;
use json::{error, run};

/// A converted trace of single-page writes, under the build directory's scratch space.
fn trace(name: &str, pages: Vec<u32>) -> PathBuf {
    let dir =
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("methods-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    write_binary(&page_list_trace(pages, name), &p).unwrap();
    p
}

/// `n` writes over `pages` pages with a hot tenth taking `hot` of them, each page id times
/// `stride` (a sparse address space for `stride` > 1).
fn skewed(n: usize, pages: u32, hot: f64, stride: u32, seed: u64) -> Vec<u32> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let hot_pages = pages / 10;
    (0..n)
        .map(|i| {
            // Every page is written at least once, in order, before the skewed writes.
            let p = if i < pages as usize {
                i as u32
            } else if rng.random::<f64>() < hot {
                rng.random_range(0..hot_pages)
            } else {
                rng.random_range(hot_pages..pages)
            };
            p * stride
        })
        .collect()
}

#[test]
fn precondition_is_the_default_and_reports_the_pass_that_settled() {
    let t = trace("skewed.rtr", skewed(40_000, 4_000, 0.8, 1, 1));
    let r = run(&format!(
        r#"{{"workload": "trace:{}", "pages_per_segment": 16}}"#,
        t.display()
    ));
    let m = r.method.as_ref().expect("a trace run reports its method");
    assert!(m.method.starts_with("precondition:"), "{}", m.method);
    assert_eq!((m.trace_writes, m.working_set), (40_000, 4_000));
    // The measured writes are one pass, and the measured pass is the last one replayed: its WA
    // is the last of `pass_wa`, within `tol` of the one before it.
    assert_eq!(r.user_writes, 40_000);
    assert_eq!(m.settled, Some(true));
    let n = m.pass_wa.len();
    assert!(n >= 2, "{:?}", m.pass_wa);
    assert!(
        (m.pass_wa[n - 1] - r.wa).abs() < 1e-12,
        "{:?} vs {}",
        m.pass_wa,
        r.wa
    );
    assert!((m.pass_wa[n - 1] - m.pass_wa[n - 2]).abs() <= 0.01 * m.pass_wa[n - 2]);
    assert!(m.pass_wa[..n - 1]
        .windows(2)
        .all(|w| (w[1] - w[0]).abs() > 0.01 * w[0]));
    assert!((m.passes - n as f64).abs() < 1e-12);
    // No synthetic data: the device holds the working set at the default spare 0.1.
    assert!(r.simulated_logical_pages >= 4_000);
    assert!(f64::from(r.simulated_segments) * 16.0 * 0.9 < 4_000.0 + 16.0 * 0.9 + 1e-9);
    // The first pass fills the device (WA at most what the steady state gives).
    assert!(m.pass_wa[0] < r.wa);
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
}

#[test]
fn precondition_sizes_from_the_working_set_whatever_the_page_ids() {
    // The same trace with page ids 1,000 apart: renamed densely, it is the same run, bit for bit.
    let dense = trace("dense.rtr", skewed(30_000, 3_000, 0.9, 1, 2));
    let sparse = trace("sparse.rtr", skewed(30_000, 3_000, 0.9, 1_000, 2));
    let cfg = |t: &PathBuf| {
        format!(
            r#"{{"workload": "trace:{}", "pages_per_segment": 8}}"#,
            t.display()
        )
    };
    let (a, b) = (run(&cfg(&dense)), run(&cfg(&sparse)));
    assert_eq!(a.simulated_segments, b.simulated_segments);
    assert_eq!((a.gc_writes, a.erases), (b.gc_writes, b.erases));
    assert_eq!(a.method.unwrap().pass_wa, b.method.unwrap().pass_wa);
    // Li et al.'s method sizes the device from the address space instead: 1,000 times larger.
    let li = run(&format!(
        r#"{{"workload": "trace:{}", "pages_per_segment": 8, "method": "li", "warmup": "none"}}"#,
        sparse.display()
    ));
    assert!(li.simulated_logical_pages > 2_999 * 1_000);
}

#[test]
fn measure_after_replays_one_more_pass_after_the_settled_one() {
    let t = trace("after.rtr", skewed(20_000, 2_000, 0.8, 1, 3));
    let cfg = |m: &str| {
        format!(
            r#"{{"workload": "trace:{}", "pages_per_segment": 8, "method": "precondition:measure={m}"}}"#,
            t.display()
        )
    };
    let (settled, after) = (run(&cfg("settled")), run(&cfg("after")));
    let (s, a) = (settled.method.unwrap(), after.method.unwrap());
    // The same passes up to the settling, then one more, measured.
    assert_eq!(s.pass_wa, a.pass_wa);
    assert!((a.passes - s.passes - 1.0).abs() < 1e-12);
    assert_eq!(after.user_writes, 20_000);
    // By the test that stopped the preconditioning, the next pass is close to the settled one.
    assert!(
        (after.wa - settled.wa).abs() <= 0.02 * settled.wa,
        "{} vs {}",
        after.wa,
        settled.wa
    );
}

#[test]
fn an_unsettled_run_says_so() {
    let t = trace("unsettled.rtr", skewed(20_000, 2_000, 0.8, 1, 4));
    let r = run(&format!(
        r#"{{"workload": "trace:{}", "pages_per_segment": 8, "method": "precondition:tol=0.000001,max_passes=2"}}"#,
        t.display()
    ));
    let m = r.method.unwrap();
    assert_eq!((m.pass_wa.len(), m.settled), (2, Some(false)));
    assert_eq!(r.warnings.len(), 1, "{:?}", r.warnings);
    assert!(
        r.warnings[0].contains("had not settled after 2 passes"),
        "{}",
        r.warnings[0]
    );
}

#[test]
fn a_synthetic_warm_up_over_an_untouched_address_space_is_warned_about() {
    // 2,000 pages written, ids 10 apart: the address space is ten times the working set.
    let t = trace("sparse-li.rtr", skewed(20_000, 2_000, 0.8, 10, 5));
    let r = run(&format!(
        r#"{{"workload": "trace:{}", "pages_per_segment": 8, "method": "li", "warmup": "fill+1x"}}"#,
        t.display()
    ));
    assert_eq!(r.warnings.len(), 1, "{:?}", r.warnings);
    assert!(
        r.warnings[0].contains("the trace writes only 2000 of them"),
        "{}",
        r.warnings[0]
    );
    assert_eq!(r.method.unwrap().method, "li");
    // Dense ids: the trace touches the whole space, nothing to warn about.
    let d = trace("dense-li.rtr", skewed(20_000, 2_000, 0.8, 1, 5));
    let r = run(&format!(
        r#"{{"workload": "trace:{}", "pages_per_segment": 8, "method": "li", "warmup": "fill+1x"}}"#,
        d.display()
    ));
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
}

#[test]
fn a_loop_over_pages_written_once_is_warned_about() {
    // Each page written once per pass, in order: looped, each is rewritten one pass later.
    let t = trace("once.rtr", (0..3_000).collect());
    let r = run(&format!(
        r#"{{"workload": "trace:{}", "pages_per_segment": 8}}"#,
        t.display()
    ));
    assert!(
        r.warnings
            .iter()
            .any(|w| w.contains("100.0% of the pages it writes are written once per pass")),
        "{:?}",
        r.warnings
    );
    // One pass of Li et al.'s method does not loop: no such warning.
    let r = run(&format!(
        r#"{{"workload": "trace:{}", "pages_per_segment": 8, "method": "li"}}"#,
        t.display()
    ));
    assert!(
        !r.warnings.iter().any(|w| w.contains("once per pass")),
        "{:?}",
        r.warnings
    );
}

#[test]
fn stockmeyer_replays_its_prefix_unmeasured() {
    let t = trace("prefix.rtr", skewed(20_000, 2_000, 0.8, 1, 6));
    let r = run(&format!(
        r#"{{"workload": "trace:{}", "pages_per_segment": 8, "method": "stockmeyer:prefix=5000", "warmup": "fill+1x"}}"#,
        t.display()
    ));
    // §2.1: the prefix warms, the rest of the trace is measured.
    assert_eq!(r.user_writes, 15_000);
    assert!((r.method.unwrap().passes - 1.0).abs() < 1e-12);
}

#[test]
fn methods_refuse_what_they_decide_themselves() {
    let t = trace("refuse.rtr", skewed(2_000, 200, 0.8, 1, 7));
    let p = t.display();
    for (json, expected) in [
        (
            format!(r#"{{"workload": "trace:{p}", "warmup": "fill+1x"}}"#),
            "no warm-up with `method=precondition",
        ),
        (
            format!(r#"{{"workload": "trace:{p}", "writes": "2p"}}"#),
            "one pass (`1p`, the default)",
        ),
        (
            r#"{"workload": "uniform", "method": "li"}"#.to_string(),
            "a method only with a trace workload",
        ),
        (
            format!(r#"{{"workload": "trace:{p}", "method": "stockmeyer"}}"#),
            "fewer trace writes than the trace's 2000",
        ),
        (
            format!(r#"{{"workload": "trace:{p}", "method": "precondition:tol=1"}}"#),
            "method.tol",
        ),
        (
            format!(r#"{{"workload": "trace:{p}", "method": "precondition:max_passes=1"}}"#),
            "method.max_passes",
        ),
        (
            format!(r#"{{"workload": "trace:{p}", "method": "replay"}}"#),
            "precondition[:tol=T",
        ),
    ] {
        let e = error(&json);
        assert!(e.contains(expected), "{json}: {e}");
    }
    // `measure=after` measures what `writes` says.
    let r = run(&format!(
        r#"{{"workload": "trace:{p}", "pages_per_segment": 8, "method": "precondition:measure=after", "writes": "2p"}}"#
    ));
    assert_eq!(r.user_writes, 4_000);
}
