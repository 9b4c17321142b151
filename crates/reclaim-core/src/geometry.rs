//! Device geometry: segments, pages per segment and logical capacity.

use serde::Serialize;

/// The resolved size of a simulated device.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Geometry {
    /// Physical segments N.
    pub segments: u32,
    /// Pages per segment b.
    pub pages_per_segment: u32,
    /// Logical pages (bU in Van Houdt's notation, N(1 − S)k in Li et al.'s).
    pub logical_pages: u64,
}

impl Geometry {
    /// Physical pages N·b.
    pub fn physical_pages(&self) -> u64 {
        u64::from(self.segments) * u64::from(self.pages_per_segment)
    }

    /// Fill factor ρ = logical / physical pages.
    pub fn fill(&self) -> f64 {
        self.logical_pages as f64 / self.physical_pages() as f64
    }

    /// Spare factor 1 − ρ.
    pub fn spare(&self) -> f64 {
        1.0 - self.fill()
    }

    /// Bytes the engine's state takes for this geometry: 4 bytes per logical page (page map),
    /// 4 per physical page (reverse map) and about 48 per segment (segment table, free pool,
    /// policy index).
    pub fn state_bytes(&self) -> u64 {
        4 * self.logical_pages + 4 * self.physical_pages() + 48 * u64::from(self.segments)
    }
}
