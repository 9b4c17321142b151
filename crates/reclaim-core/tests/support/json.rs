//! Runs of a configuration given as JSON, for the tests of methods and traces (included with
//! `#[path]`, so that a test crate compiles only what it uses).

use reclaim_core::config::SimConfig;
use reclaim_core::metrics::SimResult;
use reclaim_core::sim::Simulator;

/// The result of the run of `json`, which must succeed.
pub fn run(json: &str) -> SimResult {
    Simulator::new(&SimConfig::from_json(json).unwrap())
        .unwrap()
        .run()
        .unwrap()
}

/// The error that stops `json`: in its parsing, in setting the run up, or in the run.
pub fn error(json: &str) -> String {
    let stop = SimConfig::from_json(json)
        .and_then(|c| Simulator::new(&c))
        .and_then(Simulator::run);
    match stop {
        Err(e) => e.to_string(),
        Ok(_) => panic!("{json} was accepted"),
    }
}
