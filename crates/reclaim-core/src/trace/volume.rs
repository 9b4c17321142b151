//! A converted trace's volumes and page names: one volume taken out as if converted alone, one
//! file per volume, and the dense renaming of page ids in first-write order (Stockmeyer §2.1).

use std::path::Path;

use super::binary::write_binary;
use super::convert::{io_err, Reads, Trace, Trims, VolumeMeta};
use crate::error::Result;

/// New page names in first-write order. Dense traces: blocks of 2^12 pages, each allocated when
/// first touched, so that a lookup is two loads and no hashing. Sparse ones (more than
/// [`Names::SPARSE`] addresses per page write): a hash map, as a block of 16 KiB per page written
/// would make memory follow the address space (200,000 random ids below 2³² took 3 GB).
enum Names {
    Blocks(Vec<Option<Box<[u32]>>>),
    Map(std::collections::HashMap<u32, u32>),
}

impl Names {
    const UNNAMED: u32 = u32::MAX;
    const SHIFT: usize = 12;
    const MASK: usize = (1 << Self::SHIFT) - 1;
    /// Addresses per page write above which the map is used.
    const SPARSE: u64 = 64;

    fn for_trace(address_pages: u64, writes: usize) -> Self {
        if address_pages > Self::SPARSE * writes as u64 {
            Names::Map(std::collections::HashMap::new())
        } else {
            let mut blocks = Vec::new();
            blocks.resize_with((address_pages as usize >> Self::SHIFT) + 1, || None);
            Names::Blocks(blocks)
        }
    }

    /// The new name of page `p`, `next` (then advanced) if it has none yet.
    fn name(&mut self, p: u32, next: &mut u32) -> u32 {
        let slot = match self {
            Names::Blocks(blocks) => {
                let block = blocks[p as usize >> Self::SHIFT].get_or_insert_with(|| {
                    vec![Self::UNNAMED; 1 << Self::SHIFT].into_boxed_slice()
                });
                &mut block[p as usize & Self::MASK]
            }
            Names::Map(map) => map.entry(p).or_insert(Self::UNNAMED),
        };
        if *slot == Self::UNNAMED {
            *slot = *next;
            *next += 1;
        }
        *slot
    }

    /// The new name of page `p`, if the trace writes it.
    fn get(&self, p: u32) -> Option<u32> {
        match self {
            Names::Blocks(blocks) => blocks
                .get(p as usize >> Self::SHIFT)
                .and_then(Option::as_ref)
                .map(|b| b[p as usize & Self::MASK])
                .filter(|&id| id != Self::UNNAMED),
            Names::Map(map) => map.get(&p).copied(),
        }
    }
}

impl Trace {
    /// Renames the page ids densely in first-write order (Stockmeyer §2.1), so that the address
    /// space is the working set; a trace already renamed is left as it is.
    pub fn rename_densely(&mut self) {
        if self.meta.renamed {
            return;
        }
        let mut names = Names::for_trace(self.meta.address_pages, self.pages.len());
        let mut next = 0u32;
        for p in &mut self.pages {
            *p = names.name(*p, &mut next);
        }
        // Trimmed pages take their new names; a page the trace never writes holds nothing to trim.
        let old = std::mem::take(&mut self.trims);
        for k in 0..old.len() {
            let mut run: Option<(u32, u32)> = None;
            for p in old.first[k]..old.first[k] + old.pages[k] {
                let Some(id) = names.get(p) else {
                    continue;
                };
                run = match run {
                    Some((f, n)) if f + n == id => Some((f, n + 1)),
                    Some((f, n)) => {
                        self.trims
                            .push(old.at[k], f, n, old.volumes.get(k).copied());
                        Some((id, 1))
                    }
                    None => Some((id, 1)),
                };
            }
            if let Some((f, n)) = run {
                self.trims
                    .push(old.at[k], f, n, old.volumes.get(k).copied());
            }
        }
        self.meta.trim_ranges = self.trims.len() as u64;
        self.meta.pages_trimmed = self.trims.pages.iter().map(|&n| u64::from(n)).sum();
        // Read pages take their new names; one the trace never writes has none (UNWRITTEN).
        self.reads = self.reads.map_pages(|p| names.get(p));
        self.meta.read_runs = self.reads.first.len() as u64;
        (self.meta.pages_read, self.meta.pages_read_unwritten) = self.reads.page_counts();
        self.meta.unique_pages = u64::from(next);
        self.meta.address_pages = u64::from(next);
        self.meta.renamed = true;
    }

    /// The volumes, as listed in the header (a trace of layout 1 has one, unnamed).
    pub fn volume_names(&self) -> Vec<&str> {
        if self.meta.volumes.is_empty() {
            vec![self.meta.device.as_deref().unwrap_or("")]
        } else {
            self.meta.volumes.iter().map(|v| v.name.as_str()).collect()
        }
    }

    /// One volume taken out, as if converted alone (`--device`): its requests in order, its
    /// pages in its own address space (ids kept: less its first page; renamed: renamed again
    /// densely in first-write order). `None` for an index past the volumes.
    pub fn volume(&self, index: usize) -> Option<Trace> {
        if self.meta.volumes.len() <= 1 {
            return (index == 0).then(|| self.clone());
        }
        let v = self.meta.volumes.get(index)?;
        let first = v.first_page as u32;
        // Sized by the header's counts, but never beyond the arrays they count.
        let mut pages = Vec::with_capacity((v.pages_written as usize).min(self.pages.len()));
        let mut request_pages =
            Vec::with_capacity((v.writes as usize).min(self.request_pages.len()));
        let mut times = Vec::new();
        let mut trims = Trims::default();
        let mut t = 0;
        // Each of its trims, at the count of its own page writes before it.
        let mut trims_before = |global: usize, mine: usize, trims: &mut Trims| {
            while t < self.trims.len() && self.trims.at[t] <= global as u64 {
                if self
                    .trims
                    .volumes
                    .get(t)
                    .is_none_or(|&v| v as usize == index)
                {
                    trims.push(
                        mine as u64,
                        self.trims.first[t] - first,
                        self.trims.pages[t],
                        None,
                    );
                }
                t += 1;
            }
        };
        let mut at = 0usize;
        for (i, (&n, &vol)) in self
            .request_pages
            .iter()
            .zip(&self.request_volumes)
            .enumerate()
        {
            trims_before(at, pages.len(), &mut trims);
            let span = at..at + n as usize;
            at = span.end;
            if vol as usize != index {
                continue;
            }
            pages.extend(self.pages[span].iter().map(|&p| p - first));
            request_pages.push(n);
            if let Some(&t) = self.times.get(i) {
                times.push(t);
            }
        }
        trims_before(usize::MAX, pages.len(), &mut trims);
        let reads = self.volume_reads(index, first);
        let mut meta = self.meta.clone();
        meta.device = Some(v.name.clone());
        meta.trims = v.trims;
        meta.trim_ranges = trims.len() as u64;
        meta.pages_trimmed = trims.pages.iter().map(|&n| u64::from(n)).sum();
        meta.requests = v.requests;
        meta.reads = if meta.version >= 3 {
            reads.len() as u64
        } else {
            v.requests - v.writes
        };
        meta.read_runs = reads.first.len() as u64;
        (meta.pages_read, meta.pages_read_unwritten) = reads.page_counts();
        meta.writes = v.writes;
        meta.pages_written = v.pages_written;
        meta.unique_pages = v.unique_pages;
        meta.address_pages = v.address_pages;
        meta.renamed = false;
        meta.volumes = vec![VolumeMeta {
            first_page: 0,
            ..v.clone()
        }];
        let mut one = Trace {
            meta,
            pages,
            request_pages,
            times,
            request_volumes: Vec::new(),
            trims,
            reads,
        };
        if self.meta.renamed {
            one.meta.address_pages = self.meta.address_pages;
            one.rename_densely();
        }
        Some(one)
    }

    /// The reads of volume `index` (several volumes), each at the count of the volume's own
    /// page writes before it, its ids less the volume's `first` page.
    fn volume_reads(&self, index: usize, first: u32) -> Reads {
        let all = &self.reads;
        let mut out = Reads::default();
        let mut requests = self.request_pages.iter().zip(&self.request_volumes);
        // Page writes before the read, of the whole trace and of the volume.
        let (mut global, mut mine) = (0u64, 0u64);
        for (k, runs) in all.requests().enumerate() {
            // A read lies between two write requests: `at` is where one of them ends.
            while global < all.at[k] {
                let Some((&n, &v)) = requests.next() else {
                    break;
                };
                global += u64::from(n);
                mine += u64::from(n) * u64::from(v as usize == index);
            }
            if all.volumes.get(k).is_some_and(|&v| v as usize != index) {
                continue;
            }
            let pages = runs.flat_map(|r| {
                let (f, n) = (all.first[r], all.pages[r]);
                (0..n).map(move |i| (f != Reads::UNWRITTEN).then(|| f + i - first))
            });
            out.push(mine, all.times.get(k).copied(), None, pages);
        }
        out
    }

    /// Writes per page: how many pages the trace writes exactly once, and the working set.
    /// Memory follows the page writes, not the address space: a count per address when the
    /// addresses are fewer than 8 per page write (a byte each), else a sorted copy of the page
    /// writes (4 bytes each), so a trace with one far address costs what its writes cost.
    pub fn written_once(&self) -> (u64, u64) {
        if self.meta.address_pages / 8 > self.pages.len() as u64 {
            let mut sorted = self.pages.clone();
            sorted.sort_unstable();
            let (mut once, mut set) = (0, 0);
            for run in sorted.chunk_by(|a, b| a == b) {
                set += 1;
                once += u64::from(run.len() == 1);
            }
            return (once, set);
        }
        let mut counts = vec![0u8; self.meta.address_pages as usize];
        for &p in &self.pages {
            let c = &mut counts[p as usize];
            *c = c.saturating_add(1);
        }
        counts.iter().fold((0, 0), |(once, set), &c| {
            (once + u64::from(c == 1), set + u64::from(c > 0))
        })
    }
}

/// A file name for a volume: its name with every character but ASCII letters, digits, `-`, `_`
/// and `.` made `_` (`8,16` → `8_16`), `volume` when that leaves nothing, and `-N` added when an
/// earlier volume took the name.
fn volume_file_name(name: &str, taken: &mut std::collections::HashSet<String>) -> String {
    let mut base: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if base.trim_matches('.').is_empty() {
        base = "volume".into();
    }
    let mut file = format!("{base}.rtr");
    let mut n = 1;
    while !taken.insert(file.clone()) {
        n += 1;
        file = format!("{base}-{n}.rtr");
    }
    file
}

/// Writes each volume with writes of `trace` as a converted trace of its own in `dir` (created
/// if need be), as [`Trace::volume`] takes it out; returns (volume, file name) in the trace's
/// order of volumes. Volumes without writes are left out (their counts stay in the header).
pub fn write_volumes(trace: &Trace, dir: &Path) -> Result<Vec<(VolumeMeta, String)>> {
    std::fs::create_dir_all(dir).map_err(|e| io_err(dir, &e))?;
    let mut taken = std::collections::HashSet::new();
    let mut out = Vec::new();
    let count = trace.meta.volumes.len().max(1);
    for i in 0..count {
        let one = trace.volume(i).expect("an index below the count");
        let v = one
            .meta
            .volumes
            .first()
            .cloned()
            .unwrap_or_else(|| VolumeMeta {
                name: one.meta.device.clone().unwrap_or_default(),
                first_page: 0,
                address_pages: one.meta.address_pages,
                requests: one.meta.requests,
                writes: one.meta.writes,
                pages_written: one.meta.pages_written,
                unique_pages: one.meta.unique_pages,
                trims: one.meta.trims,
            });
        if v.writes == 0 {
            continue;
        }
        let file = volume_file_name(&v.name, &mut taken);
        write_binary(&one, &dir.join(&file))?;
        out.push((v, file));
    }
    Ok(out)
}
