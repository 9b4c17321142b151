//! Cost-benefit cleaning: the largest (1 − u)·age / (1 + u).
//!
//! M. Rosenblum, J. K. Ousterhout, "The Design and Implementation of a Log-Structured File
//! System", ACM TOCS 10(1), 1992, §3.6 (cited by Van Houdt [19] and Lomet & Luo). u is the
//! segment's valid fraction; age is the user-write clock now less the segment's stamp, the time
//! its youngest data was written (a relocated page keeps its victim's stamp).
//!
//! Exact, without scoring every segment: u takes only the b + 1 values v/b, and among segments
//! with the same valid count v the oldest stamp has the largest score, so the segments are kept
//! in a [`CountHeaps`] keyed by stamp. Ties of equal score go to the fewest valid pages, then
//! the oldest stamp, then the lowest segment number.
//!
//! Lomet & Luo §6.1.3 evaluate cost-benefit as "the largest (1 − E)·age/E" with E the
//! segment's emptiness. Read literally that cleans the fullest segments first (a full one
//! scores infinity), the opposite of the heuristic they cite; their E there can only stand for
//! the utilization u, which makes it (1 − u)·age/u: Rosenblum's ratio with the cost of cleaning
//! counted as the u·b pages rewritten and not the read of the whole segment (1 + u), as an
//! FTL counts it. `form=lomet` selects that reading, `form=lfs` (the default) Rosenblum's.
//!
//! `form=sepbit` is the score of SepBIT's artifact (Wang et al., FAST '22, §5, its
//! `selection/CostBenefit.java`): GP/(1 − GP)·√age = (1 − u)/u·√age, infinite for an empty
//! segment, with age the trace time [µs] since the segment's last append (its sealing), not the
//! youngest data's stamp. Under every form, the `log` method's exclusion holds: a segment of
//! more valid pages than [`Store::victim_valid_bound`] is not a candidate.

use super::index::count_heaps::CountHeaps;
use super::Declare;
use super::VictimPolicy;
use crate::clocks::Clocks;
use crate::error::Result;
use crate::geometry::Geometry;
use crate::spec::{Args, Family, Info, Need, Param};
use crate::store::Store;
use crate::rng::SimRng;
use std::fmt;

/// Cost-benefit over sealed segments indexed by valid count, oldest stamp on top.
#[derive(Clone, Debug)]
pub struct CostBenefit {
    index: CountHeaps,
    form: BenefitForm,
}

/// The score of a segment with `valid` of `b` pages valid and age `age` [user writes; µs for
/// `sepbit`]: Rosenblum & Ousterhout's (1 − u)·age/(1 + u), Lomet & Luo §6.1.3's (1 − E)·age/E
/// read as (1 − u)·age/u (see [`BenefitForm::Lomet`]), or the SepBIT artifact's
/// (1 − u)/u·√age; the last two infinite for an empty segment.
#[inline]
fn benefit(form: BenefitForm, valid: u32, b: f64, age: u64) -> f64 {
    let u = f64::from(valid) / b;
    match form {
        BenefitForm::Lfs => (1.0 - u) * age as f64 / (1.0 + u),
        // An empty segment frees a whole segment for nothing, however young (0/0 otherwise).
        BenefitForm::Lomet | BenefitForm::Sepbit if valid == 0 => f64::INFINITY,
        BenefitForm::Lomet => (1.0 - u) * age as f64 / u,
        BenefitForm::Sepbit => (1.0 - u) / u * (age as f64).sqrt(),
    }
}

impl CostBenefit {
    /// An empty index for `segments` segments of `pps` pages.
    pub fn new(segments: u32, pps: u32, form: BenefitForm) -> Self {
        CostBenefit {
            index: CountHeaps::new(segments, pps),
            form,
        }
    }

    /// The time segment `seg`'s age counts from: its stamp [user writes], or for `sepbit` its
    /// sealing [µs].
    #[inline]
    fn since(&self, seg: u32, store: &Store) -> u64 {
        match self.form {
            BenefitForm::Sepbit => store.facts.seal_time()[seg as usize],
            _ => store.stamp[seg as usize],
        }
    }
}

impl VictimPolicy for CostBenefit {
    #[inline]
    fn on_seal(&mut self, seg: u32, _user: bool, store: &Store) {
        self.index
            .push(seg, store.valid[seg as usize], self.since(seg, store));
    }

    #[allow(clippy::inline_always)] // measured; see `Policy::on_invalidate`
    #[inline(always)]
    fn on_invalidate(&mut self, seg: u32, _slot: u32, store: &Store) {
        self.index.lost_page(seg, store, self.since(seg, store));
    }

    fn on_remove(&mut self, seg: u32, store: &Store) {
        self.index.unindex(seg, store.valid[seg as usize]);
    }

    fn select(&mut self, store: &Store, clocks: &Clocks, _rng: &mut SimRng) -> Option<u32> {
        let pps = f64::from(store.pps);
        let now = match self.form {
            BenefitForm::Sepbit => clocks.trace_time,
            _ => clocks.user_writes,
        };
        let counts = self.index.counts().min(store.victim_valid_bound as usize + 1);
        let mut best: Option<(f64, u32, u32)> = None;
        for v in 0..counts {
            if let Some((stamp, seg)) = self.index.top(v) {
                let priority = benefit(self.form, v as u32, pps, now.saturating_sub(stamp));
                if best.is_none_or(|(top, _, _)| priority > top) {
                    best = Some((priority, seg, v as u32));
                }
            }
        }
        let (_, seg, valid) = best?;
        self.index.unindex(seg, valid);
        Some(seg)
    }
}

/// Cost-benefit's score (`cost-benefit:form=…`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum BenefitForm {
    /// `lfs`: (1 − u)·age/(1 + u), Rosenblum & Ousterhout §3.6 (reading the segment costs 1,
    /// rewriting its live data u).
    #[default]
    Lfs,
    /// `lomet`: Lomet & Luo §6.1.3's "(1 − E)·age/E", E read as the utilization u (see
    /// `policy::cost_benefit`): (1 − u)·age/u.
    Lomet,
    /// `sepbit`: the SepBIT artifact's (1 − u)/u·√age, age in trace time since the segment's
    /// sealing.
    Sepbit,
}

impl fmt::Display for BenefitForm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BenefitForm::Lfs => "lfs",
            BenefitForm::Lomet => "lomet",
            BenefitForm::Sepbit => "sepbit",
        })
    }
}

impl Declare for CostBenefit {
    type Params = BenefitForm;
    const INFO: Info = Info {
        family: Family::Policy,
        name: "cost-benefit",
        aliases: &[],
        summary: "The largest (1 − u)·age/(1 + u) (lfs), (1 − u)·age/u (lomet) or (1 − u)/u·√age, age in trace time since sealing (sepbit).",
        source: "Rosenblum & Ousterhout §3.6; Lomet & Luo §6.1.3; SepBIT artifact's CostBenefit.java",
        params: &[Param {
            key: "form",
            values: "lfs|lomet|sepbit",
            unit: "",
            range: "`lfs`, `lomet` or `sepbit`",
            default: Some("lfs"),
            help: "Score: Rosenblum's (1 − u)·age/(1 + u), Lomet & Luo's (1 − u)·age/u, or the SepBIT artifact's (1 − u)/u·√age with age in trace µs since the segment's sealing.",
        }],
        needs: &[],
    };
    fn parse(args: &Args<'_>) -> Result<BenefitForm> {
        args.choice(
            "form",
            &[
                ("lfs", BenefitForm::Lfs),
                ("lomet", BenefitForm::Lomet),
                ("sepbit", BenefitForm::Sepbit),
            ],
            BenefitForm::Lfs,
        )
    }
    fn show(form: &BenefitForm, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match form {
            BenefitForm::Lfs => write!(f, "cost-benefit"),
            BenefitForm::Lomet => write!(f, "cost-benefit:form=lomet"),
            BenefitForm::Sepbit => write!(f, "cost-benefit:form=sepbit"),
        }
    }
    // The SepBIT form reads trace times.
    fn needs(form: &BenefitForm, need: Need) -> bool {
        need == Need::Times && *form == BenefitForm::Sepbit || Self::INFO.needs(need)
    }
    fn build(form: &BenefitForm, g: &Geometry) -> Self {
        CostBenefit::new(g.segments, g.pages_per_segment, *form)
    }
}

#[cfg(test)]
mod tests {
    use rand::Rng;

    use super::super::index::count_heaps::exercise;
    use super::*;
    use crate::geometry::Geometry;

    /// The time a segment's age counts from, as the form reads it.
    fn since(form: BenefitForm, store: &Store, s: u32) -> u64 {
        match form {
            BenefitForm::Sepbit => store.facts.seal_time()[s as usize],
            _ => store.stamp[s as usize],
        }
    }

    /// The exhaustive definition: the largest score over every sealed segment of at most
    /// `bound` valid pages.
    fn best_score(form: BenefitForm, store: &Store, now: u64) -> f64 {
        let b = f64::from(store.pps);
        store
            .sealed
            .as_slice()
            .iter()
            .filter(|&&s| store.valid[s as usize] <= store.victim_valid_bound)
            .map(|&s| {
                benefit(
                    form,
                    store.valid[s as usize],
                    b,
                    now.saturating_sub(since(form, store, s)),
                )
            })
            .fold(f64::NEG_INFINITY, f64::max)
    }

    #[test]
    fn the_indexed_choice_scores_as_high_as_any_sealed_segment() {
        // Random seals (stamps from a clock, some repeated as GC-filled segments repeat
        // their victims'), random invalidations, and selections checked against the scan, for
        // both forms of the score.
        // The SepBIT form's seal times are the clock at sealing, its candidates at most 6 of 8
        // pages valid (the `log` method's exclusion at gp = 0.25).
        for form in [BenefitForm::Lfs, BenefitForm::Lomet, BenefitForm::Sepbit] {
            let g = Geometry {
                segments: 40,
                pages_per_segment: 8,
                logical_pages: 200,
            };
            let mut store = Store::new(&g);
            if form == BenefitForm::Sepbit {
                store.keep_facts(|n| n == crate::spec::Need::Times);
                store.victim_valid_bound = 6;
            }
            let mut policy = CostBenefit::new(g.segments, g.pages_per_segment, form);
            let selections = exercise(
                &mut policy,
                &mut store,
                7,
                |st, seg, now, rng| {
                    if let Some(t) = st.facts.seal_time.values.get_mut(seg as usize) {
                        *t = now;
                    }
                    if rng.random_bool(0.3) {
                        now / 100 * 100
                    } else {
                        now
                    }
                },
                |st, victim, now| {
                    let expected = best_score(form, st, now);
                    let got = benefit(
                        form,
                        st.valid[victim as usize],
                        8.0,
                        now.saturating_sub(since(form, st, victim)),
                    );
                    assert_eq!(
                        got.to_bits(),
                        expected.to_bits(),
                        "{form}, now {now}: chose {got}, best is {expected}"
                    );
                },
            );
            assert!(selections > 500, "{selections} selections checked");
        }
    }
}
