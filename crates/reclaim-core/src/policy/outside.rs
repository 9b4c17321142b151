//! A victim policy written outside the engine (in Python: `reclaim.VictimPolicy`), named in a
//! spec by where it lives, `MODULE:CLASS[:key=value,…]` ([`crate::outside`]).
//!
//! The engine keeps its candidates for it: `valid[seg]` is a candidate's valid-page count and
//! [`NOT_CANDIDATE`] for every other segment (free, open, or above the `log` method's bound
//! [`Store::victim_valid_bound`]), kept as seals and invalidations happen, so that the scheme
//! reads its candidates as one array at each choice rather than being called at every write.
//! It is called once per victim choice with a [`PolicyView`] of that array, of the facts the
//! store keeps (`stamp`, `sealed_at`, `erase_count`, and those it declared: `seal_time`,
//! `destage_number`, `up2`, `sealed_by`) and of the clocks, and with the run's generator; the
//! segment it returns is checked to be a candidate.

use std::cell::UnsafeCell;
use std::fmt;
use std::sync::Arc;

use super::VictimPolicy;
use crate::clocks::Clocks;
use crate::error::Error;
use crate::geometry::Geometry;
use crate::outside::OutsideSpec;
use crate::rng::SimRng;
use crate::spec::{Family, Info};
use crate::ledger::FactArray;
use crate::store::{SegState, Store};

/// `valid[seg]` of a segment that is not a candidate.
pub const NOT_CANDIDATE: u32 = u32::MAX;

/// What every policy written outside the engine declares of itself here (its own parameters and
/// facts are declared in its host).
pub const INFO: Info = Info {
    family: Family::Policy,
    name: "MODULE:CLASS",
    aliases: &[],
    summary: "A victim policy written in Python (a subclass of reclaim.VictimPolicy), named by module and class.",
    source: "docs/python-schemes.md",
    params: &[],
    needs: &[],
};

/// The arrays every view shows beside the facts the run keeps: each with its unit and meaning.
pub const SEGMENT_ARRAYS: &[(&str, &str, &str)] = &[
    ("valid", "pages", "valid pages of each candidate; NOT_CANDIDATE (2**32 - 1) for every other segment"),
    ("stamp", "user writes", "the user-write clock when the youngest data the segment holds was written"),
    ("sealed_at", "seals", "the order in which segments were sealed (a sequence number)"),
    ("erase_count", "erases", "erases of each segment since the start of the run"),
];

/// The arrays a view shows, one entry per segment: the candidates' valid counts and the facts
/// the run keeps, copied from the store as each segment is sealed (none of them changes while a
/// segment is sealed, its valid count aside, which follows every invalidation). They are shared
/// with the host ([`PolicyView::owner`]), so that an array a scheme keeps past its call stays
/// valid, whatever becomes of the run: it shows the values of the last call it saw, or later.
pub struct Mirror {
    facts: UnsafeCell<Facts>,
}

// SAFETY: the engine is the only writer, and writes only between the host's calls, on the
// thread that runs it; the host reads during its calls (or, after the run, a frozen copy).
unsafe impl Sync for Mirror {}
// SAFETY: as for `Sync`; the vectors themselves are `Send`.
unsafe impl Send for Mirror {}

/// The mirrored arrays: the segment table's and each per-segment fact the run keeps.
#[derive(Clone, Default)]
struct Facts {
    valid: Vec<u32>,
    stamp: Vec<u64>,
    sealed_at: Vec<u64>,
    erase_count: Vec<u32>,
    ledgers: Vec<(&'static str, Owned)>,
}

/// A fact's array, owned.
#[derive(Clone)]
enum Owned {
    U16(Vec<u16>),
    U32(Vec<u32>),
    U64(Vec<u64>),
    F64(Vec<f64>),
}

impl Owned {
    /// Zeros of `a`'s type and length.
    fn zeros_like(a: FactArray<'_>) -> Self {
        match a {
            FactArray::U16(x) => Owned::U16(vec![0; x.len()]),
            FactArray::U32(x) => Owned::U32(vec![0; x.len()]),
            FactArray::U64(x) => Owned::U64(vec![0; x.len()]),
            FactArray::F64(x) => Owned::F64(vec![0.0; x.len()]),
        }
    }

    /// Entry `s` copied from `a` (of the same type).
    fn copy(&mut self, a: FactArray<'_>, s: usize) {
        match (self, a) {
            (Owned::U16(to), FactArray::U16(from)) => to[s] = from[s],
            (Owned::U32(to), FactArray::U32(from)) => to[s] = from[s],
            (Owned::U64(to), FactArray::U64(from)) => to[s] = from[s],
            (Owned::F64(to), FactArray::F64(from)) => to[s] = from[s],
            _ => unreachable!("a fact keeps its type"),
        }
    }

    fn view(&self) -> FactArray<'_> {
        match self {
            Owned::U16(x) => FactArray::U16(x),
            Owned::U32(x) => FactArray::U32(x),
            Owned::U64(x) => FactArray::U64(x),
            Owned::F64(x) => FactArray::F64(x),
        }
    }
}

impl Mirror {
    fn new(facts: Facts) -> Arc<Self> {
        Arc::new(Mirror {
            facts: UnsafeCell::new(facts),
        })
    }

    fn get(&self) -> &Facts {
        // SAFETY: see `Sync`: no write is in progress while the engine reads or lends them.
        unsafe { &*self.facts.get() }
    }

    #[allow(clippy::mut_from_ref)] // the single writer, see `Sync`
    fn get_mut(&self) -> &mut Facts {
        // SAFETY: see `Sync`: the engine writes only between the host's calls.
        unsafe { &mut *self.facts.get() }
    }
}

/// What a policy written outside the engine sees at a victim choice.
#[derive(Clone, Copy)]
pub struct PolicyView<'a> {
    /// Valid pages of each candidate, [`NOT_CANDIDATE`] for the other segments.
    pub valid: &'a [u32],
    /// Candidates: segments whose `valid` is not [`NOT_CANDIDATE`] (at least one).
    pub candidates: usize,
    /// Pages per segment.
    pub pages_per_segment: u32,
    /// The clocks.
    pub clocks: &'a Clocks,
    mirror: &'a Arc<Mirror>,
}

impl<'a> PolicyView<'a> {
    /// The per-segment array `name` ([`SEGMENT_ARRAYS`], or a per-segment fact of
    /// [`crate::ledger::FACTS`] the run keeps), `None` for a name it does not know or a fact the
    /// run does not keep (not declared).
    pub fn array(&self, name: &str) -> Option<FactArray<'a>> {
        let f = self.mirror.get();
        let a = match name {
            "valid" => FactArray::U32(&f.valid),
            "stamp" => FactArray::U64(&f.stamp),
            "sealed_at" => FactArray::U64(&f.sealed_at),
            "erase_count" => FactArray::U32(&f.erase_count),
            _ => f.ledgers.iter().find(|(n, _)| *n == name)?.1.view(),
        };
        (a.len() == self.valid.len()).then_some(a)
    }

    /// The names of the arrays it shows: [`SEGMENT_ARRAYS`]' and the facts the run keeps.
    pub fn names(&self) -> Vec<&'static str> {
        let f = self.mirror.get();
        (SEGMENT_ARRAYS.iter().map(|(n, _, _)| *n))
            .chain(f.ledgers.iter().map(|(n, _)| *n))
            .collect()
    }

    /// What keeps the arrays' memory: a host holds it as long as any array it made from them
    /// lives.
    pub fn owner(&self) -> Arc<dyn std::any::Any + Send + Sync> {
        Arc::clone(self.mirror) as Arc<dyn std::any::Any + Send + Sync>
    }
}

/// A victim policy's instance in its host.
pub trait OutsidePolicy: Send + Sync {
    /// The segment to clean, chosen among the view's candidates with the run's generator; `Err`
    /// with the host's message (a traceback) when it raised.
    ///
    /// # Errors
    /// What the host raised.
    fn select(&mut self, view: &PolicyView<'_>, rng: &mut SimRng) -> Result<i64, String>;
}

/// A policy written outside the engine, with the candidates and facts the engine keeps for it.
pub struct Outside {
    spec: OutsideSpec,
    /// Made at the first choice (a host's constructor may fail; the failure then stops the run).
    instance: Option<Box<dyn OutsidePolicy>>,
    /// Valid pages of each candidate ([`NOT_CANDIDATE`] for the others) and the facts.
    mirror: Arc<Mirror>,
    /// Whether the facts are sized (at the first seal, to those the store keeps).
    sized: bool,
    candidates: usize,
    failure: Option<Error>,
}

impl Clone for Outside {
    /// A fresh instance of the same scheme, with the same candidates (a region's copy).
    fn clone(&self) -> Self {
        Outside {
            spec: self.spec.clone(),
            instance: None,
            mirror: Mirror::new(self.mirror.get().clone()),
            sized: self.sized,
            candidates: self.candidates,
            failure: None,
        }
    }
}

impl fmt::Debug for Outside {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Outside({}, {} candidates)", self.spec.text, self.candidates)
    }
}

impl Outside {
    /// The policy of `spec` for a store of `geometry`.
    pub fn new(spec: OutsideSpec, geometry: &Geometry) -> Self {
        Outside {
            spec,
            instance: None,
            mirror: Mirror::new(Facts {
                valid: vec![NOT_CANDIDATE; geometry.segments as usize],
                ..Facts::default()
            }),
            sized: false,
            candidates: 0,
            failure: None,
        }
    }

    /// What it raised or returned wrongly, taken once.
    pub fn take_failure(&mut self) -> Option<Error> {
        self.failure.take()
    }

    fn fail(&mut self, message: String) -> Option<u32> {
        self.failure = Some(Error::Outside {
            scheme: self.spec.text.clone(),
            message,
        });
        None
    }

    /// Counts `seg` (sealed, holding `store.valid[seg]`) as a candidate where the `log` method's
    /// bound allows it.
    #[inline]
    fn note(&mut self, seg: u32, store: &Store) {
        let v = store.valid[seg as usize];
        if v <= store.victim_valid_bound {
            let slot = &mut self.mirror.get_mut().valid[seg as usize];
            if *slot == NOT_CANDIDATE {
                self.candidates += 1;
            }
            *slot = v;
        }
    }

    /// Copies the facts of `seg`, just sealed, from the store: the segment table's, and each
    /// per-segment fact the store keeps.
    fn copy_facts(&mut self, seg: u32, store: &Store) {
        let f = self.mirror.get_mut();
        let n = f.valid.len();
        if !self.sized {
            f.stamp = vec![0; n];
            f.sealed_at = vec![0; n];
            f.erase_count = vec![0; n];
            f.ledgers = (crate::ledger::FACTS.iter())
                .filter(|fact| fact.per == crate::ledger::Per::Segment)
                .filter_map(|fact| {
                    let a = store.facts.array(fact.name)?;
                    (a.len() == n).then(|| (fact.name, Owned::zeros_like(a)))
                })
                .collect();
            self.sized = true;
        }
        let s = seg as usize;
        f.stamp[s] = store.stamp[s];
        f.sealed_at[s] = store.sealed_at[s];
        f.erase_count[s] = store.erase_count[s];
        for (name, owned) in &mut f.ledgers {
            let a = store.facts.array(name).expect("a fact the store keeps");
            owned.copy(a, s);
        }
    }
}

impl VictimPolicy for Outside {
    fn on_seal(&mut self, seg: u32, _user: bool, store: &Store) {
        self.copy_facts(seg, store);
        self.note(seg, store);
    }

    #[inline]
    fn on_invalidate(&mut self, seg: u32, _slot: u32, store: &Store) {
        self.note(seg, store);
    }

    fn on_remove(&mut self, seg: u32, _store: &Store) {
        let slot = &mut self.mirror.get_mut().valid[seg as usize];
        if *slot != NOT_CANDIDATE {
            *slot = NOT_CANDIDATE;
            self.candidates -= 1;
        }
    }

    fn select(&mut self, store: &Store, clocks: &Clocks, rng: &mut SimRng) -> Option<u32> {
        if self.failure.is_some() || self.candidates == 0 {
            return None;
        }
        if self.instance.is_none() {
            match self.spec.factory.policy() {
                Ok(p) => self.instance = Some(p),
                Err(e) => return self.fail(e.to_string()),
            }
        }
        let view = PolicyView {
            valid: &self.mirror.get().valid,
            candidates: self.candidates,
            pages_per_segment: store.pps,
            clocks,
            mirror: &self.mirror,
        };
        let chosen = self.instance.as_mut().expect("made above").select(&view, rng);
        let seg = match chosen {
            Err(message) => return self.fail(message),
            Ok(x) => x,
        };
        let valid = &mut self.mirror.get_mut().valid;
        let n = valid.len();
        let ok = usize::try_from(seg)
            .ok()
            .filter(|&s| s < n && valid[s] != NOT_CANDIDATE);
        let Some(s) = ok else {
            let why = match usize::try_from(seg).ok().filter(|&s| s < n) {
                None => format!("segments are numbered 0 to {}", n - 1),
                Some(s) if store.state[s] == SegState::Sealed => format!(
                    "it holds {} valid pages, above the `log` method's bound of {}",
                    store.valid[s], store.victim_valid_bound
                ),
                Some(s) => format!("it is {:?}, not sealed", store.state[s]).to_lowercase(),
            };
            let candidates = self.candidates;
            return self.fail(format!(
                "select returned segment {seg}, which is not a candidate: {why} \
                 (a candidate has view.valid[seg] != NOT_CANDIDATE; {candidates} candidates)"
            ));
        };
        valid[s] = NOT_CANDIDATE;
        self.candidates -= 1;
        Some(s as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outside::Factory;
    use std::sync::Arc;

    /// Greedy, written as a host would write it: the fewest valid pages, lowest segment first.
    struct Lowest;
    impl OutsidePolicy for Lowest {
        fn select(&mut self, view: &PolicyView<'_>, _rng: &mut SimRng) -> Result<i64, String> {
            let (i, _) = (view.valid.iter().enumerate())
                .min_by_key(|&(i, v)| (*v, i))
                .expect("a candidate");
            Ok(i64::try_from(i).expect("few segments"))
        }
    }
    struct Returns(i64);
    impl OutsidePolicy for Returns {
        fn select(&mut self, _: &PolicyView<'_>, _: &mut SimRng) -> Result<i64, String> {
            Ok(self.0)
        }
    }
    struct Make(fn() -> Box<dyn OutsidePolicy>);
    impl Factory for Make {
        fn policy(&self) -> crate::Result<Box<dyn OutsidePolicy>> {
            Ok((self.0)())
        }
    }

    fn outside(make: fn() -> Box<dyn OutsidePolicy>) -> (Outside, Store) {
        let g = Geometry {
            segments: 8,
            pages_per_segment: 4,
            logical_pages: 24,
        };
        let spec = OutsideSpec {
            text: "tests:Lowest".into(),
            factory: Arc::new(Make(make)),
        };
        let mut store = Store::new(&g);
        // Segments 0..3 sealed with 4, 2, 3 valid pages; the rest free.
        for (seg, v) in [(0u32, 4u32), (1, 2), (2, 3)] {
            store.valid[seg as usize] = v;
            store.state[seg as usize] = SegState::Sealed;
        }
        let mut p = Outside::new(spec, &g);
        for seg in 0..3 {
            p.on_seal(seg, true, &store);
        }
        (p, store)
    }

    #[test]
    fn candidates_follow_seals_and_invalidations() {
        let (mut p, mut store) = outside(|| Box::new(Lowest));
        assert_eq!(p.candidates, 3);
        assert_eq!(&p.mirror.get().valid[..4], &[4, 2, 3, NOT_CANDIDATE]);
        store.valid[0] = 1;
        p.on_invalidate(0, 0, &store);
        let mut rng = <SimRng as rand::SeedableRng>::seed_from_u64(1);
        let clocks = Clocks::default();
        assert_eq!(p.select(&store, &clocks, &mut rng), Some(0));
        assert_eq!(p.candidates, 2);
        assert_eq!(p.select(&store, &clocks, &mut rng), Some(1));
        p.on_remove(2, &store);
        assert_eq!(p.select(&store, &clocks, &mut rng), None);
        assert!(p.take_failure().is_none());
    }

    #[test]
    fn a_segment_not_a_candidate_is_an_error_naming_it() {
        for (seg, says) in [(5, "free, not sealed"), (42, "numbered 0 to 7"), (-1, "numbered 0 to 7")] {
            let (mut p, store) = outside(match seg {
                5 => || Box::new(Returns(5)),
                42 => || Box::new(Returns(42)),
                _ => || Box::new(Returns(-1)),
            });
            let mut rng = <SimRng as rand::SeedableRng>::seed_from_u64(1);
            assert_eq!(p.select(&store, &Clocks::default(), &mut rng), None);
            let e = p.take_failure().expect("a failure").to_string();
            assert!(e.contains("`tests:Lowest`") && e.contains(&format!("segment {seg}")), "{e}");
            assert!(e.contains(says), "{e}");
        }
    }
}
