//! SSD-iq's zones workload: the logical space cut into zones, zone i holding a share `s_i` of the
//! pages and taking a share `f_i` of the writes, uniformly within the zone, the pages shuffled
//! over the whole space so that a zone's pages are scattered among the others'.
//!
//! Haas, Lee, Bonnet & Leis, "SSD-iq: Uncovering the Hidden Side of SSD Performance", PVLDB
//! 18(11), 2025; the simulator `gabriel-haas/ssdiq`, `shared/PatternGen.hpp`
//! (`PatternGen::parseZoneSizes`, `initZoneAccessPattern`, `accessZonesGenerator`, `init`,
//! `accessPatternGenerator`), unchanged in `LeeBohyun/ssdiq_plus`. Its `sim/algos.sh` runs
//! `ZONES="s0.6 f0.4 s0.4 f0.6"` … `"s0.99 f0.01 s0.01 f0.99"` and `"s0.5 f0 s0.5 f1"`; here the
//! same zones are `zones:s=0.6/0.4,f=0.4/0.6` … and `zones:s=0.5/0.5,f=0/1`.
//!
//! As the simulator does it:
//! - zone i gets ⌊sᵢ / Σs × n⌋ of the n pages, then the pages left over go one each to zones
//!   0, 1, 2, … in turn (`initZoneAccessPattern`); the zones follow one another from index 0;
//! - a write draws u uniform in [0, Σf) and takes the first zone whose cumulative share exceeds
//!   it (`accessZonesGenerator`, which walks `while (freqCnt < randFreq)`: the two differ only
//!   when u equals a cumulative share exactly, which makes SSD-iq write a zone of share 0 with
//!   probability 2⁻⁵³ — here such a zone is never written, so that its class holds no writes);
//! - then an index uniform in the zone (the zone's sub-generator, `uniform`, not shuffled);
//! - then, by default (the `zones` pattern shuffles unless `-noshuffle`), the index is mapped
//!   through a permutation of all the logical pages, drawn once (`init`: `std::shuffle` of
//!   `0..n` with an `mt19937_64` seeded from `std::random_device`). Here the permutation is a
//!   Fisher–Yates shuffle drawn from the run's seeded generator, so a run is reproducible; the
//!   law of the writes is the same, the permutation itself is not SSD-iq's (which is not
//!   reproducible from one run to the next). `shuffle=no` is SSD-iq's `zones-noshuffle`.
//!
//! Where this differs from SSD-iq, on purpose:
//! - SSD-iq normalises the shares by their sums (`s1 s1` is two halves); here each list must sum
//!   to 1 (±10⁻⁶), so that a spec reads as what it writes, and one that does not is an error
//!   naming the list and its sum;
//! - a zone's sub-pattern may be `zipfθ` or `sequential` in SSD-iq; here every zone is uniform
//!   (the only sub-pattern SSD-iq's scripts use), and a zone of no page is an error.
//!
//! Each zone is a class (`Write::class`, [`ClassShare`]): zone i is class i, so `oracle`,
//! `regions` and the placements that read classes separate the zones, and a zone of write share
//! 0 is a class never written (as Li et al.'s inactive pages). Memory: with `shuffle=yes`, 6
//! bytes per logical page (the permutation, 4, and each page's zone, 2).

use rand::seq::SliceRandom;
use rand::Rng;

use super::WorkloadSpec;
use super::{ClassShare, Rate, Write};
use crate::error::{Error, Result};
use crate::rng::SimRng;
use crate::spec::{check_range, join, parse_vec, Entry, Family, Info, Param};

/// Most zones a spec may name (each is a 16-bit class).
pub const MAX_ZONES: usize = 1024;

/// Zones generator.
#[derive(Clone, Debug)]
pub struct Zones {
    /// Cumulative write shares, the last zone with writes set to +∞ (so that rounding never
    /// lets a draw fall past it).
    cum_f: Vec<f64>,
    /// Write shares.
    f: Vec<f64>,
    /// First index of each zone, then the number of pages.
    bounds: Vec<u32>,
    /// Index → page (empty without shuffle: the index is the page).
    perm: Vec<u32>,
    /// Page → zone (empty without shuffle: the zone follows from `bounds`).
    zone_of: Vec<u16>,
    /// Rate of one page of each zone: its write share over its pages.
    rates: Vec<Rate>,
}

/// Checks a zones spec: as many space as write shares, each in range, each list summing to 1.
pub fn validate(s: &[f64], f: &[f64]) -> Result<()> {
    if s.is_empty() || s.len() > MAX_ZONES {
        return Err(Error::param(
            "workload.s",
            format!("{} zones", s.len()),
            format!("1 to {MAX_ZONES} zones"),
        ));
    }
    if s.len() != f.len() {
        return Err(Error::param(
            "workload.f",
            format!("{} write shares", f.len()),
            format!("one write share per zone of workload.s ({})", s.len()),
        ));
    }
    for x in s {
        check_range("workload.s", *x, 0.0, 1.0, true, false)?;
    }
    for x in f {
        check_range("workload.f", *x, 0.0, 1.0, false, false)?;
    }
    for (name, v) in [("workload.s", s), ("workload.f", f)] {
        let sum: f64 = v.iter().sum();
        if (sum - 1.0).abs() > 1e-6 {
            return Err(Error::param(
                name,
                format!("`{}` (shares summing to {sum})", join(v)),
                "shares summing to 1 (±1e-6)",
            ));
        }
    }
    Ok(())
}

/// The pages of each zone: ⌊sᵢ / Σs × n⌋, the rest one each from zone 0 on (SSD-iq's
/// `initZoneAccessPattern`).
pub fn zone_pages(n: u32, s: &[f64]) -> Vec<u32> {
    let sum: f64 = s.iter().sum();
    // SSD-iq: `h.count = h.rel_size / sumRelSizes * pageCount`, truncated.
    let mut count: Vec<u32> = s.iter().map(|x| (x / sum * f64::from(n)) as u32).collect();
    let assigned: u64 = count.iter().map(|&c| u64::from(c)).sum();
    let mut remaining = u64::from(n).saturating_sub(assigned);
    let mut i = 0;
    while remaining > 0 {
        count[i % s.len()] += 1;
        i += 1;
        remaining -= 1;
    }
    count
}

impl Zones {
    /// Zones of space shares `s` and write shares `f` over `n` pages, the pages shuffled by a
    /// permutation drawn from `rng` when `shuffle`.
    pub fn new(n: u32, s: &[f64], f: &[f64], shuffle: bool, rng: &mut SimRng) -> Result<Self> {
        validate(s, f)?;
        let count = zone_pages(n, s);
        if let Some(z) = count.iter().position(|&c| c == 0) {
            return Err(Error::param(
                "workload.s",
                format!("{} (zone {z})", s[z]),
                format!("a share giving zone {z} at least one of the {n} logical pages"),
            ));
        }
        let mut bounds = Vec::with_capacity(count.len() + 1);
        let mut at = 0u32;
        bounds.push(0);
        for c in &count {
            at += c;
            bounds.push(at);
        }
        let mut cum_f = Vec::with_capacity(f.len());
        let mut acc = 0.0;
        for x in f {
            acc += x;
            cum_f.push(acc);
        }
        if let Some(last) = f.iter().rposition(|&x| x > 0.0) {
            cum_f[last] = f64::INFINITY;
        }
        let rates = f
            .iter()
            .zip(&count)
            .map(|(fi, &c)| Rate::from_probability(fi / f64::from(c)))
            .collect();
        let (perm, zone_of) = if shuffle {
            let mut perm: Vec<u32> = (0..n).collect();
            perm.shuffle(rng);
            let mut zone_of = vec![0u16; n as usize];
            for (z, w) in bounds.windows(2).enumerate() {
                for &page in &perm[w[0] as usize..w[1] as usize] {
                    zone_of[page as usize] = z as u16;
                }
            }
            (perm, zone_of)
        } else {
            (Vec::new(), Vec::new())
        };
        Ok(Zones {
            cum_f,
            f: f.to_vec(),
            bounds,
            perm,
            zone_of,
            rates,
        })
    }

    /// The next write, its class its zone.
    #[inline]
    pub fn next(&self, rng: &mut SimRng) -> Write {
        let u: f64 = rng.random();
        let zone = self
            .cum_f
            .iter()
            .position(|&c| u < c)
            .expect("the last zone written has an infinite bound");
        let idx = rng.random_range(self.bounds[zone]..self.bounds[zone + 1]);
        Write {
            page: self.perm.get(idx as usize).copied().unwrap_or(idx),
            class: zone as u16,
            rate: self.rates[zone],
        }
    }

    /// The zone of `page`.
    #[inline]
    pub fn class_of(&self, page: u32) -> u16 {
        match self.zone_of.get(page as usize) {
            Some(&z) => z,
            None => self.bounds[1..]
                .iter()
                .position(|&end| page < end)
                .unwrap_or(self.f.len() - 1) as u16,
        }
    }

    /// The rate of one page of `class`: its zone's write share over its pages.
    #[inline]
    pub fn rate_of_class(&self, class: u16) -> Rate {
        self.rates
            .get(usize::from(class))
            .copied()
            .unwrap_or(Rate::UNKNOWN)
    }

    /// Pages and write share of each zone, in zone order.
    pub fn class_shares(&self) -> Vec<ClassShare> {
        self.bounds
            .windows(2)
            .zip(&self.f)
            .map(|(b, &f)| ClassShare {
                pages: u64::from(b[1] - b[0]),
                write_share: f,
            })
            .collect()
    }
}

/// `zones:s=S1/S2/…,f=F1/F2/…[,shuffle=yes|no]`.
pub const ENTRY: Entry<WorkloadSpec> = Entry {
    info: Info {
        family: Family::Workload,
        name: "zones",
        aliases: &[],
        summary: "SSD-iq's zones: zone i holds a share s_i of the pages, shuffled over the space, and takes a share f_i of the writes, uniform within it.",
        source: "Haas et al., SSD-iq (PVLDB 2025), ssdiq shared/PatternGen.hpp",
        params: &[
            Param {
                key: "s",
                values: "S1/S2/…",
                unit: "",
                range: "shares in (0, 1] summing to 1",
                default: None,
                help: "Share of the logical pages in each zone (SSD-iq's `sX`).",
            },
            Param {
                key: "f",
                values: "F1/F2/…",
                unit: "",
                range: "shares in [0, 1] summing to 1, as many as s",
                default: None,
                help: "Share of the writes to each zone (SSD-iq's `fX`).",
            },
            Param {
                key: "shuffle",
                values: "yes|no",
                unit: "",
                range: "`yes` or `no`",
                default: Some("yes"),
                help: "Scatter the zones' pages by a seeded permutation of the space (SSD-iq's default; `no`: `zones-noshuffle`).",
            },
        ],
        needs: &[],
    },
    parse: |a| {
        let s = a
            .get("s")
            .ok_or_else(|| a.bad("`zones:s=S1/S2/…,f=F1/F2/…` (space and write shares)"))?;
        let f = a
            .get("f")
            .ok_or_else(|| a.bad("`zones:s=S1/S2/…,f=F1/F2/…` (space and write shares)"))?;
        Ok(WorkloadSpec::Zones {
            s: parse_vec("workload.s", s)?,
            f: parse_vec("workload.f", f)?,
            shuffle: a.choice("shuffle", &[("yes", true), ("no", false)], true)?,
        })
    },
};

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn rng() -> SimRng {
        SimRng::seed_from_u64(7)
    }

    #[test]
    fn pages_split_as_ssd_iq_splits_them() {
        // ⌊0.2·10⌋ = 2, ⌊0.8·10⌋ = 8 (both exact in f64): nothing left over.
        assert_eq!(zone_pages(10, &[0.2, 0.8]), vec![2, 8]);
        // ⌊n/3⌋ each of 100: 33, 33, 33, the one left over to zone 0.
        let third = 1.0 / 3.0;
        assert_eq!(zone_pages(100, &[third, third, third]), vec![34, 33, 33]);
        // 7 pages in halves: 3 + 3, the seventh to zone 0.
        assert_eq!(zone_pages(7, &[0.5, 0.5]), vec![4, 3]);
    }

    #[test]
    fn shares_that_do_not_sum_to_one_are_refused() {
        let e = validate(&[0.2, 0.7], &[0.5, 0.5]).unwrap_err().to_string();
        assert!(
            e.contains("workload.s") && e.contains("summing to 1"),
            "{e}"
        );
        let e = validate(&[0.2, 0.8], &[0.5, 0.6]).unwrap_err().to_string();
        assert!(e.contains("workload.f") && e.contains("1.1"), "{e}");
        let e = validate(&[0.2, 0.8], &[1.0]).unwrap_err().to_string();
        assert!(e.contains("one write share per zone"), "{e}");
        // 10 pages: ⌊5⌋, ⌊4.9⌋, ⌊0.1⌋ = 5, 4, 0; the one left over goes to zone 0, none to zone 2.
        let e = Zones::new(10, &[0.5, 0.49, 0.01], &[0.5, 0.25, 0.25], true, &mut rng())
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("zone 2 at least one of the 10 logical pages"),
            "{e}"
        );
    }

    #[test]
    fn write_shares_within_a_binomial_bound() {
        // SSD-iq's `sim/algos.sh` zones "s0.8 f0.2 s0.2 f0.8" over 10,000 pages, 200,000 writes:
        // zone 1's count is Binomial(200,000, 0.8), sd = √(200,000·0.8·0.2) = 178.9; 5 sd = 894.
        let z = Zones::new(10_000, &[0.8, 0.2], &[0.2, 0.8], true, &mut rng()).unwrap();
        let mut r = rng();
        let mut per_zone = [0u64; 2];
        let mut pages = vec![0u32; 10_000];
        for _ in 0..200_000 {
            let w = z.next(&mut r);
            assert_eq!(
                z.class_of(w.page),
                w.class,
                "a write's class is its page's zone"
            );
            per_zone[usize::from(w.class)] += 1;
            pages[w.page as usize] += 1;
        }
        assert!(per_zone[1].abs_diff(160_000) < 894, "{per_zone:?}");
        // The zones' pages are scattered: zone 1 (2,000 pages) holds pages all over the space,
        // among them about 20% of the first 1,000 ids (200 expected; hypergeometric sd 12.6).
        let in_first = (0..1_000).filter(|&p| z.class_of(p) == 1).count();
        assert!((140..260).contains(&in_first), "{in_first}");
        // Class shares as declared: 8,000 and 2,000 pages.
        let shares = z.class_shares();
        assert_eq!((shares[0].pages, shares[1].pages), (8_000, 2_000));
        // Uniform within a zone: a zone-1 page's mean count is 160,000 / 2,000 = 80.
        let hot: Vec<u32> = (0..10_000u32)
            .filter(|&p| z.class_of(p) == 1)
            .map(|p| pages[p as usize])
            .collect();
        let mean = f64::from(hot.iter().sum::<u32>()) / hot.len() as f64;
        assert!((mean - 80.0).abs() < 0.5, "{mean}");
    }

    #[test]
    fn a_zone_of_share_zero_is_never_written_and_noshuffle_keeps_ids() {
        // SSD-iq's "s0.5 f0 s0.5 f1" without shuffle: zone 0 is ids 0..500, never written.
        let z = Zones::new(1_000, &[0.5, 0.5], &[0.0, 1.0], false, &mut rng()).unwrap();
        let mut r = rng();
        for _ in 0..10_000 {
            let w = z.next(&mut r);
            assert!(w.page >= 500 && w.class == 1, "{w:?}");
        }
        assert_eq!(z.class_of(499), 0);
        assert_eq!(z.class_of(500), 1);
        assert!(z.class_shares()[0].write_share.abs() < 1e-12);
    }

    #[test]
    fn the_spec_reads_and_prints_back() {
        let w: WorkloadSpec = "zones:s=0.2/0.8,f=0/1".parse().unwrap();
        assert_eq!(w.to_string(), "zones:s=0.2/0.8,f=0/1,shuffle=yes");
        let w: WorkloadSpec = "zones:s=0.5/0.5,f=0.1/0.9,shuffle=no".parse().unwrap();
        assert_eq!(w.to_string(), "zones:s=0.5/0.5,f=0.1/0.9,shuffle=no");
        let e = "zones:s=0.2/0.8,f=0.5/0.6"
            .parse::<WorkloadSpec>()
            .unwrap_err()
            .to_string();
        assert!(e.contains("workload.f"), "{e}");
    }
}
