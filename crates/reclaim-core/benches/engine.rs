//! Engine throughput under uniform writes, 10,000 segments × 64 pages, spare 0.10 (the
//! geometry of `reclaim bench`). Throughput is in user writes; `reclaim bench` also reports
//! page writes (user + GC).

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use reclaim_core::{SimConfig, Simulator};

const CHUNK: u64 = 1 << 20;

fn engine(c: &mut Criterion) {
    let mut group = c.benchmark_group("uniform_10000x64_spare0.10");
    group.throughput(Throughput::Elements(CHUNK));
    group.sample_size(10);
    for policy in ["greedy", "fifo", "d-choices:d=10"] {
        let config = SimConfig::from_json(&format!(
            r#"{{"segments": 10000, "pages_per_segment": 64, "spare": 0.1, "policy": "{policy}",
                "warmup": "fill+2x", "writes": "1000x"}}"#
        ))
        .expect("valid configuration");
        let mut warm = Simulator::new(&config).expect("simulator");
        let (_, _) = warm.progress();
        // Past the fill and the warm-up, into the measured phase.
        warm.step(config.geometry().unwrap().logical_pages * 3)
            .expect("warm-up");
        group.bench_function(policy, |b| {
            b.iter_batched_ref(
                || (),
                |()| warm.step(CHUNK).expect("step"),
                BatchSize::PerIteration,
            );
        });
    }
    group.finish();
}

criterion_group!(benches, engine);
criterion_main!(benches);
