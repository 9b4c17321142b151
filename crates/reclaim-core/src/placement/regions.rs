//! Data grouping into regions: one region per class, each with its own segments, its own stream
//! and its own cleaning.
//!
//! Y. Li, P. P. C. Lee, J. C. S. Lui, Y. Xu, "Impact of Data Locality on Garbage Collection in
//! SSDs: A General Analytical Study", §4 (Fig. 4, Theorem 5). Region i holds the pages of class i
//! and `N(1 − S)·f_a·fᵢ + N·S·bᵢ` blocks: its data plus a share bᵢ of the spare blocks; "each region
//! keeps only one type of data pages and performs GC independently, so it has a separate write
//! frontier". Pages that are never written (Li et al.'s inactive region n + 1) form a region with
//! no spare.
//!
//! In the engine a region is a quota of segments drawn from the shared free pool: a region may
//! own (open or sealed) at most its quota, the segments it does not own are its free ones, and
//! its trigger and victim policy see only its own segments. Quotas, in segments:
//! - a region that is never written: ⌊pages / b⌋ + 1 + F, its data, its one open segment and
//!   the F free segments its trigger keeps (`one-free`: 1);
//! - a written region i: pagesᵢ / b + bᵢ · (N − Σ unwritten quotas − Σ written pages / b), rounded
//!   to whole segments by largest remainder so that the quotas add up to N.
//!
//! The unwritten region's open segment is the one place where the engine departs from Li et al.'s
//! count (their inactive region has exactly its data blocks); it comes out of the spare.

use super::{Build, Built, Declare};
use super::{Scheme, Victim, Relocation};
use crate::error::{Error, Result};
use crate::spec::{check_range, join, parse_vec, Args, Family, Info, Need, Param};
use crate::workload::{ClassShare, Write};
use crate::rng::SimRng;

/// One stream per region; relocated pages stay in their victim's region.
#[derive(Clone, Copy, Debug)]
pub struct Regions;

impl Scheme for Regions {
    #[inline]
    fn user_stream(&mut self, write: &Write, _age: u64, _rng: &mut SimRng) -> usize {
        usize::from(write.class)
    }

    #[inline]
    fn gc_stream(&mut self, r: Relocation<'_>) -> usize {
        usize::from(r.victim.region)
    }

    #[inline]
    fn victim_stream(&self, victim: &Victim) -> Option<usize> {
        Some(usize::from(victim.region))
    }
}

/// The quota of each region, in class order, for `segments` segments of `pps` pages.
pub fn quotas(
    spare: &RegionSpare,
    segments: u32,
    pps: u32,
    classes: &[ClassShare],
    min_free: u32,
) -> Result<Vec<u32>> {
    let RegionSpare::Shares(shares) = spare else {
        return Err(Error::param(
            "placement.spare",
            "`optimal`",
            "explicit shares here; `optimal` (Theorem 5's b_c*) is resolved by the Python API from reclaim.models.li",
        ));
    };
    let b = f64::from(pps);
    let written: Vec<usize> = (0..classes.len())
        .filter(|&c| classes[c].write_share > 0.0)
        .collect();
    if shares.len() != written.len() {
        return Err(Error::param(
            "placement.spare",
            format!("{} shares", shares.len()),
            format!("one share per written class ({})", written.len()),
        ));
    }
    let mut quota = vec![0u32; classes.len()];
    let mut fixed = 0u64;
    for (c, class) in classes.iter().enumerate() {
        if class.write_share == 0.0 && class.pages > 0 {
            quota[c] = (class.pages / u64::from(pps)) as u32 + 1 + min_free;
            fixed += u64::from(quota[c]);
        }
    }
    let data: f64 = written.iter().map(|&c| classes[c].pages as f64 / b).sum();
    let spare_segments = u64::from(segments).saturating_sub(fixed) as f64 - data;
    if spare_segments <= 0.0 {
        return Err(Error::param(
            "spare",
            format!("{spare_segments:.1} spare segments"),
            "room for the regions' data",
        ));
    }
    // Largest remainder: floors first, then one more segment to the largest fractions.
    let exact: Vec<f64> = written
        .iter()
        .zip(shares)
        .map(|(&c, &s)| classes[c].pages as f64 / b + s * spare_segments)
        .collect();
    let mut left = u64::from(segments) - fixed;
    for (&c, &x) in written.iter().zip(&exact) {
        quota[c] = x.floor() as u32;
        left -= u64::from(quota[c]);
    }
    let mut order: Vec<usize> = (0..written.len()).collect();
    order.sort_by(|&i, &j| {
        (exact[j] - exact[j].floor())
            .total_cmp(&(exact[i] - exact[i].floor()))
            .then(i.cmp(&j))
    });
    for &i in order.iter().take(left as usize) {
        quota[written[i]] += 1;
    }
    Ok(quota)
}

/// Checks that every region has room for its data, its open segment, the `min_free` segments its
/// trigger keeps and one more to clean into.
pub fn check(
    quota: &[u32],
    pps: u32,
    classes: &[ClassShare],
    min_free: u32,
    shares: &[f64],
) -> Result<()> {
    let mut written = 0;
    for (c, (&q, class)) in quota.iter().zip(classes).enumerate() {
        if class.write_share == 0.0 {
            continue;
        }
        let need = class.pages.div_ceil(u64::from(pps)) + 2 + u64::from(min_free);
        if u64::from(q) < need {
            return Err(Error::param(
                "placement.spare",
                format!("{} (class {c}: {q} segments for {} pages)", shares.get(written).copied().unwrap_or(f64::NAN), class.pages),
                format!("a share giving class {c} at least {need} segments: its data, an open segment, {min_free} kept free and one to clean into"),
            ));
        }
        written += 1;
    }
    Ok(())
}

/// How the spare segments are shared among regions (`regions:spare=…`).
#[derive(Clone, Debug, PartialEq)]
pub enum RegionSpare {
    /// Shares bᵢ of the spare segments, one per written class, each in [0, 1], summing to 1.
    Shares(Vec<f64>),
    /// Theorem 5's cost-minimising allocation `b_c*` (Li et al. §4), resolved by the Python API
    /// from `reclaim.models.li` before the engine runs.
    Optimal,
}

impl Declare for Regions {
    type Params = RegionSpare;
    const INFO: Info = Info {
        family: Family::Placement,
        name: "regions",
        aliases: &[],
        summary: "Li et al.'s data grouping: one region per class, each with its own segments, share of the spare, stream and cleaning.",
        source: "Li et al. §4",
        params: &[Param {
            key: "spare",
            values: "B1/B2/…|optimal",
            unit: "",
            range: "shares in [0, 1] summing to 1, one per written class, or `optimal`",
            default: None,
            help: "Shares of the spare segments per written class, or Theorem 5's cost-minimising allocation.",
        }],
        needs: &[Need::Classes],
    };
    fn parse(args: &Args<'_>) -> Result<RegionSpare> {
        match args.get("spare") {
            None => Err(args.bad("`regions:spare=B1/B2/…` (shares of the spare per written class) or `regions:spare=optimal`")),
            Some("optimal") => Ok(RegionSpare::Optimal),
            Some(v) => {
                let shares = parse_vec("placement.spare", v)?;
                for b in &shares {
                    check_range("placement.spare", *b, 0.0, 1.0, false, false)?;
                }
                let sum: f64 = shares.iter().sum();
                if (sum - 1.0).abs() > 1e-6 {
                    return Err(Error::param(
                        "placement.spare",
                        format!("`{v}` (summing to {sum})"),
                        "shares summing to 1",
                    ));
                }
                Ok(RegionSpare::Shares(shares))
            }
        }
    }
    fn show(spare: &RegionSpare, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match spare {
            RegionSpare::Optimal => f.write_str("regions:spare=optimal"),
            RegionSpare::Shares(b) => write!(f, "regions:spare={}", join(b)),
        }
    }
    fn streams(_spare: &RegionSpare, classes: u32) -> u32 {
        classes
    }
    // The trigger keeps its free segments in each region.
    fn reserve(_spare: &RegionSpare, classes: u32) -> (u64, u64) {
        (0, u64::from(classes))
    }
    fn build(spare: &RegionSpare, b: &Build<'_>) -> Result<Built<Self>> {
        let quotas = quotas(spare, b.segments, b.pps, b.classes, b.min_free)?;
        Ok(Built::per_region(Regions, quotas))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotas_follow_li_et_al_and_add_up() {
        // Li et al. §5.3's setting at N = 8192, k = 64, S = 0.1, f_a = 0.1, f = (0.2, 0.8):
        // 471,859 logical pages, 47,186 of them active.
        let logical = (0.9f64 * 8192.0 * 64.0).round() as u64;
        let active = (0.1 * logical as f64).round() as u64;
        let hot = (0.2 * active as f64).round() as u64;
        let classes = [
            ClassShare {
                pages: hot,
                write_share: 0.8,
            },
            ClassShare {
                pages: active - hot,
                write_share: 0.2,
            },
            ClassShare {
                pages: logical - active,
                write_share: 0.0,
            },
        ];
        let q = quotas(
            &RegionSpare::Shares(vec![0.432, 0.568]),
            8192,
            64,
            &classes,
            1,
        )
        .unwrap();
        assert_eq!(q.iter().map(|&x| u64::from(x)).sum::<u64>(), 8192);
        // Inactive: ⌊424,673 / 64⌋ + 1 + 1 (one-free) = 6,637 segments.
        assert_eq!(q[2], 6637);
        // Written: data 147.5 and 589.8 segments, spare 8192 − 6637 − 737.3 = 817.7 shared 0.432/0.568.
        let spare = 8192.0 - 6637.0 - (active as f64) / 64.0;
        assert!(
            (f64::from(q[0]) - (hot as f64 / 64.0 + 0.432 * spare)).abs() <= 1.0,
            "{q:?}"
        );
        assert!(
            (f64::from(q[1]) - ((active - hot) as f64 / 64.0 + 0.568 * spare)).abs() <= 1.0,
            "{q:?}"
        );
    }
}
