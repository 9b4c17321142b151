//! Trace replay: the page writes of a converted trace, in order, pass after pass.
//!
//! With access-count thresholds (`trace_classes`), each page's class is computed once from the
//! whole trace, as Li et al. §6.2 group pages by how often the trace writes them: with thresholds
//! t₁ > t₂ > …, class 0 holds the pages written at least t₁ times, class 1 those written at least
//! t₂ times and fewer than t₁, …, the last written class those written at least once, and one
//! more class the pages the trace never writes.

use std::sync::Arc;

use super::WorkloadSpec;
use super::{ClassShare, Write, NO_CLASS};
use crate::config::grammar::{Entry, Family, Info, Param};

/// Replays a trace's page ids cyclically.
#[derive(Clone, Debug)]
pub struct Replay {
    pages: Arc<Vec<u32>>,
    pos: usize,
    /// Class per logical page; empty without thresholds.
    class: Vec<u16>,
    /// Pages and writes per class.
    shares: Vec<ClassShare>,
}

impl Replay {
    /// Replays `pages` from the start over `logical_pages` pages, classed by `thresholds`.
    pub fn new(pages: Arc<Vec<u32>>, logical_pages: u64, thresholds: Option<&[u64]>) -> Self {
        let mut class = Vec::new();
        let mut shares = vec![ClassShare {
            pages: logical_pages,
            write_share: 1.0,
        }];
        if let Some(t) = thresholds {
            let mut counts = vec![0u64; logical_pages as usize];
            for &p in pages.iter() {
                counts[p as usize] += 1;
            }
            let unwritten = t.len() + 1;
            let mut writes = vec![0u64; t.len() + 2];
            let mut sizes = vec![0u64; t.len() + 2];
            class = counts
                .iter()
                .map(|&n| {
                    let c = if n == 0 {
                        unwritten
                    } else {
                        t.iter().position(|&x| n >= x).unwrap_or(t.len())
                    };
                    writes[c] += n;
                    sizes[c] += 1;
                    c as u16
                })
                .collect();
            let total = pages.len() as f64;
            shares = sizes
                .iter()
                .zip(&writes)
                .map(|(&s, &w)| ClassShare {
                    pages: s,
                    write_share: w as f64 / total,
                })
                .collect();
        }
        Replay {
            pages,
            pos: 0,
            class,
            shares,
        }
    }

    /// The next write (the trace starts again after its last write).
    #[inline]
    pub fn next_write(&mut self) -> Write {
        let page = self.pages[self.pos];
        self.pos += 1;
        if self.pos == self.pages.len() {
            self.pos = 0;
        }
        Write::new(page, self.class_of(page))
    }

    /// The page's class.
    #[inline]
    pub fn class_of(&self, page: u32) -> u16 {
        if self.class.is_empty() {
            NO_CLASS
        } else {
            self.class[page as usize]
        }
    }

    /// Pages and write share per class.
    pub fn class_shares(&self, _logical_pages: u64) -> Vec<ClassShare> {
        self.shares.clone()
    }
}

/// `trace:PATH` (parsed before the shared grammar: the path may hold `:` and `,`).
pub const ENTRY: Entry<WorkloadSpec> = Entry {
    info: Info {
        family: Family::Workload,
        name: "trace",
        aliases: &[],
        summary: "Replay a converted trace (`reclaim trace convert`) or a page-id list.",
        source: "Li et al. §6.1; Stockmeyer §2.1",
        params: &[Param {
            key: "",
            values: "PATH",
            unit: "",
            range: "the path of a converted trace or a page-id list",
            default: None,
            help: "The trace file; the rest of the spec, which may hold `:` and `,`.",
        }],
        needs: &[],
    },
    parse: |a| Err(a.bad("`trace:PATH` with the path of a converted trace or a page-id list")),
};
