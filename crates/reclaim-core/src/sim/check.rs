//! The engine's invariants, checked on demand ([`Simulator::check`]): the property tests call it
//! after every step.

use super::Simulator;
use crate::store::NONE;

impl Simulator {
    /// Checks the store's invariants and the placement's: every open stream's segment is open,
    /// and with regions, each region owns exactly the segments marked as its own, within quota.
    pub fn check(&self) -> std::result::Result<(), String> {
        self.store.check()?;
        let open = self
            .store
            .state
            .iter()
            .filter(|s| **s == crate::store::SegState::Open)
            .count();
        let streams = self
            .placement
            .streams
            .iter()
            .filter(|s| s.seg != NONE)
            .count();
        if open != streams {
            return Err(format!(
                "{open} open segments but {streams} streams hold one"
            ));
        }
        let mut waiting = 0usize;
        for (t, pages) in self.admission.waiting.iter().enumerate() {
            if pages.len() > self.store.pps as usize {
                return Err(format!(
                    "stream {t} holds {} waiting pages, more than a segment's worth",
                    pages.len()
                ));
            }
            for (i, &page) in pages.iter().enumerate() {
                let at = self.admission.base + t as u32 * self.store.pps + i as u32;
                if self.store.page_map[page as usize] != at {
                    return Err(format!(
                        "page {page} waits in stream {t} at {i}, but maps to {}",
                        self.store.page_map[page as usize]
                    ));
                }
            }
            waiting += pages.len();
        }
        if let Some(buffer) = &self.admission.buffer {
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
                if self.store.page_map[page as usize] != self.admission.base + i as u32 {
                    return Err(format!(
                        "page {page} is in the sort buffer at {i}, but maps to {}",
                        self.store.page_map[page as usize]
                    ));
                }
                waiting += 1;
            }
        }
        let named = self
            .store
            .page_map
            .iter()
            .filter(|&&e| e != NONE && e >= self.admission.base)
            .count();
        if named != waiting {
            return Err(format!(
                "{named} pages map to a stream, {waiting} wait in one"
            ));
        }
        if !self.seg_region.is_empty() {
            let mut owned = vec![0u32; self.owned.len()];
            for (seg, state) in self.store.state.iter().enumerate() {
                if *state != crate::store::SegState::Free {
                    owned[self.seg_region[seg] as usize] += 1;
                }
            }
            if owned != self.owned {
                return Err(format!(
                    "regions own {owned:?} segments, counted {:?}",
                    self.owned
                ));
            }
            for (r, (o, region)) in owned.iter().zip(&self.placement.regions).enumerate() {
                if *o > region.quota {
                    return Err(format!(
                        "region {r} owns {o} segments, over its quota {}",
                        region.quota
                    ));
                }
            }
        }
        Ok(())
    }
}
