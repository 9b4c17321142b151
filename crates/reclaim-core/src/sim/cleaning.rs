//! The cleaner's state between victims: its trigger, the batch being gathered and its victims,
//! the sort of a batch by the trigger's key, and the progress check.

use crate::config::{GcSpec, SortKey};
use crate::error::Error;
use crate::geometry::Geometry;
use crate::ledger::Ledgers;
use crate::placement::sort_buffer::{exact_key, exact_rank, radix_sort};
use crate::placement::{Gathered, Placement, Stream, Victim};
use crate::policy::PolicySpec;

/// The cleaner's trigger, its batch and its progress check.
pub(super) struct Cleaning {
    pub(super) gc: GcSpec,
    /// Live pages of the current cleaning batch and their victims.
    pub(super) batch: Vec<Gathered>,
    /// Scratch: the batch sorted by its victims' u_p2.
    sorted: Vec<Gathered>,
    /// Scratch for a sort by each page's exact key: (rank, position) and the radix sort's
    /// second buffer.
    ranked: Vec<(u64, u32)>,
    ranked_tmp: Vec<(u64, u32)>,
    /// Scratch: the streams of a victim's run of pages (`route_pages`).
    pub(super) run_streams: Vec<u32>,
    pub(super) victims: Vec<Victim>,
    /// Victims cleaned since the last user write.
    pub(super) streak: u64,
    pub(super) streak_limit: u64,
    /// `method = log`: its trigger, which replaces `gc`'s.
    pub(super) log: Option<super::log::LogTrigger>,
}

/// Victims cleaned in a row without room for a user write after which the cleaner stops with
/// [`Error::NoProgress`]: 2n + the batch's victims, enough for any policy that chooses by
/// valid count or age to reach a segment with room if one exists. A policy that draws its
/// candidates at random (`random`, `d-choices`, `gra`) can miss the segments with room by
/// chance: with one such segment among m ≤ n sealed, L draws all miss it with probability
/// (1 − 1/m)^L < e^(−L/n), so for it the limit is 40n (a chance of e^(−40), about 4·10⁻¹⁸,
/// against a true stall).
fn streak_limit(policy: &PolicySpec, n: u32, victims: u64) -> u64 {
    let per_segment = if policy.draws_at_random() { 40 } else { 2 };
    per_segment * u64::from(n) + victims
}

/// `batch`, whose pages come in runs by victim (victim 0's, then 1's, …), rewritten into `out`
/// with the runs in the victims' `order`: a stable sort of the pages by a key of their victim.
fn runs_in_order(batch: &[Gathered], order: &[u32], out: &mut Vec<Gathered>) {
    let mut start = vec![0usize; order.len() + 1];
    for g in batch {
        start[g.victim as usize + 1] += 1;
    }
    for v in 0..order.len() {
        start[v + 1] += start[v];
    }
    out.clear();
    for &v in order {
        out.extend_from_slice(&batch[start[v as usize]..start[v as usize + 1]]);
    }
}

impl Cleaning {
    /// The cleaner of trigger `gc` under `policy`, on `segments` segments of `pps` pages.
    pub(super) fn new(gc: GcSpec, policy: &PolicySpec, segments: u32, pps: u32) -> Self {
        let victims = match gc {
            GcSpec::Batch { victims, .. } => u64::from(victims),
            _ => 1,
        };
        Cleaning {
            gc,
            batch: Vec::with_capacity(pps as usize),
            sorted: Vec::new(),
            ranked: Vec::new(),
            ranked_tmp: Vec::new(),
            run_streams: Vec::with_capacity(pps as usize),
            victims: Vec::new(),
            streak: 0,
            streak_limit: streak_limit(policy, segments, victims),
            log: None,
        }
    }

    /// The stop when the cleaner cleans victim after victim without room for a user write on
    /// `g` under `placement`, with the count of where the segments beyond the data are.
    #[cold]
    pub(super) fn no_progress(&self, g: &Geometry, placement: &Placement) -> Error {
        let data = g.logical_pages.div_ceil(u64::from(g.pages_per_segment));
        // Groups keep one reserve in the pool they share; regions, one each.
        let regions = if placement.groups {
            1
        } else {
            placement.regions.len()
        };
        let reserved: usize = (0..regions).map(|r| placement.reserve(r)).sum();
        Error::NoProgress {
            victims: self.streak,
            logical_pages: g.logical_pages,
            segments: g.segments,
            pages_per_segment: g.pages_per_segment,
            spare_segments: u64::from(g.segments).saturating_sub(data),
            streams: placement.streams.len() as u32,
            reserved: reserved as u32,
        }
    }

    /// Sorts `batch` by the batch trigger's key (`gc=batch:…,sort=`): the victims' stamp or
    /// destage number, the pages' last user write (`written`) or u_p2 (by victim, or by each
    /// page's exact `rate` where kept). A batch sorted by u_p2 is then written from the end
    /// whose keys are nearer those of the GC stream's open segment `gc_stream`, so that the
    /// segment is filled with pages like those it holds rather than mixing the batch's two
    /// extremes (Lomet & Luo §5.3 sort, but do not say in which direction).
    pub(super) fn sort(&mut self, batch: &mut Vec<Gathered>, facts: &Ledgers, gc_stream: &Stream) {
        let (written, rate) = (facts.page_written(), facts.page_rate());
        let GcSpec::Batch { sort, .. } = self.gc else {
            return;
        };
        let victims = &self.victims;
        match sort {
            SortKey::None => {}
            SortKey::Stamp => batch.sort_by_key(|g| victims[g.victim as usize].stamp),
            SortKey::Dseq => batch.sort_by_key(|g| victims[g.victim as usize].dseq),
            SortKey::Written => batch.sort_by_key(|g| written[g.page as usize]),
            SortKey::Up2 if rate.is_empty() => {
                // Every page of a victim has its u_p2: sort the victims, not the pages.
                let mut order: Vec<u32> = (0..victims.len() as u32).collect();
                order.sort_by(|&a, &b| victims[a as usize].up2.total_cmp(&victims[b as usize].up2));
                runs_in_order(batch, &order, &mut self.sorted);
                std::mem::swap(batch, &mut self.sorted);
            }
            SortKey::Up2 => {
                // A stable sort by each page's exact key, through its rank: one read of the
                // page's rate and no exp2 per page, no comparison of random keys.
                self.ranked.clear();
                self.ranked.extend(
                    (batch.iter().enumerate())
                        .map(|(i, g)| (exact_rank(rate[g.page as usize]), i as u32)),
                );
                radix_sort(&mut self.ranked, &mut self.ranked_tmp);
                self.sorted.clear();
                self.sorted
                    .extend(self.ranked.iter().map(|&(_, i)| batch[i as usize]));
                std::mem::swap(batch, &mut self.sorted);
            }
        }
        if sort != SortKey::Up2 {
            return;
        }
        let (Some(first), Some(last), Some(open)) =
            (batch.first(), batch.last(), gc_stream.mean_up2())
        else {
            return;
        };
        if gc_stream.seg == crate::store::NONE {
            return;
        }
        let key = |g: &Gathered| {
            if rate.is_empty() {
                victims[g.victim as usize].up2
            } else {
                exact_key(rate[g.page as usize])
            }
        };
        if (key(last) - open).abs() < (key(first) - open).abs() {
            batch.reverse();
        }
    }
}
