//! The run's random generator.

/// The run's random generator: xoshiro256++, seeded by `SplitMix64` from the configured seed, so a
/// configuration and seed give the same result, bit for bit, on every machine.
pub type SimRng = rand_xoshiro::Xoshiro256PlusPlus;
