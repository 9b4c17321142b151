//! Runs one simulation from a JSON configuration and prints the headline metrics.
//!
//! `cargo run --release --example simulate -- '{"policy": "d-choices:d=10", "writes": "20x"}'`

fn main() {
    let json = std::env::args().nth(1).unwrap_or_else(|| "{}".to_string());
    let config = match reclaim_core::SimConfig::from_json(&json) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    match reclaim_core::Simulator::new(&config).and_then(reclaim_core::Simulator::run) {
        Ok(r) => println!(
            "wa {:.5}  wamp {:.5}  emptiness_at_clean {:.5}  user {}  gc {}  {:.1} M page writes/s",
            r.wa,
            r.wamp,
            r.emptiness_at_clean,
            r.user_writes,
            r.gc_writes,
            r.page_writes_per_second / 1e6
        ),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}
