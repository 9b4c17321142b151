//! Victim policies: which sealed segment the cleaner reclaims next. One file per policy, each
//! citing its source and declaring itself ([`Declare`]); the registry at the end of this file
//! collects them, one line each.

pub mod index;

use std::fmt;
use std::str::FromStr;

use crate::clocks::Clocks;
use crate::error::{Error, Result};
use crate::geometry::Geometry;
use crate::rng::SimRng;
use crate::spec::{string_serde, usages, Args, Family, Info, Need};
use crate::store::Store;

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
    /// A user write of `page` at trace time `now` [µs] reaches the store. Where it takes its
    /// slot at once, its old copy, if any, is still in place and is invalidated next; where it
    /// waits (sort buffer, cache streams), the old copy was invalidated just before. Called only
    /// for a policy that declares [`Need::PageState`] (it keeps per-page state of its own), and
    /// with one region.
    fn on_user_write(&mut self, _page: u32, _now: u64, _store: &Store) {}
    /// `seg` is likely to lose a valid page, `page`'s copy, in a few writes: a hint to bring
    /// the index entries `on_invalidate` (and `on_user_write`) will touch into the cache. No
    /// effect on results.
    fn prefetch(&self, _seg: u32, _page: u32) {}
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
    /// Valid pages of the segment [`Self::select`] would choose next, where the policy knows it
    /// without drawing (a group scheme compares its groups by it: `placement::Groups`); `None`
    /// when it has no candidate or cannot tell.
    fn next_valid(&self, _store: &Store) -> Option<u32> {
        None
    }
    /// Its candidates with `valid` valid pages, in no particular order, where it keeps them by
    /// valid count (greedy's buckets); `None` where it does not. A group scheme that plans
    /// several victims at once reads them from the fewest up instead of scanning the store.
    fn with_valid(&self, _valid: u32) -> Option<&[u32]> {
        None
    }
}

/// What a victim policy declares in its own file, and how it is built from its parameters.
pub trait Declare: VictimPolicy + Sized {
    /// Its parsed parameters (`()` for none).
    type Params: Clone + fmt::Debug + PartialEq;
    /// Its name, parameters, source and needs.
    const INFO: Info;
    /// Whether it draws its candidates at random, so that it can miss the segments with room by
    /// chance (its choice among equal valid counts aside).
    const DRAWS_AT_RANDOM: bool = false;
    /// Its parameters from a spec string whose keys are already checked against [`Self::INFO`].
    fn parse(args: &Args<'_>) -> Result<Self::Params>;
    /// Its canonical spec string, which names runs and results: it must not change.
    fn show(params: &Self::Params, f: &mut fmt::Formatter<'_>) -> fmt::Result;
    /// The policy for a store of `geometry`.
    fn build(params: &Self::Params, geometry: &Geometry) -> Self;
    /// Where its update frequencies come from, if it reads them.
    fn freq(_params: &Self::Params) -> Option<mdc::FreqSource> {
        None
    }
    /// Whether it needs `need` with these parameters (by default, as [`Self::INFO`] declares).
    fn needs(_params: &Self::Params, need: crate::spec::Need) -> bool {
        Self::INFO.needs(need)
    }
}

/// Writes the registry: [`PolicySpec`] (a parsed `--policy`), [`Policy`] (the policy, dispatched
/// statically: one predictable branch per call on the hot path) and [`POLICIES`].
macro_rules! registry {
    ($($v:ident($m:ident::$t:ident),)*) => {
        $(pub mod $m;)*
        pub mod outside;

        /// Victim policy (`--policy`): a registered policy and its parameters.
        #[derive(Clone, Debug, PartialEq)]
        pub enum PolicySpec {
            $(#[doc = concat!("See [`", stringify!($m::$t), "`].")] $v(<$m::$t as Declare>::Params),)*
            /// A policy written outside the engine, named `MODULE:CLASS[:…]` ([`crate::outside`]).
            Outside(crate::outside::OutsideSpec),
        }

        /// Every policy, dispatched statically.
        #[derive(Clone, Debug)]
        pub enum Policy {
            $(#[doc = concat!("See [`", stringify!($m::$t), "`].")] $v($m::$t),)*
            /// See [`outside::Outside`].
            Outside(outside::Outside),
        }

        /// Every policy's declaration, in registration order.
        pub const POLICIES: &[&Info] = &[$(&<$m::$t as Declare>::INFO,)*];

        impl PolicySpec {
            /// What the policy declares of itself.
            pub fn info(&self) -> &'static Info {
                match self {
                    $(PolicySpec::$v(_) => &<$m::$t as Declare>::INFO,)*
                    PolicySpec::Outside(_) => &outside::INFO,
                }
            }

            /// Whether the policy draws its candidates at random.
            pub fn draws_at_random(&self) -> bool {
                match self {
                    $(PolicySpec::$v(_) => <$m::$t as Declare>::DRAWS_AT_RANDOM,)*
                    // Whatever it does, it may miss the segments with room.
                    PolicySpec::Outside(_) => true,
                }
            }

            /// Where the run's update frequencies come from, for a policy that reads them.
            pub fn freq(&self) -> Option<mdc::FreqSource> {
                match self {
                    $(PolicySpec::$v(p) => <$m::$t as Declare>::freq(p),)*
                    PolicySpec::Outside(_) => None,
                }
            }

            /// Whether the policy, with its parameters, needs `need`.
            pub fn needs(&self, need: crate::spec::Need) -> bool {
                match self {
                    $(PolicySpec::$v(p) => <$m::$t as Declare>::needs(p, need),)*
                    PolicySpec::Outside(o) => o.factory.needs(need),
                }
            }
        }

        impl FromStr for PolicySpec {
            type Err = Error;
            fn from_str(s: &str) -> Result<Self> {
                if crate::outside::names_outside(s, |n| POLICIES.iter().any(|i| i.answers(n))) {
                    return Ok(PolicySpec::Outside(crate::outside::resolve(Family::Policy, s)?));
                }
                let args = Args::parse("policy", s)?;
                $(
                    if <$m::$t as Declare>::INFO.answers(args.name) {
                        args.check(&<$m::$t as Declare>::INFO)?;
                        return Ok(PolicySpec::$v(<$m::$t as Declare>::parse(&args)?));
                    }
                )*
                Err(args.bad(&usages(POLICIES.iter().copied())))
            }
        }

        impl fmt::Display for PolicySpec {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                match self {
                    $(PolicySpec::$v(p) => <$m::$t as Declare>::show(p, f),)*
                    PolicySpec::Outside(o) => f.write_str(&o.text),
                }
            }
        }

        impl Policy {
            /// The policy of a spec for a store of the given geometry.
            pub fn new(spec: &PolicySpec, geometry: &Geometry) -> Self {
                match spec {
                    $(PolicySpec::$v(p) => Policy::$v(<$m::$t as Declare>::build(p, geometry)),)*
                    PolicySpec::Outside(o) => Policy::Outside(outside::Outside::new(o.clone(), geometry)),
                }
            }
        }

        impl VictimPolicy for Policy {
            #[inline]
            fn on_destage(&mut self, now: u64, store: &Store) {
                match self {
                    $(Policy::$v(p) => p.on_destage(now, store),)*
                    Policy::Outside(p) => p.on_destage(now, store),
                }
            }
            #[inline]
            fn on_seal(&mut self, seg: u32, user: bool, store: &Store) {
                match self {
                    $(Policy::$v(p) => p.on_seal(seg, user, store),)*
                    Policy::Outside(p) => p.on_seal(seg, user, store),
                }
            }
            // Always inlined, as are the policies' own: the user write's hot path calls it, and a
            // second caller (the further slots of a page of several) must not
            // un-inline it there.
            #[allow(clippy::inline_always)]
            #[inline(always)]
            fn on_invalidate(&mut self, seg: u32, slot: u32, store: &Store) {
                match self {
                    $(Policy::$v(p) => p.on_invalidate(seg, slot, store),)*
                    Policy::Outside(p) => p.on_invalidate(seg, slot, store),
                }
            }
            #[inline]
            fn on_remove(&mut self, seg: u32, store: &Store) {
                match self {
                    $(Policy::$v(p) => p.on_remove(seg, store),)*
                    Policy::Outside(p) => p.on_remove(seg, store),
                }
            }
            #[inline]
            fn on_user_write(&mut self, page: u32, now: u64, store: &Store) {
                match self {
                    $(Policy::$v(p) => p.on_user_write(page, now, store),)*
                    Policy::Outside(p) => p.on_user_write(page, now, store),
                }
            }
            #[inline]
            fn prefetch(&self, seg: u32, page: u32) {
                match self {
                    $(Policy::$v(p) => p.prefetch(seg, page),)*
                    Policy::Outside(p) => p.prefetch(seg, page),
                }
            }
            // Always inlined, as `on_invalidate`: the user write's loop calls it once per write,
            // and with several callers (the timed and untimed loops, `log`'s) a call stays.
            #[allow(clippy::inline_always)]
            #[inline(always)]
            fn prefetch_entry(&self, seg: u32, store: &Store) {
                match self {
                    $(Policy::$v(p) => p.prefetch_entry(seg, store),)*
                    Policy::Outside(p) => p.prefetch_entry(seg, store),
                }
            }
            #[inline]
            fn likely_victim(&self, store: &Store, rng: &SimRng) -> Option<u32> {
                match self {
                    $(Policy::$v(p) => p.likely_victim(store, rng),)*
                    Policy::Outside(p) => p.likely_victim(store, rng),
                }
            }
            #[inline]
            fn select(&mut self, store: &Store, clocks: &Clocks, rng: &mut SimRng) -> Option<u32> {
                match self {
                    $(Policy::$v(p) => p.select(store, clocks, rng),)*
                    Policy::Outside(p) => p.select(store, clocks, rng),
                }
            }
            fn next_valid(&self, store: &Store) -> Option<u32> {
                match self {
                    $(Policy::$v(p) => p.next_valid(store),)*
                    Policy::Outside(p) => p.next_valid(store),
                }
            }
            fn with_valid(&self, valid: u32) -> Option<&[u32]> {
                match self {
                    $(Policy::$v(p) => p.with_valid(valid),)*
                    Policy::Outside(p) => p.with_valid(valid),
                }
            }
        }
    };
}

impl PolicySpec {
    /// Whether the policy reads segments' destage sequence numbers.
    pub fn needs_destage_numbers(&self) -> bool {
        self.needs(Need::DestageNumbers)
    }

    /// Whether the policy draws from or scans the set of sealed segments (else the store keeps
    /// only their number).
    pub fn reads_sealed_set(&self) -> bool {
        self.needs(Need::SealedSet)
    }
}

impl Default for PolicySpec {
    fn default() -> Self {
        PolicySpec::Greedy(greedy::Tie::Random)
    }
}

string_serde!(PolicySpec);

impl Policy {
    /// What a policy written outside the engine raised or returned wrongly, taken once: the
    /// cleaner asks when the policy chose no victim.
    pub fn take_failure(&mut self) -> Option<Error> {
        match self {
            Policy::Outside(p) => p.take_failure(),
            _ => None,
        }
    }
}

// The registry: one line per policy.
registry! {
    Fifo(fifo::Fifo),
    Greedy(greedy::Greedy),
    Random(random::RandomPolicy),
    DChoices(d_choices::DChoices),
    Gra(gra::Gra),
    Windowed(windowed::Windowed),
    CostBenefit(cost_benefit::CostBenefit),
    Mdc(mdc::Mdc),
    MultiLog(multi_log::MultiLogCleaning),
    AgeThreshold(age_threshold::AgeThreshold),
    Fitness(fitness::Fitness),
    RandomGreedy(random_greedy::RandomGreedy),
    Lru(lru::Lru),
    CostHotness(cost_hotness::CostHotness),
}
