//! The engine's facts: what a scheme reads about segments and pages beyond their location and
//! validity (DESIGN, "The engine's facts (ledgers)").
//!
//! Each fact is kept by one ledger, a file of this folder: the ledger owns the fact's array, says
//! what it costs in memory, and updates it at the engine's fixed events: a user write, an append
//! of relocated pages, a seal, an erase and a write request ([`Ledger`]). A scheme declares the
//! facts it reads among its needs (`Info::needs`, one [`Need`] a fact); the engine keeps a ledger
//! only when some scheme of the run needs its fact ([`Ledgers::new`]), and a ledger not kept
//! holds empty arrays and costs nothing. The ledgers are fields of one struct, [`Ledgers`],
//! written by the registry at the end of this file: each event calls each ledger's hook by its
//! type, so that a hook a ledger leaves empty compiles to nothing (no `dyn` on the hot path).
//!
//! Adding a fact: a file here with a type implementing [`Ledger`] (its name, unit and help, its
//! [`Need`], its array and its hooks), and one line in the registry (`docs/design.md`, "Facts
//! (ledgers)"). The run loop in `sim/` does not change.

use crate::clocks::Clocks;
use crate::geometry::Geometry;
use crate::spec::Need;
use crate::workload::Write;

/// What a fact is kept for: one entry per segment or one per logical page.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Per {
    /// One entry per segment, indexed by segment number.
    Segment,
    /// One entry per logical page, indexed by page number.
    Page,
}

/// A fact's array, borrowed, in the type it is kept in (for the bindings, which hand it to
/// Python as a `NumPy` view without a copy).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FactArray<'a> {
    /// 16-bit unsigned entries.
    U16(&'a [u16]),
    /// 32-bit unsigned entries.
    U32(&'a [u32]),
    /// 64-bit unsigned entries.
    U64(&'a [u64]),
    /// 64-bit floating-point entries.
    F64(&'a [f64]),
}

impl FactArray<'_> {
    /// Number of entries (0 for a fact that is not kept).
    pub fn len(&self) -> usize {
        match self {
            FactArray::U16(a) => a.len(),
            FactArray::U32(a) => a.len(),
            FactArray::U64(a) => a.len(),
            FactArray::F64(a) => a.len(),
        }
    }

    /// Whether the array has no entry (the fact is not kept).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A fact as its ledger declares it: the name a scheme reads it by (DESIGN's vocabulary), its
/// unit, what it means, and what it is kept for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Fact {
    /// Its name.
    pub name: &'static str,
    /// Its unit, empty for none.
    pub unit: &'static str,
    /// What it means, in one line.
    pub help: &'static str,
    /// One entry per segment or per page.
    pub per: Per,
    /// The need a scheme declares to have it kept.
    #[serde(skip)]
    pub need: Need,
    /// Bytes per entry.
    pub bytes: u64,
}

/// A segment being sealed, as the ledgers are told of it ([`Ledger::sealed`]).
#[derive(Clone, Copy, Debug)]
pub struct Sealing {
    /// The segment.
    pub seg: u32,
    /// The stream that filled it (its index among the placement's streams).
    pub stream: u16,
    /// Whether that is a user (destage) stream.
    pub user: bool,
    /// The destage number the segment takes if it came from a GC stream: its contributors'
    /// largest under the run's rule (Stockmeyer §2.3; `placement::FscNumber`).
    pub fsc_number: u64,
    /// The mean u_p2 of the pages written to it (Lomet & Luo §5.2.2), where the stream kept
    /// their keys; `None` when it has none.
    pub mean_up2: Option<f64>,
    /// The clocks as the segment is sealed (before a user stream's seal ticks the destage
    /// clock).
    pub clocks: Clocks,
}

/// One fact: its array, its memory and its updates at the engine's events. Each hook has an
/// empty default; the engine calls every kept ledger's hooks at its events, by type.
pub trait Ledger: Clone + std::fmt::Debug + Default {
    /// What the fact is ([`Fact::need`] is the need that keeps it).
    const FACT: Fact;

    /// The ledger kept for a device of geometry `g`: its arrays allocated. (`Default` is the
    /// ledger not kept: empty arrays.)
    fn new(g: &Geometry) -> Self;

    /// Its array.
    fn array(&self) -> FactArray<'_>;

    /// Whether [`Self::user_write`] does anything: the run loop tells the ledgers of user writes
    /// only when a kept one hears them.
    const USER_WRITES: bool = false;

    /// A user write of `write` reaches the store, at `now` [user writes] (before the clock
    /// counts it).
    #[inline]
    fn user_write(&mut self, _write: Write, _now: u64) {}

    /// Relocated pages admitted directly are appended to segment `seg`, taking `slots` slots
    /// from offset `start` (pages that waited in a cache stream reach their segment by a flush,
    /// which this does not report).
    #[inline]
    fn appended(&mut self, _seg: u32, _start: u32, _slots: u32) {}

    /// A segment is sealed.
    #[inline]
    fn sealed(&mut self, _e: &Sealing) {}

    /// Segment `seg` is erased into the free pool.
    #[inline]
    fn erased(&mut self, _seg: u32) {}

    /// A write request of `pages` pages from `first` starts at `time` [µs, trace time].
    #[inline]
    fn request(&mut self, _first: u32, _pages: u32, _time: u64) {}
}

/// Writes [`Ledgers`] (each registered ledger as a field, kept or empty), its event hooks (each
/// kept ledger's, by type) and [`FACTS`].
macro_rules! ledgers {
    ($($field:ident: $m:ident::$t:ident,)*) => {
        $(pub mod $m;)*

        /// Every registered ledger: those the run's schemes need are kept, the others empty.
        #[derive(Clone, Debug, Default)]
        pub struct Ledgers {
            $(#[doc = concat!("See [`", stringify!($m::$t), "`].")] pub $field: $m::$t,)*
        }

        /// The facts of the registered ledgers, in the registry's order.
        pub const FACTS: &[Fact] = &[$(<$m::$t as Ledger>::FACT,)*];

        impl Ledgers {
            /// The ledgers of a device of geometry `g`, each kept when `needs` its fact's need.
            pub fn new(g: &Geometry, needs: impl Fn(Need) -> bool) -> Self {
                Ledgers {
                    $($field: if needs(<$m::$t as Ledger>::FACT.need) {
                        <$m::$t as Ledger>::new(g)
                    } else {
                        $m::$t::default()
                    },)*
                }
            }

            /// The array of the fact named `name`, `None` for no such fact (an empty array
            /// for a fact that is not kept).
            pub fn array(&self, name: &str) -> Option<FactArray<'_>> {
                $(if name == <$m::$t as Ledger>::FACT.name {
                    return Some(self.$field.array());
                })*
                None
            }

            /// Keeps the fact named `name` if it is not kept yet; `false` for no such fact.
            pub fn keep(&mut self, g: &Geometry, name: &str) -> bool {
                $(if name == <$m::$t as Ledger>::FACT.name {
                    if self.$field.array().is_empty() {
                        self.$field = <$m::$t as Ledger>::new(g);
                    }
                    return true;
                })*
                false
            }

            /// The names of the facts kept.
            pub fn kept(&self) -> Vec<&'static str> {
                let mut kept = Vec::new();
                $(if !self.$field.array().is_empty() {
                    kept.push(<$m::$t as Ledger>::FACT.name);
                })*
                kept
            }

            /// Whether a kept ledger hears of user writes ([`Ledger::USER_WRITES`]).
            pub fn hear_user_writes(&self) -> bool {
                false $(|| (<$m::$t as Ledger>::USER_WRITES && !self.$field.array().is_empty()))*
            }

            /// See [`Ledger::user_write`].
            #[inline]
            pub fn user_write(&mut self, write: Write, now: u64) {
                $(self.$field.user_write(write, now);)*
            }

            /// See [`Ledger::appended`].
            #[inline]
            pub fn appended(&mut self, seg: u32, start: u32, slots: u32) {
                $(self.$field.appended(seg, start, slots);)*
            }

            /// See [`Ledger::sealed`].
            #[inline]
            pub fn sealed(&mut self, e: &Sealing) {
                $(self.$field.sealed(e);)*
            }

            /// See [`Ledger::erased`].
            #[inline]
            pub fn erased(&mut self, seg: u32) {
                $(self.$field.erased(seg);)*
            }

            /// See [`Ledger::request`].
            #[inline]
            pub fn request(&mut self, first: u32, pages: u32, time: u64) {
                $(self.$field.request(first, pages, time);)*
            }
        }
    };
}

impl Ledgers {
    /// Bytes per logical page the ledgers that `needs` keeps take, for the memory check (their
    /// per-segment arrays are part of its O(segments)).
    pub fn bytes_per_page(needs: impl Fn(Need) -> bool) -> u64 {
        FACTS
            .iter()
            .filter(|f| f.per == Per::Page && needs(f.need))
            .map(|f| f.bytes)
            .sum()
    }

    /// The fact named `name`.
    pub fn fact(name: &str) -> Option<&'static Fact> {
        FACTS.iter().find(|f| f.name == name)
    }
}

// The registry: one line per fact.
ledgers! {
    dseq: destage::DestageNumbers,
    up2: up2::Up2,
    sealed_by: sealed_by::SealedBy,
    seal_time: seal_time::SealTime,
    page_class: page_class::PageClass,
    page_rate: page_rate::PageRate,
    page_written: page_written::PageWritten,
    seal_writes: seal_writes::SealWrites,
}

#[cfg(test)]
mod tests {
    use super::{Ledgers, Per, FACTS};
    use crate::geometry::Geometry;
    use crate::spec::Need;

    /// Every fact has one name, and a ledger not needed keeps nothing.
    #[test]
    fn facts_have_distinct_names_and_only_needed_ones_are_kept() {
        let mut names: Vec<&str> = FACTS.iter().map(|f| f.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), FACTS.len());
        let g = Geometry {
            segments: 8,
            pages_per_segment: 4,
            logical_pages: 24,
        };
        assert!(Ledgers::new(&g, |_| false).kept().is_empty());
        let all = Ledgers::new(&g, |_| true);
        assert_eq!(all.kept().len(), FACTS.len());
        for f in FACTS {
            let want = match f.per {
                Per::Segment => 8,
                Per::Page => 24,
            };
            assert_eq!(all.array(f.name).map(|a| a.len()), Some(want), "{}", f.name);
        }
        assert_eq!(all.array("no-such-fact"), None);
        let up2 = Ledgers::new(&g, |n| n == Need::Up2);
        assert_eq!(up2.kept(), ["up2"]);
    }
}
