//! Stockmeyer's `MaxEmpty`: when a stream needs a segment and none is free, clean until K segments
//! are free, then write (§2.3; the report fixes K = 1).

use super::GcSpec;
use crate::error::{Error, Result};
use crate::spec::{Args, Entry, Family, Info, Param};

fn parse(args: &Args<'_>) -> Result<GcSpec> {
    let k: u32 = args.num("k", Some(1), "a whole number ≥ 1")?;
    if k == 0 {
        return Err(Error::param("gc.k", k, "a whole number ≥ 1"));
    }
    Ok(GcSpec::MaxEmpty { k })
}

/// `max-empty:k=K`.
pub const ENTRY: Entry<GcSpec> = Entry {
    info: Info {
        family: Family::Trigger,
        name: "max-empty",
        aliases: &[],
        summary: "When a stream needs a segment and none is free, clean until K segments are free.",
        source: "Stockmeyer §2.3 (MaxEmpty)",
        params: &[Param {
            key: "k",
            values: "K",
            unit: "segments",
            range: "a whole number ≥ 1",
            default: Some("1"),
            help: "Free segments to produce before writing resumes.",
        }],
        needs: &[],
    },
    parse,
};
