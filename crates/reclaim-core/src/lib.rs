//! reclaim-core: a simulation engine for space reclamation (garbage collection, cleaning) in
//! log-structured storage.
//!
//! ```
//! use reclaim_core::{SimConfig, Simulator};
//! let config = SimConfig::from_json(r#"{"segments": 256, "pages_per_segment": 32,
//!     "spare": 0.1, "policy": "greedy", "writes": "5x", "warmup": "fill+2x"}"#).unwrap();
//! let result = Simulator::new(&config).unwrap().run().unwrap();
//! assert!(result.wa > 1.0);
//! ```
#![warn(missing_docs)]

pub mod cache;
pub mod clocks;
pub mod config;
pub mod error;
pub mod geometry;
pub mod interval;
pub mod ledger;
pub mod limits;
pub mod memory;
pub mod method;
pub mod metrics;
pub mod outside;
pub mod placement;
pub mod policy;
pub mod rng;
pub mod sim;
pub mod spec;
pub mod store;
pub mod time;
pub mod trace;
pub mod trigger;
pub mod workload;

pub use config::SimConfig;
pub use error::{Error, Result};
pub use geometry::Geometry;
pub use metrics::SimResult;
pub use rng::SimRng;
pub use sim::Simulator;
