//! Prefetching: hints that bring the lines a coming write or cleaning will touch into the cache.
//! None of them changes a result.

use super::device::Device;
use crate::cache::Cache;
use crate::policy::VictimPolicy;
use crate::rng::SimRng;
use crate::store::prefetch;

/// User writes before a stream fills at which the cleaner's next victim is guessed and its
/// lines prefetched (see [`Device::prefetch_likely_victim`]).
pub(super) const VICTIM_LEAD: u32 = 3;

impl Device {
    /// Prefetches what invalidating `page`'s current copy touches, once its page-map entry has
    /// arrived: the slot's held word, its segment's valid count and state (and destage number
    /// with `ages`) and the policy's index entry, the other misses of a user write. A page
    /// past the slots (not written, or waiting in a stream, `streams = cache`) has none.
    #[inline]
    pub(super) fn prefetch_old_copy(&self, page: u32, ages: bool) {
        if let Some(seg) = self.store.prefetch_copy(page, ages) {
            self.policies[self.region_of(seg)].prefetch(seg, page);
        }
    }

    /// Prefetches for the pages a write cache's next misses will evict, its least recently
    /// used: the page-map entry of the second, and what invalidating the first's copy touches
    /// (the page-map entry having been brought a write earlier).
    #[inline]
    pub(super) fn prefetch_evictions(&self, cache: &Cache, ages: bool) {
        let (near, far) = cache.lru_pages(1, 2);
        if let Some(page) = far {
            prefetch(&self.store.page_map[page as usize]);
        }
        if let Some(page) = near {
            self.prefetch_old_copy(page, ages);
        }
    }

    /// The third stage of the prefetch pipeline: the policy's index entries that
    /// `on_invalidate` will touch for `page`'s current copy, found by reading its segment's
    /// valid count and index position (brought by [`Self::prefetch_old_copy`]). Always inlined:
    /// a call costs more than the few loads it issues, on the path of every user write (with a
    /// second caller, `log_writes`, the compiler outlined it: +0.6% instructions, measured).
    #[allow(clippy::inline_always)]
    #[inline(always)]
    pub(super) fn prefetch_index_entry(&self, page: u32) {
        if let Some((_, seg)) = self.store.copy_of(page) {
            self.policies[self.region_of(seg)].prefetch_entry(seg, &self.store);
        }
    }

    /// Stream `s` is a few user writes from full, when sealing it may call the cleaner: the
    /// victim its policy would choose now, very likely the one it will choose then, has its
    /// lines prefetched, so that choosing it finds them in the cache and its pages' page-map
    /// entries can be prefetched at once.
    #[cold]
    #[inline(never)]
    pub(super) fn prefetch_likely_victim(&self, s: usize, rng: &SimRng) {
        let r = usize::from(self.placement.streams[s].region);
        if let Some(seg) = self.policies[r].likely_victim(&self.store, rng) {
            self.store.prefetch_victim(seg);
        }
    }

    /// Region `r`'s cleaner has chosen a victim and is about to relocate its pages, which may
    /// fill a GC stream and so call the cleaner again at once (a burst of cleanings follows each
    /// user seal under greedy: 4.8 victims at b = 64, spare 0.10): the victim its policy would
    /// choose next has its lines prefetched, so that they arrive while this victim's pages are
    /// written. [`Self::prefetch_likely_victim`] covers only a burst's first victim.
    #[inline(never)]
    pub(super) fn prefetch_next_victim(&self, r: usize, rng: &SimRng) {
        if let Some(seg) = self.policies[r].likely_victim(&self.store, rng) {
            self.store.prefetch_victim(seg);
        }
    }
}
