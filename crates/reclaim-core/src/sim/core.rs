//! The core of the run loop, whole: a user write → its stream → seal → open → clean → append.

use super::admission::Way;
use super::cleaning::Cleaning;
use super::prefetch::VICTIM_LEAD;
use super::Simulator;
use crate::cache::Access;
use crate::config::{Gather, GcSpec};
use crate::error::{Error, Result};
use crate::placement::sort_buffer::{self, exact_key};
use crate::placement::{Gathered, Scheme, Stream, Victim};
use crate::policy::VictimPolicy;
use crate::store::NONE;
use crate::workload::Write;

impl Simulator {
    /// One workload write, through the write cache if there is one.
    #[inline]
    pub fn user_write(&mut self, write: Write) -> Result<()> {
        let write = match &mut self.cache {
            None => write,
            Some(cache) => match cache.access(write) {
                Access::Hit => {
                    self.metrics.counters.cache_hits += 1;
                    return Ok(());
                }
                Access::Miss(evicted) => {
                    self.metrics.counters.cache_misses += 1;
                    match evicted {
                        Some(e) => e,
                        None => return Ok(()),
                    }
                }
            },
        };
        self.store_write(write)
    }

    /// The region that owns segment `seg`.
    #[inline]
    pub(super) fn region_of(&self, seg: u32) -> usize {
        self.ownership.region_of(seg)
    }

    /// Free segments of region `r`.
    #[inline]
    pub(super) fn free(&self, r: usize) -> usize {
        self.ownership.free(r, &self.store, &self.placement)
    }

    /// Free segments region `r` keeps for relocation.
    #[inline]
    pub(super) fn reserve(&self, r: usize) -> usize {
        self.placement.reserve(r)
    }

    /// The cleaner's stop when it cleans victim after victim without room for a user write.
    #[cold]
    pub(super) fn no_progress(&self) -> Error {
        let reserved: usize = (0..self.placement.regions.len())
            .map(|r| self.reserve(r))
            .sum();
        let streams = self.placement.streams.len() as u32;
        Cleaning::no_progress(
            self.cleaning.streak,
            &self.geometry,
            streams,
            reserved as u32,
        )
    }

    /// A user write reaching the store: a page of [`Store::size_of`] slots appended to its
    /// stream's open segment, sealing it first when the page does not fit in what is left
    /// (Lomet & Luo §4.4; U counts slots), then its old copy invalidated.
    ///
    /// [`Store::size_of`]: crate::store::Store::size_of
    #[inline]
    pub(super) fn store_write(&mut self, write: Write) -> Result<()> {
        match self.admission.way {
            Way::Direct => {}
            Way::CacheStreams => return self.store_write_pending(write),
            Way::SortBuffer => return self.store_write_buffered(write),
        }
        let page = write.page;
        let size = self.store.size_of(page);
        let s = self.route_user(write, self.store.page_map[page as usize]);
        let slot = self.user_slot(s, size)?;
        let (pps, f) = (self.store.pps, &self.placement.streams[s]);
        let full = f.next == pps;
        if f.next + VICTIM_LEAD == pps {
            self.prefetch_likely_victim(s);
        }
        if self.notes.on {
            self.note_user_write(write, Some(s));
        }
        // Read after opening, which may have cleaned and moved the page's current copy.
        let old = self.store.page_map[page as usize];
        self.store.place(page, slot);
        if old != NONE {
            self.invalidate(old);
        }
        self.clocks.user_writes += 1;
        self.metrics.counters.user_writes += u64::from(size);
        self.cleaning.streak = 0;
        if full {
            self.seal(s);
            self.open_stream(s)?;
        }
        Ok(())
    }

    /// A place of `size` slots in user stream `s`'s open segment, its first slot returned: the
    /// stream is given a segment if it has none, and its segment is sealed first when the page
    /// does not fit in what is left, the rest of it unused. Opening may clean, and relocation
    /// into a stream shared with user writes may fill the new segment in turn.
    #[inline]
    pub(super) fn user_slot(&mut self, s: usize, size: u32) -> Result<u32> {
        let pps = self.store.pps;
        loop {
            let f = &mut self.placement.streams[s];
            if f.seg != NONE && f.next + size <= pps {
                let slot = f.seg * pps + f.next;
                f.next += size;
                f.stamp = self.clocks.user_writes;
                return Ok(slot);
            }
            if f.seg != NONE {
                self.seal(s);
            }
            self.open_stream(s)?;
        }
    }

    /// The stream of a user write whose page's copy is at `old`, with the copy's age where the
    /// placement reads ages.
    #[inline]
    pub(super) fn route_user(&mut self, write: Write, old: u32) -> usize {
        let age = if self.placement.needs_ages() {
            self.track_age(old)
        } else {
            0
        };
        self.placement
            .scheme
            .user_stream(&write, age, &mut self.rng)
    }

    /// The age on the destage clock of the copy of a page at `old` that a write replaces.
    pub(super) fn track_age(&self, old: u32) -> u64 {
        let (base, now) = (self.admission.base, self.clocks.destage);
        self.placement.age_of(&self.store, base, now, old)
    }

    /// The per-page metadata a user write updates, where kept: its class, its rate and its
    /// time; and, MDC-opt without a sort buffer (the configuration allows no other case where
    /// u_p2 is kept and a user write takes its slot at once), its key joins its stream's mean.
    #[cold]
    #[inline(never)]
    pub(super) fn note_user_write(&mut self, write: Write, stream: Option<usize>) {
        if let Some(s) = stream.filter(|_| !self.store.up2.is_empty()) {
            let f = &mut self.placement.streams[s];
            f.up2_sum += exact_key(write.rate);
            f.up2_pages += 1;
        }
        self.notes.note(write, self.clocks.user_writes);
    }

    /// Invalidates the page whose first slot is `slot`, telling its region's policy when its
    /// segment is sealed and freeing the segment at once when it empties under `free_empty`.
    /// A page of s slots is taken off its segment one slot at a time, each told to the policy,
    /// so that every index sees valid counts fall by one.
    #[inline]
    pub(super) fn invalidate(&mut self, slot: u32) {
        let (seg, sealed, size) = self.store.invalidate(slot);
        if sealed {
            let r = self.region_of(seg);
            self.policies[r].on_invalidate(seg, slot, &self.store);
            for _ in 1..size {
                self.store.drop_slot(seg);
                self.policies[r].on_invalidate(seg, NONE, &self.store);
            }
            if self.free_empty && self.store.valid[seg as usize] == self.store.tail_of(seg) {
                self.release(seg, r);
            }
        } else {
            for _ in 1..size {
                self.store.drop_slot(seg);
            }
        }
    }

    /// `free_empty`: sealed segment `seg` of region `r` has emptied by itself and goes to the
    /// free pool at once, counted as collected at utilization 0 (Stockmeyer §2.2).
    #[cold]
    pub(super) fn release(&mut self, seg: u32, r: usize) {
        self.policies[r].on_remove(seg, &self.store);
        self.store
            .erase_with(seg, |_| unreachable!("an empty segment has no valid page"));
        self.ownership.give_back(r);
        self.metrics.count_victim(0, 0);
    }

    /// Seals stream `s`'s segment, stamping it on the named clocks: a segment closed from a
    /// destage stream takes the destage counter, one closed from an FSC stream the largest
    /// number among its contributors (Stockmeyer §2.3); its u_p2 is the mean of its pages'
    /// (Lomet & Luo §5.2.2), the user-write clock when it has none.
    pub(super) fn seal(&mut self, s: usize) {
        let st = self.placement.streams[s];
        self.placement.streams[s] = Stream::closed(st.user, st.region);
        self.placement.seals[s] += 1;
        if self.store.sized() {
            self.store.seal_tail(st.seg, st.next);
        }
        self.store.seal(st.seg, st.stamp);
        let dseq = if st.user {
            self.clocks.destage
        } else {
            st.dseq
        };
        let up2 = st.mean_up2().unwrap_or(self.clocks.user_writes as f64);
        self.store.note_seal(st.seg, dseq, s as u16, up2);
        let r = self.region_of(st.seg);
        if st.user {
            self.clocks.destage += 1;
            for p in &mut self.policies {
                p.on_destage(self.clocks.destage, &self.store);
            }
        }
        self.policies[r].on_seal(st.seg, st.user, &self.store);
    }

    /// Gives stream `s` a segment from the pool (its region has a free one).
    pub(super) fn take_segment(&mut self, s: usize) {
        let seg = self
            .store
            .open()
            .expect("a region's free segments are in the pool");
        let r = self.placement.streams[s].region;
        self.ownership.take(seg, r);
        self.placement.streams[s] = Stream {
            seg,
            ..Stream::closed(self.placement.streams[s].user, r)
        };
    }

    /// Opens stream `s`, cleaning its region as the trigger demands.
    pub(super) fn open_stream(&mut self, s: usize) -> Result<()> {
        let open = |sim: &Self, s: usize| sim.placement.streams[s].seg != NONE;
        self.open_with(s, open, Self::take_segment)
    }

    /// Gives stream `s` a segment with `take` until it is `ready`: cleaning as the trigger
    /// asks until its region has a segment for it beyond the reserve, taking it, and cleaning
    /// as the trigger asks after. Relocation while cleaning may use the stream's segment (a
    /// stream shared with GC writes), and it may need another.
    pub(super) fn open_with(
        &mut self,
        s: usize,
        ready: impl Fn(&Self, usize) -> bool,
        take: impl Fn(&mut Self, usize),
    ) -> Result<()> {
        let r = self.placement.streams[s].region as usize;
        let reserve = self.reserve(r);
        loop {
            while !ready(self, s) {
                if self.free(r) <= reserve {
                    self.make_room(r)?;
                } else {
                    take(self, s);
                }
            }
            self.after_open(r)?;
            if ready(self, s) {
                return Ok(());
            }
        }
    }

    /// A stream of region `r` needs a segment and none is free beyond the reserve: clean.
    pub(super) fn make_room(&mut self, r: usize) -> Result<()> {
        if let GcSpec::MaxEmpty { k } = self.cleaning.gc {
            // Stockmeyer §2.3: clean until MaxEmpty segments are free, then write.
            let reserve = self.reserve(r);
            while self.free(r) < reserve + k as usize {
                self.clean(r, 1, false)?;
            }
            Ok(())
        } else {
            self.clean(r, 1, false)
        }
    }

    /// A stream of region `r` has just taken a segment: clean as the trigger asks.
    pub(super) fn after_open(&mut self, r: usize) -> Result<()> {
        let reserve = self.reserve(r);
        match self.cleaning.gc {
            GcSpec::Frontier | GcSpec::MaxEmpty { .. } => {}
            GcSpec::OneFree => {
                while self.free(r) <= reserve {
                    self.clean(r, 1, false)?;
                }
            }
            GcSpec::Batch {
                low,
                victims,
                gather,
                ..
            } => {
                if self.free(r) < low as usize + reserve {
                    match gather {
                        Gather::Each => {
                            for _ in 0..victims {
                                if self.store.sealed.is_empty() {
                                    break;
                                }
                                self.clean(r, 1, false)?;
                            }
                        }
                        Gather::All => self.clean(r, victims, true)?,
                    }
                }
            }
        }
        Ok(())
    }

    /// Chooses up to `count` victims in region `r`, erasing each as it is chosen and gathering
    /// its live pages into `batch` (see [`Self::clean`]).
    pub(super) fn gather(
        &mut self,
        r: usize,
        count: u32,
        partial: bool,
        batch: &mut Vec<Gathered>,
    ) -> Result<()> {
        for i in 0..count {
            if partial && i > 0 && self.store.sealed.is_empty() {
                break;
            }
            self.cleaning.streak += 1;
            if self.cleaning.streak > self.cleaning.streak_limit {
                return Err(self.no_progress());
            }
            self.metrics.count_epoch(&self.store.sealed_hist);
            let Some(victim) = self.policies[r].select(&self.store, &self.clocks, &mut self.rng)
            else {
                if partial && i > 0 {
                    break;
                }
                let (free, open) = (self.store.free.len(), self.placement.open_streams());
                return Err(Error::NoVictim { free, open });
            };
            self.store.prefetch_victim(victim);
            // A policy's index must hold only sealed segments (`on_remove` keeps it so).
            assert_eq!(
                self.store.state[victim as usize],
                crate::store::SegState::Sealed,
                "the victim policy chose segment {victim}, which is not sealed"
            );
            // With sizes, a tail no page fitted in is counted as held, and is not written.
            let valid = self.store.valid[victim as usize];
            self.metrics.count_victim(valid, self.store.tail_of(victim));
            let index = self.cleaning.victims.len() as u32;
            self.cleaning
                .victims
                .push(Victim::of(victim, r as u16, &self.store));
            let gathered = |page| Gathered {
                page,
                victim: index,
            };
            self.store
                .erase_with(victim, |page| batch.push(gathered(page)));
            self.ownership.give_back(r);
        }
        Ok(())
    }

    /// One cleaning cycle in region `r`: up to `count` victims chosen and erased one by one,
    /// their live pages gathered, sorted by the trigger's key, arranged by the placement and
    /// routed. With `partial`, the cycle ends early when no sealed segment is left.
    pub(super) fn clean(&mut self, r: usize, count: u32, partial: bool) -> Result<()> {
        self.clocks.gc_invocations += 1;
        let mut batch = std::mem::take(&mut self.cleaning.batch);
        batch.clear();
        self.cleaning.victims.clear();
        if let Err(e) = self.gather(r, count, partial, &mut batch) {
            self.cleaning.batch = batch;
            return Err(e);
        }
        if let GcSpec::Batch { .. } = self.cleaning.gc {
            let gc_stream = self.placement.streams.get(sort_buffer::GC);
            let open = gc_stream.copied().unwrap_or(Stream::closed(false, 0));
            self.cleaning
                .sort(&mut batch, &self.notes.written, &self.notes.rate, &open);
        }
        self.placement.scheme.arrange(
            &mut batch,
            &self.placement.streams,
            self.store.pps,
            &mut self.rng,
        );
        // `erase_with` prefetched the page-map entries of every gathered page. Pages are routed
        // in runs from one victim: where the scheme names one stream for a victim's pages, the
        // run is placed chunk by chunk with the stream's state held in locals.
        let mut result = Ok(());
        for pages in batch.chunk_by(|a, b| a.victim == b.victim) {
            let victim = self.cleaning.victims[pages[0].victim as usize];
            result = match self.placement.scheme.victim_stream(&victim) {
                Some(s) => self.append_run(s, pages, &victim),
                None => self.route_pages(pages, &victim),
            };
            if result.is_err() {
                break;
            }
        }
        self.cleaning.batch = batch;
        result
    }

    /// Relocates `pages`, all of `victim`, to the streams the placement names for them
    /// ([`Placement::route`](crate::placement::Placement::route)).
    // Once per victim; kept out of `clean`, whose loop is plain greedy's hot path.
    #[inline(never)]
    pub(super) fn route_pages(&mut self, pages: &[Gathered], victim: &Victim) -> Result<()> {
        let age = self.clocks.destage.saturating_sub(victim.dseq);
        let mut streams = std::mem::take(&mut self.cleaning.run_streams);
        let (class, rng) = (&self.notes.class, &mut self.rng);
        self.placement
            .route((pages, victim, age), class, rng, &mut streams);
        // Both arms append page by page, the cache-stream arm without `append_run`'s per-call
        // dispatch on the way: this loop runs once per relocated page.
        let mut pages = pages.iter().zip(&streams);
        let result = if self.admission.way == Way::CacheStreams {
            pages.try_for_each(|(g, &s)| self.pend_relocated(s as usize, g.page, victim))
        } else {
            pages.try_for_each(|(g, &s)| {
                self.append_run(s as usize, std::slice::from_ref(g), victim)
            })
        };
        self.cleaning.run_streams = streams;
        result
    }

    /// Appends relocated pages from one victim to stream `s`, sealing and opening segments as
    /// they fill: in runs as long as the segment has room for when every page takes one slot;
    /// page by page with sizes, a page that does not fit sealing the segment (G counts slots:
    /// the victim's valid count, added when it was chosen).
    #[inline]
    pub(super) fn append_run(
        &mut self,
        s: usize,
        pages: &[Gathered],
        victim: &Victim,
    ) -> Result<()> {
        if self.admission.way == Way::CacheStreams {
            return pages
                .iter()
                .try_for_each(|g| self.pend_relocated(s, g.page, victim));
        }
        let pps = self.store.pps;
        let mut done = 0;
        while done < pages.len() {
            let t = self.gc_room(s, pages[done].page)?;
            let n = if self.store.sized() {
                1
            } else {
                ((pps - self.placement.streams[t].next) as usize).min(pages.len() - done)
            };
            if !self.store.up2.is_empty() {
                let rate = &self.notes.rate;
                self.placement.streams[t].key_pages(&pages[done..done + n], victim, rate);
            }
            let f = &mut self.placement.streams[t];
            f.stamp = f.stamp.max(victim.stamp);
            f.dseq = f.dseq.max(victim.dseq);
            let (seg, start) = (f.seg, f.next);
            let taken =
                self.store
                    .place_run(seg, start, pages[done..done + n].iter().map(|g| g.page));
            let f = &mut self.placement.streams[t];
            f.next += taken;
            done += n;
            if f.next == pps {
                self.seal(t);
            }
        }
        Ok(())
    }

    /// The stream relocated `page` goes to when its placement names GC stream `s`: `s`, given a
    /// segment if it has none, sealed first if the page does not fit in what is left of its
    /// segment (sizes); or another of its region's ([`Self::open_gc`]).
    #[inline]
    pub(super) fn gc_room(&mut self, s: usize, page: u32) -> Result<usize> {
        let pps = self.store.pps;
        let size = self.store.size_of(page);
        let fits = |f: &Stream| f.next + size <= pps;
        if self.placement.streams[s].seg != NONE && !fits(&self.placement.streams[s]) {
            self.seal(s);
        }
        let mut t = s;
        if self.placement.streams[t].seg == NONE {
            t = self.open_gc(t)?;
        }
        if !fits(&self.placement.streams[t]) {
            // `open_gc` named another stream of the region, its segment too full for the page.
            self.seal(t);
            t = self.open_gc(t)?;
        }
        Ok(t)
    }

    /// Gives GC stream `s` a segment, or names another stream of its region when the region has
    /// none free: the reserve ran out (several GC streams overflowed in one cycle), and the page
    /// goes to the region's first open stream rather than stopping the run.
    #[cold]
    pub(super) fn open_gc(&mut self, s: usize) -> Result<usize> {
        let r = self.placement.streams[s].region as usize;
        if self.free(r) > 0 {
            self.take_segment(s);
            return Ok(s);
        }
        self.placement
            .streams
            .iter()
            .position(|f| f.seg != NONE && usize::from(f.region) == r)
            .ok_or(Error::NoVictim {
                free: self.store.free.len(),
                open: 0,
            })
    }
}
