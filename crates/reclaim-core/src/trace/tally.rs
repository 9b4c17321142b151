//! What a conversion counts as it reads: each volume's requests and distinct pages, in memory
//! that follows the pages a trace writes, not its largest address.

/// What one volume wrote during a conversion.
#[derive(Default)]
pub(super) struct VolumeTally {
    /// Requests (reads and writes) and write requests.
    pub(super) requests: u64,
    pub(super) writes: u64,
    pub(super) pages_written: u64,
    pub(super) unique: u64,
    pub(super) max_page: u64,
    /// Pages written so far, one bit per page, in blocks of 2^16 pages allocated when first
    /// touched: memory follows the pages a trace writes, not its largest address.
    pub(super) seen: Vec<Option<Box<[u64; 1024]>>>,
}

impl VolumeTally {
    /// Notes a write of `page` (ids kept), counting it when new.
    #[inline]
    pub(super) fn see(&mut self, page: u64) {
        let (block, word, bit) = (
            (page >> 16) as usize,
            ((page >> 6) & 1023) as usize,
            page & 63,
        );
        if block >= self.seen.len() {
            self.seen.resize(block + 1, None);
        }
        let words = self.seen[block].get_or_insert_with(|| Box::new([0; 1024]));
        if words[word] & (1 << bit) == 0 {
            words[word] |= 1 << bit;
            self.unique += 1;
        }
    }
}

/// Distinct ids of `pages`, in memory that follows the list, not its largest id: a bit per id
/// up to the largest when that is at most 4 bytes per page (32 bits), else a sorted copy (4 bytes
/// per page). A hash set would take 10 or more bytes per page.
pub(super) fn distinct(pages: &[u32], max: u32) -> u64 {
    let ids = u64::from(max) + 1;
    if ids <= 32 * pages.len() as u64 {
        let mut bits = vec![0u64; ids.div_ceil(64) as usize];
        let mut n = 0;
        for &p in pages {
            let (word, bit) = (p as usize >> 6, p & 63);
            n += u64::from(bits[word] >> bit & 1 == 0);
            bits[word] |= 1 << bit;
        }
        return n;
    }
    let mut sorted = pages.to_vec();
    sorted.sort_unstable();
    sorted.chunk_by(|a, b| a == b).count() as u64
}
