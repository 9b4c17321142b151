//! Uniform random writes: every logical page with probability 1/(logical pages)
//! (Van Houdt §2.1; Lomet & Luo §3).

use rand::Rng;

use crate::SimRng;

/// Uniform over `[0, n)`.
#[derive(Clone, Copy, Debug)]
pub struct Uniform {
    n: u32,
}

impl Uniform {
    /// Uniform over `n` pages.
    pub fn new(n: u32) -> Self {
        Uniform { n }
    }

    /// A page's probability per write, 1/n.
    #[inline]
    pub fn rate(&self) -> f32 {
        (1.0 / f64::from(self.n)) as f32
    }

    /// The next page.
    #[inline]
    pub fn next(&self, rng: &mut SimRng) -> u32 {
        rng.random_range(0..self.n)
    }
}
