//! Stockmeyer's method (§2.1, §2.3): "first there is a warm-up of 10 × `LsaTrkCount` uniform
//! writes to place the LSA in a random state; then there is a warm-up using the first one million
//! writes from the trace; and then the simulation is run on the working trace". Multi-pass runs
//! (§8) replay the whole trace several times, measured by `writes=Np`.

use super::MethodSpec;
use crate::error::{Error, Result};
use crate::spec::{Args, Entry, Family, Info, Param};

/// The report's trace prefix replayed unmeasured: "the first one million writes" (§2.1).
pub const PREFIX: u64 = 1_000_000;

fn parse(args: &Args<'_>) -> Result<MethodSpec> {
    let range = "a whole number of trace writes ≥ 0";
    let prefix: u64 = args.num("prefix", Some(PREFIX), range)?;
    if prefix > 1 << 40 {
        return Err(Error::param(&args.key("prefix"), prefix, range));
    }
    Ok(MethodSpec::Stockmeyer { prefix })
}

/// `stockmeyer:prefix=N`.
pub const ENTRY: Entry<MethodSpec> = Entry {
    info: Info {
        family: Family::Method,
        name: "stockmeyer",
        aliases: &[],
        summary: "Uniform warm-up (`warmup`, default fill+10x), the trace's first writes unmeasured, the rest measured.",
        source: "Stockmeyer §2.1, §2.3, §8",
        params: &[Param {
            key: "prefix",
            values: "N",
            unit: "trace writes",
            range: "a whole number ≥ 0, fewer than the trace's writes (`warmup`'s `+P%` overrides it)",
            default: Some("1000000"),
            help: "Trace writes replayed unmeasured after the uniform warm-up.",
        }],
        needs: &[],
    },
    parse,
};
