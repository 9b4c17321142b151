//! Li et al.'s locality workload (`f_a`, n, r, f): only an active fraction `f_a` of the logical space
//! is written; within it, class i receives a share `r_i` of the writes spread uniformly over a
//! share `f_i` of the active pages.
//!
//! Li, Lee, Lui, Xu, "Impact of Data Locality on Garbage Collection in SSDs", §2.2. The active
//! pages are the first `round(f_a` × pages) ids and the classes follow one another in order, so a
//! sequential fill keeps inactive pages in segments of their own, as §2.2 assumes.

use rand::Rng;

use super::WorkloadSpec;
use super::{ClassShare, Rate, Write};
use crate::error::{Error, Result};
use crate::rng::SimRng;
use crate::spec::{parse_vec, Entry, Family, Info, Param};

/// Locality generator.
#[derive(Clone, Debug)]
pub struct Locality {
    /// Cumulative write shares.
    cum_r: Vec<f64>,
    /// Write shares.
    r: Vec<f64>,
    /// First page of each class, then the end of the active region.
    bounds: Vec<u32>,
    /// Rate of one page of each class: its write share over its pages.
    rates: Vec<Rate>,
}

impl Locality {
    /// Classes with write shares `r` and page shares `f` over the active `fa × n` of `n` pages.
    pub fn new(n: u32, fa: f64, r: &[f64], f: &[f64]) -> Result<Self> {
        let active = (fa * f64::from(n)).round() as u32;
        let mut bounds = vec![0u32];
        let mut acc = 0.0;
        for (i, fi) in f.iter().enumerate() {
            acc += fi;
            let end = if i + 1 == f.len() {
                active
            } else {
                (acc * f64::from(active)).round() as u32
            };
            if end <= *bounds.last().expect("non-empty") {
                return Err(Error::param(
                    "workload.f",
                    format!("{fi} (class {})", i + 1),
                    format!(
                        "a share giving class {} at least one of the {active} active pages",
                        i + 1
                    ),
                ));
            }
            bounds.push(end);
        }
        let mut cum_r = Vec::with_capacity(r.len());
        let mut c = 0.0;
        for ri in r {
            c += ri;
            cum_r.push(c);
        }
        *cum_r.last_mut().expect("at least one class") = f64::INFINITY;
        let rates = r
            .iter()
            .zip(bounds.windows(2))
            .map(|(ri, b)| Rate::from_probability(ri / f64::from(b[1] - b[0])))
            .collect();
        Ok(Locality {
            cum_r,
            r: r.to_vec(),
            bounds,
            rates,
        })
    }

    /// The next write, with its class.
    #[inline]
    pub fn next(&self, rng: &mut SimRng) -> Write {
        let u: f64 = rng.random();
        let class = self
            .cum_r
            .iter()
            .position(|&c| u < c)
            .expect("last share is infinite");
        Write {
            page: rng.random_range(self.bounds[class]..self.bounds[class + 1]),
            class: class as u16,
            rate: self.rates[class],
        }
    }

    /// The rate of one page of `class`: its write share over its pages; unknown for the
    /// inactive pages.
    #[inline]
    pub fn rate_of_class(&self, class: u16) -> Rate {
        self.rates
            .get(usize::from(class))
            .copied()
            .unwrap_or(Rate::UNKNOWN)
    }

    /// The class of a page: i for class i + 1, the number of classes for an inactive page.
    #[inline]
    pub fn class_of(&self, page: u32) -> u16 {
        self.bounds[1..]
            .iter()
            .position(|&end| page < end)
            .unwrap_or(self.r.len()) as u16
    }

    /// The classes in order, then the inactive pages.
    pub fn class_shares(&self, logical_pages: u64) -> Vec<ClassShare> {
        let mut out: Vec<ClassShare> = self
            .bounds
            .windows(2)
            .zip(&self.r)
            .map(|(b, &r)| ClassShare {
                pages: u64::from(b[1] - b[0]),
                write_share: r,
            })
            .collect();
        let active = u64::from(*self.bounds.last().expect("non-empty"));
        out.push(ClassShare {
            pages: logical_pages - active,
            write_share: 0.0,
        });
        out
    }
}

/// `locality:fa=A,r=R1/R2/…,f=F1/F2/…`.
pub const ENTRY: Entry<WorkloadSpec> = Entry {
    info: Info {
        family: Family::Workload,
        name: "locality",
        aliases: &[],
        summary: "Only a share fa of the logical space is written; class i gets a share r_i of writes over a share f_i of the active pages.",
        source: "Li et al. §2.2",
        params: &[
            Param {
                key: "fa",
                values: "A",
                unit: "",
                range: "a number in (0, 1]",
                default: Some("1"),
                help: "Active share of the logical space.",
            },
            Param {
                key: "r",
                values: "R1/R2/…",
                unit: "",
                range: "shares in (0, 1] summing to 1",
                default: Some("1"),
                help: "Write share of each class.",
            },
            Param {
                key: "f",
                values: "F1/F2/…",
                unit: "",
                range: "shares in (0, 1] summing to 1, as many as r",
                default: Some("1"),
                help: "Page share of each class, of the active pages.",
            },
        ],
        needs: &[],
    },
    parse: |a| {
        Ok(WorkloadSpec::Locality {
            fa: a.num("fa", Some(1.0), "a number in (0, 1]")?,
            r: parse_vec("workload.r", a.get("r").unwrap_or("1"))?,
            f: parse_vec("workload.f", a.get("f").unwrap_or("1"))?,
        })
    },
};
