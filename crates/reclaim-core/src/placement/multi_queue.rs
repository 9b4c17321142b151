//! MultiQueue: user writes by the write count of their chunk, on a logarithmic scale; relocated
//! pages apart.
//!
//! J. Yang, R. Pandurangan, C. Choi, V. Balakrishnan, "AutoStream: Automatic Stream Management
//! for Multi-streamed SSDs", SYSTOR '17 (its multi-queue algorithm: the address space in
//! chunks, each chunk's writes counted, a chunk in queue ⌊log(writes)⌋, one stream per queue; a
//! chunk not written within its expected lifetime is demoted one queue), in the form the
//! artifact of Wang et al. (FAST '22) implements it, `trace_replay/.../placement/MultiQueue.java`,
//! with six open segments (classes):
//!
//! - **Chunks** of 256 pages (1 MiB of 4 KiB pages). Each write request adds one write to every
//!   chunk it touches (once per chunk, however many of its pages the request writes) and moves
//!   the chunk to queue min(⌊ln writes⌋, 4).
//! - **User writes** go to their chunk's queue (classes 0–4); **relocated pages** to class 5.
//! - **Demotion** (`demote=artifact`, the default): the artifact moves expired chunks between its
//!   LRU lists but never updates the chunk-to-queue map that `classify` reads, so demotion has
//!   no effect on placement (`../docs/design.md`, "SepBIT's rivals"); the class is the count's
//!   alone. `demote=paper` applies AutoStream's demotion as the artifact's `demote()` computes
//!   it: after every chunk promoted, the least recently promoted chunk of each queue whose
//!   expiry time (its last promotion plus the device lifetime, the interval since the last
//!   promotion of the most written chunk) has passed moves down one queue, and its expiry is
//!   renewed.
//!
//! A request is the trace's ([`Scheme::request`]); a workload without requests makes each write
//! its own.

use std::fmt;

use super::{ln_class, Build, Built, Declare, Relocation, Request, Scheme, Victim};
use crate::error::{Error, Result};
use crate::rng::SimRng;
use crate::spec::{Args, Family, Info, Need, Param};
use crate::workload::Write;

/// Classes (open segments) of the artifact's configuration.
const CLASSES: usize = 6;
/// The queue of relocated pages.
const GC: usize = CLASSES - 1;
/// No chunk (the end of a list).
const NIL: u32 = u32::MAX;


/// How expired chunks are demoted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Demote {
    /// As the artifact: moved between lists, their queue for placement unchanged.
    Artifact,
    /// As AutoStream describes it: moved down one queue.
    Paper,
}

/// The parameters of MultiQueue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MultiQueueSpec {
    /// Pages per chunk, ≥ 1.
    pub chunk: u32,
    /// How expired chunks are demoted.
    pub demote: Demote,
}

/// MultiQueue's state.
#[derive(Clone, Debug)]
pub struct MultiQueue {
    /// Pages per chunk.
    chunk: u32,
    /// Per chunk: requests that touched it (0: never).
    writes: Vec<u64>,
    /// Per chunk: its queue.
    queue: Vec<u8>,
    /// With `demote=paper`, the queues' LRU lists and the device's lifetime estimate.
    lists: Option<Box<Lists>>,
}

/// AutoStream's queues as LRU lists of chunks (least recently promoted first), for demotion.
#[derive(Clone, Debug)]
struct Lists {
    /// Per chunk: its last promotion and its expiry [chunk promotions].
    last: Vec<u64>,
    expire: Vec<u64>,
    /// Per chunk: its neighbours in its queue's list.
    prev: Vec<u32>,
    next: Vec<u32>,
    /// Per queue: its first and last chunk.
    head: [u32; GC],
    tail: [u32; GC],
    /// Chunk promotions so far, the device lifetime, the most writes of a chunk and that chunk.
    promotions: u64,
    lifetime: u64,
    max_writes: u64,
    hottest: u32,
}

impl Lists {
    fn new(chunks: usize) -> Self {
        Lists {
            last: vec![0; chunks],
            expire: vec![0; chunks],
            prev: vec![NIL; chunks],
            next: vec![NIL; chunks],
            head: [NIL; GC],
            tail: [NIL; GC],
            promotions: 0,
            lifetime: 0,
            max_writes: 0,
            hottest: NIL,
        }
    }

    fn unlink(&mut self, q: usize, c: u32) {
        let (p, n) = (self.prev[c as usize], self.next[c as usize]);
        match p {
            NIL => self.head[q] = n,
            p => self.next[p as usize] = n,
        }
        match n {
            NIL => self.tail[q] = p,
            n => self.prev[n as usize] = p,
        }
    }

    fn push(&mut self, q: usize, c: u32) {
        self.prev[c as usize] = self.tail[q];
        self.next[c as usize] = NIL;
        match self.tail[q] {
            NIL => self.head[q] = c,
            t => self.next[t as usize] = c,
        }
        self.tail[q] = c;
    }
}

impl MultiQueue {
    /// The scheme over `pages` logical pages in chunks of `spec.chunk` pages.
    pub fn new(spec: &MultiQueueSpec, pages: u64) -> Self {
        let chunks = pages.div_ceil(u64::from(spec.chunk)).max(1) as usize;
        MultiQueue {
            chunk: spec.chunk,
            writes: vec![0; chunks],
            queue: vec![0; chunks],
            lists: (spec.demote == Demote::Paper).then(|| Box::new(Lists::new(chunks))),
        }
    }

    /// One more request touched chunk `c`.
    fn promote(&mut self, c: u32) {
        let i = c as usize;
        let first = self.writes[i] == 0;
        self.writes[i] += 1;
        let (from, to) = (self.queue[i], ln_class(self.writes[i]));
        self.queue[i] = to;
        let Some(l) = self.lists.as_deref_mut() else {
            return;
        };
        l.promotions += 1;
        let last = if first { 0 } else { l.last[i] };
        if self.writes[i] > l.max_writes {
            (l.hottest, l.lifetime, l.max_writes) = (c, l.promotions - last, self.writes[i]);
        }
        if !first {
            l.unlink(usize::from(from), c);
        }
        l.push(usize::from(to), c);
        l.last[i] = l.promotions;
        l.expire[i] = l.promotions + l.lifetime;
        // Each queue's least recently promoted chunk, if expired, moves down one queue.
        for q in 0..GC {
            let c = l.head[q];
            if c == NIL || l.expire[c as usize] >= l.promotions {
                continue;
            }
            l.expire[c as usize] = l.promotions + l.lifetime;
            l.unlink(q, c);
            if c == l.hottest && l.head[q] != NIL {
                l.hottest = l.head[q];
                l.max_writes = self.writes[l.hottest as usize];
            }
            let down = q.saturating_sub(1);
            l.push(down, c);
            self.queue[c as usize] = down as u8;
        }
    }
}

impl Scheme for MultiQueue {
    #[inline(never)]
    fn user_stream(&mut self, write: &Write, _age: u64, _rng: &mut SimRng) -> usize {
        usize::from(self.queue[(write.page / self.chunk) as usize])
    }

    fn gc_stream(&mut self, _r: Relocation<'_>) -> usize {
        GC
    }

    fn victim_stream(&self, _victim: &Victim) -> Option<usize> {
        Some(GC)
    }

    #[inline(never)]
    fn request(&mut self, r: &Request) {
        let end = u64::from(r.first) + u64::from(r.pages.max(1)) - 1;
        let last = (end / u64::from(self.chunk)).min(self.writes.len() as u64 - 1) as u32;
        for c in r.first / self.chunk..=last {
            self.promote(c);
        }
    }
}

const CHUNK: &str = "a whole number of pages in [1, 2^31]";
const DEMOTE: &str = "artifact or paper";

impl Declare for MultiQueue {
    type Params = MultiQueueSpec;
    const INFO: Info = Info {
        family: Family::Placement,
        name: "multi-queue",
        aliases: &[],
        summary: "User writes by their chunk's write count, queue ⌊ln count⌋ (five queues); relocated pages apart.",
        source: "Yang et al. (AutoStream), SYSTOR '17; SepBIT artifact's MultiQueue.java",
        params: &[
            Param {
                key: "chunk",
                values: "N",
                unit: "pages",
                range: CHUNK,
                default: Some("256"),
                help: "Pages per chunk (256: 1 MiB of 4 KiB pages, the artifact's).",
            },
            Param {
                key: "demote",
                values: "artifact|paper",
                unit: "",
                range: DEMOTE,
                default: Some("artifact"),
                help: "artifact: demotion leaves a chunk's queue as placement reads it (the artifact's code); paper: an expired chunk moves down one queue (AutoStream).",
            },
        ],
        needs: &[Need::PageState, Need::Times],
    };
    fn parse(args: &Args<'_>) -> Result<MultiQueueSpec> {
        let chunk: u32 = args.num("chunk", Some(256), CHUNK)?;
        if !(1..=1 << 31).contains(&chunk) {
            return Err(Error::param(&args.key("chunk"), chunk, CHUNK));
        }
        let demote = args.choice(
            "demote",
            &[("artifact", Demote::Artifact), ("paper", Demote::Paper)],
            Demote::Artifact,
        )?;
        Ok(MultiQueueSpec { chunk, demote })
    }
    fn show(p: &MultiQueueSpec, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let demote = match p.demote {
            Demote::Artifact => "artifact",
            Demote::Paper => "paper",
        };
        write!(f, "multi-queue:chunk={},demote={demote}", p.chunk)
    }
    fn streams(_p: &MultiQueueSpec, _classes: u32) -> u32 {
        CLASSES as u32
    }
    // A count and a queue per chunk, and with demotion its list links and times.
    fn page_bytes(p: &MultiQueueSpec) -> u64 {
        let per_chunk: u64 = if p.demote == Demote::Paper { 33 } else { 9 };
        per_chunk.div_ceil(u64::from(p.chunk))
    }
    fn build(p: &MultiQueueSpec, b: &Build<'_>) -> Result<Built<Self>> {
        let pages = b.classes.iter().map(|c| c.pages).sum();
        let user = (0..CLASSES).map(|c| c < GC).collect();
        Ok(Built::whole(MultiQueue::new(p, pages), user, 1, b))
    }
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;

    use super::*;

    #[test]
    fn queues_follow_the_natural_logarithm() {
        // ⌊ln n⌋ for n = 1 … 60, capped at 4.
        for n in 1..=60u64 {
            let want = ((n as f64).ln().floor() as u8).min(4);
            assert_eq!(ln_class(n), want, "{n}");
        }
    }

    /// Counts are per request and per chunk: a request of many pages in one chunk counts once;
    /// one spanning two chunks counts in both. With the artifact's demotion, a chunk's queue is
    /// its count's.
    #[test]
    fn requests_count_once_per_chunk_touched() {
        let spec = MultiQueueSpec {
            chunk: 4,
            demote: Demote::Artifact,
        };
        let mut m = MultiQueue::new(&spec, 16);
        let mut rng = SimRng::seed_from_u64(1);
        m.request(&Request::at(0, 4));
        m.request(&Request::at(2, 4));
        m.request(&Request::at(1, 1));
        assert_eq!(m.writes[..3], [3, 1, 0]);
        assert_eq!(m.user_stream(&Write::new(1, 0), 0, &mut rng), 1);
        assert_eq!(m.user_stream(&Write::new(5, 0), 0, &mut rng), 0);
        for _ in 0..5 {
            m.request(&Request::at(0, 1));
        }
        assert_eq!((m.writes[0], m.queue[0]), (8, 2));
    }

    /// With `demote=paper`, a chunk not promoted within the lifetime moves down a queue.
    #[test]
    fn the_papers_demotion_moves_an_expired_chunk_down() {
        let spec = MultiQueueSpec {
            chunk: 1,
            demote: Demote::Paper,
        };
        let mut m = MultiQueue::new(&spec, 8);
        // Chunk 0 written 3 times (queue 1): promotions 1, 2, 3; lifetime 1 (3 − 2).
        for _ in 0..3 {
            m.request(&Request::at(0, 1));
        }
        assert_eq!(m.queue[0], 1);
        // Two more promotions of other chunks: chunk 0's expiry (3 + 1 = 4) passes at 5.
        m.request(&Request::at(1, 1));
        assert_eq!(m.queue[0], 1);
        m.request(&Request::at(2, 1));
        assert_eq!(m.queue[0], 0);
    }

    #[test]
    fn spec_round_trips_and_is_checked() {
        let p: crate::config::PlacementSpec = "multi-queue".parse().unwrap();
        assert_eq!(p.to_string(), "multi-queue:chunk=256,demote=artifact");
        assert_eq!(p.streams(1), 6);
        let e = "multi-queue:chunk=0"
            .parse::<crate::config::PlacementSpec>()
            .unwrap_err();
        assert!(e.to_string().contains("placement.chunk"), "{e}");
        let e = "multi-queue:demote=x"
            .parse::<crate::config::PlacementSpec>()
            .unwrap_err();
        assert!(e.to_string().contains("placement.demote"), "{e}");
    }
}
