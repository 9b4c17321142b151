//! Hot/cold writes: a fraction r of the writes go uniformly to a fraction f of the pages, the
//! rest uniformly to the others (Rosenblum & Ousterhout; Van Houdt §2.1, eq. 1–2).
//!
//! The hot pages are the first round(f × pages) page ids. After the warm-up the placement of
//! pages no longer remembers their ids, so which ids are hot does not change the steady state.

use rand::Rng;

use super::WorkloadSpec;
use super::{ClassShare, Rate, Write};
use crate::error::{Error, Result};
use crate::rng::SimRng;
use crate::spec::{Entry, Family, Info, Param};

/// Hot/cold generator.
#[derive(Clone, Copy, Debug)]
pub struct HotCold {
    hot: u32,
    n: u32,
    r: f64,
    /// Rate of one hot page, of one cold page.
    rates: [Rate; 2],
}

impl HotCold {
    /// `r` of the writes to the first `f × n` of `n` pages.
    pub fn new(n: u32, r: f64, f: f64) -> Result<Self> {
        let hot = (f * f64::from(n)).round() as u32;
        if hot == 0 || hot >= n {
            return Err(Error::param(
                "workload.f",
                f,
                format!("a share leaving both hot and cold pages among {n}"),
            ));
        }
        let rates = [
            Rate::from_probability(r / f64::from(hot)),
            Rate::from_probability((1.0 - r) / f64::from(n - hot)),
        ];
        Ok(HotCold { hot, n, r, rates })
    }

    /// The next write: class 0 for a hot page, 1 for a cold one.
    #[inline]
    pub fn next(&self, rng: &mut SimRng) -> Write {
        if rng.random::<f64>() < self.r {
            Write {
                page: rng.random_range(0..self.hot),
                class: 0,
                rate: self.rates[0],
            }
        } else {
            Write {
                page: rng.random_range(self.hot..self.n),
                class: 1,
                rate: self.rates[1],
            }
        }
    }

    /// The probability per write of one page of `class`: r/hot pages, (1 − r)/cold pages.
    #[inline]
    pub fn rate_of_class(&self, class: u16) -> Rate {
        self.rates[usize::from(class.min(1))]
    }

    /// 0 for a hot page, 1 for a cold one.
    #[inline]
    pub fn class_of(&self, page: u32) -> u16 {
        u16::from(page >= self.hot)
    }

    /// Hot, then cold.
    pub fn class_shares(&self) -> Vec<ClassShare> {
        vec![
            ClassShare {
                pages: u64::from(self.hot),
                write_share: self.r,
            },
            ClassShare {
                pages: u64::from(self.n - self.hot),
                write_share: 1.0 - self.r,
            },
        ]
    }
}

/// `hotcold:r=R,f=F`.
pub const ENTRY: Entry<WorkloadSpec> = Entry {
    info: Info {
        family: Family::Workload,
        name: "hotcold",
        aliases: &["hot-cold"],
        summary: "A share r of the writes go to a share f of the pages.",
        source: "Rosenblum & Ousterhout; Van Houdt §2.1",
        params: &[
            Param {
                key: "r",
                values: "R",
                unit: "",
                range: "a number in (0, 1)",
                default: None,
                help: "Share of writes to hot pages.",
            },
            Param {
                key: "f",
                values: "F",
                unit: "",
                range: "a number in (0, 1)",
                default: None,
                help: "Share of pages that are hot.",
            },
        ],
        needs: &[],
    },
    parse: |a| {
        Ok(WorkloadSpec::HotCold {
            r: a.num("r", None, "a number in (0, 1)")?,
            f: a.num("f", None, "a number in (0, 1)")?,
        })
    },
};
