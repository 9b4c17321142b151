//! Which region owns each segment, and how many segments each region owns: the bookkeeping of
//! `regions` (Li et al. §4), trivial with one region.

use crate::placement::Placement;
use crate::store::{SegState, Store};

/// Which region owns each segment (open or sealed), and how many each owns.
pub(super) struct Ownership {
    /// Region of each segment; empty with one region.
    region: Vec<u16>,
    /// Segments owned (open or sealed) per region.
    owned: Vec<u32>,
}

impl Ownership {
    /// No segment owned, among `regions` regions of a device of `segments` segments.
    pub(super) fn new(regions: usize, segments: u32) -> Self {
        Ownership {
            region: if regions > 1 {
                vec![0; segments as usize]
            } else {
                Vec::new()
            },
            owned: vec![0; regions],
        }
    }

    /// The region that owns segment `seg`.
    #[inline]
    pub(super) fn region_of(&self, seg: u32) -> usize {
        if self.region.is_empty() {
            0
        } else {
            self.region[seg as usize] as usize
        }
    }

    /// Free segments of region `r`: the pool, or the region's quota less what it owns.
    #[inline]
    pub(super) fn free(&self, r: usize, store: &Store, placement: &Placement) -> usize {
        if self.region.is_empty() || placement.groups {
            store.free.len()
        } else {
            (placement.regions[r].quota - self.owned[r]) as usize
        }
    }

    /// Segments owned per region.
    pub(super) fn owned(&self) -> &[u32] {
        &self.owned
    }

    /// The region of each segment (empty with one region).
    pub(super) fn regions(&self) -> &[u16] {
        &self.region
    }

    /// Region `r` takes segment `seg` from the pool.
    #[inline]
    pub(super) fn take(&mut self, seg: u32, r: u16) {
        if !self.region.is_empty() {
            self.region[seg as usize] = r;
        }
        self.owned[r as usize] += 1;
    }

    /// Region `r` gives a segment back to the pool (erased).
    #[inline]
    pub(super) fn give_back(&mut self, r: usize) {
        self.owned[r] -= 1;
    }

    /// Checks that with regions, each owns exactly the segments marked as its own, within its
    /// quota.
    pub(super) fn check(&self, store: &Store, placement: &Placement) -> Result<(), String> {
        if self.region.is_empty() {
            return Ok(());
        }
        let mut owned = vec![0u32; self.owned.len()];
        for (seg, state) in store.state.iter().enumerate() {
            if *state != SegState::Free {
                owned[self.region[seg] as usize] += 1;
            }
        }
        if owned != self.owned {
            return Err(format!(
                "regions own {owned:?} segments, counted {:?}",
                self.owned
            ));
        }
        if placement.groups {
            // Groups share the pool: no quota.
            return Ok(());
        }
        for (r, (o, region)) in owned.iter().zip(&placement.regions).enumerate() {
            if *o > region.quota {
                return Err(format!(
                    "region {r} owns {o} segments, over its quota {}",
                    region.quota
                ));
            }
        }
        Ok(())
    }
}
