//! The indexes victim policies keep of their candidates: segments bucketed by valid count
//! (greedy, GRA, windowed greedy), per-count heaps (cost-benefit, MDC) and Stockmeyer's
//! utilization buckets ordered by age (age-threshold, fitness), buckets of a real key, and a
//! kinetic tournament of lines (cost-hotness).

pub mod aged_buckets;
pub mod buckets;
pub mod count_heaps;
pub mod key_buckets;
pub mod kinetic;
pub mod min_heap;
