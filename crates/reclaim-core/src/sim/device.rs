//! The device as the run loop sees it: the store, the streams filling its segments, which
//! region owns each segment, the victim policies that index the sealed ones, the clocks that
//! stamp them and the metrics that count what happens to them; and what changes them together:
//! taking a segment for a stream, appending relocated pages, sealing, invalidating.

use crate::clocks::Clocks;
use crate::error::{Error, Result};
use crate::ledger::Sealing;
use crate::metrics::Metrics;
use crate::placement::{Gathered, Groups, Placement, Scheme, Stream, Victim};
use crate::policy::{Policy, VictimPolicy};
use crate::rng::SimRng;
use crate::store::{Store, NONE};
use crate::time::Op;
use crate::workload::Write;

use super::Ownership;

/// The segments, the streams filling them and what keeps them.
pub(super) struct Device {
    pub(super) store: Store,
    pub(super) placement: Placement,
    /// One victim policy per region.
    pub(super) policies: Vec<Policy>,
    /// Which region owns each segment.
    pub(super) ownership: Ownership,
    pub(super) clocks: Clocks,
    /// What the run counts.
    pub(super) metrics: Metrics,
    /// See [`SimConfig::free_empty`](crate::config::SimConfig::free_empty).
    pub(super) free_empty: bool,
    /// With a device, the flash operations decided and not yet put on its clock
    /// ([`crate::time`]); `None` without one.
    pub(super) ops: Option<Vec<Op>>,
}

impl Device {
    /// The region that owns segment `seg`.
    #[inline]
    pub(super) fn region_of(&self, seg: u32) -> usize {
        self.ownership.region_of(seg)
    }

    /// The next victim of a scheme built with groups, and its group: the segment the scheme
    /// names (taken out of its group's policy), or its group policy's choice; `None` when the
    /// policy has none.
    pub(super) fn group_victim(&mut self, rng: &mut SimRng) -> Option<(u32, usize)> {
        let Placement {
            scheme, streams, ..
        } = &mut self.placement;
        let groups = Groups {
            owned: self.ownership.owned(),
            group: self.ownership.regions(),
            policies: &self.policies,
            streams,
            store: &self.store,
        };
        if let Some(seg) = scheme.segment_to_clean(&groups) {
            let g = groups.group_of(seg);
            self.policies[g].on_remove(seg, &self.store);
            return Some((seg, g));
        }
        let g = scheme.group_to_clean(&groups);
        let seg = self.policies[g].select(&self.store, &self.clocks, rng)?;
        Some((seg, g))
    }

    /// What a scheme written outside the engine raised or returned wrongly, if one did: its
    /// policy's or its placement's, taken once.
    #[cold]
    pub(super) fn outside_failure(&mut self) -> Option<Error> {
        (self.policies.iter_mut())
            .find_map(Policy::take_failure)
            .or_else(|| self.placement.scheme.take_failure())
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

    /// The stream of a user write whose page's copy is at `old` (page-map entries from `base`
    /// up name pages waiting for slots), with the copy's age where the placement reads ages.
    // Once per user write that asks its scheme; inlined into both callers whatever the size of
    // the registry's dispatch.
    #[allow(clippy::inline_always)]
    #[inline(always)]
    pub(super) fn route_user(
        &mut self,
        write: Write,
        old: u32,
        base: u32,
        rng: &mut SimRng,
    ) -> usize {
        let age = if self.placement.needs_ages() {
            self.track_age(old, base)
        } else {
            0
        };
        self.placement.scheme.user_stream(&write, age, rng)
    }

    /// Checks the store's invariants, that the streams hold exactly the open segments, and that
    /// with regions each owns exactly its segments, within quota.
    pub(super) fn check(&self) -> std::result::Result<(), String> {
        self.store.check()?;
        self.placement.check(&self.store)?;
        self.ownership.check(&self.store, &self.placement)
    }

    /// The age on the destage clock of the copy of a page at `old` that a write replaces
    /// (page-map entries from `base` up name pages waiting for slots).
    pub(super) fn track_age(&self, old: u32, base: u32) -> u64 {
        let now = self.clocks.destage;
        self.placement.age_of(&self.store, base, now, old)
    }

    /// Invalidates the page whose first slot is `slot`, telling its region's policy when its
    /// segment is sealed and freeing the segment at once when it empties under `free_empty`.
    /// A page of s slots is taken off its segment one slot at a time, each told to the policy,
    /// so that every index sees valid counts fall by one.
    #[inline]
    pub(super) fn invalidate<const SIZED: bool>(&mut self, slot: u32) {
        let (seg, sealed, size) = self.store.invalidate::<SIZED>(slot);
        if sealed {
            let r = self.region_of(seg);
            self.policies[r].on_invalidate(seg, slot, &self.store);
            if SIZED && size > 1 {
                self.drop_slots(seg, size - 1, Some(r));
            }
            let tail = if SIZED { self.store.tail_of(seg) } else { 0 };
            if self.free_empty && self.store.valid[seg as usize] == tail {
                self.release(seg, r);
            }
        } else if SIZED && size > 1 {
            self.drop_slots(seg, size - 1, None);
        }
    }

    /// Takes `n` more slots of an invalidated page off `seg`, one at a time, each told to
    /// region `r`'s policy where the segment is sealed.
    #[cold]
    #[inline(never)]
    fn drop_slots(&mut self, seg: u32, n: u32, r: Option<usize>) {
        for _ in 0..n {
            self.store.drop_slot(seg);
            if let Some(r) = r {
                self.policies[r].on_invalidate(seg, NONE, &self.store);
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
        if let Some(ops) = &mut self.ops {
            ops.push(Op::Erase {
                seg,
                region: r as u16,
            });
        }
        self.ownership.give_back(r);
        self.metrics.count_victim(0, 0);
    }

    /// With a device, the cleaner's reads of `victim`'s held pages and its erase, recorded for
    /// the clock.
    #[cold]
    #[inline(never)]
    pub(super) fn record_victim(&mut self, victim: u32, region: usize) {
        let ops = self.ops.as_mut().expect("a device");
        let region = region as u16;
        self.store.held_offsets(victim, |off| {
            ops.push(Op::Read {
                seg: victim,
                off,
                region,
            });
        });
        ops.push(Op::Erase {
            seg: victim,
            region,
        });
    }

    /// Seals stream `s`'s segment: the store marks it sealed with its age stamp, and the
    /// ledgers note what they keep of it ([`crate::ledger::Ledger::sealed`]: its destage number,
    /// its u_p2, its stream, its time …); a user stream's seal then ticks the destage clock.
    pub(super) fn seal(&mut self, s: usize) {
        let st = self.placement.streams[s];
        self.placement.streams[s] = Stream::closed(st.user, st.region);
        self.placement.seals[s] += 1;
        if self.store.sized() {
            self.store.seal_tail(st.seg, st.next);
        }
        self.store.seal(st.seg, st.stamp);
        self.store.facts.sealed(&Sealing {
            seg: st.seg,
            stream: s as u16,
            user: st.user,
            fsc_number: st.fsc_number(self.placement.clock.fsc_number),
            mean_up2: st.mean_up2(),
            clocks: self.clocks,
        });
        let r = self.region_of(st.seg);
        if st.user {
            self.clocks.destage += 1;
            for p in &mut self.policies {
                p.on_destage(self.clocks.destage, &self.store);
            }
        }
        self.policies[r].on_seal(st.seg, st.user, &self.store);
        self.placement.scheme.sealed(s, st.seg);
        self.placement.scheme.sealed_pages(st.seg, &self.store);
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

    /// Appends relocated pages from one victim to stream `s`, sealing and opening segments as
    /// they fill: in runs as long as the segment has room for when every page takes one slot;
    /// page by page with sizes, a page that does not fit sealing the segment (G counts slots:
    /// the victim's valid count, added when it was chosen).
    /// Where u_p2 is kept, the pages join their stream's mean, each by its victim's or its own
    /// exact `rate`'s key (where rates are kept).
    #[inline]
    pub(super) fn append<const SIZED: bool>(
        &mut self,
        s: usize,
        pages: &[Gathered],
        victim: &Victim,
    ) -> Result<()> {
        let pps = self.store.pps;
        let mut done = 0;
        while done < pages.len() {
            let size = if SIZED {
                self.store.size_of(pages[done].page)
            } else {
                1
            };
            let t = self.gc_room(s, size)?;
            let n = if SIZED {
                1
            } else {
                ((pps - self.placement.streams[t].next) as usize).min(pages.len() - done)
            };
            if self.store.facts.keeps_up2() {
                let rate = self.store.facts.page_rate();
                self.placement.streams[t].key_pages(&pages[done..done + n], victim, rate);
            }
            let key = self.placement.clock.fsc_number.key(victim.dseq);
            let f = &mut self.placement.streams[t];
            f.stamp = f.stamp.max(victim.stamp);
            f.contribute(key);
            let (seg, start) = (f.seg, f.next);
            let taken = self.store.place_run::<SIZED>(
                seg,
                start,
                pages[done..done + n].iter().map(|g| g.page),
            );
            self.store.facts.appended(seg, start, taken);
            if let Some(ops) = &mut self.ops {
                ops.push(Op::Program {
                    seg,
                    off: start,
                    n: taken,
                    region: self.placement.streams[t].region,
                });
            }
            let f = &mut self.placement.streams[t];
            f.next += taken;
            done += n;
            if f.next == pps {
                self.seal(t);
            }
        }
        Ok(())
    }

    /// The stream a relocated page of `size` slots goes to when its placement names GC stream `s`: `s`, given a
    /// segment if it has none, sealed first if the page does not fit in what is left of its
    /// segment (sizes); or another of its region's ([`Self::open_gc`]).
    #[inline]
    pub(super) fn gc_room(&mut self, s: usize, size: u32) -> Result<usize> {
        let f = &self.placement.streams[s];
        if f.seg != NONE && f.next + size <= self.store.pps {
            return Ok(s);
        }
        self.gc_room_elsewhere(s, size)
    }

    /// [`Self::gc_room`] when stream `s` has no segment or no room in it.
    #[cold]
    #[inline(never)]
    fn gc_room_elsewhere(&mut self, s: usize, size: u32) -> Result<usize> {
        let pps = self.store.pps;
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
    /// goes to the region's first open stream rather than stopping the run. Groups share the
    /// pool, and each has one stream: the page then goes to the first open stream of any group.
    #[cold]
    pub(super) fn open_gc(&mut self, s: usize) -> Result<usize> {
        let r = self.placement.streams[s].region as usize;
        if self.free(r) > 0 {
            self.take_segment(s);
            return Ok(s);
        }
        let groups = self.placement.groups;
        self.placement
            .streams
            .iter()
            .position(|f| f.seg != NONE && (groups || usize::from(f.region) == r))
            .ok_or(Error::NoRoom {
                stream: s,
                free: self.store.free.len(),
            })
    }

    /// Writes the `waiting` pages of cache stream `t`, a segment's worth, into a free segment
    /// of its region and seals it. The stream's stamp and destage number, gathered while the
    /// pages waited, go to the segment.
    pub(super) fn flush(&mut self, t: usize, waiting: &mut Vec<u32>) {
        let st = self.placement.streams[t];
        self.take_segment(t);
        let f = &mut self.placement.streams[t];
        (f.stamp, f.dseq, f.next) = (st.stamp, st.dseq, self.store.pps);
        let seg = f.seg;
        // A slice iterator, not `drain`: zipped with the slots it compiles to a counted loop.
        self.store
            .place_run::<false>(seg, 0, waiting.iter().copied());
        waiting.clear();
        self.seal(t);
    }

    /// [`Self::flush`] while relocating, into a free segment of the stream's region (the caller
    /// checks that one is; `Engine::gc_waiting_room` finds another stream when none is).
    #[cold]
    #[inline(never)]
    pub(super) fn flush_gc(&mut self, t: usize, waiting: &mut Vec<u32>) -> Result<()> {
        if self.free(usize::from(self.placement.streams[t].region)) == 0 {
            let free = self.store.free.len();
            return Err(Error::NoRoom { stream: t, free });
        }
        self.flush(t, waiting);
        Ok(())
    }
}
