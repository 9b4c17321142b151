//! How a written page is admitted to its stream ([`Admission`]): at once, one slot (direct) or
//! several (`--sizes`), or after waiting in a cache stream or the sort buffer. The admission owns
//! the waiting pages; the run loop matches its way once on a user write
//! ([`Simulator::store_write`]) and once on relocation ([`Simulator::append_run`]).

use super::Engine;
use crate::config::FreqSource;
use crate::error::{Error, Result};
use crate::placement::sort_buffer::exact_key;
use crate::placement::sort_buffer::{self, FIRST};
use crate::placement::{Placement, Victim};
use crate::store::{Store, NONE};
use crate::workload::{Rate, Write};

/// The ways a written page gets its slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Way {
    /// A page takes its slots in its stream's open segment as it is written: one, or with
    /// `sized` (`--sizes`) its size.
    Direct {
        /// Whether pages have sizes (the store's; read here once per write).
        sized: bool,
    },
    /// Pages wait in their stream until a segment's worth has gathered, then take a free
    /// segment together; a rewrite of a waiting page takes it out (`streams = cache`,
    /// Stockmeyer §2.3).
    CacheStreams,
    /// User writes wait in the sort buffer, written out sorted when it is full (Lomet & Luo
    /// §5.3); relocated pages are admitted directly.
    SortBuffer,
}

/// How written pages are admitted, and the pages that wait.
#[derive(Clone, Debug)]
pub struct Admission {
    /// The way.
    pub way: Way,
    /// Per stream, the pages waiting for slots, oldest first (`CacheStreams`; else empty).
    pub waiting: Vec<Vec<u32>>,
    /// The sort buffer (`SortBuffer`; else `None`).
    pub buffer: Option<sort_buffer::SortBuffer>,
    /// Page-map entries from here up name waiting pages: stream t's i-th waiting page is
    /// `base + t·b + i`, the buffer's i-th page `base + i`.
    pub base: u32,
}

impl Admission {
    /// Pages waiting for slots, in streams or in the buffer (dead buffer entries apart).
    pub fn waiting_pages(&self) -> u64 {
        let streams: usize = self.waiting.iter().map(Vec::len).sum();
        let buffered = self
            .buffer
            .as_ref()
            .map_or(0, |b| b.pages.iter().filter(|&&p| p != NONE).count());
        (streams + buffered) as u64
    }

    /// Adds `page` to stream `t`'s waiting pages (fewer than a segment's worth wait), naming
    /// its place in the page map.
    #[inline]
    pub fn pend(&mut self, t: usize, page: u32, store: &mut Store) {
        let waiting = &mut self.waiting[t];
        debug_assert!(waiting.len() < store.pps as usize);
        store.page_map[page as usize] = self.base + t as u32 * store.pps + waiting.len() as u32;
        waiting.push(page);
    }

    /// Takes the page at waiting place `at` out of its stream; the stream's last page takes its
    /// place (order inside a segment carries no meaning).
    #[inline]
    pub fn unpend(&mut self, at: u32, store: &mut Store) {
        let (t, i) = ((at - self.base) / store.pps, (at - self.base) % store.pps);
        let waiting = &mut self.waiting[t as usize];
        waiting.swap_remove(i as usize);
        if let Some(&moved) = waiting.get(i as usize) {
            store.page_map[moved as usize] = at;
        }
    }

    /// The u_p2 a user write takes into the sort buffer at `now` [user writes] (Lomet & Luo
    /// §5.2.2): with `freq=exact`, its rate's key (see `policy::mdc`); a first write's,
    /// [`FIRST`] (settled when the buffer is written); a rewrite's, `old + ½·(now − old)`, old
    /// the u_p2 of the previous copy (at `old`: in a segment, or in the buffer).
    pub fn buffer_key(
        &self,
        (rate, old): (Rate, u32),
        now: u64,
        freq: FreqSource,
        store: &Store,
        placement: &Placement,
    ) -> f64 {
        let now = now as f64;
        let carried = |old: f64| {
            if old.is_nan() {
                FIRST
            } else {
                old + 0.5 * (now - old)
            }
        };
        match (freq, old) {
            (FreqSource::Exact, _) => exact_key(rate),
            (FreqSource::Estimate, NONE) => FIRST,
            (FreqSource::Estimate, _) if old >= self.base => {
                let buffer = self.buffer.as_ref().expect("buffered");
                carried(buffer.keys[(old - self.base) as usize])
            }
            (FreqSource::Estimate, _) => carried(placement.up2_of_slot(store, old)),
        }
    }

    /// Takes the buffered copy at `at` out of the buffer (dead in place, or replaced by the
    /// last entry, whose page-map entry follows it).
    pub fn unbuffer(&mut self, at: u32, store: &mut Store) {
        let buffer = self.buffer.as_mut().expect("buffered");
        if let Some(moved) = buffer.drop_entry((at - self.base) as usize) {
            store.page_map[moved as usize] = at;
        }
    }

    /// Adds `page` with its u_p2 `key` to the sort buffer, naming its place in the page map;
    /// returns whether the buffer is full.
    pub fn buffer_page(&mut self, page: u32, key: f64, store: &mut Store) -> bool {
        let buffer = self.buffer.as_mut().expect("buffered");
        store.page_map[page as usize] = self.base + buffer.pages.len() as u32;
        buffer.pages.push(page);
        buffer.keys.push(key);
        if let Some(&size) = store.size.get(page as usize) {
            buffer.push_size(size);
        }
        buffer.is_full()
    }

    /// Checks that no stream holds more than a segment's worth of waiting pages, that every
    /// waiting page (in a stream or the buffer) maps to its place, and that no other page-map
    /// entry names a waiting place.
    pub fn check(&self, store: &Store) -> std::result::Result<(), String> {
        let pps = store.pps;
        let mut waiting = 0usize;
        for (t, pages) in self.waiting.iter().enumerate() {
            if pages.len() > pps as usize {
                return Err(format!(
                    "stream {t} holds {} waiting pages, more than a segment's worth",
                    pages.len()
                ));
            }
            for (i, &page) in pages.iter().enumerate() {
                let at = self.base + t as u32 * pps + i as u32;
                if store.page_map[page as usize] != at {
                    return Err(format!(
                        "page {page} waits in stream {t} at {i}, but maps to {}",
                        store.page_map[page as usize]
                    ));
                }
            }
            waiting += pages.len();
        }
        if let Some(buffer) = &self.buffer {
            if buffer.pages.len() >= buffer.capacity {
                return Err(format!(
                    "the sort buffer holds {} pages, its capacity is {}",
                    buffer.pages.len(),
                    buffer.capacity
                ));
            }
            for (i, &page) in buffer.pages.iter().enumerate() {
                if page == NONE {
                    continue;
                }
                if store.page_map[page as usize] != self.base + i as u32 {
                    return Err(format!(
                        "page {page} is in the sort buffer at {i}, but maps to {}",
                        store.page_map[page as usize]
                    ));
                }
                waiting += 1;
            }
        }
        let named = store
            .page_map
            .iter()
            .filter(|&&e| e != NONE && e >= self.base)
            .count();
        if named != waiting {
            return Err(format!(
                "{named} pages map to a stream, {waiting} wait in one"
            ));
        }
        Ok(())
    }
}

impl Engine {
    /// `sort-buffer`: a user write joins the buffer with its u_p2
    /// ([`Admission::buffer_key`]), its previous copy taken out of a segment or of the buffer.
    /// A full buffer is written out.
    #[inline(never)]
    pub(super) fn store_write_buffered(&mut self, write: Write) -> Result<()> {
        let page = write.page;
        let old = self.dev.store.page_map[page as usize];
        let key = self.admission.buffer_key(
            (write.rate, old),
            self.dev.clocks.user_writes,
            self.freq,
            &self.dev.store,
            &self.dev.placement,
        );
        match old {
            NONE => {}
            _ if old >= self.admission.base => self.admission.unbuffer(old, &mut self.dev.store),
            _ if self.dev.store.sized() => self.dev.invalidate::<true>(old),
            _ => self.dev.invalidate::<false>(old),
        }
        self.count_waiting_write(write);
        if self.admission.buffer_page(page, key, &mut self.dev.store) {
            if self.dev.store.sized() {
                self.flush_buffer::<true>()?;
            } else {
                self.flush_buffer::<false>()?;
            }
        }
        Ok(())
    }

    /// A user write that waits for its slot (cache stream or sort buffer) is counted: its
    /// per-page notes, the user-write clock, the counter (U counts slots) and the cleaner's
    /// progress.
    #[inline]
    pub(super) fn count_waiting_write(&mut self, write: Write) {
        if self.user_writes.on {
            self.note_user_write(write, None);
        }
        self.dev.clocks.user_writes += 1;
        self.dev.metrics.counters.user_writes += u64::from(self.dev.store.size_of(write.page));
        self.cleaning.streak = 0;
    }

    /// Writes the full sort buffer out through the user stream, in the order
    /// [`sort_buffer::SortBuffer::drain`] gives: each page into the stream's segment if it fits
    /// and into the next one otherwise; a dead entry keeps its page's room (it takes invalid
    /// slots). A segment takes the mean u_p2 of its live pages. Opening each segment may clean
    /// (relocation goes to the GC stream, never to the buffer's pages, which hold no slots).
    /// Without sizes a buffer is a whole number of segments and every one is filled and
    /// sealed; with sizes the last stays open for the next batch unless it is full (`SIZED`
    /// as for [`Store::place`](crate::store::Store::place)).
    // Once per buffer of user writes: kept out of the per-write path that calls it.
    #[cold]
    #[inline(never)]
    pub(super) fn flush_buffer<const SIZED: bool>(&mut self) -> Result<()> {
        let mut buffer = self.admission.buffer.take().expect("buffered");
        let result = self.write_out::<SIZED>(buffer.drain());
        self.admission.buffer = Some(buffer);
        result
    }

    /// Writes `order` (key, page, size) through the user stream, a segment at a time: the
    /// stream is given a segment with room for the next page ([`Self::user_room`], which may
    /// clean), then takes the pages that fit in it, and is sealed when full.
    fn write_out<const SIZED: bool>(&mut self, order: &[(f64, u32, u16)]) -> Result<()> {
        const U: usize = sort_buffer::USER;
        let (pps, now) = (self.dev.store.pps, self.dev.clocks.user_writes);
        let mut rest = order;
        while let Some(&(_, _, size)) = rest.first() {
            let f = &self.dev.placement.streams[U];
            if f.seg == NONE || (SIZED && f.next + u32::from(size) > pps) {
                self.user_room(U, u32::from(size))?;
            }
            // The segment's fill in locals: its mean u_p2 summed in the order written, as a
            // page at a time would.
            let (store, f) = (&mut self.dev.store, &mut self.dev.placement.streams[U]);
            let (first, mut next, mut sum, mut live) =
                (f.seg * pps, f.next, f.up2_sum, f.up2_pages);
            let mut taken = 0;
            for &(key, page, size) in rest {
                let size = if SIZED { u32::from(size) } else { 1 };
                if next + size > pps {
                    break;
                }
                if page != NONE {
                    sum += key;
                    live += 1;
                    store.place::<SIZED>(page, first + next);
                }
                next += size;
                taken += 1;
            }
            (f.next, f.up2_sum, f.up2_pages, f.stamp) = (next, sum, live, now);
            rest = &rest[taken..];
            if next == pps {
                self.dev.seal(U);
            }
        }
        Ok(())
    }

    /// `streams = cache`: a user write waits in its stream; a rewrite of a waiting page takes
    /// it out of its stream instead of leaving a hole (Stockmeyer §2.3). A stream is written out
    /// when a page arrives and finds it full, user and relocated pages alike.
    #[inline(never)]
    pub(super) fn store_write_pending(&mut self, write: Write) -> Result<()> {
        let page = write.page;
        let old = self.dev.store.page_map[page as usize];
        let s = self
            .dev
            .route_user(write, old, self.admission.base, &mut self.rng);
        if old != NONE {
            if old >= self.admission.base {
                self.admission.unpend(old, &mut self.dev.store);
            } else {
                self.dev.invalidate::<false>(old);
            }
        }
        self.count_waiting_write(write);
        if self.admission.waiting[s].len() == self.dev.store.pps as usize {
            // The page's old slot is invalid and may be reused by relocation meanwhile.
            self.dev.store.page_map[page as usize] = NONE;
            self.flush_user(s)?;
        }
        self.dev.placement.streams[s].stamp = self.dev.clocks.user_writes - 1;
        self.admission.pend(s, page, &mut self.dev.store);
        Ok(())
    }

    /// User stream `s` holds a segment's worth and a page arrives: its pages are written as a
    /// stream's segment is opened ([`Self::open_with`]).
    pub(super) fn flush_user(&mut self, s: usize) -> Result<()> {
        let room =
            |sim: &Self, s: usize| sim.admission.waiting[s].len() < sim.dev.store.pps as usize;
        let flush = |sim: &mut Self, t: usize| sim.dev.flush(t, &mut sim.admission.waiting[t]);
        self.open_with(s, room, flush)
    }

    /// `streams = cache`: a relocated page of `victim` (whose destage number's
    /// [`FscNumber::key`](crate::placement::FscNumber::key) is `key`) waits in stream `s`. A
    /// stream is written out when a page arrives and finds it full, not as it fills: a full
    /// victim's pages, moved whole, then need one segment, the victim's own. With no segment
    /// free the page waits in another stream ([`Self::gc_waiting_room`]).
    #[allow(clippy::inline_always)] // measured: once per relocated page
    #[inline(always)]
    pub(super) fn pend_relocated(
        &mut self,
        s: usize,
        page: u32,
        victim: &Victim,
        key: u64,
    ) -> Result<()> {
        let s = if self.admission.waiting[s].len() == self.dev.store.pps as usize {
            self.gc_waiting_room(s)?
        } else {
            s
        };
        let f = &mut self.dev.placement.streams[s];
        f.stamp = f.stamp.max(victim.stamp);
        f.contribute(key);
        self.admission.pend(s, page, &mut self.dev.store);
        Ok(())
    }

    /// The stream a relocated page bound for full cache stream `s` waits in: `s`, written out
    /// into a free segment of its region ([`Device::flush_gc`](super::device::Device::flush_gc));
    /// or, with none free, the region's first stream with room (any group's, as
    /// [`Device::open_gc`](super::device::Device::open_gc) does for open segments). The cycle's
    /// victims, erased before their pages are routed, free a segment each and bring at most a
    /// segment's worth each, so a stream written out in the cycle has room for what is left.
    /// None is free when cleaning continues below the reserve: cycles that wrote out more
    /// streams than they had victims each lowered the free count (user writes fill the streams
    /// without taking segments, so the reserve does not cover every stream being full).
    #[cold]
    #[inline(never)]
    fn gc_waiting_room(&mut self, s: usize) -> Result<usize> {
        let r = self.dev.placement.streams[s].region;
        if self.dev.free(usize::from(r)) > 0 {
            self.dev.flush_gc(s, &mut self.admission.waiting[s])?;
            return Ok(s);
        }
        let (pps, groups) = (self.dev.store.pps as usize, self.dev.placement.groups);
        let streams = &self.dev.placement.streams;
        (streams.iter().zip(&self.admission.waiting))
            .position(|(f, w)| w.len() < pps && (groups || f.region == r))
            .ok_or(Error::NoRoom {
                stream: s,
                free: self.dev.store.free.len(),
            })
    }
}
