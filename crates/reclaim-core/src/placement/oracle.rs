//! Oracle separation by class: one stream per class of the workload, which user writes and
//! relocated pages of that class share; all streams draw on one free pool and one victim policy.
//!
//! The "-opt" variants of Lomet & Luo §6.1.3 (MDC-opt, multi-log-opt) separate pages by their
//! exact update frequency, which the workload knows; here the class carried by each write plays
//! that part (hot/cold: hot and cold; Li et al.'s locality model: its classes). A relocated page
//! goes to the stream of the class of its last user write, kept per page.

use super::{Gathered, Scheme, Victim};
use crate::workload::Write;
use crate::SimRng;

/// One stream per class.
#[derive(Clone, Copy, Debug)]
pub struct Oracle;

impl Scheme for Oracle {
    #[inline]
    fn user_stream(&mut self, write: &Write, _age: u64, _rng: &mut SimRng) -> usize {
        usize::from(write.class)
    }

    #[inline]
    fn gc_stream(
        &mut self,
        _page: &Gathered,
        _victim: &Victim,
        class: u16,
        _age: u64,
        _rng: &mut SimRng,
    ) -> usize {
        usize::from(class)
    }
}
