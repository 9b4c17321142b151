//! Hot/cold writes whose hot set moves: a fraction r of the writes go uniformly to a window of
//! f × n pages, the rest uniformly to the others, and the window slides along the page ids, one
//! window's length every `period` × n writes, so that hot pages turn cold over time.
//!
//! Lomet & Luo §6.3: the TPC-C traces have "a shifting pattern where hot pages become cold over
//! time" (new orders are hot, old ones cold). The traces are not public; this is the synthetic
//! behaviour the paper names, for the estimating policies whose history goes stale (MDC's u_p2,
//! multi-log's update distances). A window that slides rather than jumps makes every page's
//! heat decline gradually, as an order ages.
//!
//! Class and rate of a page are those of the moment: 0 (hot) inside the window, 1 (cold)
//! outside, rates r/hot and (1 − r)/cold per write.

use rand::Rng;

use super::hot_cold::HotCold;
use super::WorkloadSpec;
use super::{ClassShare, Rate, Write};
use crate::error::Result;
use crate::rng::SimRng;
use crate::spec::{Entry, Family, Info, Param};

/// Shifting hot/cold generator.
#[derive(Clone, Debug)]
pub struct Shifting {
    /// The classes' sizes, shares and rates: those of hot/cold with the window at page 0.
    base: HotCold,
    hot: u32,
    n: u32,
    r: f64,
    /// Writes drawn so far.
    written: u64,
    /// Writes per page of window movement: period × n / hot.
    per_page: f64,
}

impl Shifting {
    /// `r` of the writes to a window of `f × n` of `n` pages, moving one window length every
    /// `period × n` writes.
    pub fn new(n: u32, r: f64, f: f64, period: f64) -> Result<Self> {
        let base = HotCold::new(n, r, f)?;
        let hot = base.class_shares()[0].pages as u32;
        Ok(Shifting {
            base,
            hot,
            n,
            r,
            written: 0,
            per_page: period * f64::from(n) / f64::from(hot),
        })
    }

    /// First page of the window after `written` writes.
    #[inline]
    fn start(&self, written: u64) -> u32 {
        ((written as f64 / self.per_page) as u64 % u64::from(self.n)) as u32
    }

    /// The next write, with its class and rate of the moment.
    #[inline]
    pub fn next(&mut self, rng: &mut SimRng) -> Write {
        let start = self.start(self.written);
        self.written += 1;
        let (offset, class) = if rng.random::<f64>() < self.r {
            (rng.random_range(0..self.hot), 0)
        } else {
            (rng.random_range(self.hot..self.n), 1)
        };
        Write {
            page: ((u64::from(start) + u64::from(offset)) % u64::from(self.n)) as u32,
            class,
            rate: self.base.rate_of_class(class),
        }
    }

    /// 0 for a page in the window now, 1 otherwise.
    pub fn class_of(&self, page: u32) -> u16 {
        let start = self.start(self.written);
        let offset = (u64::from(page) + u64::from(self.n) - u64::from(start)) % u64::from(self.n);
        u16::from(offset >= u64::from(self.hot))
    }

    /// The rate of a page of `class`.
    pub fn rate_of_class(&self, class: u16) -> Rate {
        self.base.rate_of_class(class)
    }

    /// Hot (the window), then cold.
    pub fn class_shares(&self) -> Vec<ClassShare> {
        self.base.class_shares()
    }
}

/// `shifting:r=R,f=F[,period=P]`.
pub const ENTRY: Entry<WorkloadSpec> = Entry {
    info: Info {
        family: Family::Workload,
        name: "shifting",
        aliases: &[],
        summary: "Hot/cold whose hot window slides one window length every period × logical pages writes.",
        source: "Lomet & Luo §6.3",
        params: &[
            Param {
            key: "r",
            values: "R",
            unit: "",
            range: "a number in (0, 1)",
            default: None,
            help: "Share of writes to the window.",
        },
            Param {
            key: "f",
            values: "F",
            unit: "",
            range: "a number in (0, 1)",
            default: None,
            help: "Share of pages in the window.",
        },
            Param {
                key: "period",
                values: "P",
                unit: "logical capacities",
                range: "a number > 0",
                default: Some("1"),
                help: "Writes per window length moved.",
            },
        ],
        needs: &[],
    },
    parse: |a| {
        Ok(WorkloadSpec::Shifting {
            r: a.num("r", None, "a number in (0, 1)")?,
            f: a.num("f", None, "a number in (0, 1)")?,
            period: a.num("period", Some(1.0), "a number > 0")?,
        })
    },
};

#[cfg(test)]
mod tests {
    use rand::SeedableRng;

    use super::*;

    /// A share r of the writes lands in the window of the moment, and the window moves one
    /// length per period: with n = 1000, f = 0.1, period = 0.5, the window starts at page 0,
    /// then at 100 after 500 writes, at 900 after 4,500 and back at 0 after 5,000.
    #[test]
    fn the_hot_window_slides_one_length_per_period() {
        let mut w = Shifting::new(1000, 0.9, 0.1, 0.5).unwrap();
        assert_eq!([0, 500, 4500, 5000].map(|k| w.start(k)), [0, 100, 900, 0]);
        let mut rng = SimRng::seed_from_u64(3);
        let mut in_window = 0;
        for _ in 0..10_000 {
            let start = w.start(w.written);
            let write = w.next(&mut rng);
            let offset = (write.page + 1000 - start) % 1000;
            assert_eq!(
                write.class,
                u16::from(offset >= 100),
                "{write:?} at {start}"
            );
            in_window += u32::from(offset < 100);
        }
        // Binomial(10,000, 0.9): sd 30; 0.9 ± 5 sd.
        assert!((8850..=9150).contains(&in_window), "{in_window}");
    }
}
