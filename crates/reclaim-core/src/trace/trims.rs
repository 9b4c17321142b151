//! A trace's discards (TRIM): ranges of page ids that hold no data from a point of the page
//! writes on, as a converted trace keeps them (the layout in [`super::convert`]).

/// The discards (TRIM) of a trace, as ranges of page ids, each at a point of the page writes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Trims {
    /// Page writes before each range takes effect (non-decreasing).
    pub at: Vec<u64>,
    /// First page id of each range.
    pub first: Vec<u32>,
    /// Pages of each range (≥ 1).
    pub pages: Vec<u32>,
    /// Volume of each range (empty: one volume).
    pub volumes: Vec<u32>,
}

impl Trims {
    /// Ranges.
    pub fn len(&self) -> usize {
        self.at.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.at.is_empty()
    }

    /// Adds a range of `volume` (`None`: one volume), or extends the last one when it is at the
    /// same place, of the same volume, and ends where this one starts: the ranges of a trace
    /// are maximal, whichever way its ids came (renamed in one go or volume by volume).
    pub(super) fn push(&mut self, at: u64, first: u32, pages: u32, volume: Option<u32>) {
        let k = self.at.len();
        if k > 0
            && self.at[k - 1] == at
            && self.volumes.last().copied() == volume
            && self.first[k - 1] + self.pages[k - 1] == first
        {
            self.pages[k - 1] += pages;
            return;
        }
        self.at.push(at);
        self.first.push(first);
        self.pages.push(pages);
        if let Some(v) = volume {
            self.volumes.push(v);
        }
    }
}
