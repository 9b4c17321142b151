//! Oracle separation by class: one stream per class of the workload, which user writes and
//! relocated pages of that class share; all streams draw on one free pool and one victim policy.
//!
//! The "-opt" variants of Lomet & Luo §6.1.3 (MDC-opt, multi-log-opt) separate pages by their
//! exact update frequency, which the workload knows; here the class carried by each write plays
//! that part (hot/cold: hot and cold; Li et al.'s locality model: its classes). A relocated page
//! goes to the stream of the class of its last user write, kept per page.

use super::{Build, Built, Declare};
use super::{Scheme, Relocation};
use crate::error::Result;
use crate::spec::{Args, Family, Info, Need};
use crate::workload::Write;
use crate::rng::SimRng;

/// One stream per class.
#[derive(Clone, Copy, Debug)]
pub struct Oracle;

impl Scheme for Oracle {
    #[inline]
    fn user_stream(&mut self, write: &Write, _age: u64, _rng: &mut SimRng) -> usize {
        usize::from(write.class)
    }

    #[inline]
    fn gc_stream(&mut self, r: Relocation<'_>) -> usize {
        usize::from(r.class)
    }
}

impl Declare for Oracle {
    type Params = ();
    const INFO: Info = Info {
        family: Family::Placement,
        name: "oracle",
        aliases: &[],
        summary: "One stream per class of the workload, user and GC writes of a class together, one free pool.",
        source: "Lomet & Luo §6.1.3 (the -opt separation)",
        params: &[],
        needs: &[Need::Classes, Need::PageClass],
    };
    const SIZES: bool = true;
    fn parse(_args: &Args<'_>) -> Result<()> {
        Ok(())
    }
    fn show((): &(), f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("oracle")
    }
    fn streams((): &(), classes: u32) -> u32 {
        classes
    }
    // Every class's stream takes relocated pages: a reserve of one per GC stream beyond the first.
    fn reserve((): &(), classes: u32) -> (u64, u64) {
        (u64::from(classes) - 1, 1)
    }
    fn build((): &(), b: &Build<'_>) -> Result<Built<Self>> {
        let n = b.classes.len();
        Ok(Built::whole(Oracle, vec![true; n], n as u32, b))
    }
}
