//! Lomet & Luo's batch cleaning (§6): after a frontier is opened, if fewer than `low` segments
//! are free, clean `victims` victims, each relocated before the next is chosen or all gathered,
//! optionally sorted, then rewritten (§5.3, §6.1.1). With `until=low` the cycles repeat until
//! `low` segments are free, as MiDAS-Simulation cleans (`ssdsimul.cpp`, `GC`: one victim at a
//! time while fewer than `FREENUM` = 4 segments are free, after every user write).

use std::fmt;

use super::{Gather, GcSpec, SortKey, Until};
use crate::error::{Error, Result};
use crate::spec::{Args, Entry, Family, Info, Param};

fn parse(args: &Args<'_>) -> Result<GcSpec> {
    let low: u32 = args.num("low", Some(32), "a whole number ≥ 1")?;
    let victims: u32 = args.num("victims", Some(64), "a whole number ≥ 1")?;
    if low == 0 {
        return Err(Error::param("gc.low", low, "a whole number ≥ 1"));
    }
    if victims == 0 {
        return Err(Error::param("gc.victims", victims, "a whole number ≥ 1"));
    }
    let until = args.choice(
        "until",
        &[("cycle", Until::Cycle), ("low", Until::Low)],
        Until::Cycle,
    )?;
    let gather = args.choice(
        "gather",
        &[("each", Gather::Each), ("all", Gather::All)],
        Gather::Each,
    )?;
    let keys = [
        SortKey::None,
        SortKey::Stamp,
        SortKey::Dseq,
        SortKey::Written,
        SortKey::Up2,
    ];
    let named: Vec<(&str, SortKey)> = keys.iter().map(|k| (k.name(), *k)).collect();
    let sort = args.choice("sort", &named, SortKey::None)?;
    if sort != SortKey::None && gather != Gather::All {
        return Err(Error::param(
            "gc.sort",
            format!("`{}`", sort.name()),
            "a sort key only with `gather=all`",
        ));
    }
    Ok(GcSpec::Batch {
        low,
        victims,
        until,
        gather,
        sort,
    })
}

/// The canonical text; the defaults of `gather` and `sort` are left out, so that the names of
/// earlier runs stay theirs.
pub fn show(
    f: &mut fmt::Formatter<'_>,
    (low, victims, until): (u32, u32, Until),
    gather: Gather,
    sort: SortKey,
) -> fmt::Result {
    write!(f, "batch:low={low},victims={victims}")?;
    if until == Until::Low {
        write!(f, ",until=low")?;
    }
    if gather == Gather::All {
        write!(f, ",gather=all")?;
    }
    if sort != SortKey::None {
        write!(f, ",sort={}", sort.name())?;
    }
    Ok(())
}

/// `batch:low=L,victims=V[,until=cycle|low,gather=each|all,sort=KEY]`.
pub const ENTRY: Entry<GcSpec> = Entry {
    info: Info {
        family: Family::Trigger,
        name: "batch",
        aliases: &[],
        summary: "When fewer than `low` segments are free, clean `victims` victims.",
        source: "Lomet & Luo §5.3, §6 (32 and 64)",
        params: &[
            Param {
                key: "low",
                values: "L",
                unit: "segments",
                range: "a whole number ≥ 1",
                default: Some("32"),
                help: "Trigger level: free segments below which a cleaning cycle starts.",
            },
            Param {
                key: "victims",
                values: "V",
                unit: "segments",
                range: "a whole number ≥ 1",
                default: Some("64"),
                help: "Victims per cleaning cycle.",
            },
            Param {
                key: "until",
                values: "cycle|low",
                unit: "",
                range: "`cycle` or `low`",
                default: Some("cycle"),
                help: "Stop after one cycle, or repeat cycles until `low` segments are free (MiDAS-Simulation).",
            },
            Param {
                key: "gather",
                values: "each|all",
                unit: "",
                range: "`each` or `all`",
                default: Some("each"),
                help: "Relocate each victim before choosing the next, or gather all victims' pages first.",
            },
            Param {
                key: "sort",
                values: "none|stamp|dseq|written|up2",
                unit: "",
                range: "`none`, `stamp`, `dseq`, `written` or `up2`",
                default: Some("none"),
                help: "Order of a gathered batch before it is rewritten (with gather=all), oldest first.",
            },
        ],
        needs: &[],
    },
    parse,
};
