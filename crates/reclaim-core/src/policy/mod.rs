//! Victim policies: which sealed segment the cleaner reclaims next. One file per policy, each
//! citing its source.

pub mod age_threshold;
pub mod aged_buckets;
pub mod buckets;
pub mod cost_benefit;
pub mod count_heaps;
pub mod d_choices;
pub mod fifo;
pub mod fitness;
pub mod gra;
pub mod greedy;
pub mod mdc;
pub mod min_heap;
pub mod multi_log;
pub mod random;
pub mod windowed;

use crate::clocks::Clocks;
use crate::config::PolicySpec;
use crate::geometry::Geometry;
use crate::store::Store;
use crate::SimRng;

/// A victim policy keeps whatever index it needs, told of every seal and of every invalidation
/// in a sealed segment, and picks victims among sealed segments.
pub trait VictimPolicy {
    /// The destage clock ticked to `now` (a segment was sealed from a user stream; called
    /// before that segment's [`Self::on_seal`]).
    fn on_destage(&mut self, _now: u64, _store: &Store) {}
    /// `seg` was sealed, from a user (destage) stream or not (its valid count, stamps and
    /// destage number are set in `store`).
    fn on_seal(&mut self, _seg: u32, _user: bool, _store: &Store) {}
    /// `seg`, sealed, lost the valid page in `slot` (`store.valid[seg]` is already the new count;
    /// `store.holds(slot)` is already false). A page of s slots (`sizes`) is lost one slot at
    /// a time: its first with `slot`, the s − 1 others with `NONE`, the count falling by one each.
    fn on_invalidate(&mut self, _seg: u32, _slot: u32, _store: &Store) {}
    /// `seg`, sealed, leaves the candidates other than by [`Self::select`]: it emptied and goes
    /// to the free pool at once (`free_empty`, Stockmeyer §2.2). Called while the store still
    /// holds it sealed, with its valid count (0).
    fn on_remove(&mut self, _seg: u32, _store: &Store) {}
    /// `seg` is likely to lose a valid page in a few writes: a hint to bring the index entries
    /// `on_invalidate` will touch into the cache. No effect on results.
    fn prefetch(&self, _seg: u32) {}
    /// The second stage of [`Self::prefetch`], a write or two later, once what it brought has
    /// arrived: the entries found by reading it (a bucket's slot, found by the segment's
    /// position and valid count). No effect on results.
    fn prefetch_entry(&self, _seg: u32, _store: &Store) {}
    /// The segment [`Self::select`] would choose now with a generator in `rng`'s state, without
    /// changing either: the cleaner's guess at its next victim a few writes before it chooses,
    /// so that the victim's lines are on their way when it does (a guess a later write proves
    /// wrong costs only a few prefetches). `None` where a policy cannot tell cheaply. No effect
    /// on results.
    fn likely_victim(&self, _store: &Store, _rng: &SimRng) -> Option<u32> {
        None
    }
    /// Chooses a victim among the sealed segments it was told of and drops it from its index;
    /// ages are read from `clocks`. `None` when it holds no candidate. The cleaner erases each
    /// victim before asking for the next, so a batch of victims is a sequence of selections.
    fn select(&mut self, store: &Store, clocks: &Clocks, rng: &mut SimRng) -> Option<u32>;
}

/// Every policy, dispatched statically (one predictable branch per call on the hot path).
#[derive(Clone, Debug)]
pub enum Policy {
    /// See [`fifo::Fifo`].
    Fifo(fifo::Fifo),
    /// See [`greedy::Greedy`].
    Greedy(greedy::Greedy),
    /// See [`random::RandomPolicy`].
    Random(random::RandomPolicy),
    /// See [`d_choices::DChoices`].
    DChoices(d_choices::DChoices),
    /// See [`gra::Gra`].
    Gra(gra::Gra),
    /// See [`windowed::Windowed`].
    Windowed(windowed::Windowed),
    /// See [`cost_benefit::CostBenefit`].
    CostBenefit(cost_benefit::CostBenefit),
    /// See [`mdc::Mdc`].
    Mdc(mdc::Mdc),
    /// See [`multi_log::MultiLogCleaning`].
    MultiLog(multi_log::MultiLogCleaning),
    /// See [`age_threshold::AgeThreshold`].
    AgeThreshold(age_threshold::AgeThreshold),
    /// See [`fitness::Fitness`].
    Fitness(fitness::Fitness),
}

impl Policy {
    /// The policy of a spec for a store of the given geometry.
    pub fn new(spec: &PolicySpec, geometry: &Geometry) -> Self {
        let (segments, pps) = (geometry.segments, geometry.pages_per_segment);
        let aged = |b: &crate::config::LsaSelection| {
            aged_buckets::AgedBuckets::new(
                segments,
                pps,
                b.buckets,
                b.sort,
                b.threshold.resolve(geometry),
                b.age,
            )
        };
        match spec {
            PolicySpec::Fifo => Policy::Fifo(fifo::Fifo::new(segments)),
            PolicySpec::Greedy { tie } => Policy::Greedy(greedy::Greedy::new(segments, pps, *tie)),
            PolicySpec::Random => Policy::Random(random::RandomPolicy),
            PolicySpec::DChoices { d } => Policy::DChoices(d_choices::DChoices::new(*d)),
            PolicySpec::Gra { d } => Policy::Gra(gra::Gra::new(segments, pps, *d)),
            PolicySpec::Windowed { w, tie } => {
                Policy::Windowed(windowed::Windowed::new(segments, pps, *w, *tie))
            }
            PolicySpec::CostBenefit { form } => {
                Policy::CostBenefit(cost_benefit::CostBenefit::new(segments, pps, *form))
            }
            PolicySpec::Mdc { freq, decline } => {
                Policy::Mdc(mdc::Mdc::new(segments, pps, *freq, *decline))
            }
            PolicySpec::MultiLog => Policy::MultiLog(multi_log::MultiLogCleaning::default()),
            PolicySpec::AgeThreshold(b) => {
                Policy::AgeThreshold(age_threshold::AgeThreshold::new(aged(b)))
            }
            PolicySpec::Fitness(b) => Policy::Fitness(fitness::Fitness::new(aged(b))),
        }
    }
}

macro_rules! dispatch {
    ($self:ident, $p:ident => $e:expr) => {
        match $self {
            Policy::Fifo($p) => $e,
            Policy::Greedy($p) => $e,
            Policy::Random($p) => $e,
            Policy::DChoices($p) => $e,
            Policy::Gra($p) => $e,
            Policy::Windowed($p) => $e,
            Policy::CostBenefit($p) => $e,
            Policy::Mdc($p) => $e,
            Policy::MultiLog($p) => $e,
            Policy::AgeThreshold($p) => $e,
            Policy::Fitness($p) => $e,
        }
    };
}

impl VictimPolicy for Policy {
    #[inline]
    fn on_destage(&mut self, now: u64, store: &Store) {
        dispatch!(self, p => p.on_destage(now, store));
    }
    #[inline]
    fn on_seal(&mut self, seg: u32, user: bool, store: &Store) {
        dispatch!(self, p => p.on_seal(seg, user, store));
    }
    // Always inlined, as are the policies' own: the user write's hot path calls it, and a second
    // caller (a page of several slots, `Simulator::invalidate_sized`) must not un-inline it there.
    #[allow(clippy::inline_always)]
    #[inline(always)]
    fn on_invalidate(&mut self, seg: u32, slot: u32, store: &Store) {
        dispatch!(self, p => p.on_invalidate(seg, slot, store));
    }
    #[inline]
    fn on_remove(&mut self, seg: u32, store: &Store) {
        dispatch!(self, p => p.on_remove(seg, store));
    }
    #[inline]
    fn prefetch(&self, seg: u32) {
        dispatch!(self, p => p.prefetch(seg));
    }
    #[inline]
    fn prefetch_entry(&self, seg: u32, store: &Store) {
        dispatch!(self, p => p.prefetch_entry(seg, store));
    }
    #[inline]
    fn likely_victim(&self, store: &Store, rng: &SimRng) -> Option<u32> {
        dispatch!(self, p => p.likely_victim(store, rng))
    }
    #[inline]
    fn select(&mut self, store: &Store, clocks: &Clocks, rng: &mut SimRng) -> Option<u32> {
        dispatch!(self, p => p.select(store, clocks, rng))
    }
}
