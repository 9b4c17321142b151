//! Hot/cold writes: a fraction r of the writes go uniformly to a fraction f of the pages, the
//! rest uniformly to the others (Rosenblum & Ousterhout; Van Houdt §2.1, eq. 1–2).
//!
//! The hot pages are the first round(f × pages) page ids. After the warm-up the placement of
//! pages no longer remembers their ids, so which ids are hot does not change the steady state.

use rand::Rng;

use crate::error::{Error, Result};
use crate::SimRng;

/// Hot/cold generator.
#[derive(Clone, Copy, Debug)]
pub struct HotCold {
    hot: u32,
    n: u32,
    r: f64,
}

impl HotCold {
    /// `r` of the writes to the first `f × n` of `n` pages.
    pub fn new(n: u32, r: f64, f: f64) -> Result<Self> {
        let hot = (f * f64::from(n)).round() as u32;
        if hot == 0 || hot >= n {
            return Err(Error::param("workload.f", f, format!("a share leaving both hot and cold pages among {n}")));
        }
        Ok(HotCold { hot, n, r })
    }

    /// The next page.
    #[inline]
    pub fn next(&self, rng: &mut SimRng) -> u32 {
        if rng.random::<f64>() < self.r {
            rng.random_range(0..self.hot)
        } else {
            rng.random_range(self.hot..self.n)
        }
    }
}
