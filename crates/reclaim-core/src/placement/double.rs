//! Double write frontier: user writes to an external frontier (WFE, stream 0), relocated pages
//! to an internal one (WFI, stream 1).
//!
//! B. Van Houdt, "Performance of garbage collection algorithms for flash-based solid state drives
//! with hot/cold data", §2.3. With the `frontier` trigger the run loop reproduces his rules case
//! by case: a victim whose j valid pages fit in the WFI is copied there and the erased victim
//! becomes the next WFE; otherwise the WFI is topped up, sealed, and the erased victim becomes the
//! new WFI with the rest, and the cleaner runs again. Which pages top up the WFI is the one choice
//! this file makes (`arrange`): a uniformly random subset (RND, the model's assumption) or the
//! first written (OLDEST, slot order); his Table 2 has both columns.

use rand::Rng;

use super::{Gathered, Scheme, Stream, Victim};
use crate::config::CopyOrder;
use crate::store::NONE;
use crate::workload::Write;
use crate::SimRng;

/// Double frontier.
#[derive(Clone, Copy, Debug)]
pub struct Double {
    copy: CopyOrder,
}

impl Double {
    /// With the partial-copy order `copy`.
    pub fn new(copy: CopyOrder) -> Self {
        Double { copy }
    }
}

impl Scheme for Double {
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
        1
    }

    #[inline]
    fn victim_stream(&self, _victim: &Victim) -> Option<usize> {
        Some(1)
    }

    fn arrange(&mut self, batch: &mut [Gathered], streams: &[Stream], pps: u32, rng: &mut SimRng) {
        if self.copy != CopyOrder::Random {
            return;
        }
        let wfi = streams[1];
        let room = if wfi.seg == NONE {
            0
        } else {
            (pps - wfi.next) as usize
        };
        if batch.len() > room && room > 0 {
            // Van Houdt §2.3 case 2 (RND): a uniformly random `room` of the valid pages go to
            // the WFI; a partial Fisher–Yates shuffle puts them first.
            for i in 0..room {
                let j = rng.random_range(i..batch.len());
                batch.swap(i, j);
            }
        }
    }
}
