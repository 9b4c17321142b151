//! One stream for user and GC writes: the single write frontier of Van Houdt §2.3 and of Li et
//! al. §2.1 ("all page writes, such as external writes … and internal writes …, are directed to
//! the write frontier").

use super::{Build, Built, Declare};
use super::{Scheme, Victim, Relocation};
use crate::error::Result;
use crate::spec::{Args, Family, Info};
use crate::workload::Write;
use crate::rng::SimRng;

/// Single stream.
#[derive(Clone, Copy, Debug)]
pub struct Single;

impl Scheme for Single {
    #[inline]
    fn user_stream(&mut self, _write: &Write, _age: u64, _rng: &mut SimRng) -> usize {
        0
    }

    fn one_user_stream(&self) -> Option<usize> {
        Some(0)
    }

    #[inline]
    fn gc_stream(&mut self, _r: Relocation<'_>) -> usize {
        0
    }

    #[inline]
    fn victim_stream(&self, _victim: &Victim) -> Option<usize> {
        Some(0)
    }
}

impl Declare for Single {
    type Params = ();
    const INFO: Info = Info {
        family: Family::Placement,
        name: "single",
        aliases: &[],
        summary: "User and GC writes share one stream (Van Houdt's single write frontier).",
        source: "Van Houdt §2.3",
        params: &[],
        needs: &[],
    };
    const SIZES: bool = true;
    fn parse(_args: &Args<'_>) -> Result<()> {
        Ok(())
    }
    fn show((): &(), f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("single")
    }
    fn streams((): &(), _classes: u32) -> u32 {
        1
    }
    fn build((): &(), b: &Build<'_>) -> Result<Built<Self>> {
        Ok(Built::whole(Single, vec![true], 1, b))
    }
}
