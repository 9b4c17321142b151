//! The core of the run loop, whole: a user write → its stream → seal → open → clean → append.

use super::admission::Way;
use super::prefetch::VICTIM_LEAD;
use super::Engine;
use crate::config::{Gather, GcSpec, Until};
use crate::error::{Error, Result};
use crate::placement::sort_buffer::{self, exact_key};
use crate::placement::{Gathered, Scheme, Stream, Victim};
use crate::policy::VictimPolicy;
use crate::store::NONE;
use crate::workload::Write;

impl Engine {
    /// One workload write, through the write cache if there is one.
    #[inline]
    pub fn user_write(&mut self, write: Write) -> Result<()> {
        let write = match &mut self.cache {
            None => write,
            Some(cache) => match cache.pass(write, &mut self.dev.metrics.counters) {
                Some(evicted) => evicted,
                None => return Ok(()),
            },
        };
        self.store_write(write)
    }

    /// A user write reaching the store: a page of [`Store::size_of`] slots appended to its
    /// stream's open segment, sealing it first when the page does not fit in what is left
    /// (Lomet & Luo §4.4; U counts slots), then its old copy invalidated.
    ///
    /// [`Store::size_of`]: crate::store::Store::size_of
    #[inline]
    pub(super) fn store_write(&mut self, write: Write) -> Result<()> {
        // Tests, not a `match` (a jump table on the hot path): the direct way first.
        if let Way::Direct { sized } = self.admission.way {
            if sized {
                self.append_user::<true>(write)
            } else {
                self.append_user::<false>(write)
            }
        } else if self.admission.way == Way::CacheStreams {
            self.store_write_pending(write)
        } else {
            self.store_write_buffered(write)
        }
    }

    /// [`Self::store_write`]'s direct way: `SIZED` says whether pages have sizes, a constant so
    /// that a run whose pages take one slot each pays nothing for them.
    #[inline]
    fn append_user<const SIZED: bool>(&mut self, write: Write) -> Result<()> {
        let page = write.page;
        let size = if SIZED {
            self.dev.store.size_of(page)
        } else {
            1
        };
        // A scheme of one user stream is not asked (Scheme::one_user_stream).
        let s = match self.dev.placement.one_user {
            Some(s) => usize::from(s),
            None => self.dev.route_user(
                write,
                self.dev.store.page_map[page as usize],
                self.admission.base,
                &mut self.rng,
            ),
        };
        let (slot, next) = self.user_slot::<SIZED>(s, size)?;
        let pps = self.dev.store.pps;
        let full = next == pps;
        if next + VICTIM_LEAD == pps {
            self.dev.prefetch_likely_victim(s, &self.rng);
        }
        if self.user_writes.on {
            self.note_user_write(write, Some(s));
        }
        // Read after opening, which may have cleaned and moved the page's current copy.
        let old = self.dev.store.page_map[page as usize];
        self.dev.store.place::<SIZED>(page, slot);
        if old != NONE {
            self.dev.invalidate::<SIZED>(old);
        }
        self.dev.clocks.user_writes += 1;
        self.dev.metrics.counters.user_writes += u64::from(size);
        self.cleaning.streak = 0;
        if full {
            self.dev.seal(s);
            self.open_stream(s)?;
        }
        Ok(())
    }

    /// A place of `size` slots in user stream `s`'s open segment, its first slot returned with
    /// the stream's next offset after it (`SIZED` as for [`Store::place`](crate::store::Store::place)): the
    /// stream is given a segment if it has none, and its segment is sealed first when the page
    /// does not fit in what is left, the rest of it unused. Opening may clean, and relocation
    /// into a stream shared with user writes may fill the new segment in turn.
    #[inline]
    pub(super) fn user_slot<const SIZED: bool>(
        &mut self,
        s: usize,
        size: u32,
    ) -> Result<(u32, u32)> {
        let (pps, now) = (self.dev.store.pps, self.dev.clocks.user_writes);
        let f = &mut self.dev.placement.streams[s];
        // Without sizes an open segment always has room: a full one is sealed at once.
        if f.seg == NONE || (SIZED && f.next + size > pps) {
            self.user_room(s, size)?;
            return self.user_slot::<false>(s, size);
        }
        let slot = f.seg * pps + f.next;
        f.next += size;
        f.stamp = now;
        Ok((slot, f.next))
    }

    /// Gives user stream `s` an open segment with room for `size` slots (see
    /// [`Self::user_slot`]).
    #[cold]
    #[inline(never)]
    pub(super) fn user_room(&mut self, s: usize, size: u32) -> Result<()> {
        loop {
            let f = &self.dev.placement.streams[s];
            if f.seg != NONE && f.next + size <= self.dev.store.pps {
                return Ok(());
            }
            if f.seg != NONE {
                self.dev.seal(s);
            }
            self.open_stream(s)?;
        }
    }

    /// The per-page metadata a user write updates, where kept: its class, its rate and its
    /// time; and, MDC-opt without a sort buffer (the configuration allows no other case where
    /// u_p2 is kept and a user write takes its slot at once), its key joins its stream's mean.
    #[cold]
    #[inline(never)]
    pub(super) fn note_user_write(&mut self, write: Write, stream: Option<usize>) {
        if let Some(s) = stream.filter(|_| self.dev.store.facts.keeps_up2()) {
            self.dev.placement.streams[s].add_key(exact_key(write.rate));
        }
        self.dev
            .store
            .facts
            .user_write(write, self.dev.clocks.user_writes);
        if self.user_writes.policy {
            self.tell_policy(write.page);
        }
    }

    /// The policy that keeps per-page state told of a user write of `page` (one region).
    // Out of line: inlined, the registry's dispatch made `note_user_write` dearer for the
    // configurations that note writes without it (MDC +0.5% instructions).
    #[inline(never)]
    fn tell_policy(&mut self, page: u32) {
        let now = self.dev.clocks.trace_time;
        self.dev.policies[0].on_user_write(page, now, &self.dev.store);
    }

    /// Opens stream `s`, cleaning its region as the trigger demands.
    pub(super) fn open_stream(&mut self, s: usize) -> Result<()> {
        let open = |sim: &Self, s: usize| sim.dev.placement.streams[s].seg != NONE;
        self.open_with(s, open, |sim: &mut Self, s| sim.dev.take_segment(s))
    }

    /// Appends relocated pages from one victim to stream `s` ([`Device::append`]), or with
    /// cache streams has them wait there.
    ///
    /// [`Device::append`]: super::device::Device::append
    #[inline]
    pub(super) fn append_run(
        &mut self,
        s: usize,
        pages: &[Gathered],
        victim: &Victim,
    ) -> Result<()> {
        if self.admission.way == Way::CacheStreams {
            let key = self.dev.placement.clock.fsc_number.key(victim.dseq);
            return pages
                .iter()
                .try_for_each(|g| self.pend_relocated(s, g.page, victim, key));
        }
        if self.dev.store.sized() {
            self.dev.append::<true>(s, pages, victim)
        } else {
            self.dev.append::<false>(s, pages, victim)
        }
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
        let r = self.dev.placement.streams[s].region as usize;
        let reserve = self.dev.reserve(r);
        loop {
            while !ready(self, s) {
                if self.dev.free(r) <= reserve {
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
        if let Some(log) = &self.cleaning.log {
            // A log is never cleaned for space (`method::log`).
            return Err(log.outgrown(self.geometry.segments, self.geometry.pages_per_segment));
        }
        if let GcSpec::MaxEmpty { k } = self.cleaning.gc {
            // Stockmeyer §2.3: clean until MaxEmpty segments are free, then write.
            let reserve = self.dev.reserve(r);
            while self.dev.free(r) < reserve + k as usize {
                self.clean(r, 1, false)?;
            }
            Ok(())
        } else {
            self.clean(r, 1, false)
        }
    }

    /// A stream of region `r` has just taken a segment: clean as the trigger asks.
    pub(super) fn after_open(&mut self, r: usize) -> Result<()> {
        let reserve = self.dev.reserve(r);
        match self.cleaning.gc {
            GcSpec::Frontier | GcSpec::MaxEmpty { .. } => {}
            GcSpec::OneFree => {
                while self.dev.free(r) <= reserve {
                    self.clean(r, 1, false)?;
                }
            }
            GcSpec::Batch { low, .. } if self.dev.free(r) >= low as usize + reserve => {}
            GcSpec::Batch {
                low,
                victims,
                until,
                gather,
                ..
            } => loop {
                if gather == Gather::Each {
                    for _ in 0..victims {
                        if self.dev.store.sealed.is_empty() {
                            break;
                        }
                        self.clean(r, 1, false)?;
                    }
                } else {
                    self.clean(r, victims, true)?;
                }
                // `until=low`: again while fewer than `low` are free and a victim is left.
                if until == Until::Cycle
                    || self.dev.free(r) >= low as usize + reserve
                    || self.dev.store.sealed.is_empty()
                {
                    break;
                }
            },
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
            if partial && i > 0 && self.dev.store.sealed.is_empty() {
                break;
            }
            self.cleaning.streak += 1;
            if self.cleaning.streak > self.cleaning.streak_limit {
                return Err(self
                    .cleaning
                    .no_progress(&self.geometry, &self.dev.placement));
            }
            self.dev.metrics.count_epoch(&self.dev.store.sealed_hist);
            let chosen = if self.dev.placement.groups {
                self.dev.group_victim(&mut self.rng)
            } else {
                (self.dev.policies[r].select(&self.dev.store, &self.dev.clocks, &mut self.rng))
                    .map(|seg| (seg, r))
            };
            let Some((victim, r)) = chosen else {
                if let Some(e) = self.dev.outside_failure() {
                    return Err(e);
                }
                if partial && i > 0 {
                    break;
                }
                let (free, open) = (self.dev.store.free.len(), self.dev.placement.open_streams());
                return Err(Error::NoVictim { free, open });
            };
            self.dev.store.prefetch_victim(victim);
            // A policy's index must hold only sealed segments (`on_remove` keeps it so).
            assert_eq!(
                self.dev.store.state[victim as usize],
                crate::store::SegState::Sealed,
                "the victim policy chose segment {victim}, which is not sealed"
            );
            // With sizes, a tail no page fitted in is counted as held, and is not written.
            let valid = self.dev.store.valid[victim as usize];
            self.dev
                .metrics
                .count_victim(valid, self.dev.store.tail_of(victim));
            let index = self.cleaning.victims.len() as u32;
            let chosen = Victim::of(victim, r as u16, &self.dev.store);
            self.dev.placement.scheme.collected(&chosen);
            self.cleaning.victims.push(chosen);
            let gathered = |page| Gathered {
                page,
                victim: index,
            };
            let first = batch.len();
            if self.dev.ops.is_some() {
                self.dev.record_victim(victim, r);
            }
            self.dev
                .store
                .erase_with(victim, |page| batch.push(gathered(page)));
            // Where rates are kept, the batch's sort and the GC stream's mean read each
            // gathered page's, from an array as large as the logical space: fetch them now.
            let rate = self.dev.store.facts.page_rate();
            if !rate.is_empty() {
                for g in &batch[first..] {
                    crate::store::prefetch(&rate[g.page as usize]);
                }
            }
            self.dev.ownership.give_back(r);
        }
        Ok(())
    }

    /// One cleaning cycle in region `r`: up to `count` victims chosen and erased one by one,
    /// their live pages gathered, sorted by the trigger's key, arranged by the placement and
    /// routed. With `partial`, the cycle ends early when no sealed segment is left.
    pub(super) fn clean(&mut self, r: usize, count: u32, partial: bool) -> Result<()> {
        self.dev.clocks.gc_invocations += 1;
        let mut batch = std::mem::take(&mut self.cleaning.batch);
        batch.clear();
        self.cleaning.victims.clear();
        if let Err(e) = self.gather(r, count, partial, &mut batch) {
            self.cleaning.batch = batch;
            return Err(e);
        }
        if let GcSpec::Batch { .. } = self.cleaning.gc {
            let gc_stream = self.dev.placement.streams.get(sort_buffer::GC);
            let open = gc_stream.copied().unwrap_or(Stream::closed(false, 0));
            self.cleaning.sort(&mut batch, &self.dev.store.facts, &open);
        }
        self.dev.placement.scheme.arrange(
            &mut batch,
            &self.dev.placement.streams,
            self.dev.store.pps,
            &mut self.rng,
        );
        self.dev.prefetch_next_victim(r, &self.rng);
        // `erase_with` prefetched the page-map entries of every gathered page. Pages are routed
        // in runs from one victim: where the scheme names one stream for a victim's pages, the
        // run is placed chunk by chunk with the stream's state held in locals.
        // (A counted run, not `chunk_by`, whose per-page comparison costs more on this path.)
        let (mut result, mut i) = (Ok(()), 0);
        while i < batch.len() && result.is_ok() {
            let victim = self.cleaning.victims[batch[i].victim as usize];
            let run = batch[i..]
                .iter()
                .take_while(|g| g.victim == batch[i].victim)
                .count();
            let pages = &batch[i..i + run];
            result = match self.dev.placement.scheme.victim_stream(&victim) {
                Some(s) => self.append_run(s, pages, &victim),
                None => self.route_pages(pages, &victim),
            };
            i += run;
        }
        self.cleaning.batch = batch;
        result
    }

    /// Relocates `pages`, all of `victim`, to the streams the placement names for them
    /// ([`Placement::route`](crate::placement::Placement::route)).
    // Once per victim; kept out of `clean`, whose loop is plain greedy's hot path.
    #[inline(never)]
    pub(super) fn route_pages(&mut self, pages: &[Gathered], victim: &Victim) -> Result<()> {
        let age = self.dev.clocks.destage.saturating_sub(victim.dseq);
        let mut streams = std::mem::take(&mut self.cleaning.run_streams);
        let (class, rng) = (self.dev.store.facts.page_class(), &mut self.rng);
        self.dev
            .placement
            .route((pages, victim, age), class, rng, &mut streams);
        // The cache-stream arm pends page by page, without `append_run`'s per-call dispatch on
        // the way (this loop runs once per relocated page); the other is kept out of line, so
        // that this loop stays as tight.
        let result = if self.admission.way == Way::CacheStreams {
            let key = self.dev.placement.clock.fsc_number.key(victim.dseq);
            (pages.iter().zip(&streams))
                .try_for_each(|(g, &s)| self.pend_relocated(s as usize, g.page, victim, key))
        } else {
            self.append_routed(pages, &streams, victim)
        };
        self.cleaning.run_streams = streams;
        result
    }
    /// Appends `pages` of `victim` to their `streams`, each run of consecutive pages bound for
    /// one stream at once, which places them as page by page would. Where u_p2 is kept it goes
    /// page by page, so that each page's key is added to its stream's sum in turn (a run's keys
    /// are summed first: other bits).
    #[inline(never)]
    fn append_routed(
        &mut self,
        pages: &[Gathered],
        streams: &[u32],
        victim: &Victim,
    ) -> Result<()> {
        if self.dev.store.facts.keeps_up2() {
            return (pages.iter().zip(streams)).try_for_each(|(g, &s)| {
                self.append_run(s as usize, std::slice::from_ref(g), victim)
            });
        }
        let mut i = 0;
        while i < pages.len() {
            let s = streams[i];
            let n = streams[i..].iter().take_while(|&&t| t == s).count();
            self.append_run(s as usize, &pages[i..i + n], victim)?;
            i += n;
        }
        Ok(())
    }
}
