//! Page sizes: how many slots each logical page takes (Lomet & Luo §4.4, "pages can be of
//! variable size").
//!
//! A page keeps its size for the run. Sizes are given out by the distribution's quantiles, the
//! count of each size rounded by largest remainder from pages × its probability, then shuffled
//! over the pages with a generator of their own seeded from the run's seed: the total is the
//! mean size times the pages up to one slot per distinct size, so the fill factor the geometry
//! computes from the mean is the one the run has, and no other draw of the run moves.

use rand::seq::SliceRandom;
use rand::SeedableRng;

use std::fmt;
use std::str::FromStr;

use crate::error::{Error, Result};
use crate::rng::SimRng;
use crate::spec::{
    check_range, parse_entry, parse_vec, string_serde, Args, Entry, Family, Info, Param,
};

/// Page sizes (`--sizes`, Lomet & Luo §4.4): each logical page takes a number of slots, the
/// unit of size (a slot is then, say, 512 bytes, and `pages_per_segment` is B in slots). A page
/// keeps its size for the run; sizes are given to pages by the distribution's quantiles and
/// shuffled with the run's seed (`workload::sizes`), so the total is the distribution's mean
/// times the pages up to rounding.
#[derive(Clone, Debug, PartialEq)]
pub enum SizeSpec {
    /// Every page `size` slots.
    Fixed {
        /// Size [slots].
        size: u16,
    },
    /// Sizes uniform over the whole numbers `min` … `max` slots.
    Uniform {
        /// Smallest size [slots].
        min: u16,
        /// Largest size [slots].
        max: u16,
    },
    /// `sizes[i]` slots with probability `weights[i]` (normalised).
    Choice {
        /// Sizes [slots].
        sizes: Vec<u16>,
        /// Relative weights, ≥ 0, with a positive sum.
        weights: Vec<f64>,
    },
}

impl SizeSpec {
    /// The sizes and their probabilities.
    pub fn distribution(&self) -> Vec<(u16, f64)> {
        match self {
            SizeSpec::Fixed { size } => vec![(*size, 1.0)],
            SizeSpec::Uniform { min, max } => {
                let n = f64::from(max - min + 1);
                (*min..=*max).map(|s| (s, 1.0 / n)).collect()
            }
            SizeSpec::Choice { sizes, weights } => {
                let total: f64 = weights.iter().sum();
                sizes
                    .iter()
                    .zip(weights)
                    .map(|(&s, &w)| (s, w / total))
                    .collect()
            }
        }
    }

    /// Mean size [slots].
    pub fn mean(&self) -> f64 {
        self.distribution()
            .iter()
            .map(|&(s, p)| f64::from(s) * p)
            .sum()
    }

    /// Largest size [slots].
    pub fn max(&self) -> u16 {
        self.distribution()
            .iter()
            .filter(|(_, p)| *p > 0.0)
            .map(|&(s, _)| s)
            .max()
            .unwrap_or(1)
    }

    /// Checks the sizes and weights.
    pub fn validate(&self) -> Result<()> {
        let size = |v: u16, text: &str| {
            if v == 0 {
                Err(Error::param("sizes", text, "sizes of at least 1 slot"))
            } else {
                Ok(())
            }
        };
        match self {
            SizeSpec::Fixed { size: s } => size(*s, &self.to_string()),
            SizeSpec::Uniform { min, max } => {
                size(*min, &self.to_string())?;
                if max < min {
                    return Err(Error::param("sizes", self.to_string(), "`min` ≤ `max`"));
                }
                Ok(())
            }
            SizeSpec::Choice { sizes, weights } => {
                if sizes.is_empty() || sizes.len() != weights.len() {
                    return Err(Error::param(
                        "sizes",
                        format!("{} sizes, {} weights", sizes.len(), weights.len()),
                        "one weight per size, at least one size",
                    ));
                }
                for &s in sizes {
                    size(s, &self.to_string())?;
                }
                for &w in weights {
                    check_range("sizes.weights", w, 0.0, f64::MAX, false, false)?;
                }
                if weights.iter().sum::<f64>() <= 0.0 {
                    return Err(Error::param(
                        "sizes.weights",
                        self.to_string(),
                        "weights with a positive sum",
                    ));
                }
                Ok(())
            }
        }
    }
}

impl FromStr for SizeSpec {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        let v = parse_entry("sizes", s, SIZES)?;
        v.validate()?;
        Ok(v)
    }
}

const SLOTS: &str = "a whole number of slots in [1, 65535]";

fn size(args: &Args<'_>, key: &str) -> Result<u16> {
    args.num(key, None, SLOTS)
}

const fn param(
    key: &'static str,
    values: &'static str,
    default: Option<&'static str>,
    help: &'static str,
) -> Param {
    Param {
        key,
        values,
        unit: "slots",
        range: SLOTS,
        default,
        help,
    }
}

/// The registry of size distributions: one entry each.
pub const SIZES: &[Entry<SizeSpec>] = &[
    Entry {
        info: Info {
            family: Family::Sizes,
            name: "fixed",
            aliases: &[],
            summary: "Every page the same number of slots.",
            source: "Lomet & Luo §4.4",
            params: &[param("size", "S", None, "Size of every page.")],
            needs: &[],
        },
        parse: |a| {
            Ok(SizeSpec::Fixed {
                size: size(a, "size")?,
            })
        },
    },
    Entry {
        info: Info {
            family: Family::Sizes,
            name: "uniform",
            aliases: &[],
            summary: "Sizes uniform over the whole numbers min … max slots.",
            source: "Lomet & Luo §4.4",
            params: &[
                param("min", "A", None, "Smallest size."),
                param("max", "B", None, "Largest size."),
            ],
            needs: &[],
        },
        parse: |a| {
            Ok(SizeSpec::Uniform {
                min: size(a, "min")?,
                max: size(a, "max")?,
            })
        },
    },
    Entry {
        info: Info {
            family: Family::Sizes,
            name: "choice",
            aliases: &[],
            summary: "Size sizes[i] with probability weights[i] (normalised).",
            source: "Lomet & Luo §4.4",
            params: &[
                param("sizes", "S1/S2/…", None, "The sizes, separated by `/`."),
                Param {
                    key: "weights",
                    values: "W1/W2/…",
                    unit: "",
                    range: "numbers ≥ 0 with a positive sum, one per size",
                    default: Some("equal"),
                    help: "Relative weight of each size.",
                },
            ],
            needs: &[],
        },
        parse: |a| {
            let text = a
                .get("sizes")
                .ok_or_else(|| a.bad("`choice:sizes=S1/S2/…,weights=W1/W2/…`"))?;
            let sizes = text
                .split('/')
                .map(|x| {
                    x.trim().parse::<u16>().map_err(|_| {
                        Error::param(
                            "sizes.sizes",
                            format!("`{text}`"),
                            "whole numbers of slots in [1, 65535] separated by `/`",
                        )
                    })
                })
                .collect::<Result<Vec<u16>>>()?;
            let weights = match a.get("weights") {
                Some(w) => parse_vec("sizes.weights", w)?,
                None => vec![1.0; sizes.len()],
            };
            Ok(SizeSpec::Choice { sizes, weights })
        },
    },
];

impl fmt::Display for SizeSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let join = |v: Vec<String>| v.join("/");
        match self {
            SizeSpec::Fixed { size } => write!(f, "fixed:size={size}"),
            SizeSpec::Uniform { min, max } => write!(f, "uniform:min={min},max={max}"),
            SizeSpec::Choice { sizes, weights } => write!(
                f,
                "choice:sizes={},weights={}",
                join(sizes.iter().map(ToString::to_string).collect()),
                join(weights.iter().map(ToString::to_string).collect())
            ),
        }
    }
}
string_serde!(SizeSpec);

/// The size of each of `pages` pages [slots] for `spec`, shuffled with `seed`.
pub fn page_sizes(spec: &SizeSpec, pages: u64, seed: u64) -> Vec<u16> {
    let dist = spec.distribution();
    let exact: Vec<f64> = dist.iter().map(|&(_, p)| p * pages as f64).collect();
    let mut counts: Vec<u64> = exact.iter().map(|x| x.floor() as u64).collect();
    let mut left = pages - counts.iter().sum::<u64>().min(pages);
    let mut order: Vec<usize> = (0..dist.len()).collect();
    order.sort_by(|&i, &j| {
        (exact[j] - exact[j].floor())
            .total_cmp(&(exact[i] - exact[i].floor()))
            .then(i.cmp(&j))
    });
    for &i in order.iter().cycle().take(dist.len().max(1) * 2) {
        if left == 0 {
            break;
        }
        counts[i] += 1;
        left -= 1;
    }
    let mut sizes = Vec::with_capacity(pages as usize);
    for (&(s, _), &n) in dist.iter().zip(&counts) {
        sizes.extend(std::iter::repeat_n(s, n as usize));
    }
    sizes.truncate(pages as usize);
    let mut rng = SimRng::seed_from_u64(seed ^ 0x5A5E_5123_0DD5_1AE5);
    sizes.shuffle(&mut rng);
    sizes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_follow_the_distribution_and_the_seed_only_shuffles() {
        // 1,000 pages of sizes 1/2/8 at weights 1/2/1: 250, 500 and 250 of them, 4,250 slots.
        let spec: SizeSpec = "choice:sizes=1/2/8,weights=1/2/1".parse().unwrap();
        let a = page_sizes(&spec, 1000, 1);
        let count = |v: &[u16], s: u16| v.iter().filter(|&&x| x == s).count();
        assert_eq!([count(&a, 1), count(&a, 2), count(&a, 8)], [250, 500, 250]);
        assert_eq!(a.iter().map(|&s| u64::from(s)).sum::<u64>(), 3250);
        let b = page_sizes(&spec, 1000, 2);
        assert_ne!(a, b);
        assert_eq!(count(&b, 8), 250);
        // Uniform 1–3 over 10 pages: 3.33 each, the remainder to the first by equal fractions.
        let u = page_sizes(&"uniform:min=1,max=3".parse().unwrap(), 10, 1);
        assert_eq!(u.len(), 10);
        assert_eq!(
            u.iter().map(|&s| u32::from(s)).sum::<u32>(),
            4 + 2 * 3 + 3 * 3
        );
        assert_eq!(
            page_sizes(&"fixed:size=5".parse().unwrap(), 7, 3),
            vec![5; 7]
        );
    }
}
