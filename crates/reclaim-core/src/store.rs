//! The store: page map, reverse map, segment table and free pool.
//!
//! Memory: 4 bytes per logical page (page map) + 4 bytes and 1 bit per physical page (reverse
//! map, held bits) + O(segments). A slot is `segment × pages_per_segment + offset`; `NONE` marks
//! an unwritten logical page. Whether a slot holds a page's current state is its held bit, not
//! its reverse-map entry: invalidating a page clears one bit in an array 32 times smaller than
//! the reverse map, whose entry (a random access, a cache miss at a real device's size) is left
//! as it was and read again only once the slot is written anew.

use std::collections::VecDeque;

use crate::geometry::Geometry;
use crate::ledger::Ledgers;
use crate::memory::filled;

/// "No page" / "no slot" / "no segment".
pub const NONE: u32 = u32::MAX;

/// Asks the CPU to bring `x`'s cache line in; a hint with no effect on results. The engine's
/// time goes mostly to cache misses on the page and reverse maps, so it announces them early.
#[inline]
pub(crate) fn prefetch<T>(x: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch never faults and reads nothing observable; any address is allowed.
    unsafe {
        std::arch::x86_64::_mm_prefetch(
            std::ptr::from_ref(x).cast::<i8>(),
            std::arch::x86_64::_MM_HINT_T0,
        );
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}

/// Prefetches every cache line `xs` touches: one element a line from its first, and its last
/// (which, when `xs` does not start on a line, can lie in a line past the others).
#[inline]
pub(crate) fn prefetch_lines<T>(xs: &[T]) {
    let per_line = (64 / std::mem::size_of::<T>()).max(1);
    for line in xs.chunks(per_line) {
        prefetch(&line[0]);
    }
    if let Some(last) = xs.last() {
        prefetch(last);
    }
}

/// State of a segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum SegState {
    /// Erased, in the free pool.
    Free = 0,
    /// Being filled by a frontier.
    Open = 1,
    /// Full; a candidate victim.
    Sealed = 2,
}

/// Sealed segments as a set with O(1) insert, remove and uniform draw; or, where no policy
/// draws from it ([`Store::count_sealed_only`]), only their number, which saves 8 bytes per
/// segment and the random accesses that keep the members.
#[derive(Clone, Debug)]
pub struct SealedSet {
    items: Vec<u32>,
    pos: Vec<u32>,
    count: usize,
}

impl SealedSet {
    fn new(segments: u32) -> Self {
        SealedSet {
            items: Vec::with_capacity(segments as usize),
            pos: filled(segments as usize, NONE),
            count: 0,
        }
    }

    fn insert(&mut self, seg: u32) {
        if !self.pos.is_empty() {
            debug_assert_eq!(self.pos[seg as usize], NONE);
            self.pos[seg as usize] = self.items.len() as u32;
            self.items.push(seg);
        }
        self.count += 1;
    }

    fn remove(&mut self, seg: u32) {
        if !self.pos.is_empty() {
            let i = self.pos[seg as usize] as usize;
            debug_assert!(i < self.items.len());
            let last = *self.items.last().expect("non-empty");
            self.items[i] = last;
            self.pos[last as usize] = i as u32;
            self.items.pop();
            self.pos[seg as usize] = NONE;
        }
        self.count -= 1;
    }

    /// Number of sealed segments.
    #[inline]
    pub fn len(&self) -> usize {
        self.count
    }

    /// True when no segment is sealed.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Whether the members are kept ([`Self::get`], [`Self::as_slice`]).
    #[inline]
    pub fn has_members(&self) -> bool {
        !self.pos.is_empty()
    }

    /// The i-th member (arbitrary but deterministic order).
    #[inline]
    pub fn get(&self, i: usize) -> u32 {
        debug_assert!(self.has_members(), "the sealed set keeps only a count");
        self.items[i]
    }

    /// All members.
    pub fn as_slice(&self) -> &[u32] {
        assert!(
            self.has_members() || self.count == 0,
            "the sealed set keeps only a count"
        );
        &self.items
    }
}

/// Division of a slot by the pages per segment without a hardware divide, which costs more
/// than the rest of a page write's bookkeeping: a shift when b is a power of two, else Lemire's
/// exact 32-bit division by multiplication (D. Lemire, O. Kaser, N. Kurz, "Faster Remainder by
/// Direct Computation", 2019, §3: q = ⌊M·n / 2⁶⁴⌋ with M = ⌊(2⁶⁴ − 1)/d⌋ + 1, exact for every
/// 32-bit n and 2 ≤ d < 2³²).
#[derive(Clone, Copy, Debug)]
struct SlotDivisor {
    /// log₂ b when b is a power of two.
    shift: Option<u32>,
    magic: u64,
}

impl SlotDivisor {
    fn new(pps: u32) -> Self {
        assert!(pps > 0, "pages per segment is validated to be ≥ 1");
        if pps.is_power_of_two() {
            SlotDivisor {
                shift: Some(pps.trailing_zeros()),
                magic: 0,
            }
        } else {
            SlotDivisor {
                shift: None,
                magic: u64::MAX / u64::from(pps) + 1,
            }
        }
    }

    #[inline]
    fn div(self, n: u32) -> u32 {
        match self.shift {
            Some(s) => n >> s,
            None => ((u128::from(self.magic) * u128::from(n)) >> 64) as u32,
        }
    }
}

/// The held words covering slots `start..end`, each with the mask of its bits among them.
#[inline]
fn word_masks(start: usize, end: usize) -> impl Iterator<Item = (usize, u64)> {
    (start / 64..end.div_ceil(64)).map(move |w| {
        let mut mask = u64::MAX;
        if w * 64 < start {
            mask &= u64::MAX << (start - w * 64);
        }
        if end < (w + 1) * 64 {
            mask &= u64::MAX >> ((w + 1) * 64 - end);
        }
        (w, mask)
    })
}

/// Page map, reverse map, segment table and free pool.
#[derive(Clone, Debug)]
pub struct Store {
    /// Pages per segment b.
    pub pps: u32,
    div: SlotDivisor,
    /// Logical page → slot.
    pub page_map: Vec<u32>,
    /// Slot → logical page: the page last written to the slot, current only where the slot's
    /// held bit is set ([`Self::holds`]).
    pub reverse: Vec<u32>,
    /// One bit per slot, set while the slot holds the (first slot of the) current state of the
    /// page its reverse-map entry names; slot i is bit i % 64 of word i / 64.
    held: Vec<u64>,
    /// Valid pages per segment.
    pub valid: Vec<u32>,
    /// State per segment.
    pub state: Vec<SegState>,
    /// Age stamp per segment [user writes]: the user-write clock when a user page was last
    /// written to it, or the largest stamp among the victims whose pages it received (the
    /// youngest data it holds; DESIGN "Clocks").
    pub stamp: Vec<u64>,
    /// Seal sequence number per segment: the order in which segments were sealed.
    pub sealed_at: Vec<u64>,
    /// What the schemes read about segments and pages beyond location and validity, one ledger
    /// a fact ([`crate::ledger`]); a fact no scheme of the run reads is not kept.
    pub facts: Ledgers,
    /// The most valid pages a victim may hold: the `log` method's exclusion of segments below
    /// its garbage-proportion threshold, which policies that choose by valid count honour
    /// (`u32::MAX`: every sealed segment is a candidate).
    pub victim_valid_bound: u32,
    /// Size of each logical page [slots] (Lomet & Luo §4.4); empty when every page takes one
    /// slot ([`Self::keep_sizes`]). A page of size s takes s consecutive slots: the first holds
    /// its number, the others `NONE`, and `valid` counts slots.
    pub size: Vec<u16>,
    /// Pages with current state per segment (Lomet & Luo's C); empty unless pages have sizes,
    /// when it is `valid`.
    pub live: Vec<u32>,
    /// Slots written to each segment when it was sealed; empty unless pages have sizes, when
    /// a segment may be sealed with a tail that no page fitted in (every segment is sealed full
    /// otherwise). Until the segment is erased its tail is counted in `valid`: it is room that
    /// cleaning the segment cannot give without moving every page, so to the policies the
    /// segment is as full as its pages and its tail make it (counted free, a segment of
    /// pages that nothing invalidated would look worth cleaning, and cleaning it again and again
    /// would gain nothing); the cleaner does not write it.
    pub filled: Vec<u32>,
    /// Erases per segment since the start of the run.
    pub erase_count: Vec<u32>,
    /// Free pool, first in first out (so erases spread over segments).
    pub free: VecDeque<u32>,
    /// Sealed segments.
    pub sealed: SealedSet,
    /// Sealed segments by valid-page count (b + 1 bins).
    pub sealed_hist: Vec<u64>,
    seal_seq: u64,
}

impl Store {
    /// An erased device: every segment free, every logical page unwritten.
    pub fn new(g: &Geometry) -> Self {
        let n = g.segments as usize;
        Store {
            pps: g.pages_per_segment,
            div: SlotDivisor::new(g.pages_per_segment),
            page_map: filled(g.logical_pages as usize, NONE),
            reverse: filled(g.physical_pages() as usize, NONE),
            held: filled((g.physical_pages() as usize).div_ceil(64), 0),
            valid: filled(n, 0),
            state: filled(n, SegState::Free),
            stamp: filled(n, 0),
            sealed_at: filled(n, 0),
            facts: Ledgers::default(),
            victim_valid_bound: u32::MAX,
            size: Vec::new(),
            live: Vec::new(),
            filled: Vec::new(),
            erase_count: filled(n, 0),
            free: (0..g.segments).collect(),
            sealed: SealedSet::new(g.segments),
            sealed_hist: vec![0; g.pages_per_segment as usize + 1],
            seal_seq: 0,
        }
    }

    /// Keeps only the number of sealed segments, not which they are: for policies that never
    /// draw from or scan the sealed set (everything but `random`, `d-choices` and `mdc`).
    /// Called before any segment is sealed.
    pub fn count_sealed_only(&mut self) {
        assert_eq!(self.sealed.count, 0, "called after segments were sealed");
        self.sealed.items = Vec::new();
        self.sealed.pos = Vec::new();
    }

    /// Keeps the facts whose need `needs` says (see [`crate::ledger::Ledgers::new`]), none
    /// kept before; called before the first write.
    pub fn keep_facts(&mut self, needs: impl Fn(crate::spec::Need) -> bool) {
        let g = Geometry {
            segments: self.segments(),
            pages_per_segment: self.pps,
            logical_pages: self.page_map.len() as u64,
        };
        self.facts = Ledgers::new(&g, needs);
    }

    /// Gives the logical pages their sizes [slots] (2 bytes per logical page, 4 per segment).
    pub fn keep_sizes(&mut self, sizes: Vec<u16>) {
        debug_assert_eq!(sizes.len(), self.page_map.len());
        self.size = sizes;
        self.live = vec![0; self.valid.len()];
        self.filled = vec![self.pps; self.valid.len()];
    }

    /// The tail of sealed segment `seg` that no page fitted in [slots], counted in its valid
    /// count (see [`Self::filled`]); 0 without sizes.
    #[inline]
    pub fn tail_of(&self, seg: u32) -> u32 {
        self.filled.get(seg as usize).map_or(0, |&f| self.pps - f)
    }

    /// Segment `seg`, about to be sealed with `filled` slots written, counts the rest as held.
    pub fn seal_tail(&mut self, seg: u32, filled: u32) {
        let s = seg as usize;
        self.filled[s] = filled;
        self.valid[s] += self.pps - filled;
    }

    /// The slot and segment of `page`'s current copy, or `None` for a page past the slots
    /// (not written, or named by an entry past the physical pages: waiting for slots).
    #[inline]
    pub fn copy_of(&self, page: u32) -> Option<(u32, u32)> {
        let slot = self.page_map[page as usize];
        ((slot as usize) < self.reverse.len()).then(|| (slot, self.segment_of(slot)))
    }

    /// Prefetches what invalidating `page`'s current copy touches in the store: its slot's held
    /// word, its segment's valid count and state, and with `ages` its destage number; returns
    /// the segment, `None` for a page with no copy in a slot ([`Self::copy_of`]).
    #[inline]
    pub fn prefetch_copy(&self, page: u32, ages: bool) -> Option<u32> {
        let (slot, seg) = self.copy_of(page)?;
        self.prefetch_held(slot);
        prefetch(&self.valid[seg as usize]);
        prefetch(&self.state[seg as usize]);
        if ages {
            prefetch(&self.facts.dseq()[seg as usize]);
        }
        Some(seg)
    }

    /// Whether pages have sizes.
    #[inline]
    pub fn sized(&self) -> bool {
        !self.size.is_empty()
    }

    /// Slots page `page` takes.
    #[inline]
    pub fn size_of(&self, page: u32) -> u32 {
        self.size.get(page as usize).map_or(1, |&s| u32::from(s))
    }

    /// Pages with current state in `seg` (Lomet & Luo's C): its valid count when every page
    /// takes one slot.
    #[inline]
    pub fn pages_in(&self, seg: u32) -> u32 {
        self.live
            .get(seg as usize)
            .copied()
            .unwrap_or(self.valid[seg as usize])
    }

    /// Whether `slot` holds the current state of a page (its first slot, with sizes).
    #[inline]
    pub fn holds(&self, slot: u32) -> bool {
        self.held[slot as usize / 64] >> (slot % 64) & 1 == 1
    }

    /// The page whose current state starts at `slot`, if any.
    #[inline]
    pub fn page_at(&self, slot: u32) -> Option<u32> {
        self.holds(slot).then(|| self.reverse[slot as usize])
    }

    #[inline]
    fn hold(&mut self, slot: u32) {
        self.held[slot as usize / 64] |= 1 << (slot % 64);
    }

    /// Sets the held bits of slots `start..end`, a word at a time.
    #[inline]
    fn hold_range(&mut self, start: u32, end: u32) {
        for (w, mask) in word_masks(start as usize, end as usize) {
            self.held[w] |= mask;
        }
    }

    /// Brings in the word of `slot`'s held bit, which invalidating the slot clears.
    #[inline]
    pub fn prefetch_held(&self, slot: u32) {
        prefetch(&self.held[slot as usize / 64]);
    }

    /// Takes one more slot of the page whose first slot `invalidate` cleared off `seg`'s valid
    /// count (a page of size s is invalidated one slot at a time, so that every policy's index
    /// sees valid counts fall by one, as with pages of one size).
    #[inline]
    pub fn drop_slot(&mut self, seg: u32) {
        let s = seg as usize;
        if self.state[s] == SegState::Sealed {
            let v = self.valid[s] as usize;
            self.sealed_hist[v] -= 1;
            self.sealed_hist[v - 1] += 1;
        }
        self.valid[s] -= 1;
    }

    /// Number of segments.
    #[inline]
    pub fn segments(&self) -> u32 {
        self.valid.len() as u32
    }

    /// Segment of a slot.
    #[inline]
    pub fn segment_of(&self, slot: u32) -> u32 {
        self.div.div(slot)
    }

    /// Takes a segment from the free pool and marks it open.
    #[inline]
    pub fn open(&mut self) -> Option<u32> {
        let seg = self.free.pop_front()?;
        self.state[seg as usize] = SegState::Open;
        self.stamp[seg as usize] = 0;
        Some(seg)
    }

    /// Marks an open segment sealed with the given age stamp.
    #[inline]
    pub fn seal(&mut self, seg: u32, stamp: u64) {
        let s = seg as usize;
        self.state[s] = SegState::Sealed;
        self.stamp[s] = stamp;
        self.seal_seq += 1;
        self.sealed_at[s] = self.seal_seq;
        self.sealed.insert(seg);
        self.sealed_hist[self.valid[s] as usize] += 1;
    }

    /// Writes logical page `page` into `slot` and the [`Self::size_of`] − 1 slots after it
    /// (they are free and in one segment). Only the first slot is marked held; the others are
    /// covered by its size. `SIZED` says whether pages have sizes ([`Self::sized`]): a
    /// constant, so that a run whose pages take one slot each pays nothing for sizes.
    // The user write's hot path: inlined there, whatever its other callers.
    #[allow(clippy::inline_always)]
    #[inline(always)]
    pub fn place<const SIZED: bool>(&mut self, page: u32, slot: u32) {
        debug_assert_eq!(SIZED, self.sized());
        self.page_map[page as usize] = slot;
        self.reverse[slot as usize] = page;
        self.hold(slot);
        let seg = self.segment_of(slot) as usize;
        if SIZED {
            self.count_sized(page, seg);
        } else {
            self.valid[seg] += 1;
        }
    }

    /// A page with a size placed in `seg`: its slots and itself counted.
    #[cold]
    #[inline(never)]
    fn count_sized(&mut self, page: u32, seg: usize) {
        self.valid[seg] += self.size_of(page);
        self.live[seg] += 1;
    }

    /// Writes `pages` into consecutive slots of `seg` from offset `start` (they fit), each
    /// taking its size; returns the slots they take (`SIZED` as for [`Self::place`]).
    #[inline]
    pub fn place_run<const SIZED: bool>(
        &mut self,
        seg: u32,
        start: u32,
        pages: impl ExactSizeIterator<Item = u32>,
    ) -> u32 {
        debug_assert_eq!(SIZED, self.sized());
        let first = seg * self.pps + start;
        if SIZED {
            let mut slot = first;
            for page in pages {
                self.place::<true>(page, slot);
                slot += self.size_of(page);
            }
            return slot - first;
        }
        let n = pages.len() as u32;
        for (slot, page) in (first..first + n).zip(pages) {
            self.page_map[page as usize] = slot;
            self.reverse[slot as usize] = page;
        }
        self.hold_range(first, first + n);
        self.valid[seg as usize] += n;
        n
    }

    /// Invalidates the page whose first slot is `slot`, taking one slot off its segment's
    /// valid count (the rest of a page of several slots goes by [`Self::drop_slot`]); returns
    /// the segment, whether it is sealed and the page's size (`SIZED` as for [`Self::place`]).
    // The user write's hot path; a second caller must not un-inline it.
    #[allow(clippy::inline_always)]
    #[inline(always)]
    pub fn invalidate<const SIZED: bool>(&mut self, slot: u32) -> (u32, bool, u32) {
        debug_assert_eq!(SIZED, self.sized());
        debug_assert!(self.holds(slot));
        self.held[slot as usize / 64] &= !(1 << (slot % 64));
        let seg = self.segment_of(slot);
        let s = seg as usize;
        let sealed = self.state[s] == SegState::Sealed;
        if sealed {
            let v = self.valid[s] as usize;
            self.sealed_hist[v] -= 1;
            self.sealed_hist[v - 1] += 1;
        }
        self.valid[s] -= 1;
        if !SIZED {
            return (seg, sealed, 1);
        }
        self.live[s] -= 1;
        (seg, sealed, self.size_of(self.reverse[slot as usize]))
    }

    /// Brings in what erasing sealed segment `seg` reads and writes, all at once, so that the
    /// misses overlap instead of following one another: its entries in the per-segment arrays,
    /// its sealed-set position and its reverse-map slots. A hint with no effect on results.
    #[inline]
    pub fn prefetch_victim(&self, seg: u32) {
        let s = seg as usize;
        prefetch(&self.state[s]);
        prefetch(&self.valid[s]);
        prefetch(&self.stamp[s]);
        prefetch(&self.erase_count[s]);
        if let Some(p) = self.sealed.pos.get(s) {
            prefetch(p);
        }
        let start = s * self.pps as usize;
        let end = start + self.pps as usize;
        prefetch_lines(&self.reverse[start..end]);
        prefetch_lines(&self.held[start / 64..=(end - 1) / 64]);
    }

    /// Takes a sealed segment out of the sealed set before it is cleaned, appending its valid
    /// pages in slot order (oldest written first) to `out`, and erases it into the free pool.
    pub fn erase_into(&mut self, seg: u32, out: &mut Vec<u32>) {
        self.erase_with(seg, |page| out.push(page));
    }

    /// As [`Self::erase_into`], handing each valid page, in slot order, to `take`.
    #[inline]
    pub fn erase_with(&mut self, seg: u32, mut take: impl FnMut(u32)) {
        let s = seg as usize;
        debug_assert_eq!(self.state[s], SegState::Sealed);
        self.sealed.remove(seg);
        self.sealed_hist[self.valid[s] as usize] -= 1;
        let start = seg as usize * self.pps as usize;
        let end = start + self.pps as usize;
        // The segment's held bits, in slot order, cleared as they are taken.
        for (w, mask) in word_masks(start, end) {
            let mut bits = self.held[w] & mask;
            self.held[w] &= !mask;
            while bits != 0 {
                let page = self.reverse[w * 64 + bits.trailing_zeros() as usize];
                // The page is about to be relocated, which writes its page-map entry.
                prefetch(&self.page_map[page as usize]);
                take(page);
                bits &= bits - 1;
            }
        }
        self.valid[s] = 0;
        if let Some(live) = self.live.get_mut(s) {
            *live = 0;
            self.filled[s] = self.pps;
        }
        self.state[s] = SegState::Free;
        self.erase_count[s] += 1;
        self.free.push_back(seg);
        self.facts.erased(seg);
    }

    /// The offsets in segment `seg` of its held slots, in order, each given to `f` (the pages
    /// the cleaner will read from it before erasing it).
    pub fn held_offsets(&self, seg: u32, mut f: impl FnMut(u32)) {
        let start = seg as usize * self.pps as usize;
        let end = start + self.pps as usize;
        for (w, mask) in word_masks(start, end) {
            let mut bits = self.held[w] & mask;
            while bits != 0 {
                f((w * 64 + bits.trailing_zeros() as usize - start) as u32);
                bits &= bits - 1;
            }
        }
    }

    /// Checks the engine's invariants; returns a description of the first violation.
    ///
    /// Every written logical page lives in exactly one slot, and that slot points back to it;
    /// valid counts equal the reverse map; free + open + sealed = segments; the histogram of
    /// sealed segments agrees with their valid counts. With sizes, in slots: a page of size s
    /// takes its first slot and the s − 1 after it, all in its segment and held by no other
    /// page, a segment's valid count is the sum of its pages' sizes and its live count their
    /// number.
    pub fn check(&self) -> std::result::Result<(), String> {
        let pps = self.pps as usize;
        let mut counted = vec![0u32; self.valid.len()];
        let mut pages = vec![0u32; self.valid.len()];
        let mut covered = 0;
        for (slot, &page) in self.reverse.iter().enumerate() {
            if self.holds(slot as u32) {
                if page == NONE {
                    return Err(format!("slot {slot} is held by no page"));
                }
                if self.page_map[page as usize] != slot as u32 {
                    return Err(format!(
                        "slot {slot} holds page {page}, which maps to {}",
                        self.page_map[page as usize]
                    ));
                }
                let size = self.size_of(page) as usize;
                if self.sized() {
                    if slot % pps + size > pps {
                        return Err(format!(
                            "page {page} of {size} slots at slot {slot} runs past its segment"
                        ));
                    }
                    if slot < covered {
                        return Err(format!(
                            "page {page} at slot {slot} overlaps the page before it"
                        ));
                    }
                    covered = slot + size;
                }
                counted[slot / pps] += size as u32;
                pages[slot / pps] += 1;
            }
        }
        for (seg, c) in counted.iter_mut().enumerate() {
            if self.state[seg] == SegState::Sealed {
                *c += self.tail_of(seg as u32);
            }
        }
        if self.sized() && pages != self.live {
            return Err("live page counts differ from the reverse map".into());
        }
        for (page, &slot) in self.page_map.iter().enumerate() {
            // Entries past the slots name pages waiting in a stream; the simulator checks them.
            if (slot as usize) < self.reverse.len() && self.page_at(slot) != Some(page as u32) {
                return Err(format!(
                    "page {page} maps to slot {slot}, which holds {:?}",
                    self.page_at(slot)
                ));
            }
        }
        if counted != self.valid {
            return Err("valid counts differ from the reverse map".into());
        }
        let free = self.state.iter().filter(|s| **s == SegState::Free).count();
        let open = self.state.iter().filter(|s| **s == SegState::Open).count();
        let sealed = self
            .state
            .iter()
            .filter(|s| **s == SegState::Sealed)
            .count();
        if free != self.free.len()
            || sealed != self.sealed.len()
            || free + open + sealed != self.valid.len()
        {
            return Err(format!(
                "free {free} (pool {}), open {open}, sealed {sealed} (set {}) do not add up to {} segments",
                self.free.len(),
                self.sealed.len(),
                self.valid.len()
            ));
        }
        let mut hist = vec![0u64; pps + 1];
        for (seg, &state) in self.state.iter().enumerate() {
            if state == SegState::Sealed {
                hist[self.valid[seg] as usize] += 1;
                if self.sealed.has_members() && self.sealed.pos[seg] == NONE {
                    return Err(format!("sealed segment {seg} is not in the sealed set"));
                }
            }
        }
        if hist != self.sealed_hist {
            return Err("sealed-segment histogram differs from valid counts".into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{SlotDivisor, Store};
    use crate::geometry::Geometry;

    /// A store that counts its sealed segments without keeping which they are agrees with one
    /// that keeps them, seal by seal and erase by erase.
    #[test]
    fn a_counted_sealed_set_agrees_with_a_kept_one() {
        let g = Geometry {
            segments: 6,
            pages_per_segment: 4,
            logical_pages: 16,
        };
        let (mut kept, mut counted) = (Store::new(&g), Store::new(&g));
        counted.count_sealed_only();
        assert!(kept.sealed.has_members() && !counted.sealed.has_members());
        for st in [&mut kept, &mut counted] {
            for seg in 0..4 {
                assert_eq!(st.open(), Some(seg));
                st.place_run::<false>(seg, 0, seg * 4..seg * 4 + 4);
                st.seal(seg, 0);
            }
            // Two victims' pages relocated into the two segments left.
            for victim in [2, 0] {
                let mut pages = Vec::new();
                st.erase_into(victim, &mut pages);
                let to = st.open().expect("free");
                st.place_run::<false>(to, 0, pages.into_iter());
            }
            assert_eq!(st.check(), Ok(()));
        }
        assert_eq!(kept.sealed.len(), 2);
        assert_eq!(counted.sealed.len(), 2);
        let mut members = kept.sealed.as_slice().to_vec();
        members.sort_unstable();
        assert_eq!(members, [1, 3]);
    }

    /// Erasing gives a segment's current pages in slot order, whatever its slots' place in the
    /// held words: segments of 5 (inside a word and across two), 64 (one word) and 100 slots
    /// (across two or three words), every third page rewritten out of the segment first.
    #[test]
    fn erase_gives_the_current_pages_in_slot_order() {
        for pps in [5u32, 64, 100] {
            let segments = 4;
            let mut st = Store::new(&Geometry {
                segments,
                pages_per_segment: pps,
                logical_pages: u64::from(pps * 3),
            });
            // Pages 0..3b into segments 0, 1, 2 in order; segment 3 takes the rewrites.
            for seg in 0..3 {
                let opened = st.open().expect("free");
                assert_eq!(opened, seg);
                st.place_run::<false>(seg, 0, seg * pps..(seg + 1) * pps);
                st.seal(seg, 0);
            }
            let spare = st.open().expect("free");
            for (next, page) in (0..3 * pps).step_by(3).take(pps as usize).enumerate() {
                let old = st.page_map[page as usize];
                st.place::<false>(page, spare * pps + next as u32);
                st.invalidate::<false>(old);
            }
            assert_eq!(st.check(), Ok(()));
            for seg in 0..3 {
                let mut got = Vec::new();
                st.erase_into(seg, &mut got);
                let want: Vec<u32> = (seg * pps..(seg + 1) * pps)
                    .filter(|p| p % 3 != 0 || p / 3 >= pps)
                    .collect();
                assert_eq!(got, want, "b = {pps}, segment {seg}");
                assert!((seg * pps..(seg + 1) * pps).all(|slot| !st.holds(slot)));
            }
        }
    }

    #[test]
    fn slot_division_is_exact() {
        // Every divisor in the validated range [1, 65536] on the slots where rounding would
        // show first: multiples of b, their neighbours, and the top of the 32-bit range.
        for d in (1..=300).chain([511, 512, 513, 1000, 4095, 4097, 65_535, 65_536]) {
            let div = SlotDivisor::new(d);
            for k in [0u64, 1, 2, 3, 1000, 65_535, u64::from(u32::MAX / d)] {
                for n in [
                    k * u64::from(d),
                    k * u64::from(d) + u64::from(d) - 1,
                    (k * u64::from(d)).saturating_sub(1),
                ] {
                    if let Ok(n) = u32::try_from(n) {
                        assert_eq!(div.div(n), n / d, "{n} / {d}");
                    }
                }
            }
            assert_eq!(div.div(u32::MAX), u32::MAX / d, "u32::MAX / {d}");
        }
    }
}
