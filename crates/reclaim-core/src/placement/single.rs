//! One stream for user and GC writes: the single write frontier of Van Houdt §2.3 and of Li et
//! al. §2.1 ("all page writes, such as external writes … and internal writes …, are directed to
//! the write frontier").

use super::{Gathered, Scheme, Victim};
use crate::workload::Write;
use crate::SimRng;

/// Single stream.
#[derive(Clone, Copy, Debug)]
pub struct Single;

impl Scheme for Single {
    #[inline]
    fn user_stream(&mut self, _write: &Write, _age: u64, _rng: &mut SimRng) -> usize {
        0
    }

    #[inline]
    fn gc_stream(
        &mut self,
        _page: &Gathered,
        _victim: &Victim,
        _class: u16,
        _age: u64,
        _rng: &mut SimRng,
    ) -> usize {
        0
    }

    #[inline]
    fn victim_stream(&self, _victim: &Victim) -> Option<usize> {
        Some(0)
    }
}
