//! Trace replay: the page writes of a converted trace, in order, pass after pass.

use std::sync::Arc;

/// Replays a trace's page ids cyclically.
#[derive(Clone, Debug)]
pub struct Replay {
    pages: Arc<Vec<u32>>,
    pos: usize,
}

impl Replay {
    /// Replays `pages` from the start.
    pub fn new(pages: Arc<Vec<u32>>) -> Self {
        Replay { pages, pos: 0 }
    }

    /// The next page (the trace starts again after its last write).
    #[inline]
    pub fn next_page(&mut self) -> u32 {
        let p = self.pages[self.pos];
        self.pos += 1;
        if self.pos == self.pages.len() {
            self.pos = 0;
        }
        p
    }
}
